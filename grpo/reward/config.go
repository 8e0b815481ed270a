package reward

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

//go:embed reward.json
var defaultRewardJSON []byte

// Config holds every fixed value and weight of the reward. Its JSON form is the
// reward config file; the defaults are embedded from reward.json. Start from
// DefaultConfig (or LoadConfig, which overlays a file on the defaults): the
// zero value is not the default, because 0 is a meaningful weight (the term is off).
type Config struct {
	// Weights multiply the components in Score.Total.
	Weights Weights `json:"weights"`

	Format       FormatValues       `json:"format"`
	Verdict      VerdictValues      `json:"verdict"`
	Implicit     ImplicitValues     `json:"implicit"`
	Length       LengthValues       `json:"length"`
	Cohesion     CohesionValues     `json:"cohesion"`
	Conciseness  ConcisenessValues  `json:"conciseness"`
	Echo         EchoValues         `json:"echo"`
	Preservation PreservationValues `json:"preservation"`
	Summary      SummaryValues      `json:"summary"`
	Limits       Limits             `json:"limits"`
}

// Weights are the weights of the components, one field (and JSON key) per component.
type Weights Components

// FormatValues are the values of the format term: Full for a valid <think> block with all
// four step labels, TagsOnly for a valid <think>…</think> pair whose steps are not right,
// None otherwise (the paper's 1, 0.5 and 0).
type FormatValues struct {
	Full     float64 `json:"full"`
	TagsOnly float64 `json:"tags_only"`
	None     float64 `json:"none"`
}

// Verdict parse modes.
const (
	// ParseStrict takes the verdict only from a conclusion judge.ParseVerdict accepts
	// (one JSON object, every field, no other, enums as spelled, consistent).
	ParseStrict = "strict"
	// ParseLenient falls back to judge.ParseLenient when the strict parse fails. It is
	// denser early in training and some hundred times slower on the answers it rescues.
	ParseLenient = "lenient"
)

// VerdictValues score verdict correctness against the gold label: Status when the status
// is right, Type when the status and the conflict type are, Action when the action is
// correct (eval.Gold.ActionOK); None is the value when no verdict can be parsed.
type VerdictValues struct {
	Parse  string  `json:"parse"`
	Status float64 `json:"status"`
	Type   float64 `json:"type"`
	Action float64 `json:"action"`
	None   float64 `json:"none"`
}

// ImplicitValues score items whose label is implicit: Success when an implicit violation
// is found as a conflict of type implicit_violation (or an implicit look-alike is left
// consistent), Miss otherwise. Other items score 0.
type ImplicitValues struct {
	Success float64 `json:"success"`
	Miss    float64 `json:"miss"`
}

// LengthValues shape the length term over the completion's word count: 1 from MinWords
// to MaxWords, rising linearly from 0 below, falling linearly to 0 at ZeroWords above.
type LengthValues struct {
	MinWords  int `json:"min_words"`
	MaxWords  int `json:"max_words"`
	ZeroWords int `json:"zero_words"`
}

// CohesionValues: the tag cohesion term is 1 − PenaltyPerIssue × issues, floored at 0.
type CohesionValues struct {
	PenaltyPerIssue float64 `json:"penalty_per_issue"`
}

// ConcisenessValues shape the conclusion term over the bytes after </think>: 1 up to
// MaxBytes, falling linearly to 0 at ZeroBytes.
type ConcisenessValues struct {
	MaxBytes  int `json:"max_bytes"`
	ZeroBytes int `json:"zero_bytes"`
}

// EchoValues shape the prompt-echo penalty: the share of the completion's NGram-word
// shingles (outside the verdict object) that repeat the prompt, not counting the pair's
// own texts. No penalty up to FreeRatio, Penalty (negative) from FullRatio, linear
// between.
type EchoValues struct {
	NGram     int     `json:"ngram"`
	FreeRatio float64 `json:"free_ratio"`
	FullRatio float64 `json:"full_ratio"`
	Penalty   float64 `json:"penalty"`
}

// PreservationValues: Destroy (negative) is the value when the verdict's action destroys
// an old state that the gold label needs kept (a supersede where the old value must
// become history, anything but keep or coexist where it is still current).
type PreservationValues struct {
	Destroy float64 `json:"destroy"`
}

// SummaryValues score the transition summary of a conflict: Shape for the
// "slot: old -> new" form, OldValue and NewValue for naming each value. Spurious is the
// value of a summary given for a pair that does not conflict.
type SummaryValues struct {
	Shape    float64 `json:"shape"`
	OldValue float64 `json:"old_value"`
	NewValue float64 `json:"new_value"`
	Spurious float64 `json:"spurious"`
}

// Limits bound the inputs the reward reads. A longer completion is not scanned: it scores
// 0 on every component and carries FlagTooLong. A longer prompt is cut for the echo term.
type Limits struct {
	MaxCompletionBytes int `json:"max_completion_bytes"`
	MaxPromptBytes     int `json:"max_prompt_bytes"`
}

// DefaultConfig is the embedded reward.json.
func DefaultConfig() Config {
	var c Config
	if err := DecodeStrict(bytes.NewReader(defaultRewardJSON), &c); err != nil {
		panic(fmt.Sprintf("grpo: embedded reward.json: %v", err)) // a build defect, caught by tests
	}
	return c
}

// LoadConfig reads a reward config file over the defaults: keys it leaves out keep
// their default values; unknown keys are an error.
func LoadConfig(r io.Reader) (Config, error) {
	c := DefaultConfig()
	if err := DecodeStrict(r, &c); err != nil {
		return Config{}, fmt.Errorf("read reward config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// DecodeStrict decodes one JSON value into dst, refusing unknown keys and trailing data.
// Every strict input of grpo and its sub-packages goes through it: reward and run config
// files, labels, the reward server's TRL and verl request bodies.
func DecodeStrict(r io.Reader, dst any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON object")
	}
	return nil
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	finite := func(name string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad("%s is %v, want a finite number", name, v)
		}
	}
	ws := Components(c.Weights).Values()
	for i, name := range ComponentNames() {
		finite("weights."+name, ws[i])
		if ws[i] < 0 {
			bad("weights.%s is %v, want ≥ 0 (penalties carry their sign in their own values)", name, ws[i])
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"format.full", c.Format.Full}, {"format.tags_only", c.Format.TagsOnly}, {"format.none", c.Format.None},
		{"verdict.status", c.Verdict.Status}, {"verdict.type", c.Verdict.Type}, {"verdict.action", c.Verdict.Action},
		{"verdict.none", c.Verdict.None}, {"implicit.success", c.Implicit.Success}, {"implicit.miss", c.Implicit.Miss},
		{"cohesion.penalty_per_issue", c.Cohesion.PenaltyPerIssue}, {"echo.penalty", c.Echo.Penalty},
		{"preservation.destroy", c.Preservation.Destroy}, {"summary.shape", c.Summary.Shape},
		{"summary.old_value", c.Summary.OldValue}, {"summary.new_value", c.Summary.NewValue},
		{"summary.spurious", c.Summary.Spurious},
	} {
		finite(f.name, f.v)
	}
	if c.Verdict.Parse != ParseStrict && c.Verdict.Parse != ParseLenient {
		bad("verdict.parse is %q, want %q or %q", c.Verdict.Parse, ParseStrict, ParseLenient)
	}
	l := c.Length
	if l.MinWords < 0 || l.MaxWords < l.MinWords || l.ZeroWords <= l.MaxWords {
		bad("length wants 0 ≤ min_words ≤ max_words < zero_words, got %d, %d, %d", l.MinWords, l.MaxWords, l.ZeroWords)
	}
	if c.Cohesion.PenaltyPerIssue < 0 {
		bad("cohesion.penalty_per_issue is %v, want ≥ 0", c.Cohesion.PenaltyPerIssue)
	}
	if k := c.Conciseness; k.MaxBytes < 0 || k.ZeroBytes <= k.MaxBytes {
		bad("conciseness wants 0 ≤ max_bytes < zero_bytes, got %d, %d", k.MaxBytes, k.ZeroBytes)
	}
	e := c.Echo
	if e.NGram < 2 || e.NGram > 32 {
		bad("echo.ngram is %d, want 2 to 32", e.NGram)
	}
	finite("echo.free_ratio", e.FreeRatio)
	finite("echo.full_ratio", e.FullRatio)
	if e.FreeRatio < 0 || e.FullRatio <= e.FreeRatio || e.FullRatio > 1 {
		bad("echo wants 0 ≤ free_ratio < full_ratio ≤ 1, got %v, %v", e.FreeRatio, e.FullRatio)
	}
	if e.Penalty > 0 {
		bad("echo.penalty is %v, want ≤ 0", e.Penalty)
	}
	if c.Preservation.Destroy > 0 {
		bad("preservation.destroy is %v, want ≤ 0", c.Preservation.Destroy)
	}
	if c.Limits.MaxCompletionBytes < 1 {
		bad("limits.max_completion_bytes is %d, want ≥ 1", c.Limits.MaxCompletionBytes)
	}
	if c.Limits.MaxPromptBytes < 1 {
		bad("limits.max_prompt_bytes is %d, want ≥ 1", c.Limits.MaxPromptBytes)
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid reward config: %w", errors.Join(errs...))
	}
	return nil
}
