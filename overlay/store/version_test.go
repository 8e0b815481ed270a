package store_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/overlay/store"
)

func TestDeriveStatuses(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	v := func(id string, day int, single bool, mods ...func(*store.Record)) store.Record {
		r := store.Record{ID: id, Slot: "s", SingleValued: single, EventTime: t0.AddDate(0, 0, day), IngestTime: t0, Status: store.StatusActive}
		for _, m := range mods {
			m(&r)
		}
		return r
	}
	link := func(t store.LinkType, to string) func(*store.Record) {
		return func(r *store.Record) { r.Links = append(r.Links, store.Link{Type: t, To: to}) }
	}
	value := func(v string) func(*store.Record) {
		return func(r *store.Record) { r.Meta = map[string]string{store.MetaValue: v} }
	}
	retracted := func(r *store.Record) { r.Retracted = true }
	unknown := func(r *store.Record) { r.Status = store.StatusUnknown }
	transition := func(r *store.Record) { r.Status = store.StatusTransition }
	const (
		A = store.StatusActive
		S = store.StatusSuperseded
		T = store.StatusTransition
		U = store.StatusUnknown
	)
	tests := []struct {
		name  string
		group []store.Record
		want  map[string]store.Status
	}{
		{"empty", nil, map[string]store.Status{}},
		{"newest wins", []store.Record{v("b", 2, true), v("a", 1, true), v("c", 3, true)}, map[string]store.Status{"a": S, "b": S, "c": A}},
		{"newest wins over stale links", []store.Record{
			v("old", 1, true, link(store.LinkSupersedes, "new")),
			v("new", 2, true, link(store.LinkSupersededBy, "old")),
		}, map[string]store.Status{"old": S, "new": A}},
		{"retracted newest gives way", []store.Record{v("a", 1, true), v("b", 2, true, retracted)}, map[string]store.Status{"a": A, "b": S}},
		{"all retracted", []store.Record{v("a", 1, true, retracted)}, map[string]store.Status{"a": S}},
		{"coexists keeps both", []store.Record{
			v("a", 1, true, link(store.LinkCoexistsWith, "b")), v("b", 2, true, link(store.LinkCoexistsWith, "a")), v("z", 0, true),
		}, map[string]store.Status{"a": A, "b": A, "z": S}},
		{"scoped exception chain", []store.Record{
			v("rule", 1, true, link(store.LinkScopedException, "exc")),
			v("exc", 3, true, link(store.LinkScopedException, "rule"), link(store.LinkScopedException, "exc2")),
			v("exc2", 2, true, link(store.LinkScopedException, "exc")),
		}, map[string]store.Status{"rule": A, "exc": A, "exc2": A}},
		{"a link does not bring back a replaced version", []store.Record{
			v("old", 2, true, link(store.LinkSupersededBy, "new"), link(store.LinkScopedException, "exc")),
			v("exc", 1, true, link(store.LinkScopedException, "old"), link(store.LinkScopedException, "new")),
			v("new", 3, true, link(store.LinkSupersedes, "old"), link(store.LinkScopedException, "exc")),
		}, map[string]store.Status{"old": S, "exc": A, "new": A}},
		{"unknown newest keeps the old one current", []store.Record{v("a", 1, true), v("b", 2, true, unknown)}, map[string]store.Status{"a": A, "b": U}},
		{"transition", []store.Record{
			v("t", 2, true, transition, link(store.LinkEvolvesFrom, "x"), link(store.LinkEvolvesTo, "y")), v("a", 1, true),
		}, map[string]store.Status{"t": T, "a": A}},
		{"a state in a chain of changes is no transition", []store.Record{
			v("berlin", 1, true, link(store.LinkEvolvesTo, "t1"), link(store.LinkSupersededBy, "hamburg")),
			v("hamburg", 2, true, link(store.LinkEvolvesFrom, "t1"), link(store.LinkEvolvesTo, "t2"), link(store.LinkSupersededBy, "lisbon")),
			v("lisbon", 3, true, link(store.LinkEvolvesFrom, "t2")),
		}, map[string]store.Status{"berlin": S, "hamburg": S, "lisbon": A}},
		{"superseded from outside the slot", []store.Record{v("a", 1, true), v("b", 2, true, link(store.LinkSupersededBy, "elsewhere"))}, map[string]store.Status{"a": A, "b": S}},
		{"multi-valued: all active", []store.Record{v("a", 1, false), v("b", 2, false)}, map[string]store.Status{"a": A, "b": A}},
		{"multi-valued: explicit supersession", []store.Record{v("a", 1, false, link(store.LinkSupersededBy, "b")), v("b", 2, false)}, map[string]store.Status{"a": S, "b": A}},
		{"one single-valued member makes the slot single", []store.Record{v("a", 1, false), v("b", 2, true)}, map[string]store.Status{"a": S, "b": A}},
		{"a restatement keeps what it restates current", []store.Record{v("a", 1, true, value("40")), v("b", 2, true, value("40"))},
			map[string]store.Status{"a": A, "b": A}},
		{"only the restatements after the last other value", []store.Record{
			v("a", 1, true, value("40")), v("b", 2, true, value("14")), v("c", 3, true, value("40")), v("d", 4, true, value("40")),
		}, map[string]store.Status{"a": S, "b": S, "c": A, "d": A}},
		{"a denial states no value", []store.Record{v("a", 1, true, value("miso")), v("b", 2, true)}, map[string]store.Status{"a": S, "b": A}},
		{"a statement of no value between breaks the run", []store.Record{
			v("a", 1, true, value("porto")), v("b", 2, true), v("c", 3, true, value("porto")),
		}, map[string]store.Status{"a": S, "b": S, "c": A}},
		{"a restatement does not bring back a replaced version", []store.Record{
			v("a", 1, true, value("40"), link(store.LinkSupersededBy, "b")), v("b", 2, true, value("40"), link(store.LinkSupersedes, "a")),
		}, map[string]store.Status{"a": S, "b": A}},
		{"restated late: the newer value stays current", []store.Record{
			v("a", 1, true, value("lisbon")), v("b", 3, true, value("porto")), v("c", 2, true, value("lisbon")),
		}, map[string]store.Status{"a": S, "b": A, "c": S}},
		{"ingest time stands in for event time", []store.Record{
			v("a", 5, true),
			{ID: "b", Slot: "s", SingleValued: true, IngestTime: t0.AddDate(0, 0, 9), Status: A},
		}, map[string]store.Status{"a": S, "b": A}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, store.DeriveStatuses(tt.group)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestLinkTypes(t *testing.T) {
	for _, lt := range store.LinkTypes {
		if !lt.Valid() || lt.Reciprocal().Reciprocal() != lt {
			t.Errorf("%s: reciprocal %s is not an involution", lt, lt.Reciprocal())
		}
	}
	if store.LinkType("likes").Valid() || store.LinkType("").Valid() {
		t.Error("unknown link types are valid")
	}
	if store.LinkSupersedes.Reciprocal() != store.LinkSupersededBy || store.LinkEvolvesFrom.Reciprocal() != store.LinkEvolvesTo {
		t.Error("wrong reciprocals")
	}
}

func TestNewID(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := store.NewID(t0), store.NewID(t0.Add(time.Millisecond))
	if len(a) != 32 || a >= b {
		t.Errorf("ids %s, %s: want 32 hex digits sorting by time", a, b)
	}
	if store.NewID(t0) == store.NewID(t0) {
		t.Error("two ids in the same millisecond are equal")
	}
	if !bytes.Equal([]byte(a[:12]), []byte(store.NewID(t0)[:12])) {
		t.Error("time prefix differs within one millisecond")
	}
	// Within one millisecond, ids sort in the order they were made: rankings that fall
	// back on ids give the same order in every run.
	prev := store.NewID(t0)
	for i := range 1000 {
		id := store.NewID(t0)
		if id <= prev {
			t.Fatalf("id %d of one millisecond %s sorts before the one made before it, %s", i, id, prev)
		}
		prev = id
	}
}
