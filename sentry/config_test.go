package sentry

import (
	"math"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
)

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
	d := Config{}.withDefaults()
	if d.Hidden != 512 || d.Out != 256 || d.Alpha != 1 || d.Beta != 1 || d.LR != 1e-3 || d.WeightDecay != 0.01 ||
		d.BatchSize != 64 || d.Epochs != 10 || d.Seed != 1 || d.Thresholds != gate.DefaultThresholds() || d.Calibration.TargetRecall != 0.95 {
		t.Errorf("defaults %+v", d)
	}
	if (Config{NoWeightDecay: true}).withDefaults().WeightDecay != 0 {
		t.Error("NoWeightDecay kept a weight decay")
	}
	bad := Config{Hidden: -1, Alpha: math.NaN(), LR: -1, Beta1: 1, Schedule: "linear", BatchSize: -2, Patience: -1,
		Thresholds: gate.Thresholds{Top: math.Inf(1)}, Calibration: CalibrationConfig{TargetRecall: 1.5}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{"hidden size -1", "alpha is NaN", "learning rate -1", "beta1 1", `schedule "linear"`, "batch size -2", "patience -1", "tau_top is +Inf", "target recall 1.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
