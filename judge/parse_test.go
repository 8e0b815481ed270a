package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const baseThink = "<think>\nSlot: Both texts are about the user's home.\nComparison: Old value: Berlin. New value: Lisbon.\nConflict type: temporal_update: the user moved.\nAction: transition: Berlin becomes the past home.\n</think>\n"

const baseJSON = `{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"home: Berlin -> Lisbon","confidence":0.9}`

var baseVerdict = Verdict{
	Status: StatusConflict, ConflictType: TypeTemporalUpdate, Action: ActionTransition,
	ClarificationQuestion: "", Links: []Link{{LinkEvolvesFrom, RefNew, RefOld}},
	TransitionSummary: "home: Berlin -> Lisbon", Confidence: 0.9,
}

// withJSON replaces old by new in the base verdict JSON.
func withJSON(old, new string) string { return baseThink + strings.Replace(baseJSON, old, new, 1) }

// withThink replaces old by new in the base think block.
func withThink(old, new string) string { return strings.Replace(baseThink, old, new, 1) + baseJSON }

func TestParseStrictValid(t *testing.T) {
	keep := Verdict{Status: StatusConsistent, ConflictType: TypeNone, Action: ActionKeep, Links: []Link{}, Confidence: 1}
	tests := []struct {
		name string
		text string
		want Verdict
	}{
		{"base", baseThink + baseJSON, baseVerdict},
		{"surrounding white space", "\n\n  " + baseThink + "\n" + baseJSON + "\n\n", baseVerdict},
		{"crlf line ends", strings.ReplaceAll(baseThink+baseJSON, "\n", "\r\n"), baseVerdict},
		{"indented labels and multi-line steps", withThink("Comparison: Old value: Berlin.", "  Comparison: Old value:\n  Berlin."), baseVerdict},
		{"pretty-printed json", baseThink + "{\n  \"status\": \"conflict\",\n  \"conflict_type\": \"temporal_update\",\n  \"action\": \"transition\",\n  \"clarification_needed\": false,\n  \"clarification_question\": \"\",\n  \"links\": [\n    {\"type\": \"evolves_from\", \"from\": \"new\", \"to\": \"old\"}\n  ],\n  \"transition_summary\": \"home: Berlin -> Lisbon\",\n  \"confidence\": 0.9\n}", baseVerdict},
		{"fields in another order", baseThink + `{"confidence":0.9,"links":[{"to":"old","type":"evolves_from","from":"new"}],"transition_summary":"home: Berlin -> Lisbon","status":"conflict","action":"transition","conflict_type":"temporal_update","clarification_question":"","clarification_needed":false}`, baseVerdict},
		{"consistent keep", baseThink + `{"status":"consistent","conflict_type":"none","action":"keep","clarification_needed":false,"clarification_question":"","links":[],"transition_summary":"","confidence":1}`, keep},
		{"unrelated coexist with a link either way", baseThink + `{"status":"unrelated","conflict_type":"none","action":"coexist","clarification_needed":false,"clarification_question":"","links":[{"type":"coexists_with","from":"old","to":"new"}],"transition_summary":"","confidence":0.5}`,
			Verdict{Status: StatusUnrelated, ConflictType: TypeNone, Action: ActionCoexist, Links: []Link{{LinkCoexistsWith, RefOld, RefNew}}, Confidence: 0.5}},
		{"implicit keep with a question", baseThink + `{"status":"conflict","conflict_type":"implicit_violation","action":"keep","clarification_needed":true,"clarification_question":"Still vegetarian?","links":[],"transition_summary":"","confidence":0}`,
			Verdict{Status: StatusConflict, ConflictType: TypeImplicitViolation, Action: ActionKeep, ClarificationNeeded: true, ClarificationQuestion: "Still vegetarian?", Links: []Link{}}},
		{"superseded_by from old", baseThink + `{"status":"conflict","conflict_type":"value_discrepancy","action":"supersede","clarification_needed":false,"clarification_question":"","links":[{"type":"superseded_by","from":"old","to":"new"},{"type":"supersedes","from":"new","to":"old"}],"transition_summary":"","confidence":0.75}`,
			Verdict{Status: StatusConflict, ConflictType: TypeValueDiscrepancy, Action: ActionSupersede, Links: []Link{{LinkSupersededBy, RefOld, RefNew}, {LinkSupersedes, RefNew, RefOld}}, Confidence: 0.75}},
		{"json and tags inside steps", withThink("the user moved.", `the user moved {"status":"x"} <think>`), baseVerdict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseStrict(tt.text)
			if err != nil {
				t.Fatalf("ParseStrict: %v", err)
			}
			if diff := cmp.Diff(tt.want, a.Verdict); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if a.Steps.Slot == "" || a.Steps.Comparison == "" || a.Steps.ConflictType == "" || a.Steps.Action == "" {
				t.Errorf("steps are missing: %+v", a.Steps)
			}
			l, err := ParseLenient(tt.text)
			if err != nil {
				t.Fatalf("ParseLenient refuses what ParseStrict accepts: %v", err)
			}
			if diff := cmp.Diff(a.Verdict, l.Verdict); diff != "" {
				t.Errorf("ParseLenient verdict differs from ParseStrict's (-strict +lenient):\n%s", diff)
			}
		})
	}
}

func TestParseStrictSteps(t *testing.T) {
	a, err := ParseStrict(withThink("Comparison: Old value: Berlin. New value: Lisbon.", "Comparison:   Old value: Berlin.\n   New value: Lisbon.  "))
	if err != nil {
		t.Fatal(err)
	}
	want := Steps{
		Slot:         "Both texts are about the user's home.",
		Comparison:   "Old value: Berlin.\n   New value: Lisbon.",
		ConflictType: "temporal_update: the user moved.",
		Action:       "transition: Berlin becomes the past home.",
	}
	if diff := cmp.Diff(want, a.Steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

func TestParseStrictInvalid(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		want  error
		field string
	}{
		{"empty", "", ErrNoThink, ""},
		{"json only", baseJSON, ErrNoThink, ""},
		{"preamble", "Sure! Here is my audit.\n" + baseThink + baseJSON, ErrNoThink, ""},
		{"unclosed think", strings.TrimSuffix(baseThink, "</think>\n") + baseJSON, ErrUnclosedThink, ""},
		{"missing step", withThink("Comparison: Old value: Berlin. New value: Lisbon.\n", ""), ErrMissingStep, LabelComparison},
		{"lower-case label", withThink("Slot:", "slot:"), ErrMissingStep, LabelSlot},
		{"markdown label", withThink("Action:", "**Action:**"), ErrMissingStep, LabelAction},
		{"steps out of order", withThink("Comparison: Old value: Berlin. New value: Lisbon.\nConflict type: temporal_update: the user moved.", "Conflict type: temporal_update: the user moved.\nComparison: Old value: Berlin. New value: Lisbon."), ErrStepOrder, LabelConflictType},
		{"step repeated", withThink("Action:", "Slot: again\nAction:"), ErrStepOrder, LabelSlot},
		{"text before the first step", withThink("<think>\n", "<think>\nLet me think.\n"), ErrStepOrder, LabelSlot},
		{"empty step", withThink("Action: transition: Berlin becomes the past home.", "Action:   "), ErrEmptyStep, LabelAction},
		{"nothing after think", baseThink, ErrNoJSON, ""},
		{"prose after think", baseThink + "The pair conflicts.", ErrNoJSON, ""},
		{"code fence", baseThink + "```json\n" + baseJSON + "\n```", ErrExtraText, ""},
		{"trailing text", baseThink + baseJSON + "\nHope this helps!", ErrExtraText, ""},
		{"two objects", baseThink + baseJSON + "\n" + baseJSON, ErrMultipleJSON, ""},
		{"array", baseThink + "[" + baseJSON + "]", ErrInvalidJSON, ""},
		{"truncated", baseThink + baseJSON[:len(baseJSON)-10], ErrInvalidJSON, ""},
		{"missing field", withJSON(`,"confidence":0.9`, ""), ErrMissingField, "confidence"},
		{"unknown field", withJSON(`"confidence":0.9`, `"confidence":0.9,"reason":"moved"`), ErrUnknownField, "reason"},
		{"repeated field", withJSON(`"confidence":0.9`, `"confidence":0.9,"confidence":0.8`), ErrUnknownField, "confidence"},
		{"repeated link field", withJSON(`"from":"new"`, `"from":"new","from":"old"`), ErrUnknownField, "links[0].from"},
		{"confidence as a string", withJSON(`0.9`, `"0.9"`), ErrFieldType, "confidence"},
		{"boolean as a string", withJSON(`"clarification_needed":false`, `"clarification_needed":"false"`), ErrFieldType, "clarification_needed"},
		{"status as null", withJSON(`"status":"conflict"`, `"status":null`), ErrFieldType, "status"},
		{"links as an object", withJSON(`[{"type":"evolves_from","from":"new","to":"old"}]`, `{"type":"evolves_from","from":"new","to":"old"}`), ErrFieldType, "links"},
		{"link without to", withJSON(`,"to":"old"`, ""), ErrMissingField, "links[0].to"},
		{"link with an extra field", withJSON(`"to":"old"`, `"to":"old","why":"x"`), ErrUnknownField, "links[0].why"},
		{"status capitalised", withJSON(`"conflict"`, `"Conflict"`), ErrInvalidEnum, "status"},
		{"type with a space", withJSON(`"temporal_update"`, `"temporal update"`), ErrInvalidEnum, "conflict_type"},
		{"unknown action", withJSON(`"transition",`, `"replace",`), ErrInvalidEnum, "action"},
		{"unknown link type", withJSON(`"evolves_from"`, `"evolves"`), ErrInvalidEnum, "links[0].type"},
		{"unknown link end", withJSON(`"from":"new"`, `"from":"input"`), ErrInvalidEnum, "links[0]"},
		{"confidence above 1", withJSON(`0.9`, `1.5`), ErrOutOfRange, "confidence"},
		{"confidence below 0", withJSON(`0.9`, `-0.1`), ErrOutOfRange, "confidence"},
		{"confidence overflows", withJSON(`0.9`, `1e400`), ErrOutOfRange, "confidence"},
		{"consistent with a conflict type", withJSON(`"status":"conflict"`, `"status":"consistent"`), ErrInconsistent, "conflict_type"},
		{"conflict of type none", withJSON(`"temporal_update"`, `"none"`), ErrInconsistent, "conflict_type"},
		{"action the type does not allow", withJSON(`"temporal_update"`, `"explicit_negation"`), ErrInconsistent, "action"},
		{"keep on a conflict without a question", baseThink + `{"status":"conflict","conflict_type":"value_discrepancy","action":"keep","clarification_needed":false,"clarification_question":"","links":[],"transition_summary":"","confidence":0.5}`, ErrInconsistent, "action"},
		{"clarification without a question", withJSON(`"clarification_needed":false`, `"clarification_needed":true`), ErrInconsistent, "clarification_question"},
		{"question without clarification", withJSON(`"clarification_question":""`, `"clarification_question":"Did you move?"`), ErrInconsistent, "clarification_question"},
		{"transition without a summary", withJSON(`"home: Berlin -> Lisbon"`, `"  "`), ErrInconsistent, "transition_summary"},
		{"transition without a link", withJSON(`{"type":"evolves_from","from":"new","to":"old"}`, ""), ErrInconsistent, "links"},
		{"link of another action", withJSON(`"evolves_from"`, `"supersedes"`), ErrInconsistent, "links[0]"},
		{"link the wrong way", withJSON(`"from":"new","to":"old"`, `"from":"old","to":"new"`), ErrInconsistent, "links[0]"},
		{"link to itself", withJSON(`"evolves_from","from":"new","to":"old"}`, `"evolves_from","from":"new","to":"old"},{"type":"evolves_to","from":"old","to":"old"}`), ErrInconsistent, "links[1]"},
		{"link repeated", withJSON(`{"type":"evolves_from","from":"new","to":"old"}`, `{"type":"evolves_from","from":"new","to":"old"},{"type":"evolves_from","from":"new","to":"old"}`), ErrInconsistent, "links[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseStrict(tt.text)
			if err == nil {
				t.Fatal("ParseStrict accepted it")
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %q is not %v", err, tt.want)
			}
			if !hasField(err, tt.want, tt.field) {
				t.Errorf("error %q names no field %q", err, tt.field)
			}
		})
	}
}

// hasField reports whether err holds a *ParseError of kind want about field.
func hasField(err, want error, field string) bool {
	var pe *ParseError
	if errors.As(err, &pe) && pe.Err == want && pe.Field == field {
		return true
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if hasField(e, want, field) {
				return true
			}
		}
	}
	return false
}

func TestParseStrictReportsEveryFieldProblem(t *testing.T) {
	_, err := ParseStrict(baseThink + `{"status":"maybe","conflict_type":"none","action":"keep","clarification_needed":0,"links":[],"transition_summary":"","confidence":0.5,"extra":1}`)
	for _, want := range []struct {
		err   error
		field string
	}{
		{ErrMissingField, "clarification_question"},
		{ErrFieldType, "clarification_needed"},
		{ErrUnknownField, "extra"},
	} {
		if !hasField(err, want.err, want.field) {
			t.Errorf("error %q lacks %v on %q", err, want.err, want.field)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ParseStrict(withThink("Comparison: Old value: Berlin. New value: Lisbon.\n", ""))
	want := `missing think step "Comparison:": no line starts with it (at byte 7)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestParseLenientRecovers(t *testing.T) {
	supersede := Verdict{Status: StatusConflict, ConflictType: TypeExplicitNegation, Action: ActionSupersede,
		Links: []Link{{LinkSupersedes, RefNew, RefOld}}, Confidence: DefaultConfidence}
	consistent := Verdict{Status: StatusConsistent, ConflictType: TypeNone, Action: ActionKeep, Links: []Link{}, Confidence: DefaultConfidence}
	tests := []struct {
		name  string
		text  string
		want  Verdict
		steps Steps
	}{
		{"json only", baseJSON, baseVerdict, Steps{}},
		{"code fence with prose", "Here is the audit.\n```json\n" + baseJSON + "\n```\nLet me know if you need more.", baseVerdict, Steps{}},
		{"think then fenced json", baseThink + "```json\n" + baseJSON + "\n```", baseVerdict,
			Steps{Slot: "Both texts are about the user's home.", Comparison: "Old value: Berlin. New value: Lisbon.", ConflictType: "temporal_update: the user moved.", Action: "transition: Berlin becomes the past home."}},
		{"last object wins", `{"status":"consistent"} and on reflection ` + baseJSON, baseVerdict, Steps{}},
		{"object inside the think block only", "<think>\n" + baseJSON + "\n</think>\nDone.", baseVerdict, Steps{}},
		{"think opened by the template only", "Slot: home.\nComparison: differs.\n</think>\n" + baseJSON, baseVerdict, Steps{Slot: "home.", Comparison: "differs."}},
		{"unclosed think", "<think>\nSlot: home\n" + baseJSON, baseVerdict, Steps{Slot: "home"}},
		{"markdown labels", "**Slot:** home\n**Conflict Type**: temporal\n1. Action: transition\n" + baseJSON, baseVerdict, Steps{Slot: "home", ConflictType: "temporal", Action: "transition"}},
		{"enum spellings", `{"status":"CONFLICT","conflict_type":"Temporal Update","action":"Transition","links":[{"type":"EvolvesFrom","from":"New","to":"OLD"}],"transition_summary":"home: Berlin -> Lisbon","confidence":0.9}`, baseVerdict, Steps{}},
		{"camel case keys and synonyms", `{"Status":"contradiction","conflictType":"TemporalUpdate","fusionAction":"evolve","clarificationNeeded":false,"suggestedLinks":["evolves_from"],"summary":"home: Berlin -> Lisbon","confidence":"90%"}`, baseVerdict, Steps{}},
		{"hyphens", `{"status":"conflict","conflict-type":"explicit-negation","action":"replace"}`, supersede, Steps{}},
		{"wrapped in verdict", `{"verdict":` + baseJSON + `}`, baseVerdict, Steps{}},
		{"status as verdict string", `{"verdict":"consistent"}`, consistent, Steps{}},
		{"trailing commas and python literals", `{"status":"conflict","conflict_type":"implicit_violation","action":"keep","clarification_needed":True,"clarification_question":"Still vegan?","links":[],"transition_summary":None,"confidence":0.7,}`,
			Verdict{Status: StatusConflict, ConflictType: TypeImplicitViolation, Action: ActionKeep, ClarificationNeeded: true, ClarificationQuestion: "Still vegan?", Links: []Link{}, Confidence: 0.7}, Steps{}},
		{"missing optional fields", `{"status":"consistent","conflict_type":"none","action":"keep"}`, consistent, Steps{}},
		{"missing action takes the type's default", `{"status":"conflict","conflict_type":"explicit_negation"}`, supersede, Steps{}},
		{"missing status inferred from the type", `{"conflict_type":"negation","action":"supersede"}`, supersede, Steps{}},
		{"status with a remark", `{"status":"conflict (negation)","conflict_type":"explicit_negation"}`, supersede, Steps{}},
		{"no conflict is consistent", `{"status":"no conflict"}`, consistent, Steps{}},
		{"percentage confidence", `{"status":"consistent","confidence":85}`, withConfidence(consistent, 0.85), Steps{}},
		{"confidence clamped", `{"status":"consistent","confidence":-3}`, withConfidence(consistent, 0), Steps{}},
		{"consistent with a conflict type", `{"status":"consistent","conflict_type":"temporal_update","action":"transition","links":[{"type":"evolves_from","from":"new","to":"old"}]}`, consistent, Steps{}},
		{"unrelated with supersede", `{"status":"unrelated","conflict_type":"none","action":"supersede","links":["supersedes"]}`,
			Verdict{Status: StatusUnrelated, ConflictType: TypeNone, Action: ActionKeep, Links: []Link{}, Confidence: DefaultConfidence}, Steps{}},
		{"keep on a conflict gets a question", `{"status":"conflict","conflict_type":"value_discrepancy","action":"keep"}`,
			Verdict{Status: StatusConflict, ConflictType: TypeValueDiscrepancy, Action: ActionKeep, ClarificationNeeded: true, ClarificationQuestion: genericQuestion, Links: []Link{}, Confidence: DefaultConfidence}, Steps{}},
		{"question implies clarification", `{"status":"conflict","conflict_type":"implicit_violation","action":"keep","clarification_question":"Still in Paris?"}`,
			Verdict{Status: StatusConflict, ConflictType: TypeImplicitViolation, Action: ActionKeep, ClarificationNeeded: true, ClarificationQuestion: "Still in Paris?", Links: []Link{}, Confidence: DefaultConfidence}, Steps{}},
		{"action the type does not allow", `{"status":"conflict","conflict_type":"scope_mismatch","action":"transition"}`,
			Verdict{Status: StatusConflict, ConflictType: TypeScopeMismatch, Action: ActionScopedException, Links: []Link{{LinkScopedException, RefNew, RefOld}}, Confidence: DefaultConfidence}, Steps{}},
		{"transition gets a summary", `{"status":"conflict","conflict_type":"temporal_update","action":"transition"}`,
			Verdict{Status: StatusConflict, ConflictType: TypeTemporalUpdate, Action: ActionTransition, Links: []Link{{LinkEvolvesFrom, RefNew, RefOld}}, TransitionSummary: genericSummary, Confidence: DefaultConfidence}, Steps{}},
		{"link turned round", `{"status":"conflict","conflict_type":"explicit_negation","action":"supersede","links":[{"type":"supersedes","from":"old","to":"new"}],"confidence":0.5}`, supersede, Steps{}},
		{"duplicate links dropped", `{"status":"conflict","conflict_type":"explicit_negation","action":"supersede","links":["supersedes","supersedes",{"type":"nonsense"}],"confidence":0.5}`, supersede, Steps{}},
		{"type from the think step", "<think>\nConflict type: explicit_negation, they broke up\n</think>\n" + `{"status":"conflict","conflict_type":"none"}`, supersede, Steps{ConflictType: "explicit_negation, they broke up"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseLenient(tt.text)
			if err != nil {
				t.Fatalf("ParseLenient: %v", err)
			}
			if diff := cmp.Diff(tt.want, a.Verdict); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if err := a.Verdict.Validate(); err != nil {
				t.Errorf("ParseLenient returned an invalid verdict: %v", err)
			}
			if diff := cmp.Diff(tt.steps, a.Steps); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}

func withConfidence(v Verdict, c float64) Verdict {
	v.Confidence = c
	return v
}

func TestParseLenientFails(t *testing.T) {
	tests := []struct {
		name string
		text string
		want error
	}{
		{"no json", "The two statements conflict: temporal update.", ErrNoJSON},
		{"unclosed object", `{"status":"conflict"`, ErrNoJSON},
		{"no status", `{"confidence":0.9}`, ErrMissingField},
		{"unknown status", `{"status":"maybe"}`, ErrInvalidEnum},
		{"unknown type", `{"status":"conflict","conflict_type":"vibes"}`, ErrInvalidEnum},
		{"conflict of no type", `{"status":"conflict","action":"supersede"}`, ErrInconsistent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLenient(tt.text)
			if !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNormEnum(t *testing.T) {
	for in, want := range map[string]string{
		"TemporalUpdate":   "temporal_update",
		"temporal update":  "temporal_update",
		"Temporal-Update ": "temporal_update",
		"SCOPE_MISMATCH":   "scope_mismatch",
		"n/a":              "n_a",
		"  ":               "",
	} {
		if got := normEnum(in); got != want {
			t.Errorf("normEnum(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSynonymTablesMapCanonicalNames(t *testing.T) {
	for _, s := range statuses {
		if statusSynonyms[string(s)] != s {
			t.Errorf("status %s does not map to itself", s)
		}
	}
	for _, c := range conflictTypes {
		if typeSynonyms[string(c)] != c {
			t.Errorf("type %s does not map to itself", c)
		}
	}
	for _, a := range actions {
		if actionSynonyms[string(a)] != a {
			t.Errorf("action %s does not map to itself", a)
		}
	}
	for _, l := range linkTypes {
		if linkSynonyms[string(l)] != l {
			t.Errorf("link type %s does not map to itself", l)
		}
	}
	for _, f := range verdictFields() {
		if keySynonyms[normKey(f)] != f {
			t.Errorf("field %s does not map to itself", f)
		}
	}
}

// TestParseThinkAndVerdictApart checks the two halves ParseStrict is made of, as the GRPO
// reward uses them: a faulty block keeps its end, and the verdict after it is read alone.
func TestParseThinkAndVerdictApart(t *testing.T) {
	text := withThink("Comparison: Old value: Berlin. New value: Lisbon.\n", "")
	_, end, err := ParseThink(text)
	if !errors.Is(err, ErrMissingStep) || end < 0 || !strings.HasPrefix(strings.TrimSpace(text[end:]), "{") {
		t.Fatalf("ParseThink = end %d, %v; want the end of the block and ErrMissingStep", end, err)
	}
	if _, err := ParseVerdict(text[end:]); err != nil {
		t.Errorf("ParseVerdict of the conclusion: %v", err)
	}
	if _, end, err := ParseThink(baseJSON); end != -1 || !errors.Is(err, ErrNoThink) {
		t.Errorf("ParseThink without a block = %d, %v; want -1, ErrNoThink", end, err)
	}
	_, err = ParseVerdict("  Verdict: " + baseJSON)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Err != ErrExtraText || pe.Offset != 2 {
		t.Errorf("ParseVerdict of a preamble = %v; want ErrExtraText at byte 2", err)
	}
}

func TestJoinReasoning(t *testing.T) {
	tests := []struct {
		name, reasoning, content, want string
	}{
		{"no reasoning", "", baseJSON, baseJSON},
		{"white space only", " \n\t", baseJSON, baseJSON},
		{"put back", "\nSlot: home.\n", "\n  " + baseJSON, "<think>\nSlot: home.\n</think>\n" + baseJSON},
		{"content has the block", "Slot: home.", baseThink + baseJSON, baseThink + baseJSON},
		{"content closes a block", "Slot: home.", "Slot: home.\n</think>\n" + baseJSON, "Slot: home.\n</think>\n" + baseJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JoinReasoning(tt.reasoning, tt.content); got != tt.want {
				t.Errorf("JoinReasoning = %q, want %q", got, tt.want)
			}
		})
	}
}
