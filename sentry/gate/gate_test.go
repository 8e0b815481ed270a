package gate_test

import (
	"math"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
	"github.com/atma-dev/atma/sentry/gate/gatetest"
)

func TestGateDecide(t *testing.T) {
	// gate.Thresholds and similarities are binary fractions, so the boundaries are exact.
	g := gate.NewGate(gate.Thresholds{Top: 0.5, Log: 0.25, Gap: 0.125})
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
	if d := gate.DefaultThresholds(); d != (gate.Thresholds{Top: 0.60, Log: 0.45, Gap: 0.15}) {
		t.Errorf("default thresholds %+v", d)
	}
	def := gate.NewGate(gate.DefaultThresholds())
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
	u := gate.Projection{Top: []float32{1, 0, 0}, Log: []float32{0, 1, 0}}
	p := gate.Projection{Top: []float32{0.8, 0.6, 0}, Log: []float32{0, 0.3, 0.9539392}}
	d := gate.NewGate(gate.DefaultThresholds()).Score(u, p)
	if math.Abs(d.A-0.8) > 1e-6 || math.Abs(d.B-0.3) > 1e-6 || !d.Route {
		t.Errorf("Score = %+v, want A 0.8, B 0.3, routed", d)
	}
}

func TestProjectPanicsOnWrongSize(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "has 3 values, heads take 9") {
			t.Errorf("panic %v", r)
		}
	}()
	gatetest.RandomHeads(1, 9, 4, 3).Project(make([]float32, 3))
}

// TestGateScoreUsesPairHead checks that Gate.Score scores b with the pair head when either
// projection carries it (a literal rebuilt from stored vectors carries none), and that
// Heads.Projection reattaches it.
func TestGateScoreUsesPairHead(t *testing.T) {
	h := gatetest.RandomPairHeads(41, 6, 5, 4, 3)
	x := [][]float32{{1, 0, 2, 0, -1, 0.5}, {0.3, 1, 0, 1, 0, -2}}
	p := h.ProjectAll(x)
	want := h.Pair.Score(p[0].Log, p[1].Log)
	if cos := cosine(p[0].Log, p[1].Log); math.Abs(cos-want) < 1e-3 {
		t.Fatalf("pair score %v and cosine %v coincide; the test cannot tell them apart", want, cos)
	}
	stored := gate.Projection{Top: p[0].Top, Log: p[0].Log}
	g := gate.NewGate(gate.DefaultThresholds())
	for _, tc := range []struct {
		name string
		u, v gate.Projection
		want float64
	}{
		{"both from heads", p[0], p[1], want},
		{"stored old side", stored, p[1], want},
		{"stored new side", p[1], stored, want},
		{"reattached", h.Projection(stored.Top, stored.Log), gate.Projection{Top: p[1].Top, Log: p[1].Log}, want},
		{"both stored: cosine", stored, gate.Projection{Top: p[1].Top, Log: p[1].Log}, cosine(p[0].Log, p[1].Log)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := g.Score(tc.u, tc.v); math.Abs(d.B-tc.want) > 1e-12 || math.Abs(d.Gap-(d.A-d.B)) > 1e-12 {
				t.Errorf("b %v, gap %v (a %v), want b %v", d.B, d.Gap, d.A, tc.want)
			}
		})
	}
	other := gatetest.RandomPairHeads(42, 6, 5, 4, 3).ProjectAll(x)
	defer func() {
		if recover() == nil {
			t.Error("projections of two different pair heads were compared without a panic")
		}
	}()
	g.Score(p[0], other[1])
}

// cosine is the dot product of two vectors, the paper's logic similarity.
func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
