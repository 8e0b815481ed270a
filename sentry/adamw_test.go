package sentry

import (
	"math"
	"testing"
)

func newTestAdamW(params []any, lr, wd float64) *adamW {
	cfg := Config{LR: lr, WeightDecay: wd}.withDefaults()
	return newAdamW(cfg, params, paramNames)
}

// oneParam puts p in the first of the eight parameter slots and empty slices in the rest.
func oneParam[T float32 | float64](p []T) []any {
	ps := make([]any, 8)
	ps[0] = p
	for i := 1; i < 8; i++ {
		ps[i] = []T{}
	}
	return ps
}

// TestAdamWTwoSteps checks two updates against values worked out by hand from the AdamW
// equations (lr 0.1, β 0.9/0.999, ε 1e-8, λ 0.01):
//
//	step 1: m = (0.05, −0.1), v = (0.00025, 0.001), m̂/√v̂ ≈ (1, −1),
//	        θ = θ·(1 − 0.001) − 0.1·m̂/(√v̂+ε) = (0.899000002, −1.898000001)
//	step 2: m = (0.055, −0.07), v = (0.00025975, 0.001039), bias corrections 0.19 and 0.001999,
//	        θ = (0.8177969063826518, −1.8449993939894946)
func TestAdamWTwoSteps(t *testing.T) {
	p := []float64{1, -2}
	o := newTestAdamW(oneParam(p), 0.1, 0.01)
	steps := []struct {
		grad, want, m, v []float64
	}{
		{[]float64{0.5, -1}, []float64{0.899000002, -1.898000001}, []float64{0.05, -0.1}, []float64{0.00025, 0.001}},
		{[]float64{0.1, 0.2}, []float64{0.8177969063826518, -1.8449993939894946}, []float64{0.055, -0.07}, []float64{0.00025975, 0.001039}},
	}
	for i, s := range steps {
		if err := o.step(oneParam(s.grad), 0.1); err != nil {
			t.Fatal(err)
		}
		compareSlices(t, "θ after step "+string(rune('1'+i)), p, s.want, 1e-12)
		compareSlices(t, "m", o.m[0].([]float64), s.m, 1e-15)
		compareSlices(t, "v", o.v[0].([]float64), s.v, 1e-15)
	}
	if o.t != 2 {
		t.Errorf("step count %d, want 2", o.t)
	}
}

// TestAdamWDecoupledDecay checks that weight decay is not folded into the gradient: with a
// zero gradient the Adam step is zero and each update only multiplies θ by (1 − lr·λ). L2
// regularisation through the gradient would instead move θ by about lr per step.
func TestAdamWDecoupledDecay(t *testing.T) {
	p := []float32{3, -0.5}
	o := newTestAdamW(oneParam(p), 0.01, 0.1)
	for range 3 {
		if err := o.step(oneParam([]float32{0, 0}), 0.01); err != nil {
			t.Fatal(err)
		}
	}
	f := math.Pow(1-0.01*0.1, 3)
	compareSlices(t, "θ", to64(p), []float64{3 * f, -0.5 * f}, 1e-6)
}

func TestAdamWRejectsNonFinite(t *testing.T) {
	p := []float64{1, 2}
	o := newTestAdamW(oneParam(p), 0.1, 0)
	if err := o.step(oneParam([]float64{0, math.NaN()}), 0.1); err == nil {
		t.Fatal("NaN gradient accepted")
	}
	if p[0] != 1 || p[1] != 2 || o.t != 0 {
		t.Errorf("state changed after a refused step: θ %v, t %d", p, o.t)
	}
}

func TestLearningRate(t *testing.T) {
	tests := []struct {
		name        string
		cfg         Config
		step, total int
		want        float64
	}{
		{"constant", Config{LR: 0.1}, 5, 10, 0.1},
		{"warmup start", Config{LR: 0.1, WarmupSteps: 4}, 1, 10, 0.025},
		{"warmup end", Config{LR: 0.1, WarmupSteps: 4}, 4, 10, 0.1},
		{"cosine first", Config{LR: 0.1, Schedule: ScheduleCosine}, 1, 10, 0.1},
		{"cosine middle", Config{LR: 0.1, Schedule: ScheduleCosine}, 6, 10, 0.05},
		{"cosine after warmup", Config{LR: 0.1, Schedule: ScheduleCosine, WarmupSteps: 2}, 3, 10, 0.1},
		{"cosine last", Config{LR: 0.1, Schedule: ScheduleCosine}, 10, 10, 0.1 * 0.5 * (1 + math.Cos(math.Pi*0.9))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := learningRate(tc.cfg.withDefaults(), tc.step, tc.total); math.Abs(got-tc.want) > 1e-15 {
				t.Errorf("lr = %v, want %v", got, tc.want)
			}
		})
	}
}
