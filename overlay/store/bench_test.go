package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay/internal/benchtest"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
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

// BenchmarkBankMillion measures the bank at a million records, 1,000 users of 1,000
// each (a 512-d backbone and two 256-d projections, the default checkpoint's, as the
// commit path stores them; 50 slots a user), on SQLite and on the PostgreSQL server of
// ATMA_TEST_DATABASE_URL (skipped without it): the size on disk per 1,000 records
// (SQLite: the file after a WAL checkpoint; PostgreSQL: the schema's tables with their
// indexes and TOAST), the fill (a transaction of 1,000 a user, fill-s), and the median
// of the reads a query makes of the bank for a user picked at random: its pool's
// records by id (20 of them, getmany-p50-ms) and a slot's version group
// (group-p50-ms). The host memory's share is package host's BenchmarkBank. It runs only
// when asked for:
//
//	scripts/pg-test.sh run go test -run '^$' -bench BankMillion -benchtime 2000x -timeout 60m ./overlay/store/ -args -bank
func BenchmarkBankMillion(b *testing.B) {
	benchtest.Engines(b, "a million records", func(b *testing.B, e benchtest.Engine) {
		open := func() (*store.SQL, error) {
			if e.URL != "" {
				return store.OpenPostgres(b.Context(), e.URL, store.Config{})
			}
			return store.OpenSQLite(b.Context(), filepath.Join(e.Dir, "bank.db"), store.Config{})
		}
		s, err := open()
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchMillion(b, e, s)
	})
}

func benchMillion(b *testing.B, e benchtest.Engine, s *store.SQL) {
	const per, proj = 1000, 256
	ctx := b.Context()
	rng := rand.New(rand.NewPCG(5, 6))
	fill := benchtest.Fill(b, e, func(u int) error {
		return s.Tx(ctx, benchtest.User(u), func(tx store.Tx) error {
			for i := range per {
				r := benchRecord(rng, i)
				for _, v := range []*[]float32{&r.Embeddings.Topic, &r.Embeddings.Logic} {
					*v = make([]float32, proj)
					for j := range *v {
						(*v)[j] = float32(rng.NormFloat64())
					}
				}
				r.Meta["facts"] = `[{"subject":"user","attribute":"home","value":"lisbon","confidence":0.8}]`
				if err := tx.Put(ctx, r); err != nil {
					return err
				}
			}
			return nil
		})
	})
	size, err := e.Size(ctx, s.DB(), "bank.db")
	if err != nil {
		b.Fatal(err)
	}
	var many, group []time.Duration
	for b.Loop() {
		u := benchtest.User(rng.IntN(benchtest.Users))
		ids := make([]string, 20)
		for i := range ids {
			ids[i] = fmt.Sprintf("r%08d", rng.IntN(per))
		}
		t := time.Now()
		if rs, err := s.GetMany(ctx, u, ids); err != nil || len(rs) == 0 {
			b.Fatalf("get many: %d records, %v", len(rs), err)
		}
		many = append(many, time.Since(t))
		t = time.Now()
		if _, err := s.VersionGroup(ctx, u, fmt.Sprintf("slot.%d", rng.IntN(50))); err != nil {
			b.Fatal(err)
		}
		group = append(group, time.Since(t))
	}
	b.ReportMetric(float64(size)/(benchtest.Users*per/1000), "bytes/1k-records")
	b.ReportMetric(fill.Seconds(), "fill-s")
	b.ReportMetric(benchtest.Percentile(many, 50), "getmany-p50-ms")
	b.ReportMetric(benchtest.Percentile(group, 50), "group-p50-ms")
}
