package grpo

import (
	"math"
	"strings"
	"testing"
)

func TestAdvantages(t *testing.T) {
	inv := 1 / math.Sqrt2
	grpo := AdvantageConfig{Scale: ScaleGroup, Std: StdSample, Epsilon: 0, GroupBy: GroupByPrompt}
	with := func(f func(*AdvantageConfig)) AdvantageConfig { c := grpo; f(&c); return c }
	tests := []struct {
		name     string
		rewards  []float64
		keys     []string
		cfg      AdvantageConfig
		want     []float64
		zeroFrac float64
	}{
		// G = 2: every unequal pair is ±1/√2 under the sample std, whatever the gap.
		{"G=2 sample std", []float64{5, 0, 0.01, 0}, []string{"a", "a", "b", "b"}, grpo, []float64{inv, -inv, inv, -inv}, 0},
		// ... and ±1 under the population std.
		{"G=2 population std", []float64{5, 0, 0.01, 0}, []string{"a", "a", "b", "b"},
			with(func(c *AdvantageConfig) { c.Std = StdPopulation }), []float64{1, -1, 1, -1}, 0},
		// Dr. GRPO keeps the gap: ±(a−b)/2.
		{"G=2 unscaled", []float64{5, 0, 0.01, 0}, []string{"a", "a", "b", "b"},
			with(func(c *AdvantageConfig) { c.Scale = ScaleNone }), []float64{2.5, -2.5, 0.005, -0.005}, 0},
		{"epsilon", []float64{1, 0}, []string{"a", "a"},
			with(func(c *AdvantageConfig) { c.Std = StdPopulation; c.Epsilon = 0.5 }), []float64{0.5, -0.5}, 0},
		{"equal rewards teach nothing", []float64{3, 3, 1, 2}, []string{"a", "a", "b", "b"}, grpo, []float64{0, 0, -inv, inv}, 0.5},
		{"group of one", []float64{3, 1, 2}, []string{"a", "b", "b"}, grpo, []float64{0, -inv, inv}, 0.5},
		// G = 4, rewards 0 0 0 4: mean 1, sample std 2.
		{"G=4", []float64{0, 0, 0, 4}, []string{"a", "a", "a", "a"}, grpo, []float64{-0.5, -0.5, -0.5, 1.5}, 0},
		// Batch scale: centred in each group, divided by the std of all rewards (0 2 1 1: mean 1,
		// sample std √(2/3)).
		{"batch scale", []float64{0, 2, 1, 1}, []string{"a", "a", "b", "b"},
			with(func(c *AdvantageConfig) { c.Scale = ScaleBatch }), []float64{-1 / math.Sqrt(2.0/3), 1 / math.Sqrt(2.0/3), 0, 0}, 0.5},
		// Task-stratified: the keys are task types spanning prompts; the caller passes them.
		{"strata", []float64{1, 0, 1, 3}, []string{"conflict/temporal_update", "conflict/temporal_update", "consistent/none", "consistent/none"},
			with(func(c *AdvantageConfig) { c.GroupBy = GroupByTask }), []float64{inv, -inv, -inv, inv}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			adv, st, err := Advantages(tt.rewards, tt.keys, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range adv {
				if math.Abs(adv[i]-tt.want[i]) > 1e-9 {
					t.Errorf("advantages %v, want %v", adv, tt.want)
					break
				}
			}
			if !near(st.ZeroStdFraction, tt.zeroFrac) {
				t.Errorf("zero-std fraction %v, want %v", st.ZeroStdFraction, tt.zeroFrac)
			}
		})
	}
}

func TestAdvantageStats(t *testing.T) {
	cfg := AdvantageConfig{Scale: ScaleGroup, Std: StdPopulation, Epsilon: 0, GroupBy: GroupByPrompt}
	_, st, err := Advantages([]float64{1, 0, 2, 2, 4, 0}, []string{"a", "a", "b", "b", "c", "c"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := AdvantageStats{Groups: 3, ZeroStd: 1, ZeroStdFraction: 1.0 / 3, Mean: 0, Std: math.Sqrt(4.0 / 6), Min: -1, Max: 1}
	if st.Groups != want.Groups || st.ZeroStd != want.ZeroStd || !near(st.ZeroStdFraction, want.ZeroStdFraction) ||
		!near(st.Mean, 0) || !near(st.Std, want.Std) || st.Min != -1 || st.Max != 1 {
		t.Errorf("stats %+v, want %+v", st, want)
	}
}

func TestAdvantagesErrors(t *testing.T) {
	ok := AdvantageConfig{Scale: ScaleGroup, Std: StdSample, Epsilon: 1e-4, GroupBy: GroupByPrompt}
	for _, tt := range []struct {
		name    string
		rewards []float64
		keys    []string
		cfg     AdvantageConfig
		want    []string
	}{
		{"lengths", []float64{1, 2}, []string{"a"}, ok, []string{"2 rewards and 1 group keys"}},
		{"NaN reward", []float64{1, math.NaN()}, []string{"a", "a"}, ok, []string{"reward 1 is NaN"}},
		{"every bad field", []float64{1}, []string{"a"}, AdvantageConfig{Scale: "z", Std: "x", Epsilon: -1, GroupBy: "y"},
			[]string{"advantage.scale", "advantage.std", "advantage.epsilon", "advantage.group_by"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Advantages(tt.rewards, tt.keys, tt.cfg)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
