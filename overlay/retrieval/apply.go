package retrieval

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Errors of ParseController and Apply. Each error they return wraps one of them.
var (
	// ErrNotJSON: the output is not one JSON object (prose, a code fence, an array,
	// text before or after the object, malformed JSON).
	ErrNotJSON = errors.New("not a JSON object")
	// ErrSchema: a field is missing, unknown, repeated, null, of the wrong type or out
	// of range.
	ErrSchema = errors.New("does not match the schema")
	// ErrTooMany: more than ControllerMaxSelections selections.
	ErrTooMany = errors.New("too many selections")
	// ErrDuplicate: an id or a rank appears twice.
	ErrDuplicate = errors.New("duplicate selection")
	// ErrNoSelection: no selection and no fallback.
	ErrNoSelection = errors.New("no selection")
	// ErrOutsidePool: a selected id is not among the candidates the controller saw.
	ErrOutsidePool = errors.New("id outside the pool")
)

// maxControllerBytes bounds the output parsed; ControllerMaxTokens tokens never come
// near it.
const maxControllerBytes = 64 << 10

// ParseController parses the controller's output strictly: apart from white space at
// either end, the text must be exactly one JSON object with every field of
// ControllerOutput and no others (names matched exactly, case included), no key twice, no
// nulls, each value of its JSON type
// (rank an integer), and the output must pass ControllerOutput.Validate. Prose, code
// fences and trailing text are rejected (ErrNotJSON): the caller keeps the pre-rank.
func ParseController(text string) (ControllerOutput, error) {
	fail := func(sentinel error, format string, args ...any) (ControllerOutput, error) {
		return ControllerOutput{}, fmt.Errorf("parse controller output: %w: %s", sentinel, fmt.Sprintf(format, args...))
	}
	if len(text) > maxControllerBytes {
		return fail(ErrNotJSON, "%d bytes, more than %d", len(text), maxControllerBytes)
	}
	t := strings.TrimFunc(text, unicode.IsSpace)
	switch {
	case t == "":
		return fail(ErrNotJSON, "empty output")
	case t[0] != '{':
		return fail(ErrNotJSON, "output starts with %q", Clip(t, 20))
	}
	dec := jsontext.NewDecoder(strings.NewReader(t), jsonOpts)
	raw, err := dec.ReadValue()
	if err != nil {
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			return fail(ErrSchema, "key %q appears twice", syn.JSONPointer.LastToken())
		}
		return fail(ErrNotJSON, "%v", err)
	}
	if rest := strings.TrimFunc(t[dec.InputOffset():], unicode.IsSpace); rest != "" {
		return fail(ErrNotJSON, "%q follows the object", Clip(rest, 20))
	}
	if err := requireFields(raw, outputFields, ""); err != nil {
		return fail(ErrSchema, "%v", err)
	}
	var top struct {
		Selected []jsontext.Value `json:"selected"`
		Packing  jsontext.Value   `json:"packing"`
	}
	if err := jsonv2.Unmarshal(raw, &top, jsonOpts); err != nil {
		return fail(ErrSchema, "%v", err)
	}
	if err := requireFields(top.Packing, packingFields, "packing."); err != nil {
		return fail(ErrSchema, "%v", err)
	}
	for i, s := range top.Selected {
		if err := requireFields(s, selectionFields, fmt.Sprintf("selected[%d].", i)); err != nil {
			return fail(ErrSchema, "%v", err)
		}
	}
	var out ControllerOutput
	if err := jsonv2.Unmarshal(raw, &out, jsonOpts, jsonv2.RejectUnknownMembers(true), refuseNull); err != nil {
		var sem *jsonv2.SemanticError
		if errors.As(err, &sem) && errors.Is(err, errNull) {
			return fail(ErrSchema, "null value at %s", sem.JSONPointer)
		}
		return fail(ErrSchema, "%v", err)
	}
	if err := out.Validate(); err != nil {
		return ControllerOutput{}, fmt.Errorf("parse controller output: %w", err)
	}
	return out, nil
}

// jsonOpts are the options of the controller's decoding. go-json-experiment/json refuses
// a name given twice and matches names exactly by default (encoding/json keeps the last
// of a repeated name and matches names in any case); invalid UTF-8 is read as U+FFFD, as
// encoding/json reads it.
var jsonOpts = jsontext.AllowInvalidUTF8(true)

// errNull is the error of a null anywhere in the output.
var errNull = errors.New("null value")

// refuseNull refuses a null in place of any value, which would leave the field's zero.
var refuseNull = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, _ any) error {
	if dec.PeekKind() == 'n' {
		return errNull
	}
	return errors.ErrUnsupported // decode it as usual
}))

// requireFields checks that raw, a JSON object, has every field.
func requireFields(raw jsontext.Value, fields []string, prefix string) error {
	var m map[string]jsontext.Value
	if err := jsonv2.Unmarshal(raw, &m, jsonOpts); err != nil {
		return fmt.Errorf("%s: %w", strings.TrimSuffix(cmp.Or(prefix, "output"), "."), err)
	}
	var missing []string
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			missing = append(missing, prefix+f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	return nil
}

// Validate checks the output on its own: a known query mode, every number finite and
// in [0, 1], at most ControllerMaxSelections selections with non-empty, distinct ids,
// known roles and ranks 1..n once each, and a selection unless Fallback is set.
func (o ControllerOutput) Validate() error {
	var errs []error
	unit := func(name string, v float64) {
		if math.IsNaN(v) || v < 0 || v > 1 {
			errs = append(errs, fmt.Errorf("%w: %s %v is outside [0, 1]", ErrSchema, name, v))
		}
	}
	if !o.QueryMode.Valid() {
		errs = append(errs, fmt.Errorf("%w: query_mode %q", ErrSchema, o.QueryMode))
	}
	unit("confidence", o.Confidence)
	if n := len(o.Selected); n > ControllerMaxSelections {
		errs = append(errs, fmt.Errorf("%w: %d, at most %d", ErrTooMany, n, ControllerMaxSelections))
	}
	if len(o.Selected) == 0 && !o.Fallback {
		errs = append(errs, fmt.Errorf("%w: selected is empty and fallback is false", ErrNoSelection))
	}
	ids := make(map[string]bool, len(o.Selected))
	ranks := make(map[int]bool, len(o.Selected))
	for i, s := range o.Selected {
		at := fmt.Sprintf("selected[%d]", i)
		switch {
		case s.ID == "":
			errs = append(errs, fmt.Errorf("%w: %s.id is empty", ErrSchema, at))
		case ids[s.ID]:
			errs = append(errs, fmt.Errorf("%w: id %q", ErrDuplicate, s.ID))
		}
		ids[s.ID] = true
		switch {
		case s.Rank < 1 || s.Rank > len(o.Selected):
			errs = append(errs, fmt.Errorf("%w: %s.rank %d is outside 1..%d", ErrSchema, at, s.Rank, len(o.Selected)))
		case ranks[s.Rank]:
			errs = append(errs, fmt.Errorf("%w: rank %d", ErrDuplicate, s.Rank))
		}
		ranks[s.Rank] = true
		if !slices.Contains(Roles, s.Role) {
			errs = append(errs, fmt.Errorf("%w: %s.role %q", ErrSchema, at, s.Role))
		}
		unit(at+".state_fit", s.StateFit)
		unit(at+".scope_fit", s.ScopeFit)
		unit(at+".change_fit", s.ChangeFit)
		unit(at+".noise_risk", s.NoiseRisk)
	}
	return errors.Join(errs...)
}

// Check validates the output against the candidates the controller saw
// (ControllerCandidates(preRank)): Validate, and every selected id among them.
func (o ControllerOutput) Check(preRank []Candidate) error {
	if err := o.Validate(); err != nil {
		return err
	}
	shown := ControllerCandidates(preRank)
	for _, s := range o.Selected {
		if !slices.ContainsFunc(shown, func(c Candidate) bool { return c.ID == s.ID }) {
			return fmt.Errorf("%w: %q", ErrOutsidePool, s.ID)
		}
	}
	return nil
}

// Apply applies the controller's output to the pre-ranked candidates under mode.
//
//   - off: the pre-rank stands.
//   - shadow: the output is checked (Check) and the status says whether it would have
//     been applied; the pre-rank stands.
//   - online: when the output passes Check and does not ask for the fallback, final is
//     the selected candidates in rank order, then, with Packing.Fill, the other
//     pre-ranked candidates in order; with Packing.Chronological it is then sorted
//     oldest first (stable; unknown times last). Otherwise the pre-rank stands and the
//     status says why.
//
// When nothing is applied, final is a copy of preRank. preRank is never changed.
func Apply(preRank []Candidate, out ControllerOutput, mode ControllerMode) ([]Candidate, ControllerStatus) {
	st := ControllerStatus{Mode: mode}
	keep := slices.Clone(preRank)
	if mode == ControllerOff {
		st.Reason = "controller off"
		return keep, st
	}
	if mode != ControllerShadow && mode != ControllerOnline {
		st.Reason = fmt.Sprintf("unknown controller mode %q", mode)
		return keep, st
	}
	err := out.Check(preRank)
	if err == nil {
		st.Selected = selectedIDs(out)
	}
	var verdict string
	switch {
	case err != nil:
		verdict = "rejected: " + err.Error()
	case out.Fallback:
		verdict = "fallback requested"
	}
	if mode == ControllerShadow {
		st.Reason = "shadow: " + cmp.Or(verdict, "would apply")
		return keep, st
	}
	if verdict != "" {
		st.Reason = verdict
		return keep, st
	}
	final := make([]Candidate, 0, len(preRank))
	for _, id := range st.Selected {
		final = append(final, preRank[slices.IndexFunc(preRank, func(c Candidate) bool { return c.ID == id })])
	}
	if out.Packing.Fill {
		for _, c := range preRank {
			if !slices.Contains(st.Selected, c.ID) {
				final = append(final, c)
			}
		}
	}
	if out.Packing.Chronological {
		slices.SortStableFunc(final, func(a, b Candidate) int {
			switch {
			case a.EventTime.IsZero() || b.EventTime.IsZero():
				return cmp.Compare(boolInt(a.EventTime.IsZero()), boolInt(b.EventTime.IsZero()))
			}
			return a.EventTime.Compare(b.EventTime)
		})
	}
	st.Applied = true
	st.Reason = fmt.Sprintf("applied %d selected", len(st.Selected))
	return final, st
}

// ApplyText parses the controller's raw output and applies it (see ParseController
// and Apply). With mode off the text is not parsed. A parse failure keeps the
// pre-rank, and the status says why.
func ApplyText(preRank []Candidate, text string, mode ControllerMode) ([]Candidate, ControllerOutput, ControllerStatus) {
	if mode == ControllerOff {
		final, st := Apply(preRank, ControllerOutput{}, mode)
		return final, ControllerOutput{}, st
	}
	out, err := ParseController(text)
	if err != nil {
		st := ControllerStatus{Mode: mode, Reason: "rejected: " + err.Error()}
		if mode == ControllerShadow {
			st.Reason = "shadow: " + st.Reason
		} else if mode != ControllerOnline {
			st.Reason = fmt.Sprintf("unknown controller mode %q", mode)
		}
		return slices.Clone(preRank), ControllerOutput{}, st
	}
	final, st := Apply(preRank, out, mode)
	return final, out, st
}

func selectedIDs(o ControllerOutput) []string {
	sel := slices.Clone(o.Selected)
	slices.SortFunc(sel, func(a, b Selection) int { return cmp.Compare(a.Rank, b.Rank) })
	ids := make([]string, len(sel))
	for i, s := range sel {
		ids[i] = s.ID
	}
	return ids
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
