package overlay_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

var million = flag.Bool("bank", false, "run BenchmarkQueryMillion: whole queries over a million records of 1,000 users (minutes, about 9 GB on disk an engine)")

// BenchmarkQueryMillion measures whole queries (profile, host search, pool, packet; the
// question embedded by the backbone) over a bank of a million records and their host
// memories: the 1,000-record query bank of BenchmarkQuery (real texts, vectors, version
// groups, transition records and links, built as the commit path would) written as each
// of 1,000 users', on SQLite and on PostgreSQL. It reports the bank's size on disk per
// 1,000 records (records, links and host memories), the fill time, the first query of
// 200 users drawn at random (which loads the user's vectors into the serving process) and
// queries of those users once loaded:
//
//	scripts/pg-test.sh run go test -run '^$' -bench QueryMillion -benchtime 2000x -timeout 60m ./overlay/ -args -bank
func BenchmarkQueryMillion(b *testing.B) {
	if !*million {
		b.Skip("a million records take minutes and about 9 GB on disk an engine: run with -args -bank")
	}
	env := loadBenchEnv(b)
	dir, _ := benchBank(b, env, 1000, 1)
	queries, err := benchQueries(1, 64)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	src, err := overlay.OpenBank(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	var recs []store.Record
	f := store.Filter{Limit: store.MaxListLimit}
	for {
		page, next, err := src.Store.List(ctx, benchUser, f)
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, page...)
		if next == "" {
			break
		}
		f.Cursor = next
	}
	ms, err := src.Host.Memories(ctx, benchUser)
	if err != nil {
		b.Fatal(err)
	}
	for _, engine := range []string{"SQLite", "Postgres"} {
		b.Run(engine, func(b *testing.B) {
			ctx := b.Context()
			var (
				bank *overlay.Bank
				size func() (int64, error)
			)
			if engine == "SQLite" {
				d := b.TempDir()
				if bank, err = overlay.OpenBank(ctx, d); err != nil {
					b.Fatal(err)
				}
				size = func() (int64, error) { return sqlitedb.DiskSize(ctx, bank.DB, filepath.Join(d, overlay.DBFile)) }
			} else {
				if bank, err = overlay.OpenPostgresBank(ctx, pgtest.URL(b), pgdb.Config{}); err != nil {
					b.Fatal(err)
				}
				size = func() (int64, error) { return pgtest.SchemaSize(ctx, bank.DB) }
			}
			defer bank.Close()
			const users = 1000
			user := func(u int) string { return fmt.Sprintf("user%04d", u) }
			start := time.Now()
			for u := range users {
				if err := cloneUser(ctx, bank, user(u), recs, ms); err != nil {
					b.Fatal(err)
				}
				if (u+1)%100 == 0 {
					b.Logf("%s: %d of %d users filled, %s", engine, u+1, users, time.Since(start).Round(time.Second))
				}
			}
			fill := time.Since(start)
			bytes, err := size()
			if err != nil {
				b.Fatal(err)
			}
			o, err := overlay.New(overlay.Config{Store: bank.Store, Host: bank.Host, Embedder: env.enc,
				Heads: env.heads, Thresholds: env.thresholds})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(7, 8))
			query := func(u int, q string) time.Duration {
				t := time.Now()
				if _, err := o.Query(ctx, user(u), overlay.QueryRequest{Text: q}); err != nil {
					b.Fatal(err)
				}
				return time.Since(t)
			}
			// A user's first query loads its vectors into the serving process: 200 users
			// drawn at random, then queries of those, loaded.
			loaded := rng.Perm(users)[:min(200, users)]
			var first []time.Duration
			for i, u := range loaded {
				first = append(first, query(u, queries[i%len(queries)]))
			}
			var total []time.Duration
			i := 0
			for b.Loop() {
				total = append(total, query(loaded[rng.IntN(len(loaded))], queries[i%len(queries)]))
				i++
			}
			b.ReportMetric(float64(bytes)/(users*float64(len(recs))/1000), "bytes/1k-records")
			b.ReportMetric(fill.Seconds(), "fill-s")
			b.ReportMetric(percentileMs(first, 50), "first-p50-ms")
			b.ReportMetric(percentileMs(total, 50), "p50-ms")
			b.ReportMetric(percentileMs(total, 99), "p99-ms")
		})
	}
}

// cloneUser writes recs and ms, one user's records (with their links) and host memories,
// as user u's, in one transaction and one batch.
func cloneUser(ctx context.Context, bank *overlay.Bank, u string, recs []store.Record, ms []host.Memory) error {
	err := bank.Store.Tx(ctx, u, func(tx store.Tx) error {
		for _, r := range recs {
			r.User = u
			if err := tx.Put(ctx, r); err != nil {
				return err
			}
		}
		for _, r := range recs {
			for _, l := range r.Links {
				if err := tx.Link(ctx, r.ID, l.Type, l.To); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("records of %s: %w", u, err)
	}
	if err := bank.Host.AddBatch(ctx, u, ms); err != nil {
		return fmt.Errorf("host memories of %s: %w", u, err)
	}
	return nil
}
