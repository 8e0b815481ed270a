package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/judge/llmauditor"
	"github.com/atma-dev/atma/judge/rule"
	"github.com/atma-dev/atma/llm"
)

// judgeCommands are the verbs of the judge tree (`judge …` and `atma judge …`).
func judgeCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{newCmdJudgeAudit(f, nil), newCmdJudgeEval(f, nil), newCmdJudgeSFTData(f, nil), newCmdJudgeGRPO(f, nil), newCmdJudgeRewardServer(f, nil)}
}

// llmOptions select an OpenAI-compatible endpoint: flags, else ATMA_LLM_URL, ATMA_LLM_MODEL,
// ATMA_LLM_API_KEY.
type llmOptions struct {
	URL     string
	Model   string
	APIKey  string
	Timeout time.Duration
	Rules   bool
	// VerdictSchema constrains the LLM Judge's answers to the verdict's JSON schema.
	VerdictSchema bool
}

func (o *llmOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.URL, "llm-url", "", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (env ATMA_LLM_URL); none: the rule auditor")
	fs.StringVar(&o.Model, "model", "", "model name (env ATMA_LLM_MODEL)")
	fs.StringVar(&o.APIKey, "api-key", "", "API key (env ATMA_LLM_API_KEY)")
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.BoolVar(&o.Rules, "rules", false, "use the rule auditor even when an endpoint is configured")
	fs.BoolVar(&o.VerdictSchema, "verdict-schema", false, "constrain the LLM Judge's answers to the verdict JSON schema (response_format): for a model that does not keep the prompt's format; the think block is then skipped")
}

// llmConfig resolves the endpoint from the flags, else ATMA_LLM_URL, ATMA_LLM_MODEL and
// ATMA_LLM_API_KEY; ok is false when none is configured (or --rules asks for none).
func (f *Factory) llmConfig(o *llmOptions) (cfg llm.Config, ok bool) {
	if o.Rules {
		return llm.Config{}, false
	}
	pick := func(flag, env string) string {
		if flag != "" {
			return flag
		}
		return f.env(env)
	}
	cfg = llm.Config{BaseURL: pick(o.URL, "ATMA_LLM_URL"), Model: pick(o.Model, "ATMA_LLM_MODEL"),
		APIKey: pick(o.APIKey, "ATMA_LLM_API_KEY"), Timeout: o.Timeout, Logger: f.Logger}
	return cfg, cfg.BaseURL != ""
}

// llmClient returns the configured LLM client, or nil when none is configured.
func (f *Factory) llmClient(o *llmOptions) (*llm.Client, error) {
	cfg, ok := f.llmConfig(o)
	if !ok {
		return nil, nil
	}
	c, err := llm.New(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// auditorFor is the LLM auditor on c, or the rule auditor when c is nil.
func (f *Factory) auditorFor(c *llm.Client, o *llmOptions) (judge.NamedAuditor, error) {
	if c == nil {
		r, err := rule.New(rule.Config{})
		return judge.NamedAuditor{Name: "rule", Auditor: r}, err
	}
	cfg, _ := f.llmConfig(o)
	a, err := llmauditor.New(c, llmauditor.Config{Name: cfg.Model, Schema: o.VerdictSchema, Logger: f.Logger})
	return judge.NamedAuditor{Name: cfg.Model, Auditor: a}, err
}

// auditor is the LLM auditor when an endpoint is configured, else the rule auditor.
func (f *Factory) auditor(o *llmOptions) (judge.NamedAuditor, error) {
	c, err := f.llmClient(o)
	if err != nil {
		return judge.NamedAuditor{}, err
	}
	return f.auditorFor(c, o)
}

// --- audit ---

type judgeAuditOptions struct {
	llmOptions
	Old, New string
	File     string
	Scores   judge.Scores
	JSON     bool
}

func newCmdJudgeAudit(f *Factory, runF func(context.Context, *judgeAuditOptions) error) *cobra.Command {
	opts := &judgeAuditOptions{}
	cmd := &cobra.Command{
		Use:   "audit (--old TEXT --new TEXT | --file PAIRS)",
		Short: "Audit memory pairs: conflict status, type and the fusion action",
		Long: `Audit (old record, new input) pairs with the LLM judge behind an OpenAI-compatible endpoint,
or with the rule auditor when none is configured (or with --rules). A pair comes from --old
and --new (with Sentry's scores from --a and --b), or from --file / standard input as JSON
lines {"old": {"text": …}, "new": {"text": …}, "scores": {"a": …, "b": …, "gap": …}}.
When the model is unreachable or answers garbage, the rule auditor answers and the result
says why ("fallback").`,
		Example: `  judge audit --old "I live in Berlin." --new "I moved to Lisbon last month."
  ATMA_LLM_URL=http://127.0.0.1:11434/v1 ATMA_LLM_MODEL=qwen2.5:3b judge audit --file pairs.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			single := opts.Old != "" || opts.New != ""
			if single && (opts.Old == "" || opts.New == "") {
				return usagef("give both --old and --new")
			}
			if single && opts.File != "" {
				return usagef("give --old/--new or --file, not both")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return judgeAuditRun(cmd.Context(), f, opts, cmd.Flags())
		},
	}
	opts.llmOptions.addFlags(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&opts.Old, "old", "", "the stored memory")
	fl.StringVar(&opts.New, "new", "", "the new input")
	fl.Float64Var(&opts.Scores.A, "a", 0, "Sentry topic similarity")
	fl.Float64Var(&opts.Scores.B, "b", 0, "Sentry logic similarity")
	fl.StringVarP(&opts.File, "file", "f", "", "JSON lines of pairs (- or no --old/--new: standard input)")
	fl.BoolVar(&opts.JSON, "json", false, "print one JSON result per pair")
	return cmd
}

func readAuditPairs(in io.Reader, path string) ([]judge.Pair, error) {
	lines, err := readLines(in, path)
	if err != nil {
		return nil, err
	}
	var pairs []judge.Pair
	var problems []string
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var p judge.Pair
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %v", i+1, err))
			continue
		}
		if p.Old.Text == "" || p.New.Text == "" {
			problems = append(problems, fmt.Sprintf("line %d: old.text and new.text must be non-empty", i+1))
			continue
		}
		pairs = append(pairs, p)
	}
	if len(problems) > 0 {
		return nil, usagef("bad pairs input (want JSON lines {\"old\": {\"text\": …}, \"new\": {\"text\": …}}):\n  %s", strings.Join(problems, "\n  "))
	}
	if len(pairs) == 0 {
		return nil, usagef("no pairs: give --old and --new, or JSON lines with --file or on standard input")
	}
	return pairs, nil
}

func judgeAuditRun(ctx context.Context, f *Factory, opts *judgeAuditOptions, fl *pflag.FlagSet) error {
	var pairs []judge.Pair
	if opts.Old != "" {
		p := judge.Pair{Old: judge.Record{Text: opts.Old}, New: judge.Record{Text: opts.New}}
		if fl != nil && (fl.Changed("a") || fl.Changed("b")) {
			s := opts.Scores
			s.Gap = s.A - s.B
			p.Scores = &s
		}
		pairs = []judge.Pair{p}
	} else {
		var err error
		if pairs, err = readAuditPairs(f.IO.In, opts.File); err != nil {
			return err
		}
	}
	a, err := f.auditor(&opts.llmOptions)
	if err != nil {
		return err
	}
	je := json.NewEncoder(f.IO.Out)
	for _, p := range pairs {
		res, err := a.Auditor.Audit(ctx, p)
		if err != nil {
			return fmt.Errorf("audit %q → %q: %w", p.Old.Text, p.New.Text, err)
		}
		if opts.JSON {
			if err := je.Encode(res); err != nil {
				return err
			}
			continue
		}
		v := res.Verdict
		fmt.Fprintf(f.IO.Out, "%s → %s\n", p.Old.Text, p.New.Text)
		for _, s := range []struct{ label, text string }{{judge.LabelSlot, res.Steps.Slot}, {judge.LabelComparison, res.Steps.Comparison}, {judge.LabelConflictType, res.Steps.ConflictType}, {judge.LabelAction, res.Steps.Action}} {
			if s.text != "" {
				fmt.Fprintf(f.IO.Out, "  %s %s\n", s.label, s.text)
			}
		}
		fmt.Fprintf(f.IO.Out, "  verdict: %s, %s, action %s, confidence %.2f (by %s)\n", v.Status, v.ConflictType, v.Action, v.Confidence, res.Source)
		if v.ClarificationNeeded {
			fmt.Fprintf(f.IO.Out, "  ask: %s\n", v.ClarificationQuestion)
		}
		if v.TransitionSummary != "" {
			fmt.Fprintf(f.IO.Out, "  transition: %s\n", v.TransitionSummary)
		}
		if res.Fallback != "" {
			fmt.Fprintf(f.IO.Out, "  (rule auditor answered: %s)\n", res.Fallback)
		}
	}
	return nil
}

// --- eval ---

type judgeEvalOptions struct {
	llmOptions
	Items       string
	Eval        eval.Config
	Endpoints   []string
	Concurrency int
	Out         string
	JSON        bool
}

func newCmdJudgeEval(f *Factory, runF func(context.Context, *judgeEvalOptions) error) *cobra.Command {
	opts := &judgeEvalOptions{}
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Compare the rule auditor and LLM judges on the held-out audit set",
		Long: `Evaluate auditors on the held-out audit set (default: 151 generated items, disjoint from the
SFT data, with implicit violations): accuracy, precision, recall and F1 on conflict,
implicit-violation accuracy, per-type accuracy, format-valid rate (strict parse), latency
p50/p95 and tokens. The rule auditor always runs; add the configured endpoint (flags/env)
and any number of --endpoint NAME=URL#MODEL to compare them in one run.`,
		Example: `  judge eval
  judge eval --endpoint qwen=http://127.0.0.1:8000/v1#Qwen2.5-3B-Instruct --out eval.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Eval.Validate(); err != nil {
				return usageError{err}
			}
			for _, e := range opts.Endpoints {
				if _, _, _, err := parseEndpoint(e); err != nil {
					return usageError{err}
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return judgeEvalRun(cmd.Context(), f, opts)
		},
	}
	opts.llmOptions.addFlags(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&opts.Items, "items", "", "audit items (JSON lines of eval.Item); default: generate the held-out set")
	fl.Uint64Var(&opts.Eval.Seed, "seed", 0, "seed of the generated set (0: the default held-out seed)")
	fl.IntVar(&opts.Eval.Items, "n", 0, "items in the generated set (0: 151)")
	fl.StringArrayVar(&opts.Endpoints, "endpoint", nil, "another judge: NAME=URL#MODEL (repeatable)")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "audits in flight per auditor")
	fl.StringVarP(&opts.Out, "out", "o", "", "also write the report as JSON to this file")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as JSON instead of a table")
	return cmd
}

func parseEndpoint(s string) (name, url, model string, err error) {
	name, rest, ok := strings.Cut(s, "=")
	if ok {
		url, model, ok = strings.Cut(rest, "#")
	}
	if !ok || name == "" || url == "" || model == "" {
		return "", "", "", fmt.Errorf("--endpoint %q: want NAME=URL#MODEL", s)
	}
	return name, url, model, nil
}

func judgeEvalRun(ctx context.Context, f *Factory, opts *judgeEvalOptions) error {
	var items []eval.Item
	var err error
	if opts.Items != "" {
		file, err := os.Open(opts.Items)
		if err != nil {
			return err
		}
		items, err = eval.ReadItems(file)
		file.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Items, err)
		}
	} else if items, err = eval.Set(opts.Eval); err != nil {
		return err
	}
	rules, err := f.auditorFor(nil, &opts.llmOptions)
	if err != nil {
		return err
	}
	auditors := []judge.NamedAuditor{rules}
	if a, err := f.auditor(&opts.llmOptions); err != nil {
		return err
	} else if a.Name != "rule" {
		auditors = append(auditors, a)
	}
	for _, e := range opts.Endpoints {
		name, url, model, _ := parseEndpoint(e)
		c, err := llm.New(llm.Config{BaseURL: url, Model: model, APIKey: f.env("ATMA_LLM_API_KEY"), Timeout: opts.Timeout, Logger: f.Logger})
		if err != nil {
			return usageError{err}
		}
		a, err := llmauditor.New(c, llmauditor.Config{Name: name, Logger: f.Logger})
		if err != nil {
			return err
		}
		auditors = append(auditors, judge.NamedAuditor{Name: name, Auditor: a})
	}
	rep, err := eval.Run(ctx, auditors, items, opts.Concurrency)
	if err != nil {
		return err
	}
	if opts.Out != "" {
		file, err := os.Create(opts.Out)
		if err != nil {
			return err
		}
		err = errors.Join(rep.WriteJSON(file), file.Close())
		if err != nil {
			return err
		}
	}
	if opts.JSON {
		return rep.WriteJSON(f.IO.Out)
	}
	return rep.WriteTable(f.IO.Out)
}

// --- sft-data ---

type judgeSFTOptions struct {
	SFT eval.SFTConfig
	Out string
}

func newCmdJudgeSFTData(f *Factory, runF func(context.Context, *judgeSFTOptions) error) *cobra.Command {
	opts := &judgeSFTOptions{}
	cmd := &cobra.Command{
		Use:   "sft-data",
		Short: "Write chat JSONL for supervised fine-tuning of the Judge",
		Long: `Write supervised fine-tuning data in the OpenAI messages format (system, user, assistant),
one JSON object per line, with chain-of-thought targets in the audit format built from the
data's labels. Disjoint from the held-out evaluation set; the same seed gives the same bytes.`,
		Example: `  judge sft-data --out sft.jsonl
  judge sft-data --n 2000 --seed 7 > sft.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			items, err := eval.SFTItems(opts.SFT)
			if err != nil {
				return err
			}
			if opts.Out == "" || opts.Out == "-" {
				return eval.WriteSFT(f.IO.Out, items)
			}
			file, err := os.Create(opts.Out)
			if err != nil {
				return err
			}
			if err := errors.Join(eval.WriteSFT(file, items), file.Close()); err != nil {
				return err
			}
			f.Logger.Info("wrote SFT data", "file", opts.Out, "items", len(items))
			return nil
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "file to write (default: standard output)")
	cmd.Flags().IntVar(&opts.SFT.Items, "n", 0, "items (0: 700)")
	cmd.Flags().Uint64Var(&opts.SFT.Seed, "seed", 0, "seed (0: the default SFT seed)")
	return cmd
}
