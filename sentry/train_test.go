package sentry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// slotTask is a synthetic, separable version of the real task: each text states a value of
// one of a few slots; its embedding is the slot's direction plus the value's plus noise. Two
// texts are on the same topic (YTop 1) when their slots match, and logically alike (YLog 1)
// only when they state the same value of the same slot; a dot product of unit vectors can
// fit these targets exactly (one orthogonal direction per slot and value).
type slotTask struct {
	dim     int
	slots   [][]float32
	values  [][][]float32
	noise   float64
	nValues int
}

func newSlotTask(seed uint64, dim, slots, values int) *slotTask {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := &slotTask{dim: dim, noise: 0.1, nValues: values}
	for range slots {
		t.slots = append(t.slots, randVec(rng, dim))
		var vs [][]float32
		for range values {
			vs = append(vs, randVec(rng, dim))
		}
		t.values = append(t.values, vs)
	}
	return t
}

func (t *slotTask) embed(rng *rand.Rand, slot, value int) []float32 {
	e := make([]float32, t.dim)
	for i := range e {
		e[i] = t.slots[slot][i] + 0.7*t.values[slot][value][i] + float32(t.noise*rng.NormFloat64())
	}
	return e
}

func (t *slotTask) examples(seed uint64, n int) []Example {
	rng := rand.New(rand.NewPCG(seed, 8))
	exs := make([]Example, n)
	for i := range exs {
		s1, v1 := rng.IntN(len(t.slots)), rng.IntN(t.nValues)
		s2, v2 := s1, rng.IntN(t.nValues)
		if rng.IntN(3) == 0 {
			s2 = (s1 + 1 + rng.IntN(len(t.slots)-1)) % len(t.slots)
		}
		ex := Example{U: t.embed(rng, s1, v1), P: t.embed(rng, s2, v2)}
		if s1 == s2 {
			ex.YTop = 1
			if v1 == v2 {
				ex.YLog = 1
			}
		}
		exs[i] = ex
	}
	return exs
}

func smallConfig() Config {
	return Config{Hidden: 24, Out: 16, LR: 1e-2, BatchSize: 16, Epochs: 6, Seed: 3}
}

func valLossOf(h *gate.Heads, val []Example, alpha, beta float64) float64 {
	r := &trainRun{val: val}
	top, log, err := r.validate(h)
	if err != nil {
		panic(err)
	}
	return alpha*top + beta*log
}

func TestTrainLearns(t *testing.T) {
	task := newSlotTask(1, 16, 4, 3)
	train, val := task.examples(2, 300), task.examples(3, 150)
	cfg := smallConfig()
	cfg.Epochs = 12
	dir := t.TempDir()
	var progress bytes.Buffer
	epochs := 0
	res, err := Train(t.Context(), cfg, train, val, Options{
		Dir: dir, Backbone: gate.Backbone{ID: "synthetic", SHA256: strings.Repeat("ab", 32)},
		Progress: &progress, Logger: quiet, OnEpoch: func(EpochMetrics) { epochs++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	start := valLossOf(gate.NewHeads(16, cfg.Hidden, cfg.Out, rand.New(rand.NewPCG(cfg.Seed, 0))), val, 1, 1)
	if res.Best.ValLoss > 0.2*start {
		t.Errorf("best validation loss %.4f, want below 20%% of the initial %.4f", res.Best.ValLoss, start)
	}
	if got := valLossOf(res.Heads, val, 1, 1); math.Abs(got-res.Best.ValLoss) > 1e-9 {
		t.Errorf("result heads have validation loss %v, best epoch reported %v", got, res.Best.ValLoss)
	}
	if len(res.History) != cfg.Epochs || epochs != cfg.Epochs {
		t.Errorf("%d epochs in history, %d callbacks, want %d", len(res.History), epochs, cfg.Epochs)
	}
	if res.Evaluation.AUC < 0.95 {
		t.Errorf("conflict AUC %.3f, want ≥ 0.95", res.Evaluation.AUC)
	}
	if res.Calibration == nil || res.Evaluation.Recall < 0.95 {
		t.Errorf("calibrated recall %.3f (report %+v), want ≥ 0.95", res.Evaluation.Recall, res.Calibration)
	}
	if !strings.Contains(progress.String(), "epoch 12/12") {
		t.Errorf("progress output lacks the last epoch: %q", progress.String())
	}

	best, err := LoadCheckpoint(filepath.Join(dir, BestFile), gate.Backbone{ID: "synthetic", SHA256: strings.Repeat("AB", 32), Dim: 16})
	if err != nil {
		t.Fatal(err)
	}
	if best.Meta.Thresholds != res.Thresholds || !best.Meta.Calibrated {
		t.Errorf("best checkpoint thresholds %+v (calibrated %v), want %+v", best.Meta.Thresholds, best.Meta.Calibrated, res.Thresholds)
	}
	if best.Meta.Epoch != res.Best.Epoch {
		t.Errorf("best checkpoint from epoch %d, result says %d", best.Meta.Epoch, res.Best.Epoch)
	}
	metrics, err := os.ReadFile(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(metrics), "\n"); n != cfg.Epochs || !strings.Contains(string(metrics), `"val_loss_log":`) {
		t.Errorf("metrics file has %d lines:\n%s", n, metrics)
	}
	png, err := os.ReadFile(filepath.Join(dir, LossPlotFile))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("loss plot is not a PNG (err %v)", err)
	}
	for _, f := range []string{LastFile, OptimizerPath(LastFile), OptimizerPath(BestFile)} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func headsEqual(t *testing.T, what string, got, want *gate.Heads) {
	t.Helper()
	g, w := gate.Params(got), gate.Params(want)
	if got.LogicKind() != want.LogicKind() || len(g) != len(w) {
		t.Errorf("%s: %s logic head with %d tensors, want %s with %d", what, got.LogicKind(), len(g), want.LogicKind(), len(w))
		return
	}
	names := gate.LayoutOf(got).Names()
	for i := range g {
		if len(*g[i]) != len(*w[i]) {
			t.Errorf("%s: %s has %d values, want %d", what, names[i], len(*g[i]), len(*w[i]))
			return
		}
		for j := range *g[i] {
			if (*g[i])[j] != (*w[i])[j] {
				t.Errorf("%s: %s[%d] = %v, want %v", what, names[i], j, (*g[i])[j], (*w[i])[j])
				return
			}
		}
	}
}

func TestTrainDeterministic(t *testing.T) {
	task := newSlotTask(4, 8, 3, 2)
	train, val := task.examples(5, 70), task.examples(6, 30)
	cfg := smallConfig()
	cfg.Epochs = 2
	run := func(seed uint64) *Result {
		c := cfg
		c.Seed = seed
		res, err := Train(t.Context(), c, train, val, Options{Dir: t.TempDir(), Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(9), run(9)
	headsEqual(t, "same seed", b.Heads, a.Heads)
	if a.History[1].TrainLoss != b.History[1].TrainLoss {
		t.Errorf("same seed, train losses %v and %v", a.History[1].TrainLoss, b.History[1].TrainLoss)
	}
	c := run(10)
	if c.Heads.Topic.W1[0] == a.Heads.Topic.W1[0] {
		t.Error("a different seed gave the same first weight")
	}
}

// TestTrainCancelAndResume cancels a run in the middle of its second epoch, checks that the
// state was saved, resumes it, and expects exactly the weights of an uninterrupted run.
func TestTrainCancelAndResume(t *testing.T) {
	for _, logic := range []string{gate.LogicCosine, gate.LogicPair} {
		t.Run(logic, func(t *testing.T) { testTrainCancelAndResume(t, logic) })
	}
}

func testTrainCancelAndResume(t *testing.T, logic string) {
	task := newSlotTask(7, 8, 3, 2)
	train, val := task.examples(8, 75), task.examples(9, 30) // 5 batches of 16, the last of 11
	cfg := smallConfig()
	cfg.Epochs = 3
	cfg.Schedule = ScheduleCosine
	cfg.WarmupSteps = 3
	cfg.Logic = logic
	bb := gate.Backbone{ID: "synthetic", SHA256: strings.Repeat("0", 64)}

	full, err := Train(t.Context(), cfg, train, val, Options{Dir: t.TempDir(), Backbone: bb, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	part, err := Train(ctx, cfg, train, val, Options{Dir: dir, Backbone: bb, Logger: quiet,
		afterStep: func(epoch, batch int) {
			if epoch == 1 && batch == 2 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: error %v, want context.Canceled", err)
	}
	if part == nil || len(part.History) != 1 {
		t.Fatalf("interrupted run returned %+v", part)
	}
	last, err := LoadCheckpoint(filepath.Join(dir, LastFile), bb)
	if err != nil {
		t.Fatalf("no checkpoint after cancellation: %v", err)
	}
	if m := last.Meta; m.Epoch != 1 || m.Progress.EpochBatches != 3 || m.Step != 8 || m.Progress.Count != 48 {
		t.Errorf("saved at epoch %d, batch %d, step %d, %d examples; want 1, 3, 8, 48", m.Epoch, m.Progress.EpochBatches, m.Step, m.Progress.Count)
	}

	resumed, err := Train(t.Context(), cfg, train, val, Options{Dir: dir, Backbone: bb, Logger: quiet, Resume: filepath.Join(dir, LastFile)})
	if err != nil {
		t.Fatal(err)
	}
	if got := resumed.Heads.LogicKind(); got != logic {
		t.Errorf("resumed run has a %s logic head, want %s", got, logic)
	}
	headsEqual(t, "resumed best", resumed.Heads, full.Heads)
	if len(resumed.History) != len(full.History) {
		t.Fatalf("resumed history has %d epochs, want %d", len(resumed.History), len(full.History))
	}
	for i := range full.History {
		f, r := full.History[i], resumed.History[i]
		f.Seconds, r.Seconds = 0, 0
		if f != r {
			t.Errorf("epoch %d: resumed %+v, uninterrupted %+v", i+1, r, f)
		}
	}
	a, err := ReadCheckpoint(full.LastPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadCheckpoint(resumed.LastPath)
	if err != nil {
		t.Fatal(err)
	}
	headsEqual(t, "resumed last", b.Heads, a.Heads)
	if resumed.Thresholds != full.Thresholds {
		t.Errorf("thresholds %+v after resuming, %+v uninterrupted", resumed.Thresholds, full.Thresholds)
	}
}

func TestTrainResumeRefusesMismatch(t *testing.T) {
	task := newSlotTask(7, 8, 3, 2)
	train, val := task.examples(8, 40), task.examples(9, 20)
	cfg := smallConfig()
	cfg.Epochs = 1
	dir := t.TempDir()
	bb := gate.Backbone{ID: "a", SHA256: strings.Repeat("1", 64)}
	if _, err := Train(t.Context(), cfg, train, val, Options{Dir: dir, Backbone: bb, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	last := filepath.Join(dir, LastFile)
	tests := []struct {
		name   string
		mutate func(*Config, *Options, *[]Example)
		want   error
		msg    string
	}{
		{"backbone id", func(_ *Config, o *Options, _ *[]Example) { o.Backbone.ID = "b" }, gate.ErrBackboneMismatch, `"a", loading for "b"`},
		{"backbone sha", func(_ *Config, o *Options, _ *[]Example) { o.Backbone.SHA256 = strings.Repeat("2", 64) }, gate.ErrBackboneMismatch, "sha256"},
		{"hidden size", func(c *Config, _ *Options, _ *[]Example) { c.Hidden = 8 }, gate.ErrShapeMismatch, "8→24→16, want 8→8→16"},
		{"data", func(_ *Config, _ *Options, tr *[]Example) { *tr = (*tr)[1:] }, nil, "data hash"},
		{"batch size", func(c *Config, _ *Options, _ *[]Example) { c.BatchSize = 8 }, nil, "batch size 16 differs from 8"},
		{"logic head", func(c *Config, _ *Options, _ *[]Example) { c.Logic = gate.LogicPair }, nil, "logic head cosine differs from pair"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, o, tr := cfg, Options{Dir: t.TempDir(), Backbone: bb, Logger: quiet, Resume: last}, train
			c.Epochs = 2
			tc.mutate(&c, &o, &tr)
			_, err := Train(t.Context(), c, tr, val, o)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
}

// TestTrainEarlyStopping trains on labels that contradict the validation labels, so the
// validation loss gets worse as training goes on and patience runs out.
func TestTrainEarlyStopping(t *testing.T) {
	task := newSlotTask(11, 8, 3, 2)
	train := task.examples(12, 60)
	val := make([]Example, len(train))
	for i, ex := range train {
		ex.YTop, ex.YLog = 1-ex.YTop, 1-ex.YLog
		val[i] = ex
	}
	cfg := smallConfig()
	cfg.Epochs, cfg.Patience = 30, 2
	res, err := Train(t.Context(), cfg, train, val, Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	n := len(res.History)
	if !res.EarlyStopped || n >= cfg.Epochs {
		t.Fatalf("trained %d epochs, early stopped %v", n, res.EarlyStopped)
	}
	if res.History[n-1].Epoch-res.Best.Epoch != cfg.Patience {
		t.Errorf("stopped after epoch %d, best epoch %d, patience %d", res.History[n-1].Epoch, res.Best.Epoch, cfg.Patience)
	}
}

func TestTrainRejectsBadInput(t *testing.T) {
	task := newSlotTask(13, 8, 3, 2)
	good := task.examples(14, 20)
	nan := slicesClone(good)
	nan[3].P = append([]float32(nil), nan[3].P...)
	nan[3].P[2] = float32(math.NaN())
	short := slicesClone(good)
	short[1].U = short[1].U[:5]
	tests := []struct {
		name       string
		cfg        Config
		train, val []Example
		opts       Options
		want       string
	}{
		{"NaN embedding", smallConfig(), nan, good, Options{}, "train example 3: P[2] is NaN"},
		{"wrong size", smallConfig(), short, good, Options{}, "train example 1: U has 5 values, want 8"},
		{"backbone size", smallConfig(), good, good, Options{Backbone: gate.Backbone{Dim: 16}}, "train example 0: U has 8 values, want 16"},
		{"no validation", smallConfig(), good, nil, Options{}, "0 validation examples"},
		{"bad config", Config{BatchSize: -1, Alpha: math.Inf(1)}, good, good, Options{}, "batch size -1 is negative"},
		{"diverging", Config{Hidden: 8, Out: 4, LR: 1e30, BatchSize: 4, Epochs: 1}, good, good, Options{}, "epoch 1, batch 2 (train examples [4 0 9 7]): loss is not finite (topic NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Dir, tc.opts.Logger = t.TempDir(), quiet
			_, err := Train(t.Context(), tc.cfg, tc.train, tc.val, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func slicesClone(exs []Example) []Example { return append([]Example(nil), exs...) }
