package rule

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	fx "github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
)

// presentCue marks a statement about how things are from now on.
var presentCue = regexp.MustCompile(`(?i)\b(?:now|still|these days|nowadays|anymore|any more|no longer|at the moment|from now on)\b`)

// narrowCue says a scope narrows what held before: "only on rainy Sundays now".
var narrowCue = regexp.MustCompile(`(?i)\b(?:only|just)\b`)

// deniesOld reports a text that names the old value as wrong: "it's £1000 not 1025".
func deniesOld(text, oldValue string) bool {
	k := fx.ValueKey(oldValue)
	return k != "" && strings.Contains(" "+fx.ValueKey(text)+" ", " not "+k+" ")
}

// sharedSlot returns the first pair of facts, one of old's and one of new's, of one
// version group (fx.Fact.Group: the slot, and for a multi-valued attribute the value),
// else the first pair of one slot. Within a single-valued group, a new fact that states
// another value goes before one that denies the old value: "marek's gone on leave, so
// I'm seeing Sunita now" is a change from Marek to Sunita, of which the denial is part.
func sharedSlot(old, new []fx.Fact) (fx.Fact, fx.Fact, bool) {
	for _, o := range old {
		if o.Negated || !fx.SingleValued(o.Attribute) {
			continue
		}
		for _, n := range new {
			if n.Group() == o.Group() && !n.Negated && !fx.SameValue(o.Value, n.Value) &&
				slices.ContainsFunc(new, func(d fx.Fact) bool { return d.Negated && d.Group() == o.Group() && fx.SameValue(o.Value, d.Value) }) {
				return o, n, true
			}
		}
	}
	for _, n := range new {
		for _, o := range old {
			if o.Group() == n.Group() {
				return o, n, true
			}
		}
	}
	for _, n := range new {
		for _, o := range old {
			if o.Slot() == n.Slot() {
				return o, n, true
			}
		}
	}
	return fx.Fact{}, fx.Fact{}, false
}

// decideFacts judges a pair whose records state facts of one slot: the rule auditor as a
// judge over facts. Same value → a restatement (consistent, keep: nothing changes, and
// the time line keeps both current); the new fact denies the old value → explicit negation; a value taken up
// again → temporal update; the same value under a new scope "now" → a change of the rule
// (scope mismatch, supersede); a new scope → scoped exception; a value without the old
// one's exception ("except in december") → coexistence (the rule beside its exception;
// a narrower scope such as "for the two of us" is no exception); amounts of different
// units (fx.OtherUnits: "$70 an hour", "4%") → coexistence; another value of a
// single-valued attribute → temporal update (value discrepancy when the input corrects
// itself); another value of a multi-valued one → coexistence.
func decideFacts(old, new fx.Fact, newText string) (judge.Steps, judge.Verdict) {
	single := fx.SingleValued(new.Attribute)
	same := fx.SameValue(old.Value, new.Value)
	var st judge.Status
	var ct judge.ConflictType
	var act judge.Action
	var why string
	switch {
	case same && old.Negated == new.Negated && (new.Scope == "" || new.Scope == old.Scope):
		// No link: the version group's time line keeps both current (a restatement
		// changes nothing, store.DeriveStatuses), whatever order the two arrive in.
		st, ct, act, why = judge.StatusConsistent, judge.TypeNone, judge.ActionKeep, "the new input restates the same value"
	case same && new.Negated && !old.Negated:
		st, ct, act, why = judge.StatusConflict, judge.TypeExplicitNegation, judge.ActionSupersede, "the new input says the value no longer holds"
	case same && old.Negated && !new.Negated:
		st, ct, act, why = judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition, "the value holds again after it was given up"
	case same && new.Scope != "" && new.Scope != old.Scope && !new.Negated && presentCue.MatchString(newText) && narrowCue.MatchString(newText):
		// "Theo only does yoga on rainy Sundays now" after "four times a week": the same
		// activity under a narrower scope from now on is a change of the rule itself,
		// not an exception beside it.
		st, ct, act, why = judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionSupersede, fmt.Sprintf("the same value now holds only %s", new.Scope)
	case new.Scope != "" && new.Scope != old.Scope && !new.Negated:
		st, ct, act, why = judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionScopedException, fmt.Sprintf("the new input holds only %s", new.Scope)
	case strings.HasPrefix(old.Scope, "except") && new.Scope == "" && !old.Negated && !new.Negated:
		// "payday is still the 25th" after "except in december, the 18th": the rule
		// outside the exception, which stands beside it.
		st, ct, act, why = judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist, fmt.Sprintf("the old value holds only %s; the new input states the value outside it", old.Scope)
	case new.Negated:
		// Denies another value than the old record's: nothing changes for this one.
		st, ct, act, why = judge.StatusConsistent, judge.TypeNone, judge.ActionKeep, fmt.Sprintf("the new input denies %q, not %q", new.Value, old.Value)
	case !single:
		st, ct, act, why = judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist, fmt.Sprintf("%s holds several values at once", new.Attribute)
	case fx.OtherUnits(old.Value, new.Value):
		// "$70 an hour" and "4%": the slot's name is shared, the thing measured is not.
		st, ct, act, why = judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist, fmt.Sprintf("%s and %s measure different things", old.Value, new.Value)
	case fx.CorrectionCue.MatchString(newText) || deniesOld(newText, old.Value):
		st, ct, act, why = judge.StatusConflict, judge.TypeValueDiscrepancy, judge.ActionSupersede, "the new input corrects the value"
	default:
		st, ct, act, why = judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition, "the value changed"
	}
	v := judge.Verdict{Status: st, ConflictType: ct, Action: act, Links: []judge.Link{}, Confidence: confFacts}
	if l, ok := judge.DefaultLink(act); ok {
		v.Links = append(v.Links, l)
	}
	label := new.Attribute
	if new.Subject != "user" {
		label = new.Subject + "'s " + new.Attribute
	}
	if st == judge.StatusConflict {
		nv := new.Value
		if new.Negated {
			nv = "no " + new.Value
		}
		v.TransitionSummary = fmt.Sprintf("%s: %s -> %s", label, old.Value, nv)
	}
	s := judge.Steps{
		Slot:         fmt.Sprintf("Both texts state %s (slot %s).", label, new.Slot()),
		Comparison:   fmt.Sprintf("Old value: %s. New value: %s. %s.", factValue(old), factValue(new), capitalize(why)),
		ConflictType: fmt.Sprintf("%s.", ct),
		Action:       fmt.Sprintf("%s.", act),
	}
	return s, v
}

func factValue(f fx.Fact) string {
	v := f.Value
	if f.Negated {
		v = "no longer " + v
	}
	if f.Scope != "" {
		v += " (" + f.Scope + ")"
	}
	return v
}
