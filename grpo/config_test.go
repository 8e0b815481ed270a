package grpo

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDefaultConfigs(t *testing.T) {
	rc := DefaultRewardConfig()
	if err := rc.Validate(); err != nil {
		t.Fatalf("default reward config: %v", err)
	}
	// The paper's format values.
	if rc.Format != (FormatValues{Full: 1, TagsOnly: 0.5, None: 0}) || rc.Verdict.Parse != ParseStrict {
		t.Errorf("format %+v, parse %q", rc.Format, rc.Verdict.Parse)
	}
	c := DefaultRunConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("default run config: %v", err)
	}
	// The paper's training settings.
	if c.Steps != 200 || c.PerDeviceBatch != 1 || c.GradAccum != 4 || c.PromptsPerStep() != 4 || c.Generations != 2 ||
		c.MaxCompletionTokens != 400 || !near(c.KLCoef, 0.04) {
		t.Errorf("run defaults %+v", c)
	}
	if c.Reward != rc {
		t.Error("the run config's reward is not the default reward")
	}
}

func TestLoadRewardConfig(t *testing.T) {
	c, err := LoadRewardConfig(strings.NewReader(`{"weights":{"echo":2},"echo":{"ngram":6}}`))
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultRewardConfig()
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
			_, err := LoadRewardConfig(strings.NewReader(tt.in))
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

func TestLoadRunConfig(t *testing.T) {
	c, err := LoadRunConfig(strings.NewReader(`{"steps":50,"reward":{"weights":{"length":0}},"advantage":{"scale":"none"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Steps != 50 || c.Reward.Weights.Length != 0 || c.Reward.Weights.Verdict != 2 || c.Advantage.Scale != ScaleNone || c.Generations != 2 {
		t.Errorf("overlay: %+v", c)
	}
	_, err = LoadRunConfig(strings.NewReader(`{"steps":0,"generations":0,"temperature":3,"prompts":{"source":"file"},"reward":{"weights":{"lenght":1}}}`))
	if err == nil || !strings.Contains(err.Error(), `unknown field "lenght"`) {
		t.Errorf("unknown nested key: %v", err)
	}
	_, err = LoadRunConfig(strings.NewReader(`{"steps":0,"generations":0,"temperature":3,"prompts":{"source":"file"},"eval":{"concurrency":0}}`))
	for _, w := range []string{"steps is 0", "generations is 0", "temperature is 3", "prompts.path is empty", "eval.concurrency"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
	// A stored config.json reads back into the same configuration.
	def := DefaultRunConfig()
	b, _ := json.Marshal(def)
	back, err := LoadRunConfig(bytes.NewReader(b))
	if err != nil || !bytes.Equal(comparable(back), comparable(def)) {
		t.Errorf("round trip: %v", err)
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
	if s := LabelFor(itemDiet).Stratum(); s != "conflict/implicit_violation/implicit" {
		t.Errorf("stratum %q", s)
	}
}

func TestWriteDataset(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteDataset(&buf, trainItems); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d rows", len(lines))
	}
	var row DatasetRow
	if err := decodeStrict(strings.NewReader(lines[1]), &row); err != nil {
		t.Fatal(err)
	}
	l, err := ParseLabel([]byte(`"` + strings.ReplaceAll(row.Label, `"`, `\"`) + `"`))
	if err != nil || l != LabelFor(itemDiet) || row.DataSource != DataSource || row.ExtraInfo.Prompt != promptOf(itemDiet) || len(row.Messages) != 2 {
		t.Errorf("row %+v, label %+v, %v", row, l, err)
	}
}
