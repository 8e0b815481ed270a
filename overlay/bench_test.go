package overlay_test

import (
	"context"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/internal/benchtest"
	"github.com/atma-dev/atma/overlay/retrieval"
)

// The overlay's benchmarks run the real use-lite backbone through ONNX Runtime (they fail
// with the fix when either is missing) and the rule auditor as the Judge, on SQLite banks:
//
//	go test -run '^$' -bench 'Ingest' -benchtime 100x ./overlay/        # about 2 minutes
//	go test -run '^$' -bench 'Query' -benchtime 200x -short ./overlay/  # 1k and 10k banks
//	go test -run '^$' -bench 'Query/Large' -benchtime 200x ./overlay/   # builds a 100k bank once
//
// The query banks (and the 10k bank Ingest/Batch32OnMed starts from) are built on first
// use and cached under $ATMA_CACHE/bench/ (see benchBank).
//
// The gate is the default Sentry checkpoint in $ATMA_CACHE/models/sentry/use-lite (from
// `make models`) when there is one,
// else random projection heads (the log line says which). See benchdata_test.go for the
// memories and the cached query banks.

// BenchmarkIngest measures the commit path on realistic memories (package data's
// profiles: each profile one user, its facts and then 60 interactions, half of them
// conflicting), with traces kept:
//
//   - Batch32: Add with up to 32 memories a call (the memories of one user; a user's last
//     call has fewer) into a fresh SQLite bank;
//   - Single: Add with one memory a call, likewise;
//   - Batch32OnMed: Add with up to 32 memories a call for the one user of a copy of the
//     10k-record query bank (see benchBank): a long-lived user, whose candidates come from
//     10,000 records.
//
// ns/op is per Add call. It reports
//
//   - memories/s: memories ingested per second, the backbone included;
//   - routed/ingest: (candidate, new) pairs the gate routed to the Judge, per memory;
//   - judge-share: the share of memories with at least one pair routed to the Judge;
//   - cands/ingest and commits/ingest: candidates gated, changes committed, per memory;
//   - embed/seeds/gate/judge/commit-us/mem: where one memory's time goes (from the traces;
//     embed is the batch's time shared out, commit includes the host's write; the trace's
//     own write is the rest);
//   - bytes/1k-records: the bank on disk (SQLite file + WAL + shm after a checkpoint, traces
//     included) per 1,000 records (memories and transition records), and
//     trace-bytes/1k-records: the JSON of the ingest traces alone (fresh banks only).
func BenchmarkIngest(b *testing.B) {
	for _, bc := range []struct {
		name  string
		batch int
		bank  int  // records of benchUser already in the bank; 0: a fresh bank, one user a profile
		facts bool // version groups by fact (the offline extractor on the same backbone)
	}{{"Batch32", 32, 0, false}, {"Batch32Facts", 32, 0, true}, {"Single", 1, 0, false}, {"Batch32OnMed", 32, 10_000, false}} {
		b.Run(bc.name, func(b *testing.B) {
			env := loadBenchEnv(b)
			ctx := b.Context()
			dir := b.TempDir()
			base := benchBase
			if bc.bank > 0 {
				src, _ := benchBank(b, env, bc.bank, 1)
				if err := copyBank(src, dir); err != nil {
					b.Fatal(err)
				}
				base = benchBase.AddDate(1, 0, 0) // after everything the bank holds
			}
			bank, o := openBenchOverlay(b, env, dir, bc.facts)
			var before int64
			if err := bank.DB.QueryRowContext(ctx, `SELECT count(*) FROM records`).Scan(&before); err != nil {
				b.Fatal(err)
			}
			if bc.bank > 0 {
				// Load the user's vectors into memory first, as a running server has.
				if _, err := o.Query(ctx, benchUser, overlay.QueryRequest{Text: "Where do I live now?"}); err != nil {
					b.Fatal(err)
				}
			}
			stream := newMemoryStream(1, base)
			var (
				memories, routed, reached, cands, commits int
				parts                                     overlay.Timings
			)
			for b.Loop() {
				b.StopTimer() // drawing a new dataset is not ingest
				user, ins, err := stream.next(bc.batch)
				if err != nil {
					b.Fatal(err)
				}
				if bc.bank > 0 {
					user = benchUser
				}
				b.StartTimer()
				trs, err := o.Add(ctx, user, ins)
				if err != nil {
					b.Fatal(err)
				}
				for _, tr := range trs {
					memories++
					routed += tr.Timings.Routed
					if tr.Timings.Routed > 0 {
						reached++
					}
					cands += len(tr.Candidates)
					commits += len(tr.Commits)
					parts.Embed += tr.Timings.Embed
					parts.Seeds += tr.Timings.Seeds
					parts.Gate += tr.Timings.Gate
					parts.Judge += tr.Timings.Judge
					parts.Commit += tr.Timings.Commit
				}
			}
			if memories == 0 {
				b.Fatal("no memory was ingested")
			}
			per := func(n int) float64 { return float64(n) / float64(memories) }
			us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(memories) }
			b.ReportMetric(float64(memories)/b.Elapsed().Seconds(), "memories/s")
			b.ReportMetric(per(routed), "routed/ingest")
			b.ReportMetric(per(reached), "judge-share")
			b.ReportMetric(per(cands), "cands/ingest")
			b.ReportMetric(per(commits), "commits/ingest")
			b.ReportMetric(us(parts.Embed), "embed-us/mem")
			b.ReportMetric(us(parts.Seeds), "seeds-us/mem")
			b.ReportMetric(us(parts.Gate), "gate-us/mem")
			b.ReportMetric(us(parts.Judge), "judge-us/mem")
			b.ReportMetric(us(parts.Commit), "commit-us/mem")

			size, err := sqlitedb.DiskSize(ctx, bank.DB, filepath.Join(dir, overlay.DBFile))
			if err != nil {
				b.Fatal(err)
			}
			var records, traceBytes int64
			if err := bank.DB.QueryRowContext(ctx, `SELECT count(*) FROM records`).Scan(&records); err != nil {
				b.Fatal(err)
			}
			if bc.bank == 0 {
				if err := bank.DB.QueryRowContext(ctx, `SELECT coalesce(sum(length(data)), 0) FROM overlay_traces`).Scan(&traceBytes); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(size)/float64(records)*1000, "bytes/1k-records")
				b.ReportMetric(float64(traceBytes)/float64(records)*1000, "trace-bytes/1k-records")
			}
			tables, err := tableSizes(ctx, bank.DB, 6)
			if err != nil {
				tables = "unknown: " + err.Error()
			}
			b.Logf("%d memories of %d profiles → %d new records (%d in all), %d bytes on disk; largest: %s",
				memories, stream.users, records-before, records, size, tables)
		})
	}
}

// BenchmarkIngestConcurrent is Batch32 from GOMAXPROCS clients at once into one fresh
// SQLite bank, each client with users of its own (its own memory stream): the ingest
// throughput of a server whose clients write for different users. Writes of one user
// are serialised by the overlay, and SQLite takes one write transaction at a time; the
// rest (embedding, seeds, the gate, the Judge) runs side by side. ns/op is per Add call;
// memories/s counts every client's memories.
func BenchmarkIngestConcurrent(b *testing.B) {
	env := loadBenchEnv(b)
	ctx := b.Context()
	_, o := openBenchOverlay(b, env, b.TempDir(), false)
	clients := runtime.GOMAXPROCS(0)
	streams := make(chan *memoryStream, clients)
	for c := range clients {
		s := newMemoryStream(uint64(1+c*1000), benchBase)
		if _, _, err := s.next(0); err != nil { // generate its first dataset now, untimed
			b.Fatal(err)
		}
		streams <- s
	}
	var memories, reached atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := <-streams
		for pb.Next() {
			user, ins, err := s.next(32)
			if err != nil {
				b.Error(err)
				return
			}
			trs, err := o.Add(ctx, user, ins)
			if err != nil {
				b.Error(err)
				return
			}
			memories.Add(int64(len(trs)))
			for _, tr := range trs {
				if tr.Timings.Routed > 0 {
					reached.Add(1)
				}
			}
		}
	})
	if memories.Load() == 0 {
		b.Fatal("no memory was ingested")
	}
	b.ReportMetric(float64(memories.Load())/b.Elapsed().Seconds(), "memories/s")
	b.ReportMetric(float64(reached.Load())/float64(memories.Load()), "judge-share")
	b.ReportMetric(float64(clients), "clients")
}

// openBenchOverlay opens the bank in dir and an overlay on it (benchOverlay).
func openBenchOverlay(b *testing.B, env *benchEnv, dir string, withFacts bool) (*overlay.Bank, *overlay.Overlay) {
	b.Helper()
	bank, err := overlay.OpenBank(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bank.Close() })
	return bank, benchOverlay(b, env, bank, withFacts)
}

// benchOverlay is an overlay on bank, of either engine, as the ingest benchmarks run it:
// the bench backbone and gate, the rule auditor, traces kept; with facts, the offline
// fact extractor on the same backbone.
func benchOverlay(b *testing.B, env *benchEnv, bank *overlay.Bank, withFacts bool) *overlay.Overlay {
	b.Helper()
	cfg := overlay.Config{Store: bank.Store, Host: bank.Host, Embedder: env.enc,
		Heads: env.heads, Thresholds: env.thresholds, Traces: bank.Traces}
	if withFacts {
		x, err := facts.NewOffline(env.enc, facts.Config{})
		if err != nil {
			b.Fatal(err)
		}
		cfg.Facts = x
	}
	o, err := overlay.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return o
}

// benchSizes are the query banks' size family; -bench 'Query/Med' runs one alone, and
// -short leaves out Large, whose first run builds a 100k-record bank (minutes).
var benchSizes = []struct {
	name string
	n    int
}{{"Small", 1_000}, {"Med", 10_000}, {"Large", 100_000}}

// BenchmarkQuery measures Query without an LLM (no controller, no answer model, no
// traces kept) on banks of 1k, 10k and 100k records of one user (see benchBank), with 64
// realistic questions in turn (TopK 5):
//
//   - query: the whole call, the backbone's embedding of the question included; each
//     call's wall time gives p50-ms, p95-ms and p99-ms, the query's own timings give the
//     medians of its parts (embed-, search-, pool-p50-ms) and hops/query is the pool's
//     records reached by relation hops or neighbour links rather than the host's seeds;
//   - embed: the backbone on one question;
//   - search: the host's hybrid search (dense + BM25 + RRF, 10 hits) with the question's
//     vector computed beforehand.
func BenchmarkQuery(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			if sz.n > 10_000 && testing.Short() {
				b.Skipf("the %d-record bank is left out in -short mode; run -bench 'Query/%s' without -short", sz.n, sz.name)
			}
			env := loadBenchEnv(b)
			ctx := context.Background()
			dir, st := benchBank(b, env, sz.n, 1)
			b.Logf("bank %s: %d records, %d transitions, %d supersessions, %d scoped exceptions, %d coexist links, %d bytes",
				dir, st.Records, st.Transitions, st.Supersedes, st.Exceptions, st.Coexists, st.FileBytes)
			bank, err := overlay.OpenBank(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			defer bank.Close()
			o, err := overlay.New(overlay.Config{Store: bank.Store, Host: bank.Host, Embedder: env.enc,
				Heads: env.heads, Thresholds: env.thresholds})
			if err != nil {
				b.Fatal(err)
			}
			queries, err := benchQueries(1, 64)
			if err != nil {
				b.Fatal(err)
			}
			// The first search loads the user's vectors into memory; that is not a query's cost.
			if _, err := o.Query(ctx, benchUser, overlay.QueryRequest{Text: queries[0]}); err != nil {
				b.Fatal(err)
			}

			b.Run("query", func(b *testing.B) {
				var total, embed, search, pool []time.Duration
				hops, i := 0, 0
				for b.Loop() {
					q := queries[i%len(queries)]
					i++
					t0 := time.Now()
					tr, err := o.Query(ctx, benchUser, overlay.QueryRequest{Text: q})
					total = append(total, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					if len(tr.Packet.Rows) == 0 {
						b.Fatalf("query %q: empty packet", q)
					}
					embed = append(embed, tr.Timings.Embed)
					search = append(search, tr.Timings.Seeds)
					pool = append(pool, tr.Timings.Pool)
					for _, c := range tr.Pool.Ranked {
						if c.Source != retrieval.SourceSeed {
							hops++
						}
					}
				}
				b.ReportMetric(benchtest.Percentile(total, 50), "p50-ms")
				b.ReportMetric(benchtest.Percentile(total, 95), "p95-ms")
				b.ReportMetric(benchtest.Percentile(total, 99), "p99-ms")
				b.ReportMetric(benchtest.Percentile(embed, 50), "embed-p50-ms")
				b.ReportMetric(benchtest.Percentile(search, 50), "search-p50-ms")
				b.ReportMetric(benchtest.Percentile(pool, 50), "pool-p50-ms")
				b.ReportMetric(float64(hops)/float64(len(total)), "hops/query")
			})

			vecs, err := env.enc.Embed(ctx, queries)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("embed", func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, err := env.enc.Embed(ctx, queries[i%len(queries):i%len(queries)+1]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
			b.Run("search", func(b *testing.B) {
				i := 0
				for b.Loop() {
					j := i % len(queries)
					i++
					hits, err := bank.Host.Search(ctx, benchUser, queries[j], vecs[j], 2*overlay.DefaultTopK)
					if err != nil {
						b.Fatal(err)
					}
					if len(hits) == 0 {
						b.Fatalf("query %q: no hits", queries[j])
					}
				}
			})
		})
	}
}
