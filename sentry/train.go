package sentry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/atma-dev/atma/internal/atomicfile"

	"github.com/schollz/progressbar/v3"
	"gorgonia.org/tensor"

	"github.com/atma-dev/atma/sentry/gate"
)

// Files Train writes in Options.Dir.
const (
	LastFile     = "sentry_last.safetensors" // the latest state, every epoch and on cancellation
	BestFile     = "sentry_best.safetensors" // the weights with the lowest validation loss
	MetricsFile  = "metrics.jsonl"           // one EpochMetrics per line
	LossPlotFile = "loss.png"                // train and validation loss per head
)

// Options wires a training run to its surroundings; Config holds the hyper-parameters.
type Options struct {
	// Dir receives the checkpoints (LastFile and BestFile, each with its optimizer state at
	// OptimizerPath), MetricsFile and LossPlotFile. Required.
	Dir string
	// Backbone is recorded in the checkpoints and checked when resuming. Its Dim, when set,
	// must match the examples' embeddings.
	Backbone gate.Backbone
	// DataHash identifies the data in the checkpoints; empty means HashExamples(train, val).
	// Resuming requires the same hash.
	DataHash string
	// Resume is a checkpoint to continue from, with its optimizer state beside it.
	Resume string
	// CalibrationSets, when set, are what the thresholds are calibrated on (CalibrateSets:
	// the target recall on each set) instead of the validation split alone — for instance
	// the validation pairs of the families seen in training and of those held out of it.
	CalibrationSets [][]Example
	// KeepEpochs also keeps every epoch's weights as sentry_epoch_NNN.safetensors.
	KeepEpochs bool
	// Progress receives a progress bar per epoch; nil means none.
	Progress io.Writer
	// Logger receives a line per epoch; nil means slog.Default().
	Logger *slog.Logger
	// OnEpoch, if set, is called after each epoch's checkpoint is written.
	OnEpoch func(EpochMetrics)

	// afterStep is a test hook called after each update with the 0-based epoch and batch.
	afterStep func(epoch, batch int)
}

// Result is what a training run produced.
type Result struct {
	Heads        *gate.Heads     // the best weights (lowest validation loss)
	Best         EpochMetrics    // the best epoch
	History      []EpochMetrics  // every completed epoch, resumed ones included
	Thresholds   gate.Thresholds // written into the best checkpoint
	Calibration  *CalibrationReport
	Evaluation   Evaluation // the best weights and Thresholds on the validation split
	BestPath     string
	LastPath     string
	EarlyStopped bool
}

// trainRun holds one run's state.
type trainRun struct {
	cfg      Config
	opts     Options
	log      *slog.Logger
	backbone gate.Backbone
	dataHash string
	train    []Example
	val      []Example
	net      *netGraph
	opt      *adamW
	epoch    int // completed epochs
	step     int
	prog     Progress
	best     *gate.Heads
	lastVal  EpochMetrics // the latest validation, for checkpoint metadata
}

// Train fits the two heads on train, keeps the weights with the lowest loss on val, and
// calibrates the gate thresholds on val (unless cfg.Calibration.Skip). Every epoch it writes
// LastFile and, when validation improves, BestFile, with their optimizer state; metrics and
// the loss plot go to opts.Dir too. When ctx is cancelled it saves LastFile at the current
// batch and returns the partial result with an error wrapping ctx.Err(); resuming from that
// file (Options.Resume) continues exactly where it stopped. Embeddings or a loss that are
// NaN or infinite stop training with an error that names the example or batch.
func Train(ctx context.Context, cfg Config, train, val []Example, opts Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if opts.Dir == "" {
		return nil, errors.New("train sentry: no output directory")
	}
	if len(train) == 0 || len(val) == 0 {
		return nil, fmt.Errorf("train sentry: %d training and %d validation examples; both splits are needed", len(train), len(val))
	}
	dim, err := checkExamples("train", train, opts.Backbone.Dim)
	if err != nil {
		return nil, fmt.Errorf("train sentry: %w", err)
	}
	if _, err := checkExamples("validation", val, dim); err != nil {
		return nil, fmt.Errorf("train sentry: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("train sentry: %w", err)
	}
	r := &trainRun{cfg: cfg, opts: opts, log: opts.Logger, backbone: opts.Backbone, dataHash: opts.DataHash, train: train, val: val}
	if r.log == nil {
		r.log = slog.Default()
	}
	r.backbone.Dim = dim
	if r.dataHash == "" {
		r.dataHash = HashExamples(train, val)
	}
	r.prog.BestValLoss = math.Inf(1)
	r.lastVal = EpochMetrics{ValLoss: math.NaN(), ValLossTop: math.NaN(), ValLossLog: math.NaN()}

	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	heads := gate.NewHeads(dim, cfg.Hidden, cfg.Out, rng)
	if cfg.Logic == gate.LogicPair {
		heads.Pair = gate.NewPairHead(cfg.Out, cfg.PairHidden, rng)
	}
	var resumed *Checkpoint
	if opts.Resume != "" {
		if resumed, err = r.loadResume(); err != nil {
			return nil, fmt.Errorf("train sentry: resume: %w", err)
		}
		heads = resumed.Heads
	}
	r.net, err = newNetGraph(heads, min(cfg.BatchSize, len(train)), cfg.Alpha, cfg.Beta, tensor.Float32)
	if err != nil {
		return nil, fmt.Errorf("train sentry: %w", err)
	}
	defer r.net.close()
	r.opt = newAdamW(cfg, r.net.paramData(), r.net.dims.Names())
	if resumed != nil {
		if err := readOptimizer(OptimizerPath(opts.Resume), r.opt, r.net.dims, resumed.Meta.WeightsSHA256); err != nil {
			return nil, fmt.Errorf("train sentry: resume: %w", err)
		}
		if r.opt.t != r.step {
			return nil, fmt.Errorf("train sentry: resume: optimizer state is at step %d, checkpoint at %d", r.opt.t, r.step)
		}
	}
	if r.best == nil {
		r.best = heads.Clone() // until the first validation
	}
	metrics, err := r.openMetrics()
	if err != nil {
		return nil, fmt.Errorf("train sentry: %w", err)
	}
	defer metrics.Close()

	res := &Result{BestPath: filepath.Join(opts.Dir, BestFile), LastPath: filepath.Join(opts.Dir, LastFile)}
	if err := r.loop(ctx, metrics, res); err != nil {
		res.History, res.Heads = r.prog.History, r.best
		return res, fmt.Errorf("train sentry: %w", err)
	}
	if err := r.finish(res); err != nil {
		return res, fmt.Errorf("train sentry: %w", err)
	}
	return res, nil
}

// loadResume reads the checkpoint to resume from and checks that it fits this run.
func (r *trainRun) loadResume() (*Checkpoint, error) {
	c, err := LoadCheckpoint(r.opts.Resume, r.backbone)
	if err != nil {
		return nil, err
	}
	m := c.Meta
	if err := m.CheckShape(r.cfg.Hidden, r.cfg.Out); err != nil {
		return nil, err
	}
	var errs []error
	if m.DataHash != r.dataHash {
		errs = append(errs, fmt.Errorf("checkpoint data hash %s differs from this data's %s", m.DataHash, r.dataHash))
	}
	old := m.Config
	for _, f := range []struct {
		name     string
		old, new any
	}{{"batch size", old.BatchSize, r.cfg.BatchSize}, {"seed", old.Seed, r.cfg.Seed}, {"alpha", old.Alpha, r.cfg.Alpha}, {"beta", old.Beta, r.cfg.Beta},
		{"logic head", c.Heads.LogicKind(), r.cfg.Logic}, {"pair head hidden size", old.PairHidden, r.cfg.PairHidden}} {
		if f.old != f.new {
			errs = append(errs, fmt.Errorf("checkpoint %s %v differs from %v", f.name, f.old, f.new))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r.epoch, r.step, r.prog = m.Epoch, m.Step, m.Progress
	if len(r.prog.History) > 0 {
		r.lastVal = r.prog.History[len(r.prog.History)-1]
	}
	if r.prog.BestEpoch > 0 {
		best, err := r.findBest(c)
		if err != nil {
			return nil, err
		}
		r.best = best
	}
	r.log.Info("resuming sentry training", "checkpoint", r.opts.Resume, "epoch", m.Epoch, "batch", r.prog.EpochBatches, "step", m.Step)
	return c, nil
}

// findBest returns the weights of the best epoch recorded in the resumed progress: the
// resumed checkpoint itself if it is from that epoch's end, else BestFile in Dir.
func (r *trainRun) findBest(c *Checkpoint) (*gate.Heads, error) {
	if c.Meta.Epoch == r.prog.BestEpoch && r.prog.EpochBatches == 0 {
		return c.Heads.Clone(), nil
	}
	path := filepath.Join(r.opts.Dir, BestFile)
	b, err := LoadCheckpoint(path, r.backbone)
	if err != nil {
		return nil, fmt.Errorf("best weights of epoch %d: %w", r.prog.BestEpoch, err)
	}
	if b.Meta.Epoch != r.prog.BestEpoch || b.Meta.DataHash != r.dataHash {
		return nil, fmt.Errorf("%s is from epoch %d, the resumed run's best is epoch %d", path, b.Meta.Epoch, r.prog.BestEpoch)
	}
	return b.Heads, nil
}

// openMetrics (re)writes MetricsFile with the history so far and returns it for appending.
func (r *trainRun) openMetrics() (*os.File, error) {
	f, err := os.Create(filepath.Join(r.opts.Dir, MetricsFile))
	if err != nil {
		return nil, fmt.Errorf("open metrics: %w", err)
	}
	for _, m := range r.prog.History {
		if err := writeMetricsLine(f, m); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// loop runs the epochs.
func (r *trainRun) loop(ctx context.Context, metrics io.Writer, res *Result) error {
	cfg := r.cfg
	bs := cfg.BatchSize
	nb := (len(r.train) + bs - 1) / bs
	total := cfg.Epochs * nb
	batch := make([]Example, 0, bs)
	for ; r.epoch < cfg.Epochs; r.epoch++ {
		start := time.Now()
		perm := rand.New(rand.NewPCG(cfg.Seed, uint64(r.epoch)+1)).Perm(len(r.train))
		bar := r.newBar(nb)
		var lr float64
		for bi := r.prog.EpochBatches; bi < nb; bi++ {
			if err := ctx.Err(); err != nil {
				if serr := r.save(LastFile, r.epoch); serr != nil {
					return errors.Join(fmt.Errorf("interrupted at epoch %d, batch %d: %w", r.epoch+1, bi+1, err), serr)
				}
				r.log.Info("sentry training interrupted; state saved", "epoch", r.epoch+1, "batch", bi+1, "checkpoint", filepath.Join(r.opts.Dir, LastFile))
				return fmt.Errorf("interrupted at epoch %d, batch %d (state saved to %s): %w", r.epoch+1, bi+1, filepath.Join(r.opts.Dir, LastFile), err)
			}
			idx := perm[bi*bs : min((bi+1)*bs, len(perm))]
			batch = batch[:0]
			for _, i := range idx {
				batch = append(batch, r.train[i])
			}
			top, log, err := r.net.run(batch)
			if err != nil {
				return fmt.Errorf("epoch %d, batch %d: %w", r.epoch+1, bi+1, err)
			}
			if bad := math.IsNaN(top) || math.IsInf(top, 0) || math.IsNaN(log) || math.IsInf(log, 0); bad {
				return fmt.Errorf("epoch %d, batch %d (train examples %s): loss is not finite (topic %v, logic %v)",
					r.epoch+1, bi+1, describeIndices(idx), top, log)
			}
			grads, err := r.net.grads()
			if err != nil {
				return err
			}
			lr = learningRate(cfg, r.step+1, total)
			if err := r.opt.step(grads, lr); err != nil {
				return fmt.Errorf("epoch %d, batch %d (train examples %s): %w", r.epoch+1, bi+1, describeIndices(idx), err)
			}
			r.step++
			n := float64(len(batch))
			r.prog.SumTop += top * n
			r.prog.SumLog += log * n
			r.prog.Count += len(batch)
			r.prog.EpochBatches = bi + 1
			if bar != nil {
				_ = bar.Add(1)
			}
			if r.opts.afterStep != nil {
				r.opts.afterStep(r.epoch, bi)
			}
		}
		if bar != nil {
			_ = bar.Finish()
		}
		if lr == 0 && r.step > 0 { // resumed at an epoch's end: report the last rate used
			lr = learningRate(cfg, r.step, total)
		}
		stop, err := r.endEpoch(metrics, lr, time.Since(start))
		if err != nil {
			return err
		}
		if stop {
			res.EarlyStopped = true
			break
		}
	}
	return nil
}

// endEpoch validates, records and saves the epoch just trained, and reports whether early
// stopping says to stop.
func (r *trainRun) endEpoch(metrics io.Writer, lr float64, took time.Duration) (bool, error) {
	cur := r.net.heads()
	vt, vl, err := r.validate(cur)
	if err != nil {
		return false, fmt.Errorf("epoch %d: %w", r.epoch+1, err)
	}
	m := EpochMetrics{
		Epoch: r.epoch + 1, Step: r.step,
		TrainLossTop: r.prog.SumTop / float64(max(r.prog.Count, 1)),
		TrainLossLog: r.prog.SumLog / float64(max(r.prog.Count, 1)),
		ValLossTop:   vt, ValLossLog: vl,
		ValLoss: r.cfg.Alpha*vt + r.cfg.Beta*vl,
		LR:      lr,
	}
	m.TrainLoss = r.cfg.Alpha*m.TrainLossTop + r.cfg.Beta*m.TrainLossLog
	m.Best = m.ValLoss < r.prog.BestValLoss
	if m.Best {
		r.prog.BestValLoss, r.prog.BestEpoch, r.prog.BadEpochs = m.ValLoss, m.Epoch, 0
		r.best = cur
	} else {
		r.prog.BadEpochs++
	}
	r.prog.SumTop, r.prog.SumLog, r.prog.Count, r.prog.EpochBatches = 0, 0, 0, 0
	m.Seconds = took.Seconds()
	r.prog.History = append(r.prog.History, m)
	r.lastVal = m
	if err := r.save(LastFile, m.Epoch); err != nil {
		return false, err
	}
	if m.Best {
		if err := r.save(BestFile, m.Epoch); err != nil {
			return false, err
		}
	}
	if r.opts.KeepEpochs {
		if err := WriteCheckpoint(filepath.Join(r.opts.Dir, fmt.Sprintf("sentry_epoch_%03d.safetensors", m.Epoch)), r.checkpoint(cur, m.Epoch)); err != nil {
			return false, err
		}
	}
	if err := writeMetricsLine(metrics, m); err != nil {
		return false, err
	}
	if err := writeLossPlot(filepath.Join(r.opts.Dir, LossPlotFile), r.prog.History); err != nil {
		return false, err
	}
	r.log.Info("sentry epoch", "epoch", m.Epoch, "step", m.Step, "train_loss", m.TrainLoss, "val_loss", m.ValLoss,
		"val_loss_top", m.ValLossTop, "val_loss_log", m.ValLossLog, "best", m.Best, "seconds", m.Seconds)
	if r.opts.OnEpoch != nil {
		r.opts.OnEpoch(m)
	}
	return r.cfg.Patience > 0 && r.prog.BadEpochs >= r.cfg.Patience, nil
}

// validate returns the validation MSE of each head.
func (r *trainRun) validate(h *gate.Heads) (top, log float64, err error) {
	a, b, _ := similarities(h, r.val)
	for i, ex := range r.val {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return 0, 0, fmt.Errorf("validation example %d: similarity is not finite (topic %v, logic %v)", i, a[i], b[i])
		}
		dt, dl := a[i]-float64(ex.YTop), b[i]-float64(ex.YLog)
		top += dt * dt
		log += dl * dl
	}
	n := float64(len(r.val))
	return top / n, log / n, nil
}

// checkpoint assembles a checkpoint of h after completed epochs with the run's current
// metadata and the configured (uncalibrated) thresholds.
func (r *trainRun) checkpoint(h *gate.Heads, completed int) *Checkpoint {
	return &Checkpoint{Heads: h, Meta: Meta{
		Meta:  gate.Meta{Backbone: r.backbone, Hidden: r.cfg.Hidden, Out: r.cfg.Out, Thresholds: r.cfg.Thresholds},
		Alpha: r.cfg.Alpha, Beta: r.cfg.Beta,
		Config: r.cfg, DataHash: r.dataHash,
		Epoch: completed, Step: r.step,
		ValLoss: r.lastVal.ValLoss, ValLossTop: r.lastVal.ValLossTop, ValLossLog: r.lastVal.ValLossLog,
		Progress: r.prog,
	}}
}

// save writes the current weights to file in Dir, with the optimizer state beside it, after
// completed epochs (and r.prog.EpochBatches batches of the next).
func (r *trainRun) save(file string, completed int) error {
	path := filepath.Join(r.opts.Dir, file)
	c := r.checkpoint(r.net.heads(), completed)
	b, sum, err := c.encode()
	if err != nil {
		return err
	}
	// The optimizer state goes first: a crash between the two writes leaves a new sidecar next
	// to old weights, which resuming refuses (checksum mismatch) instead of mixing them.
	if err := writeOptimizer(OptimizerPath(path), r.opt, r.net.dims, sum); err != nil {
		return err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	return nil
}

// finish calibrates the thresholds on the validation split, rewrites BestFile with them and
// evaluates the best weights.
func (r *trainRun) finish(res *Result) error {
	res.History = r.prog.History
	res.Heads = r.best
	for _, m := range r.prog.History {
		if m.Epoch == r.prog.BestEpoch {
			res.Best = m
		}
	}
	th := r.cfg.Thresholds
	calibrated := false
	if !r.cfg.Calibration.Skip {
		sets := r.opts.CalibrationSets
		if len(sets) == 0 {
			sets = [][]Example{r.val}
		}
		rep, err := CalibrateSets(r.best, sets, r.cfg.Calibration)
		switch {
		case errors.Is(err, ErrNoConflicts):
			r.log.Warn("sentry calibration skipped: the validation split has no conflicting pairs; keeping thresholds", "tau_top", th.Top, "tau_log", th.Log, "tau_gap", th.Gap)
		case err != nil:
			return err
		default:
			th, calibrated = rep.Thresholds, true
			res.Calibration = &rep
			if rep.SetRecalls != nil {
				r.log.Info("sentry calibration sets", "recalls", rep.SetRecalls, "conflicts", rep.SetConflicts)
			}
		}
	}
	res.Thresholds = th
	if r.prog.BestEpoch > 0 {
		best, err := ReadCheckpoint(res.BestPath)
		if err != nil {
			return err
		}
		best.Meta.Thresholds, best.Meta.Calibrated = th, calibrated
		if err := WriteCheckpoint(res.BestPath, best); err != nil {
			return err
		}
	}
	ev, err := Evaluate(r.best, gate.NewGate(th), r.val)
	if err != nil {
		return err
	}
	res.Evaluation = ev
	r.log.Info("sentry training done", "best_epoch", r.prog.BestEpoch, "val_loss", res.Best.ValLoss,
		"tau_top", th.Top, "tau_log", th.Log, "tau_gap", th.Gap, "calibrated", calibrated,
		"recall", ev.Recall, "precision", ev.Precision, "routing_rate", ev.RoutingRate, "auc", ev.AUC)
	return nil
}

// newBar returns a progress bar for one epoch, or nil when progress is not wanted.
func (r *trainRun) newBar(batches int) *progressbar.ProgressBar {
	if r.opts.Progress == nil {
		return nil
	}
	bar := progressbar.NewOptions(batches,
		progressbar.OptionSetWriter(r.opts.Progress),
		progressbar.OptionSetDescription(fmt.Sprintf("epoch %d/%d", r.epoch+1, r.cfg.Epochs)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(r.opts.Progress) }),
	)
	if r.prog.EpochBatches > 0 {
		_ = bar.Set(r.prog.EpochBatches)
	}
	return bar
}

// describeIndices prints up to eight indices.
func describeIndices(idx []int) string {
	if len(idx) <= 8 {
		return fmt.Sprint(idx)
	}
	return fmt.Sprintf("%v … (%d in all)", idx[:8], len(idx))
}

// HashExamples returns a hex sha256 over the embeddings and targets of both splits, in order.
func HashExamples(train, val []Example) string {
	h := sha256.New()
	var buf [4]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(buf[:], v)
		h.Write(buf[:])
	}
	for _, split := range [][]Example{train, val} {
		put(uint32(len(split)))
		for _, ex := range split {
			put(uint32(len(ex.U)))
			for _, v := range ex.U {
				put(math.Float32bits(v))
			}
			for _, v := range ex.P {
				put(math.Float32bits(v))
			}
			put(math.Float32bits(ex.YTop))
			put(math.Float32bits(ex.YLog))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
