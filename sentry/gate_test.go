package sentry

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestGateDecide(t *testing.T) {
	// Thresholds and similarities are binary fractions, so the boundaries are exact.
	g := NewGate(Thresholds{Top: 0.5, Log: 0.25, Gap: 0.125})
	tests := []struct {
		name  string
		a, b  float64
		route bool
	}{
		{"other topic", 0.25, 0.0, false},
		{"other topic, logic opposed", -0.5, -1, false},
		{"topic at threshold", 0.5, 0.0, false},
		{"same topic, logic low", 0.625, 0.125, true},
		{"same topic, logic above threshold, small gap", 0.625, 0.5625, false},
		{"same topic, logic at threshold, large gap", 0.5625, 0.25, true}, // gap 0.3125
		{"same topic, logic high, large gap", 0.9375, 0.75, true},
		{"same topic, logic high, gap at threshold", 0.875, 0.75, false},
		{"same topic, agreeing", 0.8125, 0.75, false},
		{"same topic, negative logic", 0.625, -0.875, true},
		{"identical", 1, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := g.Decide(tc.a, tc.b)
			if d.Route != tc.route || d.A != tc.a || d.B != tc.b || d.Gap != tc.a-tc.b {
				t.Errorf("Decide(%v, %v) = %+v, want route %v", tc.a, tc.b, d, tc.route)
			}
		})
	}
	if d := DefaultThresholds(); d != (Thresholds{Top: 0.60, Log: 0.45, Gap: 0.15}) {
		t.Errorf("default thresholds %+v", d)
	}
	def := NewGate(DefaultThresholds())
	for _, c := range []struct {
		a, b  float64
		route bool
	}{{0.7, 0.4, true}, {0.9, 0.7, true}, {0.7, 0.6, false}, {0.5, 0.0, false}} {
		if got := def.Decide(c.a, c.b).Route; got != c.route {
			t.Errorf("default gate on (%v, %v): route %v, want %v", c.a, c.b, got, c.route)
		}
	}
}

func TestGateScoreUsesBothHeads(t *testing.T) {
	u := Projection{Top: []float32{1, 0, 0}, Log: []float32{0, 1, 0}}
	p := Projection{Top: []float32{0.8, 0.6, 0}, Log: []float32{0, 0.3, 0.9539392}}
	d := NewGate(DefaultThresholds()).Score(u, p)
	if math.Abs(d.A-0.8) > 1e-6 || math.Abs(d.B-0.3) > 1e-6 || !d.Route {
		t.Errorf("Score = %+v, want A 0.8, B 0.3, routed", d)
	}
}

// TestProjectMatchesReference checks the plain-Go inference path against the gonum
// reference forward pass, one embedding at a time and batched.
func TestProjectMatchesReference(t *testing.T) {
	h := randomHeads(41, 9, 7, 5)
	rng := rand.New(rand.NewPCG(42, 42))
	embs := make([][]float32, 300) // more than one ProjectAll chunk
	for i := range embs {
		embs[i] = randVec(rng, 9)
	}
	ref := newRefNet(h, 1, 1)
	all := h.ProjectAll(embs)
	for _, i := range []int{0, 1, 255, 256, 299} {
		top, log := h.Project(embs[i])
		for k, hd := range ref.heads {
			x := newDenseRow(embs[i])
			want := hd.forward(x).z.RawRowView(0)
			got, gotAll := top, all[i].Top
			if k == 1 {
				got, gotAll = log, all[i].Log
			}
			compareSlices(t, "Project", to64(got), want, 1e-6)
			compareSlices(t, "ProjectAll", to64(gotAll), want, 1e-6)
		}
		var norm float64
		for _, v := range top {
			norm += float64(v) * float64(v)
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("topic projection norm² %v", norm)
		}
	}
}

func TestProjectPanicsOnWrongSize(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "has 3 values, heads take 9") {
			t.Errorf("panic %v", r)
		}
	}()
	randomHeads(1, 9, 4, 3).Project(make([]float32, 3))
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
	d := Config{}.withDefaults()
	if d.Hidden != 512 || d.Out != 256 || d.Alpha != 1 || d.Beta != 1 || d.LR != 1e-3 || d.WeightDecay != 0.01 ||
		d.BatchSize != 64 || d.Epochs != 10 || d.Seed != 1 || d.Thresholds != DefaultThresholds() || d.Calibration.TargetRecall != 0.95 {
		t.Errorf("defaults %+v", d)
	}
	if (Config{NoWeightDecay: true}).withDefaults().WeightDecay != 0 {
		t.Error("NoWeightDecay kept a weight decay")
	}
	bad := Config{Hidden: -1, Alpha: math.NaN(), LR: -1, Beta1: 1, Schedule: "linear", BatchSize: -2, Patience: -1,
		Thresholds: Thresholds{Top: math.Inf(1)}, Calibration: CalibrationConfig{TargetRecall: 1.5}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"hidden size -1", "alpha is NaN", "learning rate -1", "beta1 1", `schedule "linear"`, "batch size -2", "patience -1", "tau_top is +Inf", "target recall 1.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
