package grpo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/grpo/grpotest"
	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/llm"
)

// trainItems and evalItems are small fixed sets.
var (
	trainItems = []eval.Item{grpotest.ItemJob, grpotest.ItemDiet, grpotest.ItemHobby}
	evalItems  = []eval.Item{grpotest.ItemDiet, grpotest.ItemHobby}
)

// smallRun is a quick configuration: 2 prompts per step, 2 generations, evaluation every
// 2 steps on evalItems.
func smallRun(t *testing.T, steps int) RunConfig {
	t.Helper()
	cfg := DefaultRunConfig()
	cfg.Dir = t.TempDir()
	cfg.Steps = steps
	cfg.GradAccum = 2
	cfg.Eval.Every = 2
	cfg.Concurrency = 2
	return cfg
}

func quietDeps(policy Chatter) Deps {
	return Deps{Policy: policy, Items: trainItems, EvalItems: evalItems, Logger: slog.New(slog.DiscardHandler)}
}

func readLines[T any](t *testing.T, path string) []T {
	t.Helper()
	out, err := readJSONL[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRun(t *testing.T) {
	fake := newFakePolicy(t, append(trainItems, evalItems...))
	cfg := smallRun(t, 3)
	sum, err := Run(t.Context(), cfg, quietDeps(fake.client(t, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Steps != 3 || sum.Prompts != 6 || sum.Completions != 12 || sum.Interrupted || sum.StartStep != 0 {
		t.Errorf("summary %+v", sum)
	}
	steps := readLines[StepRecord](t, filepath.Join(cfg.Dir, fileSteps))
	samples := readLines[Rollout](t, filepath.Join(cfg.Dir, fileSamples))
	evals := readLines[EvalRecord](t, filepath.Join(cfg.Dir, fileEval))
	if len(steps) != 3 || len(samples) != 12 || len(evals) != 2 {
		t.Fatalf("%d steps, %d samples, %d evals; want 3, 12, 2", len(steps), len(samples), len(evals))
	}
	if evals[0].Step != 2 || evals[1].Step != 3 || evals[1].Report.Accuracy != 1 || evals[1].Items != 2 {
		t.Errorf("evals %+v", evals)
	}
	// The fake's variants: right, wrong status, fenced, truncated. Each step's rewards
	// must be those of the rewarder on the same completions, and the advantages must
	// follow from them.
	r := newTestRewarder(t, nil)
	for i, s := range samples {
		it := map[string]eval.Item{grpotest.ItemJob.ID: grpotest.ItemJob, grpotest.ItemDiet.ID: grpotest.ItemDiet, grpotest.ItemHobby.ID: grpotest.ItemHobby}[s.PromptID]
		want := r.Score(promptOf(it), s.Completion, reward.LabelFor(it))
		if !near(s.Reward, want.Total) || s.Components != want.Components {
			t.Errorf("sample %d: reward %v, want %v", i, s.Reward, want.Total)
		}
		if s.Messages != nil || s.Logprobs != nil {
			t.Errorf("sample %d carries export fields", i)
		}
		if i%2 == 1 {
			a, b := samples[i-1], s
			want := 0.0
			if a.Reward != b.Reward {
				want = 0.70710678 // G = 2, sample std: ±1/√2
			}
			if !near(abs(b.Advantage), want) && abs(abs(b.Advantage)-want) > 1e-3 {
				t.Errorf("pair %d: advantages %v %v for rewards %v %v", i/2, a.Advantage, b.Advantage, a.Reward, b.Reward)
			}
		}
	}
	for _, rec := range steps {
		if rec.Completions != 4 || rec.Advantage.Groups != 2 || rec.KL != nil || rec.Failures.Requests != 0 {
			t.Errorf("step record %+v", rec)
		}
	}
	for _, f := range []string{PlotReward, PlotComponents, PlotKL, PlotLength, PlotEval} {
		b, err := os.ReadFile(filepath.Join(cfg.Dir, dirPlots, f))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("plot %s: %v", f, err)
		}
	}
	var stored RunConfig
	b, _ := os.ReadFile(filepath.Join(cfg.Dir, fileConfig))
	if err := json.Unmarshal(b, &stored); err != nil || stored.Steps != 3 || stored.Reward.Weights.Verdict != 2 {
		t.Errorf("config.json: %v %+v", err, stored)
	}
	var onDisk Summary
	b, _ = os.ReadFile(filepath.Join(cfg.Dir, fileSummary))
	if err := json.Unmarshal(b, &onDisk); err != nil || onDisk.Steps != 3 || onDisk.Eval == nil {
		t.Errorf("summary.json: %v %+v", err, onDisk)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestRunResume interrupts a run during its third step, spoils the files the way a crash
// would, resumes it, and checks that the result is byte for byte the uninterrupted run's.
func TestRunResume(t *testing.T) {
	all := append(trainItems, evalItems...)
	whole := smallRun(t, 4)
	if _, err := Run(t.Context(), whole, quietDeps(newFakePolicy(t, all).client(t, 4))); err != nil {
		t.Fatal(err)
	}

	cut := smallRun(t, 4)
	ctx, cancel := context.WithCancel(t.Context())
	fake := newFakePolicy(t, all)
	fake.fail = func(w http.ResponseWriter, user string, n int) bool {
		if n == 4+2 { // steps 1 and 2 took 2 requests each, the evaluation 2 more: this is step 3
			cancel()
			http.Error(w, `{"error":{"message":"shutting down"}}`, 503)
			return true
		}
		return false
	}
	sum, err := Run(ctx, cut, quietDeps(fake.client(t, 1)))
	if !errors.Is(err, context.Canceled) || sum == nil || !sum.Interrupted || sum.Steps != 2 {
		t.Fatalf("interrupted run: %+v, %v", sum, err)
	}
	// A crash after writing part of a step: a torn line in each file.
	for _, f := range []string{fileSteps, fileSamples} {
		fh, err := os.OpenFile(filepath.Join(cut.Dir, f), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fh.WriteString(`{"step":3,"prom`)
		fh.Close()
	}
	sum, err = Run(t.Context(), cut, quietDeps(newFakePolicy(t, all).client(t, 4)))
	if err != nil || sum.StartStep != 2 || sum.Steps != 4 {
		t.Fatalf("resumed run: %+v, %v", sum, err)
	}
	for _, f := range []string{fileSamples, fileEval} {
		a := stripTimes(t, filepath.Join(whole.Dir, f))
		b := stripTimes(t, filepath.Join(cut.Dir, f))
		if a != b {
			t.Errorf("%s differs between the whole and the resumed run:\n%s\n---\n%s", f, a, b)
		}
	}
	if n := len(readLines[StepRecord](t, filepath.Join(cut.Dir, fileSteps))); n != 4 {
		t.Errorf("%d step records, want 4", n)
	}

	// The same directory with another configuration is refused.
	other := cut
	other.Generations = 4
	if _, err := Run(t.Context(), other, quietDeps(newFakePolicy(t, all).client(t, 4))); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("changed config: %v", err)
	}
	// More steps are fine.
	more := cut
	more.Steps = 5
	if sum, err := Run(t.Context(), more, quietDeps(newFakePolicy(t, all).client(t, 4))); err != nil || sum.Steps != 5 || sum.StartStep != 4 {
		t.Errorf("extended run: %+v, %v", sum, err)
	}
}

// stripTimes reads a JSON-lines file and drops the fields that measure wall time.
func stripTimes(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "seconds")
		if rep, ok := m["report"].(map[string]any); ok {
			delete(rep, "latency_p50_ns")
			delete(rep, "latency_p95_ns")
		}
		norm, _ := json.Marshal(m)
		out = append(out, string(norm))
	}
	return strings.Join(out, "\n")
}

func TestRunCountsFailures(t *testing.T) {
	fake := newFakePolicy(t, trainItems)
	fake.fail = func(w http.ResponseWriter, user string, n int) bool {
		switch {
		case strings.Contains(user, "vegetarian"):
			http.Error(w, `{"error":{"message":"overloaded"}}`, 500)
			return true
		case strings.Contains(user, "Bird watching"):
			_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
			return true
		case strings.Contains(user, "Harbor Health") && n >= 3:
			time.Sleep(600 * time.Millisecond) // past the client's timeout, from the second step on
		}
		return false
	}
	cfg := smallRun(t, 3)
	cfg.Eval.Every = 0
	cfg.GradAccum = 3
	client, err := llm.New(llm.Config{BaseURL: fake.URL + "/v1", Model: "policy", MaxRetries: -1, Concurrency: 4, Timeout: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(t.Context(), cfg, quietDeps(client))
	if err != nil {
		t.Fatal(err)
	}
	// Every step samples all three items: the diet prompt gets a 500, the hobby prompt an
	// HTML page, and the job prompt answers in the first step and times out after.
	if sum.Completions != 2 || sum.Failures.Requests != 8 || sum.Failures.Reasons["http 500"] != 3 ||
		sum.Failures.Reasons["bad response"] != 3 || sum.Failures.Reasons["timeout"] != 2 {
		t.Errorf("summary %+v", sum)
	}
	if sum.Failures.Completions != 0 { // a truncated answer has no verdict but is not a bad input
		t.Errorf("%d completions counted as failed", sum.Failures.Completions)
	}
}

func TestRunStops(t *testing.T) {
	for _, tt := range []struct {
		name string
		fail func(w http.ResponseWriter, user string, n int) bool
		want string
	}{
		{"model not served", func(w http.ResponseWriter, _ string, _ int) bool {
			http.Error(w, `{"error":{"message":"The model 'policy' does not exist.","type":"NotFoundError"}}`, 404)
			return true
		}, "does not exist"},
		{"endpoint down", func(w http.ResponseWriter, _ string, _ int) bool {
			http.Error(w, `{"error":{"message":"down"}}`, 503)
			return true
		}, "2 steps in a row without a completion"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakePolicy(t, trainItems)
			fake.fail = tt.fail
			cfg := smallRun(t, 10)
			cfg.MaxFailedSteps = 2
			sum, err := Run(t.Context(), cfg, quietDeps(fake.client(t, 4)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one mentioning %q", err, tt.want)
			}
			if sum != nil && sum.Interrupted {
				t.Error("a failure is not an interruption")
			}
		})
	}
}

func TestRunKLAndExport(t *testing.T) {
	fake := newFakePolicy(t, trainItems)
	cfg := smallRun(t, 2)
	cfg.Eval.Every = 0
	cfg.ExportRollouts = true
	ref := &fakeReference{}
	deps := quietDeps(fake.client(t, 4))
	deps.Reference = ref
	sum, err := Run(t.Context(), cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	// Every token is 0.25 nats less likely under the reference: k3 = e^-0.25 + 0.25 - 1.
	want := K3(-0.5, -0.75)
	if sum.KL == nil || !near(*sum.KL, want) || ref.calls != 8 {
		t.Fatalf("KL %v after %d reference calls, want %v after 8", sum.KL, ref.calls, want)
	}
	steps := readLines[StepRecord](t, filepath.Join(cfg.Dir, fileSteps))
	if steps[0].KLPenalty == nil || !near(*steps[0].KLPenalty, want*0.04) || steps[0].KLCompletions != 4 {
		t.Errorf("step KL %+v", steps[0])
	}
	rollouts := readLines[Rollout](t, filepath.Join(cfg.Dir, fileRollouts))
	if len(rollouts) != 8 {
		t.Fatalf("%d rollouts", len(rollouts))
	}
	ro := rollouts[0]
	if len(ro.Messages) != 2 || len(ro.Logprobs) == 0 || len(ro.Logprobs) != len(ro.TokenTexts) || len(ro.RefLogprobs) != len(ro.Logprobs) ||
		strings.Join(ro.TokenTexts, "") != ro.Completion || ro.KL == nil {
		t.Errorf("rollout %+v", ro)
	}

	// A reference that fails is counted, not fatal.
	cfg.Dir = t.TempDir()
	deps.Reference = &fakeReference{err: errors.New("reference down")}
	sum, err = Run(t.Context(), cfg, deps)
	if err != nil || sum.KL != nil || sum.Failures.Reference != 8 {
		t.Errorf("failing reference: %+v, %v", sum, err)
	}
}

func TestRunConfigErrors(t *testing.T) {
	fake := newFakePolicy(t, trainItems)
	cfg := smallRun(t, 1)
	bad := cfg
	bad.Dir = ""
	if _, err := Run(t.Context(), bad, quietDeps(fake.client(t, 1))); err == nil {
		t.Error("no run directory accepted")
	}
	if _, err := Run(t.Context(), cfg, Deps{Items: trainItems}); err == nil {
		t.Error("no policy accepted")
	}
	broken := trainItems[0]
	broken.Gold.Type = judge.TypeNone
	deps := quietDeps(fake.client(t, 1))
	deps.Items = []eval.Item{broken}
	if _, err := Run(t.Context(), cfg, deps); err == nil || !strings.Contains(err.Error(), "training item 0") {
		t.Errorf("bad item: %v", err)
	}
}

func TestRunPromptsFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.jsonl")
	var buf bytes.Buffer
	if err := eval.WriteItems(&buf, trainItems); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	items, err := LoadPrompts(PromptConfig{Source: SourceFile, Path: path})
	if err != nil || len(items) != 3 || items[0].ID != grpotest.ItemJob.ID {
		t.Fatalf("LoadPrompts: %d items, %v", len(items), err)
	}
	if _, err := LoadPrompts(PromptConfig{Source: SourceFile, Path: filepath.Join(t.TempDir(), "none.jsonl")}); err == nil {
		t.Error("missing file accepted")
	}
	items, err = LoadPrompts(PromptConfig{Source: SourceGenerator, Items: 20, Seed: 7})
	if err != nil || len(items) != 20 {
		t.Errorf("generator: %d items, %v", len(items), err)
	}
}
