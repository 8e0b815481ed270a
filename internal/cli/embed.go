package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/onnx"
)

type embedOptions struct {
	runtimeOptions
	Texts     []string
	File      string
	Task      string
	Dimension int
	MaxTokens int
	BatchSize int
	Format    string
}

func newCmdEmbed(f *Factory, runF func(context.Context, *embedOptions) error) *cobra.Command {
	opts := &embedOptions{}
	cmd := &cobra.Command{
		Use:   "embed [TEXT...]",
		Short: "Embed texts with the backbone; one JSON line per text",
		Long: `Embed texts with the sentence-embedding backbone through ONNX Runtime.

Texts come from the arguments, else from --file, else from standard input, one per line.
Each output line is a JSON object: index, text, tokens, truncated, dim, vector.`,
		Example: `  atma embed --backbone test-tiny "I moved to Lisbon." "Where do I live?"
  printf 'a\nb\n' | atma embed --backbone nomic --task query --dim 256`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Texts = args
			if len(args) > 0 && opts.File != "" {
				return usagef("give texts as arguments or with --file, not both")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return embedRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags())
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "read texts from this file, one per line (- for stdin)")
	cmd.Flags().StringVar(&opts.Task, "task", "", "task prefix: document, query, classification, clustering, none (default: the backbone's)")
	cmd.Flags().IntVar(&opts.Dimension, "dim", 0, "truncate vectors to this Matryoshka dimension (0: full)")
	cmd.Flags().IntVar(&opts.MaxTokens, "max-tokens", 0, "lower the backbone's token limit (0: keep)")
	cmd.Flags().IntVar(&opts.BatchSize, "batch", 32, "texts per ONNX Runtime call")
	cmd.Flags().StringVar(&opts.Format, "format", "jsonl", "output: jsonl (one JSON object per text) or table (for people: tokens, first values, cosine to the first text)")
	return cmd
}

type embedLine struct {
	Index     int       `json:"index"`
	Text      string    `json:"text"`
	Tokens    int       `json:"tokens"`
	Truncated bool      `json:"truncated"`
	Dim       int       `json:"dim"`
	Vector    []float32 `json:"vector"`
}

func embedRun(ctx context.Context, f *Factory, opts *embedOptions) error {
	if opts.Format != "jsonl" && opts.Format != "table" {
		return usagef("--format must be jsonl or table, got %q", opts.Format)
	}
	if opts.BatchSize <= 0 {
		return usagef("--batch must be positive, got %d", opts.BatchSize)
	}
	texts := opts.Texts
	if len(texts) == 0 {
		var err error
		if texts, err = readLines(f.IO.In, opts.File); err != nil {
			return err
		}
	}
	if len(texts) == 0 {
		return usagef("no texts: give them as arguments, with --file, or on standard input")
	}
	enc, err := f.openEncoder(ctx, &opts.runtimeOptions, onnx.EncoderConfig{
		Task: opts.Task, Dimension: opts.Dimension, MaxTokens: opts.MaxTokens, BatchSize: opts.BatchSize,
	})
	if err != nil {
		return err
	}
	defer enc.Destroy()
	embs, err := enc.Encode(ctx, texts, opts.Task)
	if err != nil {
		return err
	}
	truncated := 0
	for _, e := range embs {
		if e.Truncated {
			truncated++
		}
	}
	w := bufio.NewWriter(f.IO.Out)
	if opts.Format == "table" {
		writeEmbedTable(w, texts, embs)
	} else {
		je := json.NewEncoder(w)
		for i, e := range embs {
			if err := je.Encode(embedLine{Index: i, Text: texts[i], Tokens: e.Tokens, Truncated: e.Truncated, Dim: len(e.Vector), Vector: e.Vector}); err != nil {
				return err
			}
		}
	}
	if truncated > 0 {
		f.Logger.Warn("texts truncated to the token limit", "count", truncated)
	}
	f.Logger.Info("embedded", "texts", len(texts), "backbone", enc.Manifest().ID, "provider", enc.Provider(), "dim", enc.Dimension())
	return w.Flush()
}

// readLines reads texts, one per line, from path ("" or "-" = in). A trailing "\r" is
// dropped; empty lines are texts too, except a final one.
func readLines(in io.Reader, path string) ([]string, error) {
	if path != "" && path != "-" {
		file, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open texts: %w", err)
		}
		defer file.Close()
		in = file
	}
	if in == nil {
		return nil, errors.New("no standard input")
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read texts: %w", err)
	}
	return lines, nil
}

// writeEmbedTable prints one row per text: tokens, dimension, the first values and the
// cosine similarity to the first text.
func writeEmbedTable(w io.Writer, texts []string, embs []onnx.Embedding) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTOKENS\tDIM\tFIRST VALUES\tCOS(#0)\tTEXT")
	for i, e := range embs {
		head := make([]string, 0, 4)
		for _, v := range e.Vector[:min(4, len(e.Vector))] {
			head = append(head, strconv.FormatFloat(float64(v), 'f', 3, 32))
		}
		var dot float64
		for j, v := range e.Vector {
			dot += float64(v) * float64(embs[0].Vector[j])
		}
		text := texts[i]
		if r := []rune(text); len(r) > 60 {
			text = string(r[:57]) + "..."
		}
		trunc := ""
		if e.Truncated {
			trunc = " (truncated)"
		}
		fmt.Fprintf(tw, "%d\t%d%s\t%d\t[%s …]\t%.3f\t%s\n", i, e.Tokens, trunc, len(e.Vector), strings.Join(head, " "), dot, text)
	}
	tw.Flush()
}
