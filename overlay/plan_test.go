package overlay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay/store"
)

func planRecord(id, slot string, day int, st store.Status) store.Record {
	return store.Record{ID: id, Content: id, Slot: slot, SingleValued: slot != "", EventTime: at(day), Status: st}
}

func conflict(a judge.Action) *judge.Verdict {
	return &judge.Verdict{Status: judge.StatusConflict, ConflictType: judge.TypeTemporalUpdate, Action: a, Confidence: 0.9}
}

// counter names transition records t1, t2, … so that plans compare.
func counter() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("t%d", n) }
}

func TestPlanCommit(t *testing.T) {
	home1 := planRecord("home1", "user/home", 1, store.StatusActive)
	tacos1 := planRecord("tacos1", "user/office-days", 3, store.StatusActive)
	tacos1.Meta, _ = withFacts(nil, []facts.Fact{{Subject: "user", Attribute: "office-days", Value: "weekend"},
		{Subject: "nadia", Attribute: "food", Value: "tacos"}})
	tests := []struct {
		name string
		in   planInput
		want commitPlan
	}{
		{
			name: "supersede in the memory's own group",
			in: planInput{Record: planRecord("new", "user/home", 5, store.StatusActive), Candidates: []store.Record{home1},
				Verdicts: []*judge.Verdict{conflict(judge.ActionSupersede)}, Groups: map[string][]store.Record{"user/home": {home1}}, Facts: true},
			want: commitPlan{
				Record:    planRecord("new", "user/home", 5, store.StatusActive),
				Links:     []plannedLink{{From: "new", Type: store.LinkSupersedes, To: "home1"}},
				Reconcile: []string{"user/home"},
				Commits:   []CommitTrace{{Action: judge.ActionSupersede, Old: "home1", New: "new", Slot: "user/home"}},
			},
		},
		{
			name: "transition makes a transition record",
			in: planInput{Record: planRecord("new", "user/home", 5, store.StatusActive), Candidates: []store.Record{home1},
				Verdicts: []*judge.Verdict{{Status: judge.StatusConflict, Action: judge.ActionTransition, TransitionSummary: "home: A -> B", Confidence: 0.8}},
				Groups:   map[string][]store.Record{"user/home": {home1}}, Facts: true},
			want: commitPlan{
				Record: planRecord("new", "user/home", 5, store.StatusActive),
				Links:  []plannedLink{{From: "new", Type: store.LinkSupersedes, To: "home1"}},
				Transitions: []plannedTransition{{Old: "home1", New: "new", Record: store.Record{ID: "t1", Content: "home: A -> B", EventTime: at(5),
					Status: store.StatusTransition, Confidence: 0.8, Source: "overlay", Meta: map[string]string{"from": "home1", "to": "new"}}}},
				Reconcile: []string{"user/home"},
				Commits:   []CommitTrace{{Action: judge.ActionTransition, Old: "home1", New: "new", Slot: "user/home", Transition: "t1"}},
			},
		},
		{
			name: "a backfilled memory is the history",
			in: planInput{Record: planRecord("old", "user/home", 0, store.StatusActive), Candidates: []store.Record{home1},
				Verdicts: []*judge.Verdict{conflict(judge.ActionSupersede)}, Groups: map[string][]store.Record{"user/home": {home1}}, Facts: true},
			want: commitPlan{
				Record:    planRecord("old", "user/home", 0, store.StatusActive),
				Links:     []plannedLink{{From: "home1", Type: store.LinkSupersedes, To: "old"}},
				Reconcile: []string{"user/home"},
				Commits: []CommitTrace{{Action: judge.ActionSupersede, Old: "old", New: "home1", Slot: "user/home",
					Note: "the new memory is older than the record it conflicts with: it was stored as history"}},
			},
		},
		{
			// A correction said before the date the old record is dated ahead ("rent goes
			// up to £1025 from April", then "it's £1000 not 1025") takes that date: it is
			// the newer version, not the history.
			name: "a correction takes the date of the record it corrects",
			in: planInput{Record: func() store.Record {
				r := planRecord("fix", "user/home", 0, store.StatusActive)
				r.IngestTime = at(9)
				return r
			}(), Candidates: []store.Record{home1},
				Verdicts: []*judge.Verdict{{Status: judge.StatusConflict, ConflictType: judge.TypeValueDiscrepancy, Action: judge.ActionSupersede, Confidence: 0.9}},
				Groups:   map[string][]store.Record{"user/home": {home1}}, Facts: true},
			want: commitPlan{
				Record: func() store.Record {
					r := planRecord("fix", "user/home", 0, store.StatusActive)
					r.EventTime, r.IngestTime = at(1), at(9)
					return r
				}(),
				Links:     []plannedLink{{From: "fix", Type: store.LinkSupersedes, To: "home1"}},
				Reconcile: []string{"user/home"},
				Commits:   []CommitTrace{{Action: judge.ActionSupersede, Old: "home1", New: "fix", Slot: "user/home"}},
			},
		},
		{
			name: "another group is merged into the memory's",
			in: planInput{Record: planRecord("new", "user/home", 5, store.StatusActive),
				Candidates: []store.Record{planRecord("flat2", "user/flat", 3, store.StatusActive)},
				Verdicts:   []*judge.Verdict{conflict(judge.ActionSupersede)},
				Groups: map[string][]store.Record{
					"user/flat": {planRecord("flat1", "user/flat", 2, store.StatusSuperseded), planRecord("flat2", "user/flat", 3, store.StatusActive)},
					"user/home": nil,
				}, Facts: true},
			want: commitPlan{
				Record:    planRecord("new", "user/home", 5, store.StatusActive),
				Moves:     []slotMove{{ID: "flat1", Slot: "user/home", Single: true}, {ID: "flat2", Slot: "user/home", Single: true}},
				Links:     []plannedLink{{From: "new", Type: store.LinkSupersedes, To: "flat2"}},
				Reconcile: []string{"user/home"},
				Commits:   []CommitTrace{{Action: judge.ActionSupersede, Old: "flat2", New: "new", Slot: "user/home"}},
			},
		},
		{
			name: "groups of different subjects are not merged",
			in: planInput{Record: planRecord("new", "lotte/diet", 5, store.StatusActive),
				Candidates: []store.Record{planRecord("mine", "user/diet", 3, store.StatusActive)},
				Verdicts:   []*judge.Verdict{conflict(judge.ActionSupersede)},
				Groups:     map[string][]store.Record{"user/diet": {planRecord("mine", "user/diet", 3, store.StatusActive)}, "lotte/diet": nil}, Facts: true},
			want: commitPlan{
				Record:    planRecord("new", "lotte/diet", 5, store.StatusActive),
				Reconcile: []string{"lotte/diet"},
				Commits: []CommitTrace{{Action: judge.ActionKeep, Old: "mine", New: "new", Slot: "lotte/diet",
					Note: "supersede not applied: user/diet and lotte/diet are groups of different subjects"}},
			},
		},
		{
			name: "an old record that states a fact of the group joins it alone",
			in: planInput{Record: planRecord("new", "nadia/food/tacos", 5, store.StatusActive),
				Candidates: []store.Record{tacos1},
				Verdicts:   []*judge.Verdict{conflict(judge.ActionSupersede)},
				Groups: map[string][]store.Record{"user/office-days": {planRecord("days", "user/office-days", 2, store.StatusActive), tacos1},
					"nadia/food/tacos": nil}, Facts: true},
			want: commitPlan{
				Record: planRecord("new", "nadia/food/tacos", 5, store.StatusActive),
				Moves:  []slotMove{{ID: "tacos1", Slot: "nadia/food/tacos", Single: true}},
				Links:  []plannedLink{{From: "new", Type: store.LinkSupersedes, To: "tacos1"}},
				// The group tacos1 leaves settles again: "days" is its newest version now.
				Reconcile: []string{"user/office-days", "nadia/food/tacos"},
				Commits:   []CommitTrace{{Action: judge.ActionSupersede, Old: "tacos1", New: "new", Slot: "nadia/food/tacos"}},
			},
		},
		{
			name: "a version the time line already replaced is not linked again",
			in: planInput{Record: planRecord("new", "user/home", 5, store.StatusActive),
				// home1 is older than home2: once new joins the group, the time line
				// supersedes both, and the second verdict has nothing left to do.
				Candidates: []store.Record{planRecord("home2", "user/home", 3, store.StatusActive), home1},
				Verdicts:   []*judge.Verdict{conflict(judge.ActionSupersede), conflict(judge.ActionSupersede)},
				Groups:     map[string][]store.Record{"user/home": {home1, planRecord("home2", "user/home", 3, store.StatusActive)}}, Facts: true},
			want: commitPlan{
				Record:    planRecord("new", "user/home", 5, store.StatusActive),
				Links:     []plannedLink{{From: "new", Type: store.LinkSupersedes, To: "home2"}},
				Reconcile: []string{"user/home"},
				Commits:   []CommitTrace{{Action: judge.ActionSupersede, Old: "home2", New: "new", Slot: "user/home"}},
			},
		},
		{
			name: "links before supersessions",
			in: planInput{Record: planRecord("new", "user/diet", 5, store.StatusActive),
				Candidates: []store.Record{planRecord("d1", "user/diet", 1, store.StatusActive), planRecord("d2", "user/diet", 2, store.StatusActive)},
				Verdicts:   []*judge.Verdict{conflict(judge.ActionSupersede), {Status: judge.StatusConflict, Action: judge.ActionScopedException}},
				Groups:     map[string][]store.Record{"user/diet": {planRecord("d1", "user/diet", 1, store.StatusActive), planRecord("d2", "user/diet", 2, store.StatusActive)}}, Facts: true},
			want: commitPlan{
				Record: planRecord("new", "user/diet", 5, store.StatusActive),
				Links: []plannedLink{{From: "new", Type: store.LinkScopedException, To: "d2"},
					{From: "new", Type: store.LinkSupersedes, To: "d1"}},
				Reconcile: []string{"user/diet"},
				Commits: []CommitTrace{{Action: judge.ActionScopedException, Old: "d2", New: "new"},
					{Action: judge.ActionSupersede, Old: "d1", New: "new", Slot: "user/diet"}},
			},
		},
		{
			name: "an implicit conflict waits for clarification",
			in: planInput{Record: planRecord("new", "", 5, store.StatusActive), Candidates: []store.Record{home1},
				Verdicts: []*judge.Verdict{{Status: judge.StatusConflict, ConflictType: judge.TypeImplicitViolation, Action: judge.ActionKeep,
					ClarificationNeeded: true, ClarificationQuestion: "Still vegan?"}}},
			want: commitPlan{
				Record: func() store.Record {
					r := planRecord("new", "", 5, store.StatusUnknown)
					r.Meta = map[string]string{"clarification": "Still vegan?", "conflicts_with": "home1"}
					return r
				}(),
				Commits: []CommitTrace{{Action: judge.ActionKeep, Old: "home1", New: "new", Note: "implicit conflict: the new memory waits for clarification (status unknown): Still vegan?"}},
			},
		},
		{
			name: "judge off writes the memory only",
			in: planInput{Record: planRecord("new", "user/home", 5, store.StatusActive), Candidates: []store.Record{home1},
				Verdicts: []*judge.Verdict{conflict(judge.ActionSupersede)}, Facts: true, NoCommit: true},
			want: commitPlan{Record: planRecord("new", "user/home", 5, store.StatusActive)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.NewID = counter()
			before := fmt.Sprintf("%+v", tt.in)
			got := planCommit(tt.in)
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(commitPlan{})); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
			if after := fmt.Sprintf("%+v", tt.in); after != before {
				t.Errorf("planCommit changed its input:\n%s\n%s", before, after)
			}
			// Pure: the same input, the same plan.
			tt.in.NewID = counter()
			again := planCommit(tt.in)
			if d := cmp.Diff(got, again); d != "" {
				t.Errorf("a second plan differs:\n%s", d)
			}
		})
	}
}

// A plan that would break an invariant is refused whole: the error names the invariant
// and the records, and nothing of it is written — on both stores.
func TestApplyPlanRefusesBrokenInvariant(t *testing.T) {
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			st := seeded(t, open, []store.Record{planRecord("home1", "user/home", 1, store.StatusActive)}, nil, "")
			// A supersession without the reconciliation that settles it: home1 would stay
			// active although superseded_by the new record.
			pl := commitPlan{
				Record: planRecord("new", "", 5, store.StatusActive),
				Links:  []plannedLink{{From: "new", Type: store.LinkSupersedes, To: "home1"}},
			}
			err := st.Tx(ctx, "ana", func(tx store.Tx) error { return applyPlan(ctx, tx, pl) })
			var ve *store.ViolationError
			if !errors.Is(err, store.ErrConflict) || !errors.As(err, &ve) {
				t.Fatalf("err %v, want a refused commit naming its violations", err)
			}
			named := false
			for _, v := range ve.Violations {
				named = named || v.Kind == store.KindNotSuperseded && v.ID == "home1"
			}
			if !named || !strings.Contains(err.Error(), "home1") {
				t.Errorf("violations %v: want %s for home1", ve.Violations, store.KindNotSuperseded)
			}
			if _, err := st.Get(ctx, "ana", "new"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("the refused plan's record: %v, want not found", err)
			}
			if r, err := st.Get(ctx, "ana", "home1"); err != nil || len(r.Links) != 0 || r.Status != store.StatusActive {
				t.Errorf("home1 after the refused plan: %+v %v, want it unchanged", r, err)
			}
		})
	}
}

// A record that leaves its group alone (it states a fact of the new memory's group) may
// leave behind a version it held down: the group it left settles again in the same
// commit, on both stores. Before, the store refused the commit (stale-status) and the
// memory was not stored (BenchmarkIngest/Batch32Facts).
func TestPlanReconcilesTheGroupLeft(t *testing.T) {
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			// x ← y ← z in aunt/home; z also says the user's partnership ended.
			x := planRecord("x", "aunt/home", 1, store.StatusActive)
			y := planRecord("y", "aunt/home", 2, store.StatusActive)
			z := planRecord("z", "aunt/home", 3, store.StatusActive)
			z.Meta, _ = withFacts(nil, []facts.Fact{{Subject: "aunt", Attribute: "home", Value: "Leeds"},
				{Subject: "user", Attribute: "partner", Value: "Elena", Negated: true}})
			st := seeded(t, open, []store.Record{x, y, z}, [][2]string{{"y", "x"}, {"z", "y"}}, "aunt/home")
			var group []store.Record
			for _, id := range []string{"x", "y", "z"} {
				r, err := st.Get(ctx, "ana", id)
				if err != nil {
					t.Fatal(err)
				}
				group = append(group, r)
			}
			nw := planRecord("new", "user/partner", 5, store.StatusActive)
			nw.Meta, _ = withFacts(nil, []facts.Fact{{Subject: "user", Attribute: "partner", Value: "Elena"}})
			pl := planCommit(planInput{Record: nw, Candidates: []store.Record{group[2]}, Verdicts: []*judge.Verdict{conflict(judge.ActionTransition)},
				Groups: map[string][]store.Record{"aunt/home": group, "user/partner": nil}, Facts: true, NewID: counter()})
			if err := st.Tx(ctx, "ana", func(tx store.Tx) error { return applyPlan(ctx, tx, pl) }); err != nil {
				t.Fatalf("plan %+v refused: %v", pl, err)
			}
			if v, err := store.Check(ctx, st, "ana"); err != nil || len(v) != 0 {
				t.Errorf("invariants: %v %v", v, err)
			}
		})
	}
}

// seeded opens a store and writes, for user ana in one transaction, the records, the
// supersedes links (new, old) and the reconciliation of slot ("" for none).
func seeded(t *testing.T, open func(*testing.T) (store.Store, TxHost), rs []store.Record, supersedes [][2]string, slot string) store.Store {
	t.Helper()
	st, _ := open(t)
	ctx := t.Context()
	err := st.Tx(ctx, "ana", func(tx store.Tx) error {
		for _, r := range rs {
			if err := tx.Put(ctx, r); err != nil {
				return err
			}
		}
		for _, l := range supersedes {
			if err := tx.Link(ctx, l[0], store.LinkSupersedes, l[1]); err != nil {
				return err
			}
		}
		if slot == "" {
			return nil
		}
		return store.Reconcile(ctx, tx, slot)
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
