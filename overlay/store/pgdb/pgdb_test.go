package pgdb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`WHERE a = ? AND b = ?`, `WHERE a = $1 AND b = $2`},
		{`SELECT '?', "we?ird", ?::json`, `SELECT '?', "we?ird", $1::json`},
		{`VALUES (?, ?), (?, ?)`, `VALUES ($1, $2), ($3, $4)`},
	}
	for _, tt := range tests {
		if got := pgdb.Rebind(tt.in); got != tt.want {
			t.Errorf("Rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://atma:s3cret@db:5432/bank", "postgres://atma:xxxxx@db:5432/bank"},
		{"postgres://db/bank?password=s3cret&sslmode=require", "postgres://db/bank?password=xxxxx&sslmode=require"},
		{"postgres://atma@/bank?host=/run/postgresql", "postgres://atma@/bank?host=/run/postgresql"},
		{"postgres://a:b@%zz", "postgres://(unparsable URL)"},
	}
	for _, tt := range tests {
		if got := pgdb.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestErrorKinds(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: code}) }
	tests := []struct {
		name                                 string
		err                                  error
		unavailable, busy, full, ro, badText bool
	}{
		{"admin shutdown", pg("57P01"), true, false, false, false, false},
		{"connection failure", pg("08006"), true, false, false, false, false},
		{"too many connections", pg("53300"), true, false, false, false, false},
		{"serialisation failure", pg("40001"), false, true, false, false, false},
		{"deadlock", pg("40P01"), false, true, false, false, false},
		{"disk full", pg("53100"), false, false, true, false, false},
		{"read-only", pg("25006"), false, false, false, true, false},
		{"NUL in text", pg("22021"), false, false, false, false, true},
		{"unique violation", pg("23505"), false, false, false, false, false},
		{"plain error", errors.New("boom"), false, false, false, false, false},
		{"nil", nil, false, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []bool{pgdb.IsUnavailable(tt.err), pgdb.IsBusy(tt.err), pgdb.IsFull(tt.err), pgdb.IsReadOnly(tt.err), pgdb.IsBadText(tt.err)}
			want := []bool{tt.unavailable, tt.busy, tt.full, tt.ro, tt.badText}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("kinds (unavailable, busy, full, read-only, bad text) = %v, want %v", got, want)
					break
				}
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	for _, tt := range []struct{ name, url, want string }{
		{"not postgres", "mysql://db/x", "not a postgres:// URL"},
		{"unreachable", "postgres://atma:s3cret@127.0.0.1:1/x?connect_timeout=2", "127.0.0.1:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := pgdb.Open(t.Context(), tt.url, pgdb.Config{})
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("err = %v, want %q and no password", err, tt.want)
			}
		})
	}
	if err := (pgdb.Config{MaxConns: -1, ConnectTimeout: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "max conns") || !strings.Contains(err.Error(), "connect timeout") {
		t.Errorf("Validate: %v", err)
	}
}

// TestMigrate: replicas that start together apply each migration once; a broken
// migration leaves nothing of itself; a newer database is refused.
func TestMigrate(t *testing.T) {
	ctx := t.Context()
	db, err := pgdb.Open(ctx, pgtest.URL(t), pgdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms := []sqlitedb.Migration{
		{Version: 1, Name: "a", SQL: `CREATE TABLE a (x integer); INSERT INTO a VALUES (1)`},
		{Version: 2, Name: "b", SQL: `INSERT INTO a VALUES (2)`},
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { _, errs[i] = pgdb.Migrate(ctx, db, "comp", ms) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil || n != 2 {
		t.Errorf("%d rows (%v) after concurrent migrations, want 2: each applied once", n, err)
	}
	broken := append(ms, sqlitedb.Migration{Version: 3, Name: "broken", SQL: `INSERT INTO a VALUES (3); CREATE TABLE (;`})
	if _, err := pgdb.Migrate(ctx, db, "comp", broken); err == nil || !strings.Contains(err.Error(), "migrate comp to 3 (broken)") {
		t.Errorf("broken migration: %v", err)
	}
	if v, err := pgdb.Version(ctx, db, "comp"); err != nil || v != 2 {
		t.Errorf("version %d (%v) after a broken migration, want 2", v, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil || n != 2 {
		t.Errorf("the broken migration left %d rows (%v)", n, err)
	}
	if _, err := pgdb.Migrate(ctx, db, "comp", ms[:1]); err == nil || !strings.Contains(err.Error(), "newer than this program's") {
		t.Errorf("older program on a newer database: %v", err)
	}
}

// TestPoolConfig: the pool's size comes from Config, else the URL's pool_max_conns,
// else the default; pool_acquire_timeout is the pool's, never sent to the server, and a
// bad one is refused.
func TestPoolConfig(t *testing.T) {
	base := pgtest.URL(t)
	for _, tt := range []struct {
		name    string
		params  []string
		cfg     pgdb.Config
		want    int
		wantErr string
	}{
		{"default", nil, pgdb.Config{}, pgdb.DefaultMaxConns, ""},
		{"the URL's", []string{"pool_max_conns", "3", "pool_acquire_timeout", "2s"}, pgdb.Config{}, 3, ""},
		{"the config's over the URL's", []string{"pool_max_conns", "3"}, pgdb.Config{MaxConns: 2}, 2, ""},
		{"bad acquire timeout", []string{"pool_acquire_timeout", "soon"}, pgdb.Config{}, 0, "pool_acquire_timeout"},
		{"zero acquire timeout", []string{"pool_acquire_timeout", "0s"}, pgdb.Config{}, 0, "pool_acquire_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := pgdb.Open(t.Context(), pgtest.WithParams(t, base, tt.params...), tt.cfg)
			if tt.wantErr != "" {
				if err == nil {
					db.Close()
					t.Fatalf("opened, want an error naming %s", tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want it to name %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if s, ok := pgdb.Stats(db); !ok || s.MaxConns != tt.want {
				t.Errorf("pool of %d connections (stats %v), want %d", s.MaxConns, ok, tt.want)
			}
		})
	}
	if err := (pgdb.Config{AcquireTimeout: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "acquire timeout") {
		t.Errorf("Validate of a negative acquire timeout: %v", err)
	}
}

// TestPoolExhausted holds every connection of a pool of two, one in an open
// transaction and one in a running pg_sleep: a statement and a transaction that need a
// third give up after the acquire timeout with ErrPoolExhausted, counted in Stats; a
// caller whose own deadline comes first gets its own error; once the connections are
// free the pool serves again.
func TestPoolExhausted(t *testing.T) {
	ctx := t.Context()
	db, err := pgdb.Open(ctx, pgtest.WithParams(t, pgtest.URL(t), "pool_max_conns", "2", "pool_acquire_timeout", "100ms"), pgdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	release := pgtest.HoldPool(t, db)
	// Only the pool's acquire timeout should end these waits; past a minute, it did not.
	waitCtx, stopWait := context.WithTimeout(ctx, time.Minute)
	defer stopWait()
	var one int
	if err := db.QueryRowContext(waitCtx, `SELECT 1`).Scan(&one); !errors.Is(err, pgdb.ErrPoolExhausted) {
		t.Errorf("a statement on the exhausted pool: %v, want ErrPoolExhausted", err)
	}
	if tx2, err := db.BeginTx(waitCtx, nil); !errors.Is(err, pgdb.ErrPoolExhausted) {
		if err == nil {
			tx2.Rollback()
		}
		t.Errorf("a transaction on the exhausted pool: %v, want ErrPoolExhausted", err)
	}
	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	if err := db.QueryRowContext(short, `SELECT 1`).Scan(&one); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, pgdb.ErrPoolExhausted) {
		t.Errorf("a statement whose own deadline passes first: %v, want context.DeadlineExceeded", err)
	}
	if s, _ := pgdb.Stats(db); s.Exhausted != 2 || s.InUse != 2 || s.MaxConns != 2 || s.Waits < 2 {
		t.Errorf("stats %+v, want 2 of 2 in use, 2 exhausted, at least 2 waits", s)
	}
	release()
	if err := db.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		t.Errorf("a statement once the connections are free: %v", err)
	}
	// The cancelled pg_sleep's connection is closed in the background.
	s, _ := pgdb.Stats(db)
	for i := 0; i < 1000 && s.InUse != 0; i++ {
		time.Sleep(5 * time.Millisecond)
		s, _ = pgdb.Stats(db)
	}
	if s.InUse != 0 {
		t.Errorf("%d connections in use after the statements ended", s.InUse)
	}
}

// TestTransactionsBeginWithTheirFirstStatement: a default transaction sends BEGIN with
// LockUser's statement, as one simple query with the user written in, or before any
// other first statement. Either way what runs in it rolls back with it, the lock is the
// one the parameterised statement takes (a name with quotes and backslashes too) and
// serialises that user's writers, and a transaction that failed does not commit.
func TestTransactionsBeginWithTheirFirstStatement(t *testing.T) {
	ctx := t.Context()
	db, err := pgdb.Open(ctx, pgtest.URL(t), pgdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	table := fmt.Sprintf("begin_test_%d", time.Now().UnixNano())
	if _, err := db.ExecContext(ctx, `CREATE TABLE `+table+` (v text)`); err != nil {
		t.Fatal(err)
	}
	defer db.ExecContext(context.WithoutCancel(ctx), `DROP TABLE `+table)
	q := func(tx *sql.Tx) pgdb.Q { return pgdb.On(db, tx) }
	count := func() int {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const user = `o'brien\'; DROP TABLE x; --`
	for _, lock := range []bool{true, false} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := pgdb.LockUser(ctx, q(tx), user); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := q(tx).ExecContext(ctx, `INSERT INTO `+table+` VALUES (?)`, "x"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 0 {
			t.Errorf("lock first %v: a rolled back transaction left %d rows", lock, n)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgdb.LockUser(ctx, q(tx), user); err != nil {
		t.Fatal(err)
	}
	var held int
	if err := q(tx).QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
		AND classid = CAST(CAST(? AS bigint) AS oid) AND objid = CAST(hashtext(current_schema() || '/' || ?)::bigint & 4294967295 AS oid)`,
		int64(0x61746d61), user).Scan(&held); err != nil || held != 1 {
		t.Errorf("the transaction holds %d advisory locks of the user's key (%v), want 1", held, err)
	}
	// Another writer of the user waits for this one.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	other, err := db.BeginTx(short, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgdb.LockUser(short, q(other), user); err == nil {
		t.Error("a second writer of the user took its lock while the first held it")
	}
	other.Rollback()
	cancel()
	if _, err := q(tx).ExecContext(ctx, `INSERT INTO `+table+` VALUES (?)`, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Errorf("a committed transaction left %d rows, want 1", n)
	}
	// A transaction whose statement failed rolls back at its commit.
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgdb.LockUser(ctx, q(tx), user); err != nil {
		t.Fatal(err)
	}
	q(tx).ExecContext(ctx, `INSERT INTO `+table+` VALUES (?)`, "lost")
	if _, err := q(tx).ExecContext(ctx, `SELECT 1 / 0`); err == nil {
		t.Fatal("1 / 0 ran")
	}
	if err := tx.Commit(); err == nil {
		t.Error("a failed transaction committed")
	}
	if n := count(); n != 1 {
		t.Errorf("after the failed transaction %d rows, want 1", n)
	}
	// One that ran nothing commits, and the connection serves again.
	for range 3 {
		tx, err = db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Errorf("an empty transaction: %v", err)
		}
	}
	if n := count(); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
}
