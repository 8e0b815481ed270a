package grpo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/judge/llmauditor"
	"github.com/atma-dev/atma/llm"
)

// Chatter is what Run needs of the policy endpoint; *llm.Client implements it.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (*llm.Response, error)
}

var _ Chatter = (*llm.Client)(nil)

// Deps are Run's collaborators.
type Deps struct {
	// Policy serves the policy being trained (required).
	Policy Chatter
	// Reference serves the reference model's log-probabilities; nil: KL is not measured.
	Reference Reference
	// Auditor is evaluated on the held-out set; nil: a llmauditor.Auditor on Policy.
	Auditor judge.Auditor
	// Items are the training items; nil: from cfg.Prompts.
	Items []eval.Item
	// EvalItems are the held-out items; nil: eval.Set with cfg.Eval.Items.
	EvalItems []eval.Item
	// Logger receives a line per step and every failure (nil: slog.Default()).
	Logger *slog.Logger
}

// Rollout is one scored completion.
type Rollout struct {
	Step     int    `json:"step"`
	PromptID string `json:"prompt_id"`
	Choice   int    `json:"choice"`
	// Messages is the prompt (with export_rollouts; rollouts.jsonl only).
	Messages   []llm.Message     `json:"messages,omitempty"`
	Completion string            `json:"completion"`
	Label      reward.Label      `json:"label"`
	Reward     float64           `json:"reward"`
	Components reward.Components `json:"components"`
	Flags      []string          `json:"flags,omitempty"`
	Advantage  float64           `json:"advantage"`
	// KL is the completion's mean k3 against the reference; absent when not measured.
	KL           *float64 `json:"kl,omitempty"`
	Tokens       int      `json:"tokens"`
	Words        int      `json:"words"`
	FinishReason string   `json:"finish_reason,omitempty"`
	// TokenTexts, Logprobs and RefLogprobs are per generated token, when the policy
	// returned logprobs (asked for with a reference or export_rollouts) and, for
	// RefLogprobs, the reference's tokens matched. Of the files, only rollouts.jsonl has
	// them, for offline trainers.
	TokenTexts  []string  `json:"token_texts,omitempty"`
	Logprobs    []float64 `json:"logprobs,omitempty"`
	RefLogprobs []float64 `json:"ref_logprobs,omitempty"`

	// tokens are the policy's token logprobs as returned, prompt the index of the
	// rollout's prompt in its step (neither is written).
	tokens []llm.TokenLogprob
	prompt int
}

// Stats summarise a series.
type Stats struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

func statsOf(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := Stats{Mean: meanOf(xs, nil), Std: stdOf(xs, nil, false), Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	return s
}

// Lengths describe one step's completions.
type Lengths struct {
	// MeanTokens and MaxTokens count completion tokens where the server reported them.
	MeanTokens float64 `json:"mean_tokens"`
	MaxTokens  int     `json:"max_tokens"`
	MeanWords  float64 `json:"mean_words"`
	// Truncated is the share of completions cut at max_completion_tokens.
	Truncated float64 `json:"truncated"`
}

// Failures count what went wrong in a step (or a run): failed policy requests (each a
// prompt with no completions), completions flagged as bad input (Flags.Failed), failed
// reference requests, and the reasons.
type Failures struct {
	Requests    int            `json:"requests"`
	Completions int            `json:"completions"`
	Reference   int            `json:"reference"`
	Reasons     map[string]int `json:"reasons,omitempty"`
}

func (f *Failures) add(kind *int, reason string) {
	*kind++
	if f.Reasons == nil {
		f.Reasons = map[string]int{}
	}
	f.Reasons[reason]++
}

func (f *Failures) merge(g Failures) {
	f.Requests += g.Requests
	f.Completions += g.Completions
	f.Reference += g.Reference
	for k, v := range g.Reasons {
		if f.Reasons == nil {
			f.Reasons = map[string]int{}
		}
		f.Reasons[k] += v
	}
}

// StepRecord is one line of steps.jsonl.
type StepRecord struct {
	// Step counts from 1.
	Step        int `json:"step"`
	Prompts     int `json:"prompts"`
	Completions int `json:"completions"`
	// Reward is over the step's totals; Components are the means of each component.
	Reward     Stats             `json:"reward"`
	Components reward.Components `json:"components"`
	Advantage  AdvantageStats    `json:"advantage"`
	// KL is the mean over completions of their mean per-token k3, KLPenalty that times
	// the KL coefficient; absent without a reference. KLCompletions were measured.
	KL            *float64 `json:"kl,omitempty"`
	KLPenalty     *float64 `json:"kl_penalty,omitempty"`
	KLCompletions int      `json:"kl_completions"`
	Length        Lengths  `json:"length"`
	Failures      Failures `json:"failures"`
	// Seconds is the step's wall time, SampleSeconds the part spent sampling.
	Seconds       float64 `json:"seconds"`
	SampleSeconds float64 `json:"sample_seconds"`
}

// EvalRecord is one line of eval.jsonl: the policy's scores on the held-out set after a
// step (eval.AuditorReport without the per-item predictions).
type EvalRecord struct {
	Step    int                `json:"step"`
	Items   int                `json:"items"`
	Report  eval.AuditorReport `json:"report"`
	Seconds float64            `json:"seconds"`
}

// Summary is summary.json.
type Summary struct {
	Dir string `json:"dir"`
	// Steps were completed out of TargetSteps; StartStep is where this invocation began
	// (0 for a fresh run).
	Steps       int  `json:"steps"`
	TargetSteps int  `json:"target_steps"`
	StartStep   int  `json:"start_step"`
	Interrupted bool `json:"interrupted"`
	Prompts     int  `json:"prompts"`
	Completions int  `json:"completions"`
	// Reward is the mean total over the run; RewardFirst and RewardLast over its first and
	// last ten steps.
	Reward      float64           `json:"reward"`
	RewardFirst float64           `json:"reward_first"`
	RewardLast  float64           `json:"reward_last"`
	Components  reward.Components `json:"components"`
	// ZeroStdFraction is the share of normalisation groups with equal rewards.
	ZeroStdFraction float64     `json:"zero_std_fraction"`
	KL              *float64    `json:"kl,omitempty"`
	Failures        Failures    `json:"failures"`
	Eval            *EvalRecord `json:"eval,omitempty"`
	Seconds         float64     `json:"seconds"`
}

// Run runs GRPO sampling and scoring for cfg.Steps steps in cfg.Dir, resuming a run the
// directory already holds (see the package documentation for the directory's layout).
// Each step samples PromptsPerStep prompts, Generations completions each, from the policy
// (concurrently, cfg.Concurrency prompts at a time), scores them, measures KL to the
// reference when there is one, computes advantages and appends the step's records; it
// updates no weights (an external trainer does, see the package documentation). A failed
// request or a bad completion is logged and counted; the run stops early only when the
// policy endpoint refuses the model or the credentials, after cfg.MaxFailedSteps steps in
// a row without a completion, or when ctx is cancelled. It then leaves the directory as of the last complete step and
// returns the summary with the error.
func Run(ctx context.Context, cfg RunConfig, deps Deps) (*Summary, error) {
	r, err := newRunner(cfg, deps)
	if err != nil {
		return nil, err
	}
	defer r.dir.close()
	return r.run(ctx)
}

type runner struct {
	cfg      RunConfig
	deps     Deps
	log      *slog.Logger
	rewarder *reward.Rewarder
	items    []eval.Item
	evalSet  []eval.Item
	auditor  judge.Auditor
	dir      *runDir
	// state is the state after the last step computed; dir.state the last one committed.
	state   runState
	pending chan error // the commit in flight, if any
	records []StepRecord
	evals   []EvalRecord
}

// startCommit writes a step to the run directory in the background, so that the next
// step's requests go out while the files are synced; commits stay in order because each
// waits for the one before.
func (r *runner) startCommit(st runState, rec StepRecord, rollouts []Rollout) error {
	if err := r.waitCommit(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- r.dir.commit(st, rec, rollouts, r.cfg.ExportRollouts) }()
	r.pending = done
	return nil
}

// waitCommit waits for the commit in flight.
func (r *runner) waitCommit() error {
	if r.pending == nil {
		return nil
	}
	err := <-r.pending
	r.pending = nil
	return err
}

func newRunner(cfg RunConfig, deps Deps) (*runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		return nil, errors.New("grpo run: no run directory")
	}
	if deps.Policy == nil {
		return nil, errors.New("grpo run: no policy endpoint")
	}
	r := &runner{cfg: cfg, deps: deps, log: deps.Logger}
	if r.log == nil {
		r.log = slog.Default()
	}
	var err error
	if r.rewarder, err = reward.New(cfg.Reward); err != nil {
		return nil, err
	}
	if r.items = deps.Items; r.items == nil {
		if r.items, err = LoadPrompts(cfg.Prompts); err != nil {
			return nil, err
		}
	}
	if len(r.items) == 0 {
		return nil, errors.New("grpo run: no training items")
	}
	for i, it := range r.items {
		if err := reward.LabelFor(it).Validate(); err != nil {
			return nil, fmt.Errorf("grpo run: training item %d (%s): %w", i, it.ID, err)
		}
	}
	if cfg.Eval.Every > 0 {
		if r.evalSet = deps.EvalItems; r.evalSet == nil {
			if r.evalSet, err = eval.Set(eval.Config{Items: cfg.Eval.Items}); err != nil {
				return nil, fmt.Errorf("build the held-out set: %w", err)
			}
		}
		if r.auditor = deps.Auditor; r.auditor == nil {
			if r.auditor, err = llmauditor.New(deps.Policy, llmauditor.Config{Name: "policy", MaxTokens: cfg.MaxCompletionTokens, Logger: r.log}); err != nil {
				return nil, fmt.Errorf("build the evaluation auditor: %w", err)
			}
		}
	}
	if r.dir, err = openRunDir(cfg, len(r.items)); err != nil {
		return nil, err
	}
	r.state = r.dir.state.clone()
	if r.records, err = readJSONL[StepRecord](r.dir.path(fileSteps)); err != nil {
		r.dir.close()
		return nil, err
	}
	if r.evals, err = readJSONL[EvalRecord](r.dir.path(fileEval)); err != nil {
		r.dir.close()
		return nil, err
	}
	return r, nil
}

func (r *runner) run(ctx context.Context) (*Summary, error) {
	start := time.Now()
	startStep := r.dir.state.Step
	if startStep > 0 {
		r.log.Info("grpo: resuming", "dir", r.cfg.Dir, "step", startStep, "of", r.cfg.Steps)
	}
	var runErr error
	// An evaluation due after the last completed step that an interruption cut short.
	if s := r.dir.state.Step; s > 0 && r.evalDue(s) && r.dir.state.EvalStep < s {
		runErr = r.evaluate(ctx, s)
	}
	for runErr == nil && r.state.Step < r.cfg.Steps {
		if err := ctx.Err(); err != nil {
			runErr = err
			break
		}
		if runErr = r.step(ctx); runErr != nil {
			break
		}
		if s := r.state.Step; r.evalDue(s) {
			runErr = r.evaluate(ctx, s)
		}
	}
	if err := r.waitCommit(); err != nil && runErr == nil {
		runErr = err
	}
	if ctx.Err() != nil && runErr == nil {
		runErr = ctx.Err()
	}
	if err := writePlots(r.dir.path(dirPlots), r.records, r.evals); err != nil {
		r.log.Warn("grpo: plots not written", "err", err)
	}
	sum := r.summary(startStep, time.Since(start))
	sum.Interrupted = runErr != nil && ctx.Err() != nil
	if err := writeJSONFile(r.dir.path(fileSummary), sum); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return sum, fmt.Errorf("grpo run stopped after step %d of %d: %w", r.dir.state.Step, r.cfg.Steps, runErr)
	}
	return sum, nil
}

func (r *runner) evalDue(step int) bool {
	e := r.cfg.Eval.Every
	return e > 0 && (step%e == 0 || step == r.cfg.Steps)
}

// sampledPrompt is one prompt of a step and what its request returned.
type sampledPrompt struct {
	item  eval.Item
	msgs  []llm.Message
	resp  *llm.Response
	err   error
	label reward.Label
}

// step runs one step and commits it; it returns an error only when the run must stop.
func (r *runner) step(ctx context.Context) error {
	t0 := time.Now()
	st := r.state.clone()
	stepNo := st.Step + 1
	rng := st.rng()
	idx := st.nextPrompts(rng, len(r.items), r.cfg.PromptsPerStep())
	prompts := make([]sampledPrompt, len(idx))
	seeds := make([]int64, len(idx))
	for i, k := range idx {
		it := r.items[k]
		prompts[i] = sampledPrompt{item: it, msgs: judge.Messages(it.Pair), label: reward.LabelFor(it)}
		seeds[i] = rng.Int64N(1 << 31)
	}
	st.saveRNG(rng)

	logprobs := r.deps.Reference != nil || r.cfg.ExportRollouts
	g := new(errgroup.Group)
	g.SetLimit(r.cfg.Concurrency)
	for i := range prompts {
		g.Go(func() error {
			p := &prompts[i]
			temp, topP, seed := r.cfg.Temperature, r.cfg.TopP, seeds[i]
			p.resp, p.err = r.deps.Policy.Chat(ctx, llm.Request{
				Messages: p.msgs, N: r.cfg.Generations, Temperature: &temp, TopP: &topP,
				MaxTokens: r.cfg.MaxCompletionTokens, Seed: &seed, Logprobs: logprobs,
			})
			return nil
		})
	}
	_ = g.Wait() // the goroutines record their errors in prompts
	sampleTime := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return err // the step is abandoned; the directory stays at the previous one
	}

	rec := StepRecord{Step: stepNo, Prompts: len(prompts)}
	var rollouts []Rollout
	for i := range prompts {
		p := &prompts[i]
		if p.err != nil {
			if fatalPolicyError(p.err) {
				return fmt.Errorf("policy endpoint: %w", p.err)
			}
			reason := failureReason(p.err)
			rec.Failures.add(&rec.Failures.Requests, reason)
			r.log.Warn("grpo: policy request failed", "step", stepNo, "item", p.item.ID, "reason", reason, "err", p.err)
			continue
		}
		prompt := reward.PromptText(p.msgs)
		for _, ch := range p.resp.Choices {
			// A server that splits reasoning from the answer returns the think block apart.
			text := judge.JoinReasoning(ch.Reasoning, ch.Content)
			s := r.rewarder.Score(prompt, text, p.label)
			ro := Rollout{
				Step: stepNo, PromptID: p.item.ID, Choice: ch.Index, Completion: text, Label: p.label,
				Reward: s.Total, Components: s.Components, Flags: s.Flags.Names(), Tokens: ch.Tokens,
				Words: s.Words, FinishReason: ch.FinishReason, tokens: ch.Logprobs, prompt: i,
			}
			if r.cfg.ExportRollouts {
				ro.Messages = p.msgs
			}
			if len(ch.Logprobs) > 0 {
				ro.TokenTexts = make([]string, len(ch.Logprobs))
				ro.Logprobs = make([]float64, len(ch.Logprobs))
				for k, t := range ch.Logprobs {
					ro.TokenTexts[k], ro.Logprobs[k] = t.Token, t.Logprob
				}
			}
			if s.Flags.Failed() {
				rec.Failures.add(&rec.Failures.Completions, "completion: "+s.Flags.String())
				r.log.Warn("grpo: bad completion", "step", stepNo, "item", p.item.ID, "choice", ch.Index, "flags", s.Flags.String())
			}
			rollouts = append(rollouts, ro)
		}
	}

	if r.deps.Reference != nil && len(rollouts) > 0 {
		if err := r.measureKL(ctx, prompts, rollouts, &rec); err != nil {
			return err
		}
	}

	if len(rollouts) > 0 {
		rewards := make([]float64, len(rollouts))
		keys := make([]string, len(rollouts))
		for i, ro := range rollouts {
			rewards[i] = ro.Reward
			if r.cfg.Advantage.GroupBy == GroupByTask {
				keys[i] = ro.Label.Stratum()
			} else {
				keys[i] = strconv.Itoa(ro.prompt)
			}
		}
		adv, ast, err := Advantages(rewards, keys, r.cfg.Advantage)
		if err != nil {
			return fmt.Errorf("step %d: %w", stepNo, err)
		}
		for i := range rollouts {
			rollouts[i].Advantage = adv[i]
		}
		rec.Advantage = ast
		summarise(&rec, rollouts)
		st.FailedSteps = 0
	} else {
		st.FailedSteps++
	}
	rec.Completions = len(rollouts)
	rec.SampleSeconds = sampleTime.Seconds()
	if r.deps.Reference != nil && rec.KL != nil {
		pen := *rec.KL * r.cfg.KLCoef
		rec.KLPenalty = &pen
	}

	rec.Seconds = time.Since(t0).Seconds()

	st.Step = stepNo
	if err := r.startCommit(st, rec, rollouts); err != nil {
		return err
	}
	r.state = st
	r.records = append(r.records, rec)
	args := []any{"step", stepNo, "of", r.cfg.Steps, "reward", round3(rec.Reward.Mean), "verdict", round3(rec.Components.Verdict),
		"format", round3(rec.Components.Format), "zero_std", round3(rec.Advantage.ZeroStdFraction),
		"completions", rec.Completions, "failures", rec.Failures.Requests + rec.Failures.Completions, "seconds", round3(rec.Seconds)}
	if rec.KL != nil {
		args = append(args, "kl", *rec.KL)
	}
	r.log.Info("grpo: step", args...)

	if r.cfg.MaxFailedSteps > 0 && st.FailedSteps >= r.cfg.MaxFailedSteps {
		return fmt.Errorf("%d steps in a row without a completion (last reasons: %v)", st.FailedSteps, rec.Failures.Reasons)
	}
	return nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// measureKL asks the reference for the log-probabilities of every completion that has
// token logprobs and records each completion's KL; failures are counted.
func (r *runner) measureKL(ctx context.Context, prompts []sampledPrompt, rollouts []Rollout, rec *StepRecord) error {
	errs := make([]error, len(rollouts))
	g := new(errgroup.Group)
	g.SetLimit(r.cfg.Concurrency)
	for i := range rollouts {
		ro := &rollouts[i]
		if len(ro.tokens) == 0 {
			errs[i] = errors.New("the policy returned no token logprobs")
			continue
		}
		g.Go(func() error {
			ref, err := r.deps.Reference.Logprobs(ctx, prompts[ro.prompt].msgs, ro.Completion, ro.tokens)
			if err != nil {
				errs[i] = err
				return nil
			}
			kl, err := SequenceKL(policyLogprobs(ro.tokens, len(ref)), ref)
			if err != nil {
				errs[i] = err
				return nil
			}
			ro.KL, ro.RefLogprobs = &kl, ref
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	sum, n := 0.0, 0
	for i, err := range errs {
		if err != nil {
			reason := "reference: " + failureReason(err)
			if errors.Is(err, ErrTokenMismatch) {
				reason = "reference: token mismatch"
			}
			rec.Failures.add(&rec.Failures.Reference, reason)
			r.log.Warn("grpo: reference logprobs failed", "step", rec.Step, "item", rollouts[i].PromptID, "err", err)
			continue
		}
		sum += *rollouts[i].KL
		n++
	}
	rec.KLCompletions = n
	if n > 0 {
		kl := sum / float64(n)
		rec.KL = &kl
	}
	return nil
}

// summarise fills the step's reward, component and length statistics.
func summarise(rec *StepRecord, rollouts []Rollout) {
	totals := make([]float64, len(rollouts))
	var comp [reward.NumComponents]float64
	tokens, counted, truncated, words := 0, 0, 0, 0
	for i, ro := range rollouts {
		totals[i] = ro.Reward
		for k, v := range ro.Components.Values() {
			comp[k] += v
		}
		if ro.Tokens > 0 {
			tokens += ro.Tokens
			counted++
			rec.Length.MaxTokens = max(rec.Length.MaxTokens, ro.Tokens)
		}
		if ro.FinishReason == "length" {
			truncated++
		}
		words += ro.Words
	}
	n := float64(len(rollouts))
	for k := range comp {
		comp[k] /= n
	}
	rec.Reward = statsOf(totals)
	rec.Components = reward.ComponentsOf(comp)
	if counted > 0 {
		rec.Length.MeanTokens = float64(tokens) / float64(counted)
	}
	rec.Length.MeanWords = float64(words) / n
	rec.Length.Truncated = float64(truncated) / n
}

// fatalPolicyError reports errors that every further request would repeat: a model the
// server does not serve, refused credentials.
func fatalPolicyError(err error) bool {
	if errors.Is(err, llm.ErrModelNotFound) {
		return true
	}
	var api *llm.APIError
	return errors.As(err, &api) && (api.StatusCode == 401 || api.StatusCode == 403)
}

// failureReason is a short, countable name for an error.
func failureReason(err error) string {
	var api *llm.APIError
	switch {
	case errors.Is(err, llm.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, llm.ErrUnreachable):
		return "unreachable"
	case errors.Is(err, llm.ErrContextLength):
		return "context length"
	case errors.Is(err, llm.ErrBadResponse):
		return "bad response"
	case errors.As(err, &api):
		return "http " + strconv.Itoa(api.StatusCode)
	}
	return "error"
}

// evaluate scores the policy on the held-out set and appends the record.
func (r *runner) evaluate(ctx context.Context, step int) error {
	if err := r.waitCommit(); err != nil {
		return err
	}
	t0 := time.Now()
	rep, err := eval.Run(ctx, []judge.NamedAuditor{{Name: "policy", Auditor: r.auditor}}, r.evalSet, r.cfg.Eval.Concurrency)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// An auditor error is not an endpoint hiccup (those fall back); it needs fixing.
		return fmt.Errorf("evaluate after step %d: %w", step, err)
	}
	a := rep.Auditors[0]
	a.Predictions = nil
	rec := EvalRecord{Step: step, Items: rep.Items, Report: a, Seconds: time.Since(t0).Seconds()}
	if err := r.dir.commitEval(rec); err != nil {
		return err
	}
	r.state.EvalStep = step
	r.evals = append(r.evals, rec)
	r.log.Info("grpo: eval", "step", step, "accuracy", round3(a.Accuracy), "f1", round3(a.F1),
		"implicit_violation", round3(a.ImplicitViolationAccuracy), "format_valid", round3(a.FormatValid), "fallbacks", a.Fallbacks)
	return nil
}

func (r *runner) summary(startStep int, took time.Duration) *Summary {
	s := &Summary{Dir: r.cfg.Dir, Steps: r.dir.state.Step, TargetSteps: r.cfg.Steps, StartStep: startStep, Seconds: took.Seconds()}
	var rewards, klSum []float64
	var comp [reward.NumComponents]float64
	zero, groups := 0, 0
	for _, rec := range r.records {
		s.Prompts += rec.Prompts
		s.Completions += rec.Completions
		s.Failures.merge(rec.Failures)
		if rec.Completions > 0 {
			rewards = append(rewards, rec.Reward.Mean)
			for k, v := range rec.Components.Values() {
				comp[k] += v
			}
		}
		zero += rec.Advantage.ZeroStd
		groups += rec.Advantage.Groups
		if rec.KL != nil {
			klSum = append(klSum, *rec.KL)
		}
	}
	if n := len(rewards); n > 0 {
		s.Reward = meanOf(rewards, nil)
		s.RewardFirst = meanOf(rewards[:min(10, n)], nil)
		s.RewardLast = meanOf(rewards[max(0, n-10):], nil)
		for k := range comp {
			comp[k] /= float64(n)
		}
		s.Components = reward.ComponentsOf(comp)
	}
	if groups > 0 {
		s.ZeroStdFraction = float64(zero) / float64(groups)
	}
	if len(klSum) > 0 {
		kl := meanOf(klSum, nil)
		s.KL = &kl
	}
	if n := len(r.evals); n > 0 {
		e := r.evals[n-1]
		s.Eval = &e
	}
	return s
}

// LoadPrompts loads the training items cfg names.
func LoadPrompts(cfg PromptConfig) ([]eval.Item, error) {
	switch cfg.Source {
	case SourceGenerator:
		items, err := eval.SFTItems(eval.SFTConfig{Seed: cfg.Seed, Items: cfg.Items})
		if err != nil {
			return nil, fmt.Errorf("generate training items: %w", err)
		}
		return items, nil
	case SourceFile:
		f, err := os.Open(cfg.Path)
		if err != nil {
			return nil, fmt.Errorf("open training items: %w", err)
		}
		defer f.Close()
		items, err := eval.ReadItems(f)
		if err != nil {
			return nil, fmt.Errorf("read training items %s: %w", cfg.Path, err)
		}
		return items, nil
	}
	return nil, fmt.Errorf("unknown prompt source %q", cfg.Source)
}
