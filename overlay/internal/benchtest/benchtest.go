// Package benchtest holds what the overlay's benchmarks share: the harness of the
// million-row benchmarks (package host's BenchmarkBank, package store's
// BenchmarkBankMillion, package overlay's BenchmarkQueryMillion) — the -bank flag that
// asks for them, the two engines they fill, their users and the fill's progress — and
// the latency percentile every benchmark reports. It is for tests only.
package benchtest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

var million = flag.Bool("bank", false, "run the million-row benchmarks (BenchmarkBank, BenchmarkBankMillion, BenchmarkQueryMillion): minutes, and gigabytes of disk an engine")

// Users is how many users a million-row bank spreads over; User names the u-th.
const Users = 1000

// User is the name of user u of a million-row bank.
func User(u int) string { return fmt.Sprintf("user%04d", u) }

// Engine is the database one run of a million-row benchmark fills: a fresh directory
// for SQLite's file, or a fresh schema of the PostgreSQL server of
// ATMA_TEST_DATABASE_URL.
type Engine struct {
	Name string // "SQLite" or "Postgres"
	Dir  string // SQLite's directory ("" on PostgreSQL)
	URL  string // PostgreSQL's URL ("" on SQLite)
}

// Engines runs fn as the sub-benchmarks SQLite and Postgres (skipped without
// ATMA_TEST_DATABASE_URL), and only when -bank was given: what says what the benchmark
// fills, for the skip's message.
func Engines(b *testing.B, what string, fn func(b *testing.B, e Engine)) {
	b.Helper()
	if !*million {
		b.Skipf("%s take minutes and gigabytes of disk: run with -args -bank", what)
	}
	b.Run("SQLite", func(b *testing.B) { fn(b, Engine{Name: "SQLite", Dir: b.TempDir()}) })
	b.Run("Postgres", func(b *testing.B) { fn(b, Engine{Name: "Postgres", URL: pgtest.URL(b)}) })
}

// Size is the bytes db's bank takes on disk: on SQLite the file named file in Dir,
// after a WAL checkpoint; on PostgreSQL the schema's tables with their indexes and
// TOAST.
func (e Engine) Size(ctx context.Context, db *sql.DB, file string) (int64, error) {
	if e.URL != "" {
		return pgtest.SchemaSize(ctx, db)
	}
	return sqlitedb.DiskSize(ctx, db, filepath.Join(e.Dir, file))
}

// Fill calls fill for each user u of the Users (named User(u)), logging the progress
// every 100, and returns the time it took; an error ends the benchmark.
func Fill(b *testing.B, e Engine, fill func(u int) error) time.Duration {
	b.Helper()
	start := time.Now()
	for u := range Users {
		if err := fill(u); err != nil {
			b.Fatal(err)
		}
		if (u+1)%100 == 0 {
			b.Logf("%s: %d of %d users filled, %s", e.Name, u+1, Users, time.Since(start).Round(time.Second))
		}
	}
	return time.Since(start)
}

// Percentile is the p-th percentile of ds in milliseconds (nearest rank; 0 for none).
func Percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(float64(len(s))*p/100)) - 1
	i = min(max(i, 0), len(s)-1)
	return float64(s[i]) / float64(time.Millisecond)
}
