package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/bench"
	"github.com/atma-dev/atma/onnx"
)

// benchOptions are what every benchmark shares: the models, the packet size, output.
type benchOptions struct {
	runtimeOptions
	llmOptions
	factsOptions
	Checkpoint string
	GateOff    bool
	TopK       int
	NoSpeaker  bool
	JSON       bool
	Out        string
}

func (o *benchOptions) addFlags(fs *pflag.FlagSet) {
	o.runtimeOptions.addFlags(fs)
	o.llmOptions.addFlags(fs)
	o.factsOptions.addFlags(fs)
	addSentryFlag(fs, &o.Checkpoint, sentryFlagUsage)
	fs.BoolVar(&o.GateOff, "gate-off", false, "run without the Sentry gate (every candidate pair goes to the Judge)")
	fs.IntVar(&o.TopK, "top-k", 5, "evidence rows per packet")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON instead of tables")
	fs.StringVar(&o.Out, "out", "", "directory for report.json, tables.md, traces.jsonl and chart.png")
}

func (o *benchOptions) validate() error {
	if o.TopK < 1 || o.TopK > 50 {
		return usagef("--top-k must be 1..50, got %d", o.TopK)
	}
	return o.factsOptions.validate()
}

func newCmdBench(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench <command>",
		Short: "Benchmarks: LTP-style state probes, LoCoMo, TEM-style state updates, the hand-written corpus, ablations",
		Long: `Benchmarks that compare the host memory alone with the host plus the overlay. Everything
that needs no LLM is measured without one; QA accuracy, F1 and judge scores need an
OpenAI-compatible endpoint (--llm-url or ATMA_LLM_URL) and read "n/a" otherwise.`,
		Example: `  atma bench ltp --locomo ../shared/datasets/locomo10.json --out runs/ltp
  atma bench locomo --locomo ../shared/datasets/locomo10.json
  atma bench tem --json
  atma bench cases --split dev`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdBenchLTP(f, nil), newCmdBenchLoCoMo(f, nil), newCmdBenchTEM(f, nil), newCmdBenchCases(f, nil), newCmdBenchFacts(f, nil))
	return cmd
}

// benchEnv opens the backbone, the Sentry checkpoint and the Judge (and the LLM endpoint
// when one is configured); close releases the backbone.
func (f *Factory) benchEnv(ctx context.Context, o *benchOptions) (bench.Env, func() error, error) {
	enc, err := f.openEncoder(ctx, &o.runtimeOptions, onnx.EncoderConfig{})
	if err != nil {
		return bench.Env{}, nil, err
	}
	env := bench.Env{Embedder: bench.CachedEmbedder(enc), TopK: o.TopK, NoSpeaker: o.NoSpeaker, Logger: f.Logger}
	if !o.GateOff {
		ck, err := f.loadGate(&overlayOptions{Checkpoint: o.Checkpoint}, "", enc)
		if err != nil {
			return bench.Env{}, nil, errors.Join(err, enc.Destroy())
		}
		if ck != nil {
			env.Heads, env.Thresholds = ck.Heads, ck.Meta.Thresholds
		}
	}
	c, err := f.llmClient(&o.llmOptions)
	if err != nil {
		return bench.Env{}, nil, errors.Join(err, enc.Destroy())
	}
	a, err := f.auditorFor(c, &o.llmOptions)
	if err != nil {
		return bench.Env{}, nil, errors.Join(err, enc.Destroy())
	}
	env.Auditor = a.Auditor
	if c != nil {
		env.LLM = c
	}
	x, xname, err := f.factExtractor(&o.factsOptions, env.Embedder, c, &o.llmOptions)
	if err != nil {
		return bench.Env{}, nil, errors.Join(err, enc.Destroy())
	}
	env.Facts, env.FactMin = x, o.FactMin
	f.Logger.Info("bench models", "backbone", enc.Manifest().ID, "judge", a.Name, "facts", xname, "gate", env.Heads != nil, "llm", c != nil)
	return env, enc.Destroy, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// benchOutput writes a report: tables (or JSON) to the command's output, and with --out
// the report, the tables, the chart and whatever else files holds.
type benchOutput struct {
	report any
	tables func(io.Writer)
	plot   func(path string) error
}

func (f *Factory) writeBench(o *benchOptions, out benchOutput) error {
	if o.JSON {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out.report); err != nil {
			return err
		}
	} else {
		out.tables(f.IO.Out)
	}
	if o.Out == "" {
		return nil
	}
	if err := writeJSONFile(filepath.Join(o.Out, "report.json"), out.report); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	tf, err := os.Create(filepath.Join(o.Out, "tables.md"))
	if err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	out.tables(tf)
	if err := tf.Close(); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	if out.plot != nil {
		if err := out.plot(filepath.Join(o.Out, "chart.png")); err != nil {
			return err
		}
	}
	if !o.JSON {
		fmt.Fprintf(f.IO.Out, "\nWrote %s (report.json, tables.md, traces.jsonl, chart.png).\n", o.Out)
	}
	return nil
}

// traceFile opens <out>/traces.jsonl, or returns nil without --out.
func traceFile(o *benchOptions) (*os.File, error) {
	if o.Out == "" {
		return nil, nil
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	return os.Create(filepath.Join(o.Out, "traces.jsonl"))
}

// runBench opens the benchmark's models (benchEnv) and the trace file (a nil writer
// without --out), runs fn with them, and closes both.
func runBench[R any](ctx context.Context, f *Factory, o *benchOptions, fn func(env bench.Env, traces io.Writer) (R, error)) (R, error) {
	var rep R
	env, closeEnv, err := f.benchEnv(ctx, o)
	if err != nil {
		return rep, err
	}
	defer closeEnv()
	tf, err := traceFile(o)
	if err != nil {
		return rep, err
	}
	if tf == nil {
		return fn(env, nil)
	}
	rep, err = fn(env, tf)
	return rep, errors.Join(err, tf.Close())
}

// --- ltp ---

type benchLTPOptions struct {
	benchOptions
	LoCoMo       string
	Profiles     int
	Units        int
	MaxTurns     int
	Seed         uint64
	Ablation     string
	ValidateOnly bool
}

func newCmdBenchLTP(f *Factory, runF func(context.Context, *benchLTPOptions) error) *cobra.Command {
	opts := &benchLTPOptions{}
	cmd := &cobra.Command{
		Use:   "ltp --locomo FILE",
		Short: "LTP-style state probes on LoCoMo conversations: host-only vs host+overlay",
		Long: `Build the LTP-style benchmark from LoCoMo-format conversations (10 profiles, each bound
to one conversation, 40 mutable slot instances per profile with an old state (cue1) and a
current state (cue2) inserted as user turns, one fact-recall and one conflict-aware probe
each: 800 probes), check it with the paper's validators, replay it into the host alone
and into the host with the overlay, and score bank, evidence and packet metrics: bank
coexist and role, evidence support, requested state first, stale leakage and
future-state intrusion, with conflict and fact splits and a breakdown by category. QA
accuracy and the judge score need an LLM endpoint. --ablation adds the Table 5 runs.`,
		Example: `  atma bench ltp --locomo ../shared/datasets/locomo10.json
  atma bench ltp --locomo ../shared/datasets/locomo10.json --profiles 2 --max-turns 200 --out runs/ltp-small
  atma bench ltp --locomo ../shared/datasets/locomo10.json --ablation all --out runs/ltp-ablations
  atma bench ltp --locomo ../shared/datasets/locomo10.json --validate-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.LoCoMo == "" {
				return usagef("--locomo is required: a LoCoMo-format JSON file (e.g. ../shared/datasets/locomo10.json)")
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if _, err := bench.ParseAblations(opts.Ablation); err != nil {
				return usageError{err}
			}
			if err := (bench.LTPConfig{Profiles: opts.Profiles, Units: opts.Units, MaxTurns: opts.MaxTurns}).Validate(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchLTPRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.LoCoMo, "locomo", "", "LoCoMo-format conversations (JSON; required)")
	cmd.Flags().IntVar(&opts.Profiles, "profiles", bench.DefaultLTPProfiles, "profiles, one conversation each")
	cmd.Flags().IntVar(&opts.Units, "units", bench.DefaultLTPUnits, "mutable slot instances per profile (two probes each)")
	cmd.Flags().IntVar(&opts.MaxTurns, "max-turns", 0, "keep only the first N turns of each conversation (0: all)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 0, "seed of values, templates and cue positions (0 is the paper's seed 000)")
	cmd.Flags().StringVar(&opts.Ablation, "ablation", "", "comma-separated: "+strings.Join(bench.Ablations(), ", ")+", or all")
	cmd.Flags().BoolVar(&opts.ValidateOnly, "validate-only", false, "build and validate the benchmark, print the checks and stop (no models needed)")
	cmd.Flags().BoolVar(&opts.NoSpeaker, "no-speaker", false, "store turns without the \"Speaker: \" prefix")
	return cmd
}

func benchLTPRun(ctx context.Context, f *Factory, o *benchLTPOptions) error {
	convs, probs, err := bench.LoadLoCoMo(o.LoCoMo)
	if err != nil {
		return err
	}
	for _, p := range probs {
		f.Logger.Debug("locomo problem", "problem", p.String())
	}
	l, err := bench.BuildLTP(convs, bench.LTPConfig{Profiles: o.Profiles, Units: o.Units, MaxTurns: o.MaxTurns, Seed: o.Seed})
	if err != nil {
		return err
	}
	if o.ValidateOnly {
		v := l.Validate()
		if o.JSON {
			return json.NewEncoder(f.IO.Out).Encode(v)
		}
		fmt.Fprintf(f.IO.Out, "LTP seed %03d: %d profiles, %d units, %d probes\n", o.Seed, len(l.Profiles), len(l.Units), len(l.Probes))
		for _, c := range v.Checks {
			mark := "ok  "
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(f.IO.Out, "%s %-16s %s\n", mark, c.Name, c.Detail)
		}
		return v.Err()
	}
	ablations, err := bench.ParseAblations(o.Ablation)
	if err != nil {
		return usageError{err}
	}
	rep, err := runBench(ctx, f, &o.benchOptions, func(env bench.Env, traces io.Writer) (*bench.LTPReport, error) {
		return bench.RunLTP(ctx, l, env, ablations, traces)
	})
	if err != nil {
		return err
	}
	if o.Out != "" {
		if err := writeJSONFile(filepath.Join(o.Out, "benchmark.json"), struct {
			Config bench.LTPConfig `json:"config"`
			Units  []bench.Unit    `json:"units"`
			Probes []bench.Probe   `json:"probes"`
		}{l.Config, l.Units, l.Probes}); err != nil {
			return fmt.Errorf("write benchmark: %w", err)
		}
	}
	return f.writeBench(&o.benchOptions, benchOutput{
		report: rep,
		tables: func(w io.Writer) { bench.WriteLTPTables(w, rep) },
		plot:   func(p string) error { return bench.PlotLTP(p, rep) },
	})
}

// --- locomo ---

type benchLoCoMoOptions struct {
	benchOptions
	LoCoMo        string
	Conversations int
}

func newCmdBenchLoCoMo(f *Factory, runF func(context.Context, *benchLoCoMoOptions) error) *cobra.Command {
	opts := &benchLoCoMoOptions{}
	cmd := &cobra.Command{
		Use:   "locomo --locomo FILE",
		Short: "LoCoMo: evidence hit rate of the packets, and F1/BLEU-1 per category with an LLM",
		Long: `Ingest each LoCoMo conversation (one user per conversation, turns in time order) into
the host alone and into the host with the overlay, and ask its QA. LLM-free: the evidence
hit rate and recall of the packet against the gold evidence turns, per category
(malformed and dangling references are reported and skipped). With an LLM endpoint: the
answers' F1 and BLEU-1 per category with the official normalisation (category 3 gold
trimmed at ';', category 5 asked as a choice with "Not mentioned in the conversation" and
scored as the official scorer does).`,
		Example: `  atma bench locomo --locomo ../shared/datasets/locomo10.json --out runs/locomo
  ATMA_LLM_URL=http://127.0.0.1:8000/v1 atma bench locomo --locomo ../shared/datasets/locomo10.json --conversations 2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.LoCoMo == "" {
				return usagef("--locomo is required: a LoCoMo-format JSON file (e.g. ../shared/datasets/locomo10.json)")
			}
			if opts.Conversations < 0 {
				return usagef("--conversations must not be negative")
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchLoCoMoRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.LoCoMo, "locomo", "", "LoCoMo-format conversations (JSON; required)")
	cmd.Flags().IntVar(&opts.Conversations, "conversations", 0, "use only the first N conversations (0: all)")
	cmd.Flags().BoolVar(&opts.NoSpeaker, "no-speaker", false, "store turns without the \"Speaker: \" prefix")
	return cmd
}

func benchLoCoMoRun(ctx context.Context, f *Factory, o *benchLoCoMoOptions) error {
	convs, probs, err := bench.LoadLoCoMo(o.LoCoMo)
	if err != nil {
		return err
	}
	if o.Conversations > 0 && o.Conversations < len(convs) {
		convs = convs[:o.Conversations]
	}
	for _, p := range probs {
		f.Logger.Warn("locomo reference skipped", "problem", p.String())
	}
	rep, err := runBench(ctx, f, &o.benchOptions, func(env bench.Env, traces io.Writer) (*bench.LoCoMoReport, error) {
		return bench.RunLoCoMo(ctx, convs, probs, env, traces)
	})
	if err != nil {
		return err
	}
	return f.writeBench(&o.benchOptions, benchOutput{
		report: rep,
		tables: func(w io.Writer) { bench.WriteLoCoMoTables(w, rep) },
		plot:   func(p string) error { return bench.PlotLoCoMo(p, rep) },
	})
}

// --- tem ---

type benchTEMOptions struct {
	benchOptions
	bench.TEMConfig
}

func newCmdBenchTEM(f *Factory, runF func(context.Context, *benchTEMOptions) error) *cobra.Command {
	opts := &benchTEMOptions{}
	cmd := &cobra.Command{
		Use:   "tem",
		Short: "TEM-style state updates: key-entity hit rate for overlay, unmarked and overwrite memories",
		Long: `Generate personas whose residence, occupation and drink preference change several times
across sessions, ask for the current state, the state immediately before the latest
change and earlier states, and score the key-entity hit rate of the packets (and of the
answers with an LLM endpoint) for three memories: the overlay (labelled packets), the same
packets unmarked, and an overwrite memory that keeps only the latest version.`,
		Example: `  atma bench tem
  atma bench tem --personas 50 --moves 4 --out runs/tem`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.TEMConfig.Validate(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchTEMRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().IntVar(&opts.Personas, "personas", bench.DefaultTEMPersonas, "personas")
	cmd.Flags().IntVar(&opts.Sessions, "sessions", bench.DefaultTEMSessions, "sessions per persona")
	cmd.Flags().IntVar(&opts.Moves, "moves", bench.DefaultTEMMoves, "changes per attribute (2..8)")
	cmd.Flags().IntVar(&opts.Filler, "filler", bench.DefaultTEMFiller, "small-talk turns per session")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", bench.DefaultTEMSeed, "seed (the benchmark's is 001)")
	return cmd
}

func benchTEMRun(ctx context.Context, f *Factory, o *benchTEMOptions) error {
	t, err := bench.GenerateTEM(o.TEMConfig)
	if err != nil {
		return err
	}
	rep, err := runBench(ctx, f, &o.benchOptions, func(env bench.Env, traces io.Writer) (*bench.TEMReport, error) {
		return bench.RunTEM(ctx, t, env, traces)
	})
	if err != nil {
		return err
	}
	return f.writeBench(&o.benchOptions, benchOutput{
		report: rep,
		tables: func(w io.Writer) { bench.WriteTEMTables(w, rep) },
		plot:   func(p string) error { return bench.PlotTEM(p, rep) },
	})
}

// --- cases ---

type benchCasesOptions struct {
	benchOptions
	Corpus       string
	Split        string
	Ablation     string
	ValidateOnly bool
}

func newCmdBenchCases(f *Factory, runF func(context.Context, *benchCasesOptions) error) *cobra.Command {
	opts := &benchCasesOptions{}
	cmd := &cobra.Command{
		Use:   "cases [--split dev|test|all]",
		Short: "The hand-written state-change corpus: bank accuracy, state first, leakage, Sentry and Judge on its pairs",
		Long: `Replay each scenario of the hand-written state-change corpus (bench/testdata/cases, embedded;
--corpus for another file or directory) through the host alone and through the host with the
overlay, ask its probes after the last memory, and report per domain and probe kind: bank
accuracy (the gold state's records carry the right status), requested state first, gold in
packet and stale leakage; then Sentry (same-slot AUC, conflict-vs-consistent AUC, recall and
routing at the checkpoint's thresholds) and the Judge (verdict and action accuracy) on the
pairs derived from the annotations. Tune on the dev split; score the test split once, when an
issue is finished. --validate-only checks the corpus and prints its counts (no models needed).`,
		Example: `  atma bench cases
  atma bench cases --split test --out runs/cases-test
  atma bench cases --ablation tier-first,paper-labels,slot-labels,keep-labels,keep-order
  atma bench cases --validate-only --corpus bench/testdata/cases/work.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch opts.Split {
			case bench.SplitDev, bench.SplitTest, bench.SplitAll:
			default:
				return usagef("--split must be dev, test or all, got %q", opts.Split)
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if _, err := bench.ParseAblations(opts.Ablation); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchCasesRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.Corpus, "corpus", "", "corpus file (JSONL) or directory of *.jsonl files (default: the embedded corpus)")
	cmd.Flags().StringVar(&opts.Split, "split", bench.SplitDev, "dev, test or all")
	cmd.Flags().StringVar(&opts.Ablation, "ablation", "", "comma-separated ablations as in `bench ltp` ("+strings.Join(bench.Ablations(), ", ")+"), or all")
	cmd.Flags().BoolVar(&opts.ValidateOnly, "validate-only", false, "check the corpus, print its counts and stop (no models needed)")
	return cmd
}

func benchCasesRun(ctx context.Context, f *Factory, o *benchCasesOptions) error {
	c, err := openCorpus(o.Corpus)
	if err != nil {
		return err
	}
	if o.ValidateOnly {
		st := c.Stats()
		if o.JSON {
			return json.NewEncoder(f.IO.Out).Encode(st)
		}
		fmt.Fprintf(f.IO.Out, "corpus ok: %d scenarios (%d dev, %d test), %d memories, %d probes, %d relations, %d pairs\n",
			st.Scenarios, st.Splits[bench.SplitDev], st.Splits[bench.SplitTest], st.Memories, st.Probes, st.Relations, st.Pairs)
		for _, d := range bench.CaseDomains() {
			fmt.Fprintf(f.IO.Out, "  %-12s %d scenarios\n", d, st.Domains[d])
		}
		for _, k := range bench.ProbeKinds() {
			fmt.Fprintf(f.IO.Out, "  probes %-10s %d\n", k, st.ProbeKinds[k])
		}
		return nil
	}
	ablations, err := bench.ParseAblations(o.Ablation)
	if err != nil {
		return usageError{err}
	}
	rep, err := runBench(ctx, f, &o.benchOptions, func(env bench.Env, traces io.Writer) (*bench.CasesReport, error) {
		return bench.RunCases(ctx, c, o.Split, env, ablations, traces)
	})
	if err != nil {
		return err
	}
	return f.writeBench(&o.benchOptions, benchOutput{
		report: rep,
		tables: func(w io.Writer) { bench.WriteCasesTables(w, rep) },
		plot:   func(p string) error { return bench.PlotCases(p, rep) },
	})
}

// openCorpus loads the corpus at path (a file or a directory), or the embedded one when
// path is empty.
func openCorpus(path string) (*bench.Corpus, error) {
	if path == "" {
		return bench.DefaultCorpus()
	}
	return bench.LoadCorpus(path)
}
