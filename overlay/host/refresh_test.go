package host_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// TestIndexRefreshesIncrementally has one handle write (adds, replacements, vectors
// dropped, deletions, re-adds, a DeleteUser) while another searches after each write:
// the searcher's index, brought up to date with only what changed since it was read,
// must answer as an index read whole does, and it must have been read whole only at the
// start and after the DeleteUser (whose memories leave no tombstones). The ANN variant
// searches through the HNSW graph from 4 vectors (dropped below 2), so the refresh
// crosses the threshold both ways and leaves tombstones in the graph; its answers must
// also be brute force's (at a dozen memories the graph's beam holds them all).
func TestIndexRefreshesIncrementally(t *testing.T) {
	ann := host.ANNConfig{Threshold: 4, M: 2, EfConstruction: 4}
	for _, tc := range []struct {
		name string
		ann  host.ANNConfig
	}{{"BruteForce", host.ANNConfig{}}, {"ANN", ann}} {
		t.Run("SQLite/"+tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "atma.db")
			testIndexRefreshes(t, func(ann host.ANNConfig) (*host.SQL, error) {
				return host.OpenSQLite(t.Context(), path, host.Config{ANN: ann})
			}, tc.ann)
		})
		t.Run("Postgres/"+tc.name, func(t *testing.T) {
			url := pgtest.URL(t)
			testIndexRefreshes(t, func(ann host.ANNConfig) (*host.SQL, error) {
				return host.OpenPostgres(t.Context(), url, host.Config{ANN: ann})
			}, tc.ann)
		})
	}
}

func testIndexRefreshes(t *testing.T, open func(host.ANNConfig) (*host.SQL, error), ann host.ANNConfig) {
	ctx := t.Context()
	handleWith := func(ann host.ANNConfig) *host.SQL {
		t.Helper()
		h, err := open(ann)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	handle := func() *host.SQL { return handleWith(ann) }
	writer, searcher := handle(), handle()
	rng := rand.New(rand.NewPCG(7, 8))
	vec := func() []float32 {
		return unit(float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	memory := func(i int) host.Memory {
		m := host.Memory{ID: fmt.Sprintf("m%02d", i), Content: fmt.Sprintf("note %d about topic%d", rng.IntN(1000), rng.IntN(4)), Vector: vec()}
		if rng.IntN(5) == 0 {
			m.Vector = nil
		}
		return m
	}
	search := func(h *host.SQL) []host.Hit {
		t.Helper()
		hits, err := h.Search(ctx, "alice", "note topic0 topic1 topic2 topic3", unit(1, 1, 1), 200)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	add(t, writer, "alice", memory(0), memory(1))
	search(searcher) // the searcher reads the index whole, once
	writes := 0      // steps that wrote (a delete of an absent id does not)
	for step := range 40 {
		switch op := rng.IntN(10); {
		case step == 25:
			if err := writer.DeleteUser(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			add(t, writer, "alice", memory(0))
		case op < 5: // add or replace a few
			batch := []host.Memory{memory(rng.IntN(12)), memory(rng.IntN(12))}
			if err := writer.AddBatch(ctx, "alice", batch); err != nil {
				t.Fatal(err)
			}
			writes++
		default: // delete one, if there
			err := writer.Delete(ctx, "alice", fmt.Sprintf("m%02d", rng.IntN(12)))
			switch {
			case err == nil:
				writes++
			case !errors.Is(err, host.ErrNotFound):
				t.Fatal(err)
			}
		}
		got := search(searcher)
		want := search(handle()) // a new handle reads the index whole
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d: the refreshed index answers differently (-whole +refreshed):\n%s", step, diff)
		}
		exact := search(handleWith(host.ANNConfig{Threshold: -1}))
		if diff := cmp.Diff(exact, got, cmpopts.EquateApprox(0, 1e-6), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("step %d: the refreshed index answers differently from brute force (-exact +refreshed):\n%s", step, diff)
		}
	}
	whole, incremental := searcher.IndexReads()
	if whole != 2 || incremental != int64(writes) {
		t.Errorf("the searcher read its index whole %d times and incrementally %d times; want 2 (start, DeleteUser) and %d (every other write)", whole, incremental, writes)
	}
}

// TestSQLiteChangeLogUpgrade opens a host file written before the change log
// (migration 3): its memories keep generation 0, and a second handle's index of them
// follows a later write incrementally.
func TestSQLiteChangeLogUpgrade(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "atma.db")
	db, err := sqlitedb.Open(ctx, path, sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := host.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlitedb.Migrate(ctx, db, host.Component, ms[:2]); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO host_memories (user, id, content, time_ns, meta) VALUES ('alice', 'old', 'an old note', 1, '{}')`,
		`INSERT INTO host_users (user, gen) VALUES ('alice', 5)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	var hs [2]*host.SQL
	for i := range hs {
		if hs[i], err = host.OpenSQLite(ctx, path, host.Config{}); err != nil {
			t.Fatal(err)
		}
		defer hs[i].Close()
	}
	if hits, err := hs[1].Search(ctx, "alice", "note", nil, 5); err != nil || !slices.Equal(ids(hits), []string{"old"}) {
		t.Fatalf("after the upgrade: %v %v", ids(hits), err)
	}
	add(t, hs[0], "alice", host.Memory{ID: "new", Content: "a new note"})
	if hits, err := hs[1].Search(ctx, "alice", "note", nil, 5); err != nil || len(hits) != 2 {
		t.Errorf("after another handle's write: %v %v", ids(hits), err)
	}
	if whole, incremental := hs[1].IndexReads(); whole != 1 || incremental != 1 {
		t.Errorf("read whole %d, incrementally %d; want 1 and 1", whole, incremental)
	}
}
