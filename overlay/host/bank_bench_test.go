package host_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/internal/benchtest"
)

// BenchmarkBank measures the host at a million memories, 1,000 users of 1,000 each,
// drawn as BenchmarkSearch's (512-d vectors, 15–35 words from the Zipf law), on SQLite
// and on the PostgreSQL server of ATMA_TEST_DATABASE_URL (skipped without it): the size
// on disk per 1,000 memories (SQLite: the file after a WAL checkpoint; PostgreSQL: the
// schema's tables with their indexes and TOAST), the fill (fill-s), and the hybrid
// search's median latency over users picked at random: cold, each user's first search,
// which reads the user's memories into its index (cold-p50-ms), and warm, once every
// user is cached (p50-ms). It runs only when asked for:
//
//	scripts/pg-test.sh run go test -run '^$' -bench Bank -benchtime 2000x ./overlay/host/ -args -bank
func BenchmarkBank(b *testing.B) {
	benchtest.Engines(b, "a million memories", func(b *testing.B, e benchtest.Engine) {
		open := func() (*host.SQL, error) {
			if e.URL != "" {
				return host.OpenPostgres(b.Context(), e.URL, host.Config{})
			}
			return host.OpenSQLite(b.Context(), filepath.Join(e.Dir, "atma.db"), host.Config{})
		}
		h, err := open()
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		benchBank(b, e, h)
	})
}

func benchBank(b *testing.B, e benchtest.Engine, h *host.SQL) {
	const per = 1000
	ctx := b.Context()
	c := newCorpus(1)
	fill := benchtest.Fill(b, e, func(u int) error {
		batch := make([]host.Memory, per)
		for i := range batch {
			batch[i] = c.memory(u*per + i)
		}
		return h.AddBatch(ctx, benchtest.User(u), batch)
	})
	size, err := e.Size(ctx, h.DB(), "atma.db")
	if err != nil {
		b.Fatal(err)
	}
	queries := newCorpus(99).queries(64)
	rng := rand.New(rand.NewPCG(3, 4))
	var cold []time.Duration
	for i, u := range rng.Perm(benchtest.Users) {
		q := queries[i%len(queries)]
		t := time.Now()
		if _, err := h.Search(ctx, benchtest.User(u), q.text, q.vec, 10); err != nil {
			b.Fatal(err)
		}
		cold = append(cold, time.Since(t))
	}
	var warm []time.Duration
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		i++
		t := time.Now()
		if _, err := h.Search(ctx, benchtest.User(rng.IntN(benchtest.Users)), q.text, q.vec, 10); err != nil {
			b.Fatal(err)
		}
		warm = append(warm, time.Since(t))
	}
	b.ReportMetric(float64(size)/(benchtest.Users*per/1000), "bytes/1k-memories")
	b.ReportMetric(fill.Seconds(), "fill-s")
	b.ReportMetric(benchtest.Percentile(cold, 50), "cold-p50-ms")
	b.ReportMetric(benchtest.Percentile(warm, 50), "p50-ms")
}
