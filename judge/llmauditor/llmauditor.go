package llmauditor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/rule"
	"github.com/atma-dev/atma/llm"
)

// Chatter is what Auditor needs of a model client; *llm.Client implements it.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (*llm.Response, error)
}

var _ Chatter = (*llm.Client)(nil)

// DefaultMaxTokens bounds an audit answer: four short steps and a verdict need a few
// hundred tokens; reasoning models think longer.
const DefaultMaxTokens = 1024

// Config configures an Auditor. The zero value means the defaults.
type Config struct {
	// Name is Result.Source when the server names no model (default "llm").
	Name string
	// MaxTokens bounds the answer (0: DefaultMaxTokens).
	MaxTokens int
	// Temperature is the sampling temperature (nil: 0, for repeatable audits).
	Temperature *float64
	// Seed is sent to servers that take one (nil: none).
	Seed *int64
	// Schema constrains the answer to VerdictSchema. The model then writes the verdict
	// without a think block, so answers are parsed leniently and never count as
	// format-valid.
	Schema bool
	// Strict accepts only answers that pass ParseStrict; any other answer falls back.
	// By default an answer that fails ParseStrict is parsed with ParseLenient, and falls
	// back only if that fails too.
	Strict bool
	// Fallback audits the pair when the model cannot (nil: a rule.Auditor with defaults).
	Fallback judge.Auditor
	// Logger receives a warning for every fallback (nil: slog.Default()).
	Logger *slog.Logger
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	errs = append(errs, llm.CheckSampling("max tokens", c.MaxTokens, c.Temperature)...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("llm auditor config: %w", err)
	}
	return nil
}

// Auditor audits pairs with a language model behind an OpenAI-compatible endpoint: it
// sends the audit prompt (Messages), parses the answer (ParseStrict, then ParseLenient
// unless Strict is set) and falls back to another auditor, the rule auditor by default,
// when the endpoint is unreachable or times out, answers with a server error, a rate limit
// or a malformed body, the prompt exceeds the model's context, or the answer cannot be
// parsed; Result.Fallback says which. A wrong model name, bad credentials and other client
// errors are returned, not papered over: they need fixing, not a fallback. An Auditor
// is safe for concurrent use if its Chatter and fallback are (llm.Client and rule.Auditor
// are).
type Auditor struct {
	chat     Chatter
	cfg      Config
	fallback judge.Auditor
	log      *slog.Logger
}

var _ judge.Auditor = (*Auditor)(nil)

// New returns an auditor that asks the model behind c.
func New(c Chatter, cfg Config) (*Auditor, error) {
	if c == nil {
		return nil, errors.New("llm auditor: nil chat client")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &Auditor{chat: c, cfg: cfg, fallback: cfg.Fallback, log: cfg.Logger}
	if a.fallback == nil {
		a.fallback = &rule.Auditor{}
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	if a.cfg.Name == "" {
		a.cfg.Name = "llm"
	}
	if a.cfg.MaxTokens == 0 {
		a.cfg.MaxTokens = DefaultMaxTokens
	}
	return a, nil
}

// Audit asks the model for a verdict on p.
func (a *Auditor) Audit(ctx context.Context, p judge.Pair) (judge.Result, error) {
	start := time.Now()
	temp := 0.0
	if a.cfg.Temperature != nil {
		temp = *a.cfg.Temperature
	}
	req := llm.Request{Messages: judge.Messages(p), MaxTokens: a.cfg.MaxTokens, Temperature: &temp, Seed: a.cfg.Seed}
	if a.cfg.Schema {
		req.JSONSchema = judge.VerdictSchema()
	}
	if err := req.Validate(); err != nil {
		return judge.Result{}, fmt.Errorf("audit: %w", err)
	}
	resp, err := a.chat.Chat(ctx, req)
	if err == nil && len(resp.Choices) == 0 {
		err = fmt.Errorf("%w: no choices", llm.ErrBadResponse)
	}
	if err != nil {
		if ctx.Err() != nil {
			return judge.Result{}, fmt.Errorf("audit: %w", ctx.Err())
		}
		if llm.NeedsFix(err) {
			return judge.Result{}, fmt.Errorf("audit: %w", err)
		}
		return a.fall(ctx, p, start, judge.Result{}, llm.Describe(err))
	}
	raw := judge.JoinReasoning(resp.Choices[0].Reasoning, resp.Choices[0].Content)
	res := judge.Result{Raw: raw, Source: a.cfg.Name, Tokens: resp.Usage.TotalTokens}
	if resp.Model != "" {
		res.Source = resp.Model
	}
	if res.Tokens == 0 {
		res.Tokens = resp.Counted.PromptTokens + resp.Counted.CompletionTokens
	}
	ans, err := judge.ParseStrict(raw)
	if err != nil {
		res.ParseError = err.Error()
		if a.cfg.Strict {
			return a.fall(ctx, p, start, res, "answer fails the audit format: "+llm.FirstLine(err.Error()))
		}
		if ans, err = judge.ParseLenient(raw); err != nil {
			return a.fall(ctx, p, start, res, fmt.Sprintf("unparseable answer (%s): %.120q", llm.FirstLine(err.Error()), strings.TrimSpace(raw)))
		}
	}
	res.Verdict, res.Steps = ans.Verdict, ans.Steps
	res.Latency = time.Since(start)
	return res, nil
}

// fall answers with the fallback auditor, keeping what the model's attempt cost.
func (a *Auditor) fall(ctx context.Context, p judge.Pair, start time.Time, attempt judge.Result, why string) (judge.Result, error) {
	a.log.Warn("judge falls back", "model", a.cfg.Name, "reason", why)
	res, err := a.fallback.Audit(ctx, p)
	if err != nil {
		return judge.Result{}, fmt.Errorf("audit: fallback after %s: %w", why, err)
	}
	res.Fallback = why
	res.ParseError = attempt.ParseError
	res.Tokens += attempt.Tokens
	res.Latency = time.Since(start)
	return res, nil
}
