package overlay

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
)

func newTestOverlay(t *testing.T, mutate func(*Config)) *Overlay {
	t.Helper()
	s, err := store.NewMemory(store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewInMemory(host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: s, Host: h, Embedder: overlaytest.BagEmbedder{}, Traces: NewMemoryTraces()}
	if mutate != nil {
		mutate(&cfg)
	}
	o, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func at(day int) time.Time { return time.Date(2025, 1, day, 12, 0, 0, 0, time.UTC) }

func TestCommitPath(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, nil)
	tr, err := o.Add(ctx, "alice", []Input{
		{Content: "I live in Berlin.", EventTime: at(1)},
		{Content: "I moved to Lisbon last month.", EventTime: at(20)},
	})
	if err != nil {
		t.Fatal(err)
	}
	berlin, lisbon := tr[0].RecordID, tr[1].RecordID
	if len(tr[1].Candidates) == 0 || !tr[1].Candidates[0].Routed || tr[1].Candidates[0].Verdict == nil {
		t.Fatalf("second ingest trace: %+v", tr[1])
	}
	if len(tr[1].Commits) != 1 || tr[1].Commits[0].Action != judge.ActionTransition || tr[1].Commits[0].Transition == "" {
		t.Fatalf("commits: %+v", tr[1].Commits)
	}
	b, err := o.Store().Get(ctx, "alice", berlin)
	if err != nil {
		t.Fatal(err)
	}
	l, _ := o.Store().Get(ctx, "alice", lisbon)
	if b.Status != store.StatusSuperseded || l.Status != store.StatusActive || b.ValidUntil.IsZero() || !l.HasLink(store.LinkSupersedes, berlin) {
		t.Errorf("berlin %s (until %v), lisbon %s links %v", b.Status, b.ValidUntil, l.Status, l.Links)
	}
	tid := tr[1].Commits[0].Transition
	tx, _ := o.Store().Get(ctx, "alice", tid)
	if tx.Status != store.StatusTransition || !tx.HasLink(store.LinkEvolvesFrom, berlin) || !tx.HasLink(store.LinkEvolvesTo, lisbon) {
		t.Errorf("transition %+v", tx)
	}
	if v, err := store.Check(ctx, o.Store(), "alice"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
	// Another user sees nothing of alice's.
	if _, err := o.Store().Get(ctx, "bob", berlin); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bob reads alice's record: %v", err)
	}
}

// verdictAuditor answers every pair whose old record has the content old with v and
// every other pair as consistent and unrelated.
type verdictAuditor struct {
	old string
	v   judge.Verdict
}

func (a verdictAuditor) Audit(_ context.Context, p judge.Pair) (judge.Result, error) {
	if p.Old.Text == a.old {
		return judge.Result{Verdict: a.v, Source: "script"}, nil
	}
	return judge.Result{Verdict: judge.Verdict{Status: judge.StatusConsistent, ConflictType: judge.TypeNone, Action: judge.ActionKeep, Confidence: 1}, Source: "script"}, nil
}

// TestCommitActions commits each of the Judge's five actions between an old and a new
// memory and checks what the bank then holds: statuses, the link from the new record to
// the old, the transition record, the trace's commit. The scripted cases give the
// verdict; the others take the rule auditor's, end to end.
func TestCommitActions(t *testing.T) {
	const (
		old = "I live in Berlin."
		nw  = "I live in Lisbon now."
	)
	tests := []struct {
		name       string
		old, new   string
		verdict    *judge.Verdict // nil: the rule auditor
		wantOld    store.Status
		wantNew    store.Status
		wantLink   store.LinkType // from the new record to the old ("": none)
		wantAction judge.Action   // the trace's commit ("": none)
	}{
		{"transition", old, nw, &judge.Verdict{Status: judge.StatusConflict, ConflictType: judge.TypeTemporalUpdate, Action: judge.ActionTransition,
			Links: []judge.Link{{Type: judge.LinkEvolvesFrom, From: judge.RefNew, To: judge.RefOld}}, TransitionSummary: "home: Berlin -> Lisbon", Confidence: 0.9},
			store.StatusSuperseded, store.StatusActive, store.LinkSupersedes, judge.ActionTransition},
		{"supersede", old, nw, &judge.Verdict{Status: judge.StatusConflict, ConflictType: judge.TypeValueDiscrepancy, Action: judge.ActionSupersede,
			Links: []judge.Link{{Type: judge.LinkSupersedes, From: judge.RefNew, To: judge.RefOld}}, Confidence: 0.9},
			store.StatusSuperseded, store.StatusActive, store.LinkSupersedes, judge.ActionSupersede},
		{"scoped exception", old, nw, &judge.Verdict{Status: judge.StatusConflict, ConflictType: judge.TypeScopeMismatch, Action: judge.ActionScopedException,
			Links: []judge.Link{{Type: judge.LinkScopedException, From: judge.RefNew, To: judge.RefOld}}, Confidence: 0.9},
			store.StatusActive, store.StatusActive, store.LinkScopedException, judge.ActionScopedException},
		{"coexist", old, nw, &judge.Verdict{Status: judge.StatusConsistent, ConflictType: judge.TypeNone, Action: judge.ActionCoexist, Confidence: 0.9},
			store.StatusActive, store.StatusActive, store.LinkCoexistsWith, judge.ActionCoexist},
		{"keep", old, nw, &judge.Verdict{Status: judge.StatusConsistent, ConflictType: judge.TypeNone, Action: judge.ActionKeep, Confidence: 0.9},
			store.StatusActive, store.StatusActive, "", ""},
		{"rules: negation supersedes", "I have a dog named Rex.", "I gave my dog Rex to my sister, I don't have a dog anymore.", nil,
			store.StatusSuperseded, store.StatusActive, store.LinkSupersedes, judge.ActionSupersede},
		{"rules: unrelated keeps both", "I have a dog named Rex.", "The quarterly report is due on Friday.", nil,
			store.StatusActive, store.StatusActive, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			o := newTestOverlay(t, func(c *Config) {
				if tt.verdict != nil {
					if err := tt.verdict.Validate(); err != nil {
						t.Fatalf("the scripted verdict is one no Judge may give: %v", err)
					}
					c.Auditor = verdictAuditor{old: tt.old, v: *tt.verdict}
				}
			})
			tr, err := o.Add(ctx, "u", []Input{{Content: tt.old, EventTime: at(1)}, {Content: tt.new, EventTime: at(5)}})
			if err != nil {
				t.Fatal(err)
			}
			oldID, newID := tr[0].RecordID, tr[1].RecordID
			if tt.verdict != nil && !slices.ContainsFunc(tr[1].Candidates, func(c CandidateTrace) bool { return c.ID == oldID && c.Verdict != nil }) {
				t.Fatalf("the old memory was not audited: %+v", tr[1].Candidates)
			}
			o1, _ := o.Store().Get(ctx, "u", oldID)
			n1, _ := o.Store().Get(ctx, "u", newID)
			if o1.Status != tt.wantOld || n1.Status != tt.wantNew {
				t.Errorf("old %s new %s, want %s %s; trace %+v", o1.Status, n1.Status, tt.wantOld, tt.wantNew, tr[1])
			}
			if tt.wantOld == store.StatusSuperseded && o1.ValidUntil.IsZero() {
				t.Error("the superseded memory has no valid_until")
			}
			var toOld []store.Link
			for _, l := range n1.Links {
				if l.To == oldID {
					toOld = append(toOld, l)
				}
			}
			switch {
			case tt.wantLink == "" && len(toOld) != 0:
				t.Errorf("links to the old memory %v, want none", toOld)
			case tt.wantLink != "" && !n1.HasLink(tt.wantLink, oldID):
				t.Errorf("links %v, want %s -> old", n1.Links, tt.wantLink)
			}
			var got []judge.Action
			for _, c := range tr[1].Commits {
				got = append(got, c.Action)
			}
			var want []judge.Action
			if tt.wantAction != "" {
				want = []judge.Action{tt.wantAction}
			}
			if !slices.Equal(got, want) {
				t.Errorf("commits %v, want %v (%+v)", got, want, tr[1].Commits)
			}
			if tt.wantAction == judge.ActionTransition {
				tid := tr[1].Commits[0].Transition
				tx, err := o.Store().Get(ctx, "u", tid)
				if err != nil || tx.Status != store.StatusTransition || tx.Content != tt.verdict.TransitionSummary ||
					!tx.HasLink(store.LinkEvolvesFrom, oldID) || !tx.HasLink(store.LinkEvolvesTo, newID) {
					t.Errorf("transition record %q: %+v %v", tid, tx, err)
				}
			} else if recs, _, _ := o.Store().List(ctx, "u", store.Filter{Status: store.StatusTransition}); len(recs) != 0 {
				t.Errorf("transition records %v without a transition", recs)
			}
			if v, err := store.Check(ctx, o.Store(), "u"); err != nil || len(v) != 0 {
				t.Errorf("invariants: %v %v", v, err)
			}
		})
	}
}

// TestClarificationLeavesUnknown: an implicit conflict the Judge wants clarified stores
// the new memory as unknown, with the question and the record it conflicts with, and
// leaves the old memory current (planCommit's clarification branch, through Add).
func TestClarificationLeavesUnknown(t *testing.T) {
	ctx := t.Context()
	const question = "Are you still vegan?"
	old, nw := "I eat only vegan food.", "I had a steak for dinner, great food."
	v := judge.Verdict{Status: judge.StatusConflict, ConflictType: judge.TypeImplicitViolation, Action: judge.ActionKeep,
		ClarificationNeeded: true, ClarificationQuestion: question, Confidence: 0.6}
	if err := v.Validate(); err != nil {
		t.Fatalf("the scripted verdict is one no Judge may give: %v", err)
	}
	o := newTestOverlay(t, func(c *Config) { c.Auditor = verdictAuditor{old: old, v: v} })
	tr, err := o.Add(ctx, "u", []Input{{Content: old, EventTime: at(1)}, {Content: nw, EventTime: at(5)}})
	if err != nil {
		t.Fatal(err)
	}
	oldID, newID := tr[0].RecordID, tr[1].RecordID
	if !slices.ContainsFunc(tr[1].Candidates, func(c CandidateTrace) bool { return c.ID == oldID && c.Verdict != nil }) {
		t.Fatalf("the old memory was not audited: %+v", tr[1].Candidates)
	}
	n, err := o.Store().Get(ctx, "u", newID)
	if err != nil {
		t.Fatal(err)
	}
	if n.Status != store.StatusUnknown || n.Meta["clarification"] != question || n.Meta["conflicts_with"] != oldID {
		t.Errorf("new memory: status %s meta %v", n.Status, n.Meta)
	}
	if tr[1].Status != store.StatusUnknown {
		t.Errorf("trace status %s, want unknown", tr[1].Status)
	}
	if len(tr[1].Commits) != 1 || tr[1].Commits[0].Action != judge.ActionKeep || tr[1].Commits[0].Old != oldID || !strings.Contains(tr[1].Commits[0].Note, question) {
		t.Errorf("commits %+v", tr[1].Commits)
	}
	if r, _ := o.Store().Get(ctx, "u", oldID); r.Status != store.StatusActive || len(r.Links) != 0 {
		t.Errorf("old memory: status %s links %v", r.Status, r.Links)
	}
	if v, err := store.Check(ctx, o.Store(), "u"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
}

func TestAddBadInput(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, nil)
	if _, err := o.Add(ctx, "u", []Input{{Content: "fine"}}); err != nil {
		t.Fatal(err)
	}
	_, err := o.Add(ctx, "u", []Input{{Content: "ok"}, {Content: ""}, {Content: strings.Repeat("x", MaxContentBytes+1)}, {Content: "bad \xff"}})
	if !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("error %v", err)
	}
	for _, w := range []string{"memory 1", "memory 2", "memory 3"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not name %s: %v", w, err)
		}
	}
	recs, _, _ := o.Store().List(ctx, "u", store.Filter{})
	if len(recs) != 1 {
		t.Errorf("a refused batch wrote records: %d", len(recs))
	}
	if _, err := o.Add(ctx, "", []Input{{Content: "x"}}); err == nil {
		t.Error("empty user accepted")
	}
}

func TestNoCommitAblation(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, func(c *Config) { c.NoCommit = true })
	tr, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin.", EventTime: at(1)}, {Content: "I moved to Lisbon.", EventTime: at(2)}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := o.Store().Get(ctx, "u", tr[0].RecordID)
	if b.Status != store.StatusActive || len(tr[1].Commits) != 0 || tr[1].Candidates[0].Verdict == nil {
		t.Errorf("judge off changed the bank: %s %+v", b.Status, tr[1])
	}
}

type failingAuditor struct{}

func (failingAuditor) Audit(context.Context, judge.Pair) (judge.Result, error) {
	return judge.Result{}, errors.New("llm: model \"nope\" not found")
}

func TestJudgeErrorFallsBackToRules(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, func(c *Config) { c.Auditor = failingAuditor{} })
	tr, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin.", EventTime: at(1)}, {Content: "I moved to Lisbon.", EventTime: at(2)}})
	if err != nil {
		t.Fatal(err)
	}
	c := tr[1].Candidates[0]
	if c.Verdict == nil || c.Auditor != "rule" || !strings.Contains(c.Fallback, "not found") || len(tr[1].Commits) != 1 {
		t.Errorf("candidate %+v commits %+v", c, tr[1].Commits)
	}
}

// TestOutOfOrderIngest: memories of one slot arriving in any time order leave the bank
// consistent, and the newest by event time is current.
func TestOutOfOrderIngest(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, nil)
	cities := []struct {
		k    int
		city string
	}{{6, "Oslo"}, {7, "Rome"}, {8, "Paris"}, {9, "Rome"}, {10, "Paris"}, {11, "Madrid"}, {18, "Vienna"}, {0, "Berlin"}, {2, "Oslo"}, {21, "Prague"}}
	for _, c := range cities {
		if _, err := o.Add(ctx, "u", []Input{{Content: fmt.Sprintf("I live in %s now, note %d.", c.city, c.k), EventTime: at(1 + c.k)}}); err != nil {
			t.Fatalf("add %s (day %d): %v", c.city, c.k, err)
		}
	}
	if v, err := store.Check(ctx, o.Store(), "u"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
	active, _, _ := o.Store().List(ctx, "u", store.Filter{Status: store.StatusActive})
	if len(active) != 1 || !strings.Contains(active[0].Content, "Prague") {
		var names []string
		for _, r := range active {
			names = append(names, r.Content)
		}
		t.Errorf("active: %v", names)
	}
}

// chunkEmbedder is BagEmbedder that fails on the call that embeds failOn, and records
// the size of every call.
type chunkEmbedder struct {
	failOn string
	mu     sync.Mutex
	calls  []int
}

func (e *chunkEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls = append(e.calls, len(texts))
	e.mu.Unlock()
	if slices.Contains(texts, e.failOn) {
		return nil, errors.New("backbone: out of memory")
	}
	return overlaytest.BagEmbedder{}.Embed(ctx, texts)
}

// TestAddEmbedsAhead: Add embeds in chunks of EmbedChunk, a chunk ahead of the commits;
// the chunk size changes nothing in the bank, and a failing embedding stops the call
// after the inputs before its chunk, which stay committed with their traces kept.
func TestAddEmbedsAhead(t *testing.T) {
	ctx := t.Context()
	var inputs []Input
	for day, city := range []string{"Berlin", "Lisbon", "Oslo", "Rome", "Paris", "Madrid", "Vienna"} {
		inputs = append(inputs, Input{Content: fmt.Sprintf("I live in %s now.", city), EventTime: at(1 + day)},
			Input{Content: fmt.Sprintf("My sister visited me on day %d.", day), EventTime: at(1 + day)})
	}
	// statuses returns the content → status of alice's records that users said.
	statuses := func(o *Overlay) map[string]store.Status {
		recs, _, err := o.Store().List(ctx, "alice", store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Status{}
		for _, r := range recs {
			if r.Status != store.StatusTransition {
				out[r.Content] = r.Status
			}
		}
		return out
	}
	var want map[string]store.Status
	for _, chunk := range []int{1, 3, 4, len(inputs)} {
		t.Run(fmt.Sprintf("chunk %d", chunk), func(t *testing.T) {
			emb := &chunkEmbedder{}
			o := newTestOverlay(t, func(c *Config) { c.Embedder, c.EmbedChunk = emb, chunk })
			trs, err := o.Add(ctx, "alice", inputs)
			if err != nil || len(trs) != len(inputs) {
				t.Fatalf("add: %d traces, %v", len(trs), err)
			}
			for i, n := range emb.calls {
				if n != min(chunk, len(inputs)-i*chunk) {
					t.Fatalf("embedding calls %v, want chunks of %d", emb.calls, chunk)
				}
			}
			got := statuses(o)
			if want == nil {
				want = got
			} else if !maps.Equal(got, want) {
				t.Errorf("statuses %v, want (chunks of 1) %v", got, want)
			}
			if got["I live in Vienna now."] != store.StatusActive || got["I live in Berlin now."] != store.StatusSuperseded {
				t.Errorf("statuses %v", got)
			}
		})
	}

	t.Run("embedding fails", func(t *testing.T) {
		emb := &chunkEmbedder{failOn: inputs[9].Content}
		traces := NewMemoryTraces()
		o := newTestOverlay(t, func(c *Config) { c.Embedder, c.EmbedChunk, c.Traces = emb, 4, traces })
		trs, err := o.Add(ctx, "alice", inputs)
		if err == nil || !strings.Contains(err.Error(), "memories 8 to 11") || !strings.Contains(err.Error(), "out of memory") {
			t.Fatalf("error %v, want one naming memories 8 to 11", err)
		}
		if len(trs) != 8 {
			t.Fatalf("%d traces, want the 8 inputs before the failing chunk", len(trs))
		}
		recs := statuses(o)
		if len(recs) != 8 || recs[inputs[7].Content] == "" || recs[inputs[8].Content] != "" {
			t.Errorf("bank holds %v, want inputs 0 to 7", recs)
		}
		for _, tr := range trs {
			if _, _, err := traces.Trace(ctx, "alice", tr.ID); err != nil {
				t.Errorf("trace of a committed input: %v", err)
			}
		}
		if v, err := store.Check(ctx, o.Store(), "alice"); err != nil || len(v) != 0 {
			t.Errorf("invariants: %v %v", v, err)
		}
	})

	t.Run("commit fails", func(t *testing.T) {
		// The sixth input's context is cancelled mid-way: the commit path stops there,
		// the embedding goroutine ends, and what came before stays.
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		n := 0
		o := newTestOverlay(t, func(c *Config) {
			c.EmbedChunk = 4
			c.Now = func() time.Time {
				if n++; n == 6 {
					cancel()
				}
				return time.Now()
			}
		})
		trs, err := o.Add(cctx, "alice", inputs)
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "memory 5") {
			t.Fatalf("error %v, want memory 5 cancelled", err)
		}
		if len(trs) != 5 || len(statuses(o)) != 5 {
			t.Errorf("%d traces and %d records, want 5", len(trs), len(statuses(o)))
		}
	})
}

// scriptedAuditor gives the verdict scripted for the old record's content; anything
// else is consistent and kept.
type scriptedAuditor map[string]judge.Action

func (s scriptedAuditor) Audit(_ context.Context, p judge.Pair) (judge.Result, error) {
	v := judge.Verdict{Status: judge.StatusConsistent, ConflictType: judge.TypeNone, Action: judge.ActionKeep, Confidence: 1}
	if a, ok := s[p.Old.Text]; ok {
		v.Status, v.ConflictType, v.Action = judge.StatusConflict, judge.TypeTemporalUpdate, a
	}
	return judge.Result{Verdict: v, Source: "script"}, nil
}

// TestLinksAfterSupersessionReconcile: one ingest supersedes the current version of a
// slot and links a scoped exception to another member, which was current through a
// link to the old version. The new memory and the exception are current, the replaced
// version is history, and the commit leaves the slot as the time line and links say
// (it used to apply the supersession first, which made the exception history, and the
// link then left a stale status that the commit check refused).
func TestLinksAfterSupersessionReconcile(t *testing.T) {
	ctx := t.Context()
	const (
		old       = "I love dumplings."
		exception = "I love dumplings, but only homemade ones."
	)
	o := newTestOverlay(t, func(c *Config) {
		c.Auditor = scriptedAuditor{old: judge.ActionSupersede, exception: judge.ActionScopedException}
	})
	// The slot: X current, Y current through its scoped exception to X.
	const slot = "food.dumplings"
	err := o.Store().Tx(ctx, "u", func(tx store.Tx) error {
		for _, r := range []store.Record{
			{ID: "x", Content: old, EventTime: at(2), Slot: slot, SingleValued: true},
			{ID: "y", Content: exception, EventTime: at(1), Slot: slot, SingleValued: true},
		} {
			if err := tx.Put(ctx, r); err != nil {
				return err
			}
		}
		return tx.Link(ctx, "y", store.LinkScopedException, "x")
	})
	if err != nil {
		t.Fatal(err)
	}
	vecs, _ := overlaytest.BagEmbedder{}.Embed(ctx, []string{old, exception})
	for i, id := range []string{"x", "y"} {
		if err := o.cfg.Host.Add(ctx, "u", host.Memory{ID: id, Content: []string{old, exception}[i], Vector: vecs[i]}); err != nil {
			t.Fatal(err)
		}
	}
	trs, err := o.Add(ctx, "u", []Input{{Content: "I can't stand dumplings any more.", EventTime: at(3)}})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	var actions []judge.Action
	for _, c := range trs[0].Commits {
		actions = append(actions, c.Action)
	}
	if !slices.Equal(actions, []judge.Action{judge.ActionScopedException, judge.ActionSupersede}) {
		t.Fatalf("commits %+v, want the scoped exception, then the supersession", trs[0].Commits)
	}
	want := map[string]store.Status{"x": store.StatusSuperseded, "y": store.StatusActive, trs[0].RecordID: store.StatusActive}
	for id, st := range want {
		if r, _ := o.Store().Get(ctx, "u", id); r.Status != st {
			t.Errorf("%s is %s, want %s", id, r.Status, st)
		}
	}
	if v, err := store.Check(ctx, o.Store(), "u"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
}

// TestCandidatesBounded: a seed with many links (a long-lived user's record) does not
// send every linked record to the Judge: at most twice Config.Candidates are audited.
func TestCandidatesBounded(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, func(c *Config) { c.Candidates = 2 })
	err := o.Store().Tx(ctx, "u", func(tx store.Tx) error {
		if err := tx.Put(ctx, store.Record{ID: "hub", Content: "I love dumplings.", EventTime: at(1)}); err != nil {
			return err
		}
		for i := range 12 {
			id := fmt.Sprintf("x%02d", i)
			if err := tx.Put(ctx, store.Record{ID: id, Content: fmt.Sprintf("Note %d about something else.", i), EventTime: at(1)}); err != nil {
				return err
			}
			if err := tx.Link(ctx, "hub", store.LinkCoexistsWith, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	vecs, _ := overlaytest.BagEmbedder{}.Embed(ctx, []string{"I love dumplings."})
	if err := o.cfg.Host.Add(ctx, "u", host.Memory{ID: "hub", Content: "I love dumplings.", Vector: vecs[0]}); err != nil {
		t.Fatal(err)
	}
	trs, err := o.Add(ctx, "u", []Input{{Content: "I love dumplings with chili oil.", EventTime: at(2)}})
	if err != nil {
		t.Fatal(err)
	}
	cands := trs[0].Candidates
	if len(cands) != 4 || cands[0].ID != "hub" || cands[0].From != "seed" || cands[1].From != "linked" {
		t.Errorf("candidates %+v, want the seed and 3 of its links", cands)
	}
}

// TestBankIngestOneTransaction: on a bank (OpenBank: store and host in one SQLite file)
// an ingest writes its record, its transition records and their host memories in one
// transaction: a fault after the record write, after the host write, or a cancel inside
// the transaction leaves nothing of the ingest, and the host's search finds what the
// bank holds. TestPostgresBankIngestOneTransaction runs the same on PostgreSQL.
func TestBankIngestOneTransaction(t *testing.T) {
	bank, err := OpenBank(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer bank.Close()
	testBankIngestOneTransaction(t, bank)
}

var errInjected = errors.New("injected fault")

// faultHost wraps a host memory that is a participant of the store's transactions with
// a fault in its writes in the store's transaction (AddIn), and counts the memories
// written outside it (Add). It embeds the TxHost, as any wrapper may, so the overlay
// commits through it as through the bank's own host: in the store's transaction.
type faultHost struct {
	TxHost
	fault  string // "": none; see the cases of testBankIngestOneTransaction
	cancel context.CancelFunc
	adds   atomic.Int32 // memories written outside the store's transaction
	addIns atomic.Int32 // writes in the store's transaction
}

func (h *faultHost) Add(ctx context.Context, user string, m host.Memory) error {
	h.adds.Add(1)
	return h.TxHost.Add(ctx, user, m)
}

func (h *faultHost) AddIn(ctx context.Context, tx store.Tx, user string, ms []host.Memory) (func(), error) {
	h.addIns.Add(1)
	switch h.fault {
	case "host write fails":
		return nil, errInjected
	case "cancel in the transaction":
		h.cancel()
	}
	apply, err := h.TxHost.AddIn(ctx, tx, user, ms)
	if err == nil && h.fault == "fault after the host write" {
		return nil, errInjected
	}
	return apply, err
}

func testBankIngestOneTransaction(t *testing.T, bank *Bank) {
	ctx := t.Context()
	fh := &faultHost{TxHost: bank.Host}
	o, err := New(Config{Store: bank.Store, Host: fh, Embedder: overlaytest.BagEmbedder{}, Traces: bank.Traces})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if n := fh.adds.Load(); n != 0 {
			t.Errorf("%d host memories written outside the store's transaction (Add): not the one-transaction commit", n)
		}
	}()
	// held is what the bank holds: its records' ids, after checking that the host holds
	// as many memories.
	held := func() []string {
		t.Helper()
		recs, _, err := bank.Store.List(ctx, "u", store.Filter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		n, err := bank.Host.Len(ctx, "u")
		if err != nil || n != len(recs) {
			t.Errorf("host holds %d memories (%v), the bank %d records", n, err, len(recs))
		}
		ids := make([]string, len(recs))
		for i, r := range recs {
			ids[i] = r.ID
		}
		slices.Sort(ids)
		return ids
	}
	trs, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin.", EventTime: at(1)}, {Content: "I moved to Lisbon last month.", EventTime: at(20)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs[1].Commits) != 1 || trs[1].Commits[0].Transition == "" {
		t.Fatalf("commits %+v, want a transition", trs[1].Commits)
	}
	before := held()
	hits, err := bank.Host.Search(ctx, "u", "Berlin Lisbon", nil, 10)
	if err != nil || !slices.ContainsFunc(hits, func(h host.Hit) bool { return h.ID == trs[1].Commits[0].Transition }) {
		t.Errorf("the transition record is not searchable: %v %v", hits, err)
	}

	// Each fault strikes after the commit wrote the record, its links and its transition
	// record, in the same transaction as the host memories.
	porto := []Input{{Content: "I moved to Porto.", EventTime: at(30)}}
	for _, tt := range []struct {
		fault string
		want  error
	}{
		{"host write fails", errInjected},
		{"fault after the host write", errInjected},
		{"cancel in the transaction", context.Canceled},
	} {
		t.Run(tt.fault, func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			fh.fault, fh.cancel = tt.fault, cancel
			defer func() { fh.fault = "" }()
			if _, err := o.Add(cctx, "u", porto); !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if got := held(); !slices.Equal(got, before) {
				t.Errorf("the failed ingest changed the bank: %v, was %v", got, before)
			}
			if hits, err := bank.Host.Search(ctx, "u", "Porto", nil, 10); err != nil || len(hits) != 0 {
				t.Errorf("the failed ingest left host memories: %v %v", hits, err)
			}
		})
	}

	// Without a fault the same ingest commits, with the transition record the failed
	// ones also wrote before their fault.
	trs, err = o.Add(ctx, "u", porto)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs[0].Commits) != 1 || trs[0].Commits[0].Transition == "" {
		t.Fatalf("commits %+v, want a transition", trs[0].Commits)
	}
	if got := held(); len(got) != len(before)+2 {
		t.Errorf("bank %v after the ingest, want %d records", got, len(before)+2)
	}
	if hits, err := bank.Host.Search(ctx, "u", "Porto", nil, 10); err != nil || !slices.ContainsFunc(hits, func(h host.Hit) bool { return h.ID == trs[0].RecordID }) {
		t.Errorf("the committed ingest is not searchable: %v %v", hits, err)
	}
}

// refusingStore is a store whose transactions, while refuse is set, are refused after
// their function ran, as the commit check refuses one that breaks an invariant.
type refusingStore struct {
	store.Store
	refuse bool
}

func (s *refusingStore) Tx(ctx context.Context, user string, fn func(store.Tx) error) error {
	return s.Store.Tx(ctx, user, func(tx store.Tx) error {
		if err := fn(tx); err != nil || !s.refuse {
			return err
		}
		return &store.ViolationError{Violations: []store.Violation{{Kind: store.ViolationKind("test"), User: user, Detail: "refused by the test"}}}
	})
}

// TestWrappedHostStaysInTransaction: a wrapper of the bank's host memory (which embeds
// the TxHost and has no DB method, as a logging or metrics wrapper would be) still
// writes in the store's transaction: a refused commit leaves nothing in the host, and no
// memory is ever written outside the transaction. (A wrapper that drops AddIn is a
// host.Host only: Config.Host does not take it, and Config.SeparateHost says what it
// is.) Before the host was declared a participant, such a wrapper was found not to
// share the store's database and got the memory first.
func TestWrappedHostStaysInTransaction(t *testing.T) {
	ctx := t.Context()
	bank, err := OpenBank(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer bank.Close()
	st := &refusingStore{Store: bank.Store, refuse: true}
	wrapped := &faultHost{TxHost: bank.Host}
	o, err := New(Config{Store: st, Host: wrapped, Embedder: overlaytest.BagEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin."}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("error %v, want the refused commit", err)
	}
	if n, err := bank.Host.Len(ctx, "u"); err != nil || n != 0 {
		t.Errorf("the refused commit left %d host memories (%v)", n, err)
	}
	st.refuse = false
	trs, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin."}})
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := bank.Host.Search(ctx, "u", "Berlin", nil, 10); err != nil || len(hits) != 1 || hits[0].ID != trs[0].RecordID {
		t.Errorf("the committed memory in the host: %v %v", hits, err)
	}
	if adds, addIns := wrapped.adds.Load(), wrapped.addIns.Load(); adds != 0 || addIns != 2 {
		t.Errorf("the wrapped host got %d writes outside the store's transaction and %d in it, want 0 and 2", adds, addIns)
	}
}

// recordingHost is a separate host memory that notes the writes it gets.
type recordingHost struct {
	*host.InMemory
	mu     sync.Mutex
	writes []string // "add <id>", "delete <id>"
}

func (h *recordingHost) note(w string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.writes = append(h.writes, w)
}

func (h *recordingHost) Add(ctx context.Context, user string, m host.Memory) error {
	h.note("add " + m.ID)
	return h.InMemory.Add(ctx, user, m)
}

func (h *recordingHost) Delete(ctx context.Context, user, id string) error {
	h.note("delete " + id)
	return h.InMemory.Delete(ctx, user, id)
}

// TestSeparateHost: a host declared separate (Config.SeparateHost: here in the
// process's memory beside an SQLite bank) gets the new memory before the commit and the
// transition record after it, and loses the memory again when the commit is refused.
func TestSeparateHost(t *testing.T) {
	ctx := t.Context()
	bank, err := OpenBank(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer bank.Close()
	mem, err := host.NewInMemory(host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := &recordingHost{InMemory: mem}
	st := &refusingStore{Store: bank.Store}
	o, err := New(Config{Store: st, SeparateHost: h, Embedder: overlaytest.BagEmbedder{}})
	if err != nil {
		t.Fatal(err)
	}
	trs, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin.", EventTime: at(1)}, {Content: "I moved to Lisbon last month.", EventTime: at(20)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs[1].Commits) != 1 || trs[1].Commits[0].Transition == "" {
		t.Fatalf("commits %+v, want a transition", trs[1].Commits)
	}
	want := []string{"add " + trs[0].RecordID, "add " + trs[1].RecordID, "add " + trs[1].Commits[0].Transition}
	if !slices.Equal(h.writes, want) {
		t.Errorf("host writes %q, want %q", h.writes, want)
	}
	if n, err := bank.Host.Len(ctx, "u"); err != nil || n != 0 {
		t.Errorf("the bank's own host got %d memories (%v): the separate host was not used", n, err)
	}

	st.refuse = true
	h.writes = nil
	if _, err := o.Add(ctx, "u", []Input{{Content: "I moved to Porto.", EventTime: at(30)}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("error %v, want the refused commit", err)
	}
	if len(h.writes) != 2 || !strings.HasPrefix(h.writes[0], "add ") || h.writes[1] != "delete "+strings.TrimPrefix(h.writes[0], "add ") {
		t.Errorf("host writes of the refused commit %q, want its memory added, then deleted", h.writes)
	}
	if hits, err := h.Search(ctx, "u", "Porto", nil, 10); err != nil || len(hits) != 0 {
		t.Errorf("the refused commit left host memories: %v %v", hits, err)
	}
	if n, err := h.Len(ctx, "u"); err != nil || n != 3 {
		t.Errorf("the separate host holds %d memories (%v), want 3", n, err)
	}
}

// TestHostConfig: the host memory is declared once, as a participant of the store's
// transactions or as a separate one; and a bank's host given the transactions of a store
// on another database refuses them instead of writing in the wrong one.
func TestHostConfig(t *testing.T) {
	ctx := t.Context()
	a, err := OpenBank(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenBank(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"none", Config{Store: a.Store, Embedder: overlaytest.BagEmbedder{}}, "host memory is required"},
		{"both", Config{Store: a.Store, Host: a.Host, SeparateHost: b.Host, Embedder: overlaytest.BagEmbedder{}}, "not both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error saying %q", err, tt.want)
			}
		})
	}
	t.Run("host on another database", func(t *testing.T) {
		o, err := New(Config{Store: a.Store, Host: b.Host, Embedder: overlaytest.BagEmbedder{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin."}}); !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "SeparateHost") {
			t.Fatalf("error %v, want the host's refusal naming SeparateHost", err)
		}
		if users, err := a.Store.Users(ctx); err != nil || len(users) != 0 {
			t.Errorf("the refused ingest wrote records of %v (%v)", users, err)
		}
		if n, err := b.Host.Len(ctx, "u"); err != nil || n != 0 {
			t.Errorf("the refused ingest wrote %d host memories (%v)", n, err)
		}
	})
}
