package sentry

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
)

func TestROCAUC(t *testing.T) {
	tests := []struct {
		name   string
		scores []float64
		labels []bool
		want   float64
	}{
		// Of the 4 (positive, negative) pairs, 3 are ordered right: (0.35 > 0.1), (0.8 > 0.1),
		// (0.8 > 0.4); (0.35 < 0.4) is not.
		{"hand example", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, 0.75},
		{"perfect", []float64{3, 1, 2, 0}, []bool{true, false, true, false}, 1},
		{"inverted", []float64{0, 1}, []bool{true, false}, 0},
		{"tie counts half", []float64{0.5, 0.5}, []bool{true, false}, 0.5},
		// Pairs: (2 vs 1) 1, (2 vs 2) ½, (3 vs 1) 1, (3 vs 2) 1 → 3.5 / 4.
		{"partial tie", []float64{1, 2, 2, 3}, []bool{false, false, true, true}, 0.875},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ROCAUC(tc.scores, tc.labels)
			if err != nil || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("ROCAUC = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if got, err := ROCAUC([]float64{1, 2}, []bool{true, true}); err == nil || !math.IsNaN(got) {
		t.Errorf("no negatives: %v, %v", got, err)
	}
}

// scoredSet returns similarities of n pairs, about a third of them conflicts, with the
// conflicts mostly at high a and low b.
func scoredSet(seed uint64, n int) (a, b []float64, conflict []bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	a, b, conflict = make([]float64, n), make([]float64, n), make([]bool, n)
	clip := func(x float64) float64 { return math.Max(-1, math.Min(1, x)) }
	for i := range n {
		conflict[i] = rng.IntN(3) == 0
		if conflict[i] {
			a[i], b[i] = clip(0.75+0.2*rng.NormFloat64()), clip(0.2+0.25*rng.NormFloat64())
		} else {
			a[i], b[i] = clip(0.4+0.4*rng.NormFloat64()), clip(0.5+0.3*rng.NormFloat64())
		}
	}
	return a, b, conflict
}

// calibrate is calibrateSets over one set.
func calibrate(a, b []float64, conflict []bool, cfg CalibrationConfig) (CalibrationReport, error) {
	return calibrateSets(a, b, conflict, make([]int, len(a)), 1, cfg)
}

// TestCalibrateMatchesBruteForce compares the cumulative-count search with trying every
// grid triple through Gate.Decide.
func TestCalibrateMatchesBruteForce(t *testing.T) {
	for _, target := range []float64{0.8, 0.95, 1} {
		a, b, conflict := scoredSet(uint64(target*100), 300)
		cfg := CalibrationConfig{TargetRecall: target, Step: 0.1}
		got, err := calibrate(a, b, conflict, cfg)
		if err != nil {
			t.Fatal(err)
		}
		best, bestRouted, bestTP, positives := bruteCalibrate(a, b, conflict, make([]int, len(a)), 1, target)
		pos := positives[0]
		if got.Thresholds != best {
			t.Errorf("target %v: thresholds %+v, brute force %+v", target, got.Thresholds, best)
		}
		if want := float64(bestRouted) / float64(len(a)); math.Abs(got.RoutingRate-want) > 1e-12 {
			t.Errorf("target %v: routing rate %v, brute force %v", target, got.RoutingRate, want)
		}
		if got.Recall < target || math.Abs(got.Recall-float64(bestTP)/float64(pos)) > 1e-12 {
			t.Errorf("target %v: recall %v (brute force %d/%d)", target, got.Recall, bestTP, pos)
		}
		if got.Candidates != 21*21*41 {
			t.Errorf("searched %d triples", got.Candidates)
		}
	}
}

// bruteCalibrate is the search calibrateSets must agree with, by trying every grid triple
// (step 0.1) through Gate.Decide: the thresholds that route at least target of the
// conflicts of each set (pair i is in set[i] of nsets) and the fewest pairs, ties going to
// more routed conflicts, then to the first triple. It returns them, the pairs and conflicts
// they route, and each set's conflicts.
func bruteCalibrate(a, b []float64, conflict []bool, set []int, nsets int, target float64) (best gate.Thresholds, bestRouted, bestTP int, pos []int) {
	pos = make([]int, nsets)
	for i, c := range conflict {
		if c {
			pos[set[i]]++
		}
	}
	bestRouted, bestTP = len(a)+1, -1
	tp := make([]int, nsets)
	for _, tt := range grid(-1, 1, 0.1) {
		for _, tl := range grid(-1, 1, 0.1) {
			for _, tg := range grid(-2, 2, 0.1) {
				g := gate.NewGate(gate.Thresholds{Top: tt, Log: tl, Gap: tg})
				routed, all := 0, 0
				clear(tp)
				for i := range a {
					if g.Decide(a[i], b[i]).Route {
						routed++
						if conflict[i] {
							tp[set[i]]++
							all++
						}
					}
				}
				ok := true
				for s := range tp {
					ok = ok && float64(tp[s]) >= target*float64(pos[s])-1e-9
				}
				if ok && (routed < bestRouted || (routed == bestRouted && all > bestTP)) {
					bestRouted, bestTP, best = routed, all, g.Thresholds
				}
			}
		}
	}
	return best, bestRouted, bestTP, pos
}

func TestCalibrateOnHeads(t *testing.T) {
	task := newSlotTask(51, 8, 3, 3)
	val := task.examples(52, 120)
	h := randomHeads(53, 8, 10, 6)
	rep, err := Calibrate(h, val, CalibrationConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(h, gate.NewGate(rep.Thresholds), val)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Recall < 0.95 || math.Abs(ev.Recall-rep.Recall) > 1e-12 || math.Abs(ev.RoutingRate-rep.RoutingRate) > 1e-12 || math.Abs(ev.Precision-rep.Precision) > 1e-12 {
		t.Errorf("calibration report %+v, evaluation with its thresholds %+v", rep, ev)
	}
	none := make([]Example, len(val))
	for i, ex := range val {
		ex.YLog = 1
		none[i] = ex
	}
	if _, err := Calibrate(h, none, CalibrationConfig{}); !errors.Is(err, ErrNoConflicts) {
		t.Errorf("no conflicts: %v", err)
	}
}

func TestEvaluate(t *testing.T) {
	task := newSlotTask(61, 8, 3, 3)
	exs := task.examples(62, 90)
	h := randomHeads(63, 8, 10, 6)
	g := gate.NewGate(gate.Thresholds{Top: 0.1, Log: 0.2, Gap: 0.3})
	ev, err := Evaluate(h, g, exs)
	if err != nil {
		t.Fatal(err)
	}
	var mseTop, mseLog float64
	var tp, fp, fn, routed, conflicts int
	for _, ex := range exs {
		ut, ul := h.Project(ex.U)
		pt, pl := h.Project(ex.P)
		d := g.Score(gate.Projection{Top: ut, Log: ul}, gate.Projection{Top: pt, Log: pl})
		mseTop += (d.A - float64(ex.YTop)) * (d.A - float64(ex.YTop)) / 90
		mseLog += (d.B - float64(ex.YLog)) * (d.B - float64(ex.YLog)) / 90
		c := ex.YTop == 1 && ex.YLog == 0
		if c {
			conflicts++
		}
		if d.Route {
			routed++
		}
		switch {
		case c && d.Route:
			tp++
		case c:
			fn++
		case d.Route:
			fp++
		}
	}
	if math.Abs(ev.MSETop-mseTop) > 1e-6 || math.Abs(ev.MSELog-mseLog) > 1e-6 {
		t.Errorf("MSE %v, %v; want %v, %v", ev.MSETop, ev.MSELog, mseTop, mseLog)
	}
	if ev.TP != tp || ev.FP != fp || ev.FN != fn || ev.Conflicts != conflicts || ev.N != 90 {
		t.Errorf("counts %+v; want tp %d fp %d fn %d of %d conflicts", ev, tp, fp, fn, conflicts)
	}
	p, r := float64(tp)/float64(tp+fp), float64(tp)/float64(tp+fn)
	if math.Abs(ev.Precision-p) > 1e-12 || math.Abs(ev.Recall-r) > 1e-12 || math.Abs(ev.F1-2*p*r/(p+r)) > 1e-12 ||
		math.Abs(ev.RoutingRate-float64(routed)/90) > 1e-12 {
		t.Errorf("precision %v recall %v F1 %v routing %v", ev.Precision, ev.Recall, ev.F1, ev.RoutingRate)
	}
	if ev.AUC < 0 || ev.AUC > 1 || math.IsNaN(ev.AUCLogic) {
		t.Errorf("AUC %v, AUC(1−b) %v", ev.AUC, ev.AUCLogic)
	}
	if _, err := Evaluate(h, g, nil); err == nil {
		t.Error("evaluated no examples")
	}
}

// The same-slot AUCs count only the pairs they are about: other-slot pairs never change
// the conflict-vs-consistent AUC, and a class that is missing gives none.
func TestEvaluateSlotAUC(t *testing.T) {
	v := func(xs ...float32) []float32 { return xs }
	h := randomHeads(1, 2, 4, 2)
	same := []Example{
		{U: v(1, 0), P: v(1, 0.1), YTop: 1, YLog: 1}, // consistent, close
		{U: v(1, 0), P: v(0.2, 1), YTop: 1, YLog: 0}, // conflict, far
	}
	other := Example{U: v(1, 0), P: v(1, 0), YTop: 0, YLog: 0}
	g := gate.NewGate(gate.DefaultThresholds())
	a, err := Evaluate(h, g, same)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Evaluate(h, g, append(slices.Clone(same), other, other))
	if err != nil {
		t.Fatal(err)
	}
	if a.SlotAUC == nil || b.SlotAUC == nil || *a.SlotAUC != *b.SlotAUC || a.SlotAUCLogic == nil || *a.SlotAUCLogic != *b.SlotAUCLogic {
		t.Errorf("slot AUC %v / %v changed with other-slot pairs", a.SlotAUC, b.SlotAUC)
	}
	if a.SameSlotAUC != nil {
		t.Errorf("same-slot AUC %v with no other-slot pair", *a.SameSlotAUC)
	}
	if b.SameSlotAUC == nil {
		t.Error("no same-slot AUC with both classes")
	}
	if _, err := json.Marshal(a); err != nil {
		t.Errorf("an evaluation with an empty class does not marshal: %v", err)
	}
}

// TestCalibrateSetsMatchesBruteForce checks the per-set recall constraint against trying
// every grid triple: a second, harder set (its conflicts scored like consistent pairs half
// the time) must force looser thresholds than the first set alone would get.
func TestCalibrateSetsMatchesBruteForce(t *testing.T) {
	a, b, conflict := scoredSet(7, 300)
	a2, b2, conflict2 := scoredSet(8, 120)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range a2 {
		if conflict2[i] && rng.IntN(2) == 0 {
			b2[i] = 0.9 // looks consistent
		}
	}
	set := make([]int, len(a)+len(a2))
	for i := len(a); i < len(set); i++ {
		set[i] = 1
	}
	aa, bb, cc := append(slices.Clone(a), a2...), append(slices.Clone(b), b2...), append(slices.Clone(conflict), conflict2...)
	cfg := CalibrationConfig{TargetRecall: 0.9, Step: 0.1}
	got, err := calibrateSets(aa, bb, cc, set, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	best, _, _, pos := bruteCalibrate(aa, bb, cc, set, 2, cfg.TargetRecall)
	if got.Thresholds != best {
		t.Errorf("thresholds %+v, brute force %+v", got.Thresholds, best)
	}
	for s, r := range got.SetRecalls {
		if r < 0.9 {
			t.Errorf("set %d: recall %v below the target", s+1, r)
		}
	}
	if got.SetConflicts[0] != pos[0] || got.SetConflicts[1] != pos[1] {
		t.Errorf("set conflicts %v, want %v", got.SetConflicts, pos)
	}
	one, err := calibrate(aa, bb, cc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if one.Thresholds == got.Thresholds {
		t.Errorf("pooled calibration picks the same thresholds %+v; the harder set does not constrain the search", one.Thresholds)
	}
	if one.SetRecalls != nil || one.SetConflicts != nil {
		t.Errorf("one set: per-set recalls %v and conflicts %v, want none", one.SetRecalls, one.SetConflicts)
	}
}
