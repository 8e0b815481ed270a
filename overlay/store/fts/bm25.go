package fts

import (
	"math"
	"sort"
)

// BM25 parameters, FTS5's defaults.
const (
	K1 = 1.2
	B  = 0.75
)

// Scored is a document and its BM25 score (higher is better).
type Scored struct {
	ID    string
	Score float64
}

// Index is an in-memory inverted index scored with BM25. The zero value is not usable;
// call NewIndex. Not safe for concurrent use.
type Index struct {
	docs     map[string]map[string]int // doc → term → count
	lens     map[string]int
	postings map[string]map[string]int // term → doc → count
	total    int
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		docs:     map[string]map[string]int{},
		lens:     map[string]int{},
		postings: map[string]map[string]int{},
	}
}

// Len returns the number of documents.
func (ix *Index) Len() int { return len(ix.docs) }

// Add indexes text under id, replacing what id had.
func (ix *Index) Add(id, text string) {
	ix.Remove(id)
	toks := Tokenize(text)
	tf := make(map[string]int, len(toks))
	for _, t := range toks {
		tf[t]++
	}
	ix.docs[id] = tf
	ix.lens[id] = len(toks)
	ix.total += len(toks)
	for t, n := range tf {
		p := ix.postings[t]
		if p == nil {
			p = map[string]int{}
			ix.postings[t] = p
		}
		p[id] = n
	}
}

// Remove drops id; removing an absent id does nothing.
func (ix *Index) Remove(id string) {
	tf, ok := ix.docs[id]
	if !ok {
		return
	}
	for t := range tf {
		p := ix.postings[t]
		delete(p, id)
		if len(p) == 0 {
			delete(ix.postings, t)
		}
	}
	ix.total -= ix.lens[id]
	delete(ix.docs, id)
	delete(ix.lens, id)
}

// Search returns the k best documents sharing at least one term with query (all matches
// when k ≤ 0), best first, ties by id. Query terms are Terms(query, MaxQueryTerms), less
// the Prunable ones.
func (ix *Index) Search(query string, k int) []Scored {
	n := float64(len(ix.docs))
	if n == 0 {
		return nil
	}
	avg := float64(ix.total) / n
	scores := map[string]float64{}
	for _, t := range Terms(query, MaxQueryTerms) {
		p := ix.postings[t]
		if len(p) == 0 || Prunable(len(p), len(ix.docs)) {
			continue
		}
		df := float64(len(p))
		idf := math.Log((n - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for id, f := range p {
			ff := float64(f)
			dl := float64(ix.lens[id])
			scores[id] += idf * ff * (K1 + 1) / (ff + K1*(1-B+B*dl/avg))
		}
	}
	out := make([]Scored, 0, len(scores))
	for id, s := range scores {
		out = append(out, Scored{ID: id, Score: s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}
