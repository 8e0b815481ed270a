package store_test

import (
	"context"
	"fmt"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
)

// Embedding sizes for the benchmarks: a 512-d backbone (USE-lite) and 128-d projections.
const (
	benchBackboneDim = 512
	benchProjDim     = 128
)

var benchWords = strings.Fields(`live work city moved paris berlin cat dog coffee tea job teacher engineer
	vegetarian vegan morning evening sister brother birthday car bike train music jazz piano guitar
	football tennis book novel garden flat house rent salary manager project deadline holiday beach
	mountain winter summer doctor allergy peanut milk sugar running gym yoga`)

func benchRecord(rng *rand.Rand, i int) store.Record {
	words := make([]string, 12+rng.IntN(12))
	for j := range words {
		words[j] = benchWords[rng.IntN(len(benchWords))]
	}
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		return v
	}
	return store.Record{
		ID:         fmt.Sprintf("r%08d", i),
		Content:    strings.Join(words, " "),
		Slot:       fmt.Sprintf("slot.%d", i%50),
		Confidence: 0.8,
		Source:     fmt.Sprintf("session-%d#turn-%d", i/20, i%20),
		Meta:       map[string]string{"speaker": "user"},
		Embeddings: store.Embeddings{Backbone: vec(benchBackboneDim), Topic: vec(benchProjDim), Logic: vec(benchProjDim)},
	}
}

func fill(b *testing.B, s store.Store, n int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for start := 0; start < n; start += 500 {
		err := s.Tx(ctx, "bench", func(tx store.Tx) error {
			for i := start; i < min(start+500, n); i++ {
				if err := tx.Put(ctx, benchRecord(rng, i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

type benchImpl struct {
	name string
	open func(b *testing.B) store.Store
}

var benchImpls = []benchImpl{
	{"SQLite", func(b *testing.B) store.Store {
		s, err := store.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "bank.db"), store.Config{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}},
	{"Memory", func(b *testing.B) store.Store {
		s, err := store.NewMemory(store.Config{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}},
}

// BenchmarkPut measures one-record commits (each its own transaction, with the commit
// check) into a bank of 1,000 records.
func BenchmarkPut(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run(impl.name, func(b *testing.B) {
			s := impl.open(b)
			defer s.Close()
			fill(b, s, 1000)
			rng := rand.New(rand.NewPCG(3, 4))
			ctx := context.Background()
			i := 1000
			for b.Loop() {
				r := benchRecord(rng, i)
				i++
				if err := s.Tx(ctx, "bench", func(tx store.Tx) error { return tx.Put(ctx, r) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVersionGroup reads one slot's group (1/50 of a 10k bank).
func BenchmarkVersionGroup(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run(impl.name, func(b *testing.B) {
			s := impl.open(b)
			defer s.Close()
			fill(b, s, 10000)
			ctx := context.Background()
			for b.Loop() {
				if _, err := s.VersionGroup(ctx, "bench", "slot.7"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBankSize reports the SQLite bank's size on disk per 1,000 records with a
// 512-d backbone and two 128-d projections (after a WAL checkpoint).
func BenchmarkBankSize(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		path := filepath.Join(dir, "bank.db")
		s, err := store.OpenSQLite(context.Background(), path, store.Config{})
		if err != nil {
			b.Fatal(err)
		}
		const n = 5000
		fill(b, s, n)
		size, err := sqlitedb.DiskSize(context.Background(), s.DB(), path)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(size)/(n/1000), "bytes/1k-records")
	}
}
