package sentry

import (
	"errors"
	"fmt"
	"math"

	"github.com/atma-dev/atma/sentry/gate"
)

// Defaults for the zero Config.
const (
	DefaultHidden       = 512
	DefaultOut          = 256
	DefaultLR           = 1e-3
	DefaultWeightDecay  = 0.01
	DefaultBeta1        = 0.9
	DefaultBeta2        = 0.999
	DefaultEps          = 1e-8
	DefaultBatchSize    = 64
	DefaultEpochs       = 10
	DefaultSeed         = 1
	DefaultTargetRecall = 0.95
	DefaultGridStep     = 0.02
	DefaultPairHidden   = 64
)

// Learning-rate schedules.
const (
	ScheduleConstant = "constant" // lr stays at Config.LR after warm-up
	ScheduleCosine   = "cosine"   // cosine decay from Config.LR to 0 over all steps after warm-up
)

// Config holds the training hyper-parameters. Its zero value means the defaults: hidden 512,
// out 256, the paper's cosine logic head (a pair head has 64 hidden units), α = β = 1,
// lr 1e-3, weight decay 0.01, AdamW betas 0.9/0.999, ε 1e-8, batch 64, 10 epochs, seed 1,
// constant schedule, no early stopping, default gate thresholds, and calibration for 0.95
// conflict recall on a 0.02 grid. Because zero means "default", a field
// cannot be set to zero by leaving it zero: NoWeightDecay turns weight decay off, and Seed 0
// means seed 1.
type Config struct {
	Hidden int `json:"hidden"` // width of each head's hidden layer
	Out    int `json:"out"`    // width of each head's normalised output

	// Logic is how the logic similarity b is computed: gate.LogicCosine (the paper's head, the
	// default) or gate.LogicPair (a pair head over the two logic vectors, trained with them).
	Logic      string `json:"logic,omitempty"`
	PairHidden int    `json:"pair_hidden,omitempty"` // hidden width of the pair head; 0 means 64

	Alpha float64 `json:"alpha"` // weight of the topic head's squared error
	Beta  float64 `json:"beta"`  // weight of the logic head's squared error

	LR            float64 `json:"lr"`              // peak learning rate
	WeightDecay   float64 `json:"weight_decay"`    // decoupled (AdamW) weight decay λ, applied to every parameter
	NoWeightDecay bool    `json:"no_weight_decay"` // train with λ = 0
	Beta1         float64 `json:"beta1"`           // AdamW first-moment decay
	Beta2         float64 `json:"beta2"`           // AdamW second-moment decay
	Eps           float64 `json:"eps"`             // AdamW denominator epsilon
	Schedule      string  `json:"schedule"`        // ScheduleConstant (default) or ScheduleCosine
	WarmupSteps   int     `json:"warmup_steps"`    // linear warm-up from 0 to LR over this many steps

	BatchSize int    `json:"batch_size"` // examples per step; the last batch of an epoch may be smaller
	Epochs    int    `json:"epochs"`     // epochs to train (a resumed run continues up to this many)
	Patience  int    `json:"patience"`   // stop after this many epochs without a better validation loss; 0 = never
	Seed      uint64 `json:"seed"`       // seeds initialisation and the per-epoch shuffles

	// Thresholds are the gate thresholds written into checkpoints until calibration replaces
	// them; all three zero means gate.DefaultThresholds.
	Thresholds gate.Thresholds `json:"thresholds"`

	// Calibration picks thresholds on the validation split after training.
	Calibration CalibrationConfig `json:"calibration"`
}

// CalibrationConfig controls the threshold grid search.
type CalibrationConfig struct {
	Skip         bool    `json:"skip"`          // keep Config.Thresholds; do not calibrate
	TargetRecall float64 `json:"target_recall"` // minimum conflict recall; 0 means 0.95
	Step         float64 `json:"step"`          // grid step for τ_top, τ_log (over [-1, 1]) and τ_gap (over [-2, 2]); 0 means 0.02
}

// withDefaults returns c with every zero field replaced by its default.
func (c Config) withDefaults() Config {
	setInt := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	setF := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	setInt(&c.Hidden, DefaultHidden)
	setInt(&c.Out, DefaultOut)
	if c.Logic == "" {
		c.Logic = gate.LogicCosine
	}
	if c.Logic == gate.LogicPair {
		setInt(&c.PairHidden, DefaultPairHidden)
	}
	setF(&c.Alpha, 1)
	setF(&c.Beta, 1)
	setF(&c.LR, DefaultLR)
	if c.NoWeightDecay {
		c.WeightDecay = 0
	} else {
		setF(&c.WeightDecay, DefaultWeightDecay)
	}
	setF(&c.Beta1, DefaultBeta1)
	setF(&c.Beta2, DefaultBeta2)
	setF(&c.Eps, DefaultEps)
	if c.Schedule == "" {
		c.Schedule = ScheduleConstant
	}
	setInt(&c.BatchSize, DefaultBatchSize)
	setInt(&c.Epochs, DefaultEpochs)
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.Thresholds == (gate.Thresholds{}) {
		c.Thresholds = gate.DefaultThresholds()
	}
	c.Calibration = c.Calibration.withDefaults()
	return c
}

func (c CalibrationConfig) withDefaults() CalibrationConfig {
	if c.TargetRecall == 0 {
		c.TargetRecall = DefaultTargetRecall
	}
	if c.Step == 0 {
		c.Step = DefaultGridStep
	}
	return c
}

// Validate reports every problem with c at once. Zero fields are valid (they mean defaults).
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	finite := func(name string, v float64) bool {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad("%s is %v", name, v)
			return false
		}
		return true
	}
	if c.Hidden < 0 {
		bad("hidden size %d is negative", c.Hidden)
	}
	if c.Out < 0 {
		bad("output size %d is negative", c.Out)
	}
	switch c.Logic {
	case "", gate.LogicCosine, gate.LogicPair:
	default:
		bad("unknown logic head %q (want %q or %q)", c.Logic, gate.LogicCosine, gate.LogicPair)
	}
	if c.PairHidden < 0 {
		bad("pair head hidden size %d is negative", c.PairHidden)
	}
	if c.PairHidden > 0 && c.Logic != gate.LogicPair {
		bad("pair head hidden size %d is set without logic head %q", c.PairHidden, gate.LogicPair)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"alpha", c.Alpha}, {"beta", c.Beta}, {"learning rate", c.LR}, {"weight decay", c.WeightDecay}, {"eps", c.Eps}} {
		if finite(f.name, f.v) && f.v < 0 {
			bad("%s %v is negative", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"beta1", c.Beta1}, {"beta2", c.Beta2}} {
		if finite(f.name, f.v) && (f.v < 0 || f.v >= 1) {
			bad("%s %v is outside [0, 1)", f.name, f.v)
		}
	}
	if c.NoWeightDecay && c.WeightDecay != 0 {
		bad("weight decay %v is set together with NoWeightDecay", c.WeightDecay)
	}
	switch c.Schedule {
	case "", ScheduleConstant, ScheduleCosine:
	default:
		bad("unknown schedule %q (want %q or %q)", c.Schedule, ScheduleConstant, ScheduleCosine)
	}
	if c.WarmupSteps < 0 {
		bad("warm-up steps %d is negative", c.WarmupSteps)
	}
	if c.BatchSize < 0 {
		bad("batch size %d is negative", c.BatchSize)
	}
	if c.Epochs < 0 {
		bad("epochs %d is negative", c.Epochs)
	}
	if c.Patience < 0 {
		bad("patience %d is negative", c.Patience)
	}
	if err := c.Thresholds.Validate(); err != nil {
		errs = append(errs, err)
	}
	cal := c.Calibration
	if finite("target recall", cal.TargetRecall) && (cal.TargetRecall < 0 || cal.TargetRecall > 1) {
		bad("target recall %v is outside (0, 1]", cal.TargetRecall)
	}
	if finite("calibration step", cal.Step) && (cal.Step < 0 || cal.Step > 1) {
		bad("calibration step %v is outside (0, 1]", cal.Step)
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid sentry config: %w", errors.Join(errs...))
	}
	return nil
}
