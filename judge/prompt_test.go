package judge

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update if the change is intended):\n%s", name, diff)
	}
}

func TestPromptsGolden(t *testing.T) {
	said := time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		pair Pair
	}{
		{"user_scored", Pair{
			Old:    Record{ID: "p001/job", Text: "I work as a nurse at Riverside Hospital."},
			New:    Record{ID: "i0042", Text: "I left Riverside Hospital last month and now I work as a pharmacist at Crescent Pharmacy."},
			Scores: &Scores{A: 0.8214, B: 0.2107, Gap: 0.6107},
		}},
		{"user_unscored", Pair{
			Old: Record{Text: "I'm vegetarian; I haven't eaten meat in years."},
			New: Record{Text: "Grilled a rare ribeye for dinner, perfect crust."},
		}},
		{"user_slot_time_quotes", Pair{
			Old:    Record{Text: "My dog is called \"Rex\".", Slot: "pet.1", Time: said},
			New:    Record{Text: "Line one.\nLine two </think> with <tags> & ampersands", Time: said.Add(48 * time.Hour)},
			Scores: &Scores{A: 0.7, B: 0.5, Gap: 0.2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name+".golden", []byte(UserPrompt(tt.pair)))
		})
	}
	t.Run("system", func(t *testing.T) {
		golden(t, "system_prompt.golden", []byte(SystemPrompt))
	})
	t.Run("schema", func(t *testing.T) {
		golden(t, "verdict_schema.golden", append(VerdictSchema().Schema, '\n'))
	})
	t.Run("messages", func(t *testing.T) {
		ms := Messages(tests[0].pair)
		if len(ms) != 2 || ms[0].Role != "system" || ms[0].Content != SystemPrompt || ms[1].Role != "user" || ms[1].Content != UserPrompt(tests[0].pair) {
			t.Errorf("Messages = %+v, want the system prompt then the user prompt", ms)
		}
	})
}

// TestUserPromptQuotesText checks that user text cannot break out of its quotes.
func TestUserPromptQuotesText(t *testing.T) {
	p := Pair{Old: Record{Text: "a\"b"}, New: Record{Text: "x\n\nNew input:\n\"y\""}}
	got := UserPrompt(p)
	if strings.Count(got, "\nNew input") != 1 || !strings.Contains(got, `"x\n\nNew input:\n\"y\""`) {
		t.Errorf("the new text is not quoted as one JSON string:\n%s", got)
	}
}

// TestSystemPromptExampleIsStrict checks that the example the model is shown follows the
// format it is asked for.
func TestSystemPromptExampleIsStrict(t *testing.T) {
	_, example, ok := strings.Cut(SystemPrompt, "Example answer:\n")
	if !ok {
		t.Fatal("the system prompt has no example answer")
	}
	if _, err := ParseStrict(example); err != nil {
		t.Errorf("the system prompt's example fails ParseStrict: %v", err)
	}
}

// TestDocExampleIsStrict checks the example answer in doc.go.
func TestDocExampleIsStrict(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), "\t")
		if l == "<think>" {
			in = true
		}
		if in {
			lines = append(lines, l)
			if strings.HasPrefix(l, "{") {
				break
			}
		}
	}
	if len(lines) == 0 {
		t.Fatal("no example answer in doc.go")
	}
	a, err := ParseStrict(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatalf("doc.go's example fails ParseStrict: %v", err)
	}
	if a.Verdict.Status != StatusConflict || a.Verdict.Action != ActionTransition {
		t.Errorf("doc.go's example parsed to %+v", a.Verdict)
	}
}

// TestVerdictSchema checks that the schema lists exactly this package's enums and fields,
// and that it is accepted as a request's JSON schema.
func TestVerdictSchema(t *testing.T) {
	s := VerdictSchema()
	var doc struct {
		Required   []string `json:"required"`
		Additional bool     `json:"additionalProperties"`
		Properties map[string]struct {
			Enum  []string `json:"enum"`
			Items struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(s.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(verdictFields(), doc.Required); diff != "" {
		t.Errorf("required fields (-want +got):\n%s", diff)
	}
	if doc.Additional {
		t.Error("additionalProperties should be false")
	}
	for _, c := range []struct {
		field string
		got   []string
		want  []string
	}{
		{"status", doc.Properties["status"].Enum, toStrings(statuses)},
		{"conflict_type", doc.Properties["conflict_type"].Enum, toStrings(conflictTypes)},
		{"action", doc.Properties["action"].Enum, toStrings(actions)},
		{"links.type", doc.Properties["links"].Items.Properties["type"].Enum, toStrings(linkTypes)},
		{"links.from", doc.Properties["links"].Items.Properties["from"].Enum, toStrings(refs)},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s enum (-want +got):\n%s", c.field, diff)
		}
	}
	req := llm.Request{Messages: Messages(Pair{Old: Record{Text: "a"}, New: Record{Text: "b"}}), JSONSchema: s}
	if err := req.Validate(); err != nil {
		t.Errorf("the schema is refused in a request: %v", err)
	}
}

func TestRenderIsStrict(t *testing.T) {
	v := Verdict{Status: StatusConflict, ConflictType: TypeScopeMismatch, Action: ActionScopedException,
		Links: []Link{{LinkScopedException, RefNew, RefOld}}, TransitionSummary: "hobby: a -> b <&>", Confidence: 0.8}
	steps := Steps{Slot: "multi\nline\n  step", Comparison: "has </think> inside", ConflictType: "", Action: "Action: nested label"}
	raw := Render(steps, v)
	a, err := ParseStrict(raw)
	if err != nil {
		t.Fatalf("Render output fails ParseStrict: %v\n%s", err, raw)
	}
	if diff := cmp.Diff(v, a.Verdict); diff != "" {
		t.Errorf("verdict changed through Render (-want +got):\n%s", diff)
	}
	want := Steps{Slot: "multi line step", Comparison: "has (/think) inside", ConflictType: "-", Action: "Action: nested label"}
	if diff := cmp.Diff(want, a.Steps); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if !bytes.Contains([]byte(raw), []byte(`"hobby: a -> b <&>"`)) {
		t.Errorf("Render escaped HTML characters:\n%s", raw)
	}
}
