package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
	"github.com/atma-dev/atma/overlay/store/storetest"
)

func TestSQLiteSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bank.db")
	s, err := store.OpenSQLite(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := sqlitedb.Version(t.Context(), s.DB(), store.Component); err != nil || v != len(ms) || v < 1 {
		t.Errorf("schema version %d (%v), want %d", v, err, len(ms))
	}
	if err := s.Tx(t.Context(), "alice", func(tx store.Tx) error {
		return tx.Put(t.Context(), store.Record{ID: "a", Content: "persisted"})
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening migrates nothing and finds the data.
	s, err = store.OpenSQLite(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r, err := s.Get(t.Context(), "alice", "a"); err != nil || r.Content != "persisted" {
		t.Errorf("after reopen: %+v %v", r, err)
	}
}

// TestSQLiteMigratesOlderBanks builds a bank at each earlier schema version (the
// previous one included), writes records and links through that version's schema, and
// opens it: the store migrates it to the current version, keeps every record, leaves
// no trace of the records' FTS5 index (dropped by migration 3), and writes, rewrites
// and deletes records afterwards (no trigger left that writes into a dropped table).
func TestSQLiteMigratesOlderBanks(t *testing.T) {
	ms, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v < len(ms); v++ {
		t.Run(fmt.Sprintf("from_%d_%s", v, ms[v-1].Name), func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "bank.db")
			db, err := sqlitedb.Open(ctx, path, sqlitedb.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := sqlitedb.Migrate(ctx, db, store.Component, ms[:v]); err != nil || got != v {
				t.Fatalf("migrate to %d: %d, %v", v, got, err)
			}
			for _, q := range []string{
				`INSERT INTO records (user, id, content, ingest_ns, status) VALUES
					('alice', 'a', 'I live in Paris', 1, 'active'),
					('alice', 'b', 'I have a cat', 2, 'active'),
					('bob', 'c', 'bob plays chess', 3, 'active')`,
				`INSERT INTO links (user, src, type, dst) VALUES
					('alice', 'a', 'coexists_with', 'b'), ('alice', 'b', 'coexists_with', 'a')`,
				`UPDATE records SET content = 'I have two cats' WHERE id = 'b'`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("write at version %d: %v", v, err)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}

			s, err := store.OpenSQLite(ctx, path, store.Config{})
			if err != nil {
				t.Fatalf("open a bank at version %d: %v", v, err)
			}
			defer s.Close()
			if got, err := sqlitedb.Version(ctx, s.DB(), store.Component); err != nil || got != len(ms) {
				t.Errorf("version after open: %d (%v), want %d", got, err, len(ms))
			}
			if err := s.Damaged(); err != nil {
				t.Errorf("migrated bank: %v", err)
			}
			want := map[string]string{"alice/a": "I live in Paris", "alice/b": "I have two cats", "bob/c": "bob plays chess"}
			for key, content := range want {
				user, id, _ := strings.Cut(key, "/")
				r, err := s.Get(ctx, user, id)
				if err != nil || r.Content != content {
					t.Errorf("%s after migration: %q, %v; want %q", key, r.Content, err, content)
				}
			}
			if r, err := s.Get(ctx, "alice", "a"); err != nil || !r.HasLink(store.LinkCoexistsWith, "b") {
				t.Errorf("a's links after migration: %v, %v", r.Links, err)
			}
			fts, err := sqlitedb.Strings(ctx, s.DB(), `SELECT type || ' ' || name FROM sqlite_master WHERE name LIKE 'records_fts%'`)
			if err != nil || len(fts) != 0 {
				t.Errorf("the records' FTS5 index after migration: %v, %v", fts, err)
			}
			if err := s.Tx(ctx, "alice", func(tx store.Tx) error {
				return errors.Join(
					tx.Put(ctx, store.Record{ID: "d", Content: "a new record"}),
					tx.Put(ctx, store.Record{ID: "a", Content: "I live in Rome"}),
				)
			}); err != nil {
				t.Errorf("write after migration: %v", err)
			}
			if err := s.Delete(ctx, "alice", "b"); err != nil {
				t.Errorf("delete after migration: %v", err)
			}
			page, _, err := s.List(ctx, "alice", store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range page {
				got = append(got, r.ID+": "+r.Content)
			}
			if w := []string{"a: I live in Rome", "d: a new record"}; !slices.Equal(got, w) {
				t.Errorf("alice's records after writes: %q, want %q", got, w)
			}
			if p, err := s.Integrity(ctx, true); err != nil || p != nil {
				t.Errorf("integrity after migration and writes: %v, %v", p, err)
			}
		})
	}
}

// TestSQLiteSharedDB checks that the bank can live in a database the caller owns.
func TestSQLiteSharedDB(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "atma.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := store.NewSQLite(t.Context(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(t.Context()); err != nil {
		t.Errorf("Close closed a database it does not own: %v", err)
	}
}

// TestTwoHandles runs writers through two handles on one database, as two processes
// (replicas) would: they share no in-process lock, so the database alone must keep
// every write — SQLite's immediate transactions and busy timeout, PostgreSQL's per-user
// advisory lock.
func TestTwoHandles(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bank.db")
		testTwoHandles(t, func() (*store.SQL, error) { return store.OpenSQLite(t.Context(), path, store.Config{}) })
	})
	t.Run("Postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		testTwoHandles(t, func() (*store.SQL, error) { return store.OpenPostgres(t.Context(), url, store.Config{}) })
	})
}

func testTwoHandles(t *testing.T, open func() (*store.SQL, error)) {
	var handles []*store.SQL
	for range 2 {
		s, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		handles = append(handles, s)
	}
	ctx := t.Context()
	if err := handles[0].Tx(ctx, "alice", func(tx store.Tx) error {
		return tx.Put(ctx, store.Record{ID: "counter", Content: "0"})
	}); err != nil {
		t.Fatal(err)
	}
	const perHandle, rounds = 3, 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*perHandle)
	for _, s := range handles {
		for range perHandle {
			wg.Go(func() {
				for range rounds {
					if err := increment(ctx, s); err != nil {
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
	r, err := handles[1].Get(ctx, "alice", "counter")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(2 * perHandle * rounds); r.Content != want {
		t.Errorf("counter = %s, want %s (lost writes)", r.Content, want)
	}
}

func increment(ctx context.Context, s store.Store) error {
	return s.Tx(ctx, "alice", func(tx store.Tx) error {
		r, err := tx.Get(ctx, "counter")
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(r.Content)
		if err != nil {
			return err
		}
		r.Content = strconv.Itoa(n + 1)
		return tx.Put(ctx, r)
	})
}

// TestSQLiteLinksCannotCrossUsers checks the schema itself refuses a link to another
// user's record, whatever code writes it.
func TestSQLiteLinksCannotCrossUsers(t *testing.T) {
	s := openSQLite(t, store.Config{}).(*store.SQL)
	defer s.Close()
	ctx := t.Context()
	for _, u := range []string{"alice", "bob"} {
		if err := s.Tx(ctx, u, func(tx store.Tx) error { return tx.Put(ctx, store.Record{ID: u, Content: u}) }); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.DB().ExecContext(ctx, `INSERT INTO links (user, src, type, dst) VALUES ('alice', 'alice', 'coexists_with', 'bob')`)
	if err == nil {
		t.Error("the schema accepted a link from alice's record to bob's")
	}
}

// TestCheckFindsCorruption damages a bank behind the store's back and expects Check to
// report each kind of damage.
func TestCheckFindsCorruption(t *testing.T) {
	s := openSQLite(t, store.Config{}).(*store.SQL)
	defer s.Close()
	ctx := t.Context()
	err := s.Tx(ctx, "alice", func(tx store.Tx) error {
		day := func(d int) store.Record {
			return store.Record{ID: "v" + strconv.Itoa(d), Content: "city " + strconv.Itoa(d), Slot: "city", SingleValued: true,
				EventTime: storetest.T0.AddDate(0, 0, d)}
		}
		return errors.Join(
			tx.Put(ctx, day(1)), tx.Put(ctx, day(2)), tx.Put(ctx, day(3)),
			store.Reconcile(ctx, tx, "city"),
			tx.Put(ctx, store.Record{ID: "a", Content: "a"}), tx.Put(ctx, store.Record{ID: "b", Content: "b"}),
			tx.Link(ctx, "a", store.LinkCoexistsWith, "b"),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := store.Check(ctx, s, "alice"); err != nil || len(vs) != 0 {
		t.Fatalf("clean bank: %v %v", vs, err)
	}
	for _, q := range []string{
		`DELETE FROM links WHERE user = 'alice' AND src = 'b' AND dst = 'a'`,          // one direction lost
		`UPDATE records SET status = 'active', valid_until_ns = NULL WHERE id = 'v2'`, // older version current
		`UPDATE records SET valid_until_ns = NULL WHERE id = 'v1'`,                    // superseded, no end
		`UPDATE records SET status = 'transition' WHERE id = 'a'`,                     // transition to nowhere
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	vs, err := store.Check(ctx, s, "alice")
	if err != nil {
		t.Fatal(err)
	}
	got := map[store.ViolationKind][]string{}
	for _, v := range vs {
		got[v.Kind] = append(got[v.Kind], v.ID)
	}
	want := map[store.ViolationKind]string{
		store.KindMissingReciprocal: "a",
		store.KindMultipleActive:    "v3",
		store.KindNotSuperseded:     "v2",
		store.KindStaleStatus:       "v2",
		store.KindNoValidUntil:      "v1",
		store.KindTransitionLinks:   "a",
	}
	for k, id := range want {
		if !slices.Contains(got[k], id) {
			t.Errorf("no %s violation on %s; got %v", k, id, vs)
		}
	}
}

// TestSQLiteDamagedFile damages pages of a bank file on disk: the store still opens (what
// can be read stays readable), Damaged says so, every write is refused with ErrDamaged,
// and the full integrity check lists the damage.
func TestSQLiteDamagedFile(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "bank.db")
	s, err := store.OpenSQLite(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	storetest.PutPlain(t, s, "alice", 400)
	if p, err := s.Integrity(ctx, true); err != nil || p != nil || s.Damaged() != nil {
		t.Fatalf("a sound file: problems %v, %v, damaged %v", p, err, s.Damaged())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	storetest.DamageFile(t, path, 6, 21, 61)

	s, err = store.OpenSQLite(ctx, path, store.Config{})
	if err != nil {
		t.Fatalf("a damaged file does not open at all: %v", err)
	}
	defer s.Close()
	if err := s.Damaged(); !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("Damaged() = %v after the quick check at open", err)
	}
	err = s.Tx(ctx, "alice", func(tx store.Tx) error { return tx.Put(ctx, store.Record{ID: "new", Content: "one more"}) })
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "restore") {
		t.Errorf("a write to a damaged bank: %v", err)
	}
	if p, err := s.Integrity(ctx, true); err != nil || len(p) == 0 {
		t.Errorf("full check of a damaged file: %v, %v", p, err)
	}
}
