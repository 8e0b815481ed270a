package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/atma-dev/atma/internal/atomicfile"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/onnx"
	"github.com/atma-dev/atma/sentry"
	"github.com/atma-dev/atma/sentry/gate"
)

// sentryCommands are the verbs of the sentry tree (`sentry …` and `atma sentry …`).
func sentryCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{
		newCmdSentryTrain(f, nil), newCmdSentryEval(f, nil), newCmdSentryCalibrate(f, nil),
		newCmdSentryGate(f, nil), newCmdSentryExport(f, nil),
	}
}

// sentryDataOptions say which dataset and split the Sentry commands use. The same values
// give the same split, so eval and calibrate see what train held back.
type sentryDataOptions struct {
	Data     string
	Seed     uint64
	HoldOut  []string
	ValFams  []string
	ValFrac  float64
	GenSeed  uint64
	Echo     bool
	Task     string
	Batch    int
	NoCache  bool
	CacheDir string
}

func (o *sentryDataOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Data, "data", "", "dataset directory (atma data generate); default: generate the default dataset")
	fs.Uint64Var(&o.GenSeed, "data-seed", 1, "seed of the generated dataset when --data is not given")
	fs.BoolVar(&o.Echo, "data-echo", false, "add the echo phrasing families to the generated dataset (conflicts in the fact's own words with another value)")
	fs.Uint64Var(&o.Seed, "split-seed", 1, "seed of the pairs and the train/val/test split")
	fs.StringSliceVar(&o.HoldOut, "hold-out", nil, `phrasing families ("job/reported") or styles ("reported") kept out of training, measured apart`)
	fs.StringSliceVar(&o.ValFams, "val-families", nil, `phrasing families or styles kept out of training and put in the validation split: calibration must reach the target recall on them too`)
	fs.Float64Var(&o.ValFrac, "val-family-fraction", 0, "like --val-families, for this share of the families, drawn with the split seed")
	fs.StringVar(&o.Task, "task", "", "backbone task prefix for the texts (default: the backbone's)")
	fs.IntVar(&o.Batch, "embed-batch", 256, "texts per embedding call")
	fs.BoolVar(&o.NoCache, "no-cache", false, "do not use the on-disk embedding cache")
}

// sentryEnv is what every Sentry command opens: the backbone (behind the embedding cache)
// and, when asked, the dataset's splits.
type sentryEnv struct {
	enc      *onnx.Encoder
	embedder sentry.Embedder
	cache    *sentry.Cache
	backbone gate.Backbone
}

func (e *sentryEnv) Close() error {
	var err error
	if e.cache != nil {
		err = e.cache.Close()
	}
	if e.enc != nil {
		err = errors.Join(err, e.enc.Destroy())
	}
	return err
}

func (f *Factory) openSentryEnv(ctx context.Context, rt *runtimeOptions, do *sentryDataOptions) (*sentryEnv, error) {
	enc, err := f.openEncoder(ctx, rt, onnx.EncoderConfig{Task: do.Task})
	if err != nil {
		return nil, err
	}
	env := &sentryEnv{enc: enc, embedder: enc, backbone: gate.Backbone{ID: enc.Manifest().ID, SHA256: enc.ModelSHA256(), Dim: enc.Dimension()}}
	if !do.NoCache {
		task := do.Task
		if task == "" {
			task = enc.Manifest().DefaultTask
		}
		key := fmt.Sprintf("%s-%d-%s", env.backbone.SHA256, enc.Dimension(), task)
		env.cache, err = sentry.OpenCache(sentry.CacheConfig{Dir: filepath.Join(f.cacheDir(), "embeddings"), Key: key, Logger: f.Logger}, enc)
		if err != nil {
			enc.Destroy()
			return nil, err
		}
		env.embedder = env.cache
	}
	return env, nil
}

func (f *Factory) sentrySplits(ctx context.Context, env *sentryEnv, do *sentryDataOptions) (*sentry.Splits, error) {
	var d *data.Dataset
	var err error
	if do.Data != "" {
		d, err = data.Load(do.Data)
	} else {
		d, err = data.Generate(data.GenConfig{Seed: do.GenSeed, Echo: do.Echo})
		if err == nil {
			f.Logger.Info("generated the default dataset", "seed", do.GenSeed, "echo", do.Echo, "interactions", len(d.Interactions))
		}
	}
	if err != nil {
		return nil, err
	}
	start := time.Now()
	split := data.SplitConfig{HoldOutFamilies: do.HoldOut, ValFamilies: do.ValFams, ValFamilyFraction: do.ValFrac}
	s, err := sentry.Prepare(ctx, env.embedder, d, sentry.PrepareConfig{Seed: do.Seed, Split: split, Batch: do.Batch})
	if err != nil {
		return nil, err
	}
	attrs := []any{"train", len(s.Train), "val", len(s.Val), "test", len(s.Test), "heldout", len(s.HeldOut), "seconds", time.Since(start).Seconds()}
	if len(s.ValFamilies) > 0 {
		attrs = append(attrs, "val_unseen", len(s.ValUnseen), "val_families", strings.Join(s.ValFamilies, ","))
	}
	if env.cache != nil {
		st := env.cache.Stats()
		attrs = append(attrs, "cache", fmt.Sprintf("%+v", st))
	}
	f.Logger.Info("pairs embedded", attrs...)
	return s, nil
}

// --- train ---

type sentryTrainOptions struct {
	runtimeOptions
	sentryDataOptions
	Out    string
	Resume string
	Config sentry.Config
	JSON   bool
}

func newCmdSentryTrain(f *Factory, runF func(context.Context, *sentryTrainOptions) error) *cobra.Command {
	opts := &sentryTrainOptions{}
	cmd := &cobra.Command{
		Use:   "train",
		Short: "Train the topic and logic heads on a frozen backbone",
		Long: `Train Sentry's two projection heads (Gorgonia, AdamW) on pairs built from a dataset, with
the backbone frozen and its embeddings cached on disk. Every epoch writes sentry_last and,
when validation loss improves, sentry_best (safetensors, PyTorch layout), metrics.jsonl and
loss.png into --out. Ctrl-C saves and exits; --resume continues. After training the gate
thresholds are calibrated on the validation split and the test split (and held-out
phrasings) are evaluated at default and calibrated thresholds.`,
		Example: `  sentry train --out checkpoints/sentry
  sentry train --data work/data --hold-out reported --epochs 30 --patience 5 --out checkpoints/sentry
  sentry train --out checkpoints/sentry --resume checkpoints/sentry/sentry_last.safetensors`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Config.Validate(); err != nil {
				return usageError{err}
			}
			if opts.Out == "" {
				return usagef("--out is required")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sentryTrainRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	opts.runtimeOptions.addFlags(fl)
	opts.sentryDataOptions.addFlags(fl)
	fl.StringVarP(&opts.Out, "out", "o", "checkpoints/sentry", "directory for checkpoints, metrics and plots")
	fl.StringVar(&opts.Resume, "resume", "", "checkpoint to continue from (its optimizer state must be beside it)")
	fl.IntVar(&opts.Config.Epochs, "epochs", 10, "epochs")
	fl.IntVar(&opts.Config.BatchSize, "batch", 64, "pairs per step (the last batch may be smaller)")
	fl.Float64Var(&opts.Config.LR, "lr", 1e-3, "peak learning rate")
	fl.Float64Var(&opts.Config.WeightDecay, "weight-decay", 0.01, "AdamW decoupled weight decay")
	fl.IntVar(&opts.Config.Hidden, "hidden", 512, "hidden width of each head")
	fl.IntVar(&opts.Config.Out, "out-dim", 256, "output width of each head")
	fl.StringVar(&opts.Config.Logic, "logic", gate.LogicCosine, "logic similarity: cosine (the paper's head) or pair (a pair head over the two logic vectors; not exportable to ONNX)")
	fl.IntVar(&opts.Config.PairHidden, "pair-hidden", 0, "hidden width of the pair head with --logic pair (0: 64)")
	fl.Float64Var(&opts.Config.Alpha, "alpha", 1, "weight of the topic head's loss")
	fl.Float64Var(&opts.Config.Beta, "beta", 1, "weight of the logic head's loss")
	fl.IntVar(&opts.Config.Patience, "patience", 0, "stop after this many epochs without a better validation loss (0: never)")
	fl.StringVar(&opts.Config.Schedule, "schedule", "", "learning-rate schedule: constant or cosine")
	fl.Uint64Var(&opts.Config.Seed, "seed", 1, "seed of the initial weights and the shuffles")
	fl.Float64Var(&opts.Config.Calibration.TargetRecall, "target-recall", 0.95, "conflict recall the calibrated thresholds must reach")
	fl.BoolVar(&opts.JSON, "json", false, "print the summary as JSON")
	return cmd
}

// sentrySummary is what train and eval report.
type sentrySummary struct {
	Backbone   gate.Backbone              `json:"backbone"`
	Checkpoint string                     `json:"checkpoint"`
	Logic      string                     `json:"logic"`
	BestEpoch  int                        `json:"best_epoch,omitempty"`
	Seconds    float64                    `json:"seconds,omitempty"`
	Rows       []sentryEvalRow            `json:"rows"`
	Thresholds map[string]gate.Thresholds `json:"thresholds"`
}

type sentryEvalRow struct {
	Split      string            `json:"split"`
	Thresholds string            `json:"thresholds"`
	Eval       sentry.Evaluation `json:"eval"`
}

func sentryTrainRun(ctx context.Context, f *Factory, opts *sentryTrainOptions) error {
	start := time.Now()
	env, err := f.openSentryEnv(ctx, &opts.runtimeOptions, &opts.sentryDataOptions)
	if err != nil {
		return err
	}
	defer env.Close()
	splits, err := f.sentrySplits(ctx, env, &opts.sentryDataOptions)
	if err != nil {
		return err
	}
	res, err := sentry.Train(ctx, opts.Config, splits.Train, splits.Val, sentry.Options{
		Dir: opts.Out, Backbone: env.backbone, DataHash: splits.DataHash, Resume: opts.Resume,
		CalibrationSets: calibrationSets(splits), Progress: f.IO.ErrOut, Logger: f.Logger,
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("training interrupted; the state is saved — continue with --resume %s: %w", filepath.Join(opts.Out, sentry.LastFile), err)
		}
		return err
	}
	sum, err := sentryEvaluate(res.Heads, res.Thresholds, splits)
	if err != nil {
		return err
	}
	sum.Backbone, sum.Checkpoint, sum.BestEpoch, sum.Seconds = env.backbone, res.BestPath, res.Best.Epoch, time.Since(start).Seconds()
	if err := writeJSONFile(filepath.Join(opts.Out, "eval.json"), sum); err != nil {
		return err
	}
	return writeSentrySummary(f.IO.Out, sum, opts.JSON)
}

// calibrationSets are the validation pairs of the trained families and of the families
// kept for validation, when there are any: the thresholds must reach the target recall on
// each; else the whole validation split.
func calibrationSets(s *sentry.Splits) [][]sentry.Example {
	if len(s.ValUnseen) == 0 {
		return [][]sentry.Example{s.Val}
	}
	return [][]sentry.Example{s.ValSeen, s.ValUnseen}
}

// sentryEvaluate measures heads on the test and held-out splits at the default and the
// given (usually calibrated) thresholds.
func sentryEvaluate(h *gate.Heads, th gate.Thresholds, s *sentry.Splits) (*sentrySummary, error) {
	sum := &sentrySummary{Logic: h.LogicKind(), Thresholds: map[string]gate.Thresholds{"default": gate.DefaultThresholds(), "checkpoint": th}}
	for _, split := range []struct {
		name string
		exs  []sentry.Example
	}{{"test", s.Test}, {"heldout", s.HeldOut}} {
		if len(split.exs) == 0 {
			continue
		}
		for _, name := range []string{"default", "checkpoint"} {
			ev, err := sentry.Evaluate(h, gate.NewGate(sum.Thresholds[name]), split.exs)
			if err != nil {
				return nil, fmt.Errorf("evaluate %s: %w", split.name, err)
			}
			sum.Rows = append(sum.Rows, sentryEvalRow{Split: split.name, Thresholds: name, Eval: ev})
		}
	}
	return sum, nil
}

func writeSentrySummary(w io.Writer, sum *sentrySummary, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(sum)
	}
	fmt.Fprintf(w, "backbone %s (sha256 %.12s…, %d-d); checkpoint %s, %s logic head", sum.Backbone.ID, sum.Backbone.SHA256, sum.Backbone.Dim, sum.Checkpoint, sum.Logic)
	if sum.BestEpoch > 0 {
		fmt.Fprintf(w, " (best epoch %d, %.1f s)", sum.BestEpoch, sum.Seconds)
	}
	fmt.Fprintln(w)
	for _, name := range []string{"default", "checkpoint"} {
		t := sum.Thresholds[name]
		fmt.Fprintf(w, "thresholds %-10s τ_top %.2f  τ_log %.2f  τ_gap %.2f\n", name, t.Top, t.Log, t.Gap)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "split\tthresholds\tpairs\tMSE top\tMSE logic\tAUC\tsame-slot AUC\tslot AUC gap\tslot AUC 1−b\tprecision\trecall\tF1\trouted\t")
	for _, r := range sum.Rows {
		e := r.Eval
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f\t%.4f\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.1f%%\t\n", r.Split, r.Thresholds, e.N, e.MSETop, e.MSELog, fmtMaybe(e.AUC),
			fmtOpt(e.SameSlotAUC), fmtOpt(e.SlotAUC), fmtOpt(e.SlotAUCLogic), e.Precision, e.Recall, e.F1, 100*e.RoutingRate)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "AUC: conflicts by gap over all pairs; same-slot AUC: same slot by a; slot AUC: conflicting vs consistent statements of one slot, by gap and by 1 − b.")
	return err
}

func fmtOpt(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmtMaybe(*v)
}

func fmtMaybe(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", v)
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// --- eval ---

type sentryCheckpointOptions struct {
	runtimeOptions
	sentryDataOptions
	Checkpoint string
	JSON       bool
}

func (o *sentryCheckpointOptions) addFlags(fs *pflag.FlagSet, data bool) {
	o.runtimeOptions.addFlags(fs)
	if data {
		o.sentryDataOptions.addFlags(fs)
	} else {
		fs.StringVar(&o.Task, "task", "", "backbone task prefix for the texts (default: the backbone's)")
		fs.BoolVar(&o.NoCache, "no-cache", false, "do not use the on-disk embedding cache")
	}
	addSentryFlag(fs, &o.Checkpoint, "Sentry checkpoint file `PATH` (default: the backbone's default that make models trains into $ATMA_CACHE/models/sentry/<backbone>/, else checkpoints/sentry/)")
	fs.BoolVar(&o.JSON, "json", false, "print JSON")
}

func (f *Factory) loadSentry(ctx context.Context, o *sentryCheckpointOptions) (*sentryEnv, *sentry.Checkpoint, error) {
	env, err := f.openSentryEnv(ctx, &o.runtimeOptions, &o.sentryDataOptions)
	if err != nil {
		return nil, nil, err
	}
	if o.Checkpoint = f.findSentry(o.Checkpoint, "", env.backbone.ID); o.Checkpoint == "" {
		env.Close()
		return nil, nil, fmt.Errorf("no Sentry checkpoint for backbone %s: run `make models` (the default) or `sentry train --out DIR`, or pass --sentry", env.backbone.ID)
	}
	c, err := sentry.LoadCheckpoint(o.Checkpoint, env.backbone)
	if err != nil {
		env.Close()
		return nil, nil, err
	}
	return env, c, nil
}

func newCmdSentryEval(f *Factory, runF func(context.Context, *sentryCheckpointOptions) error) *cobra.Command {
	opts := &sentryCheckpointOptions{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Evaluate a checkpoint on the test split (and held-out phrasings)",
		Long: `Evaluate Sentry on the test split of the same dataset and split options it was trained
with: MSE per head, ROC-AUC of conflict detection (scored by gap = a − b), gate precision,
recall and F1 against "same slot and conflicting", and the routing rate — at the default and
at the checkpoint's thresholds.`,
		Example: `  sentry eval --sentry checkpoints/sentry/sentry_best.safetensors
  sentry eval --data work/data --hold-out reported --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			env, c, err := f.loadSentry(cmd.Context(), opts)
			if err != nil {
				return err
			}
			defer env.Close()
			splits, err := f.sentrySplits(cmd.Context(), env, &opts.sentryDataOptions)
			if err != nil {
				return err
			}
			sum, err := sentryEvaluate(c.Heads, c.Meta.Thresholds, splits)
			if err != nil {
				return err
			}
			sum.Backbone, sum.Checkpoint = env.backbone, opts.Checkpoint
			return writeSentrySummary(f.IO.Out, sum, opts.JSON)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	return cmd
}

// --- calibrate ---

type sentryCalibrateOptions struct {
	sentryCheckpointOptions
	Calibration sentry.CalibrationConfig
	DryRun      bool
}

func newCmdSentryCalibrate(f *Factory, runF func(context.Context, *sentryCalibrateOptions) error) *cobra.Command {
	opts := &sentryCalibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Pick gate thresholds on the validation split and write them into the checkpoint",
		Long: `Search τ_top, τ_log and τ_gap on the validation split for the lowest routing rate that
still reaches the target conflict recall, and write them into the checkpoint's metadata
(atomically; the weights are unchanged).`,
		Example: `  sentry calibrate --sentry checkpoints/sentry/sentry_best.safetensors --target-recall 0.98`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if r := opts.Calibration.TargetRecall; r <= 0 || r > 1 {
				return usagef("--target-recall must be in (0, 1], got %g", r)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sentryCalibrateRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	cmd.Flags().Float64Var(&opts.Calibration.TargetRecall, "target-recall", 0.95, "conflict recall to reach")
	cmd.Flags().Float64Var(&opts.Calibration.Step, "step", 0.02, "grid step")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the thresholds without writing them")
	return cmd
}

func sentryCalibrateRun(ctx context.Context, f *Factory, opts *sentryCalibrateOptions) error {
	env, c, err := f.loadSentry(ctx, &opts.sentryCheckpointOptions)
	if err != nil {
		return err
	}
	defer env.Close()
	splits, err := f.sentrySplits(ctx, env, &opts.sentryDataOptions)
	if err != nil {
		return err
	}
	rep, err := sentry.CalibrateSets(c.Heads, calibrationSets(splits), opts.Calibration)
	if err != nil {
		return err
	}
	if !opts.DryRun {
		c.Meta.Thresholds, c.Meta.Calibrated = rep.Thresholds, true
		if err := sentry.WriteCheckpoint(opts.Checkpoint, c); err != nil {
			return err
		}
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(rep)
	}
	t := rep.Thresholds
	_, err = fmt.Fprintf(f.IO.Out, "τ_top %.2f  τ_log %.2f  τ_gap %.2f  on %d validation pairs (%d conflicts): recall %.3f (target %.2f), precision %.3f, F1 %.3f, routed %.1f%%%s\n",
		t.Top, t.Log, t.Gap, rep.N, rep.Conflicts, rep.Recall, rep.TargetRecall, rep.Precision, rep.F1, 100*rep.RoutingRate,
		map[bool]string{true: " (dry run: not written)", false: "; written to " + opts.Checkpoint}[opts.DryRun])
	return err
}

// --- gate ---

type sentryGateOptions struct {
	sentryCheckpointOptions
	File       string
	Thresholds gate.Thresholds
}

// gateInput is one pair of `sentry gate`. Fields holds every field of a JSON line
// (labels and the caller's own), kept for the output.
type gateInput struct {
	Old, New string
	// SameSlot and Conflict are the labels, when the line has them: same_slot (the two
	// state one slot) and conflict (they do and disagree; true implies same slot).
	SameSlot, Conflict *bool
	Fields             map[string]json.RawMessage
}

// gateMetrics is what `sentry gate` measures on labelled pairs: the same-slot AUC of a,
// the conflict-vs-consistent AUC of the gap among same-slot pairs, conflict recall and
// the routed shares at the thresholds used (nil where a class is missing).
type gateMetrics struct {
	Pairs           int             `json:"pairs"`
	Labelled        int             `json:"labelled"`
	SameSlotAUC     *float64        `json:"same_slot_auc"`
	ConflictAUC     *float64        `json:"conflict_auc"`
	ConflictRecall  *float64        `json:"conflict_recall"`
	Routed          float64         `json:"routed"`
	OtherSlotRouted *float64        `json:"other_slot_routed"`
	Thresholds      gate.Thresholds `json:"thresholds"`
}

func newCmdSentryGate(f *Factory, runF func(context.Context, *sentryGateOptions) error) *cobra.Command {
	opts := &sentryGateOptions{}
	cmd := &cobra.Command{
		Use:   "gate [--file PAIRS]",
		Short: "Score (old memory, new input) pairs and say which go to the Judge",
		Long: `Score pairs with the trained heads: a = topic similarity, b = logic similarity,
gap = a − b; a pair is routed to the Judge when a > τ_top and (b < τ_log or gap > τ_gap).
Input (--file or standard input), one pair per line: a JSON object {"old": …, "new": …}
or the two texts separated by a tab. Other fields of a JSON line are kept in the --json
output; the labels "same_slot" and "conflict" (booleans; conflict implies same slot), when
lines have them, are scored: same-slot AUC of a, conflict-vs-consistent AUC of the gap over
the same-slot pairs, conflict recall and the routed shares (a last {"metrics": …} line with
--json). Thresholds come from the checkpoint unless given; --json prints them on every line.`,
		Example: `  printf 'I live in Berlin.\tI moved to Lisbon last month.\n' | sentry gate
  sentry gate --file pairs.jsonl --json --tau-top 0.55`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sentryGateRun(cmd.Context(), f, opts, cmd.Flags())
		},
	}
	opts.addFlags(cmd.Flags(), false)
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "pairs file (default: standard input)")
	cmd.Flags().Float64Var(&opts.Thresholds.Top, "tau-top", 0, "override τ_top")
	cmd.Flags().Float64Var(&opts.Thresholds.Log, "tau-log", 0, "override τ_log")
	cmd.Flags().Float64Var(&opts.Thresholds.Gap, "tau-gap", 0, "override τ_gap")
	return cmd
}

func parseGateLines(lines []string) ([]gateInput, error) {
	var pairs []gateInput
	var problems []string
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var p gateInput
		if strings.HasPrefix(strings.TrimSpace(l), "{") {
			var err error
			if p, err = parseGateObject(l); err != nil {
				problems = append(problems, fmt.Sprintf("line %d: %v", i+1, err))
				continue
			}
		} else if old, nw, ok := strings.Cut(l, "\t"); ok {
			p = gateInput{Old: old, New: nw}
		} else {
			problems = append(problems, fmt.Sprintf("line %d: want a JSON object {\"old\", \"new\"} or two texts separated by a tab", i+1))
			continue
		}
		if p.Old == "" || p.New == "" {
			problems = append(problems, fmt.Sprintf("line %d: both old and new must be non-empty", i+1))
			continue
		}
		pairs = append(pairs, p)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("bad pairs input:\n  %s", strings.Join(problems, "\n  "))
	}
	return pairs, nil
}

// parseGateObject reads one JSON line: "old" and "new" strings, optional boolean labels
// "same_slot" and "conflict", and any other fields, which are kept.
func parseGateObject(l string) (gateInput, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(l), &fields); err != nil {
		return gateInput{}, err
	}
	p := gateInput{Fields: fields}
	for name, dst := range map[string]*string{"old": &p.Old, "new": &p.New} {
		if raw, ok := fields[name]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				return gateInput{}, fmt.Errorf("field %q: want a string", name)
			}
		}
	}
	for name, dst := range map[string]**bool{"same_slot": &p.SameSlot, "conflict": &p.Conflict} {
		if raw, ok := fields[name]; ok && string(raw) != "null" {
			var v bool
			if err := json.Unmarshal(raw, &v); err != nil {
				return gateInput{}, fmt.Errorf("label %q: want true or false", name)
			}
			*dst = &v
		}
	}
	return p, nil
}

// labels returns the pair's labels (same slot, conflict) and whether it has any.
func (p gateInput) labels() (same, conflict, ok bool) {
	if p.SameSlot == nil && p.Conflict == nil {
		return false, false, false
	}
	conflict = p.Conflict != nil && *p.Conflict
	same = conflict || p.SameSlot != nil && *p.SameSlot
	return same, conflict, true
}

// measureGate scores the labelled pairs among ds (decisions, one per pair).
func measureGate(pairs []gateInput, ds []gate.Decision, th gate.Thresholds) gateMetrics {
	m := gateMetrics{Pairs: len(pairs), Thresholds: th}
	var a, gap []float64
	var same, conflict []bool
	routed, conflicts, caught, others, otherRouted := 0, 0, 0, 0, 0
	for i, p := range pairs {
		d := ds[i]
		if d.Route {
			routed++
		}
		s, c, ok := p.labels()
		if !ok {
			continue
		}
		m.Labelled++
		a, same = append(a, d.A), append(same, s)
		switch {
		case s:
			gap, conflict = append(gap, d.Gap), append(conflict, c)
		default:
			others++
			if d.Route {
				otherRouted++
			}
		}
		if c {
			conflicts++
			if d.Route {
				caught++
			}
		}
	}
	share := func(n, of int) *float64 {
		if of == 0 {
			return nil
		}
		v := float64(n) / float64(of)
		return &v
	}
	m.SameSlotAUC, m.ConflictAUC = sentry.ROCAUCOrNil(a, same), sentry.ROCAUCOrNil(gap, conflict)
	m.ConflictRecall, m.OtherSlotRouted = share(caught, conflicts), share(otherRouted, others)
	if len(pairs) > 0 {
		m.Routed = float64(routed) / float64(len(pairs))
	}
	return m
}

func sentryGateRun(ctx context.Context, f *Factory, opts *sentryGateOptions, fl *pflag.FlagSet) error {
	lines, err := readLines(f.IO.In, opts.File)
	if err != nil {
		return err
	}
	pairs, err := parseGateLines(lines)
	if err != nil {
		return usageError{err}
	}
	if len(pairs) == 0 {
		return usagef("no pairs: give them with --file or on standard input")
	}
	env, c, err := f.loadSentry(ctx, &opts.sentryCheckpointOptions)
	if err != nil {
		return err
	}
	defer env.Close()
	th := c.Meta.Thresholds
	for _, o := range []struct {
		flag string
		dst  *float64
		v    float64
	}{{"tau-top", &th.Top, opts.Thresholds.Top}, {"tau-log", &th.Log, opts.Thresholds.Log}, {"tau-gap", &th.Gap, opts.Thresholds.Gap}} {
		if fl != nil && fl.Changed(o.flag) {
			*o.dst = o.v
		}
	}
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		texts = append(texts, p.Old, p.New)
	}
	embs, err := env.embedder.Embed(ctx, texts)
	if err != nil {
		return err
	}
	proj := c.Heads.ProjectAll(embs)
	g := gate.NewGate(th)
	ds := make([]gate.Decision, len(pairs))
	for i := range pairs {
		ds[i] = g.Score(proj[2*i], proj[2*i+1])
	}
	m := measureGate(pairs, ds, th)
	if opts.JSON {
		je := json.NewEncoder(f.IO.Out)
		for i, p := range pairs {
			if err := je.Encode(gateLine(p, ds[i], th)); err != nil {
				return err
			}
		}
		if m.Labelled > 0 {
			return je.Encode(map[string]gateMetrics{"metrics": m})
		}
		return nil
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "A\tB\tGAP\tDECISION\tOLD → NEW\t(τ_top %.2f, τ_log %.2f, τ_gap %.2f)\n", th.Top, th.Log, th.Gap)
	for i, p := range pairs {
		d := ds[i]
		decision := "keep"
		if d.Route {
			decision = "judge"
		}
		fmt.Fprintf(tw, "%.3f\t%.3f\t%.3f\t%s\t%s → %s\t\n", d.A, d.B, d.Gap, decision, p.Old, p.New)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if m.Labelled == 0 {
		return nil
	}
	_, err = fmt.Fprintf(f.IO.Out, "\n%d labelled pairs of %d: same-slot AUC (a) %s, conflict-vs-consistent AUC (gap, same-slot pairs) %s, conflict recall %s, routed %.1f%% of all pairs, %s of other-slot pairs\n",
		m.Labelled, m.Pairs, fmtOpt(m.SameSlotAUC), fmtOpt(m.ConflictAUC), fmtOpt(m.ConflictRecall), 100*m.Routed, fmtOpt(m.OtherSlotRouted))
	return err
}

// gateLine is one pair of `sentry gate --json`: the input line's own fields, then "old",
// "new", the scores "a", "b", "gap", the decision "route" and the "thresholds" it was
// decided with (which replace input fields of those names).
func gateLine(p gateInput, d gate.Decision, th gate.Thresholds) map[string]any {
	out := make(map[string]any, len(p.Fields)+7)
	for k, v := range p.Fields {
		out[k] = v
	}
	for k, v := range map[string]any{"old": p.Old, "new": p.New, "a": d.A, "b": d.B, "gap": d.Gap, "route": d.Route, "thresholds": th} {
		out[k] = v
	}
	return out
}

// --- export ---

type sentryExportOptions struct {
	Checkpoint string
	Out        string
	ORTLib     string
	NoVerify   bool
}

func newCmdSentryExport(f *Factory, runF func(context.Context, *sentryExportOptions) error) *cobra.Command {
	opts := &sentryExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --out heads.onnx",
		Short: "Export the heads as an ONNX model, verified through ONNX Runtime",
		Long: `Export the checkpoint's heads as an ONNX model: input "embedding" [batch, d], outputs
"topic" and "logic" [batch, out], L2-normalised, with the backbone and thresholds in the
model metadata. The export is run through ONNX Runtime on random embeddings and compared with
the Go forward pass; a difference above 1e-5 is an error.`,
		Example: `  sentry export --sentry checkpoints/sentry/sentry_best.safetensors --out checkpoints/sentry/heads.onnx`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Out == "" || opts.Checkpoint == "" {
				return usagef("--sentry and --out are required")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			c, err := sentry.ReadCheckpoint(opts.Checkpoint)
			if err != nil {
				return err
			}
			if err := c.WriteONNX(opts.Out); err != nil {
				return err
			}
			msg := "not verified (--no-verify)"
			if !opts.NoVerify {
				lib, err := onnx.ResolveLibrary(opts.ORTLib, f.env("ATMA_ORT_LIB"), f.cacheDir())
				if err != nil {
					return err
				}
				if err := onnx.Init(lib); err != nil {
					return err
				}
				maxErr, err := sentry.VerifyONNX(cmd.Context(), opts.Out, c.Heads, 64, 1)
				if err != nil {
					return err
				}
				if maxErr > 1e-5 {
					return fmt.Errorf("export %s differs from the Go forward pass by %.2e (> 1e-5)", opts.Out, maxErr)
				}
				msg = fmt.Sprintf("verified through ONNX Runtime %s: max abs error %.1e on 64 embeddings", onnx.Version(), maxErr)
			}
			_, err = fmt.Fprintf(f.IO.Out, "wrote %s (%s)\n", opts.Out, msg)
			return err
		},
	}
	addSentryFlag(cmd.Flags(), &opts.Checkpoint, "Sentry checkpoint (required)")
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "ONNX file to write")
	cmd.Flags().StringVar(&opts.ORTLib, "ort-lib", "", "ONNX Runtime library for the verification")
	cmd.Flags().BoolVar(&opts.NoVerify, "no-verify", false, "skip the ONNX Runtime check")
	return cmd
}
