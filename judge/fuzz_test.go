package judge

import (
	"bytes"
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

// FuzzReadItems checks that ReadItems never panics and that what it reads survives a
// write and a second read.
func FuzzReadItems(f *testing.F) {
	items := tinyItems()
	var buf bytes.Buffer
	if err := WriteItems(&buf, items); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`{"id":"x","pair":{"old":{"text":"a"},"new":{"text":"b"}},"gold":{"status":"conflict","conflict_type":"none","action":"keep"}}`)
	f.Add("\n\n{}\n[1]\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadItems(strings.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteItems(&out, got); err != nil {
			t.Fatalf("WriteItems: %v", err)
		}
		again, err := ReadItems(&out)
		if err != nil {
			t.Fatalf("ReadItems refuses what WriteItems wrote: %v", err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("items changed through a write (-first +second):\n%s", diff)
		}
	})
}

// FuzzRuleAuditor checks that the rule auditor never panics on any text and always
// answers with a valid verdict in the audit format.
func FuzzRuleAuditor(f *testing.F) {
	f.Add("I live in Paris.", "We moved to Berlin last week.")
	f.Add("I'm 1.75 m tall.", "I'm 175 cm tall, not 1.80 m.")
	f.Add("I'm vegan.", "Grabbed an oat milk latte.")
	f.Add("My job? A nurse at the city council.", "guess who's the new GP at St. Mary's? me!")
	f.Add("", "\xff\xfe")
	r := &RuleAuditor{}
	f.Fuzz(func(t *testing.T, old, new string) {
		res, err := r.Audit(t.Context(), Pair{Old: Record{Text: old}, New: Record{Text: new}, Scores: &Scores{A: 0.7, B: 0.2, Gap: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Verdict.Validate(); err != nil {
			t.Fatalf("invalid verdict: %v", err)
		}
		if _, err := ParseStrict(res.Raw); err != nil {
			t.Fatalf("Raw fails ParseStrict: %v\n%s", err, res.Raw)
		}
	})
}
