package overlay

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

func TestCommitActions(t *testing.T) {
	tests := []struct {
		name       string
		old, new   string
		wantOld    store.Status
		wantNew    store.Status
		wantAction judge.Action
	}{
		{"negation supersedes", "I have a dog named Rex.", "I gave my dog Rex to my sister, I don't have a dog anymore.", store.StatusSuperseded, store.StatusActive, judge.ActionSupersede},
		{"unrelated keeps both", "I have a dog named Rex.", "The quarterly report is due on Friday.", store.StatusActive, store.StatusActive, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			o := newTestOverlay(t, nil)
			tr, err := o.Add(ctx, "u", []Input{{Content: tt.old, EventTime: at(1)}, {Content: tt.new, EventTime: at(5)}})
			if err != nil {
				t.Fatal(err)
			}
			old, _ := o.Store().Get(ctx, "u", tr[0].RecordID)
			nw, _ := o.Store().Get(ctx, "u", tr[1].RecordID)
			if old.Status != tt.wantOld || nw.Status != tt.wantNew {
				t.Errorf("old %s new %s; trace %+v", old.Status, nw.Status, tr[1])
			}
			var got judge.Action
			if len(tr[1].Commits) > 0 {
				got = tr[1].Commits[0].Action
			}
			if got != tt.wantAction {
				t.Errorf("action %q, want %q (%+v)", got, tt.wantAction, tr[1].Commits)
			}
			if v, err := store.Check(ctx, o.Store(), "u"); err != nil || len(v) != 0 {
				t.Errorf("invariants: %v %v", v, err)
			}
		})
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
