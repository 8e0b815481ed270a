package sentry

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/atma-dev/atma/sentry/gate"
)

// ErrNoConflicts is returned by Calibrate when the examples hold no conflicting pair.
var ErrNoConflicts = errors.New("no conflicting pairs to calibrate on")

// Evaluation measures heads and a gate on labelled pairs. A pair is a conflict when
// Example.Conflict is true ("same slot and conflicting").
type Evaluation struct {
	N         int     `json:"n"`
	Conflicts int     `json:"conflicts"`
	MSETop    float64 `json:"mse_top"` // mean (a − YTop)²
	MSELog    float64 `json:"mse_log"` // mean (b − YLog)²
	// AUC is the ROC-AUC of conflict detection scored by gap = a − b (same topic, different
	// logic scores high); AUCLogic scores by 1 − b alone. NaN when the pairs are all
	// conflicts or all not.
	AUC      float64 `json:"auc"`
	AUCLogic float64 `json:"auc_logic"`
	// SameSlotAUC: topic similarity a separates same-slot pairs (YTop > 0.5) from the
	// others. SlotAUC and SlotAUCLogic score conflict detection among the same-slot pairs
	// only, by gap and by 1 − b: whether the logic head tells a conflicting from a
	// consistent statement of one slot, the only question it is there for (AUC and
	// AUCLogic also count every other-slot pair as a non-conflict, which a alone
	// separates). Nil when a class is empty.
	SameSlotAUC  *float64 `json:"same_slot_auc,omitempty"`
	SlotAUC      *float64 `json:"slot_auc,omitempty"`
	SlotAUCLogic *float64 `json:"slot_auc_logic,omitempty"`
	TP           int      `json:"tp"` // routed conflicts
	FP           int      `json:"fp"` // routed non-conflicts
	FN           int      `json:"fn"` // conflicts not routed
	Precision    float64  `json:"precision"`
	Recall       float64  `json:"recall"`
	F1           float64  `json:"f1"`
	RoutingRate  float64  `json:"routing_rate"` // fraction of pairs routed to the Judge
}

// similarities projects each example's two embeddings and returns the topic and logic
// similarities and the conflict labels.
func similarities(h *gate.Heads, exs []Example) (a, b []float64, conflict []bool) {
	embs := make([][]float32, 0, 2*len(exs))
	for _, ex := range exs {
		embs = append(embs, ex.U, ex.P)
	}
	proj := h.ProjectAll(embs)
	a, b, conflict = make([]float64, len(exs)), make([]float64, len(exs)), make([]bool, len(exs))
	var g gate.Gate // only its similarities are used
	for i, ex := range exs {
		d := g.Score(proj[2*i], proj[2*i+1])
		a[i], b[i] = d.A, d.B
		conflict[i] = ex.Conflict()
	}
	return a, b, conflict
}

// Evaluate scores every example with h and gate g. It returns an error for no examples or
// embeddings of the wrong size.
func Evaluate(h *gate.Heads, g gate.Gate, exs []Example) (Evaluation, error) {
	if len(exs) == 0 {
		return Evaluation{}, errors.New("evaluate: no examples")
	}
	if _, err := checkExamples("evaluation", exs, h.Dim()); err != nil {
		return Evaluation{}, fmt.Errorf("evaluate: %w", err)
	}
	a, b, conflict := similarities(h, exs)
	e := Evaluation{N: len(exs)}
	gap, notB := make([]float64, len(exs)), make([]float64, len(exs))
	routed := 0
	for i, ex := range exs {
		dt, dl := a[i]-float64(ex.YTop), b[i]-float64(ex.YLog)
		e.MSETop += dt * dt
		e.MSELog += dl * dl
		gap[i], notB[i] = a[i]-b[i], 1-b[i]
		d := g.Decide(a[i], b[i])
		if d.Route {
			routed++
		}
		switch {
		case conflict[i] && d.Route:
			e.TP++
		case conflict[i]:
			e.FN++
		case d.Route:
			e.FP++
		}
		if conflict[i] {
			e.Conflicts++
		}
	}
	n := float64(len(exs))
	e.MSETop /= n
	e.MSELog /= n
	e.AUC, _ = ROCAUC(gap, conflict)
	e.AUCLogic, _ = ROCAUC(notB, conflict)
	same := make([]bool, len(exs))
	var slotGap, slotNotB []float64
	var slotConflict []bool
	for i, ex := range exs {
		if same[i] = ex.YTop > 0.5; same[i] {
			slotGap, slotNotB, slotConflict = append(slotGap, gap[i]), append(slotNotB, notB[i]), append(slotConflict, conflict[i])
		}
	}
	e.SameSlotAUC, e.SlotAUC, e.SlotAUCLogic = ROCAUCOrNil(a, same), ROCAUCOrNil(slotGap, slotConflict), ROCAUCOrNil(slotNotB, slotConflict)
	e.Precision, e.Recall, e.F1 = prf(e.TP, e.FP, e.FN)
	e.RoutingRate = float64(routed) / n
	return e, nil
}

// ROCAUCOrNil is ROCAUC, nil when a class is empty: for reports whose pairs may lack one.
func ROCAUCOrNil(scores []float64, labels []bool) *float64 {
	v, err := ROCAUC(scores, labels)
	if err != nil {
		return nil
	}
	return &v
}

// prf returns precision, recall and F1, each 0 when undefined.
func prf(tp, fp, fn int) (p, r, f1 float64) {
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}

// ROCAUC returns the area under the ROC curve of scores for the positives in labels: the
// probability that a random positive scores above a random negative, ties counting half
// (the Mann–Whitney statistic with mid-ranks). It returns NaN and an error when there are no
// positives or no negatives.
func ROCAUC(scores []float64, labels []bool) (float64, error) {
	if len(scores) != len(labels) {
		return math.NaN(), fmt.Errorf("roc auc: %d scores and %d labels", len(scores), len(labels))
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(scores[i], scores[j]) })
	var pos, neg int
	var rankSum float64 // sum of the positives' mid-ranks (1-based)
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && scores[idx[end]] == scores[idx[start]] {
			end++
		}
		mid := float64(start+1+end) / 2 // mean of ranks start+1 … end
		for _, k := range idx[start:end] {
			if labels[k] {
				pos++
				rankSum += mid
			} else {
				neg++
			}
		}
		start = end
	}
	if pos == 0 || neg == 0 {
		return math.NaN(), fmt.Errorf("roc auc: %d positives and %d negatives", pos, neg)
	}
	u := rankSum - float64(pos)*float64(pos+1)/2
	return u / (float64(pos) * float64(neg)), nil
}

// CalibrationReport is the outcome of a threshold search, measured on the examples it used.
type CalibrationReport struct {
	Thresholds   gate.Thresholds `json:"thresholds"`
	TargetRecall float64         `json:"target_recall"`
	Recall       float64         `json:"recall"`
	Precision    float64         `json:"precision"`
	F1           float64         `json:"f1"`
	RoutingRate  float64         `json:"routing_rate"`
	Conflicts    int             `json:"conflicts"`
	N            int             `json:"n"`
	Candidates   int             `json:"candidates"` // threshold triples searched
	// SetRecalls and SetConflicts are the recall and conflicts of each set CalibrateSets
	// was given, when it was given more than one (recall 0 for a set without conflicts);
	// Recall is over all of them.
	SetRecalls   []float64 `json:"set_recalls,omitempty"`
	SetConflicts []int     `json:"set_conflicts,omitempty"`
}

// grid returns lo, lo+step, …, hi (rounded to 1e-9 so the values print cleanly).
func grid(lo, hi, step float64) []float64 {
	n := int(math.Round((hi - lo) / step))
	g := make([]float64, n+1)
	for k := range g {
		g[k] = math.Round((lo+float64(k)*step)*1e9) / 1e9
	}
	return g
}

// Calibrate searches τ_top and τ_log over [-1, 1] and τ_gap over [-2, 2] in steps of
// cfg.Step for the thresholds whose conflict recall on exs is at least cfg.TargetRecall and
// that route the fewest pairs; ties go to more routed conflicts, then to the first triple in
// ascending (τ_top, τ_log, τ_gap) order. Zero fields of cfg mean defaults.
func Calibrate(h *gate.Heads, exs []Example, cfg CalibrationConfig) (CalibrationReport, error) {
	return CalibrateSets(h, [][]Example{exs}, cfg)
}

// CalibrateSets is Calibrate over several sets of examples at once: the thresholds must
// reach the target recall on each set that holds conflicts — for instance the validation
// pairs of the families seen in training and those of families held out of it (see
// data.SplitConfig.ValFamilies), so that unseen wording cannot hide behind the seen — and
// route the fewest pairs over all of them.
func CalibrateSets(h *gate.Heads, sets [][]Example, cfg CalibrationConfig) (CalibrationReport, error) {
	cfg = cfg.withDefaults()
	if err := (Config{Calibration: cfg}).Validate(); err != nil {
		return CalibrationReport{}, fmt.Errorf("calibrate: %w", err)
	}
	var exs []Example
	var set []int
	for i, s := range sets {
		if _, err := checkExamples(fmt.Sprintf("calibration set %d", i+1), s, h.Dim()); err != nil {
			return CalibrationReport{}, fmt.Errorf("calibrate: %w", err)
		}
		exs = append(exs, s...)
		for range s {
			set = append(set, i)
		}
	}
	a, b, conflict := similarities(h, exs)
	return calibrateSets(a, b, conflict, set, len(sets), cfg)
}

// calibrateSets runs the search on precomputed similarities, each pair in one of nsets
// sets (set[e]), with the target recall required of each set with conflicts: the routed
// conflicts are counted per set. For each τ_top it bins the pairs with a > τ_top by where
// b and gap fall on the τ_log and τ_gap grids; a pair is not routed exactly when
// b ≥ τ_log and gap ≤ τ_gap, so 2-D cumulative sums of the bins give the routed and
// truly-routed counts of every (τ_log, τ_gap) at once: O(G·(n + G²)) overall.
func calibrateSets(a, b []float64, conflict []bool, set []int, nsets int, cfg CalibrationConfig) (CalibrationReport, error) {
	pos := 0
	setPos := make([]int, nsets)
	for e, c := range conflict {
		if c {
			pos++
			setPos[set[e]]++
		}
	}
	if pos == 0 {
		return CalibrationReport{}, fmt.Errorf("calibrate: %w among %d examples", ErrNoConflicts, len(a))
	}
	need := make([]int, nsets)
	for s, p := range setPos {
		need[s] = int(math.Ceil(cfg.TargetRecall*float64(p) - 1e-9))
	}
	tops := grid(-1, 1, cfg.Step)
	logs := grid(-1, 1, cfg.Step)
	gaps := grid(-2, 2, cfg.Step)
	nl, ng := len(logs)+1, len(gaps)+1 // bins: kb ∈ [0, len(logs)], kg ∈ [0, len(gaps)]
	kb := make([]int, len(a))          // #{j: logs[j] ≤ b}: b < logs[j] ⇔ j ≥ kb
	kg := make([]int, len(a))          // #{k: gaps[k] < gap}: gap > gaps[k] ⇔ k < kg
	ka := make([]int, len(a))          // #{i: tops[i] < a}: a > tops[i] ⇔ i < ka
	for e := range a {
		kb[e] = sort.Search(len(logs), func(j int) bool { return logs[j] > b[e] })
		kg[e] = sort.SearchFloat64s(gaps, a[e]-b[e])
		ka[e] = sort.SearchFloat64s(tops, a[e])
	}
	all := make([]int, nl*ng)
	hits := make([][]int, nsets) // per set: the conflicts' bins
	for s := range hits {
		hits[s] = make([]int, nl*ng)
	}
	best := CalibrationReport{TargetRecall: cfg.TargetRecall, N: len(a), Conflicts: pos}
	bestRouted, found := 0, false
	bestTP := make([]int, nsets)
	nHit, tp := make([]int, nsets), make([]int, nsets)
	sum := func(v []int) int {
		n := 0
		for _, x := range v {
			n += x
		}
		return n
	}
	for i, tTop := range tops {
		clear(all)
		for _, h := range hits {
			clear(h)
		}
		clear(nHit)
		nAll := 0
		for e := range a {
			if i >= ka[e] {
				continue
			}
			nAll++
			all[kb[e]*ng+kg[e]]++
			if conflict[e] {
				nHit[set[e]]++
				hits[set[e]][kb[e]*ng+kg[e]]++
			}
		}
		short := false
		for s := range nHit {
			short = short || nHit[s] < need[s]
		}
		if short {
			continue // raising τ_log or τ_gap cannot bring back pairs excluded by τ_top
		}
		// Prefix sums along kg, then suffix sums along kb: cell (r, k) becomes
		// Σ_{kb ≥ r} Σ_{kg ≤ k}, so (j+1, k) counts the pairs not routed at (logs[j], gaps[k]).
		for _, c := range append([][]int{all}, hits...) {
			for r := range nl {
				row := c[r*ng : (r+1)*ng]
				for k := 1; k < ng; k++ {
					row[k] += row[k-1]
				}
			}
			for r := nl - 2; r >= 0; r-- {
				for k := range ng {
					c[r*ng+k] += c[(r+1)*ng+k]
				}
			}
		}
	cells:
		for j, tLog := range logs {
			for k, tGap := range gaps {
				for s := range tp {
					if tp[s] = nHit[s] - hits[s][(j+1)*ng+k]; tp[s] < need[s] {
						continue cells
					}
				}
				routed := nAll - all[(j+1)*ng+k]
				if !found || routed < bestRouted || (routed == bestRouted && sum(tp) > sum(bestTP)) {
					found, bestRouted = true, routed
					copy(bestTP, tp)
					best.Thresholds = gate.Thresholds{Top: tTop, Log: tLog, Gap: tGap}
				}
			}
		}
	}
	best.Candidates = len(tops) * len(logs) * len(gaps)
	if !found {
		return best, fmt.Errorf("calibrate: no thresholds on the grid reach recall %v", cfg.TargetRecall)
	}
	tpAll := sum(bestTP)
	best.Precision, best.Recall, best.F1 = prf(tpAll, bestRouted-tpAll, pos-tpAll)
	best.RoutingRate = float64(bestRouted) / float64(len(a))
	if nsets > 1 {
		for s := range bestTP {
			r := 0.0
			if setPos[s] > 0 {
				r = float64(bestTP[s]) / float64(setPos[s])
			}
			best.SetRecalls = append(best.SetRecalls, r)
		}
		best.SetConflicts = setPos
	}
	return best, nil
}
