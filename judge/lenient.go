package judge

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// DefaultConfidence is the confidence ParseLenient gives a verdict that states none.
const DefaultConfidence = 0.5

// Fallback texts ParseLenient fills in when a verdict needs them and has none.
const (
	genericQuestion = "Earlier you told me something different. Which of the two is true now?"
	genericSummary  = "the old record is a past state; the new input is current"
)

// ParseLenient parses an answer for the runtime. It exists for model text that
// ParseStrict refuses but that still states a verdict: llmauditor.Auditor falls back to
// it by default (always with its Config.Schema, whose answers have no think block), and
// package grpo/reward uses it when configured for lenient verdicts; rewards and metrics
// otherwise use ParseStrict. It recovers what it can:
//
//   - the think block may be missing, unclosed, or open only with </think> (as reasoning
//     templates leave it), and its step labels may differ in case or carry markdown;
//   - the verdict is the last JSON object in the text after the think block (or anywhere,
//     if none follows it), inside code fences or followed by text, possibly wrapped as
//     {"verdict": {...}}; trailing commas and Python's True/False/None are repaired;
//   - field names and enum values are matched without regard to case, spacing or
//     camel case, with common synonyms ("temporal update", "TemporalUpdate", "replace",
//     "contradiction"); confidence may be a string or a percentage;
//   - missing optional fields are defaulted (no clarification, no links, no summary,
//     DefaultConfidence), a missing action becomes DefaultAction of the conflict type, a
//     missing status is inferred from a conflict type other than none;
//   - an inconsistent verdict is repaired: a consistent or unrelated pair gets type none and
//     keep unless it said coexist, an action the conflict type does not allow becomes its
//     default, keep on a conflict gets a clarification question, required links and a
//     transition summary are added, links are turned the right way round and pruned to those
//     the action takes.
//
// What it cannot recover is an error: no JSON object, no status, or a conflict whose type
// cannot be told. Any answer ParseStrict accepts, ParseLenient accepts with the same
// verdict. The returned steps are those found, possibly empty.
func ParseLenient(text string) (Answer, error) {
	steps, region := lenientThink(text)
	objs := jsonObjects(text[region:])
	if len(objs) == 0 && region > 0 {
		objs = jsonObjects(text)
	}
	if len(objs) == 0 {
		return Answer{Steps: steps}, parseErr(ErrNoJSON, -1, "", "no JSON object in the answer")
	}
	var firstErr error
	for i := len(objs) - 1; i >= 0; i-- {
		m, ok := objs[i].(map[string]any)
		if !ok {
			continue
		}
		v, err := lenientVerdict(m, steps)
		if err == nil {
			return Answer{Steps: steps, Verdict: v}, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return Answer{Steps: steps}, firstErr
}

var labelRE = regexp.MustCompile(`(?im)^[\s>*#_\-\d.)]*(slot|comparison|conflict[ _-]?type|action)\s*[*_]*\s*:\s*[*_]*`)

// lenientThink finds the think block's steps and where the verdict region starts.
func lenientThink(text string) (Steps, int) {
	var body string
	region := 0
	closeAt := strings.Index(text, ThinkClose)
	if closeAt < 0 {
		closeAt = indexFold(text, ThinkClose)
	}
	if closeAt >= 0 {
		start := 0
		if o := indexFold(text[:closeAt], ThinkOpen); o >= 0 {
			start = o + len(ThinkOpen)
		}
		body, region = text[start:closeAt], closeAt+len(ThinkClose)
	} else if o := indexFold(text, ThinkOpen); o >= 0 {
		body = text[o+len(ThinkOpen):]
		if j := strings.IndexByte(body, '{'); j >= 0 {
			body = body[:j]
		}
	} else {
		body = text
		if j := strings.IndexByte(body, '{'); j >= 0 {
			body = body[:j]
		}
	}
	var s Steps
	ms := labelRE.FindAllStringSubmatchIndex(body, -1)
	for i, m := range ms {
		stop := len(body)
		if i+1 < len(ms) {
			stop = ms[i+1][0]
		}
		name := strings.ToLower(body[m[2]:m[3]])
		var dst *string
		switch {
		case name == "slot":
			dst = &s.Slot
		case name == "comparison":
			dst = &s.Comparison
		case name == "action":
			dst = &s.Action
		default:
			dst = &s.ConflictType
		}
		if *dst == "" {
			*dst = strings.TrimSpace(body[m[1]:stop])
		}
	}
	return s, region
}

// indexFold is strings.Index ignoring ASCII case. It folds byte by byte, so offsets stay
// those of s even when s is not valid UTF-8 (strings.ToLower would change its length).
func indexFold(s, sub string) int {
	lower := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
outer:
	for i := 0; i+len(sub) <= len(s); i++ {
		for j := 0; j < len(sub); j++ {
			if lower(s[i+j]) != lower(sub[j]) {
				continue outer
			}
		}
		return i
	}
	return -1
}

// jsonObjects returns the top-level JSON objects found in text, in order, decoded with
// numbers kept as json.Number. A '{' that does not start a decodable object (after
// repairs) is skipped.
func jsonObjects(text string) []any {
	var out []any
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		end := matchBrace(text, start)
		if end < 0 {
			i = start + 1
			continue
		}
		if v, ok := decodeLoose(text[start:end]); ok {
			out = append(out, v)
			i = end
			continue
		}
		i = start + 1
	}
	return out
}

// matchBrace returns the offset just after the '}' closing the '{' at start, reading
// strings with their escapes; -1 if it is never closed.
func matchBrace(s string, start int) int {
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				if c != '}' {
					return -1
				}
				return i + 1
			}
		}
	}
	return -1
}

var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)

func decodeLoose(s string) (any, bool) {
	if v, err := decodeNumber(s); err == nil {
		return v, true
	}
	fixed := repairJSON(s)
	if fixed == s {
		return nil, false
	}
	v, err := decodeNumber(fixed)
	return v, err == nil
}

func decodeNumber(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// repairJSON fixes, outside strings, trailing commas and Python literals.
func repairJSON(s string) string {
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			b.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case c == ',':
			k := i + 1
			for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r') {
				k++
			}
			if k < len(s) && (s[k] == '}' || s[k] == ']') {
				continue
			}
		case (c == 'T' || c == 'F' || c == 'N') && (i == 0 || !isWordByte(s[i-1])):
			for _, lit := range [][2]string{{"True", "true"}, {"False", "false"}, {"None", "null"}} {
				if strings.HasPrefix(s[i:], lit[0]) && (i+len(lit[0]) == len(s) || !isWordByte(s[i+len(lit[0])])) {
					b.WriteString(lit[1])
					i += len(lit[0]) - 1
					c = 0
					break
				}
			}
			if c == 0 {
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// normKey folds a field name for matching: "clarificationNeeded", "Clarification needed"
// and "clarification_needed" all become "clarificationneeded".
func normKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// keySynonyms maps folded field names (normKey) to verdict fields. "clarification" is
// read by type: a boolean says whether, a string is the question.
var keySynonyms = invert(map[string][]string{
	"status":        {"status", "conflictstatus", "relation", "label", "decision", "judgement", "judgment"},
	"conflict_type": {"conflicttype", "type", "updatetype", "conflictkind", "kind"},
	"action":        {"action", "fusionaction", "fusion", "memoryaction", "resolution"},
	"clarification_needed": {"clarificationneeded", "needsclarification", "clarificationrequired",
		"needclarification", "askuser", "clarify"},
	"clarification_question": {"clarificationquestion", "question"},
	"clarification":          {"clarification"},
	"links":                  {"links", "suggestedlinks", "link"},
	"transition_summary":     {"transitionsummary", "summary", "transition"},
	"confidence":             {"confidence", "certainty", "score"},
})

func invert[T comparable](groups map[T][]string) map[string]T {
	m := map[string]T{}
	for canon, names := range groups {
		for _, n := range names {
			m[n] = canon
		}
	}
	return m
}

// normEnum folds an enum value: "Temporal Update", "TemporalUpdate" and "temporal-update"
// all become "temporal_update".
func normEnum(s string) string {
	var b strings.Builder
	rs := []rune(strings.TrimSpace(s))
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]) {
			b.WriteByte('_')
		}
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	for strings.Contains(out, "__") {
		out = strings.ReplaceAll(out, "__", "_")
	}
	return strings.Trim(out, "_")
}

var statusSynonyms = invert(map[Status][]string{
	StatusConflict:   {"conflict", "conflicting", "conflicts", "contradiction", "contradictory", "contradicts", "inconsistent", "conflicted", "contradicted"},
	StatusConsistent: {"consistent", "agree", "agrees", "agreement", "compatible", "no_conflict", "entailment", "entails", "supported", "same", "not_conflicting"},
	StatusUnrelated:  {"unrelated", "irrelevant", "independent", "different_topic", "different_slot", "off_topic", "neutral", "not_related"},
})

var typeSynonyms = invert(map[ConflictType][]string{
	TypeTemporalUpdate:    {"temporal_update", "temporal", "temporal_change", "update", "state_change", "temporal_updates"},
	TypeExplicitNegation:  {"explicit_negation", "negation", "denial", "explicit_contradiction", "negated"},
	TypeValueDiscrepancy:  {"value_discrepancy", "value_mismatch", "discrepancy", "value_conflict", "numeric_discrepancy", "numerical_discrepancy", "value_change", "value_contradiction"},
	TypeScopeMismatch:     {"scope_mismatch", "scope", "scope_change", "scope_conflict", "scope_narrowing", "scope_difference"},
	TypeImplicitViolation: {"implicit_violation", "implicit", "implicit_contradiction", "implicit_conflict", "implied", "implied_contradiction", "indirect"},
	TypeNone:              {"none", "no_conflict", "null", "n_a", "na", "not_applicable", ""},
})

var actionSynonyms = invert(map[Action][]string{
	ActionSupersede:       {"supersede", "supersedes", "superseded", "replace", "override", "overwrite", "update", "replace_old"},
	ActionTransition:      {"transition", "evolve", "evolution", "transitions", "evolves"},
	ActionCoexist:         {"coexist", "coexists", "co_exist", "keep_both", "both", "coexists_with"},
	ActionScopedException: {"scoped_exception", "exception", "scope_exception", "scoped"},
	ActionKeep:            {"keep", "keep_old", "no_op", "noop", "nothing", "ignore", "none", "no_change", "retain", "keep_existing", "no_action"},
})

var linkSynonyms = invert(map[LinkType][]string{
	LinkSupersedes:      {"supersedes", "supersede", "replaces"},
	LinkSupersededBy:    {"superseded_by", "replaced_by"},
	LinkEvolvesFrom:     {"evolves_from", "evolved_from"},
	LinkEvolvesTo:       {"evolves_to", "evolves_into", "evolved_into"},
	LinkScopedException: {"scoped_exception", "exception_of", "exception"},
	LinkCoexistsWith:    {"coexists_with", "coexists", "coexist"},
})

var refSynonyms = invert(map[Ref][]string{
	RefOld: {"old", "old_record", "existing", "memory", "previous", "stored", "old_memory", "a"},
	RefNew: {"new", "new_input", "input", "incoming", "current", "new_record", "b"},
})

// lenientVerdict builds a verdict from a decoded object.
func lenientVerdict(m map[string]any, steps Steps) (Verdict, error) {
	fields := map[string]any{}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		v := m[k]
		canon, ok := keySynonyms[normKey(k)]
		if !ok || v == nil {
			continue
		}
		if _, dup := fields[canon]; dup && k != canon {
			continue // the first spelling in key order wins, the canonical one over all
		}
		fields[canon] = v
	}
	if inner, ok := m["verdict"].(map[string]any); ok && fields["status"] == nil {
		return lenientVerdict(inner, steps)
	}
	if _, ok := fields["status"]; !ok {
		if s, ok := m["verdict"].(string); ok {
			fields["status"] = s
		}
	}

	var v Verdict
	typeGiven := false
	if s, ok := fields["conflict_type"].(string); ok {
		t, known := findEnum(s, typeSynonyms)
		if !known {
			return Verdict{}, parseErr(ErrInvalidEnum, -1, "conflict_type", "%q is not a conflict type", Clip(s, 40))
		}
		v.ConflictType, typeGiven = t, true
	}
	switch s, ok := fields["status"].(string); {
	case ok:
		st, known := findEnum(s, statusSynonyms)
		if !known {
			return Verdict{}, parseErr(ErrInvalidEnum, -1, "status", "%q is not a status", Clip(s, 40))
		}
		v.Status = st
	case typeGiven && v.ConflictType != TypeNone:
		v.Status = StatusConflict
	default:
		return Verdict{}, parseErr(ErrMissingField, -1, "status", "no status, and no conflict type to infer it from")
	}
	if !typeGiven {
		v.ConflictType = TypeNone
	}
	if s, ok := fields["action"].(string); ok {
		if a, known := findEnum(s, actionSynonyms); known {
			v.Action = a
		}
	}

	neededGiven := false
	if b, ok := looseBool(fields["clarification_needed"]); ok {
		v.ClarificationNeeded, neededGiven = b, true
	}
	if q, ok := fields["clarification_question"].(string); ok {
		v.ClarificationQuestion = q
	}
	switch c := fields["clarification"].(type) {
	case bool:
		if !neededGiven {
			v.ClarificationNeeded, neededGiven = c, true
		}
	case string:
		if v.ClarificationQuestion == "" {
			if b, ok := looseBool(c); ok {
				if !neededGiven {
					v.ClarificationNeeded, neededGiven = b, true
				}
			} else {
				v.ClarificationQuestion = c
			}
		}
	case map[string]any:
		inner, _ := lenientVerdictClarification(c)
		if !neededGiven && inner.given {
			v.ClarificationNeeded, neededGiven = inner.needed, true
		}
		if v.ClarificationQuestion == "" {
			v.ClarificationQuestion = inner.question
		}
	}
	if !neededGiven && strings.TrimSpace(v.ClarificationQuestion) != "" {
		v.ClarificationNeeded = true
	}

	v.Links = looseLinks(fields["links"])
	if s, ok := fields["transition_summary"].(string); ok {
		v.TransitionSummary = s
	}
	v.Confidence = DefaultConfidence
	if c, ok := looseConfidence(fields["confidence"]); ok {
		v.Confidence = c
	}

	if v.Action == "" || v.Validate() != nil {
		if err := repair(&v, steps); err != nil {
			return Verdict{}, err
		}
	}
	if err := v.Validate(); err != nil {
		return Verdict{}, err
	}
	return v, nil
}

type clarification struct {
	given, needed bool
	question      string
}

func lenientVerdictClarification(m map[string]any) (clarification, bool) {
	var c clarification
	for k, v := range m {
		switch normKey(k) {
		case "needed", "required", "clarificationneeded":
			c.needed, c.given = looseBool(v)
		case "question", "clarificationquestion", "text":
			c.question, _ = v.(string)
		}
	}
	return c, true
}

// repair makes an inconsistent verdict consistent, as ParseLenient documents.
func repair(v *Verdict, steps Steps) error {
	switch v.Status {
	case StatusConsistent, StatusUnrelated:
		v.ConflictType = TypeNone
		if v.Action != ActionCoexist {
			v.Action = ActionKeep
		}
	case StatusConflict:
		if v.ConflictType == TypeNone {
			switch {
			case v.Action == ActionTransition:
				v.ConflictType = TypeTemporalUpdate
			case v.Action == ActionScopedException:
				v.ConflictType = TypeScopeMismatch
			default:
				t, ok := typeFromText(steps.ConflictType)
				if !ok {
					return parseErr(ErrInconsistent, -1, "conflict_type", "a conflict with no conflict type")
				}
				v.ConflictType = t
			}
		}
		if !slices.Contains(allowedActions[v.ConflictType], v.Action) {
			v.Action = DefaultAction(v.ConflictType)
		}
		if v.Action == ActionKeep {
			v.ClarificationNeeded = true
		}
	}
	if v.ClarificationNeeded && strings.TrimSpace(v.ClarificationQuestion) == "" {
		v.ClarificationQuestion = genericQuestion
	}
	if !v.ClarificationNeeded {
		v.ClarificationQuestion = ""
	}
	if v.Action == ActionTransition && strings.TrimSpace(v.TransitionSummary) == "" {
		v.TransitionSummary = genericSummary
	}
	rule := allowedLinks[v.Action]
	kept := v.Links[:0]
	for _, l := range v.Links {
		if slices.Contains(rule.types, l.Type) {
			kept = append(kept, l)
		}
	}
	v.Links = kept
	if l, ok := DefaultLink(v.Action); ok && rule.required && len(v.Links) == 0 {
		v.Links = append(v.Links, l)
	}
	return nil
}

// typeFromText finds a conflict type named in a step's text: the first canonical name, or
// failing that the first synonym of more than one word.
func typeFromText(s string) (ConflictType, bool) {
	n := "_" + normEnum(s) + "_"
	best, at := TypeNone, -1
	for _, t := range conflictTypes[:len(conflictTypes)-1] {
		if i := strings.Index(n, "_"+string(t)+"_"); i >= 0 && (at < 0 || i < at) {
			best, at = t, i
		}
	}
	if at >= 0 {
		return best, true
	}
	for syn, t := range typeSynonyms {
		if t == TypeNone || !strings.Contains(syn, "_") {
			continue
		}
		if i := strings.Index(n, "_"+syn+"_"); i >= 0 && (at < 0 || i < at || i == at && t < best) {
			best, at = t, i
		}
	}
	return best, at >= 0
}

func looseBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch normEnum(x) {
		case "true", "yes", "y", "1", "needed", "required":
			return true, true
		case "false", "no", "n", "0", "not_needed", "none", "":
			return false, true
		}
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0, err == nil
	}
	return false, false
}

func looseConfidence(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(x), 64); err != nil {
			return 0, false
		}
	case string:
		s := strings.TrimSpace(x)
		pct := strings.HasSuffix(s, "%")
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64); err != nil {
			return 0, false
		}
		if pct {
			f /= 100
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if f > 1 && f <= 100 {
		f /= 100
	}
	return min(max(f, 0), 1), true
}

// looseLinks reads links as objects or bare type names, turns fixed-direction links the
// right way round and drops unknown types and repeats.
func looseLinks(v any) []Link {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case map[string]any, string:
		items = []any{x}
	}
	links := []Link{}
	seen := map[Link]bool{}
	for _, it := range items {
		var l Link
		switch x := it.(type) {
		case string:
			l.Type, _ = findEnum(x, linkSynonyms)
		case map[string]any:
			for k, val := range x {
				s, _ := val.(string)
				switch normKey(k) {
				case "type", "linktype", "relation", "kind":
					l.Type, _ = findEnum(s, linkSynonyms)
				case "from", "source", "src":
					l.From = refSynonyms[normEnum(s)]
				case "to", "target", "dst":
					l.To = refSynonyms[normEnum(s)]
				}
			}
		}
		if l.Type == "" {
			continue
		}
		if from, to, ok := l.Type.Direction(); ok {
			l.From, l.To = from, to
		} else if l.From == "" || l.To == "" || l.From == l.To {
			l.From, l.To = RefNew, RefOld
		}
		if !seen[l] {
			seen[l] = true
			links = append(links, l)
		}
	}
	return links
}

// findEnum matches a value against a synonym table: the folded value itself, or else the
// synonym of three or more characters found earliest in it as whole words (the longest at a
// tie), so that "conflict (temporal)" is a conflict and "no conflict" is not.
func findEnum[T any](s string, syn map[string]T) (T, bool) {
	n := normEnum(s)
	if t, ok := syn[n]; ok {
		return t, true
	}
	n = "_" + n + "_"
	var best T
	bestKey, at := "", -1
	for k, t := range syn {
		if len(k) < 3 {
			continue
		}
		i := strings.Index(n, "_"+k+"_")
		if i < 0 {
			continue
		}
		if at < 0 || i < at || i == at && (len(k) > len(bestKey) || len(k) == len(bestKey) && k < bestKey) {
			best, bestKey, at = t, k, i
		}
	}
	return best, at >= 0
}
