package overlay_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/internal/benchtest"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
)

// BenchmarkIngestEngines is BenchmarkIngest's Batch32 on each bank engine in the same
// run — a fresh SQLite file, and a fresh schema of the PostgreSQL server that
// ATMA_TEST_DATABASE_URL names (skipped without it) — with the same memories, backbone,
// gate and rule auditor, so that their ratio is the engines' alone:
//
//	scripts/pg-test.sh run go test -run '^$' -bench IngestEngines -benchtime 20x ./overlay/
//
// memories/s is per second of Add calls; commit-us/mem is the commit's share (record,
// links, host memory, one transaction).
func BenchmarkIngestEngines(b *testing.B) {
	for _, engine := range []string{"SQLite", "Postgres"} {
		b.Run(engine+"/Batch32", func(b *testing.B) {
			env := loadBenchEnv(b)
			var bank *overlay.Bank
			var err error
			if engine == "SQLite" {
				bank, err = overlay.OpenBank(b.Context(), b.TempDir())
			} else {
				bank, err = overlay.OpenPostgresBank(b.Context(), pgtest.URL(b), pgdb.Config{})
			}
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { bank.Close() })
			o := benchOverlay(b, env, bank, false)
			stream := newMemoryStream(1, benchBase)
			var memories int
			var commit time.Duration
			for b.Loop() {
				b.StopTimer() // drawing a new dataset is not ingest
				user, ins, err := stream.next(32)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				trs, err := o.Add(b.Context(), user, ins)
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range trs {
					memories++
					commit += tr.Timings.Commit
				}
			}
			if memories == 0 {
				b.Fatal("no memory was ingested")
			}
			b.ReportMetric(float64(memories)/b.Elapsed().Seconds(), "memories/s")
			b.ReportMetric(float64(commit.Microseconds())/float64(memories), "commit-us/mem")
		})
	}
}

// BenchmarkQueryEngines is BenchmarkQuery's query sub-benchmark on the cached 10k-record
// bank (Med; Small with -short) on each engine in the same run: the SQLite file as
// benchBank builds it, and its copy (CopyBank) in a fresh schema of the PostgreSQL server
// that ATMA_TEST_DATABASE_URL names (skipped without it). The copy is not timed.
//
//	scripts/pg-test.sh run go test -run '^$' -bench QueryEngines -benchtime 200x ./overlay/
func BenchmarkQueryEngines(b *testing.B) {
	size := 10_000
	if testing.Short() {
		size = 1_000
	}
	env := loadBenchEnv(b)
	dir, _ := benchBank(b, env, size, 1)
	queries, err := benchQueries(1, 64)
	if err != nil {
		b.Fatal(err)
	}
	for _, engine := range []string{"SQLite", "Postgres"} {
		b.Run(engine, func(b *testing.B) {
			ctx := b.Context()
			bank, err := overlay.OpenBank(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { bank.Close() })
			if engine == "Postgres" {
				pg, err := overlay.OpenPostgresBank(ctx, pgtest.URL(b), pgdb.Config{})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { pg.Close() })
				if _, err := overlay.CopyBank(ctx, pg, bank, nil); err != nil {
					b.Fatal(err)
				}
				bank = pg
			}
			o, err := overlay.New(overlay.Config{Store: bank.Store, Host: bank.Host, Embedder: env.enc,
				Heads: env.heads, Thresholds: env.thresholds})
			if err != nil {
				b.Fatal(err)
			}
			// The first search loads the user's vectors into memory; that is not a query's cost.
			if _, err := o.Query(ctx, benchUser, overlay.QueryRequest{Text: queries[0]}); err != nil {
				b.Fatal(err)
			}
			var total, search, pool []time.Duration
			i := 0
			for b.Loop() {
				t0 := time.Now()
				tr, err := o.Query(ctx, benchUser, overlay.QueryRequest{Text: queries[i%len(queries)]})
				total = append(total, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				i++
				search = append(search, tr.Timings.Seeds)
				pool = append(pool, tr.Timings.Pool)
			}
			b.ReportMetric(benchtest.Percentile(total, 50), "p50-ms")
			b.ReportMetric(benchtest.Percentile(total, 99), "p99-ms")
			b.ReportMetric(benchtest.Percentile(search, 50), "search-p50-ms")
			b.ReportMetric(benchtest.Percentile(pool, 50), "pool-p50-ms")
		})
	}
}

// BenchmarkIngestReplicas measures ingest through one and through two overlays (two
// pools: two replicas) on one PostgreSQL database, two users per replica, each user's
// client adding batches of up to 32 memories at once: an op is one Add per client, all
// running together. memories/s counts every client's memories. On a machine with few
// cores the backbone, which every replica runs, bounds both.
func BenchmarkIngestReplicas(b *testing.B) {
	for _, replicas := range []int{1, 2} {
		b.Run(fmt.Sprintf("Replicas%d", replicas), func(b *testing.B) {
			env := loadBenchEnv(b)
			url := pgtest.URL(b)
			var ovs []*overlay.Overlay
			for range replicas {
				bank, err := overlay.OpenPostgresBank(b.Context(), url, pgdb.Config{})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { bank.Close() })
				ovs = append(ovs, benchOverlay(b, env, bank, false))
			}
			type client struct {
				o      *overlay.Overlay
				stream *memoryStream
			}
			var clients []client
			for r, o := range ovs {
				for u := range 2 {
					clients = append(clients, client{o, newMemoryStream(uint64(1+(2*r+u)*1000), benchBase)})
				}
			}
			var memories atomic.Int64
			for b.Loop() {
				b.StopTimer()
				type job struct {
					o    *overlay.Overlay
					user string
					ins  []overlay.Input
				}
				var jobs []job
				for _, c := range clients {
					user, ins, err := c.stream.next(32)
					if err != nil {
						b.Fatal(err)
					}
					jobs = append(jobs, job{c.o, user, ins})
				}
				b.StartTimer()
				var wg sync.WaitGroup
				for _, j := range jobs {
					wg.Go(func() {
						trs, err := j.o.Add(b.Context(), j.user, j.ins)
						if err != nil {
							b.Error(err)
							return
						}
						memories.Add(int64(len(trs)))
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(memories.Load())/b.Elapsed().Seconds(), "memories/s")
		})
	}
}
