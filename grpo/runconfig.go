package grpo

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/atma-dev/atma/grpo/reward"
)

//go:embed run.json
var defaultRunJSON []byte

// RunConfig configures Run. Its JSON form is the run config file; the defaults, the
// paper's settings, are embedded from run.json: 200 steps of per-device batch 1 ×
// gradient accumulation 4 = 4 prompts, 2 generations per prompt, completions of at most
// 400 tokens, KL coefficient 0.04 (the paper's LoRA rank 16, α 32 and learning rate 2e-5
// are the external trainer's, set in scripts/grpo). Start from DefaultRunConfig or
// LoadRunConfig: the zero value is not the default, because several fields take 0 as a
// meaningful value (kl_coef, eval.every).
type RunConfig struct {
	// Dir is the run directory (set by the caller, not stored in the file).
	Dir string `json:"-"`

	// Steps is the number of optimisation steps.
	Steps int `json:"steps"`
	// PerDeviceBatch × GradAccum × Devices prompts are sampled per step.
	PerDeviceBatch int `json:"per_device_batch"`
	GradAccum      int `json:"grad_accum"`
	Devices        int `json:"devices"`
	// Generations is G, the completions per prompt.
	Generations int `json:"generations"`
	// MaxCompletionTokens bounds each completion.
	MaxCompletionTokens int     `json:"max_completion_tokens"`
	Temperature         float64 `json:"temperature"`
	TopP                float64 `json:"top_p"`
	// KLCoef is the weight of the KL to the reference model in the trainer's loss; the
	// run logs kl_penalty, KLCoef × KL, next to the KL itself (the paper's 0.04).
	KLCoef float64 `json:"kl_coef"`
	// Seed seeds prompt order and the per-request sampling seeds.
	Seed uint64 `json:"seed"`
	// Concurrency bounds the prompts whose completions are requested at once (and the
	// reference requests in flight). Set the llm client's own Concurrency at least as high.
	Concurrency int `json:"concurrency"`
	// MaxFailedSteps stops the run after this many consecutive steps in which every
	// request failed (0: never).
	MaxFailedSteps int `json:"max_failed_steps"`
	// ExportRollouts writes rollouts.jsonl: prompt, completion, reward components,
	// advantage and token logprobs of every completion, for offline trainers. It asks the
	// policy for logprobs.
	ExportRollouts bool `json:"export_rollouts"`

	Prompts   PromptConfig    `json:"prompts"`
	Eval      EvalConfig      `json:"eval"`
	Advantage AdvantageConfig `json:"advantage"`
	Reward    reward.Config   `json:"reward"`
}

// Prompt sources.
const (
	// SourceGenerator draws training items from eval.SFTItems (which leaves out every
	// input of the held-out evaluation set).
	SourceGenerator = "generator"
	// SourceFile reads items written by eval.WriteItems from PromptConfig.Path.
	SourceFile = "file"
)

// PromptConfig says where the training prompts come from.
type PromptConfig struct {
	Source string `json:"source"`
	// Path is the JSONL file of judge items for SourceFile.
	Path string `json:"path"`
	// Items and Seed configure the generator (0: judge's defaults).
	Items int    `json:"items"`
	Seed  uint64 `json:"seed"`
}

// EvalConfig configures the held-out evaluation during a run.
type EvalConfig struct {
	// Every evaluates the policy after every this many steps and after the last (0: never).
	Every int `json:"every"`
	// Items is the size of the held-out set (eval.Set; 0: its default, 151).
	Items int `json:"items"`
	// Concurrency bounds the audits in flight.
	Concurrency int `json:"concurrency"`
}

// PromptsPerStep is PerDeviceBatch × GradAccum × Devices.
func (c RunConfig) PromptsPerStep() int { return c.PerDeviceBatch * c.GradAccum * c.Devices }

// DefaultRunConfig is the embedded run.json with the default reward.
func DefaultRunConfig() RunConfig {
	c := RunConfig{Reward: reward.DefaultConfig()}
	if err := reward.DecodeStrict(bytes.NewReader(defaultRunJSON), &c); err != nil {
		panic(fmt.Sprintf("grpo: embedded run.json: %v", err)) // a build defect, caught by tests
	}
	return c
}

// LoadRunConfig reads a run config file over the defaults (the reward section over the
// default reward): keys it leaves out keep their defaults; unknown keys are an error.
func LoadRunConfig(r io.Reader) (RunConfig, error) {
	c := DefaultRunConfig()
	if err := reward.DecodeStrict(r, &c); err != nil {
		return RunConfig{}, fmt.Errorf("read run config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return RunConfig{}, err
	}
	return c, nil
}

// Validate reports every problem with the configuration at once (Dir is not checked:
// Run needs it, a config file does not hold it).
func (c RunConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	positive := func(name string, v int) {
		if v < 1 {
			bad("%s is %d, want ≥ 1", name, v)
		}
	}
	positive("steps", c.Steps)
	positive("per_device_batch", c.PerDeviceBatch)
	positive("grad_accum", c.GradAccum)
	positive("devices", c.Devices)
	positive("generations", c.Generations)
	positive("max_completion_tokens", c.MaxCompletionTokens)
	positive("concurrency", c.Concurrency)
	if c.MaxFailedSteps < 0 {
		bad("max_failed_steps is %d, want ≥ 0", c.MaxFailedSteps)
	}
	if math.IsNaN(c.Temperature) || c.Temperature < 0 || c.Temperature > 2 {
		bad("temperature is %v, want 0 to 2", c.Temperature)
	}
	if math.IsNaN(c.TopP) || c.TopP <= 0 || c.TopP > 1 {
		bad("top_p is %v, want (0, 1]", c.TopP)
	}
	if math.IsNaN(c.KLCoef) || math.IsInf(c.KLCoef, 0) || c.KLCoef < 0 {
		bad("kl_coef is %v, want a finite number ≥ 0", c.KLCoef)
	}
	switch c.Prompts.Source {
	case SourceGenerator:
		if c.Prompts.Items < 0 {
			bad("prompts.items is %d, want ≥ 0", c.Prompts.Items)
		}
	case SourceFile:
		if c.Prompts.Path == "" {
			bad("prompts.source is %q but prompts.path is empty", SourceFile)
		}
	default:
		bad("prompts.source is %q, want %q or %q", c.Prompts.Source, SourceGenerator, SourceFile)
	}
	if c.Eval.Every < 0 || c.Eval.Items < 0 {
		bad("eval.every and eval.items must be ≥ 0, got %d and %d", c.Eval.Every, c.Eval.Items)
	}
	if c.Eval.Concurrency < 1 {
		bad("eval.concurrency is %d, want ≥ 1", c.Eval.Concurrency)
	}
	if err := c.Advantage.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Reward.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid run config: %w", errors.Join(errs...))
	}
	return nil
}
