package overlay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/atma-dev/atma/llm"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
)

// Chatter is an OpenAI-compatible chat endpoint (an *llm.Client).
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (*llm.Response, error)
}

// Query limits.
const (
	DefaultTopK     = 5
	MaxTopK         = 50
	MaxQueryBytes   = 4 << 10
	controllerTimer = 20 * time.Second
	// A query asks the host for seedFactor × k seeds, at least minSeeds: history and
	// transition records take places in the pool before the packet keeps k.
	seedFactor = 2
	minSeeds   = 10
	// answerMaxTokens bounds the answer model's reply: a short answer from the packet.
	answerMaxTokens = 256
)

// QueryRequest is one question about a user's memory.
type QueryRequest struct {
	Text string `json:"query"`
	// TopK is the packet size (0: 5; at most 50).
	TopK int `json:"top_k,omitempty"`
	// Controller is off (default), shadow or online.
	Controller retrieval.ControllerMode `json:"controller,omitempty"`
	// Answer asks the answer model (when one is configured) to answer from the packet.
	Answer bool `json:"answer,omitempty"`
	// Unmarked leaves the state labels out of the packet (ablation).
	Unmarked bool `json:"unmarked,omitempty"`
	// KeepLabels labels a packet that knows no state all the same (ablation; see
	// retrieval.Packet.NoState).
	KeepLabels bool `json:"keep_labels,omitempty"`
	// KeepOrder keeps the packet's rows in the pool's order, where the packet otherwise
	// orders them by date within a state (ablation; see retrieval.PacketOptions.KeepOrder).
	KeepOrder bool `json:"keep_order,omitempty"`
	// Order is the pool's pre-rank ("": anchored, the paper's; "tier-first" for the
	// ablation).
	Order retrieval.Order `json:"order,omitempty"`
	// Labels is the packet's label rule ("": state; "paper" and "slot" for the ablation).
	Labels retrieval.LabelRule `json:"labels,omitempty"`
	// Gold, when given, lets the trace classify a wrong answer as a bank, retrieval or QA
	// failure.
	Gold string `json:"gold,omitempty"`
}

// Validate reports what is wrong with a request.
func (q QueryRequest) Validate() error {
	var errs []error
	if strings.TrimSpace(q.Text) == "" {
		errs = append(errs, errors.New("query is empty"))
	}
	if len(q.Text) > MaxQueryBytes {
		errs = append(errs, fmt.Errorf("query is %d bytes, more than %d", len(q.Text), MaxQueryBytes))
	}
	if q.TopK < 0 || q.TopK > MaxTopK {
		errs = append(errs, fmt.Errorf("top_k %d is outside 0..%d", q.TopK, MaxTopK))
	}
	if !q.Order.Valid() {
		errs = append(errs, fmt.Errorf("order %q is not %s or %s", q.Order, retrieval.OrderAnchored, retrieval.OrderTierFirst))
	}
	if !q.Labels.Valid() {
		errs = append(errs, fmt.Errorf("labels %q is not %s, %s or %s", q.Labels, retrieval.LabelsState, retrieval.LabelsPaper, retrieval.LabelsSlot))
	}
	if q.Controller != "" {
		if _, err := retrieval.ParseControllerMode(string(q.Controller)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	return nil
}

// QueryTrace is everything a query did, stored and retrievable by ID.
type QueryTrace struct {
	ID      string            `json:"id"`
	User    string            `json:"user"`
	Query   string            `json:"query"`
	Created time.Time         `json:"created"`
	Profile retrieval.Profile `json:"profile"`
	Seeds   []SeedTrace       `json:"seeds"`
	Pool    retrieval.Pool    `json:"pool"`
	// Controller is the raw controller answer and what was done with it.
	ControllerRaw    string                      `json:"controller_raw,omitempty"`
	ControllerOutput *retrieval.ControllerOutput `json:"controller_output,omitempty"`
	ControllerStatus retrieval.ControllerStatus  `json:"controller_status"`
	Final            []string                    `json:"final"`
	Packet           retrieval.Packet            `json:"packet"`
	Prompt           []llm.Message               `json:"prompt,omitempty"`
	Answer           string                      `json:"answer,omitempty"`
	AnswerError      string                      `json:"answer_error,omitempty"`
	Diagnosis        *retrieval.Diagnosis        `json:"diagnosis,omitempty"`
	Timings          QueryTimings                `json:"timings"`
}

// SeedTrace is one host hit of a query.
type SeedTrace struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// QueryTimings of one query.
type QueryTimings struct {
	Embed      time.Duration `json:"embed_ns"`
	Seeds      time.Duration `json:"seeds_ns"`
	Pool       time.Duration `json:"pool_ns"`
	Controller time.Duration `json:"controller_ns"`
	Answer     time.Duration `json:"answer_ns"`
	Total      time.Duration `json:"total_ns"`
}

// Query answers a question about user's memory: profile → seeds → pool (relation hops,
// stable pre-rank) → optional controller → labelled packet → optional answer. The trace
// is stored when the overlay has a trace store.
func (o *Overlay) Query(ctx context.Context, user string, q QueryRequest) (*QueryTrace, error) {
	if err := store.ValidateUser(user); err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	k := q.TopK
	if k == 0 {
		k = DefaultTopK
	}
	mode := q.Controller
	if mode == "" {
		mode = retrieval.ControllerOff
	}
	tr := &QueryTrace{ID: store.NewID(o.cfg.Now()), User: user, Query: q.Text, Created: o.cfg.Now().UTC()}
	tr.Profile = retrieval.ProfileQuery(q.Text)

	t0 := time.Now()
	vecs, err := o.cfg.Embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	tr.Timings.Embed = time.Since(t0)

	t0 = time.Now()
	// The host's lexical search leaves out the words that only say when the asked state
	// holds ("now", "these days"): the profile reads them, and as terms they match every
	// memory that says "now" about anything (retrieval.HostQuery). Its dense search
	// embeds the whole question.
	seeds, err := o.host.Search(ctx, user, retrieval.HostQuery(q.Text), vecs[0], max(seedFactor*k, minSeeds))
	if err != nil {
		return nil, fmt.Errorf("host seeds: %w", err)
	}
	tr.Timings.Seeds = time.Since(t0)
	g := newStoreGraph(o.cfg.Store, user)
	var seedCands []retrieval.Candidate
	for _, s := range seeds {
		c, ok, err := g.Get(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		c.Score = s.Score
		seedCands = append(seedCands, c)
		tr.Seeds = append(tr.Seeds, SeedTrace{ID: s.ID, Score: s.Score})
	}

	t0 = time.Now()
	pool, err := retrieval.BuildPool(ctx, g, tr.Profile, seedCands, retrieval.Config{K: k, Order: q.Order})
	if err != nil {
		return nil, err
	}
	tr.Pool = pool
	tr.Timings.Pool = time.Since(t0)

	final, st := retrieval.Apply(pool.Ranked, retrieval.ControllerOutput{}, retrieval.ControllerOff)
	if mode != retrieval.ControllerOff {
		t0 = time.Now()
		final, st = o.controller(ctx, q.Text, tr, pool, mode)
		tr.Timings.Controller = time.Since(t0)
	}
	tr.ControllerStatus = st
	rows := pool.Select(final, st)
	for _, r := range rows {
		tr.Final = append(tr.Final, r.ID)
	}
	tr.Packet = retrieval.BuildPacket(q.Text, tr.Profile, rows, retrieval.PacketOptions{Unmarked: q.Unmarked, Labels: q.Labels, KeepLabels: q.KeepLabels,
		KeepOrder: q.KeepOrder || st.Applied}) // the controller's order stands

	if q.Answer && o.cfg.Answerer != nil {
		t0 = time.Now()
		tr.Prompt = tr.Packet.Messages()
		temp := 0.0
		resp, err := o.cfg.Answerer.Chat(ctx, llm.Request{Messages: tr.Prompt, Temperature: &temp, MaxTokens: answerMaxTokens})
		switch {
		case err != nil:
			tr.AnswerError = err.Error()
		case len(resp.Choices) > 0:
			tr.Answer = strings.TrimSpace(resp.Choices[0].Content)
		}
		tr.Timings.Answer = time.Since(t0)
	}
	if q.Gold != "" {
		if d, err := o.diagnose(ctx, user, q.Gold, tr); err == nil {
			tr.Diagnosis = &d
		}
	}
	tr.Timings.Total = time.Since(start)
	if o.cfg.Traces != nil {
		if err := o.cfg.Traces.PutQuery(ctx, tr); err != nil {
			o.cfg.Logger.Warn("store query trace", "err", err)
		}
	}
	return tr, nil
}

// controller asks the bounded retrieve controller to re-order the pool. Any failure
// keeps the pre-rank and the status says why.
func (o *Overlay) controller(ctx context.Context, query string, tr *QueryTrace, pool retrieval.Pool, mode retrieval.ControllerMode) ([]retrieval.Candidate, retrieval.ControllerStatus) {
	if o.cfg.Controller == nil {
		return pool.Ranked, retrieval.ControllerStatus{Mode: mode, Reason: "no controller endpoint configured; pre-rank kept"}
	}
	cctx, cancel := context.WithTimeout(ctx, controllerTimer)
	defer cancel()
	temp := float64(retrieval.ControllerTemperature)
	resp, err := o.cfg.Controller.Chat(cctx, llm.Request{
		Messages: retrieval.ControllerMessages(query, tr.Profile, pool.Ranked), Temperature: &temp, MaxTokens: retrieval.ControllerMaxTokens,
		JSONSchema: retrieval.ControllerSchema(),
	})
	if err != nil {
		return pool.Ranked, retrieval.ControllerStatus{Mode: mode, Reason: "controller failed, pre-rank kept: " + err.Error()}
	}
	if len(resp.Choices) == 0 {
		return pool.Ranked, retrieval.ControllerStatus{Mode: mode, Reason: "controller returned no choice; pre-rank kept"}
	}
	tr.ControllerRaw = resp.Choices[0].Content
	final, out, st := retrieval.ApplyText(pool.Ranked, tr.ControllerRaw, mode)
	if out.Selected != nil || out.QueryMode != "" {
		tr.ControllerOutput = &out
	}
	return final, st
}

// diagnose classifies the query's outcome against a gold answer.
func (o *Overlay) diagnose(ctx context.Context, user, gold string, tr *QueryTrace) (retrieval.Diagnosis, error) {
	var bank []retrieval.Candidate
	cursor := ""
	for {
		recs, next, err := o.cfg.Store.List(ctx, user, store.Filter{Cursor: cursor, Limit: store.MaxListLimit})
		if err != nil {
			return retrieval.Diagnosis{}, err
		}
		for _, r := range recs {
			bank = append(bank, candidateOf(r))
		}
		if next == "" {
			break
		}
		cursor = next
	}
	answer := tr.Answer
	if answer == "" && len(tr.Packet.Rows) > 0 {
		// Without an answer model, the packet's first row stands for the answer.
		answer = tr.Packet.Rows[0].Content
	}
	return retrieval.ClassifyFailure(retrieval.FailureCase{Gold: gold, Bank: bank, Packet: tr.Packet, Answer: answer})
}

// storeGraph adapts the bank to retrieval.Graph for one query. It remembers what it
// read: the pool asks for a record and for its neighbours, and hops meet the same records
// again. Not safe for concurrent use (BuildPool calls it from one goroutine).
type storeGraph struct {
	s     store.Store
	user  string
	cache map[string]*store.Record // nil value: not in the bank
}

func newStoreGraph(s store.Store, user string) *storeGraph {
	return &storeGraph{s: s, user: user, cache: map[string]*store.Record{}}
}

func (g *storeGraph) record(ctx context.Context, id string) (*store.Record, error) {
	if r, ok := g.cache[id]; ok {
		return r, nil
	}
	r, err := g.s.Get(ctx, g.user, id)
	if errors.Is(err, store.ErrNotFound) {
		g.cache[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r.Embeddings = store.Embeddings{} // retrieval never reads them; do not keep them
	g.cache[id] = &r
	return &r, nil
}

func (g *storeGraph) Get(ctx context.Context, id string) (retrieval.Candidate, bool, error) {
	r, err := g.record(ctx, id)
	if err != nil || r == nil {
		return retrieval.Candidate{}, false, err
	}
	return candidateOf(*r), true, nil
}

// Neighbours are the records joined by coexists_with or scoped_exception links.
func (g *storeGraph) Neighbours(ctx context.Context, id string) ([]string, error) {
	r, err := g.record(ctx, id)
	if err != nil || r == nil {
		return nil, err
	}
	return append(r.LinksOf(store.LinkCoexistsWith), r.LinksOf(store.LinkScopedException)...), nil
}

func candidateOf(r store.Record) retrieval.Candidate {
	c := retrieval.Candidate{ID: r.ID, Content: r.Content, Slot: r.Slot, Status: retrieval.Status(r.Status), EventTime: r.Time()}
	for _, l := range r.Links {
		c.Links = append(c.Links, retrieval.Link{Type: retrieval.LinkType(l.Type), To: l.To})
	}
	return c
}
