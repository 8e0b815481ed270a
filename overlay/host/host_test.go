package host_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/fts"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// fullHost is what both built-in hosts offer beyond Host.
type fullHost interface {
	host.Host
	AddBatch(ctx context.Context, user string, ms []host.Memory) error
	Get(ctx context.Context, user, id string) (host.Memory, error)
	DeleteUser(ctx context.Context, user string) error
	Len(ctx context.Context, user string) (int, error)
	Users(ctx context.Context) ([]string, error)
}

var (
	_ fullHost = (*host.SQL)(nil)
	_ fullHost = (*host.InMemory)(nil)
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

type opener func(t *testing.T, cfg host.Config) fullHost

var impls = []struct {
	name string
	open opener
}{
	{"SQLite", func(t *testing.T, cfg host.Config) fullHost {
		h, err := host.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "atma.db"), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}},
	{"InMemory", func(t *testing.T, cfg host.Config) fullHost {
		h, err := host.NewInMemory(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}},
	{"Postgres", func(t *testing.T, cfg host.Config) fullHost {
		h, err := host.OpenPostgres(t.Context(), pgtest.URL(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}},
}

func forEach(t *testing.T, fn func(t *testing.T, h fullHost)) {
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			fn(t, impl.open(t, host.Config{Now: func() time.Time { return t0 }}))
		})
	}
}

func add(t *testing.T, h host.Host, user string, ms ...host.Memory) {
	t.Helper()
	for _, m := range ms {
		if err := h.Add(t.Context(), user, m); err != nil {
			t.Fatalf("add %s: %v", m.ID, err)
		}
	}
}

func ids(hits []host.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func unit(v ...float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(ss))
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		when := time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("x", -3600))
		add(t, h, "alice", host.Memory{ID: "m1", Content: "I live in Paris", Vector: []float32{3, 4}, Time: when, Meta: map[string]string{"turn": "4"}})
		add(t, h, "alice", host.Memory{ID: "m2", Content: "no vector, no time"})
		got, err := h.Get(t.Context(), "alice", "m1")
		if err != nil {
			t.Fatal(err)
		}
		want := host.Memory{ID: "m1", Content: "I live in Paris", Vector: []float32{0.6, 0.8}, Time: when.UTC(), Meta: map[string]string{"turn": "4"}}
		if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-6)); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
		m2, err := h.Get(t.Context(), "alice", "m2")
		if err != nil || !m2.Time.Equal(t0) || m2.Vector != nil || m2.Meta != nil {
			t.Errorf("defaults: %+v %v", m2, err)
		}
		if _, err := h.Get(t.Context(), "alice", "nope"); !errors.Is(err, host.ErrNotFound) {
			t.Errorf("missing: %v", err)
		}
		if n, err := h.Len(t.Context(), "alice"); err != nil || n != 2 {
			t.Errorf("Len = %d, %v", n, err)
		}
	})
}

func TestAddInvalid(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		add(t, h, "alice", host.Memory{ID: "base", Content: "x", Vector: []float32{1, 0, 0}})
		tests := []struct {
			name string
			user string
			ms   []host.Memory
		}{
			{"empty id", "alice", []host.Memory{{Content: "x"}}},
			{"control char id", "alice", []host.Memory{{ID: "a\tb", Content: "x"}}},
			{"empty content", "alice", []host.Memory{{ID: "a"}}},
			{"NaN vector", "alice", []host.Memory{{ID: "a", Content: "x", Vector: []float32{float32(math.NaN()), 1, 0}}}},
			{"zero vector", "alice", []host.Memory{{ID: "a", Content: "x", Vector: []float32{0, 0, 0}}}},
			{"dimension mismatch", "alice", []host.Memory{{ID: "a", Content: "x", Vector: []float32{1, 0}}}},
			{"mixed batch", "bob", []host.Memory{{ID: "a", Content: "x", Vector: []float32{1, 0}}, {ID: "b", Content: "x", Vector: []float32{1, 0, 0}}}},
			{"bad user", "", []host.Memory{{ID: "a", Content: "x"}}},
			{"one bad in a batch", "alice", []host.Memory{{ID: "ok", Content: "fine"}, {ID: "", Content: "x"}}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if err := h.AddBatch(t.Context(), tt.user, tt.ms); !errors.Is(err, host.ErrInvalid) {
					t.Errorf("err = %v, want ErrInvalid", err)
				}
			})
		}
		if n, _ := h.Len(t.Context(), "alice"); n != 1 {
			t.Errorf("refused adds left %d memories, want 1", n)
		}
		// Replacing the only vector may change the dimension.
		add(t, h, "alice", host.Memory{ID: "base", Content: "x", Vector: []float32{1, 0}})
		add(t, h, "alice", host.Memory{ID: "two", Content: "y", Vector: []float32{0, 1}})
		hits, err := h.Search(t.Context(), "alice", "", []float32{0, 1}, 5)
		if err != nil || !slices.Equal(ids(hits), []string{"two", "base"}) {
			t.Errorf("after dimension change: %v %v", ids(hits), err)
		}
	})
}

func TestSearch(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		ctx := t.Context()
		add(t, h, "alice",
			host.Memory{ID: "paris", Content: "I live in Paris near the river", Vector: unit(1, 0, 0)},
			host.Memory{ID: "berlin", Content: "I moved to Berlin for work", Vector: unit(0.8, 0.6, 0)},
			host.Memory{ID: "cat", Content: "my cat sleeps all day", Vector: unit(0, 0, 1)},
			host.Memory{ID: "textonly", Content: "where I live matters to me"},
		)
		t.Run("dense only", func(t *testing.T) {
			hits, err := h.Search(ctx, "alice", "", []float32{1, 0.1, 0}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(hits), []string{"paris", "berlin", "cat"}) {
				t.Fatalf("order %v", ids(hits))
			}
			q := unit(1, 0.1, 0)
			if want := float64(q[0]); math.Abs(hits[0].Cosine-want) > 1e-6 || hits[0].TextRank != 0 || hits[0].DenseRank != 1 {
				t.Errorf("top hit %+v, want cosine %v", hits[0], want)
			}
			if math.Abs(hits[0].Score-1.0/61) > 1e-12 {
				t.Errorf("RRF score %v, want 1/61", hits[0].Score)
			}
		})
		t.Run("text only", func(t *testing.T) {
			hits, err := h.Search(ctx, "alice", "where do we live?", nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(hits)
			if len(got) != 2 || !slices.Contains(got, "paris") || !slices.Contains(got, "textonly") {
				t.Fatalf("hits %v, want paris and textonly", got)
			}
			for i, hit := range hits {
				if hit.DenseRank != 0 || hit.TextRank != i+1 || hit.BM25 <= 0 {
					t.Errorf("hit %d: %+v", i, hit)
				}
			}
		})
		t.Run("hybrid fuses both lists", func(t *testing.T) {
			hits, err := h.Search(ctx, "alice", "Berlin", unit(1, 0, 0), 2)
			if err != nil {
				t.Fatal(err)
			}
			// berlin: dense rank 2, text rank 1 → 1/62 + 1/61 beats paris's 1/61.
			if !slices.Equal(ids(hits), []string{"berlin", "paris"}) {
				t.Fatalf("order %v", ids(hits))
			}
			if b := hits[0]; b.DenseRank != 2 || b.TextRank != 1 || math.Abs(b.Score-(1.0/62+1.0/61)) > 1e-12 {
				t.Errorf("berlin hit %+v", b)
			}
			if hits[0].Content != "I moved to Berlin for work" || len(hits[0].Vector) != 3 {
				t.Errorf("hit memory not filled: %+v", hits[0].Memory)
			}
		})
		t.Run("nothing to search with", func(t *testing.T) {
			hits, err := h.Search(ctx, "alice", `"()*`, nil, 10)
			if err != nil || len(hits) != 0 {
				t.Errorf("%v %v", hits, err)
			}
		})
		t.Run("default k", func(t *testing.T) {
			for i := range 15 {
				add(t, h, "bulk", host.Memory{ID: fmt.Sprintf("b%02d", i), Content: "same words here"})
			}
			hits, err := h.Search(ctx, "bulk", "words", nil, 0)
			if err != nil || len(hits) != host.DefaultK {
				t.Errorf("%d hits (%v), want %d", len(hits), err, host.DefaultK)
			}
		})
		t.Run("bad query vectors", func(t *testing.T) {
			for _, q := range [][]float32{{1, 0}, {0, 0, 0}, {float32(math.Inf(1)), 0, 0}} {
				if _, err := h.Search(ctx, "alice", "x", q, 5); !errors.Is(err, host.ErrInvalid) {
					t.Errorf("query %v: err = %v, want ErrInvalid", q, err)
				}
			}
		})
		t.Run("unknown user", func(t *testing.T) {
			hits, err := h.Search(ctx, "nobody", "Paris", []float32{1, 0, 0}, 5)
			if err != nil || len(hits) != 0 {
				t.Errorf("%v %v", hits, err)
			}
		})
	})
}

func TestReplaceAndDelete(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		ctx := t.Context()
		add(t, h, "alice",
			host.Memory{ID: "a", Content: "apple pie recipe", Vector: unit(1, 0)},
			host.Memory{ID: "b", Content: "banana bread", Vector: unit(0, 1)},
		)
		// Replacing a memory moves it in both indexes.
		add(t, h, "alice", host.Memory{ID: "a", Content: "cherry tart", Vector: unit(0, 1)})
		if hits, _ := h.Search(ctx, "alice", "apple", nil, 5); len(hits) != 0 {
			t.Errorf("old text still found: %v", ids(hits))
		}
		if hits, _ := h.Search(ctx, "alice", "cherry", nil, 5); !slices.Equal(ids(hits), []string{"a"}) {
			t.Errorf("new text: %v", ids(hits))
		}
		if hits, _ := h.Search(ctx, "alice", "", unit(1, 0), 1); hits[0].Cosine > 1e-6 {
			t.Errorf("old vector still used: %+v", hits[0])
		}
		if err := h.Delete(ctx, "alice", "a"); err != nil {
			t.Fatal(err)
		}
		if err := h.Delete(ctx, "alice", "a"); !errors.Is(err, host.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
		hits, err := h.Search(ctx, "alice", "cherry tart banana", unit(0, 1), 5)
		if err != nil || !slices.Equal(ids(hits), []string{"b"}) {
			t.Errorf("after delete: %v %v", ids(hits), err)
		}
		// Deleting the last vector frees the dimension.
		if err := h.Delete(ctx, "alice", "b"); err != nil {
			t.Fatal(err)
		}
		add(t, h, "alice", host.Memory{ID: "c", Content: "c", Vector: []float32{1, 2, 3}})
	})
}

func TestIsolation(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		ctx := t.Context()
		add(t, h, "alice", host.Memory{ID: "same", Content: "alice secret garden", Vector: unit(1, 0)})
		add(t, h, "bob", host.Memory{ID: "same", Content: "bob secret garage", Vector: unit(1, 0)})
		hits, err := h.Search(ctx, "alice", "secret garage bob", unit(1, 0), 10)
		if err != nil || len(hits) != 1 || hits[0].Content != "alice secret garden" {
			t.Errorf("alice's search: %+v %v", hits, err)
		}
		if err := h.Delete(ctx, "alice", "same"); err != nil {
			t.Fatal(err)
		}
		if m, err := h.Get(ctx, "bob", "same"); err != nil || m.Content != "bob secret garage" {
			t.Errorf("bob's memory after alice's delete: %+v %v", m, err)
		}
		add(t, h, "alice", host.Memory{ID: "x", Content: "x", Vector: []float32{1, 2, 3}}) // alice's dimension is her own
		if users, _ := h.Users(ctx); !slices.Equal(users, []string{"alice", "bob"}) {
			t.Errorf("Users = %v", users)
		}
		if err := h.DeleteUser(ctx, "bob"); err != nil {
			t.Fatal(err)
		}
		if users, _ := h.Users(ctx); !slices.Equal(users, []string{"alice"}) {
			t.Errorf("Users after DeleteUser = %v", users)
		}
		if hits, _ := h.Search(ctx, "bob", "secret", unit(1, 0), 10); len(hits) != 0 {
			t.Errorf("deleted user still found: %v", ids(hits))
		}
		add(t, h, "bob", host.Memory{ID: "new", Content: "fresh", Vector: []float32{1, 1, 1, 1}})
	})
}

// TestBM25StatisticsPerUser: BM25's statistics are the user's own, so another user's
// memories never move a user's scores (nor tell anything about them).
func TestBM25StatisticsPerUser(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		ctx := t.Context()
		for i, d := range []string{"I live in Paris", "my cat sleeps all day", "coffee in the morning"} {
			add(t, h, "alice", host.Memory{ID: fmt.Sprintf("a%d", i), Content: d})
		}
		score := func() float64 {
			t.Helper()
			hits, err := h.Search(ctx, "alice", "Paris", nil, 10)
			if err != nil || len(hits) != 1 {
				t.Fatalf("alice's search: %+v %v", hits, err)
			}
			return hits[0].BM25
		}
		before := score()
		for i := range 50 {
			add(t, h, "bob", host.Memory{ID: fmt.Sprintf("b%d", i), Content: fmt.Sprintf("Paris again, day %d in Paris", i)})
		}
		if after := score(); math.Abs(after-before) > 1e-12 {
			t.Errorf("bob's memories moved alice's BM25 score from %v to %v", before, after)
		}
	})
}

func TestConcurrentAddAndSearch(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		ctx := t.Context()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 4 {
			wg.Go(func() {
				for i := range 25 {
					m := host.Memory{ID: fmt.Sprintf("w%d-%d", w, i), Content: fmt.Sprintf("note %d from writer %d", i, w), Vector: unit(float32(w+1), float32(i+1))}
					if err := h.Add(ctx, "alice", m); err != nil {
						errs <- err
						return
					}
				}
			})
			wg.Go(func() {
				for range 25 {
					if _, err := h.Search(ctx, "alice", "note writer", unit(1, 1), 5); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n, _ := h.Len(ctx, "alice"); n != 100 {
			t.Errorf("Len = %d, want 100", n)
		}
		hits, err := h.Search(ctx, "alice", "", unit(1, 1), 200)
		if err != nil || len(hits) != 100 {
			t.Errorf("dense search sees %d of 100 (%v)", len(hits), err)
		}
	})
}

// TestImplementationsRankTextAlike checks that every host implementation (SQLite,
// InMemory, and PostgreSQL when the tests have a server) ranks and scores one user's
// text as the first does. They all score with package fts over the user's own
// memories, so this is a check of what each feeds it (the user's documents, their
// statistics), not of BM25 itself; fts is checked against SQLite's FTS5 bm25() in
// package fts (TestIndexMatchesFTS5).
func TestImplementationsRankTextAlike(t *testing.T) {
	docs := []string{
		"I live in Paris with my cat", "my sister lives in Rome", "coffee every morning in Paris",
		"the cat and the dog", "Rome Paris Berlin trains", "nothing relevant",
	}
	var first []host.Hit
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			h := impl.open(t, host.Config{}) // PostgreSQL skips here without a server
			for i, d := range docs {
				add(t, h, "alice", host.Memory{ID: fmt.Sprintf("d%d", i), Content: d})
			}
			hits, err := h.Search(t.Context(), "alice", "Paris cat Rome", nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 {
				t.Fatal("no hits")
			}
			if first == nil {
				first = hits
				return
			}
			if !slices.Equal(ids(hits), ids(first)) {
				t.Fatalf("ranking %v, the first implementation's %v", ids(hits), ids(first))
			}
			for i := range first {
				if a, b := hits[i].BM25, first[i].BM25; math.Abs(a-b) > 1e-9 {
					t.Errorf("%s: BM25 %v, the first implementation's %v", hits[i].ID, a, b)
				}
			}
		})
	}
}

func TestRRF(t *testing.T) {
	tests := []struct {
		name  string
		k     int
		lists [][]string
		want  []host.Ranked
	}{
		{"empty", 60, nil, []host.Ranked{}},
		{"one list keeps order", 60, [][]string{{"a", "b"}}, []host.Ranked{
			{ID: "a", Score: 1.0 / 61, Ranks: []int{1}}, {ID: "b", Score: 1.0 / 62, Ranks: []int{2}},
		}},
		{"agreement wins", 60, [][]string{{"a", "b", "c"}, {"c", "b"}}, []host.Ranked{
			{ID: "c", Score: 1.0/63 + 1.0/61, Ranks: []int{3, 1}},
			{ID: "b", Score: 1.0/62 + 1.0/62, Ranks: []int{2, 2}},
			{ID: "a", Score: 1.0 / 61, Ranks: []int{1, 0}},
		}},
		{"tie broken by best rank then id", 0, [][]string{{"x", "y"}, {"y", "x"}, {"z"}}, []host.Ranked{
			{ID: "x", Score: 1.5, Ranks: []int{1, 2, 0}},
			{ID: "y", Score: 1.5, Ranks: []int{2, 1, 0}},
			{ID: "z", Score: 1, Ranks: []int{0, 0, 1}},
		}},
		{"duplicate counts once", 60, [][]string{{"a", "a"}}, []host.Ranked{{ID: "a", Score: 1.0 / 61, Ranks: []int{1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := host.RRF(tt.k, tt.lists...)
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (host.Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
	if err := (host.Config{ANN: host.ANNConfig{Recall: -1}}).Validate(); err != nil {
		t.Errorf("recall check off: %v", err)
	}
	err := host.Config{RRFK: -1, Candidates: -2, SQLite: sqlitedb.Config{BusyTimeout: -time.Second}, ANN: host.ANNConfig{Recall: 1.5}}.Validate()
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{"rrf k", "candidates", "busy timeout", "recall 1.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if _, err := host.NewInMemory(host.Config{RRFK: -1}); err == nil {
		t.Error("NewInMemory accepted a bad config")
	}
}

// TestSQLiteSharedFile puts the bank and the host in one database file.
func TestSQLiteSharedFile(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "atma.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bank, err := store.NewSQLite(t.Context(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.NewSQLite(t.Context(), db, host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	add(t, h, "alice", host.Memory{ID: "m1", Content: "I live in Paris"})
	if err := bank.Tx(t.Context(), "alice", func(tx store.Tx) error {
		return tx.Put(t.Context(), store.Record{ID: "r1", Content: "lives in Paris", HostID: "m1"})
	}); err != nil {
		t.Fatal(err)
	}
	for comp, want := range map[string]int{store.Component: 1, host.Component: 1} {
		if v, err := sqlitedb.Version(t.Context(), db, comp); err != nil || v < want {
			t.Errorf("%s schema version %d (%v)", comp, v, err)
		}
	}
	// Each reads its own table.
	if r, err := bank.Get(t.Context(), "alice", "r1"); err != nil || r.HostID != "m1" {
		t.Errorf("bank record: %+v, %v", r, err)
	}
	if hits, _ := h.Search(t.Context(), "alice", "Paris", nil, 5); len(hits) != 1 || hits[0].ID != "m1" {
		t.Errorf("host search: %v", hits)
	}
	if err := h.DeleteUser(t.Context(), "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := bank.Get(t.Context(), "alice", "r1"); err != nil {
		t.Errorf("host DeleteUser touched the bank: %v", err)
	}
}

// TestCacheFollowsOtherWriters checks that a handle's cached vectors follow writes
// made through another handle on the same database (another process: on PostgreSQL
// another pool, a replica).
func TestCacheFollowsOtherWriters(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "atma.db")
		testCacheFollows(t, func() (*host.SQL, error) { return host.OpenSQLite(t.Context(), path, host.Config{}) })
	})
	t.Run("Postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		testCacheFollows(t, func() (*host.SQL, error) { return host.OpenPostgres(t.Context(), url, host.Config{}) })
	})
}

func testCacheFollows(t *testing.T, open func() (*host.SQL, error)) {
	var hs []*host.SQL
	for range 2 {
		h, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		hs = append(hs, h)
	}
	ctx := t.Context()
	add(t, hs[0], "alice", host.Memory{ID: "a", Content: "a", Vector: unit(1, 0)})
	if hits, _ := hs[0].Search(ctx, "alice", "", unit(0, 1), 5); len(hits) != 1 {
		t.Fatalf("first search: %v", ids(hits))
	}
	add(t, hs[1], "alice", host.Memory{ID: "b", Content: "b", Vector: unit(0, 1)})
	hits, err := hs[0].Search(ctx, "alice", "", unit(0, 1), 5)
	if err != nil || !slices.Equal(ids(hits), []string{"b", "a"}) {
		t.Errorf("after another handle's add: %v %v", ids(hits), err)
	}
	if err := hs[1].Delete(ctx, "alice", "b"); err != nil {
		t.Fatal(err)
	}
	if hits, _ := hs[0].Search(ctx, "alice", "", unit(0, 1), 5); !slices.Equal(ids(hits), []string{"a"}) {
		t.Errorf("after another handle's delete: %v", ids(hits))
	}
	if err := hs[1].DeleteUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	add(t, hs[1], "alice", host.Memory{ID: "c", Content: "c", Vector: unit(1, 1, 1)})
	if hits, err := hs[0].Search(ctx, "alice", "", unit(1, 1, 1), 5); err != nil || !slices.Equal(ids(hits), []string{"c"}) {
		t.Errorf("after another handle's DeleteUser and re-add: %v %v", ids(hits), err)
	}
}

// TestSearchPrunesCommonTerms checks that a term in most memories of a large collection
// is left out of the text query, alike in both hosts.
func TestSearchPrunesCommonTerms(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		n := 2*fts.PruneMinDF + 100
		batch := make([]host.Memory, n)
		for i := range batch {
			batch[i] = host.Memory{ID: fmt.Sprintf("m%05d", i), Content: "weather report for today"}
			if i%300 == 0 {
				batch[i].Content += " about zebras"
			}
		}
		if err := h.AddBatch(t.Context(), "alice", batch); err != nil {
			t.Fatal(err)
		}
		hits, err := h.Search(t.Context(), "alice", "weather about zebras", nil, 50)
		if err != nil {
			t.Fatal(err)
		}
		want := (n + 299) / 300
		if len(hits) != want {
			t.Errorf("%d hits, want the %d memories about zebras", len(hits), want)
		}
		for _, hit := range hits {
			if !strings.Contains(hit.Content, "zebras") {
				t.Errorf("hit %s: %q", hit.ID, hit.Content)
			}
		}
	})
}

// TestAddBatchChunks: a batch of more memories than one statement writes, one replacing
// a stored memory, is written whole with its vectors, and the user's row with it (its
// dimension refuses a vector of another).
func TestAddBatchChunks(t *testing.T) {
	forEach(t, func(t *testing.T, h fullHost) {
		ctx := t.Context()
		add(t, h, "alice", host.Memory{ID: "m00000", Content: "the first one", Vector: unit(1, 0, 0)})
		batch := make([]host.Memory, 250)
		for i := range batch {
			batch[i] = host.Memory{ID: fmt.Sprintf("m%05d", i), Content: fmt.Sprintf("memory number %d", i), Vector: unit(1, float32(i%7), float32(i%5))}
		}
		if err := h.AddBatch(ctx, "alice", batch); err != nil {
			t.Fatal(err)
		}
		hits, err := h.Search(ctx, "alice", "", unit(1, 1, 1), 300)
		if err != nil || len(hits) != 250 {
			t.Fatalf("%d hits (%v), want 250", len(hits), err)
		}
		if hits, err := h.Search(ctx, "alice", "number 0", nil, 1); err != nil || len(hits) != 1 || hits[0].Content != "memory number 0" {
			t.Errorf("the replaced memory: %v %v", hits, err)
		}
		if err := h.AddBatch(ctx, "alice", []host.Memory{{ID: "x", Content: "x", Vector: []float32{1, 0, 0, 0}}}); !errors.Is(err, host.ErrInvalid) {
			t.Errorf("a vector of another dimension after the batch: %v", err)
		}
	})
}
