package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/bench"
	"github.com/atma-dev/atma/onnx"
)

type benchFactsOptions struct {
	runtimeOptions
	llmOptions
	Corpus string
	Split  string
	JSON   bool
	Out    string
}

func newCmdBenchFacts(f *Factory, runF func(context.Context, *benchFactsOptions) error) *cobra.Command {
	opts := &benchFactsOptions{}
	cmd := &cobra.Command{
		Use:   "facts [--split dev|test|all]",
		Short: "Fact extraction on the hand-written corpus: states-a-fact, subjects, values, slot grouping",
		Long: `Run the fact extractor over every memory of the hand-written corpus (bench/testdata/cases,
embedded; --corpus for another file or directory), one call per scenario, and score it
against the annotations, per domain and overall: states-a-fact precision, recall and F1
(against the annotated kind "state"); for state memories subject accuracy (the extracted
subjects equal, or contain, the annotated ones), value accuracy (by words), polarity,
scope and event time of the matched facts; and slot grouping (pairs of state memories
that share a slot, by the extractor and by the annotation, as precision and recall).
The offline extractor uses the backbone; with an LLM endpoint (--llm-url or ATMA_LLM_URL)
the LLM extractor runs, falling back to the offline one. Tune on the dev split; score the
test split once, when an issue is finished.`,
		Example: `  atma bench facts
  atma bench facts --split dev --out runs/facts-dev
  ATMA_LLM_URL=http://127.0.0.1:8080/v1 ATMA_LLM_MODEL=qwen atma bench facts --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch opts.Split {
			case bench.SplitDev, bench.SplitTest, bench.SplitAll:
			default:
				return usagef("--split must be dev, test or all, got %q", opts.Split)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return benchFactsRun(cmd.Context(), f, opts)
		},
	}
	opts.runtimeOptions.addFlags(cmd.Flags())
	opts.llmOptions.addFlags(cmd.Flags())
	cmd.Flags().StringVar(&opts.Corpus, "corpus", "", "corpus file (JSONL) or directory of *.jsonl files (default: the embedded corpus)")
	cmd.Flags().StringVar(&opts.Split, "split", bench.SplitDev, "dev, test or all")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON instead of tables")
	cmd.Flags().StringVar(&opts.Out, "out", "", "directory for report.json, tables.md and traces.jsonl (every memory's facts)")
	return cmd
}

func benchFactsRun(ctx context.Context, f *Factory, o *benchFactsOptions) (err error) {
	c, err := openCorpus(o.Corpus)
	if err != nil {
		return err
	}
	enc, err := f.openEncoder(ctx, &o.runtimeOptions, onnx.EncoderConfig{})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, enc.Destroy()) }()
	client, err := f.llmClient(&o.llmOptions)
	if err != nil {
		return err
	}
	x, name, err := f.factExtractor(&factsOptions{Facts: factsAuto}, enc, client, &o.llmOptions)
	if err != nil {
		return err
	}
	f.Logger.Info("bench facts", "backbone", enc.Manifest().ID, "extractor", name, "split", o.Split)
	rep, err := bench.EvalFacts(ctx, c, o.Split, x)
	if err != nil {
		return err
	}
	return writeFactsReport(f.IO.Out, o, rep)
}

// writeFactsReport prints the tables (or JSON) and, with --out, writes the report, the
// tables and the traces.
func writeFactsReport(w io.Writer, o *benchFactsOptions, rep *bench.FactsReport) error {
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		bench.WriteFactsTables(w, rep)
	}
	if o.Out == "" {
		return nil
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	if err := writeJSONFile(filepath.Join(o.Out, "report.json"), rep); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := writeWith(filepath.Join(o.Out, "tables.md"), func(w io.Writer) error { bench.WriteFactsTables(w, rep); return nil }); err != nil {
		return fmt.Errorf("write tables: %w", err)
	}
	err := writeWith(filepath.Join(o.Out, "traces.jsonl"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, t := range rep.Traces {
			if err := enc.Encode(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write traces: %w", err)
	}
	if !o.JSON {
		fmt.Fprintf(w, "\nWrote %s (report.json, tables.md, traces.jsonl).\n", o.Out)
	}
	return nil
}

func writeWith(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(fn(f), f.Close())
}
