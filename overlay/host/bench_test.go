package host_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/internal/benchtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// benchDim is the backbone's vector size (USE-lite: 512).
const benchDim = 512

// corpus draws memories and queries: words from a Zipf law over a 5,000-word vocabulary
// (so BM25 posting lists are as skewed as in real text) and random directions, or, when
// lowRank is set, random directions near a low-dimensional subspace (host.LowRank).
type corpus struct {
	rng     *rand.Rand
	zipf    *rand.Zipf
	lowRank func() []float32
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	return &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, 4999)}
}

// newLowRankCorpus is newCorpus with vectors of low intrinsic dimension, on which an
// HNSW graph finds neighbours as it does on sentence embeddings. Memories and queries
// share the subspace whatever their seeds.
func newLowRankCorpus(seed uint64) *corpus {
	c := newCorpus(seed)
	c.lowRank = host.LowRank(1, seed, benchDim, 24)
	return c
}

func (c *corpus) text(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", c.zipf.Uint64())
	}
	return strings.Join(words, " ")
}

func (c *corpus) vector() []float32 {
	if c.lowRank != nil {
		return c.lowRank()
	}
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

// query is a search's text and vector.
type query struct {
	text string
	vec  []float32
}

// queries draws n queries of 6 words.
func (c *corpus) queries(n int) []query {
	qs := make([]query, n)
	for i := range qs {
		qs[i] = query{c.text(6), c.vector()}
	}
	return qs
}

// fillHost adds n memories drawn from c to user bench of h, in batches of 1,000.
func fillHost(b *testing.B, h fullHost, c *corpus, n int) {
	b.Helper()
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
	open func(b *testing.B, cfg host.Config) fullHost
}

var benchHosts = []benchHost{
	{"SQLite", func(b *testing.B, cfg host.Config) fullHost {
		h, err := host.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "atma.db"), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close() })
		return h
	}},
	{"InMemory", func(b *testing.B, cfg host.Config) fullHost {
		h, err := host.NewInMemory(cfg)
		if err != nil {
			b.Fatal(err)
		}
		return h
	}},
}

// bruteForce keeps the graph off: BenchmarkSearch's random directions in 512 dimensions
// are the worst case of an HNSW graph (see docs/scaling.md); BenchmarkSearchANN and
// BenchmarkANNSearch measure the graph.
var bruteForce = host.ANNConfig{Threshold: -1}

// BenchmarkSearch measures seed retrieval (top 10, 100 candidates a list) at 1k, 10k
// and 100k memories of one user: hybrid (dense + BM25 + RRF), and each list alone, with
// the median latency (p50-ms). The first search loads the vectors; it runs before the
// timer.
func BenchmarkSearch(b *testing.B) {
	for _, impl := range benchHosts {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%dk", impl.name, n/1000), func(b *testing.B) {
				h := impl.open(b, host.Config{ANN: bruteForce})
				fillHost(b, h, newCorpus(1), n)
				benchSearches(b, h, newCorpus(99))
			})
		}
	}
}

// BenchmarkSearchANN is BenchmarkSearch at 100k memories with the hosts' default
// configuration, in which a user's dense search walks an HNSW graph from 50,000
// vectors, on vectors of low intrinsic dimension (newLowRankCorpus). load-s is the
// first search's time: on SQLite it reads the user and builds the graph; InMemory built
// it while adding.
func BenchmarkSearchANN(b *testing.B) {
	for _, impl := range benchHosts {
		b.Run(impl.name+"/100k", func(b *testing.B) {
			h := impl.open(b, host.Config{})
			fillHost(b, h, newLowRankCorpus(1), 100_000)
			benchSearches(b, h, newLowRankCorpus(99))
		})
	}
}

// benchSearches runs the hybrid, dense and BM25 searches of 64 queries drawn from qc
// against user bench of h, round robin, reporting each mode's median latency (p50-ms);
// the hybrid run also reports the first search's (load-s), which runs before the timer.
func benchSearches(b *testing.B, h fullHost, qc *corpus) {
	b.Helper()
	queries := qc.queries(64)
	ctx := context.Background()
	start := time.Now()
	if _, err := h.Search(ctx, "bench", queries[0].text, queries[0].vec, 10); err != nil {
		b.Fatal(err)
	}
	load := time.Since(start)
	for _, mode := range []string{"hybrid", "dense", "bm25"} {
		b.Run(mode, func(b *testing.B) {
			var lat []time.Duration
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
				t := time.Now()
				if _, err := h.Search(ctx, "bench", text, vec, 10); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t))
			}
			b.ReportMetric(benchtest.Percentile(lat, 50), "p50-ms")
			if mode == "hybrid" {
				b.ReportMetric(load.Seconds(), "load-s")
			}
		})
	}
}

// BenchmarkAdd measures Add throughput into a bank of 10k memories: one memory a call,
// and batches of 100 (AddBatch, one transaction).
func BenchmarkAdd(b *testing.B) {
	for _, impl := range benchHosts {
		b.Run(impl.name, func(b *testing.B) {
			h := impl.open(b, host.Config{ANN: bruteForce})
			fillHost(b, h, newCorpus(1), 10_000)
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
		fillHost(b, h, newCorpus(1), n)
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
