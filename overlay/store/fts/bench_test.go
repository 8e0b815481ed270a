package fts_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store/fts"
)

// zipfText draws n words from a Zipf law over a 5,000-word vocabulary, the host's
// benchmark corpus (overlay/host BenchmarkSearch).
func zipfText(z *rand.Zipf, n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", z.Uint64())
	}
	return strings.Join(words, " ")
}

// zipfIndex indexes n documents of 15–35 words from the Zipf law, as m%07d.
func zipfIndex(n int) *fts.Index {
	rng := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(rng, 1.1, 2, 4999)
	ix := fts.NewIndex()
	for i := range n {
		ix.Add(fmt.Sprintf("m%07d", i), zipfText(z, 15+rng.IntN(20)))
	}
	return ix
}

// BenchmarkIndexSearch measures Index.Search for the 100 best (the host's candidate
// depth) at 1k, 10k and 100k documents of 15–35 words and 6-word queries, all drawn from
// one Zipf law (s 1.1) over 5,000 words.
func BenchmarkIndexSearch(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			ix := zipfIndex(n)
			qz := rand.NewZipf(rand.New(rand.NewPCG(99, 100)), 1.1, 2, 4999)
			queries := make([]string, 64)
			for i := range queries {
				queries[i] = zipfText(qz, 6)
			}
			i := 0
			for b.Loop() {
				ix.Search(queries[i%len(queries)], 100)
				i++
			}
		})
	}
}

// BenchmarkIndexReplace measures Add of an id the index holds (a removal, then an add)
// at 10k and 100k documents.
func BenchmarkIndexReplace(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			ix := zipfIndex(n)
			rng := rand.New(rand.NewPCG(5, 6))
			z := rand.NewZipf(rng, 1.1, 2, 4999)
			for b.Loop() {
				ix.Add(fmt.Sprintf("m%07d", rng.IntN(n)), zipfText(z, 15+rng.IntN(20)))
			}
		})
	}
}
