package judge

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Answer is a parsed audit answer: the steps of its think block and its verdict.
type Answer struct {
	Steps   Steps   `json:"steps"`
	Verdict Verdict `json:"verdict"`
}

// The tags of the think block that opens an answer.
const (
	ThinkOpen  = "<think>"
	ThinkClose = "</think>"
)

// JoinReasoning is an answer as the model wrote it when a server's reasoning parser
// (vLLM, llama-server) returned its think block apart, as reasoning: the reasoning put
// back in the think tags before content. Content that closes a think block itself, and
// reasoning that is only white space, leave content as it is.
func JoinReasoning(reasoning, content string) string {
	r := strings.TrimSpace(reasoning)
	if r == "" || strings.Contains(content, ThinkClose) {
		return content
	}
	return ThinkOpen + "\n" + r + "\n" + ThinkClose + "\n" + strings.TrimLeft(content, " \t\r\n")
}

// ParseStrict parses an answer that follows the audit format exactly, for rewards and
// metrics. The answer, apart from white space at either end, must be a <think> block whose
// lines start the four steps in order (LabelSlot, LabelComparison, LabelConflictType,
// LabelAction, each once, each with text, nothing before the first), then exactly one JSON
// object with all eight verdict fields, no others and no repeats, each of its JSON type,
// enums spelled as defined, confidence in [0, 1], and the fields consistent with each other
// (Verdict.Validate). It is ParseThink, then ParseVerdict on the text after the block.
//
// The error is a *ParseError, or several joined when the verdict object has several
// problems; each unwraps to one of the sentinels (ErrNoThink, ErrMissingStep, …). A name
// given twice anywhere in the object is refused as the object is read, so it is reported
// alone (ErrUnknownField, the field named as "links[0].type").
func ParseStrict(text string) (Answer, error) {
	steps, end, err := ParseThink(text)
	if err != nil {
		return Answer{}, err
	}
	v, err := verdictAt(strings.TrimRightFunc(text, unicode.IsSpace), end)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Steps: steps, Verdict: v}, nil
}

// ParseThink reads the think block that must open an answer, by ParseStrict's rules. end
// is the offset just past </think> when the answer, after white space, opens with <think>
// and closes it; otherwise it is -1 and err unwraps to ErrNoThink or ErrUnclosedThink.
// When the block is there but its steps break the rules, end is still set and err unwraps
// to ErrMissingStep, ErrStepOrder or ErrEmptyStep: package grpo/reward scores the block
// and the verdict apart.
func ParseThink(text string) (steps Steps, end int, err error) {
	t := strings.TrimRightFunc(text, unicode.IsSpace)
	lead := len(t) - len(strings.TrimLeftFunc(t, unicode.IsSpace))
	if !strings.HasPrefix(t[lead:], ThinkOpen) {
		return Steps{}, -1, parseErr(ErrNoThink, lead, "", "the answer must start with %s", ThinkOpen)
	}
	bodyStart := lead + len(ThinkOpen)
	closeAt := strings.Index(t[bodyStart:], ThinkClose)
	if closeAt < 0 {
		return Steps{}, -1, parseErr(ErrUnclosedThink, bodyStart, "", "no %s after %s", ThinkClose, ThinkOpen)
	}
	closeAt += bodyStart
	end = closeAt + len(ThinkClose)
	steps, err = strictSteps(t[bodyStart:closeAt], bodyStart)
	return steps, end, err
}

// ParseVerdict reads a conclusion — the text after the think block — by ParseStrict's
// rules: apart from white space at either end, exactly one JSON object that is a valid
// verdict. Offsets in its errors count from the start of conclusion.
func ParseVerdict(conclusion string) (Verdict, error) {
	return verdictAt(strings.TrimRightFunc(conclusion, unicode.IsSpace), 0)
}

// verdictAt reads the verdict object of t, which has no white space at its end, from
// offset rest on; offsets in errors count from the start of t.
func verdictAt(t string, rest int) (Verdict, error) {
	from := rest + len(t[rest:]) - len(strings.TrimLeftFunc(t[rest:], unicode.IsSpace))
	switch {
	case from == len(t):
		return Verdict{}, parseErr(ErrNoJSON, from, "", "nothing follows %s", ThinkClose)
	case t[from] == '[' || t[from] == '"':
		return Verdict{}, parseErr(ErrInvalidJSON, from, "", "the verdict must be a JSON object")
	case t[from] != '{':
		if i := strings.IndexByte(t[from:], '{'); i >= 0 {
			return Verdict{}, parseErr(ErrExtraText, from, "", "%q precedes the verdict object", Clip(t[from:from+i], 40))
		}
		return Verdict{}, parseErr(ErrNoJSON, from, "", "%q follows %s, not a JSON object", Clip(t[from:], 40), ThinkClose)
	}
	dec := jsontext.NewDecoder(strings.NewReader(t[from:]), jsonOpts)
	raw, err := dec.ReadValue()
	if err != nil {
		return Verdict{}, decodeErr(err, from)
	}
	after := from + int(dec.InputOffset())
	if trail := strings.TrimLeftFunc(t[after:], unicode.IsSpace); trail != "" {
		at := len(t) - len(trail)
		if trail[0] == '{' || trail[0] == '[' {
			return Verdict{}, parseErr(ErrMultipleJSON, at, "", "another JSON value follows the verdict object")
		}
		return Verdict{}, parseErr(ErrExtraText, at, "", "%q follows the verdict object", Clip(trail, 40))
	}
	return strictVerdict(raw, from)
}

// strictSteps parses the body of a think block; base is its offset in the answer.
func strictSteps(body string, base int) (Steps, error) {
	labels := Labels()
	type mark struct{ label, start, content int } // content: offset just after the label
	var marks []mark
	for off := 0; off <= len(body); {
		nl := strings.IndexByte(body[off:], '\n')
		line := body[off:]
		if nl >= 0 {
			line = body[off : off+nl]
		}
		trimmed := strings.TrimLeft(line, " \t")
		for k, l := range labels {
			if strings.HasPrefix(trimmed, l) {
				s := off + len(line) - len(trimmed)
				marks = append(marks, mark{k, s, s + len(l)})
				break
			}
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	seen := make([]int, len(labels))
	for _, m := range marks {
		seen[m.label]++
		if seen[m.label] > 1 {
			return Steps{}, parseErr(ErrStepOrder, base+m.start, labels[m.label], "the step appears twice")
		}
	}
	for k, n := range seen {
		if n == 0 {
			return Steps{}, parseErr(ErrMissingStep, base, labels[k], "no line starts with it")
		}
	}
	for i, m := range marks {
		if m.label != i {
			return Steps{}, parseErr(ErrStepOrder, base+m.start, labels[m.label], "want %s here (order: %s)", labels[i], strings.Join(labels, " "))
		}
	}
	if pre := strings.TrimSpace(body[:marks[0].start]); pre != "" {
		return Steps{}, parseErr(ErrStepOrder, base, labels[0], "%q precedes the first step", Clip(pre, 40))
	}
	var s Steps
	for i, m := range marks {
		stop := len(body)
		if i+1 < len(marks) {
			stop = marks[i+1].start
		}
		txt := strings.TrimSpace(body[m.content:stop])
		if txt == "" {
			return Steps{}, parseErr(ErrEmptyStep, base+m.start, labels[i], "the step has no text")
		}
		*s.ptrs()[i] = txt
	}
	return s, nil
}

// strictVerdict decodes the verdict object: all fields present, none unknown or repeated,
// each of its type, then the rules of Verdict.Validate. off is the object's offset.
func strictVerdict(raw []byte, off int) (Verdict, error) {
	fields, err := objectFields(raw, off, "")
	if err != nil {
		return Verdict{}, err
	}
	var v Verdict
	var errs []error
	fail := func(sentinel error, field, format string, args ...any) {
		errs = append(errs, parseErr(sentinel, -1, field, format, args...))
	}
	for _, f := range fields.unknown {
		fail(ErrUnknownField, f, "not a verdict field")
	}
	str := func(name string, dst *string) {
		if err := jsonString(fields.values[name], dst); err != nil {
			fail(ErrFieldType, name, "%v", err)
		}
	}
	for _, name := range verdictFields() {
		val, ok := fields.values[name]
		if !ok {
			fail(ErrMissingField, name, "required")
			continue
		}
		switch name {
		case "status":
			str(name, (*string)(&v.Status))
		case "conflict_type":
			str(name, (*string)(&v.ConflictType))
		case "action":
			str(name, (*string)(&v.Action))
		case "clarification_question":
			str(name, &v.ClarificationQuestion)
		case "transition_summary":
			str(name, &v.TransitionSummary)
		case "clarification_needed":
			switch string(val) {
			case "true":
				v.ClarificationNeeded = true
			case "false":
			default:
				fail(ErrFieldType, name, "want true or false, got %s", Clip(string(val), 30))
			}
		case "confidence":
			if c := val[0]; c != '-' && (c < '0' || c > '9') {
				fail(ErrFieldType, name, "want a number, got %s", Clip(string(val), 30))
				break
			}
			x, err := strconv.ParseFloat(string(val), 64)
			if err != nil || math.IsInf(x, 0) {
				fail(ErrOutOfRange, name, "%s is not a finite number", Clip(string(val), 30))
				break
			}
			v.Confidence = x
		case "links":
			links, lerrs := strictLinks(val, off)
			v.Links = links
			errs = append(errs, lerrs...)
		}
	}
	if len(errs) > 0 {
		return Verdict{}, errors.Join(errs...)
	}
	if err := v.Validate(); err != nil {
		return Verdict{}, err
	}
	return v, nil
}

func strictLinks(val []byte, off int) ([]Link, []error) {
	var items []jsontext.Value
	if val[0] != '[' || jsonv2.Unmarshal(val, &items, jsonOpts) != nil {
		return nil, []error{parseErr(ErrFieldType, -1, "links", "want an array of link objects, got %s", Clip(string(val), 30))}
	}
	links := make([]Link, 0, len(items))
	var errs []error
	for i, it := range items {
		name := fmt.Sprintf("links[%d]", i)
		fields, err := objectFields(it, off, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range fields.unknown {
			errs = append(errs, parseErr(ErrUnknownField, -1, name+"."+f, "a link has type, from and to"))
		}
		var l Link
		for _, f := range []struct {
			key string
			dst *string
		}{{"type", (*string)(&l.Type)}, {"from", (*string)(&l.From)}, {"to", (*string)(&l.To)}} {
			v, ok := fields.values[f.key]
			if !ok {
				errs = append(errs, parseErr(ErrMissingField, -1, name+"."+f.key, "required"))
				continue
			}
			if err := jsonString(v, f.dst); err != nil {
				errs = append(errs, parseErr(ErrFieldType, -1, name+"."+f.key, "%v", err))
			}
		}
		links = append(links, l)
	}
	return links, errs
}

// jsonOpts are the options of every decoding here. go-json-experiment/json refuses a name
// given twice by default (encoding/json keeps the last); invalid UTF-8 is read as U+FFFD,
// as encoding/json reads it, since a model's text may hold it.
var jsonOpts = jsontext.AllowInvalidUTF8(true)

// decodeErr turns a decoding error of the verdict object at offset off into a
// *ParseError: a name given twice is ErrUnknownField on that field, anything else
// ErrInvalidJSON.
func decodeErr(err error, off int) error {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName) {
		return parseErr(ErrUnknownField, off+int(syn.ByteOffset), fieldOf(syn.JSONPointer), "the field appears twice")
	}
	return parseErr(ErrInvalidJSON, off, "", "%v", err)
}

// fieldOf writes a JSON pointer ("/links/0/type") as a field name ("links[0].type").
func fieldOf(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

type objFields struct {
	values  map[string]jsontext.Value
	unknown []string
}

var knownFields = map[string]bool{}

func init() {
	for _, f := range verdictFields() {
		knownFields[f] = true
	}
}

// objectFields reads a JSON object's members, keeping unknown keys (for the verdict, field
// "") apart, sorted. Link objects (field "links[i]") know type, from, to. The object was
// read whole before, so names given twice were refused already.
func objectFields(raw []byte, off int, field string) (objFields, error) {
	if len(raw) == 0 || raw[0] != '{' {
		return objFields{}, parseErr(ErrInvalidJSON, off, field, "want a JSON object")
	}
	var m map[string]jsontext.Value
	if err := jsonv2.Unmarshal(raw, &m, jsonOpts); err != nil {
		return objFields{}, parseErr(ErrInvalidJSON, off, field, "%v", err)
	}
	known := knownFields
	if field != "" {
		known = map[string]bool{"type": true, "from": true, "to": true}
	}
	out := objFields{values: m}
	for k := range m {
		if !known[k] {
			out.unknown = append(out.unknown, k)
		}
	}
	slices.Sort(out.unknown)
	return out, nil
}

// jsonString decodes a JSON string, refusing other types.
func jsonString(val jsontext.Value, dst *string) error {
	if len(val) == 0 || val[0] != '"' {
		return fmt.Errorf("want a string, got %s", Clip(string(val), 30))
	}
	return jsonv2.Unmarshal(val, dst, jsonOpts)
}

// Clip shortens s to at most n bytes, cut on a rune boundary and marked with "…", for
// error messages and for the rule auditor's quotes of user text.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
