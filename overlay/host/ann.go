package host

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
)

// Defaults of ANNConfig.
const (
	DefaultANNThreshold      = 50_000
	DefaultANNM              = 12
	DefaultANNEfConstruction = 48
	DefaultANNEfSearch       = 200
	DefaultANNRecall         = 0.95
)

// ANNConfig configures the approximate nearest-neighbour index (HNSW) a user's dense
// search switches to when the user has many vectors. The zero value means defaults.
type ANNConfig struct {
	// Threshold is the number of a user's vectors from which dense search walks an HNSW
	// graph instead of scanning every vector; the graph is dropped again when the user
	// falls below half of it. Default DefaultANNThreshold; negative: never.
	Threshold int
	// M is how many links a node keeps on each upper layer (2M on the base layer).
	// Default DefaultANNM.
	M int
	// EfConstruction is the candidate list of the search that links a new node. Default
	// DefaultANNEfConstruction.
	EfConstruction int
	// EfSearch is the candidate list of a search; a search of n candidates keeps at least
	// max(EfSearch, n). Default DefaultANNEfSearch.
	EfSearch int
	// Recall is the recall@10 the graph must reach on a sample of the user's own vectors
	// (each searched for among the others, against brute force), checked whenever the
	// graph is built and whenever the user has doubled since: the search beam is
	// EfSearch, doubled until the sample reaches Recall, and when only a beam as costly
	// as a scan would, the graph is dropped and dense search stays exact until the user
	// doubles (vectors without neighbourhood structure, such as uniform random
	// directions). Default DefaultANNRecall; negative: not checked, the beam stays
	// EfSearch.
	Recall float64
	// Seed draws the nodes' layers (with the memory's id, so an index is the same
	// whatever order it was built in).
	Seed uint64
}

// Validate reports every problem with c at once.
func (c ANNConfig) Validate() error {
	var errs []error
	if c.M < 0 || c.M == 1 {
		errs = append(errs, fmt.Errorf("m %d: want 0 (default) or at least 2", c.M))
	}
	if c.M > 256 {
		errs = append(errs, fmt.Errorf("m %d is over 256", c.M))
	}
	if c.EfConstruction < 0 {
		errs = append(errs, fmt.Errorf("ef construction %d is negative", c.EfConstruction))
	}
	if c.EfSearch < 0 {
		errs = append(errs, fmt.Errorf("ef search %d is negative", c.EfSearch))
	}
	if math.IsNaN(c.Recall) || c.Recall > 1 {
		errs = append(errs, fmt.Errorf("recall %v: want a share up to 1 (0: default %v, negative: not checked)", c.Recall, DefaultANNRecall))
	}
	return errors.Join(errs...)
}

// resolved returns c with its defaults filled in (Threshold 0 → default, negative → off).
func (c ANNConfig) resolved() ANNConfig {
	if c.Threshold == 0 {
		c.Threshold = DefaultANNThreshold
	}
	if c.M == 0 {
		c.M = DefaultANNM
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = DefaultANNEfConstruction
	}
	c.EfConstruction = max(c.EfConstruction, c.M)
	if c.EfSearch == 0 {
		c.EfSearch = DefaultANNEfSearch
	}
	if c.Recall == 0 {
		c.Recall = DefaultANNRecall
	}
	return c
}

// maxLevel caps a node's layer: with M ≥ 2 a layer above 16 is drawn with probability
// under 2^-16 per node.
const maxLevel = 16

// hnsw is a hierarchical navigable small world graph (Malkov and Yashunin, 2018) over a
// denseIndex's slots: node i is slot i, and its vector is the slot's, so the graph holds
// links only and every score it computes is the exact cosine. A memory removed or
// replaced leaves its node as a tombstone: still walked through (its vector stays in
// the slot), never returned, never linked to again; denseIndex rebuilds the graph when
// tombstones pass a quarter of the nodes. Searches may run concurrently with each
// other, not with insert or kill.
type hnsw struct {
	cfg   ANNConfig
	ml    float64 // level multiplier 1/ln(M)
	d     *denseIndex
	nodes []hnswNode
	dead  int
	entry int32 // -1 while empty
	top   int   // the entry's layer
	seen  []uint64
	ef    int // the search beam: cfg.EfSearch, or wider after denseIndex.calibrate
}

type hnswNode struct {
	links [][]int32 // by layer, 0 … the node's layer
	dead  bool
}

func newHNSW(cfg ANNConfig, d *denseIndex) *hnsw {
	return &hnsw{cfg: cfg, ml: 1 / math.Log(float64(cfg.M)), d: d, entry: -1, ef: cfg.EfSearch}
}

// level draws a node's top layer from its memory's id: floor(-ln(u)·ml), u uniform in (0, 1].
func (g *hnsw) level(id string) int {
	h := fnv.New64a()
	h.Write([]byte(id))
	x := splitmix64(h.Sum64() ^ g.cfg.Seed)
	u := (float64(x>>11) + 1) / (1 << 53)
	return min(int(-math.Log(u)*g.ml), maxLevel)
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func (g *hnsw) vec(i int32) []float32 {
	d := g.d
	return d.vecs[int(i)*d.dim : (int(i)+1)*d.dim]
}

func (g *hnsw) maxLinks(layer int) int {
	if layer == 0 {
		return 2 * g.cfg.M
	}
	return g.cfg.M
}

// kill makes node i a tombstone.
func (g *hnsw) kill(i int) {
	if !g.nodes[i].dead {
		g.nodes[i].dead = true
		g.dead++
	}
}

// insert links slot i, the slot after the last node, into the graph.
func (g *hnsw) insert(i int) {
	if i != len(g.nodes) {
		panic(fmt.Sprintf("hnsw: insert of slot %d into %d nodes", i, len(g.nodes)))
	}
	level := g.level(g.d.ids[i])
	g.nodes = append(g.nodes, hnswNode{links: make([][]int32, level+1)})
	if words := (len(g.nodes) + 63) / 64; words > len(g.seen) {
		g.seen = append(g.seen, make([]uint64, words-len(g.seen))...)
	}
	id := int32(i)
	if g.entry < 0 {
		g.entry, g.top = id, level
		return
	}
	q := g.vec(id)
	ep := cand{s: dot(q, g.vec(g.entry)), i: g.entry}
	for l := g.top; l > level; l-- {
		ep = g.greedy(q, ep, l)
	}
	for l := min(g.top, level); l >= 0; l-- {
		clear(g.seen)
		found := g.searchLayer(q, ep, g.cfg.EfConstruction, l, true, g.seen)
		if len(found) == 0 { // every node reached is a tombstone: link through them
			clear(g.seen)
			found = g.searchLayer(q, ep, g.cfg.EfConstruction, l, false, g.seen)
		}
		links := g.selectLinks(found, g.cfg.M)
		g.nodes[i].links[l] = links
		for _, n := range links {
			g.link(n, id, l)
		}
		ep = found[0]
	}
	if level > g.top {
		g.entry, g.top = id, level
	}
}

// link adds a link from node n to node to on layer l, pruning n's links by the
// heuristic (tombstones first) when they overflow.
func (g *hnsw) link(n, to int32, l int) {
	links := append(g.nodes[n].links[l], to)
	if len(links) > g.maxLinks(l) {
		v := g.vec(n)
		cs := make([]cand, 0, len(links))
		for _, x := range links {
			if !g.nodes[x].dead {
				cs = append(cs, cand{s: dot(v, g.vec(x)), i: x})
			}
		}
		slices.SortFunc(cs, byScore)
		links = g.selectLinks(cs, g.maxLinks(l))
	}
	g.nodes[n].links[l] = links
}

// selectLinks picks up to m of cs (best first) by HNSW's heuristic: a candidate is kept
// when it is closer to the base than to every candidate kept before it, which spreads
// the links over directions. Candidates the heuristic passed over fill the rest.
func (g *hnsw) selectLinks(cs []cand, m int) []int32 {
	out := make([]int32, 0, m)
	var skipped []int32
	for _, c := range cs {
		if len(out) == m {
			break
		}
		v := g.vec(c.i)
		ok := true
		for _, r := range out {
			if dot(v, g.vec(r)) > c.s {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, c.i)
		} else {
			skipped = append(skipped, c.i)
		}
	}
	for _, s := range skipped {
		if len(out) == m {
			break
		}
		out = append(out, s)
	}
	return out
}

// greedy walks layer l from ep to the node most similar to q that none of its
// neighbours beats (tombstones included: they only route).
func (g *hnsw) greedy(q []float32, ep cand, l int) cand {
	for changed := true; changed; {
		changed = false
		for _, n := range g.nodes[ep.i].links[l] {
			if s := dot(q, g.vec(n)); s > ep.s {
				ep, changed = cand{s: s, i: n}, true
			}
		}
	}
	return ep
}

// searchLayer is the beam search of layer l from ep: the ef nodes most similar to q
// that it finds, best first, tombstones left out when live is set. seen is a cleared
// bitset over the nodes.
func (g *hnsw) searchLayer(q []float32, ep cand, ef, l int, live bool, seen []uint64) []cand {
	seen[ep.i/64] |= 1 << (uint(ep.i) % 64)
	next := candHeap{ep} // best first
	var kept candHeap    // worst first (scores negated)
	if !live || !g.nodes[ep.i].dead {
		kept.push(cand{s: -ep.s, i: ep.i})
	}
	for len(next) > 0 {
		c := next.pop()
		if len(kept) >= ef && c.s < -kept[0].s {
			break
		}
		for _, n := range g.nodes[c.i].links[l] {
			w, b := n/64, uint64(1)<<(uint(n)%64)
			if seen[w]&b != 0 {
				continue
			}
			seen[w] |= b
			s := dot(q, g.vec(n))
			if len(kept) >= ef && s <= -kept[0].s {
				continue
			}
			next.push(cand{s: s, i: n})
			if live && g.nodes[n].dead {
				continue
			}
			kept.push(cand{s: -s, i: n})
			if len(kept) > ef {
				kept.pop()
			}
		}
	}
	out := make([]cand, len(kept))
	for i := len(kept) - 1; i >= 0; i-- {
		c := kept.pop()
		out[i] = cand{s: -c.s, i: c.i}
	}
	return out
}

// search returns the n live nodes most similar to unit vector q that a beam of
// max(ef, n) finds, best first, ties by id, as the memories' ids and exact cosines.
func (g *hnsw) search(q []float32, n int) []scoredID {
	return g.searchBeam(q, n, g.ef)
}

// searchBeam is search with a beam of max(ef, n).
func (g *hnsw) searchBeam(q []float32, n, ef int) []scoredID {
	if g.entry < 0 || n <= 0 {
		return nil
	}
	ep := cand{s: dot(q, g.vec(g.entry)), i: g.entry}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(q, ep, l)
	}
	seen := make([]uint64, (len(g.nodes)+63)/64)
	found := g.searchLayer(q, ep, max(ef, n), 0, true, seen)
	out := make([]scoredID, len(found))
	for i, c := range found {
		out[i] = scoredID{id: g.d.ids[c.i], score: float64(c.s)}
	}
	slices.SortFunc(out, func(a, b scoredID) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out[:min(n, len(out))]
}

// cand is a node and its similarity to the vector searched for.
type cand struct {
	s float32
	i int32
}

func byScore(a, b cand) int {
	switch {
	case a.s > b.s:
		return -1
	case a.s < b.s:
		return 1
	}
	return int(a.i - b.i)
}

// candHeap keeps the candidate with the highest s on top (container/heap would box
// every push into an interface).
type candHeap []cand

func (h *candHeap) push(c cand) {
	*h = append(*h, c)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p].s >= a[i].s {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *candHeap) pop() cand {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(a) {
			break
		}
		if r := l + 1; r < len(a) && a[r].s > a[l].s {
			l = r
		}
		if a[i].s >= a[l].s {
			break
		}
		a[i], a[l] = a[l], a[i]
		i = l
	}
	*h = a
	return top
}
