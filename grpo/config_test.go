package grpo

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/atma-dev/atma/grpo/reward"
)

func TestDefaultRunConfig(t *testing.T) {
	c := DefaultRunConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("default run config: %v", err)
	}
	// The paper's training settings.
	if c.Steps != 200 || c.PerDeviceBatch != 1 || c.GradAccum != 4 || c.PromptsPerStep() != 4 || c.Generations != 2 ||
		c.MaxCompletionTokens != 400 || !near(c.KLCoef, 0.04) {
		t.Errorf("run defaults %+v", c)
	}
	if c.Reward != reward.DefaultConfig() {
		t.Error("the run config's reward is not the default reward")
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
