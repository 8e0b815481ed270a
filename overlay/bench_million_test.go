package overlay_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/internal/benchtest"
	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// BenchmarkQueryMillion measures whole queries (profile, host search, pool, packet; the
// question embedded by the backbone) over a bank of a million records and their host
// memories: the 1,000-record query bank of BenchmarkQuery (real texts, vectors, version
// groups, transition records and links, built as the commit path would) written as each
// of 1,000 users' (as CopyBank copies a user), on SQLite and on PostgreSQL. It reports
// the bank's size on disk per 1,000 records (records, links and host memories), the fill
// time, the first query of 200 users drawn at random (which loads the user's vectors into
// the serving process) and queries of those users once loaded:
//
//	scripts/pg-test.sh run go test -run '^$' -bench QueryMillion -benchtime 2000x -timeout 60m ./overlay/ -args -bank
func BenchmarkQueryMillion(b *testing.B) {
	benchtest.Engines(b, "a million records", func(b *testing.B, e benchtest.Engine) {
		ctx := b.Context()
		env := loadBenchEnv(b)
		dir, _ := benchBank(b, env, 1000, 1)
		queries, err := benchQueries(1, 64)
		if err != nil {
			b.Fatal(err)
		}
		src, err := overlay.OpenBank(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		recs, err := overlay.AllRecords(ctx, src.Store, benchUser)
		if err != nil {
			b.Fatal(err)
		}
		ms, err := src.Host.Memories(ctx, benchUser)
		if err != nil {
			b.Fatal(err)
		}
		if err := src.Close(); err != nil {
			b.Fatal(err)
		}
		var bank *overlay.Bank
		if e.URL != "" {
			bank, err = overlay.OpenPostgresBank(ctx, e.URL, pgdb.Config{})
		} else {
			bank, err = overlay.OpenBank(ctx, e.Dir)
		}
		if err != nil {
			b.Fatal(err)
		}
		defer bank.Close()
		fill := benchtest.Fill(b, e, func(u int) error {
			_, err := overlay.CopyUser(ctx, bank, benchtest.User(u), recs, ms)
			return err
		})
		size, err := e.Size(ctx, bank.DB, overlay.DBFile)
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
			if _, err := o.Query(ctx, benchtest.User(u), overlay.QueryRequest{Text: q}); err != nil {
				b.Fatal(err)
			}
			return time.Since(t)
		}
		// A user's first query loads its vectors into the serving process: 200 users
		// drawn at random, then queries of those, loaded.
		loaded := rng.Perm(benchtest.Users)[:200]
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
		b.ReportMetric(float64(size)/(benchtest.Users*float64(len(recs))/1000), "bytes/1k-records")
		b.ReportMetric(fill.Seconds(), "fill-s")
		b.ReportMetric(benchtest.Percentile(first, 50), "first-p50-ms")
		b.ReportMetric(benchtest.Percentile(total, 50), "p50-ms")
		b.ReportMetric(benchtest.Percentile(total, 99), "p99-ms")
	})
}
