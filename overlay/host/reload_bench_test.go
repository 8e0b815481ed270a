package host_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
)

// BenchmarkSearchAfterOtherWrite measures a hybrid search by one handle right after
// another handle on the same database (another process, a replica) added a memory of
// the same user, 10k memories of 512 dimensions: the generation moved, so the search
// first reads what changed since its index (Refresh). Cached is the same search without
// the other write, for comparison. (Reading the whole index again instead, as the host
// did before its change log, took 550–700 ms here.) On SQLite the two handles share a file; on PostgreSQL
// (ATMA_TEST_DATABASE_URL, skipped without it) they are two pools.
func BenchmarkSearchAfterOtherWrite(b *testing.B) {
	const n = 10_000
	engines := []struct {
		name string
		open func(b *testing.B) func() (*host.SQL, error)
	}{
		{"SQLite", func(b *testing.B) func() (*host.SQL, error) {
			path := filepath.Join(b.TempDir(), "atma.db")
			return func() (*host.SQL, error) { return host.OpenSQLite(context.Background(), path, host.Config{}) }
		}},
		{"Postgres", func(b *testing.B) func() (*host.SQL, error) {
			url := pgtest.URL(b)
			return func() (*host.SQL, error) { return host.OpenPostgres(context.Background(), url, host.Config{}) }
		}},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			open := e.open(b)
			var hs [2]*host.SQL
			for i := range hs {
				h, err := open()
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { h.Close() })
				hs[i] = h
			}
			fillHost(b, hs[0], newCorpus(1), n)
			c := newCorpus(2)
			q, qv := c.text(6), c.vector()
			ctx := context.Background()
			if _, err := hs[0].Search(ctx, "bench", q, qv, 10); err != nil {
				b.Fatal(err)
			}
			b.Run("Cached", func(b *testing.B) {
				for b.Loop() {
					if _, err := hs[0].Search(ctx, "bench", q, qv, 10); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Refresh", func(b *testing.B) {
				i := 0
				for b.Loop() {
					b.StopTimer()
					m := c.memory(n + i)
					m.ID = fmt.Sprintf("other%07d", i)
					i++
					if err := hs[1].Add(ctx, "bench", m); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, err := hs[0].Search(ctx, "bench", q, qv, 10); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
