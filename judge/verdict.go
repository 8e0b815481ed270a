package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Status is whether the new input conflicts with the old record.
type Status string

// Statuses.
const (
	// StatusConflict: same slot, and both cannot be true now.
	StatusConflict Status = "conflict"
	// StatusConsistent: same slot, and the new input agrees with the old record.
	StatusConsistent Status = "consistent"
	// StatusUnrelated: the two are about different slots (the gate routed a false alarm).
	StatusUnrelated Status = "unrelated"
)

// ConflictType is how the new input contradicts the old record. It mirrors the update types
// of the data package, plus None for pairs that do not conflict.
type ConflictType string

// Conflict types.
const (
	TypeTemporalUpdate    ConflictType = "temporal_update"    // the value changed over time: moved, changed jobs
	TypeExplicitNegation  ConflictType = "explicit_negation"  // the fact is denied: broke up, no longer has a dog
	TypeValueDiscrepancy  ConflictType = "value_discrepancy"  // another value is stated: 41, not 34
	TypeScopeMismatch     ConflictType = "scope_mismatch"     // narrower or wider than stated: only on holiday
	TypeImplicitViolation ConflictType = "implicit_violation" // contradicted by implication: a steak for a vegetarian
	TypeNone              ConflictType = "none"               // no conflict
)

// Action is how the memory should fuse the two records.
type Action string

// Fusion actions.
const (
	// ActionSupersede: the new record replaces the old one, which is kept as superseded.
	ActionSupersede Action = "supersede"
	// ActionTransition: the old record was true and is now a past state; the new one is
	// current, and the two are linked as an evolution with a transition summary.
	ActionTransition Action = "transition"
	// ActionCoexist: both records stay current side by side.
	ActionCoexist Action = "coexist"
	// ActionScopedException: the new record narrows the old one: the old holds except in
	// the scope the new one states.
	ActionScopedException Action = "scoped_exception"
	// ActionKeep: the memory is left as it is.
	ActionKeep Action = "keep"
)

// LinkType is the type of a suggested link between the two records.
type LinkType string

// Link types. Each has a fixed direction between the old and the new record, except
// CoexistsWith, which goes either way.
const (
	LinkSupersedes      LinkType = "supersedes"       // new → old
	LinkSupersededBy    LinkType = "superseded_by"    // old → new
	LinkEvolvesFrom     LinkType = "evolves_from"     // new → old
	LinkEvolvesTo       LinkType = "evolves_to"       // old → new
	LinkScopedException LinkType = "scoped_exception" // new → old
	LinkCoexistsWith    LinkType = "coexists_with"    // either way
)

// Ref names one of the two records of a pair in a link.
type Ref string

// The two records of a pair.
const (
	RefOld Ref = "old"
	RefNew Ref = "new"
)

var (
	statuses      = []Status{StatusConflict, StatusConsistent, StatusUnrelated}
	conflictTypes = []ConflictType{TypeTemporalUpdate, TypeExplicitNegation, TypeValueDiscrepancy, TypeScopeMismatch, TypeImplicitViolation, TypeNone}
	actions       = []Action{ActionSupersede, ActionTransition, ActionCoexist, ActionScopedException, ActionKeep}
	linkTypes     = []LinkType{LinkSupersedes, LinkSupersededBy, LinkEvolvesFrom, LinkEvolvesTo, LinkScopedException, LinkCoexistsWith}
	refs          = []Ref{RefOld, RefNew}
)

// Statuses lists the statuses in schema order.
func Statuses() []Status { return slices.Clone(statuses) }

// ConflictTypes lists the conflict types in schema order, None last.
func ConflictTypes() []ConflictType { return slices.Clone(conflictTypes) }

// Actions lists the fusion actions in schema order.
func Actions() []Action { return slices.Clone(actions) }

// Valid reports whether s is a known status.
func (s Status) Valid() bool { return slices.Contains(statuses, s) }

// Valid reports whether t is a known conflict type.
func (t ConflictType) Valid() bool { return slices.Contains(conflictTypes, t) }

// Valid reports whether a is a known action.
func (a Action) Valid() bool { return slices.Contains(actions, a) }

// Valid reports whether l is a known link type.
func (l LinkType) Valid() bool { return slices.Contains(linkTypes, l) }

// Valid reports whether r is RefOld or RefNew.
func (r Ref) Valid() bool { return slices.Contains(refs, r) }

// Direction is the fixed direction of a link type; ok is false for CoexistsWith, which
// goes either way, and for unknown types.
func (l LinkType) Direction() (from, to Ref, ok bool) {
	switch l {
	case LinkSupersedes, LinkEvolvesFrom, LinkScopedException:
		return RefNew, RefOld, true
	case LinkSupersededBy, LinkEvolvesTo:
		return RefOld, RefNew, true
	}
	return "", "", false
}

// Link is a suggested typed link between the two records of the pair.
type Link struct {
	Type LinkType `json:"type"`
	From Ref      `json:"from"`
	To   Ref      `json:"to"`
}

// Verdict is the Judge's decision on one pair. Its JSON form is the verdict object of the
// audit format (see the package documentation); Validate checks the consistency rules.
type Verdict struct {
	Status       Status       `json:"status"`
	ConflictType ConflictType `json:"conflict_type"`
	Action       Action       `json:"action"`
	// ClarificationNeeded asks the agent to check with the user; ClarificationQuestion is
	// then the question to ask, and empty otherwise.
	ClarificationNeeded   bool   `json:"clarification_needed"`
	ClarificationQuestion string `json:"clarification_question"`
	// Links are the suggested links; never nil in verdicts this package returns.
	Links []Link `json:"links"`
	// TransitionSummary says what changed ("home: Berlin → Lisbon"); required for a
	// transition, optional otherwise.
	TransitionSummary string `json:"transition_summary"`
	// Confidence is in [0, 1].
	Confidence float64 `json:"confidence"`
}

// MarshalJSON writes the verdict with every field, links as [] when there are none, and
// without escaping <, > and & (summaries say "Berlin -> Lisbon").
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	p := plain(v)
	if p.Links == nil {
		p.Links = []Link{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// allowedActions lists the actions a conflict of each type may take. ActionKeep is allowed
// for every conflict type, but only together with a clarification question (checked
// separately).
var allowedActions = map[ConflictType][]Action{
	TypeTemporalUpdate:    {ActionTransition, ActionSupersede, ActionKeep},
	TypeExplicitNegation:  {ActionSupersede, ActionKeep},
	TypeValueDiscrepancy:  {ActionSupersede, ActionKeep},
	TypeScopeMismatch:     {ActionScopedException, ActionSupersede, ActionKeep},
	TypeImplicitViolation: {ActionKeep, ActionSupersede, ActionTransition, ActionScopedException},
	TypeNone:              {ActionKeep, ActionCoexist},
}

// AllowedActions lists the actions a verdict with conflict type t may take, the default
// first (DefaultAction).
func AllowedActions(t ConflictType) []Action { return slices.Clone(allowedActions[t]) }

// DefaultAction is the usual action for a conflict type: transition for a temporal update
// (the old value becomes history), supersede for a negation or another value, a scoped
// exception for a scope mismatch, keep (and ask) for an implicit violation, keep for none.
// The evaluation set's gold actions follow it.
func DefaultAction(t ConflictType) Action {
	if as := allowedActions[t]; len(as) > 0 {
		return as[0]
	}
	return ActionKeep
}

// allowedLinks lists the link types each action may suggest, and whether it needs one.
var allowedLinks = map[Action]struct {
	types    []LinkType
	required bool
}{
	ActionSupersede:       {[]LinkType{LinkSupersedes, LinkSupersededBy}, true},
	ActionTransition:      {[]LinkType{LinkEvolvesFrom, LinkEvolvesTo}, true},
	ActionScopedException: {[]LinkType{LinkScopedException}, true},
	ActionCoexist:         {[]LinkType{LinkCoexistsWith}, false},
	ActionKeep:            {nil, false},
}

// DefaultLink is the link an action suggests from the new record's side; ok is false for
// keep and coexist, which need none.
func DefaultLink(a Action) (Link, bool) {
	switch a {
	case ActionSupersede:
		return Link{LinkSupersedes, RefNew, RefOld}, true
	case ActionTransition:
		return Link{LinkEvolvesFrom, RefNew, RefOld}, true
	case ActionScopedException:
		return Link{LinkScopedException, RefNew, RefOld}, true
	}
	return Link{}, false
}

// Validate reports every way the verdict breaks the audit format's rules, each as a
// *ParseError (joined when there are several) unwrapping to ErrInvalidEnum, ErrOutOfRange
// or ErrInconsistent. The rules are listed in the package documentation.
func (v Verdict) Validate() error {
	var errs []error
	bad := func(sentinel error, field, format string, args ...any) {
		errs = append(errs, &ParseError{Err: sentinel, Field: field, Offset: -1, Detail: fmt.Sprintf(format, args...)})
	}
	enumOK := true
	if !v.Status.Valid() {
		bad(ErrInvalidEnum, "status", "%q is not one of %s", v.Status, list(statuses))
		enumOK = false
	}
	if !v.ConflictType.Valid() {
		bad(ErrInvalidEnum, "conflict_type", "%q is not one of %s", v.ConflictType, list(conflictTypes))
		enumOK = false
	}
	if !v.Action.Valid() {
		bad(ErrInvalidEnum, "action", "%q is not one of %s", v.Action, list(actions))
		enumOK = false
	}
	if math.IsNaN(v.Confidence) || v.Confidence < 0 || v.Confidence > 1 {
		bad(ErrOutOfRange, "confidence", "%v is outside [0, 1]", v.Confidence)
	}
	seen := map[Link]bool{}
	for i, l := range v.Links {
		field := fmt.Sprintf("links[%d]", i)
		switch {
		case !l.Type.Valid():
			bad(ErrInvalidEnum, field+".type", "%q is not one of %s", l.Type, list(linkTypes))
			enumOK = false
		case !l.From.Valid() || !l.To.Valid():
			bad(ErrInvalidEnum, field, "from %q and to %q must each be old or new", l.From, l.To)
			enumOK = false
		case l.From == l.To:
			bad(ErrInconsistent, field, "links a record to itself (%s → %s)", l.From, l.To)
		default:
			if from, to, ok := l.Type.Direction(); ok && (l.From != from || l.To != to) {
				bad(ErrInconsistent, field, "%s goes from %s to %s, not from %s to %s", l.Type, from, to, l.From, l.To)
			}
		}
		if seen[l] {
			bad(ErrInconsistent, field, "repeats an earlier link")
		}
		seen[l] = true
	}
	if v.ClarificationNeeded && strings.TrimSpace(v.ClarificationQuestion) == "" {
		bad(ErrInconsistent, "clarification_question", "clarification is needed but no question is given")
	}
	if !v.ClarificationNeeded && v.ClarificationQuestion != "" {
		bad(ErrInconsistent, "clarification_question", "a question is given but clarification_needed is false")
	}
	if v.Action == ActionTransition && strings.TrimSpace(v.TransitionSummary) == "" {
		bad(ErrInconsistent, "transition_summary", "a transition needs a transition summary")
	}
	if !enumOK {
		return errors.Join(errs...)
	}
	switch v.Status {
	case StatusConflict:
		if v.ConflictType == TypeNone {
			bad(ErrInconsistent, "conflict_type", "a conflict needs a conflict type other than none")
		} else if !slices.Contains(allowedActions[v.ConflictType], v.Action) {
			bad(ErrInconsistent, "action", "a %s conflict takes %s, not %s", v.ConflictType, list(allowedActions[v.ConflictType]), v.Action)
		} else if v.Action == ActionKeep && !v.ClarificationNeeded {
			bad(ErrInconsistent, "action", "keeping the memory unchanged on a conflict needs a clarification question")
		}
	case StatusConsistent, StatusUnrelated:
		if v.ConflictType != TypeNone {
			bad(ErrInconsistent, "conflict_type", "a %s pair has conflict type none, not %s", v.Status, v.ConflictType)
		}
		if v.Action != ActionKeep && v.Action != ActionCoexist {
			bad(ErrInconsistent, "action", "a %s pair takes keep or coexist, not %s", v.Status, v.Action)
		}
	}
	rule := allowedLinks[v.Action]
	has := false
	for i, l := range v.Links {
		if slices.Contains(rule.types, l.Type) {
			has = true
			continue
		}
		if len(rule.types) == 0 {
			bad(ErrInconsistent, fmt.Sprintf("links[%d]", i), "action %s suggests no links, got %s", v.Action, l.Type)
		} else {
			bad(ErrInconsistent, fmt.Sprintf("links[%d]", i), "action %s suggests %s links, not %s", v.Action, list(rule.types), l.Type)
		}
	}
	if rule.required && !has {
		bad(ErrInconsistent, "links", "action %s needs a %s link", v.Action, list(rule.types))
	}
	return errors.Join(errs...)
}

// list writes enum values as "a, b or c".
func list[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	switch len(s) {
	case 0:
		return "nothing"
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
