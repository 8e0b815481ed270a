package gate

import (
	"errors"
	"fmt"
	"math"
)

// Default gate thresholds.
const (
	DefaultTauTop = 0.60
	DefaultTauLog = 0.45
	DefaultTauGap = 0.15
)

// Thresholds are the gate's τ_top, τ_log and τ_gap.
type Thresholds struct {
	Top float64 `json:"tau_top"`
	Log float64 `json:"tau_log"`
	Gap float64 `json:"tau_gap"`
}

// DefaultThresholds returns τ_top 0.60, τ_log 0.45, τ_gap 0.15.
func DefaultThresholds() Thresholds {
	return Thresholds{Top: DefaultTauTop, Log: DefaultTauLog, Gap: DefaultTauGap}
}

// Validate reports every threshold that is NaN or infinite.
func (t Thresholds) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"tau_top", t.Top}, {"tau_log", t.Log}, {"tau_gap", t.Gap}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s is %v", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// Decision is the gate's verdict on one pair: A is the topic similarity, B the logic
// similarity, Gap = A − B, and Route says whether the pair goes to the Judge.
type Decision struct {
	A, B, Gap float64
	Route     bool
}

// Gate routes a pair to the Judge when it is on the same topic but logically at odds:
// A > τ_top ∧ (B < τ_log ∨ Gap > τ_gap). The zero Gate has all thresholds at zero; use
// NewGate or set Thresholds. A Gate is a value and safe for concurrent use.
type Gate struct {
	Thresholds Thresholds
}

// NewGate returns a gate with thresholds t.
func NewGate(t Thresholds) Gate { return Gate{Thresholds: t} }

// Decide applies the rule to a topic similarity a and a logic similarity b.
func (g Gate) Decide(a, b float64) Decision {
	gap := a - b
	t := g.Thresholds
	return Decision{A: a, B: b, Gap: gap, Route: a > t.Top && (b < t.Log || gap > t.Gap)}
}

// Score compares two texts' projections (from Heads.ProjectAll or Heads.Projection): a is
// the topic vectors' dot product, b the logic vectors' (the paper's head) or, when either
// projection carries a pair head, that head's score. It panics if the vectors differ in
// length or the two projections carry different pair heads (programmer errors).
func (g Gate) Score(u, p Projection) Decision {
	return g.Decide(dot(u.Top, p.Top), logicScore(u, p))
}

// logicScore is b of a pair of projections.
func logicScore(u, p Projection) float64 {
	ph := u.pair
	switch {
	case ph == nil:
		ph = p.pair
	case p.pair != nil && p.pair != ph:
		panic("gate: projections of two different pair heads")
	}
	if ph == nil {
		return dot(u.Log, p.Log)
	}
	return ph.Score(u.Log, p.Log)
}
