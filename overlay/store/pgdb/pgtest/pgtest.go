// Package pgtest gives tests a PostgreSQL database of their own: a fresh schema of the
// database that ATMA_TEST_DATABASE_URL names, dropped when the test ends, so that tests
// run in parallel on one server without seeing each other's tables. `make test` starts a
// throw-away server (scripts/pg-test.sh) and sets the variable; without it the tests
// that need PostgreSQL skip, saying so.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// EnvURL names the variable holding the test server's URL.
const EnvURL = "ATMA_TEST_DATABASE_URL"

// URL returns the URL of a new, empty schema of the test database (its search_path
// set to it), dropped with everything in it when t ends. It skips t when EnvURL is
// unset and fails it when the server does not answer.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skipf("%s is not set: run `make test`, or scripts/pg-test.sh run go test …, to test on PostgreSQL", EnvURL)
	}
	admin, err := pgdb.Open(t.Context(), base, pgdb.Config{MaxConns: 1})
	if err != nil {
		t.Fatalf("test database (%s): %v", EnvURL, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), `CREATE SCHEMA `+schema); err != nil {
		admin.Close()
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop test schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// HoldPool takes two connections of db (a pool from pgdb.Open) and keeps them in use:
// one in an open transaction, one in a running pg_sleep. It returns once pgdb.Stats
// counts two in use (so a pool of two is exhausted) and gives back release, which ends
// the sleep, waits for it and rolls the transaction back (failing t if that fails);
// the connections are also let go when t ends.
func HoldPool(t testing.TB, db *sql.DB) (release func()) {
	t.Helper()
	ctx := t.Context()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sleepCtx, stopSleep := context.WithCancel(ctx)
	slept := make(chan error, 1)
	sleep := func() {
		go func() {
			_, err := db.ExecContext(sleepCtx, `SELECT pg_sleep(60)`)
			slept <- err
		}()
	}
	sleep()
	t.Cleanup(func() {
		stopSleep()
		tx.Rollback()
	})
	// On a loaded machine the second connection may take longer to open than a test
	// pool's acquire timeout: the sleep then fails at once, and is started again until
	// the deadline, which fails the test instead of waiting for ever.
	deadline := time.Now().Add(30 * time.Second)
	for s, _ := pgdb.Stats(db); s.InUse < 2; s, _ = pgdb.Stats(db) {
		select {
		case err := <-slept:
			if time.Now().After(deadline) {
				t.Fatalf("hold the pool: the sleep on the second connection: %v", err)
			}
			sleep()
		default:
		}
		if err := ctx.Err(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("hold the pool: two connections not in use after 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return func() {
		t.Helper()
		stopSleep()
		<-slept
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
}

// WithParams is rawURL with the query parameters kv (name, value, …) set.
func WithParams(t testing.TB, rawURL string, kv ...string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// SchemaSize is the bytes the tables of db's current schema take on disk, with their
// indexes and TOAST (the benchmarks' size of a bank on PostgreSQL).
func SchemaSize(ctx context.Context, db *sql.DB) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema() AND c.relkind = 'r'`).Scan(&n)
	return n, err
}
