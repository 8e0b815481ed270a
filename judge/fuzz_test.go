package judge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parserSeeds are answers of every shape the parsers meet: valid, broken and recoverable.
func parserSeeds() []string {
	return []string{
		baseThink + baseJSON,
		"  " + strings.ReplaceAll(baseThink+baseJSON, "\n", "\r\n") + "\n",
		baseJSON,
		baseThink,
		baseThink + "```json\n" + baseJSON + "\n```",
		baseThink + baseJSON + baseJSON,
		withJSON(`"conflict"`, `"Conflict"`),
		withJSON(`0.9`, `1e400`),
		withThink("Slot:", "slot:"),
		`{"verdict":{"Status":"contradiction","conflictType":"TemporalUpdate",}}`,
		`<think>{"a":"</think>"}</think>{"status":"consistent","confidence":"85%"}`,
		"<think>\nSlot: a\nComparison: b\nConflict type: c\nAction: d\n</think>\n{\"status\":\"unrelated\",\"conflict_type\":\"none\",\"action\":\"keep\",\"clarification_needed\":false,\"clarification_question\":\"\",\"links\":[],\"transition_summary\":\"\",\"confidence\":0}",
		`{"status":"conflict","links":[{"type":"supersedes","from":"old"}],"clarification":{"needed":true}}`,
		"{\"status\":\"consistent\",\"x\":\"\\\"}{\"}",
		"{{{[[[\"",
	}
}

// FuzzParseStrict checks that ParseStrict never panics, that what it accepts is a valid
// verdict that survives Render, and that ParseLenient accepts it with the same verdict.
func FuzzParseStrict(f *testing.F) {
	for _, s := range parserSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := ParseStrict(text)
		if err != nil {
			return
		}
		if err := a.Verdict.Validate(); err != nil {
			t.Fatalf("ParseStrict accepted an invalid verdict: %v", err)
		}
		l, err := ParseLenient(text)
		if err != nil {
			t.Fatalf("ParseLenient refuses what ParseStrict accepts: %v", err)
		}
		if diff := cmp.Diff(a.Verdict, l.Verdict); diff != "" {
			t.Fatalf("verdicts differ (-strict +lenient):\n%s", diff)
		}
		r, err := ParseStrict(Render(a.Steps, a.Verdict))
		if err != nil {
			t.Fatalf("Render of an accepted answer fails ParseStrict: %v", err)
		}
		if diff := cmp.Diff(a.Verdict, r.Verdict); diff != "" {
			t.Fatalf("verdict changed through Render (-parsed +rendered):\n%s", diff)
		}
	})
}

// FuzzParseLenient checks that ParseLenient never panics and only returns valid verdicts.
func FuzzParseLenient(f *testing.F) {
	for _, s := range parserSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := ParseLenient(text)
		if err != nil {
			return
		}
		if err := a.Verdict.Validate(); err != nil {
			t.Fatalf("ParseLenient returned an invalid verdict: %v\n%+v", err, a.Verdict)
		}
	})
}
