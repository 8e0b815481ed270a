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
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/onnx"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/sentry/gate"
)

// overlayOptions are what every overlay command needs to open the bank and its models.
type overlayOptions struct {
	runtimeOptions
	llmOptions
	factsOptions
	DataDir string
	// Store is the PostgreSQL bank's URL (--store, else $ATMA_DATABASE_URL); empty: the
	// SQLite bank in DataDir.
	Store      string
	Checkpoint string
	GateOff    bool
	User       string
	JSON       bool
}

func (o *overlayOptions) addFlags(fs *pflag.FlagSet, models bool) {
	fs.StringVar(&o.DataDir, "data-dir", "", "data directory (default: $ATMA_DATA, else ~/.local/share/atma); the bank's SQLite file unless --store")
	fs.StringVar(&o.Store, "store", "", "the bank on PostgreSQL, shared by any number of processes: postgres://user:password@host:port/db (default: $ATMA_DATABASE_URL; none: SQLite in the data directory)")
	fs.StringVarP(&o.User, "user", "u", "", "the user whose memory to use (required)")
	fs.BoolVar(&o.JSON, "json", false, "print JSON")
	if models {
		o.runtimeOptions.addFlags(fs)
		o.llmOptions.addFlags(fs)
		o.factsOptions.addFlags(fs)
		addSentryFlag(fs, &o.Checkpoint, sentryFlagUsage)
		fs.BoolVar(&o.GateOff, "gate-off", false, "audit every candidate (no Sentry gate)")
	}
}

func (f *Factory) dataDir(o *overlayOptions) string {
	if o.DataDir != "" {
		return o.DataDir
	}
	if d := f.env("ATMA_DATA"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "atma")
	}
	return "atma-data"
}

// storeURL is the PostgreSQL bank's URL: --store, else $ATMA_DATABASE_URL; "" for the
// SQLite bank in the data directory.
func (f *Factory) storeURL(o *overlayOptions) (string, error) {
	u, from := o.Store, "--store"
	if u == "" {
		u, from = f.env("ATMA_DATABASE_URL"), "$ATMA_DATABASE_URL"
	}
	if u != "" && !pgdb.IsURL(u) {
		return "", usagef("%s %q: want a postgres:// URL (postgres://user:password@host:5432/db); the SQLite bank is chosen with --data-dir", from, pgdb.Redact(u))
	}
	return u, nil
}

// openBank opens the bank: on PostgreSQL when a URL is given (storeURL), else the
// SQLite file in the data directory.
func (f *Factory) openBank(ctx context.Context, o *overlayOptions) (*overlay.Bank, error) {
	u, err := f.storeURL(o)
	if err != nil {
		return nil, err
	}
	if u != "" {
		bank, err := overlay.OpenPostgresBank(ctx, u, pgdb.Config{})
		if err != nil {
			return nil, fmt.Errorf("%w; check --store or $ATMA_DATABASE_URL and that the server is up", err)
		}
		return bank, nil
	}
	return overlay.OpenBank(ctx, f.dataDir(o))
}

// overlayEnv is an opened overlay with what must be closed after it.
type overlayEnv struct {
	ov   *overlay.Overlay
	bank *overlay.Bank
	enc  *onnx.Encoder
}

func (e *overlayEnv) Close() error {
	var err error
	if e.enc != nil {
		err = e.enc.Destroy()
	}
	return errors.Join(err, e.bank.Close())
}

// openExisting is openOverlay for a command that only reads (or regroups) a bank: a data
// directory without one is an error, not a new empty bank (a mistyped --data-dir).
func (f *Factory) openExisting(ctx context.Context, o *overlayOptions, models bool) (*overlayEnv, error) {
	if u, err := f.storeURL(o); err != nil || u != "" {
		if err != nil {
			return nil, err
		}
		// A database holds one bank, possibly still empty: there is no file to miss.
		return f.openOverlay(ctx, o, models)
	}
	dir := f.dataDir(o)
	if _, err := os.Stat(filepath.Join(dir, overlay.DBFile)); errors.Is(err, os.ErrNotExist) {
		return nil, usagef("no bank in %s (no %s): check --data-dir or $ATMA_DATA; `atma overlay add` creates one", dir, overlay.DBFile)
	}
	return f.openOverlay(ctx, o, models)
}

// openOverlay opens the bank and, with models, the backbone, the Sentry checkpoint and
// the Judge (the LLM endpoint when configured, else the rule auditor).
func (f *Factory) openOverlay(ctx context.Context, o *overlayOptions, models bool) (*overlayEnv, error) {
	if o.User == "" && models {
		return nil, usagef("--user is required")
	}
	o.User = store.NormalizeUser(o.User)
	if models {
		if err := o.factsOptions.validate(); err != nil {
			return nil, err
		}
	}
	bank, err := f.openBank(ctx, o)
	if err != nil {
		return nil, err
	}
	env := &overlayEnv{bank: bank}
	cfg := overlay.Config{Store: bank.Store, Host: bank.Host, Traces: bank.Traces, Logger: f.Logger, Embedder: noEmbedder{}}
	if models {
		// Add embeds the next memories while it commits the previous ones, and a server
		// embeds for several requests at once: the parallelism is the overlay's, so one
		// ONNX Runtime thread a run, which does not spin for work between runs.
		sess := onnx.SessionConfig{IntraOpThreads: 1, NoSpin: true}
		if env.enc, err = f.openEncoder(ctx, &o.runtimeOptions, onnx.EncoderConfig{Session: sess}); err != nil {
			bank.Close()
			return nil, err
		}
		cfg.Embedder = env.enc
		if !o.GateOff {
			ck, err := f.loadGate(o, f.dataDir(o), env.enc)
			if err != nil {
				env.Close()
				return nil, err
			}
			if ck != nil {
				cfg.Heads, cfg.Thresholds = ck.Heads, ck.Meta.Thresholds
			}
		}
		c, err := f.llmClient(&o.llmOptions)
		if err != nil {
			env.Close()
			return nil, err
		}
		a, err := f.auditorFor(c, &o.llmOptions)
		if err != nil {
			env.Close()
			return nil, err
		}
		cfg.Auditor = a.Auditor
		if c != nil {
			cfg.Answerer, cfg.Controller = c, c
		}
		x, name, err := f.factExtractor(&o.factsOptions, env.enc, c, &o.llmOptions)
		if err != nil {
			env.Close()
			return nil, err
		}
		cfg.Facts, cfg.FactMin = x, o.FactMin
		f.Logger.Debug("overlay models", "judge", a.Name, "facts", name)
	}
	if env.ov, err = overlay.New(cfg); err != nil {
		env.Close()
		return nil, err
	}
	return env, nil
}

// loadGate finds the Sentry checkpoint; none found means the gate is off, logged.
func (f *Factory) loadGate(o *overlayOptions, dataDir string, enc *onnx.Encoder) (*gate.Checkpoint, error) {
	path := f.findSentry(o.Checkpoint, dataDir, enc.Manifest().ID)
	if path == "" {
		f.Logger.Warn("no Sentry checkpoint: every candidate goes to the Judge; run `make models` (the default for the default backbone) or `sentry train --out <data-dir>/sentry`")
		return nil, nil
	}
	ck, err := gate.LoadCheckpoint(path, gate.Backbone{ID: enc.Manifest().ID, SHA256: enc.ModelSHA256(), Dim: enc.Dimension()})
	if err != nil {
		return nil, fmt.Errorf("%w; retrain with `sentry train --backbone %s --out %s` or pass --gate-off", err, enc.Manifest().ID, filepath.Dir(path))
	}
	f.Logger.Debug("sentry gate", "checkpoint", path, "thresholds", ck.Meta.Thresholds)
	return ck, nil
}

// noEmbedder stands in when a command needs no model (show, trace, check).
type noEmbedder struct{}

func (noEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("this command opened the bank without a backbone")
}

func newCmdOverlay(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "overlay <command>",
		Short: "The state-aware memory overlay: add memories, query them, inspect the bank",
		Example: `  atma overlay add --user alice "I moved to Lisbon last month."
  atma overlay query --user alice "Where do I live now?"
  atma overlay show --user alice`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdOverlayAdd(f, nil), newCmdOverlayQuery(f, nil), newCmdOverlayShow(f, nil), newCmdOverlayTrace(f, nil), newCmdOverlayCheck(f, nil),
		newCmdOverlayReindex(f, nil), newCmdOverlayServe(f, nil), newCmdOverlayKeys(f), newCmdOverlayMCP(f, nil), newCmdOverlayMigrate(f, nil))
	return cmd
}

// --- add ---

// overlayAddOptions are the flags and arguments of `atma overlay add`.
type overlayAddOptions struct {
	overlayOptions
	// Texts are the memories given as arguments; none: read from File, else standard
	// input, one a line.
	Texts []string
	File  string
	// At is when the memories were said (--at); zero: now.
	At time.Time
}

func newCmdOverlayAdd(f *Factory, runF func(context.Context, *overlayAddOptions) error) *cobra.Command {
	opts := &overlayAddOptions{}
	var at string
	cmd := &cobra.Command{
		Use:   "add --user U [TEXT...]",
		Short: "Add memories through the Sentry → Judge → commit path",
		Long: `Add memories for a user. Each goes through the commit path: the host's seed hits and
their linked records are the candidates, the Sentry gate routes suspicious pairs to the Judge,
and its verdicts are committed as statuses and links in one transaction. Texts come from the
arguments, else from --file or standard input, one per line.`,
		Example: `  atma overlay add --user alice "I live in Berlin." 
  atma overlay add --user alice --at 2025-03-01T10:00:00Z "I moved to Lisbon."`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return usagef("--at: %v (want RFC 3339, e.g. 2025-03-01T10:00:00Z)", err)
				}
				opts.At = t
			}
			opts.Texts = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayAddRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	cmd.Flags().StringVarP(&opts.File, "file", "f", "", "memories, one per line (- for standard input)")
	cmd.Flags().StringVar(&at, "at", "", "when the memories were said (RFC 3339; default: now)")
	return cmd
}

func overlayAddRun(ctx context.Context, f *Factory, opts *overlayAddOptions) error {
	texts := opts.Texts
	if len(texts) == 0 {
		var err error
		if texts, err = readLines(f.IO.In, opts.File); err != nil {
			return err
		}
	}
	var inputs []overlay.Input
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			inputs = append(inputs, overlay.Input{Content: t, EventTime: opts.At, Source: "cli"})
		}
	}
	if len(inputs) == 0 {
		return usagef("no memories: give them as arguments, with --file or on standard input")
	}
	env, err := f.openOverlay(ctx, &opts.overlayOptions, true)
	if err != nil {
		return err
	}
	defer env.Close()
	traces, err := addInChunks(ctx, f, env.ov, &opts.overlayOptions, inputs)
	if opts.JSON {
		if jerr := json.NewEncoder(f.IO.Out).Encode(traces); jerr != nil {
			return errors.Join(err, jerr)
		}
	}
	if errors.Is(err, overlay.ErrInvalidInput) {
		return usageError{err}
	}
	return err
}

// addChunk is how many memories `overlay add` commits per call: the traces of each
// chunk are printed as it commits, and an interrupted add has committed whole chunks
// and the memories of the current one before the interruption.
const addChunk = 32

// addInChunks checks every input, then adds them chunk by chunk, printing each committed
// memory (unless JSON is asked for) and, for more than one chunk, a progress bar on the
// error stream. When the context ends (Ctrl-C) or a commit fails, it says how many were
// committed: the first ones, in order, a prefix of the input.
func addInChunks(ctx context.Context, f *Factory, ov *overlay.Overlay, opts *overlayOptions, inputs []overlay.Input) ([]overlay.IngestTrace, error) {
	// Every input is checked before the first chunk: a bad line commits nothing.
	for i, in := range inputs {
		if err := in.Validate(); err != nil {
			return nil, fmt.Errorf("memory %d of %d: %w; nothing was committed", i+1, len(inputs), err)
		}
	}
	var bar *progressbar.ProgressBar
	if len(inputs) > addChunk {
		bar = progressbar.NewOptions(len(inputs), progressbar.OptionSetWriter(f.IO.ErrOut), progressbar.OptionSetDescription("adding"),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(f.IO.ErrOut) }))
	}
	var all []overlay.IngestTrace
	for start := 0; start < len(inputs); start += addChunk {
		chunk := inputs[start:min(start+addChunk, len(inputs))]
		trs, err := ov.Add(ctx, opts.User, chunk)
		all = append(all, trs...)
		if !opts.JSON {
			for _, tr := range trs {
				writeIngest(f.IO.Out, tr)
			}
		}
		if bar != nil {
			_ = bar.Add(len(trs))
		}
		if err != nil {
			if len(inputs) > 1 {
				fmt.Fprintf(f.IO.ErrOut, "\n%d of %d memories committed (the first %d, in order); the rest were not: fix or rerun them\n", len(all), len(inputs), len(all))
			}
			return all, err
		}
	}
	return all, nil
}

func writeIngest(w io.Writer, tr overlay.IngestTrace) {
	fmt.Fprintf(w, "+ %s  %s  %q\n", tr.RecordID, tr.Status, tr.Content)
	if tr.FactSource != "" || tr.FactNote != "" {
		var fs []string
		for _, f := range tr.Facts {
			v := f.Value
			if f.Negated {
				v = "not " + v
			}
			if f.Scope != "" {
				v += " (" + f.Scope + ")"
			}
			fs = append(fs, f.Slot()+" = "+v)
		}
		line := "    facts: " + strings.Join(fs, "; ")
		if len(fs) == 0 {
			line = "    facts: none"
		}
		if tr.FactSource != "" {
			line += " (" + tr.FactSource + ")"
		}
		if tr.FactNote != "" {
			line += "; " + tr.FactNote
		}
		if tr.Slot != "" {
			line += "; slot " + tr.Slot
		}
		fmt.Fprintln(w, line)
	}
	for _, c := range tr.Candidates {
		if !c.Routed {
			continue
		}
		v := "no verdict: " + c.Error
		if c.Verdict != nil {
			v = fmt.Sprintf("%s/%s → %s (by %s)", c.Verdict.Status, c.Verdict.ConflictType, c.Verdict.Action, c.Auditor)
		}
		scores := "no gate"
		if c.Gated {
			scores = fmt.Sprintf("a %.2f, b %.2f, gap %.2f", c.A, c.B, c.Gap)
		}
		if c.Cue != "" {
			scores += ", cue: " + c.Cue
		}
		fmt.Fprintf(w, "    judged against %q (%s): %s\n", c.Content, scores, v)
	}
	for _, c := range tr.Commits {
		line := fmt.Sprintf("    commit %s: %s → %s", c.Action, c.Old, c.New)
		if c.Transition != "" {
			line += " (transition " + c.Transition + ")"
		}
		if c.Note != "" {
			line += "; " + c.Note
		}
		fmt.Fprintln(w, line)
	}
}

// --- query ---

// overlayQueryOptions are the flags and arguments of `atma overlay query`.
type overlayQueryOptions struct {
	overlayOptions
	// Request is the query: the arguments joined, and the flags.
	Request overlay.QueryRequest
}

func newCmdOverlayQuery(f *Factory, runF func(context.Context, *overlayQueryOptions) error) *cobra.Command {
	opts := &overlayQueryOptions{}
	q := &opts.Request
	var controller string
	cmd := &cobra.Command{
		Use:   "query --user U QUESTION",
		Short: "Build the state-aligned evidence packet for a question (and answer it)",
		Long: `Profile the question (current, historical, transition or neutral), take the host's
seed hits plus relation hops, pre-rank them by state fit, optionally let the bounded
controller re-order them, and print the labelled evidence packet. With an LLM endpoint
(--llm-url / ATMA_LLM_URL) and --answer, the answer model answers from the packet. The
trace id printed last works with 'atma overlay trace'.`,
		Example: `  atma overlay query --user alice "Where do I live now?"
  atma overlay query --user alice "Where did I live before?" --json
  ATMA_LLM_URL=http://127.0.0.1:11434/v1 ATMA_LLM_MODEL=qwen2.5:3b atma overlay query -u alice --answer --controller online "What changed in my job?"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			q.Controller = retrieval.ControllerMode(controller)
			if err := q.Validate(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayQueryRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	cmd.Flags().IntVar(&q.TopK, "top-k", 0, "evidence rows (0: 5; at most 50)")
	cmd.Flags().StringVar(&controller, "controller", "off", "retrieve controller: off, shadow or online (needs an LLM endpoint)")
	cmd.Flags().BoolVar(&q.Answer, "answer", false, "answer with the LLM endpoint from the packet")
	cmd.Flags().BoolVar(&q.Unmarked, "unmarked", false, "leave the state labels out (ablation)")
	cmd.Flags().BoolVar(&q.KeepLabels, "keep-labels", false, "label a packet that knows no state of what it holds all the same (ablation)")
	cmd.Flags().BoolVar(&q.KeepOrder, "keep-order", false, "keep the rows in the pool's order, not by date within a state (ablation)")
	cmd.Flags().StringVar((*string)(&q.Order), "order", "", "pre-rank: anchored (default, the paper's) or tier-first (ablation)")
	cmd.Flags().StringVar((*string)(&q.Labels), "labels", "", "label rule: state (default), paper or slot (ablations)")
	cmd.Flags().StringVar(&q.Gold, "gold", "", "expected answer: classify a failure as bank, retrieval or QA")
	return cmd
}

func overlayQueryRun(ctx context.Context, f *Factory, opts *overlayQueryOptions) error {
	env, err := f.openExisting(ctx, &opts.overlayOptions, true)
	if err != nil {
		return err
	}
	defer env.Close()
	tr, err := env.ov.Query(ctx, opts.User, opts.Request)
	if err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(tr)
	}
	fmt.Fprintf(f.IO.Out, "query: %s\nprofile: %s (hints %v)\n", tr.Query, tr.Profile.Mode, tr.Profile.Hints)
	fmt.Fprint(f.IO.Out, tr.Packet.Text())
	if !strings.HasSuffix(tr.Packet.Text(), "\n") {
		fmt.Fprintln(f.IO.Out)
	}
	if tr.ControllerStatus.Mode != "" && tr.ControllerStatus.Mode != retrieval.ControllerOff {
		fmt.Fprintf(f.IO.Out, "controller: %s\n", tr.ControllerStatus.Reason)
	}
	if tr.Answer != "" {
		fmt.Fprintf(f.IO.Out, "answer: %s\n", tr.Answer)
	} else if tr.AnswerError != "" {
		fmt.Fprintf(f.IO.Out, "answer failed: %s\n", tr.AnswerError)
	}
	if tr.Diagnosis != nil {
		fmt.Fprintf(f.IO.Out, "diagnosis: %s (%s)\n", tr.Diagnosis.Class, tr.Diagnosis.Reason)
	}
	fmt.Fprintf(f.IO.Out, "trace: %s\n", tr.ID)
	return nil
}

// --- show ---

// overlayShowOptions are the flags and argument of `atma overlay show`.
type overlayShowOptions struct {
	overlayOptions
	// ID is the record to show with its links and history; "": list the records.
	ID     string
	Status string
	Slot   string
	Limit  int
}

func newCmdOverlayShow(f *Factory, runF func(context.Context, *overlayShowOptions) error) *cobra.Command {
	opts := &overlayShowOptions{}
	cmd := &cobra.Command{
		Use:   "show --user U [RECORD-ID]",
		Short: "Show a user's records, or one record with its links and version history",
		Example: `  atma overlay show --user alice
  atma overlay show --user alice --status superseded
  atma overlay show --user alice 0192f3a1c2d34e5f8a9b0c1d2e3f4a5b --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.User == "" {
				return usagef("--user is required")
			}
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayShowRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), false)
	cmd.Flags().StringVar(&opts.Status, "status", "", "only records with this status: active, superseded, transition, unknown")
	cmd.Flags().StringVar(&opts.Slot, "slot", "", "only records of this slot")
	cmd.Flags().IntVar(&opts.Limit, "limit", 0, "at most this many records (0: 100)")
	return cmd
}

func overlayShowRun(ctx context.Context, f *Factory, opts *overlayShowOptions) error {
	env, err := f.openExisting(ctx, &opts.overlayOptions, false)
	if err != nil {
		return err
	}
	defer env.Close()
	if opts.ID != "" {
		v, err := env.ov.Get(ctx, opts.User, opts.ID)
		if err != nil {
			return err
		}
		if opts.JSON {
			return json.NewEncoder(f.IO.Out).Encode(v)
		}
		writeRecords(f.IO.Out, []store.Record{v.Record})
		if len(v.Linked) > 0 {
			fmt.Fprintln(f.IO.Out, "\nlinked:")
			writeRecords(f.IO.Out, v.Linked)
		}
		if len(v.History) > 0 {
			fmt.Fprintln(f.IO.Out, "\nversion history (oldest first):")
			writeRecords(f.IO.Out, v.History)
		}
		return nil
	}
	recs, _, err := env.ov.List(ctx, opts.User, store.Filter{Status: store.Status(opts.Status), Slot: opts.Slot, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(recs)
	}
	writeRecords(f.IO.Out, recs)
	return nil
}

func writeRecords(w io.Writer, recs []store.Record) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tTIME\tSLOT\tLINKS\tCONTENT")
	for _, r := range recs {
		var links []string
		for _, l := range r.Links {
			links = append(links, fmt.Sprintf("%s→%.8s", l.Type, l.To))
		}
		content := r.Content
		if rs := []rune(content); len(rs) > 70 {
			content = string(rs[:67]) + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Time().Format("2006-01-02"), r.Slot, strings.Join(links, " "), content)
	}
	tw.Flush()
}

// --- trace ---

// overlayTraceOptions are the flags and argument of `atma overlay trace`.
type overlayTraceOptions struct {
	overlayOptions
	ID string
}

func newCmdOverlayTrace(f *Factory, runF func(context.Context, *overlayTraceOptions) error) *cobra.Command {
	opts := &overlayTraceOptions{}
	cmd := &cobra.Command{
		Use:     "trace --user U TRACE-ID",
		Short:   "Print a stored ingest or query trace as JSON",
		Example: "  atma overlay trace --user alice 0192f3a1c2d34e5f8a9b0c1d2e3f4a5b",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.User == "" {
				return usagef("--user is required")
			}
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayTraceRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), false)
	return cmd
}

func overlayTraceRun(ctx context.Context, f *Factory, opts *overlayTraceOptions) error {
	env, err := f.openExisting(ctx, &opts.overlayOptions, false)
	if err != nil {
		return err
	}
	defer env.Close()
	kind, raw, err := env.ov.Trace(ctx, opts.User, opts.ID)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	enc := json.NewEncoder(f.IO.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"kind": kind, "trace": v})
}

// --- reindex ---

func newCmdOverlayReindex(f *Factory, runF func(context.Context, *overlayOptions) error) *cobra.Command {
	opts := &overlayOptions{}
	cmd := &cobra.Command{
		Use:   "reindex --user U",
		Short: "Read the facts of records that have none and regroup them by fact",
		Long: `Read the facts of every record that has none — a bank written before version groups
followed facts, or with --facts off — and put each into its fact's version group (user/home,
sister/job), in place of no slot or a slot:<id> group; then the time line of each touched
group settles statuses, so an old state no longer stays current beside a newer one. One
transaction a user: a result that would break an invariant writes nothing. Running it again
changes nothing.`,
		Example: "  atma overlay reindex --user alice\n  atma overlay reindex --user alice --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Facts == factsOff {
				return usagef("reindex reads facts: --facts off leaves nothing to do")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayReindexRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	return cmd
}

func overlayReindexRun(ctx context.Context, f *Factory, opts *overlayOptions) error {
	env, err := f.openExisting(ctx, opts, true)
	if err != nil {
		return err
	}
	defer env.Close()
	rep, err := env.ov.Reindex(ctx, opts.User)
	if err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(rep)
	}
	fmt.Fprintf(f.IO.Out, "%s: %d records, %d without facts read, %d got facts, %d moved to fact groups, %d groups reconciled\n",
		rep.User, rep.Records, rep.Read, rep.WithFacts, rep.Moved, len(rep.Slots))
	return nil
}

// --- check ---

func newCmdOverlayCheck(f *Factory, runF func(context.Context, *overlayOptions) error) *cobra.Command {
	opts := &overlayOptions{}
	cmd := &cobra.Command{
		Use:   "check [--user U]",
		Short: "Check the bank's invariants for one user or all",
		Long: `Check the bank's invariants: a single-valued slot never has two active records unless
they coexist, every link has its reciprocal and stays within its user, superseded records
stay retrievable with valid_until, transitions point at both states, and statuses follow
their version groups. First it runs SQLite's full integrity check of the bank file
(PRAGMA integrity_check); a damaged file is reported, and the invariants of what can still
be read are checked after it. Exits 1 when anything is violated or damaged.`,
		Example: "  atma overlay check\n  atma overlay check --user alice --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayCheckRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), false)
	return cmd
}

func overlayCheckRun(ctx context.Context, f *Factory, opts *overlayOptions) error {
	env, err := f.openExisting(ctx, opts, false)
	if err != nil {
		return err
	}
	defer env.Close()
	damage, err := env.ov.Integrity(ctx, true)
	if err != nil {
		return err
	}
	if len(damage) > 0 && !opts.JSON {
		fmt.Fprintf(f.IO.Out, "bank file: damaged (SQLite integrity_check):\n")
		for _, d := range damage {
			fmt.Fprintf(f.IO.Out, "  %s\n", d)
		}
		fmt.Fprintln(f.IO.Out, "  writes are refused; restore atma.db from a backup. The invariants of what can still be read follow.")
	}
	type result struct {
		User       string            `json:"user"`
		Violations []store.Violation `json:"violations"`
	}
	var results []result
	bad := len(damage)
	if len(damage) > 0 {
		r := result{User: ""}
		for _, d := range damage {
			r.Violations = append(r.Violations, store.Violation{Kind: store.KindDamagedFile, Detail: d})
		}
		results = append(results, r)
	}
	users := []string{opts.User}
	if opts.User == "" {
		if users, err = env.ov.Users(ctx); err != nil {
			if len(damage) > 0 {
				if opts.JSON {
					_ = json.NewEncoder(f.IO.Out).Encode(results)
				}
				return fmt.Errorf("the bank file is damaged (%d problems) and its users cannot be listed: %w", len(damage), err)
			}
			return err
		}
	}
	for _, u := range users {
		v, err := env.ov.Check(ctx, u)
		if err != nil && len(damage) > 0 {
			// The damage keeps this user's records from being read: say so, go on.
			v = []store.Violation{{Kind: store.KindDamagedFile, User: u, Detail: err.Error()}}
		} else if err != nil {
			return err
		}
		bad += len(v)
		results = append(results, result{u, v})
	}
	if opts.JSON {
		if err := json.NewEncoder(f.IO.Out).Encode(results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			if r.User == "" {
				continue // the damage, printed above
			}
			fmt.Fprintf(f.IO.Out, "%s: %d violations\n", r.User, len(r.Violations))
			for _, v := range r.Violations {
				fmt.Fprintf(f.IO.Out, "  %s\n", v)
			}
		}
	}
	if len(damage) > 0 {
		return fmt.Errorf("the bank file is damaged (%d problems); %d invariant violations", len(damage), bad-len(damage))
	}
	if bad > 0 {
		return fmt.Errorf("%d invariant violations", bad)
	}
	return nil
}
