package host_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

var bank = flag.Bool("bank", false, "run BenchmarkBank: a million memories over 1,000 users (minutes, about 4 GB on disk)")

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
	if !*bank {
		b.Skip("a million memories take minutes and about 4 GB on disk: run with -args -bank")
	}
	b.Run("SQLite", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "atma.db")
		h, err := host.OpenSQLite(b.Context(), path, host.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		benchBank(b, h, func(ctx context.Context) (int64, error) { return sqlitedb.DiskSize(ctx, h.DB(), path) })
	})
	b.Run("Postgres", func(b *testing.B) {
		h, err := host.OpenPostgres(b.Context(), pgtest.URL(b), host.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		benchBank(b, h, func(ctx context.Context) (int64, error) { return pgtest.SchemaSize(ctx, h.DB()) })
	})
}

func benchBank(b *testing.B, h *host.SQL, diskSize func(context.Context) (int64, error)) {
	const users, per = 1000, 1000
	ctx := b.Context()
	user := func(u int) string { return fmt.Sprintf("user%04d", u) }
	c := newCorpus(1)
	start := time.Now()
	for u := range users {
		batch := make([]host.Memory, per)
		for i := range batch {
			batch[i] = c.memory(u*per + i)
		}
		if err := h.AddBatch(ctx, user(u), batch); err != nil {
			b.Fatal(err)
		}
		if (u+1)%100 == 0 {
			b.Logf("%d of %d users filled, %s", u+1, users, time.Since(start).Round(time.Second))
		}
	}
	fill := time.Since(start)
	size, err := diskSize(ctx)
	if err != nil {
		b.Fatal(err)
	}
	queries := newCorpus(99).queries(64)
	rng := rand.New(rand.NewPCG(3, 4))
	var cold []time.Duration
	for i, u := range rng.Perm(users) {
		q := queries[i%len(queries)]
		t := time.Now()
		if _, err := h.Search(ctx, user(u), q.text, q.vec, 10); err != nil {
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
		if _, err := h.Search(ctx, user(rng.IntN(users)), q.text, q.vec, 10); err != nil {
			b.Fatal(err)
		}
		warm = append(warm, time.Since(t))
	}
	b.ReportMetric(float64(size)/(users*per/1000), "bytes/1k-memories")
	b.ReportMetric(fill.Seconds(), "fill-s")
	b.ReportMetric(p50ms(cold), "cold-p50-ms")
	b.ReportMetric(p50ms(warm), "p50-ms")
}
