package host_test

import (
	"context"
	"fmt"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/host"
)

// benchDim is the backbone's vector size (USE-lite: 512).
const benchDim = 512

// corpus draws memories and queries: words from a Zipf law over a 5,000-word vocabulary
// (so BM25 posting lists are as skewed as in real text) and random directions.
type corpus struct {
	rng  *rand.Rand
	zipf *rand.Zipf
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	return &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, 4999)}
}

func (c *corpus) text(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", c.zipf.Uint64())
	}
	return strings.Join(words, " ")
}

func (c *corpus) vector() []float32 {
	v := make([]float32, benchDim)
	for i := range v {
		v[i] = float32(c.rng.NormFloat64())
	}
	return v
}

func (c *corpus) memory(i int) host.Memory {
	return host.Memory{ID: fmt.Sprintf("m%07d", i), Content: c.text(15 + c.rng.IntN(20)), Vector: c.vector(),
		Meta: map[string]string{"session": fmt.Sprint(i / 20)}}
}

func fillHost(b *testing.B, h fullHost, n int) {
	b.Helper()
	c := newCorpus(1)
	ctx := context.Background()
	for start := 0; start < n; start += 1000 {
		batch := make([]host.Memory, 0, 1000)
		for i := start; i < min(start+1000, n); i++ {
			batch = append(batch, c.memory(i))
		}
		if err := h.AddBatch(ctx, "bench", batch); err != nil {
			b.Fatal(err)
		}
	}
}

type benchHost struct {
	name string
	open func(b *testing.B) fullHost
}

// benchHosts search by brute force: their random directions in 512 dimensions are the
// worst case of an HNSW graph (see docs/scaling.md); BenchmarkANNSearch measures it.
var benchHosts = []benchHost{
	{"SQLite", func(b *testing.B) fullHost {
		h, err := host.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "atma.db"), host.Config{ANN: bruteForce})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close() })
		return h
	}},
	{"InMemory", func(b *testing.B) fullHost {
		h, err := host.NewInMemory(host.Config{ANN: bruteForce})
		if err != nil {
			b.Fatal(err)
		}
		return h
	}},
}

var bruteForce = host.ANNConfig{Threshold: -1}

// BenchmarkSearch measures seed retrieval (top 10, 100 candidates a list) at 1k, 10k
// and 100k memories of one user: hybrid (dense + BM25 + RRF), and each list alone. The
// first search loads the vectors; it runs before the timer.
func BenchmarkSearch(b *testing.B) {
	for _, impl := range benchHosts {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%dk", impl.name, n/1000), func(b *testing.B) {
				h := impl.open(b)
				fillHost(b, h, n)
				qc := newCorpus(99)
				type query struct {
					text string
					vec  []float32
				}
				queries := make([]query, 64)
				for i := range queries {
					queries[i] = query{qc.text(6), qc.vector()}
				}
				ctx := context.Background()
				if _, err := h.Search(ctx, "bench", queries[0].text, queries[0].vec, 10); err != nil {
					b.Fatal(err)
				}
				for _, mode := range []string{"hybrid", "dense", "bm25"} {
					b.Run(mode, func(b *testing.B) {
						i := 0
						for b.Loop() {
							q := queries[i%len(queries)]
							i++
							text, vec := q.text, q.vec
							switch mode {
							case "dense":
								text = ""
							case "bm25":
								vec = nil
							}
							if _, err := h.Search(ctx, "bench", text, vec, 10); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			})
		}
	}
}

// BenchmarkAdd measures Add throughput into a bank of 10k memories: one memory a call,
// and batches of 100 (AddBatch, one transaction).
func BenchmarkAdd(b *testing.B) {
	for _, impl := range benchHosts {
		b.Run(impl.name, func(b *testing.B) {
			h := impl.open(b)
			fillHost(b, h, 10_000)
			ctx := context.Background()
			// Load the vectors, so Add also keeps the in-memory copy current.
			if _, err := h.Search(ctx, "bench", "", newCorpus(5).vector(), 1); err != nil {
				b.Fatal(err)
			}
			c := newCorpus(7)
			next := 10_000
			b.Run("single", func(b *testing.B) {
				for b.Loop() {
					if err := h.Add(ctx, "bench", c.memory(next)); err != nil {
						b.Fatal(err)
					}
					next++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "memories/s")
			})
			b.Run("batch100", func(b *testing.B) {
				for b.Loop() {
					batch := make([]host.Memory, 100)
					for i := range batch {
						batch[i] = c.memory(next)
						next++
					}
					if err := h.AddBatch(ctx, "bench", batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(100*b.N)/b.Elapsed().Seconds(), "memories/s")
			})
		})
	}
}

// BenchmarkSize reports the SQLite host's size on disk per 1,000 memories (512-d
// vectors, 15–35 words each), after a WAL checkpoint.
func BenchmarkSize(b *testing.B) {
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "atma.db")
		h, err := host.OpenSQLite(context.Background(), path, host.Config{})
		if err != nil {
			b.Fatal(err)
		}
		const n = 5000
		fillHost(b, h, n)
		size, err := sqlitedb.DiskSize(context.Background(), h.DB(), path)
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(size)/(n/1000), "bytes/1k-memories")
	}
}
