package reward

import (
	"strings"
	"testing"

	"github.com/atma-dev/atma/grpo/grpotest"
)

func TestDefaultConfig(t *testing.T) {
	rc := DefaultConfig()
	if err := rc.Validate(); err != nil {
		t.Fatalf("default reward config: %v", err)
	}
	// The paper's format values.
	if rc.Format != (FormatValues{Full: 1, TagsOnly: 0.5, None: 0}) || rc.Verdict.Parse != ParseStrict {
		t.Errorf("format %+v, parse %q", rc.Format, rc.Verdict.Parse)
	}
}

func TestLoadConfig(t *testing.T) {
	c, err := LoadConfig(strings.NewReader(`{"weights":{"echo":2},"echo":{"ngram":6}}`))
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultConfig()
	if c.Weights.Echo != 2 || c.Echo.NGram != 6 || c.Weights.Verdict != def.Weights.Verdict || c.Echo.FreeRatio != def.Echo.FreeRatio {
		t.Errorf("overlay: %+v", c)
	}
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"unknown key", `{"weights":{"formatt":1}}`, []string{`unknown field "formatt"`}},
		{"unknown section", `{"bonus":{}}`, []string{`unknown field "bonus"`}},
		{"trailing data", `{} {}`, []string{"data after the JSON object"}},
		{"not JSON", `weights: 1`, []string{"read reward config"}},
		{"every bad value at once", `{"weights":{"format":-1},"verdict":{"parse":"loose"},"length":{"min_words":50,"max_words":10},
			"echo":{"ngram":1,"penalty":0.5},"preservation":{"destroy":1},"limits":{"max_completion_bytes":0}}`,
			[]string{"weights.format", "verdict.parse", "length wants", "echo.ngram", "echo.penalty", "preservation.destroy", "limits.max_completion_bytes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(strings.NewReader(tt.in))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseLabel(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // "" for success
	}{
		{"gold object", `{"status":"conflict","conflict_type":"temporal_update","action":"transition"}`, ""},
		{"string holding JSON", `"{\"status\":\"unrelated\",\"conflict_type\":\"none\",\"action\":\"keep\"}"`, ""},
		{"with values", `{"status":"conflict","conflict_type":"implicit_violation","action":"keep","implicit":true,"old_value":"vegetarian"}`, ""},
		{"null", `null`, "no gold label"},
		{"empty string", `""`, "no gold label"},
		{"no status", `{"old_value":"x"}`, "no gold label"},
		{"unknown key", `{"status":"consistent","conflict_type":"none","action":"keep","labels":[]}`, `unknown field "labels"`},
		{"not an object", `[1,2]`, "want a JSON object"},
		{"inconsistent", `{"status":"consistent","conflict_type":"value_discrepancy","action":"supersede"}`, "conflict type none"},
		{"action the type does not take", `{"status":"conflict","conflict_type":"value_discrepancy","action":"transition"}`, "does not take action transition"},
		{"bad enums", `{"status":"maybe","conflict_type":"x","action":"y"}`, "status \"maybe\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseLabel([]byte(tt.in))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.want == "" && !l.Present():
				t.Error("label not present")
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if s := LabelFor(grpotest.ItemDiet).Stratum(); s != "conflict/implicit_violation/implicit" {
		t.Errorf("stratum %q", s)
	}
}
