package grpo

import (
	"errors"
	"fmt"
	"math"
)

// Advantage scales.
const (
	// ScaleGroup divides by the normalisation group's standard deviation (GRPO).
	ScaleGroup = "group"
	// ScaleBatch divides by the standard deviation of the whole batch, after centring
	// within each group (TRL's scale_rewards="batch").
	ScaleBatch = "batch"
	// ScaleNone only centres (Dr. GRPO): A = r − mean.
	ScaleNone = "none"
)

// Standard deviation estimators.
const (
	// StdSample divides by n − 1 (torch.std's default, hence TRL's and OpenRLHF's).
	StdSample = "sample"
	// StdPopulation divides by n.
	StdPopulation = "population"
)

// Normalisation groups.
const (
	// GroupByPrompt normalises the G completions of each prompt together (GRPO).
	GroupByPrompt = "prompt"
	// GroupByTask normalises all completions of one task type together, whatever their
	// prompt (task-stratified, as in UMA): the key is Label.Stratum.
	GroupByTask = "task"
)

// AdvantageConfig configures Advantages.
//
// With G = 2 every unequal pair gets advantages of the same size whatever the rewards:
// with rewards a > b the mean is (a+b)/2 and the deviations are ±(a−b)/2, so under ScaleGroup
// the population std is (a−b)/2 and the advantages are ±1, while the sample std is
// (a−b)/√2 and they are ±1/√2 ≈ ±0.7071 (less a hair for Epsilon). A pair that differs by
// 0.01 pushes as hard as one that differs by 5. ScaleNone keeps the difference: ±(a−b)/2.
type AdvantageConfig struct {
	// Scale is ScaleGroup, ScaleBatch or ScaleNone.
	Scale string `json:"scale"`
	// Std is StdSample or StdPopulation.
	Std string `json:"std"`
	// Epsilon is added to the std before dividing (TRL: 1e-4).
	Epsilon float64 `json:"epsilon"`
	// GroupBy is GroupByPrompt or GroupByTask.
	GroupBy string `json:"group_by"`
}

// Validate reports every problem with the configuration at once.
func (c AdvantageConfig) Validate() error {
	var errs []error
	if c.Scale != ScaleGroup && c.Scale != ScaleBatch && c.Scale != ScaleNone {
		errs = append(errs, fmt.Errorf("advantage.scale is %q, want %q, %q or %q", c.Scale, ScaleGroup, ScaleBatch, ScaleNone))
	}
	if c.Std != StdSample && c.Std != StdPopulation {
		errs = append(errs, fmt.Errorf("advantage.std is %q, want %q or %q", c.Std, StdSample, StdPopulation))
	}
	if math.IsNaN(c.Epsilon) || c.Epsilon < 0 || math.IsInf(c.Epsilon, 0) {
		errs = append(errs, fmt.Errorf("advantage.epsilon is %v, want a finite number ≥ 0", c.Epsilon))
	}
	if c.GroupBy != GroupByPrompt && c.GroupBy != GroupByTask {
		errs = append(errs, fmt.Errorf("advantage.group_by is %q, want %q or %q", c.GroupBy, GroupByPrompt, GroupByTask))
	}
	return errors.Join(errs...)
}

// AdvantageStats describe one batch's advantages.
type AdvantageStats struct {
	// Groups is the number of normalisation groups; ZeroStd of them have rewards that are
	// all equal (their advantages are 0 and teach nothing); ZeroStdFraction is the share.
	Groups          int     `json:"groups"`
	ZeroStd         int     `json:"zero_std"`
	ZeroStdFraction float64 `json:"zero_std_fraction"`
	// Mean, Std, Min and Max are over the advantages (population std).
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// zeroStd is the spread below which a group's rewards count as equal.
const zeroStd = 1e-12

// Advantages computes A_i = (r_i − mean_g)/(std_g + ε) for each reward, where g is the
// normalisation group of reward i (keys[i]: the prompt, or the task type under
// GroupByTask) and std_g follows cfg.Scale: the group's std, the batch's std (still
// centred within the group), or 1 with no ε (ScaleNone). A group of one has advantage 0.
// keys must have one entry per reward.
func Advantages(rewards []float64, keys []string, cfg AdvantageConfig) ([]float64, AdvantageStats, error) {
	if len(keys) != len(rewards) {
		return nil, AdvantageStats{}, fmt.Errorf("advantages: %d rewards and %d group keys", len(rewards), len(keys))
	}
	if err := cfg.Validate(); err != nil {
		return nil, AdvantageStats{}, err
	}
	for i, r := range rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, AdvantageStats{}, fmt.Errorf("advantages: reward %d is %v", i, r)
		}
	}
	// Groups in order of first appearance, so that results do not depend on map order.
	index := map[string]int{}
	var members [][]int
	for i, k := range keys {
		g, ok := index[k]
		if !ok {
			g = len(members)
			index[k] = g
			members = append(members, nil)
		}
		members[g] = append(members[g], i)
	}
	sample := cfg.Std == StdSample
	batchStd := stdOf(rewards, nil, sample)

	adv := make([]float64, len(rewards))
	var st AdvantageStats
	st.Groups = len(members)
	for _, idx := range members {
		mean := meanOf(rewards, idx)
		sd := stdOf(rewards, idx, sample)
		if len(idx) < 2 || sd < zeroStd {
			st.ZeroStd++
			continue // all advantages of the group stay 0
		}
		scale := 1.0
		switch cfg.Scale {
		case ScaleGroup:
			scale = sd + cfg.Epsilon
		case ScaleBatch:
			scale = batchStd + cfg.Epsilon
		}
		for _, i := range idx {
			adv[i] = (rewards[i] - mean) / scale
		}
	}
	if st.Groups > 0 {
		st.ZeroStdFraction = float64(st.ZeroStd) / float64(st.Groups)
	}
	if len(adv) > 0 {
		st.Mean = meanOf(adv, nil)
		st.Std = stdOf(adv, nil, false)
		st.Min, st.Max = adv[0], adv[0]
		for _, a := range adv {
			st.Min, st.Max = min(st.Min, a), max(st.Max, a)
		}
	}
	return adv, st, nil
}

// meanOf is the mean of xs over idx (all of xs when idx is nil).
func meanOf(xs []float64, idx []int) float64 {
	sum, n := 0.0, 0
	each(xs, idx, func(x float64) { sum += x; n++ })
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// stdOf is the standard deviation of xs over idx, sample (n − 1) or population (n); 0
// for fewer than two values.
func stdOf(xs []float64, idx []int, sample bool) float64 {
	m := meanOf(xs, idx)
	ss, n := 0.0, 0
	each(xs, idx, func(x float64) { ss += (x - m) * (x - m); n++ })
	if n < 2 {
		return 0
	}
	d := float64(n)
	if sample {
		d--
	}
	return math.Sqrt(ss / d)
}

func each(xs []float64, idx []int, f func(float64)) {
	if idx == nil {
		for _, x := range xs {
			f(x)
		}
		return
	}
	for _, i := range idx {
		f(xs[i])
	}
}
