package fts

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
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
// call NewIndex. Searches may run concurrently with each other; Add and Remove need the
// index to themselves.
//
// Documents and terms are numbered. A term's postings are (document number, count)
// pairs in document order; a document added gets the next number, and the numbers of
// removed documents are dropped by renumbering the rest (in order, so postings stay
// sorted) once they outnumber the documents left.
type Index struct {
	num  map[string]int32 // id → document number
	ids  []string         // by document number; "" for a removed document
	lens []int32          // token count by document number
	docs [][]int32        // distinct term numbers by document number, for Remove
	dead int              // removed document numbers

	dict      map[string]int32 // term → term number
	names     []string         // by term number; "" for a free number
	postings  [][]posting      // by term number, in document order
	bounds    []termBound      // by term number
	freeTerms []int32

	total int // tokens of all documents
}

// posting is one document of a term's postings and the term's count in it.
type posting struct {
	doc, tf int32
}

// termBound is the highest count of a term in a document and the shortest document with
// the term: what the term adds to a score is at most its weight at that count in a
// document that short. Removals leave it as it was, still a bound; renumbering
// tightens it again.
type termBound struct {
	maxTF, minLen int32
}

// compactMin is the fewest removed document numbers that renumbering waits for.
const compactMin = 1024

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{num: map[string]int32{}, dict: map[string]int32{}}
}

// Len returns the number of documents.
func (ix *Index) Len() int { return len(ix.num) }

// Add indexes text under id, replacing what id had.
func (ix *Index) Add(id, text string) {
	ix.Remove(id)
	toks := Tokenize(text)
	tf := make(map[string]int32, len(toks))
	for _, t := range toks {
		tf[t]++
	}
	d := int32(len(ix.ids))
	ix.num[id] = d
	ix.ids, ix.lens = append(ix.ids, id), append(ix.lens, int32(len(toks)))
	ix.total += len(toks)
	terms := make([]int32, 0, len(tf))
	for t, n := range tf {
		tn := ix.term(t)
		ix.postings[tn] = append(ix.postings[tn], posting{doc: d, tf: n})
		b := &ix.bounds[tn]
		b.maxTF, b.minLen = max(b.maxTF, n), min(b.minLen, int32(len(toks)))
		terms = append(terms, tn)
	}
	ix.docs = append(ix.docs, terms)
}

// term returns t's term number, numbering it if it is new.
func (ix *Index) term(t string) int32 {
	if tn, ok := ix.dict[t]; ok {
		return tn
	}
	var tn int32
	if n := len(ix.freeTerms); n > 0 {
		tn, ix.freeTerms = ix.freeTerms[n-1], ix.freeTerms[:n-1]
		ix.names[tn] = t
	} else {
		tn = int32(len(ix.names))
		ix.names, ix.postings, ix.bounds = append(ix.names, t), append(ix.postings, nil), append(ix.bounds, termBound{})
	}
	ix.bounds[tn] = termBound{maxTF: 0, minLen: math.MaxInt32}
	ix.dict[t] = tn
	return tn
}

// Remove drops id; removing an absent id does nothing.
func (ix *Index) Remove(id string) {
	d, ok := ix.num[id]
	if !ok {
		return
	}
	for _, tn := range ix.docs[d] {
		p := ix.postings[tn]
		i, _ := slices.BinarySearchFunc(p, d, func(x posting, d int32) int { return cmp.Compare(x.doc, d) })
		p = slices.Delete(p, i, i+1) // O(len(p)): removals are rare beside searches
		if len(p) == 0 {
			delete(ix.dict, ix.names[tn])
			ix.names[tn] = ""
			ix.freeTerms = append(ix.freeTerms, tn)
			p = nil
		}
		ix.postings[tn] = p
	}
	ix.total -= int(ix.lens[d])
	delete(ix.num, id)
	ix.ids[d], ix.lens[d], ix.docs[d] = "", 0, nil
	ix.dead++
	if ix.dead >= compactMin && ix.dead > len(ix.num) {
		ix.compact()
	}
}

// compact renumbers the documents without the removed ones' numbers, keeping their
// order, and computes the terms' bounds again.
func (ix *Index) compact() {
	renum := make([]int32, len(ix.ids))
	j := int32(0)
	for d, id := range ix.ids {
		if id == "" {
			continue
		}
		renum[d] = j
		ix.ids[j], ix.lens[j], ix.docs[j] = id, ix.lens[d], ix.docs[d]
		ix.num[id] = j
		j++
	}
	clear(ix.docs[j:])
	ix.ids, ix.lens, ix.docs = ix.ids[:j], ix.lens[:j], ix.docs[:j]
	for tn, p := range ix.postings {
		b := termBound{minLen: math.MaxInt32}
		for i := range p {
			p[i].doc = renum[p[i].doc]
			b.maxTF, b.minLen = max(b.maxTF, p[i].tf), min(b.minLen, ix.lens[p[i].doc])
		}
		ix.bounds[tn] = b
	}
	ix.dead = 0
}

// cursor walks one query term's postings.
type cursor struct {
	p       []posting // from the current posting on
	idf, ub float64   // ub bounds what the term adds to a score (termBound)
	at      int       // the term's place in the query
}

// searchScratch is what a search writes, kept for the next in searchPool.
type searchScratch struct {
	cs    []cursor
	below []float64
	top   topK
}

var searchPool = sync.Pool{New: func() any { return new(searchScratch) }}

// slack bounds the relative rounding error of a sum of contributions or bounds added
// in another order than the query's: a document is passed over only when its bound
// falls short of the k-th score by twice that share.
const slack = 1e-9

// Search returns the k best documents sharing at least one term with query (all matches
// when k ≤ 0), best first, ties by id. Query terms are Terms(query, MaxQueryTerms), less
// the Prunable ones.
//
// It walks the terms' postings together in document order (max-score, Turtle and
// Flood, 1995): once k documents are kept, the terms whose bounds together fall short
// of the k-th score cannot make a document enter by themselves, so only the other
// terms' postings propose documents, and the first ones are looked up in (by skipping
// ahead) only while the document can still reach the k-th score. Every score kept is
// summed in the query's order, as a walk of every posting would.
func (ix *Index) Search(query string, k int) []Scored {
	live := len(ix.num)
	if live == 0 {
		return nil
	}
	n := float64(live)
	sc := searchPool.Get().(*searchScratch)
	defer searchPool.Put(sc)
	cs := sc.cs[:0]
	defer func() { clear(cs); sc.cs = cs[:0] }() // no postings held in the pool
	avg := float64(ix.total) / n
	for _, t := range Terms(query, MaxQueryTerms) {
		tn, ok := ix.dict[t]
		if !ok || Prunable(len(ix.postings[tn]), live) {
			continue
		}
		df := float64(len(ix.postings[tn]))
		idf := math.Log((n - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		b := ix.bounds[tn]
		cs = append(cs, cursor{p: ix.postings[tn], idf: idf, ub: weight(idf, b.maxTF, b.minLen, avg), at: len(cs)})
	}
	if len(cs) == 0 {
		return nil
	}
	if k <= 0 || k > live {
		k = live
	}
	score := func(c *cursor, x posting) float64 { return weight(c.idf, x.tf, ix.lens[x.doc], avg) }
	// Lowest bound first; below[i] bounds what cs[:i] add together.
	slices.SortStableFunc(cs, func(a, b cursor) int { return cmp.Compare(a.ub, b.ub) })
	below := append(sc.below[:0], 0)
	for i, c := range cs {
		below = append(below, below[i]+c.ub)
	}
	sc.below = below
	top := &sc.top
	top.reset(k)
	// A document whose bound is under floor cannot enter: k documents score more.
	floor := 0.0
	// cs[:ne] cannot make a document enter by themselves.
	ne := 0
	var part [MaxQueryTerms]float64 // by place in the query
	for ne < len(cs) {
		d := int32(math.MaxInt32)
		for i := ne; i < len(cs); i++ {
			if p := cs[i].p; len(p) > 0 && p[0].doc < d {
				d = p[0].doc
			}
		}
		if d == math.MaxInt32 {
			break
		}
		sum := 0.0 // in another order than the query's: for bounds only
		for i := ne; i < len(cs); i++ {
			c := &cs[i]
			if len(c.p) > 0 && c.p[0].doc == d {
				v := score(c, c.p[0])
				part[c.at], sum = v, sum+v
				c.p = c.p[1:]
			}
		}
		passed := sum+below[ne] < floor
		for i := ne - 1; i >= 0 && !passed; i-- {
			c := &cs[i]
			c.p = skipTo(c.p, d)
			if len(c.p) > 0 && c.p[0].doc == d {
				v := score(c, c.p[0])
				part[c.at], sum = v, sum+v
			}
			passed = sum+below[i] < floor
		}
		s := 0.0
		for at := range cs {
			s += part[at]
			part[at] = 0
		}
		if passed || !top.add(s, d) {
			continue
		}
		floor = top.min() * (1 - 2*slack)
		for ne < len(cs) && below[ne+1] < floor {
			ne++
		}
	}
	return top.sorted(ix.ids)
}

// weight is what a term of weight idf adds to the score of a document of dl tokens,
// tf of them the term, when documents have avg tokens.
func weight(idf float64, tf, dl int32, avg float64) float64 {
	ff := float64(tf)
	return idf * ff * (K1 + 1) / (ff + K1*(1-B+B*float64(dl)/avg))
}

// skipTo returns p from its first posting of a document ≥ d on, by galloping.
func skipTo(p []posting, d int32) []posting {
	if len(p) == 0 || p[0].doc >= d {
		return p
	}
	lo, hi := 0, 1 // p[lo].doc < d
	for hi < len(p) && p[hi].doc < d {
		lo, hi = hi, 2*hi
	}
	hi = min(hi, len(p))
	for lo+1 < hi { // p[lo].doc < d, and p[hi].doc ≥ d unless hi is the end
		mid := int(uint(lo+hi) >> 1)
		if p[mid].doc < d {
			lo = mid
		} else {
			hi = mid
		}
	}
	return p[hi:]
}

// topK keeps the k best documents by score, ties by id. Scores alone decide what is
// kept while offers come (a min-heap of the k highest, compared as floats): every
// document that scored at least the k-th highest when offered is kept, and the ids of
// those tied at the end are compared once, in sorted.
type topK struct {
	k    int
	h    []float64   // the k highest scores so far, the lowest on top
	kept []scoredDoc // the documents offered that scored at least h[0] then
	trim int         // len(kept) from which it drops those under h[0]
}

type scoredDoc struct {
	score float64
	doc   int32
}

// reset empties t for the k best.
func (t *topK) reset(k int) {
	t.k, t.h, t.kept, t.trim = k, t.h[:0], t.kept[:0], 4*k+64
}

func (t *topK) full() bool { return len(t.h) == t.k }

// min is the k-th highest score so far (the topK is full).
func (t *topK) min() float64 { return t.h[0] }

// add offers a document; it reports whether the k-th highest score rose.
func (t *topK) add(score float64, doc int32) bool {
	h := t.h
	switch {
	case len(h) < t.k:
		h = append(h, score)
		for i := len(h) - 1; i > 0; {
			parent := (i - 1) / 2
			if h[parent] <= h[i] {
				break
			}
			h[parent], h[i] = h[i], h[parent]
			i = parent
		}
		t.h = h
		t.keep(score, doc)
		return len(h) == t.k
	case score < h[0]:
		return false
	case score == h[0]:
		t.keep(score, doc)
		return false
	}
	h[0] = score
	for i := 0; ; {
		low, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l] < h[low] {
			low = l
		}
		if r < len(h) && h[r] < h[low] {
			low = r
		}
		if low == i {
			break
		}
		h[i], h[low] = h[low], h[i]
		i = low
	}
	t.keep(score, doc)
	return true
}

func (t *topK) keep(score float64, doc int32) {
	t.kept = append(t.kept, scoredDoc{score, doc})
	if len(t.kept) < t.trim || !t.full() {
		return
	}
	t.kept = slices.DeleteFunc(t.kept, func(x scoredDoc) bool { return x.score < t.h[0] })
	t.trim = 2*len(t.kept) + 64
}

// sorted returns the k best documents kept, best first, ties by id.
func (t *topK) sorted(ids []string) []Scored {
	kept := t.kept
	if t.full() {
		kept = slices.DeleteFunc(kept, func(x scoredDoc) bool { return x.score < t.h[0] })
	}
	slices.SortFunc(kept, func(a, b scoredDoc) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(ids[a.doc], ids[b.doc])
	})
	kept = kept[:min(t.k, len(kept))]
	out := make([]Scored, len(kept))
	for i, x := range kept {
		out[i] = Scored{ID: ids[x.doc], Score: x.score}
	}
	return out
}
