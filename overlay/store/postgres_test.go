package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
)

// TestPostgresConnectionLost cuts the connection to PostgreSQL inside a transaction,
// after its writes and before its commit: the store reports ErrUnavailable, nothing of
// the transaction is in the database, reads fail the same way while the database is
// away, and the store goes on by itself once it is back.
func TestPostgresConnectionLost(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	proxy, via := pgtest.NewProxy(t, url)
	s, err := store.OpenPostgres(ctx, via, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	direct, err := store.OpenPostgres(ctx, url, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()

	put := func(tx store.Tx, id string) error {
		return tx.Put(ctx, store.Record{ID: id, Content: "record " + id, Slot: "city", SingleValued: true})
	}
	if err := s.Tx(ctx, "alice", func(tx store.Tx) error { return put(tx, "a") }); err != nil {
		t.Fatal(err)
	}
	err = s.Tx(ctx, "alice", func(tx store.Tx) error {
		if err := errors.Join(put(tx, "b"), tx.SetStatus(ctx, "a", store.StatusSuperseded)); err != nil {
			return err
		}
		proxy.Cut()
		return nil
	})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a commit on a lost connection: %v, want ErrUnavailable", err)
	}
	if _, err := direct.Get(ctx, "alice", "b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the interrupted transaction's record is in the bank: %v", err)
	}
	if r, err := direct.Get(ctx, "alice", "a"); err != nil || r.Status != store.StatusActive {
		t.Errorf("the interrupted transaction changed a: %+v %v", r, err)
	}
	if _, err := s.Get(ctx, "alice", "a"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a read while the database is away: %v, want ErrUnavailable", err)
	}
	proxy.Restore()
	if err := s.Tx(ctx, "alice", func(tx store.Tx) error { return put(tx, "c") }); !errors.Is(err, store.ErrConflict) {
		// Two active records of a single-valued slot: the store is back, checking commits.
		t.Errorf("after the database came back: %v, want the commit check's refusal", err)
	}
	if vs, err := store.Check(ctx, s, "alice"); err != nil || len(vs) != 0 {
		t.Errorf("check after the fault: %v %v", vs, err)
	}
}

// TestPostgresNewerSchema refuses a database that a newer program migrated.
func TestPostgresNewerSchema(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	s, err := store.OpenPostgres(ctx, url, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := store.PostgresMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := pgdb.Version(ctx, s.DB(), store.Component); err != nil || v != len(ms) {
		t.Fatalf("schema version %d (%v), want %d", v, err, len(ms))
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO schema_migrations (component, version, name, applied_at) VALUES ($1, $2, 'future', 0)`,
		store.Component, len(ms)+1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = store.OpenPostgres(ctx, url, store.Config{})
	if err == nil || !strings.Contains(err.Error(), "newer than this program's") {
		t.Errorf("open of a newer schema: %v", err)
	}
}

// TestPostgresReplicaDiesMidTransaction ends the database session of one replica (as
// its process dying would) while it holds a user's lock inside a transaction and
// another replica waits for that lock: the first one's transaction commits nothing, the
// lock goes with the session, and the second one's transaction goes through.
func TestPostgresReplicaDiesMidTransaction(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	var replicas []*store.SQL
	for range 2 {
		s, err := store.OpenPostgres(ctx, url, store.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		replicas = append(replicas, s)
	}
	admin, err := pgdb.Open(ctx, url, pgdb.Config{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	waiting := func() int {
		var n int
		if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND objid = hashtext(current_schema() || '/alice')::oid`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	second := make(chan error, 1)
	err = replicas[0].Tx(ctx, "alice", func(tx store.Tx) error {
		if err := tx.Put(ctx, store.Record{ID: "first", Content: "written by the replica that dies"}); err != nil {
			return err
		}
		raw, _, _, ok := store.SQLTx(tx)
		if !ok {
			return errors.New("no database transaction")
		}
		var pid int
		if err := raw.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		go func() {
			second <- replicas[1].Tx(ctx, "alice", func(tx store.Tx) error {
				return tx.Put(ctx, store.Record{ID: "second", Content: "written by the replica that lives"})
			})
		}()
		for waiting() == 0 { // the second replica waits for alice's lock
			if err := ctx.Err(); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond)
		}
		_, err := admin.ExecContext(ctx, `SELECT pg_terminate_backend($1)`, pid)
		return err
	})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("the dead replica's commit: %v, want ErrUnavailable", err)
	}
	if err := <-second; err != nil {
		t.Errorf("the live replica's write: %v", err)
	}
	if _, err := replicas[1].Get(ctx, "alice", "first"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the dead replica's record was committed: %v", err)
	}
	if _, err := replicas[1].Get(ctx, "alice", "second"); err != nil {
		t.Errorf("the live replica's record: %v", err)
	}
	if _, err := replicas[0].Get(ctx, "alice", "second"); err != nil {
		t.Errorf("the first replica, after reconnecting: %v", err)
	}
}

// TestPostgresPoolExhausted holds the only connection of a store's pool in a long
// transaction (bob's, waiting mid-way): alice's transaction and a read give up after
// the acquire timeout with ErrBusy, nothing of alice's is written, and once bob's
// transaction commits both users' writes go through.
func TestPostgresPoolExhausted(t *testing.T) {
	ctx := t.Context()
	s, err := store.OpenPostgres(ctx, pgtest.URL(t), store.Config{Postgres: pgdb.Config{MaxConns: 1, AcquireTimeout: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holding, release := make(chan struct{}), make(chan struct{})
	bob := make(chan error, 1)
	go func() {
		bob <- s.Tx(ctx, "bob", func(tx store.Tx) error {
			if err := tx.Put(ctx, store.Record{ID: "b1", Content: "bob's, in a long transaction"}); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	select {
	case <-holding:
	case err := <-bob:
		t.Fatalf("bob's transaction ended before holding its connection: %v", err)
	}
	alice := func(ctx context.Context) error {
		return s.Tx(ctx, "alice", func(tx store.Tx) error {
			return tx.Put(ctx, store.Record{ID: "a1", Content: "alice's"})
		})
	}
	// Only the pool's acquire timeout should end these waits; past a minute, it did not.
	waitCtx, stopWait := context.WithTimeout(ctx, time.Minute)
	defer stopWait()
	for name, err := range map[string]error{
		"alice's transaction": alice(waitCtx),
		"a read":              func() error { _, err := s.Get(waitCtx, "bob", "b1"); return err }(),
	} {
		if !errors.Is(err, store.ErrBusy) || !errors.Is(err, pgdb.ErrPoolExhausted) || !strings.Contains(err.Error(), "pool") {
			t.Errorf("%s with the pool exhausted: %v, want ErrBusy saying the pool is exhausted", name, err)
		}
	}
	close(release)
	if err := <-bob; err != nil {
		t.Fatalf("bob's transaction: %v", err)
	}
	if _, err := s.Get(ctx, "alice", "a1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("alice's refused transaction wrote its record: %v", err)
	}
	if err := alice(ctx); err != nil {
		t.Errorf("alice's transaction once the connection is free: %v", err)
	}
	for _, k := range [][2]string{{"alice", "a1"}, {"bob", "b1"}} {
		if _, err := s.Get(ctx, k[0], k[1]); err != nil {
			t.Errorf("%s's record: %v", k[0], err)
		}
	}
}
