package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atma-dev/atma/overlay/store"
)

// Opener returns a new, empty store with cfg; the suite closes it.
type Opener func(t *testing.T, cfg store.Config) store.Store

// Clock is a settable clock for store.Config.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the current reading.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// T0 is the suite's starting clock reading.
var T0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

type env struct {
	s     store.Store
	clock *Clock
}

func newEnv(t *testing.T, open Opener) env {
	t.Helper()
	clock := NewClock(T0)
	s := open(t, store.Config{Now: clock.Now})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return env{s: s, clock: clock}
}

// Run runs the suite against stores from open.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, env)
	}{
		{"RoundTrip", testRoundTrip},
		{"GetMany", testGetMany},
		{"PutDefaults", testPutDefaults},
		{"PutInvalid", testPutInvalid},
		{"Links", testLinks},
		{"List", testList},
		{"SetSlot", testSetSlot},
		{"VersionGroupOrder", testVersionGroupOrder},
		{"CommitEnforcesInvariants", testCommitEnforces},
		{"LateOlderVersion", testLateOlderVersion},
		{"Retraction", testRetraction},
		{"ScopedExceptionAndCoexist", testScopedException},
		{"Transition", testTransition},
		{"Delete", testDelete},
		{"DeleteUserAndUsers", testDeleteUser},
		{"Isolation", testIsolation},
		{"RollbackOnError", testRollbackOnError},
		{"RollbackOnPanic", testRollbackOnPanic},
		{"RollbackOnCancel", testRollbackOnCancel},
		{"TxUseAfterEnd", testTxUseAfterEnd},
		{"ConcurrentWriters", testConcurrentWriters},
		{"CheckClean", testCheckClean},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newEnv(t, open))
		})
	}
}

// put writes records in one transaction.
func put(t *testing.T, s store.Store, user string, rs ...store.Record) {
	t.Helper()
	err := s.Tx(t.Context(), user, func(tx store.Tx) error {
		for _, r := range rs {
			if err := tx.Put(t.Context(), r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("put: %v", err)
	}
}

func get(t *testing.T, s store.Store, user, id string) store.Record {
	t.Helper()
	r, err := s.Get(t.Context(), user, id)
	if err != nil {
		t.Fatalf("get %s/%s: %v", user, id, err)
	}
	return r
}

func mustCheck(t *testing.T, s store.Store, user string) {
	t.Helper()
	vs, err := store.Check(t.Context(), s, user)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, v := range vs {
		t.Errorf("violation: %s", v)
	}
}

func at(day int) time.Time { return T0.AddDate(0, 0, day) }

// fact is a single-valued record of slot at event day.
func fact(id, slot string, day int, content string) store.Record {
	return store.Record{ID: id, Content: content, Slot: slot, SingleValued: true, EventTime: at(day), Confidence: 0.9}
}

var cmpRecord = cmp.Options{cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()}

func testRoundTrip(t *testing.T, e env) {
	loc := time.FixedZone("UTC+2", 2*3600)
	in := store.Record{
		ID:           "r1",
		User:         "alice",
		Content:      "I live in Paris",
		EventTime:    time.Date(2024, 6, 1, 10, 0, 0, 123456789, loc),
		SourcePos:    7,
		IngestTime:   time.Date(2024, 6, 2, 0, 0, 0, 1, loc),
		Status:       store.StatusActive,
		Slot:         "user.city",
		SingleValued: true,
		ValidFrom:    time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC),
		ValidUntil:   time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		Confidence:   0.75,
		Source:       "session-3#turn-7",
		HostID:       "h-42",
		Meta:         map[string]string{"speaker": "user", "lang": "en"},
		Embeddings: store.Embeddings{
			Backbone: []float32{0.1, -0.2, 0.3, 1e-30},
			Topic:    []float32{1, 0},
			Logic:    []float32{-1},
		},
		Links: []store.Link{{Type: store.LinkCoexistsWith, To: "ignored"}},
	}
	put(t, e.s, "alice", in)
	got := get(t, e.s, "alice", "r1")
	want := in
	want.EventTime = in.EventTime.UTC()
	want.IngestTime = in.IngestTime.UTC()
	want.Links = nil // Put ignores links
	if d := cmp.Diff(want, got, cmpRecord); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if got.EventTime.Location() != time.UTC {
		t.Errorf("event time in %v, want UTC", got.EventTime.Location())
	}
	// Get returns a copy: changing it changes nothing stored.
	got.Meta["lang"] = "fr"
	got.Embeddings.Backbone[0] = 9
	if again := get(t, e.s, "alice", "r1"); again.Meta["lang"] != "en" || again.Embeddings.Backbone[0] != 0.1 {
		t.Error("mutating a returned record changed the store")
	}
	// Replace keeps identity and updates fields.
	in.Content = "I live in Lyon"
	in.Meta = nil
	in.Embeddings = store.Embeddings{}
	put(t, e.s, "alice", in)
	got = get(t, e.s, "alice", "r1")
	if got.Content != "I live in Lyon" || got.Meta != nil || got.Embeddings.Backbone != nil {
		t.Errorf("replace: %+v", got)
	}
	// A status change keeps the rest.
	if err := e.s.Tx(t.Context(), "alice", func(tx store.Tx) error { return tx.SetStatus(t.Context(), "r1", store.StatusUnknown) }); err != nil {
		t.Fatal(err)
	}
	want, got = got, get(t, e.s, "alice", "r1")
	want.Status = store.StatusUnknown
	if d := cmp.Diff(want, got, cmpRecord); d != "" {
		t.Errorf("after SetStatus (-want +got):\n%s", d)
	}
	// So does a change of status and end; an end before the start changes nothing.
	end := want.ValidFrom.Add(time.Hour)
	if err := e.s.Tx(t.Context(), "alice", func(tx store.Tx) error {
		return tx.SetStatusUntil(t.Context(), "r1", store.StatusUnknown, end)
	}); err != nil {
		t.Fatal(err)
	}
	want, got = got, get(t, e.s, "alice", "r1")
	want.Status, want.ValidUntil = store.StatusUnknown, end.UTC()
	if d := cmp.Diff(want, got, cmpRecord); d != "" {
		t.Errorf("after SetStatusUntil (-want +got):\n%s", d)
	}
	if err := e.s.Tx(t.Context(), "alice", func(tx store.Tx) error {
		return tx.SetStatusUntil(t.Context(), "r1", store.StatusActive, time.Time{})
	}); err != nil {
		t.Fatal(err)
	}
	want.Status, want.ValidUntil = store.StatusActive, time.Time{}
	if d := cmp.Diff(want, get(t, e.s, "alice", "r1"), cmpRecord); d != "" {
		t.Errorf("after SetStatusUntil with no end (-want +got):\n%s", d)
	}
}

func testPutDefaults(t *testing.T, e env) {
	put(t, e.s, "alice", store.Record{ID: "a", Content: "x"})
	got := get(t, e.s, "alice", "a")
	if got.User != "alice" || got.Status != store.StatusActive || !got.IngestTime.Equal(T0) {
		t.Errorf("defaults: user %q status %q ingest %v; want alice active %v", got.User, got.Status, got.IngestTime, T0)
	}
	if !got.Time().Equal(T0) {
		t.Errorf("Time() = %v, want the ingest time %v when there is no event time", got.Time(), T0)
	}
	// A later Put with zero IngestTime keeps the original one.
	e.clock.Advance(time.Hour)
	put(t, e.s, "alice", store.Record{ID: "a", Content: "y"})
	if got := get(t, e.s, "alice", "a"); !got.IngestTime.Equal(T0) {
		t.Errorf("ingest time changed on replace: %v", got.IngestTime)
	}
	var now time.Time
	if err := e.s.Tx(t.Context(), "alice", func(tx store.Tx) error { now = tx.Now(); return nil }); err != nil {
		t.Fatal(err)
	}
	if !now.Equal(T0.Add(time.Hour)) {
		t.Errorf("Tx.Now = %v, want %v", now, T0.Add(time.Hour))
	}
}

func testPutInvalid(t *testing.T, e env) {
	ok := store.Record{ID: "a", Content: "x"}
	tests := []struct {
		name   string
		mutate func(*store.Record)
	}{
		{"empty id", func(r *store.Record) { r.ID = "" }},
		{"long id", func(r *store.Record) { r.ID = string(make([]byte, store.MaxIDLen+1)) }},
		{"control char id", func(r *store.Record) { r.ID = "a\nb" }},
		{"empty content", func(r *store.Record) { r.Content = "" }},
		{"bad utf8 content", func(r *store.Record) { r.Content = "\xff" }},
		{"bad status", func(r *store.Record) { r.Status = "current" }},
		{"confidence above 1", func(r *store.Record) { r.Confidence = 1.5 }},
		{"valid_until before valid_from", func(r *store.Record) { r.ValidFrom = at(2); r.ValidUntil = at(1) }},
		{"single-valued without slot", func(r *store.Record) { r.SingleValued = true }},
		{"NaN embedding", func(r *store.Record) { r.Embeddings.Topic = []float32{float32(nan())} }},
		{"time out of range", func(r *store.Record) { r.EventTime = time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"empty meta key", func(r *store.Record) { r.Meta = map[string]string{"": "v"} }},
		{"other user", func(r *store.Record) { r.User = "bob" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.mutate(&r)
			err := e.s.Tx(t.Context(), "alice", func(tx store.Tx) error { return tx.Put(t.Context(), r) })
			if !errors.Is(err, store.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	for _, user := range []string{"", "a\x00b", "\xff"} {
		if err := e.s.Tx(t.Context(), user, func(store.Tx) error { return nil }); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Tx for user %q: err = %v, want ErrInvalid", user, err)
		}
		if _, err := e.s.Get(t.Context(), user, "a"); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Get for user %q: err = %v, want ErrInvalid", user, err)
		}
	}
	if users, err := e.s.Users(t.Context()); err != nil || len(users) != 0 {
		t.Errorf("failed puts left users %v (%v)", users, err)
	}
}

func nan() float64 { return float64(0) / func() float64 { return 0 }() }

func testLinks(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", store.Record{ID: "a", Content: "a"}, store.Record{ID: "b", Content: "b"}, store.Record{ID: "c", Content: "c"})
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		for _, step := range []error{
			tx.Link(ctx, "a", store.LinkCoexistsWith, "b"),
			tx.Link(ctx, "a", store.LinkCoexistsWith, "b"), // idempotent
			tx.Link(ctx, "c", store.LinkScopedException, "a"),
		} {
			if step != nil {
				return step
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a := get(t, e.s, "alice", "a")
	want := []store.Link{{Type: store.LinkCoexistsWith, To: "b"}, {Type: store.LinkScopedException, To: "c"}}
	if d := cmp.Diff(want, a.Links); d != "" {
		t.Errorf("a's links (-want +got):\n%s", d)
	}
	if b := get(t, e.s, "alice", "b"); !b.HasLink(store.LinkCoexistsWith, "a") {
		t.Errorf("reciprocal missing on b: %v", b.Links)
	}
	// Put keeps links.
	a.Content = "a2"
	a.Links = nil
	put(t, e.s, "alice", a)
	if got := get(t, e.s, "alice", "a"); len(got.Links) != 2 {
		t.Errorf("Put dropped links: %v", got.Links)
	}
	put(t, e.s, "alice", store.Record{ID: "from", Content: "from", ValidFrom: T0})
	errTests := []struct {
		name string
		op   func(tx store.Tx) error
		want error
	}{
		{"missing target", func(tx store.Tx) error { return tx.Link(ctx, "a", store.LinkCoexistsWith, "zz") }, store.ErrNotFound},
		{"missing source", func(tx store.Tx) error { return tx.Link(ctx, "zz", store.LinkCoexistsWith, "a") }, store.ErrNotFound},
		{"self link", func(tx store.Tx) error { return tx.Link(ctx, "a", store.LinkCoexistsWith, "a") }, store.ErrInvalid},
		{"unknown type", func(tx store.Tx) error { return tx.Link(ctx, "a", "likes", "b") }, store.ErrInvalid},
		{"unlink absent", func(tx store.Tx) error { return tx.Unlink(ctx, "b", store.LinkScopedException, "c") }, store.ErrNotFound},
		{"status unknown id", func(tx store.Tx) error { return tx.SetStatus(ctx, "zz", store.StatusActive) }, store.ErrNotFound},
		{"bad status", func(tx store.Tx) error { return tx.SetStatus(ctx, "a", "gone") }, store.ErrInvalid},
		{"status until unknown id", func(tx store.Tx) error { return tx.SetStatusUntil(ctx, "zz", store.StatusActive, time.Time{}) }, store.ErrNotFound},
		{"status until bad status", func(tx store.Tx) error { return tx.SetStatusUntil(ctx, "a", "gone", time.Time{}) }, store.ErrInvalid},
		{"status until before valid_from", func(tx store.Tx) error {
			return tx.SetStatusUntil(ctx, "from", store.StatusSuperseded, T0.Add(-time.Hour))
		}, store.ErrInvalid},
		{"delete unknown", func(tx store.Tx) error { return tx.Delete(ctx, "zz") }, store.ErrNotFound},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			if err := e.s.Tx(ctx, "alice", tt.op); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if f := get(t, e.s, "alice", "from"); f.Status != store.StatusActive || !f.ValidUntil.IsZero() {
		t.Errorf("a refused SetStatusUntil changed the record: status %s, valid_until %v", f.Status, f.ValidUntil)
	}
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.Unlink(ctx, "b", store.LinkCoexistsWith, "a") }); err != nil {
		t.Fatal(err)
	}
	if a := get(t, e.s, "alice", "a"); a.HasLink(store.LinkCoexistsWith, "b") {
		t.Errorf("Unlink left the reciprocal: %v", a.Links)
	}
	mustCheck(t, e.s, "alice")
}

func testList(t *testing.T, e env) {
	ctx := t.Context()
	var rs []store.Record
	for i := range 25 {
		r := store.Record{ID: fmt.Sprintf("r%02d", i), Content: "x", Slot: []string{"s1", "s2"}[i%2]}
		if i%5 == 0 {
			r.Status = store.StatusUnknown
		}
		rs = append(rs, r)
	}
	put(t, e.s, "alice", rs...)
	var ids []string
	f := store.Filter{Limit: 10}
	pages := 0
	for {
		page, next, err := e.s.List(ctx, "alice", f)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range page {
			ids = append(ids, r.ID)
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	if len(ids) != 25 || !slices.IsSorted(ids) || pages != 3 {
		t.Errorf("paged %d ids in %d pages, sorted %v", len(ids), pages, slices.IsSorted(ids))
	}
	// Newest first, paged towards older records, with a filter.
	var newest []string
	f = store.Filter{Limit: 4, Slot: "s1", Newest: true}
	for {
		page, next, err := e.s.List(ctx, "alice", f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			newest = append(newest, r.ID)
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	if want := []string{"r24", "r22", "r20", "r18", "r16", "r14", "r12", "r10", "r08", "r06", "r04", "r02", "r00"}; !slices.Equal(newest, want) {
		t.Errorf("newest first in slot s1: %v, want %v", newest, want)
	}
	tests := []struct {
		name string
		f    store.Filter
		want int
	}{
		{"all default limit", store.Filter{}, 25},
		{"status", store.Filter{Status: store.StatusUnknown}, 5},
		{"slot", store.Filter{Slot: "s1"}, 13},
		{"slot and status", store.Filter{Slot: "s1", Status: store.StatusUnknown}, 3},
		{"limit", store.Filter{Limit: 4}, 4},
		{"no match", store.Filter{Slot: "none"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, _, err := e.s.List(ctx, "alice", tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) != tt.want {
				t.Errorf("%d records, want %d", len(page), tt.want)
			}
		})
	}
	if _, _, err := e.s.List(ctx, "alice", store.Filter{Limit: -1}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("negative limit: %v", err)
	}
	if _, _, err := e.s.List(ctx, "alice", store.Filter{Status: "x"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad status filter: %v", err)
	}
	if _, _, err := e.s.List(ctx, "alice", store.Filter{Status: store.StatusActive, MayHold: true}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("status and may-hold filter: %v", err)
	}
	// The records that may hold now: active and unknown, not the history.
	unsure := fact("c3", "user.city", 20, "maybe Rome, maybe not")
	unsure.Status = store.StatusUnknown
	put(t, e.s, "alice", fact("c1", "user.city", 0, "I live in Paris"), unsure)
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("c2", "user.city", 10, "I live in Lyon")); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.city")
	}); err != nil {
		t.Fatal(err)
	}
	page, _, err := e.s.List(ctx, "alice", store.Filter{Slot: "user.city", MayHold: true})
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, r := range page {
		live = append(live, r.ID+"="+string(r.Status))
	}
	if want := []string{"c2=active", "c3=unknown"}; !slices.Equal(live, want) {
		t.Errorf("records that may hold now: %v, want %v", live, want)
	}
	if page, next, err := e.s.List(ctx, "nobody", store.Filter{}); err != nil || len(page) != 0 || next != "" {
		t.Errorf("unknown user: %v %q %v", page, next, err)
	}
}

func testVersionGroupOrder(t *testing.T, e env) {
	ctx := t.Context()
	// Multi-valued so every status stays active whatever the order.
	rec := func(id string, event time.Time, pos int64) store.Record {
		return store.Record{ID: id, Content: id, Slot: "pets", EventTime: event, SourcePos: pos}
	}
	put(t, e.s, "alice",
		rec("late-event", at(5), 0),
		rec("early-event", at(-5), 0),
		rec("pos2", at(1), 2),
		rec("pos1", at(1), 1),
		rec("tie-b", at(3), 0),
		rec("tie-a", at(3), 0),
	)
	e.clock.Advance(24 * time.Hour) // ingest time T0+1d, no event time: sorts as day 1, pos 0
	put(t, e.s, "alice", rec("no-event", time.Time{}, 0), store.Record{ID: "other", Content: "x", Slot: "city"})
	g, err := e.s.VersionGroup(ctx, "alice", "pets")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range g {
		got = append(got, r.ID)
	}
	want := []string{"early-event", "no-event", "pos1", "pos2", "tie-a", "tie-b", "late-event"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	sorted := slices.Clone(g)
	slices.Reverse(sorted)
	store.SortVersions(sorted)
	if !slices.EqualFunc(sorted, g, func(a, b store.Record) bool { return a.ID == b.ID }) {
		t.Error("SortVersions disagrees with VersionGroup")
	}
	if g, err := e.s.VersionGroup(ctx, "alice", "nothing"); err != nil || len(g) != 0 {
		t.Errorf("empty group: %v %v", g, err)
	}
}

func violationKinds(err error) []store.ViolationKind {
	var ve *store.ViolationError
	if !errors.As(err, &ve) {
		return nil
	}
	var ks []store.ViolationKind
	for _, v := range ve.Violations {
		if !slices.Contains(ks, v.Kind) {
			ks = append(ks, v.Kind)
		}
	}
	slices.Sort(ks)
	return ks
}

func testCommitEnforces(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", fact("v1", "user.job", 0, "I work at Acme"), store.Record{ID: "free", Content: "unslotted"})
	tests := []struct {
		name string
		fn   func(tx store.Tx) error
		want store.ViolationKind
	}{
		{"second active version", func(tx store.Tx) error {
			return tx.Put(ctx, fact("v2", "user.job", 5, "I work at Globex"))
		}, store.KindMultipleActive},
		{"superseded without valid_until", func(tx store.Tx) error {
			if err := tx.Put(ctx, fact("v2", "user.job", 5, "I work at Globex")); err != nil {
				return err
			}
			if err := tx.Link(ctx, "v2", store.LinkSupersedes, "v1"); err != nil {
				return err
			}
			return tx.SetStatus(ctx, "v1", store.StatusSuperseded)
		}, store.KindNoValidUntil},
		{"superseded_by but active", func(tx store.Tx) error {
			if err := tx.Put(ctx, store.Record{ID: "n", Content: "n"}); err != nil {
				return err
			}
			return tx.Link(ctx, "n", store.LinkSupersedes, "free")
		}, store.KindNotSuperseded},
		{"transition without states", func(tx store.Tx) error {
			return tx.SetStatus(ctx, "free", store.StatusTransition)
		}, store.KindTransitionLinks},
		{"older version made current", func(tx store.Tx) error {
			if err := tx.Put(ctx, fact("v0", "user.job", -5, "I worked at Initech")); err != nil {
				return err
			}
			// v0 replaces v1 against the time line: what Reconcile would never write.
			if err := tx.Link(ctx, "v0", store.LinkSupersedes, "v1"); err != nil {
				return err
			}
			v1, err := tx.Get(ctx, "v1")
			if err != nil {
				return err
			}
			v1.Status, v1.ValidUntil = store.StatusSuperseded, at(-5)
			return tx.Put(ctx, v1)
		}, store.KindStaleStatus},
		{"mixed cardinality", func(tx store.Tx) error {
			r := fact("v2", "user.job", -1, "I work at Globex")
			r.SingleValued = false
			r.Status = store.StatusSuperseded
			r.ValidUntil = at(0)
			return tx.Put(ctx, r)
		}, store.KindMixedCardinality},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := e.s.Tx(ctx, "alice", tt.fn)
			if !errors.Is(err, store.ErrConflict) {
				t.Fatalf("err = %v, want ErrConflict", err)
			}
			if ks := violationKinds(err); !slices.Contains(ks, tt.want) {
				t.Errorf("violations %v, want %s (%v)", ks, tt.want, err)
			}
			// Nothing of the refused commit is stored.
			if g, _ := e.s.VersionGroup(ctx, "alice", "user.job"); len(g) != 1 || g[0].Status != store.StatusActive || len(g[0].Links) != 0 {
				t.Errorf("refused commit left %v", g)
			}
			if r := get(t, e.s, "alice", "free"); r.Status != store.StatusActive || len(r.Links) != 0 {
				t.Errorf("refused commit changed free: %+v", r)
			}
		})
	}
	t.Run("coexisting values are fine", func(t *testing.T) {
		err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
			if err := tx.Put(ctx, fact("v2", "user.job", 5, "I also teach at night")); err != nil {
				return err
			}
			return tx.Link(ctx, "v2", store.LinkCoexistsWith, "v1")
		})
		if err != nil {
			t.Fatal(err)
		}
		mustCheck(t, e.s, "alice")
	})
}

// testSetSlot: a record moves into another version group, whose check then covers it;
// a move that breaks a group's invariant is refused; an absent record is ErrNotFound.
func testSetSlot(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", fact("a", "user.city", 0, "I live in Paris"), store.Record{ID: "b", Content: "I work in Lyon now"})
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.SetSlot(ctx, "b", "user.job", true) }); err != nil {
		t.Fatal(err)
	}
	if b := get(t, e.s, "alice", "b"); b.Slot != "user.job" || !b.SingleValued || b.Content != "I work in Lyon now" {
		t.Errorf("moved record: slot %q single %v content %q", b.Slot, b.SingleValued, b.Content)
	}
	if g, err := e.s.VersionGroup(ctx, "alice", "user.job"); err != nil || len(g) != 1 || g[0].ID != "b" {
		t.Errorf("the new group: %v %v", g, err)
	}
	// Two active versions of one single-valued slot: refused, nothing written.
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.SetSlot(ctx, "b", "user.city", true) })
	var ve *store.ViolationError
	if !errors.As(err, &ve) {
		t.Errorf("a move into an active single-valued group: %v, want a violation", err)
	}
	if b := get(t, e.s, "alice", "b"); b.Slot != "user.job" {
		t.Errorf("a refused move left slot %q", b.Slot)
	}
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.SetSlot(ctx, "nope", "user.job", true) }); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an absent record: %v", err)
	}
	// The checks of Put: a single-valued record has a slot, a slot is UTF-8.
	for _, slot := range []string{"", "user.\xff"} {
		if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.SetSlot(ctx, "b", slot, true) }); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("a move into single-valued slot %q: %v, want ErrInvalid", slot, err)
		}
	}
	mustCheck(t, e.s, "alice")
}

func testLateOlderVersion(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", fact("v2", "user.city", 10, "I live in Berlin"))
	// A backfilled older statement arrives later; the commit path missed v2 and wrote the
	// old one as current. Reconcile settles the group by time: v2 stays current.
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("v1", "user.city", 0, "I live in Paris")); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.city")
	})
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := get(t, e.s, "alice", "v1"), get(t, e.s, "alice", "v2")
	if v2.Status != store.StatusActive || v1.Status != store.StatusSuperseded {
		t.Errorf("statuses v1=%s v2=%s, want superseded active", v1.Status, v2.Status)
	}
	if !v1.HasLink(store.LinkSupersededBy, "v2") || !v1.ValidUntil.Equal(at(10)) {
		t.Errorf("v1 links %v valid_until %v", v1.Links, v1.ValidUntil)
	}
	// A version between the two: superseded by the newer one, the oldest keeps its link.
	err = e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("v15", "user.city", 5, "I live in Lyon")); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.city")
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := get(t, e.s, "alice", "v15"); r.Status != store.StatusSuperseded || !r.HasLink(store.LinkSupersededBy, "v2") {
		t.Errorf("middle version: %s %v", r.Status, r.Links)
	}
	mustCheck(t, e.s, "alice")
	// Reconcile is idempotent.
	before, _ := e.s.VersionGroup(ctx, "alice", "user.city")
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return store.Reconcile(ctx, tx, "user.city") }); err != nil {
		t.Fatal(err)
	}
	after, _ := e.s.VersionGroup(ctx, "alice", "user.city")
	if d := cmp.Diff(before, after, cmpRecord); d != "" {
		t.Errorf("second Reconcile changed the group (-before +after):\n%s", d)
	}
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return store.Reconcile(ctx, tx, "") }); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Reconcile of empty slot: %v", err)
	}
}

func testRetraction(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", fact("v1", "user.diet", 0, "I am vegetarian"))
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("v2", "user.diet", 3, "I am vegan")); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.diet")
	})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(48 * time.Hour)
	// "I never said I was vegan": v2 is retracted, v1 holds again.
	err = e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		v2, err := tx.Get(ctx, "v2")
		if err != nil {
			return err
		}
		v2.Retracted = true
		if err := tx.Put(ctx, v2); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.diet")
	})
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := get(t, e.s, "alice", "v1"), get(t, e.s, "alice", "v2")
	if v1.Status != store.StatusActive || !v1.ValidUntil.IsZero() || len(v1.LinksOf(store.LinkSupersededBy)) != 0 {
		t.Errorf("v1 not reinstated: %s until %v links %v", v1.Status, v1.ValidUntil, v1.Links)
	}
	if v2.Status != store.StatusSuperseded || !v2.ValidUntil.Equal(T0.Add(48*time.Hour)) {
		t.Errorf("retracted v2: %s until %v", v2.Status, v2.ValidUntil)
	}
	mustCheck(t, e.s, "alice")
}

func testScopedException(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", fact("rule", "user.diet", 0, "I am vegetarian"))
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("exc", "user.diet", 2, "except fish on Fridays")); err != nil {
			return err
		}
		return tx.Link(ctx, "exc", store.LinkScopedException, "rule")
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"rule", "exc"} {
		if r := get(t, e.s, "alice", id); r.Status != store.StatusActive {
			t.Errorf("%s is %s, want active", id, r.Status)
		}
	}
	// A new rule supersedes both: neither is joined to the new active version.
	err = e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("vegan", "user.diet", 5, "I am vegan now")); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.diet")
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]store.Status{"rule": store.StatusSuperseded, "exc": store.StatusSuperseded, "vegan": store.StatusActive}
	for id, st := range want {
		if r := get(t, e.s, "alice", id); r.Status != st {
			t.Errorf("%s is %s, want %s", id, r.Status, st)
		}
	}
	mustCheck(t, e.s, "alice")
}

func testTransition(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", store.Record{ID: "py", Content: "I code in Python"}, store.Record{ID: "go", Content: "I code in Go"})
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, store.Record{ID: "mid", Content: "I am switching from Python to Go"}); err != nil {
			return err
		}
		return store.Evolve(ctx, tx, "py", "mid", "go")
	})
	if err != nil {
		t.Fatal(err)
	}
	mid, py, gor := get(t, e.s, "alice", "mid"), get(t, e.s, "alice", "py"), get(t, e.s, "alice", "go")
	if mid.Status != store.StatusTransition || !mid.HasLink(store.LinkEvolvesFrom, "py") || !mid.HasLink(store.LinkEvolvesTo, "go") {
		t.Errorf("transition: %s %v", mid.Status, mid.Links)
	}
	if !py.HasLink(store.LinkEvolvesTo, "mid") || !gor.HasLink(store.LinkEvolvesFrom, "mid") {
		t.Errorf("reciprocals: py %v go %v", py.Links, gor.Links)
	}
	mustCheck(t, e.s, "alice")
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return store.Evolve(ctx, tx, "py", "py", "go") }); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("degenerate evolve: %v", err)
	}
	// Deleting the new state leaves a transition to nowhere: Delete reconciles it.
	if err := e.s.Delete(ctx, "alice", "go"); err != nil {
		t.Fatal(err)
	}
	if mid := get(t, e.s, "alice", "mid"); mid.Status == store.StatusTransition || mid.HasLink(store.LinkEvolvesTo, "go") {
		t.Errorf("after deleting the new state: %s %v", mid.Status, mid.Links)
	}
	mustCheck(t, e.s, "alice")
}

func testDelete(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", fact("v1", "user.city", 0, "I live in Paris"))
	err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, fact("v2", "user.city", 5, "I live in Rome")); err != nil {
			return err
		}
		return store.Reconcile(ctx, tx, "user.city")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.Delete(ctx, "alice", "v2"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Get(ctx, "alice", "v2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted record: %v", err)
	}
	v1 := get(t, e.s, "alice", "v1")
	if len(v1.Links) != 0 || v1.Status != store.StatusActive || !v1.ValidUntil.IsZero() {
		t.Errorf("after deleting the newest version, v1: %s %v until %v", v1.Status, v1.Links, v1.ValidUntil)
	}
	if page, _, err := e.s.List(ctx, "alice", store.Filter{}); err != nil || len(page) != 1 || page[0].ID != "v1" {
		t.Errorf("deleted record still listed: %v %v", page, err)
	}
	if g, _ := e.s.VersionGroup(ctx, "alice", "user.city"); len(g) != 1 {
		t.Errorf("deleted record still in its version group: %v", g)
	}
	if err := e.s.Delete(ctx, "alice", "v2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	mustCheck(t, e.s, "alice")
}

func testDeleteUser(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "bob", store.Record{ID: "b1", Content: "bob's cat"})
	put(t, e.s, "alice", store.Record{ID: "a1", Content: "alice's cat"}, store.Record{ID: "a2", Content: "alice's dog"})
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.Link(ctx, "a1", store.LinkCoexistsWith, "a2") }); err != nil {
		t.Fatal(err)
	}
	users, err := e.s.Users(ctx)
	if err != nil || !slices.Equal(users, []string{"alice", "bob"}) {
		t.Fatalf("Users = %v, %v", users, err)
	}
	if err := e.s.DeleteUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.DeleteUser(ctx, "nobody"); err != nil {
		t.Errorf("deleting an unknown user: %v", err)
	}
	if users, _ := e.s.Users(ctx); !slices.Equal(users, []string{"bob"}) {
		t.Errorf("Users after DeleteUser = %v", users)
	}
	if page, _, _ := e.s.List(ctx, "alice", store.Filter{}); len(page) != 0 {
		t.Errorf("alice still has %d records", len(page))
	}
	if _, err := e.s.Get(ctx, "alice", "a1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("alice's record after DeleteUser: %v", err)
	}
	if page, _, err := e.s.List(ctx, "bob", store.Filter{}); err != nil || len(page) != 1 || page[0].Content != "bob's cat" {
		t.Errorf("bob's records after deleting alice: %v %v", page, err)
	}
	// The namespace is usable again, with the same ids.
	put(t, e.s, "alice", store.Record{ID: "a1", Content: "fresh"})
	if r := get(t, e.s, "alice", "a1"); r.Content != "fresh" || len(r.Links) != 0 {
		t.Errorf("recreated record: %+v", r)
	}
}

func testGetMany(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice",
		store.Record{ID: "a", Content: "I live in Paris", Embeddings: store.Embeddings{Backbone: []float32{1, 0}}},
		store.Record{ID: "b", Content: "I live in Rome"},
		store.Record{ID: "c", Content: "I have a cat"})
	if err := e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.Link(ctx, "b", store.LinkCoexistsWith, "c") }); err != nil {
		t.Fatal(err)
	}
	put(t, e.s, "bob", store.Record{ID: "z", Content: "bob's"})
	tests := []struct {
		name string
		ids  []string
		want []string
	}{
		{"order of ids", []string{"c", "a", "b"}, []string{"c", "a", "b"}},
		{"repeats once", []string{"b", "a", "b", "a"}, []string{"b", "a"}},
		{"missing left out", []string{"nope", "a", ""}, []string{"a"}},
		{"other user's id left out", []string{"z", "c"}, []string{"c"}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.s.GetMany(ctx, "alice", tt.ids)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
				// Each as Get returns it: links and embeddings included.
				if d := cmp.Diff(get(t, e.s, "alice", r.ID), r, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s differs from Get (-get +many):\n%s", r.ID, d)
				}
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("ids %v, want %v", ids, tt.want)
			}
		})
	}
	if _, err := e.s.GetMany(ctx, "", []string{"a"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("empty user: %v, want ErrInvalid", err)
	}
}

func testIsolation(t *testing.T, e env) {
	ctx := t.Context()
	put(t, e.s, "alice", store.Record{ID: "same", Content: "alice owns a red bicycle", Slot: "s"}, store.Record{ID: "a-only", Content: "alice"})
	put(t, e.s, "bob", store.Record{ID: "same", Content: "bob owns a blue car", Slot: "s"}, store.Record{ID: "b-only", Content: "bob"})
	if r := get(t, e.s, "alice", "same"); r.User != "alice" || r.Content != "alice owns a red bicycle" {
		t.Errorf("alice's record: %+v", r)
	}
	checks := []struct {
		name string
		fn   func() error
	}{
		{"get other's id", func() error { _, err := e.s.Get(ctx, "alice", "b-only"); return want(err, store.ErrNotFound) }},
		{"link to other's id", func() error {
			return want(e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.Link(ctx, "a-only", store.LinkCoexistsWith, "b-only") }), store.ErrNotFound)
		}},
		{"tx get other's id", func() error {
			return want(e.s.Tx(ctx, "alice", func(tx store.Tx) error { _, err := tx.Get(ctx, "b-only"); return err }), store.ErrNotFound)
		}},
		{"delete other's id", func() error { return want(e.s.Delete(ctx, "alice", "b-only"), store.ErrNotFound) }},
		{"put as other user", func() error {
			return want(e.s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.Put(ctx, store.Record{ID: "x", User: "bob", Content: "x"}) }), store.ErrInvalid)
		}},
		{"list", func() error {
			page, _, err := e.s.List(ctx, "alice", store.Filter{})
			if err != nil {
				return err
			}
			for _, r := range page {
				if r.User != "alice" {
					return fmt.Errorf("listed %s/%s", r.User, r.ID)
				}
			}
			if len(page) != 2 {
				return fmt.Errorf("listed %d records, want 2", len(page))
			}
			return nil
		}},
		{"version group", func() error {
			g, err := e.s.VersionGroup(ctx, "bob", "s")
			if err != nil {
				return err
			}
			if len(g) != 1 || g[0].User != "bob" {
				return fmt.Errorf("bob's group: %v", g)
			}
			return nil
		}},
		{"get many", func() error {
			rs, err := e.s.GetMany(ctx, "alice", []string{"b-only", "same"})
			if err != nil {
				return err
			}
			if len(rs) != 1 || rs[0].User != "alice" || rs[0].Content != "alice owns a red bicycle" {
				return fmt.Errorf("alice's GetMany: %v", rs)
			}
			return nil
		}},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if err := c.fn(); err != nil {
				t.Error(err)
			}
		})
	}
	// Changing alice's "same" leaves bob's alone.
	put(t, e.s, "alice", store.Record{ID: "same", Content: "changed", Slot: "s"})
	if err := e.s.Delete(ctx, "alice", "a-only"); err != nil {
		t.Fatal(err)
	}
	if r := get(t, e.s, "bob", "same"); r.Content != "bob owns a blue car" {
		t.Errorf("bob's record changed: %+v", r)
	}
	get(t, e.s, "bob", "b-only")
}

func want(err, target error) error {
	if !errors.Is(err, target) {
		return fmt.Errorf("err = %v, want %v", err, target)
	}
	return nil
}

// snapshot is every record of user, for before/after comparisons.
func snapshot(t *testing.T, s store.Store, user string) []store.Record {
	t.Helper()
	page, _, err := s.List(t.Context(), user, store.Filter{Limit: store.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// seedForRollback writes a small linked bank and returns a transaction body that changes
// every part of it before failing with fail.
func seedForRollback(t *testing.T, e env, fail func() error) func(tx store.Tx) error {
	put(t, e.s, "alice", fact("v1", "user.city", 0, "I live in Paris"), store.Record{ID: "note", Content: "likes jazz"})
	ctx := t.Context()
	return func(tx store.Tx) error {
		steps := []error{
			tx.Put(ctx, fact("v2", "user.city", 5, "I live in Oslo")),
			store.Reconcile(ctx, tx, "user.city"),
			tx.Put(ctx, store.Record{ID: "note", Content: "likes techno"}),
			tx.Delete(ctx, "note"),
			tx.Put(ctx, store.Record{ID: "extra", Content: "extra record"}),
		}
		if err := errors.Join(steps...); err != nil {
			return fmt.Errorf("setup step failed: %w", err)
		}
		if _, err := tx.Get(ctx, "v2"); err != nil {
			return fmt.Errorf("tx does not see its own write: %w", err)
		}
		return fail()
	}
}

func assertUntouched(t *testing.T, e env, before []store.Record) {
	t.Helper()
	if d := cmp.Diff(before, snapshot(t, e.s, "alice"), cmpRecord); d != "" {
		t.Errorf("failed transaction changed the bank (-before +after):\n%s", d)
	}
	mustCheck(t, e.s, "alice")
}

var errBoom = errors.New("boom")

func testRollbackOnError(t *testing.T, e env) {
	fn := seedForRollback(t, e, func() error { return errBoom })
	before := snapshot(t, e.s, "alice")
	if err := e.s.Tx(t.Context(), "alice", fn); !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want the function's own error", err)
	}
	assertUntouched(t, e, before)
}

func testRollbackOnPanic(t *testing.T, e env) {
	fn := seedForRollback(t, e, func() error { panic("crash mid-commit") })
	before := snapshot(t, e.s, "alice")
	func() {
		defer func() {
			if r := recover(); r != "crash mid-commit" {
				t.Errorf("recovered %v, want the panic re-raised", r)
			}
		}()
		_ = e.s.Tx(t.Context(), "alice", fn)
	}()
	assertUntouched(t, e, before)
	// The user's lock was released: a later transaction goes through.
	put(t, e.s, "alice", store.Record{ID: "after", Content: "after the panic"})
}

func testRollbackOnCancel(t *testing.T, e env) {
	ctx, cancel := context.WithCancel(t.Context())
	fn := seedForRollback(t, e, func() error { cancel(); return nil })
	before := snapshot(t, e.s, "alice")
	if err := e.s.Tx(ctx, "alice", fn); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	assertUntouched(t, e, before)
}

func testTxUseAfterEnd(t *testing.T, e env) {
	var leaked store.Tx
	if err := e.s.Tx(t.Context(), "alice", func(tx store.Tx) error { leaked = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := leaked.Put(t.Context(), store.Record{ID: "late", Content: "x"}); err == nil {
		t.Error("Put on a finished transaction succeeded")
	}
	if _, err := e.s.Get(t.Context(), "alice", "late"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("late write visible: %v", err)
	}
}

// testConcurrentWriters runs read-modify-write increments from many goroutines, on one
// user and on several: a lost write shows as a short count.
func testConcurrentWriters(t *testing.T, e env) {
	ctx := t.Context()
	const workers, rounds = 8, 25
	users := []string{"alice", "bob"}
	for _, u := range users {
		put(t, e.s, u, store.Record{ID: "counter", Content: "0"})
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*len(users))
	for _, u := range users {
		for w := range workers {
			wg.Go(func() {
				for i := range rounds {
					err := e.s.Tx(ctx, u, func(tx store.Tx) error {
						r, err := tx.Get(ctx, "counter")
						if err != nil {
							return err
						}
						n, err := strconv.Atoi(r.Content)
						if err != nil {
							return err
						}
						r.Content = strconv.Itoa(n + 1)
						if err := tx.Put(ctx, r); err != nil {
							return err
						}
						return tx.Put(ctx, store.Record{ID: fmt.Sprintf("w%d-%d", w, i), Content: "entry"})
					})
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("writer: %v", err)
	}
	for _, u := range users {
		if r := get(t, e.s, u, "counter"); r.Content != strconv.Itoa(workers*rounds) {
			t.Errorf("%s: counter = %s, want %d (lost writes)", u, r.Content, workers*rounds)
		}
		n := 0
		f := store.Filter{Limit: store.MaxListLimit}
		page, _, err := e.s.List(ctx, u, f)
		if err != nil {
			t.Fatal(err)
		}
		n = len(page)
		if n != workers*rounds+1 {
			t.Errorf("%s: %d records, want %d", u, n, workers*rounds+1)
		}
	}
}

func testCheckClean(t *testing.T, e env) {
	ctx := t.Context()
	for i := range 30 {
		err := e.s.Tx(ctx, "alice", func(tx store.Tx) error {
			id := fmt.Sprintf("v%02d", i)
			if err := tx.Put(ctx, fact(id, "user.mood", i, "mood "+id)); err != nil {
				return err
			}
			return store.Reconcile(ctx, tx, "user.mood")
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	vs, err := store.Check(ctx, e.s, "alice")
	if err != nil || len(vs) != 0 {
		t.Fatalf("Check = %v, %v", vs, err)
	}
	active, _, _ := e.s.List(ctx, "alice", store.Filter{Status: store.StatusActive})
	if len(active) != 1 || active[0].ID != "v29" {
		t.Errorf("active: %v", active)
	}
	if _, err := store.Check(ctx, e.s, ""); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Check of empty user: %v", err)
	}
}
