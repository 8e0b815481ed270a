package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/llm"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry/gate"
)

// Env is what every benchmark run needs: the backbone, the Sentry heads, the Judge and,
// optionally, an LLM endpoint. The zero value of every optional field means "without".
type Env struct {
	// Embedder is the backbone (required). Runs cache its vectors, so every system and
	// ablation of one run embeds each text once.
	Embedder overlay.Embedder
	// Heads and Thresholds are the Sentry gate (nil heads: no gate, every pair audited).
	Heads      *gate.Heads
	Thresholds gate.Thresholds
	// Auditor is the Judge (nil: the rule auditor).
	Auditor judge.Auditor
	// Facts reads the facts of each memory for the overlay (overlay.Config.Facts; nil:
	// without, as before version groups by fact). Build it on Embedder when that is a
	// CachedEmbedder, so that both embed each text once.
	Facts facts.Extractor
	// FactMin is overlay.Config.FactMin (0: its default).
	FactMin float64
	// LLM answers questions from the packets, grades answers (judge score) and runs the
	// retrieve controller. Nil: QA accuracy and judge score are "n/a" and the controller
	// ablations are skipped.
	LLM overlay.Chatter
	// TopK is the packet size (0: 5).
	TopK int
	// NoSpeaker stores conversation turns without the "Speaker: " prefix. With it (the
	// default) a question naming a speaker finds their turns; without it the rule
	// auditor no longer sees the speaker's name as a word that every turn of theirs
	// shares.
	NoSpeaker bool
	// Logger gets progress at info level (nil: slog.Default()).
	Logger *slog.Logger
}

// Validate reports what is missing or wrong.
func (e Env) Validate() error {
	var errs []error
	if e.Embedder == nil {
		errs = append(errs, errors.New("an embedder is required"))
	}
	if e.TopK < 0 || e.TopK > overlay.MaxTopK {
		errs = append(errs, fmt.Errorf("top-k %d is outside 0..%d", e.TopK, overlay.MaxTopK))
	}
	return errors.Join(errs...)
}

func (e Env) withDefaults() Env {
	if e.TopK == 0 {
		e.TopK = overlay.DefaultTopK
	}
	if e.Logger == nil {
		e.Logger = slog.Default()
	}
	if _, ok := e.Embedder.(*embedCache); !ok && e.Embedder != nil {
		e.Embedder = newEmbedCache(e.Embedder)
	}
	return e
}

// CachedEmbedder wraps e in the cache every run keeps (Env.Embedder may be one already):
// each text is embedded once, by the systems and by a fact extractor built on it.
func CachedEmbedder(e overlay.Embedder) overlay.Embedder {
	if c, ok := e.(*embedCache); ok {
		return c
	}
	return newEmbedCache(e)
}

// content is a turn as the memories store it.
func (e Env) content(t Turn) string {
	if e.NoSpeaker {
		return t.Bare()
	}
	return t.Content()
}

// embedCache remembers the backbone's vectors by text. It is safe for concurrent use.
type embedCache struct {
	inner overlay.Embedder
	mu    sync.Mutex
	m     map[string][]float32
	// spent is the time the backbone took, for the cost report.
	spent time.Duration
}

func newEmbedCache(e overlay.Embedder) *embedCache {
	return &embedCache{inner: e, m: map[string][]float32{}}
}

func (c *embedCache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	var at []int
	c.mu.Lock()
	for i, t := range texts {
		if v, ok := c.m[t]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
			at = append(at, i)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	start := time.Now()
	vecs, err := c.inner.Embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(miss) {
		return nil, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(miss))
	}
	c.mu.Lock()
	c.spent += time.Since(start)
	for j, v := range vecs {
		c.m[miss[j]] = v
		out[at[j]] = v
	}
	c.mu.Unlock()
	return out, nil
}

// Variant is one configuration of the memory under test.
type Variant struct {
	// Name is how tables show it.
	Name string `json:"name"`
	// HostOnly is the host memory alone: its hybrid search top-k, no labels, no commits.
	HostOnly bool `json:"host_only,omitempty"`
	// GateOff routes every candidate pair to the Judge (no Sentry heads).
	GateOff bool `json:"gate_off,omitempty"`
	// JudgeOff records verdicts without committing them.
	JudgeOff bool `json:"judge_off,omitempty"`
	// LabelsOff leaves the state labels out of the packets.
	LabelsOff bool `json:"labels_off,omitempty"`
	// KeepLabels labels the packets that know no state all the same.
	KeepLabels bool `json:"keep_labels,omitempty"`
	// KeepOrder keeps the packets' rows in the pool's order.
	KeepOrder bool `json:"keep_order,omitempty"`
	// FactsOff runs the overlay without Env.Facts.
	FactsOff bool `json:"facts_off,omitempty"`
	// AllFacts lets facts of any confidence make version groups (overlay.Config.FactMin
	// at its least).
	AllFacts bool `json:"all_facts,omitempty"`
	// Controller is the retrieve controller mode ("" is off).
	Controller retrieval.ControllerMode `json:"controller,omitempty"`
	// Order and Labels are the pool's pre-rank and the packet's label rule ("": the
	// defaults).
	Order  retrieval.Order     `json:"order,omitempty"`
	Labels retrieval.LabelRule `json:"labels,omitempty"`
}

// replayKey is what a replay depends on: variants with one key share it and differ only
// at query time.
type replayKey struct{ hostOnly, gateOff, judgeOff, factsOff, allFacts bool }

func (v Variant) replayKey() replayKey {
	return replayKey{v.HostOnly, v.GateOff, v.JudgeOff, v.FactsOff, v.AllFacts}
}

// The two systems every benchmark compares.
var (
	HostOnly = Variant{Name: "host-only", HostOnly: true}
	Overlay  = Variant{Name: "host+overlay"}
)

// Ablation names for ParseAblations.
const (
	AblationGateOff          = "gate-off"
	AblationJudgeOff         = "judge-off"
	AblationFactsOff         = "facts-off"
	AblationFactMinOff       = "fact-min-off"
	AblationLabelsOff        = "labels-off"
	AblationTierFirst        = "tier-first"
	AblationPaperLabels      = "paper-labels"
	AblationSlotLabels       = "slot-labels"
	AblationKeepLabels       = "keep-labels"
	AblationKeepOrder        = "keep-order"
	AblationControllerOff    = "controller-off"
	AblationControllerShadow = "controller-shadow"
	AblationControllerOnline = "controller-online"
)

// Ablations lists the ablation names in table order.
func Ablations() []string {
	return []string{AblationGateOff, AblationJudgeOff, AblationFactsOff, AblationFactMinOff, AblationLabelsOff, AblationTierFirst, AblationPaperLabels, AblationSlotLabels,
		AblationKeepLabels, AblationKeepOrder, AblationControllerOff, AblationControllerShadow, AblationControllerOnline}
}

// ParseAblations turns a comma-separated list of ablation names ("all" for every one)
// into variants of the overlay, in table order.
func ParseAblations(s string) ([]Variant, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "all":
			for _, a := range Ablations() {
				want[a] = true
			}
		default:
			ok := false
			for _, a := range Ablations() {
				ok = ok || a == f
			}
			if !ok {
				return nil, fmt.Errorf("unknown ablation %q (want %s or all)", f, strings.Join(Ablations(), ", "))
			}
			want[f] = true
		}
	}
	var out []Variant
	for _, a := range Ablations() {
		if !want[a] {
			continue
		}
		v := Variant{Name: a}
		switch a {
		case AblationGateOff:
			v.GateOff = true
		case AblationJudgeOff:
			v.JudgeOff = true
		case AblationFactsOff:
			v.FactsOff = true
		case AblationFactMinOff:
			v.AllFacts = true
		case AblationLabelsOff:
			v.LabelsOff = true
		case AblationTierFirst:
			v.Order = retrieval.OrderTierFirst
		case AblationPaperLabels:
			v.Labels = retrieval.LabelsPaper
		case AblationSlotLabels:
			v.Labels = retrieval.LabelsSlot
		case AblationKeepLabels:
			v.KeepLabels = true
		case AblationKeepOrder:
			v.KeepOrder = true
		case AblationControllerOff:
			v.Controller = retrieval.ControllerOff
		case AblationControllerShadow:
			v.Controller = retrieval.ControllerShadow
		case AblationControllerOnline:
			v.Controller = retrieval.ControllerOnline
		}
		out = append(out, v)
	}
	return out, nil
}

// needsLLM reports whether the variant means nothing without an endpoint.
func (v Variant) needsLLM() bool {
	return v.Controller == retrieval.ControllerShadow || v.Controller == retrieval.ControllerOnline
}

// memory is a system under test: a host alone or the overlay on a host.
type memory interface {
	// ingest adds one user's memories in order.
	ingest(ctx context.Context, user string, ms []memoryInput) (ingestCost, error)
	// query builds the packet of a question (and the answer, when asked and possible).
	query(ctx context.Context, user string, q queryInput) (queryOutput, error)
	// record returns the bank's record of a memory id (ok false: not stored).
	record(ctx context.Context, user, memID string) (store.Record, bool, error)
}

// memoryInput is one memory to ingest, with the benchmark's own id.
type memoryInput struct {
	ID      string
	Content string
	Time    time.Time
	Pos     int
}

type queryInput struct {
	Text   string
	Gold   string
	Answer bool
	queryOptions
}

// queryOptions are a variant's options of a query (the overlay only).
type queryOptions struct {
	Unmarked   bool
	KeepLabels bool
	KeepOrder  bool
	Controller retrieval.ControllerMode
	Order      retrieval.Order
	Labels     retrieval.LabelRule
}

// queryOptions are the variant's options of its queries.
func (v Variant) queryOptions() queryOptions {
	return queryOptions{Unmarked: v.LabelsOff, KeepLabels: v.KeepLabels, KeepOrder: v.KeepOrder, Controller: v.Controller, Order: v.Order, Labels: v.Labels}
}

// queryOutput is a packet whose rows carry the benchmark's memory ids.
type queryOutput struct {
	Packet retrieval.Packet
	// MemIDs[i] is row i's memory id; "" for a record the benchmark did not ingest (a
	// transition record).
	MemIDs []string
	// Transition[i] is, for a transition record row, the memory ids of its old and new
	// states.
	Transition [][2]string
	Answer     string
	AnswerErr  string
	Diagnosis  *retrieval.Diagnosis
	// Spent is the retrieval: the host's search, and for the overlay its pool and
	// controller; not the question's embedding, the packet's rendering or the answer.
	Spent time.Duration
}

type ingestCost struct {
	Memories   int
	Candidates int
	Routed     int
	Overlay    time.Duration // seeds, gate, judge and commit
	Commits    []commitRef
	// Errors are the memories the overlay refused, with why.
	Errors []string
}

// commitRef is a supersede or transition commit between two ingested memories.
type commitRef struct {
	Action judge.Action
	Old    string // memory ids
	New    string
}

// hostMemory is the host alone.
type hostMemory struct {
	env Env
	h   *host.InMemory
}

func newHostMemory(env Env) (*hostMemory, error) {
	h, err := host.NewInMemory(host.Config{})
	if err != nil {
		return nil, err
	}
	return &hostMemory{env: env, h: h}, nil
}

func (m *hostMemory) ingest(ctx context.Context, user string, ms []memoryInput) (ingestCost, error) {
	texts := make([]string, len(ms))
	for i, x := range ms {
		texts[i] = x.Content
	}
	vecs, err := m.env.Embedder.Embed(ctx, texts)
	if err != nil {
		return ingestCost{}, fmt.Errorf("embed: %w", err)
	}
	start := time.Now()
	batch := make([]host.Memory, len(ms))
	for i, x := range ms {
		batch[i] = host.Memory{ID: x.ID, Content: x.Content, Vector: vecs[i], Time: x.Time}
	}
	if err := m.h.AddBatch(ctx, user, batch); err != nil {
		return ingestCost{}, err
	}
	return ingestCost{Memories: len(ms), Overlay: time.Since(start)}, nil
}

func (m *hostMemory) query(ctx context.Context, user string, q queryInput) (queryOutput, error) {
	vecs, err := m.env.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return queryOutput{}, fmt.Errorf("embed query: %w", err)
	}
	start := time.Now()
	hits, err := m.h.Search(ctx, user, q.Text, vecs[0], m.env.TopK)
	if err != nil {
		return queryOutput{}, err
	}
	spent := time.Since(start)
	rows := make([]retrieval.Candidate, len(hits))
	out := queryOutput{MemIDs: make([]string, len(hits)), Transition: make([][2]string, len(hits))}
	for i, h := range hits {
		rows[i] = retrieval.Candidate{ID: h.ID, Content: h.Content, EventTime: h.Time, Source: retrieval.SourceSeed, SeedRank: i, Score: h.Score}
		out.MemIDs[i] = h.ID
	}
	// The host knows no states: its packet is unmarked, as a plain RAG prompt would be.
	out.Packet = retrieval.BuildPacket(q.Text, retrieval.ProfileQuery(q.Text), rows, retrieval.PacketOptions{Unmarked: true})
	out.Spent = spent
	if q.Answer && m.env.LLM != nil {
		out.Answer, out.AnswerErr = answer(ctx, m.env.LLM, out.Packet)
	}
	return out, nil
}

func (m *hostMemory) record(ctx context.Context, user, id string) (store.Record, bool, error) {
	h, err := m.h.Get(ctx, user, id)
	if errors.Is(err, host.ErrNotFound) {
		return store.Record{}, false, nil
	}
	if err != nil {
		return store.Record{}, false, err
	}
	return store.Record{ID: h.ID, Content: h.Content, EventTime: h.Time}, true, nil
}

// answer asks the endpoint to answer from the packet, as the overlay does.
func answer(ctx context.Context, c overlay.Chatter, pk retrieval.Packet) (string, string) {
	temp := 0.0
	resp, err := c.Chat(ctx, llm.Request{Messages: pk.Messages(), Temperature: &temp, MaxTokens: 256})
	switch {
	case err != nil:
		return "", err.Error()
	case len(resp.Choices) == 0:
		return "", "no choice in the response"
	}
	return strings.TrimSpace(resp.Choices[0].Content), ""
}

// overlayMemory is the overlay on an in-memory host and bank.
type overlayMemory struct {
	env Env
	ov  *overlay.Overlay
	st  store.Store
	// mem maps record ids to memory ids and back, per user.
	mu    sync.Mutex
	mem   map[string]string    // record id → memory id
	rec   map[string]string    // user + "\x00" + memory id → record id
	trans map[string][2]string // transition record id → memory ids of old and new
}

func newOverlayMemory(env Env, v Variant) (*overlayMemory, error) {
	st, err := store.NewMemory(store.Config{})
	if err != nil {
		return nil, err
	}
	h, err := host.NewInMemory(host.Config{})
	if err != nil {
		return nil, err
	}
	cfg := overlay.Config{
		Store: st, Host: h, Embedder: env.Embedder, Heads: env.Heads, Thresholds: env.Thresholds,
		Auditor: env.Auditor, NoCommit: v.JudgeOff, Answerer: env.LLM, Controller: env.LLM,
		Logger: env.Logger, Facts: env.Facts, FactMin: env.FactMin,
	}
	if v.FactsOff {
		cfg.Facts = nil
	}
	if v.AllFacts {
		cfg.FactMin = allFacts
	}
	if v.GateOff {
		cfg.Heads = nil
	}
	ov, err := overlay.New(cfg)
	if err != nil {
		return nil, err
	}
	return &overlayMemory{env: env, ov: ov, st: st, mem: map[string]string{}, rec: map[string]string{}, trans: map[string][2]string{}}, nil
}

// allFacts is the FactMin of the fact-min-off ablation: every fact counts.
const allFacts = 1e-9

// ingestChunk is how many memories one Add call gets: the overlay embeds them in one
// batch, and a cancelled run stops between chunks.
const ingestChunk = 64

func (m *overlayMemory) ingest(ctx context.Context, user string, all []memoryInput) (ingestCost, error) {
	var cost ingestCost
	// Inputs the overlay would refuse before ingesting anything are reported one by one.
	var ms []memoryInput
	for _, x := range all {
		if err := (overlay.Input{Content: x.Content}).Validate(); err != nil {
			cost.Errors = append(cost.Errors, fmt.Sprintf("%s: %v", x.ID, err))
			continue
		}
		ms = append(ms, x)
	}
	for start := 0; start < len(ms); {
		chunk := ms[start:min(start+ingestChunk, len(ms))]
		in := make([]overlay.Input, len(chunk))
		for i, x := range chunk {
			in[i] = overlay.Input{Content: x.Content, EventTime: x.Time, SourcePos: int64(x.Pos), Source: "bench", Meta: map[string]string{"bench_id": x.ID}}
		}
		trs, err := m.ov.Add(ctx, user, in)
		m.note(user, chunk, trs, &cost)
		start += len(trs)
		if err != nil {
			if ctx.Err() != nil {
				return cost, ctx.Err()
			}
			// The overlay refused one memory (its commit broke an invariant) and left the
			// bank as it was: the memory is missing from the bank, which the bank metrics
			// then show, and the replay goes on.
			failed := chunk[len(trs)]
			cost.Errors = append(cost.Errors, fmt.Sprintf("%s: %v", failed.ID, err))
			m.env.Logger.Warn("the overlay refused a memory; the replay goes on without it", "user", user, "memory", failed.ID, "err", err)
			start++
		}
	}
	return cost, nil
}

// note records the ingest traces of the first len(trs) memories of chunk.
func (m *overlayMemory) note(user string, chunk []memoryInput, trs []overlay.IngestTrace, cost *ingestCost) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, tr := range trs {
		m.mem[tr.RecordID] = chunk[i].ID
		m.rec[user+"\x00"+chunk[i].ID] = tr.RecordID
		cost.Memories++
		cost.Candidates += len(tr.Candidates)
		cost.Routed += tr.Timings.Routed
		cost.Overlay += tr.Timings.Seeds + tr.Timings.Gate + tr.Timings.Judge + tr.Timings.Commit
		for _, c := range tr.Commits {
			if c.Action != judge.ActionSupersede && c.Action != judge.ActionTransition {
				continue
			}
			ref := commitRef{Action: c.Action, Old: m.mem[c.Old], New: m.mem[c.New]}
			cost.Commits = append(cost.Commits, ref)
			if c.Transition != "" {
				m.trans[c.Transition] = [2]string{ref.Old, ref.New}
			}
		}
	}
}

func (m *overlayMemory) query(ctx context.Context, user string, q queryInput) (queryOutput, error) {
	tr, err := m.ov.Query(ctx, user, overlay.QueryRequest{
		Text: q.Text, TopK: m.env.TopK, Controller: q.Controller, Unmarked: q.Unmarked, KeepLabels: q.KeepLabels, KeepOrder: q.KeepOrder, Order: q.Order, Labels: q.Labels,
		Answer: q.Answer && m.env.LLM != nil, Gold: q.Gold,
	})
	if err != nil {
		return queryOutput{}, err
	}
	out := queryOutput{Packet: tr.Packet, Answer: tr.Answer, AnswerErr: tr.AnswerError, Diagnosis: tr.Diagnosis,
		Spent: tr.Timings.Seeds + tr.Timings.Pool + tr.Timings.Controller}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range tr.Packet.Rows {
		out.MemIDs = append(out.MemIDs, m.mem[r.ID])
		out.Transition = append(out.Transition, m.trans[r.ID])
	}
	return out, nil
}

func (m *overlayMemory) record(ctx context.Context, user, id string) (store.Record, bool, error) {
	m.mu.Lock()
	rid, ok := m.rec[user+"\x00"+id]
	m.mu.Unlock()
	if !ok {
		return store.Record{}, false, nil
	}
	r, err := m.st.Get(ctx, user, rid)
	if errors.Is(err, store.ErrNotFound) {
		return store.Record{}, false, nil
	}
	if err != nil {
		return store.Record{}, false, err
	}
	// Links point at record ids; the benchmark reads memory ids.
	m.mu.Lock()
	for i, l := range r.Links {
		if mid, ok := m.mem[l.To]; ok {
			r.Links[i].To = mid
		}
	}
	m.mu.Unlock()
	r.ID = id
	return r, true, nil
}

func newMemory(env Env, v Variant) (memory, error) {
	if v.HostOnly {
		return newHostMemory(env)
	}
	return newOverlayMemory(env, v)
}
