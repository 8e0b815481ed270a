package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/store"
)

// fakeReader serves fixed records, as a damaged or foreign bank might.
type fakeReader struct {
	recs    []store.Record
	listErr error
}

func (f fakeReader) Get(_ context.Context, user, id string) (store.Record, error) {
	for _, r := range f.recs {
		if r.ID == id && r.User == user {
			return r, nil
		}
	}
	return store.Record{}, fmt.Errorf("get %s: %w", id, store.ErrNotFound)
}

func (f fakeReader) GetMany(ctx context.Context, user string, ids []string) ([]store.Record, error) {
	var out []store.Record
	for _, id := range ids {
		if r, err := f.Get(ctx, user, id); err == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f fakeReader) List(_ context.Context, _ string, fl store.Filter) ([]store.Record, string, error) {
	if f.listErr != nil {
		return nil, "", f.listErr
	}
	// Two records a page, to exercise Check's paging.
	var out []store.Record
	for _, r := range f.recs {
		if r.ID > fl.Cursor {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b store.Record) int { return strings.Compare(a.ID, b.ID) })
	if len(out) > 2 {
		return out[:2], out[1].ID, nil
	}
	return out, "", nil
}

func (f fakeReader) VersionGroup(context.Context, string, string) ([]store.Record, error) {
	return nil, errors.New("Check groups the records it listed")
}

func TestCheckKinds(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := func(id string, mods ...func(*store.Record)) store.Record {
		r := store.Record{ID: id, User: "alice", Content: id, Status: store.StatusActive, IngestTime: t0}
		for _, m := range mods {
			m(&r)
		}
		return r
	}
	links := func(ls ...store.Link) func(*store.Record) { return func(r *store.Record) { r.Links = ls } }
	status := func(s store.Status) func(*store.Record) { return func(r *store.Record) { r.Status = s } }
	slot := func(s string, single bool, day int) func(*store.Record) {
		return func(r *store.Record) { r.Slot, r.SingleValued, r.EventTime = s, single, t0.AddDate(0, 0, day) }
	}
	until := func(r *store.Record) { r.ValidUntil = t0 }
	value := func(v string) func(*store.Record) {
		return func(r *store.Record) { r.Meta = map[string]string{store.MetaValue: v} }
	}
	tests := []struct {
		name string
		recs []store.Record
		want map[store.ViolationKind]string // kind → record at fault
	}{
		{"clean", []store.Record{
			rec("a", links(store.Link{store.LinkCoexistsWith, "b"})),
			rec("b", links(store.Link{store.LinkCoexistsWith, "a"})),
		}, nil},
		{"foreign record", []store.Record{rec("a", func(r *store.Record) { r.User = "bob" })}, map[store.ViolationKind]string{store.KindForeignRecord: "a"}},
		{"unknown link type", []store.Record{rec("a", links(store.Link{"likes", "b"})), rec("b")}, map[store.ViolationKind]string{store.KindInvalidLink: "a"}},
		{"self link", []store.Record{rec("a", links(store.Link{store.LinkCoexistsWith, "a"}))}, map[store.ViolationKind]string{store.KindInvalidLink: "a"}},
		{"dangling link", []store.Record{rec("a", links(store.Link{store.LinkCoexistsWith, "gone"}))}, map[store.ViolationKind]string{store.KindDanglingLink: "a"}},
		{"missing reciprocal", []store.Record{
			rec("new", links(store.Link{store.LinkSupersedes, "old"})),
			rec("old", status(store.StatusSuperseded), until),
		}, map[store.ViolationKind]string{store.KindMissingReciprocal: "new", store.KindStaleStatus: "old"}},
		{"superseded without valid_until", []store.Record{
			rec("new", links(store.Link{store.LinkSupersedes, "old"})),
			rec("old", status(store.StatusSuperseded), links(store.Link{store.LinkSupersededBy, "new"})),
		}, map[store.ViolationKind]string{store.KindNoValidUntil: "old"}},
		{"superseded_by but active", []store.Record{
			rec("new", links(store.Link{store.LinkSupersedes, "old"})),
			rec("old", links(store.Link{store.LinkSupersededBy, "new"})),
		}, map[store.ViolationKind]string{store.KindNotSuperseded: "old", store.KindStaleStatus: "old"}},
		{"transition missing a state", []store.Record{
			rec("t", status(store.StatusTransition), links(store.Link{store.LinkEvolvesFrom, "old"})),
			rec("old", links(store.Link{store.LinkEvolvesTo, "t"})),
		}, map[store.ViolationKind]string{store.KindTransitionLinks: "t", store.KindStaleStatus: "t"}},
		{"two active in single-valued slot", []store.Record{
			rec("v1", slot("city", true, 1)), rec("v2", slot("city", true, 2)),
		}, map[store.ViolationKind]string{store.KindMultipleActive: "v2", store.KindStaleStatus: "v1"}},
		{"one value stated twice is one state", []store.Record{
			rec("v1", slot("city", true, 1), value("porto")), rec("v2", slot("city", true, 2), value("porto")),
		}, nil},
		{"two values stated are two states", []store.Record{
			rec("v1", slot("city", true, 1), value("porto")), rec("v2", slot("city", true, 2), value("lisbon")),
		}, map[store.ViolationKind]string{store.KindMultipleActive: "v2", store.KindStaleStatus: "v1"}},
		{"older version current", []store.Record{
			rec("v1", slot("city", true, 1)), rec("v2", slot("city", true, 2), status(store.StatusSuperseded), until),
		}, map[store.ViolationKind]string{store.KindStaleStatus: "v2"}},
		{"mixed cardinality", []store.Record{
			rec("v1", slot("city", false, 1), status(store.StatusSuperseded), until), rec("v2", slot("city", true, 2)),
		}, map[store.ViolationKind]string{store.KindMixedCardinality: "v2"}},
		{"multi-valued slot may have many", []store.Record{
			rec("p1", slot("pets", false, 1)), rec("p2", slot("pets", false, 2)), rec("p3", slot("pets", false, 3)),
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := store.Check(t.Context(), fakeReader{recs: tt.recs}, "alice")
			if err != nil {
				t.Fatal(err)
			}
			got := map[store.ViolationKind]string{}
			for _, v := range vs {
				if v.User != "alice" || v.String() == "" {
					t.Errorf("malformed violation %+v", v)
				}
				got[v.Kind] = v.ID
			}
			if len(got) != len(tt.want) {
				t.Errorf("violations %v, want kinds %v", vs, tt.want)
			}
			for k, id := range tt.want {
				if got[k] != id {
					t.Errorf("%s on %q, want on %q (all: %v)", k, got[k], id, vs)
				}
			}
		})
	}
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("disk gone")
		if _, err := store.Check(t.Context(), fakeReader{listErr: boom}, "alice"); !errors.Is(err, boom) {
			t.Errorf("err = %v, want the list error", err)
		}
	})
}

func TestViolationError(t *testing.T) {
	err := error(&store.ViolationError{Violations: []store.Violation{{Kind: store.KindMultipleActive, User: "u", ID: "x", Slot: "s", Detail: "two"}}})
	if !errors.Is(err, store.ErrConflict) {
		t.Error("ViolationError does not match ErrConflict")
	}
	if msg := err.Error(); !strings.Contains(msg, "multiple-active") || !strings.Contains(msg, `slot "s"`) {
		t.Errorf("message %q", msg)
	}
}
