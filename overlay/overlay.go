package overlay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/rule"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry/gate"
)

// Embedder turns texts into backbone vectors (an *onnx.Encoder).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Errors callers test with errors.Is.
var (
	// ErrInvalidInput: an input the overlay refuses (empty or oversized content, bad UTF-8).
	ErrInvalidInput = errors.New("invalid input")
)

// DefaultEmbedChunk is Config.EmbedChunk's default: on use-lite with one ONNX Runtime
// thread (2 cores, BenchmarkIngest/Batch32), chunks of 4 ingested about 10 % more
// memories a second than chunks of 8 and 5 % more than chunks of 12 (the first commit
// waits for the first chunk; later ones overlap).
const DefaultEmbedChunk = 4

// DefaultAdoptTop is Config.AdoptTop's floor. Measured with the use-lite backbone and
// the demo checkpoint (τ_top 0.74), before multi-valued attributes got one group per
// value: adopting at 0.74 / 0.80 / 0.85 / never gave corpus dev bank accuracy 0.636 /
// 0.621 / 0.605 / 0.605 and LTP bank role 0.785 / 0.833 / 0.838 / 0.785.
const DefaultAdoptTop = 0.80

// DefaultFactMin is Config.FactMin's default: facts.DefaultFactMin.
const DefaultFactMin = facts.DefaultFactMin

// MaxContentBytes bounds one memory's content.
const MaxContentBytes = 16 << 10

// Config wires an Overlay. Store, Embedder and one of Host and SeparateHost are
// required.
type Config struct {
	Store store.Store
	// Host is the host memory the overlay wraps, a participant of Store's transactions
	// (TxHost): every new memory is added to it under the record's id in the
	// transaction that commits the record, and its hybrid search gives the seeds of
	// ingests and queries. A bank's host (Bank.Host, on the store's database) and
	// host.InMemory are participants; a wrapper of one stays one as long as it keeps
	// AddIn (embedding the TxHost does).
	Host TxHost
	// SeparateHost, in place of Host, is a host memory that cannot join Store's
	// transactions: one in another database, or a service (a Mem0 or Zep adapter). It
	// gets a new memory before the store's transaction and loses it again when the
	// commit fails, and the commit's transition records after it (see the package doc).
	SeparateHost host.Host
	Embedder     Embedder
	// Heads project embeddings for the gate; nil routes every candidate to the Judge
	// (the "gate off" ablation) and stores no projections.
	Heads *gate.Heads
	// Thresholds of the gate (zero: the checkpoint's or the defaults).
	Thresholds gate.Thresholds
	// NoCues routes on the gate's scores alone. By default a topically close pair
	// (a > τ_top) that the logic head passes is still routed when the new text carries a
	// lexical cue of a change (rule.ChangeCue: a quantity that differs, a negation, a
	// scope or change word).
	NoCues bool
	// Auditor judges routed pairs (nil: the rule auditor).
	Auditor judge.Auditor
	// Facts reads the facts each memory states (package facts: the offline extractor
	// on the backbone, or an LLM). With it, version groups follow facts: a memory's slot
	// is a fact's group ("user/home", "user/pet/miso": the first whose group a candidate
	// has, else the first), its slot's current members are always
	// candidates, a memory that states no fact audits nothing and is never audited, and
	// only memories with facts about the same subject are compared. Nil: the behaviour
	// before facts, sentences judged as they are and slots made by supersessions. It
	// should be built on the same backbone as Embedder: the overlay hands it each
	// memory's vector (facts.Input.Vector) so that it is not embedded twice.
	Facts facts.Extractor
	// AdoptTop is the topic similarity (Sentry's a) above which a fact whose slot the
	// user does not have takes the key of a candidate's slot of the same subject (0: the
	// larger of Thresholds.Top and DefaultAdoptTop).
	AdoptTop float64
	// FactMin is the least facts.Fact.Confidence of a fact that puts its memory in a
	// version group (0: DefaultFactMin). Facts read with less confidence — chat that
	// merely resembles a state — stay in the ingest trace only: the memory is stored as
	// one that states no fact, so it neither supersedes nor is superseded.
	FactMin float64
	// NoCommit records verdicts without changing statuses or links (the "Judge off"
	// ablation).
	NoCommit bool
	// Candidates is the number of host hits per new memory (0: 5).
	Candidates int
	// EmbedChunk is how many memories of an Add one embedding call takes (0: 4): Add
	// embeds the next chunk while it commits this one, so the first commit waits for one
	// chunk only. Small chunks keep both sides busy; see the package doc for the
	// embedder settings this assumes.
	EmbedChunk int
	// Answerer answers queries from the labelled packet (nil: packets only).
	Answerer Chatter
	// Controller is the bounded retrieve controller's endpoint (nil: pre-rank only).
	Controller Chatter
	// Traces keeps ingest and query traces (nil: not kept).
	Traces TraceStore
	// Now is the clock (nil: time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Overlay is the bank with its commit path. It is safe for concurrent use.
type Overlay struct {
	cfg   Config
	host  host.Host // Config.Host or Config.SeparateHost
	inTx  TxHost    // Config.Host; nil for a separate host
	gate  gate.Gate
	rules judge.Auditor // answers when the configured auditor fails
	locks sync.Map      // user → *sync.Mutex: one ingest at a time per user
	slots sync.Map      // user → *recentSlots: the slot keys the fact extractor is shown
}

// New checks cfg and returns an Overlay.
func New(cfg Config) (*Overlay, error) {
	var errs []error
	if cfg.Store == nil {
		errs = append(errs, errors.New("store is required"))
	}
	switch {
	case cfg.Host == nil && cfg.SeparateHost == nil:
		errs = append(errs, errors.New("host memory is required (Host, or SeparateHost for one outside the store's database)"))
	case cfg.Host != nil && cfg.SeparateHost != nil:
		errs = append(errs, errors.New("host memory given twice: set Host (in the store's transactions) or SeparateHost (outside them), not both"))
	}
	if cfg.Embedder == nil {
		errs = append(errs, errors.New("embedder is required"))
	}
	if cfg.Candidates < 0 {
		errs = append(errs, fmt.Errorf("candidates %d is negative", cfg.Candidates))
	}
	if cfg.EmbedChunk < 0 {
		errs = append(errs, fmt.Errorf("embed chunk %d is negative", cfg.EmbedChunk))
	}
	if math.IsNaN(cfg.FactMin) || cfg.FactMin < 0 || cfg.FactMin > 1 {
		errs = append(errs, fmt.Errorf("fact min %v is outside [0, 1]", cfg.FactMin))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("overlay config: %w", err)
	}
	if cfg.Candidates == 0 {
		cfg.Candidates = 5
	}
	if cfg.EmbedChunk == 0 {
		cfg.EmbedChunk = DefaultEmbedChunk
	}
	if cfg.FactMin == 0 {
		cfg.FactMin = DefaultFactMin
	}
	rules, err := rule.New(rule.Config{})
	if err != nil {
		return nil, err
	}
	if cfg.Auditor == nil {
		cfg.Auditor = rules
	}
	if cfg.Thresholds == (gate.Thresholds{}) {
		cfg.Thresholds = gate.DefaultThresholds()
	}
	if cfg.AdoptTop == 0 {
		cfg.AdoptTop = max(cfg.Thresholds.Top, DefaultAdoptTop)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	o := &Overlay{cfg: cfg, host: cfg.SeparateHost, gate: gate.NewGate(cfg.Thresholds), rules: rules}
	if cfg.Host != nil {
		o.host, o.inTx = cfg.Host, cfg.Host
	}
	return o, nil
}

// TxHost is a host memory that is a participant of the store's transactions: an ingest
// writes its memory and the transition records its commit made in the transaction that
// commits their records, so the bank and the host memory hold both or neither.
type TxHost interface {
	host.Host
	// AddIn adds ms for user inside tx, the store's transaction that commits their
	// records, or fails (and the transaction with it). The caller calls apply once tx
	// has committed — it makes the memories searchable — and not after a rollback,
	// which leaves nothing of them. host.SQL refuses a transaction that is not on its
	// own database.
	AddIn(ctx context.Context, tx store.Tx, user string, ms []host.Memory) (apply func(), err error)
}

var (
	_ TxHost = (*host.SQL)(nil)
	_ TxHost = (*host.InMemory)(nil)
)

// Store is the bank.
func (o *Overlay) Store() store.Store { return o.cfg.Store }

// SearchText finds user's records by the query's words alone: the host memory's own
// text search (BM25 with each user's statistics on the built-in hosts; other users'
// memories never change a score), its hits as the bank's records, best first, with the
// host's BM25 score. Records the host does not hold (transition records) are not found.
func (o *Overlay) SearchText(ctx context.Context, user, query string, k int) ([]store.TextHit, error) {
	hits, err := o.host.Search(ctx, user, query, nil, k)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	ids := make([]string, len(hits))
	score := make(map[string]float64, len(hits))
	for i, h := range hits {
		ids[i], score[h.ID] = h.ID, h.BM25
	}
	recs, err := o.cfg.Store.GetMany(ctx, user, ids)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	out := make([]store.TextHit, 0, len(recs))
	for _, r := range recs {
		if s := score[r.ID]; s > 0 {
			out = append(out, store.TextHit{Record: r, Score: s})
		}
	}
	return out, nil
}

// Input is one new memory.
type Input struct {
	Content string `json:"content"`
	// EventTime is when it was said or happened (zero: now).
	EventTime time.Time `json:"event_time,omitzero"`
	// SourcePos orders memories of one source with the same time (a turn index).
	SourcePos int64             `json:"source_pos,omitempty"`
	Source    string            `json:"source,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
	// IdempotencyKey, when set, makes the add safe to repeat: a memory of the same user
	// and key commits once, and a repeat — after a lost response, a crash between commit
	// and answer, a client's retry — returns the first commit's trace (IngestTrace.Repeat)
	// and writes nothing. The record's id is derived from the user and the key, so the
	// commit itself carries the key: no separate table can miss it. At most
	// MaxIdempotencyKeyBytes printable bytes.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// MaxIdempotencyKeyBytes bounds Input.IdempotencyKey.
const MaxIdempotencyKeyBytes = 256

// idempotentIDs are the record and trace ids of a memory with an idempotency key: the
// same for every repeat.
func idempotentIDs(user, key string) (record, trace string) {
	r := sha256.Sum256([]byte("record\x00" + user + "\x00" + key))
	t := sha256.Sum256([]byte("trace\x00" + user + "\x00" + key))
	return hex.EncodeToString(r[:16]), hex.EncodeToString(t[:16])
}

// Validate reports what is wrong with an input.
func (in Input) Validate() error {
	switch {
	case in.Content == "":
		return fmt.Errorf("%w: content is empty", ErrInvalidInput)
	case len(in.Content) > MaxContentBytes:
		return fmt.Errorf("%w: content is %d bytes, more than %d; split it into several memories", ErrInvalidInput, len(in.Content), MaxContentBytes)
	case !utf8.ValidString(in.Content):
		return fmt.Errorf("%w: content is not valid UTF-8", ErrInvalidInput)
	case strings.TrimFunc(in.Content, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) == "":
		return fmt.Errorf("%w: content has no text (only spaces or control characters)", ErrInvalidInput)
	case len(in.IdempotencyKey) > MaxIdempotencyKeyBytes || strings.ContainsFunc(in.IdempotencyKey, func(r rune) bool { return r < ' ' || r == 0x7f }) || !utf8.ValidString(in.IdempotencyKey):
		return fmt.Errorf("%w: idempotency key %.40q is longer than %d bytes or not printable text", ErrInvalidInput, in.IdempotencyKey, MaxIdempotencyKeyBytes)
	}
	return nil
}

func (o *Overlay) lock(user string) func() {
	m, _ := o.locks.LoadOrStore(user, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// Add ingests inputs for user in order, each through the commit path, and returns one
// trace per committed input. Every input is checked before anything is written; an
// ingest that fails leaves the bank as it was before that input (earlier inputs stay
// committed, and their traces are returned with the error) and the error names the
// input. Inputs are embedded a chunk ahead of their commits (Config.EmbedChunk), so an
// embedding failure, named by its chunk, also stops the call after the inputs before
// that chunk.
func (o *Overlay) Add(ctx context.Context, user string, inputs []Input) ([]IngestTrace, error) {
	if err := store.ValidateUser(user); err != nil {
		return nil, err
	}
	var errs []error
	for i, in := range inputs {
		if err := in.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("memory %d: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, nil
	}
	unlock := o.lock(user)
	defer unlock()
	o.seedSlots(ctx, user)
	traces := make([]IngestTrace, 0, len(inputs))
	// The traces are kept a chunk at a time beside the commits (the last chunk's commits
	// leave the embedder's core idle), and all of them, also after a failure, before Add
	// returns.
	keep := make(chan []IngestTrace, 2)
	kept := make(chan struct{})
	go func() {
		defer close(kept)
		for batch := range keep {
			o.keepTraces(ctx, batch)
		}
	}()
	sent := 0
	flush := func() {
		if sent < len(traces) {
			keep <- traces[sent:] // not changed after: appends only add after it
			sent = len(traces)
		}
	}
	err := o.embedAhead(ctx, user, inputs, func(i int, e embedded) error {
		tr, err := o.ingest(ctx, user, inputs[i], e)
		if err != nil {
			return fmt.Errorf("memory %d (%.40q): %w", i, inputs[i].Content, err)
		}
		tr.Timings.Embed = e.took
		traces = append(traces, *tr)
		return nil
	}, flush)
	flush()
	close(keep)
	<-kept
	return traces, err
}

// embedded is one input's embedding, its projection by the heads (zero without heads)
// and its share of the embedding call's time.
type embedded struct {
	vec  []float32
	proj gate.Projection
	took time.Duration
	// facts is what Config.Facts read (with Facts only), with the chunk's share of the
	// extraction's time.
	facts     facts.Result
	factsTook time.Duration
}

// embedAhead embeds inputs in chunks of cfg.EmbedChunk and calls fn with each input's
// embedding, in order, from one goroutine. The next chunk is embedded while fn commits
// this one's: the embedder and the commit path (SQLite, the gate, the Judge) then keep
// different cores busy. A chunk's facts are read only once the chunk before it is
// committed, so the extractor is shown every slot committed before the chunk, however
// the two goroutines are timed: the same memories give the same bank. When fn fails,
// embedding stops; when embedding fails, fn still gets the inputs embedded before, so
// exactly those before the failing chunk are committed. After each chunk, fn's goroutine
// calls chunkDone. It returns the first error once both goroutines have ended.
func (o *Overlay) embedAhead(ctx context.Context, user string, inputs []Input, fn func(int, embedded) error, chunkDone func()) error {
	type chunk struct {
		start int
		es    []embedded
	}
	g, gctx := errgroup.WithContext(ctx)
	ready := make(chan chunk, 1) // one chunk ahead of fn
	// committed receives the start of each chunk after fn has committed it.
	committed := make(chan int, 1)
	g.Go(func() error {
		defer close(ready)
		for start := 0; start < len(inputs); start += o.cfg.EmbedChunk {
			end := min(start+o.cfg.EmbedChunk, len(inputs))
			c, err := o.embed(gctx, inputs[start:end])
			if err != nil {
				return fmt.Errorf("memories %d to %d: %w", start, end-1, err)
			}
			if o.cfg.Facts != nil {
				if start > 0 {
					select {
					case <-committed:
					case <-gctx.Done():
						return nil // as below
					}
				}
				if err := o.readFacts(gctx, user, inputs[start:end], c); err != nil {
					return fmt.Errorf("memories %d to %d: %w", start, end-1, err)
				}
			}
			select {
			case ready <- chunk{start, c}:
			case <-gctx.Done():
				// The commit side stopped, or the caller's context ended: the commit side
				// (or the check below) names the memory it stopped at.
				return nil
			}
		}
		return nil
	})
	next := 0 // the first input not committed
	g.Go(func() error {
		for c := range ready {
			for j, e := range c.es {
				if err := fn(c.start+j, e); err != nil {
					return err
				}
				next = c.start + j + 1
			}
			if o.cfg.Facts != nil {
				// Never blocks: the embedder takes each start before it sends the next chunk.
				committed <- c.start
			}
			chunkDone()
		}
		return nil
	})
	err := g.Wait()
	if err == nil && next < len(inputs) {
		err = fmt.Errorf("memory %d (%.40q): %w", next, inputs[next].Content, context.Cause(ctx))
	}
	return err
}

// embed embeds and projects inputs, the projections in one matrix product.
func (o *Overlay) embed(ctx context.Context, inputs []Input) ([]embedded, error) {
	texts := make([]string, len(inputs))
	for i, in := range inputs {
		texts[i] = in.Content
	}
	start := time.Now()
	vecs, err := o.cfg.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed memories: %w", err)
	}
	if len(vecs) != len(inputs) {
		return nil, fmt.Errorf("embed memories: %d vectors for %d texts", len(vecs), len(inputs))
	}
	took := time.Since(start) / time.Duration(len(inputs))
	out := make([]embedded, len(vecs))
	for i, v := range vecs {
		out[i] = embedded{vec: v, took: took}
	}
	if o.cfg.Heads == nil {
		return out, nil
	}
	for _, v := range vecs {
		if len(v) != o.cfg.Heads.Dim() {
			return nil, fmt.Errorf("embed memories: the backbone gives %d-dimensional vectors, the Sentry heads take %d: use the checkpoint's backbone", len(v), o.cfg.Heads.Dim())
		}
	}
	for i, p := range o.cfg.Heads.ProjectAll(vecs) {
		out[i].proj = p
	}
	return out, nil
}

// readFacts reads the facts of embedded inputs (es) with Config.Facts, in one call.
func (o *Overlay) readFacts(ctx context.Context, user string, inputs []Input, es []embedded) error {
	vecs := make([][]float32, len(es))
	for i, e := range es {
		vecs[i] = e.vec
	}
	start := time.Now()
	res, err := o.extract(ctx, user, inputs, vecs)
	if err != nil {
		return err
	}
	took := time.Since(start) / time.Duration(len(inputs))
	for i := range es {
		es[i].facts, es[i].factsTook = res[i], took
	}
	return nil
}

// keepTraces stores ingest traces; a failure is logged, since the memories are committed.
func (o *Overlay) keepTraces(ctx context.Context, traces []IngestTrace) {
	if o.cfg.Traces == nil || len(traces) == 0 {
		return
	}
	trs := make([]*IngestTrace, 0, len(traces))
	for i := range traces {
		if !traces[i].Repeat { // a repeat's trace is the first commit's, kept then
			trs = append(trs, &traces[i])
		}
	}
	if len(trs) == 0 {
		return
	}
	if err := o.cfg.Traces.PutIngest(context.WithoutCancel(ctx), trs...); err != nil {
		o.cfg.Logger.Warn("store ingest traces", "user", trs[0].User, "traces", len(trs), "err", err)
	}
}
