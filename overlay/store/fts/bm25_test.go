package fts_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/atma-dev/atma/overlay/store/fts"
)

// exhaustive is BM25 by the package doc's formula, the slow way: every document
// scored against every query term, all of them sorted, the first k kept. It shares
// nothing with Index but Tokenize, Terms and Prunable.
type exhaustive struct {
	counts map[string]map[string]int // document → term → count
	lens   map[string]int
	total  int
}

func newExhaustive(docs map[string]string) *exhaustive {
	e := &exhaustive{counts: map[string]map[string]int{}, lens: map[string]int{}}
	for id, text := range docs {
		toks := fts.Tokenize(text)
		c := map[string]int{}
		for _, t := range toks {
			c[t]++
		}
		e.counts[id], e.lens[id] = c, len(toks)
		e.total += len(toks)
	}
	return e
}

// docFreq is the number of documents with term.
func (e *exhaustive) docFreq(term string) int {
	df := 0
	for _, c := range e.counts {
		if c[term] > 0 {
			df++
		}
	}
	return df
}

func (e *exhaustive) search(query string, k int) []fts.Scored {
	if len(e.counts) == 0 {
		return nil
	}
	n := float64(len(e.counts))
	avg := float64(e.total) / n
	scores := map[string]float64{}
	for _, t := range fts.Terms(query, fts.MaxQueryTerms) {
		df := e.docFreq(t)
		if df == 0 || fts.Prunable(df, len(e.counts)) {
			continue
		}
		idf := math.Log((n - float64(df) + 0.5) / (float64(df) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for id, c := range e.counts {
			if f := float64(c[t]); f > 0 {
				scores[id] += idf * f * (fts.K1 + 1) / (f + fts.K1*(1-fts.B+fts.B*float64(e.lens[id])/avg))
			}
		}
	}
	var out []fts.Scored
	for id, s := range scores {
		out = append(out, fts.Scored{ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b fts.Scored) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}

// randomCorpus builds an Index and the same documents in a map through a random run of
// adds, replacements and removals, so the index's document and term numbers are reused
// as they are in a host's life. Words come from a skewed law over vocab words, with
// stop words among them; some documents repeat an earlier one's text under another id,
// so scores tie.
type randomCorpus struct {
	rng   *rand.Rand
	vocab []string
	docs  map[string]string
	ix    *fts.Index
}

func newRandomCorpus(seed uint64, vocab int) *randomCorpus {
	c := &randomCorpus{rng: rand.New(rand.NewPCG(seed, 0xb325)), docs: map[string]string{}, ix: fts.NewIndex()}
	for i := range vocab {
		c.vocab = append(c.vocab, fmt.Sprintf("w%d", i))
	}
	c.vocab = append(c.vocab, "the", "my", "was")
	return c
}

func (c *randomCorpus) word() string {
	// Squaring a uniform draw favours the first words: w0 is in most documents.
	u := c.rng.Float64()
	return c.vocab[int(u*u*float64(len(c.vocab)))]
}

func (c *randomCorpus) text(words int) string {
	out := make([]string, words)
	for i := range out {
		out[i] = c.word()
	}
	if c.rng.IntN(4) == 0 {
		out = append(out, out[0]) // a repeated term
	}
	return strings.Join(out, " ")
}

// id is random, so id order is not the order of adding.
func (c *randomCorpus) id() string { return fmt.Sprintf("d%04d", c.rng.IntN(10_000)) }

func (c *randomCorpus) step() {
	var ids []string
	for id := range c.docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	switch r := c.rng.IntN(10); {
	case r == 0 && len(ids) > 0:
		id := ids[c.rng.IntN(len(ids))]
		c.ix.Remove(id)
		delete(c.docs, id)
	case r <= 2 && len(ids) > 0:
		// Another document's text under a new or an existing id.
		id, text := c.id(), c.docs[ids[c.rng.IntN(len(ids))]]
		c.ix.Add(id, text)
		c.docs[id] = text
	default:
		id, text := c.id(), c.text(1+c.rng.IntN(12))
		c.ix.Add(id, text)
		c.docs[id] = text
	}
}

// TestSearchMatchesExhaustive checks Index.Search against exhaustive on random corpora
// and queries: the same documents in the same order (ties by id), the same scores up
// to rounding. It also counts that the cases worth checking came up: a tie across the
// k-th place, more matches than k, a term left out as Prunable.
func TestSearchMatchesExhaustive(t *testing.T) {
	var tiesAtCut, truncated, pruned int
	check := func(t *testing.T, c *randomCorpus, e *exhaustive, query string, k int) {
		t.Helper()
		got, want := c.ix.Search(query, k), e.search(query, k)
		if len(got) != len(want) {
			t.Fatalf("query %q, k %d: %d results, exhaustive %d\ngot  %v\nwant %v", query, k, len(got), len(want), got, want)
		}
		for i := range want {
			if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9*max(1, want[i].Score) {
				t.Fatalf("query %q, k %d, rank %d: %v, exhaustive %v\ngot  %v\nwant %v", query, k, i, got[i], want[i], got, want)
			}
		}
		if all := e.search(query, 0); k > 0 && len(all) > k {
			truncated++
			if all[k-1].Score == all[k].Score {
				tiesAtCut++
			}
		}
	}
	queries := func(c *randomCorpus) []string {
		qs := []string{"", "zebra", "the my was", "the w0", c.vocab[0] + " " + c.vocab[0]}
		for range 30 {
			qs = append(qs, c.text(1+c.rng.IntN(6)))
		}
		return qs
	}
	for seed := range uint64(300) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			c := newRandomCorpus(seed, 3+int(seed%40))
			steps := 1 + c.rng.IntN(120)
			for range steps {
				c.step()
			}
			if c.ix.Len() != len(c.docs) {
				t.Fatalf("Len %d, %d documents", c.ix.Len(), len(c.docs))
			}
			e := newExhaustive(c.docs)
			for _, q := range queries(c) {
				for _, k := range []int{0, 1, 2, 3, 5, 10, len(c.docs) + 1} {
					check(t, c, e, q, k)
				}
			}
		})
	}
	// Collections large enough for Prunable: a common word in about half the documents.
	for seed := range uint64(3) {
		t.Run(fmt.Sprintf("large%d", seed), func(t *testing.T) {
			c := newRandomCorpus(1000+seed, 30)
			for range 2*fts.PruneMinDF + 300 {
				c.step()
			}
			e := newExhaustive(c.docs)
			for _, q := range queries(c) {
				for _, term := range fts.Terms(q, fts.MaxQueryTerms) {
					if fts.Prunable(e.docFreq(term), len(c.docs)) {
						pruned++
					}
				}
				for _, k := range []int{0, 1, 10, 100} {
					check(t, c, e, q, k)
				}
			}
		})
	}
	// Most documents removed: the index renumbers the rest and bounds its terms again.
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("churn%d", seed), func(t *testing.T) {
			c := newRandomCorpus(2000+seed, 10+10*int(seed))
			for range 3000 {
				c.step()
			}
			before := c.ix.Numbers()
			var ids []string
			for id := range c.docs {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			for _, id := range ids[:len(ids)-300] {
				c.ix.Remove(id)
				delete(c.docs, id)
			}
			// Renumbered once removed numbers outnumber the documents left.
			if got := c.ix.Numbers(); got >= len(c.docs)+before/2 {
				t.Fatalf("%d documents hold %d numbers, %d before the removals: not renumbered", len(c.docs), got, before)
			}
			for _, more := range []int{0, 300} {
				for range more {
					c.step()
				}
				e := newExhaustive(c.docs)
				for _, q := range queries(c) {
					for _, k := range []int{0, 1, 2, 3, 5, 10} {
						check(t, c, e, q, k)
					}
				}
			}
		})
	}
	if tiesAtCut == 0 || truncated == 0 || pruned == 0 {
		t.Errorf("the corpora never exercised a case: %d ties across the k-th place, %d searches with more matches than k, %d query terms left out as Prunable", tiesAtCut, truncated, pruned)
	}
}

// TestSearchConcurrent runs searches of one index at once, as the host does under a
// read lock: each must give what it gives alone (the searches share pooled scratch
// space; run with -race to check them for races too).
func TestSearchConcurrent(t *testing.T) {
	c := newRandomCorpus(42, 200)
	for range 3000 {
		c.step()
	}
	var qs []string
	for range 64 {
		qs = append(qs, c.text(1+c.rng.IntN(6)))
	}
	want := make([][]fts.Scored, len(qs))
	for i, q := range qs {
		want[i] = c.ix.Search(q, 10)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for w := range 8 {
		wg.Go(func() {
			for r := range 20 {
				i := (w*7 + r) % len(qs)
				if got := c.ix.Search(qs[i], 10); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("query %q: %v alone, %v among others", qs[i], want[i], got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
