package host

import (
	"container/heap"
	"fmt"
	"maps"
	"slices"

	"github.com/viterin/vek/vek32"

	"github.com/atma-dev/atma/overlay/store/fts"
)

// denseIndex holds one user's unit vectors in one row-major slice and searches them by
// brute force, a dot product per vector, or, from cfg.Threshold vectors, through an
// HNSW graph over the same slots (ann) while the graph passes its recall check
// (calibrate). While the graph exists slots are stable: a
// removed or replaced vector leaves a dead slot (id "") that keeps its vector for the
// graph's routing until the next rebuild. Not safe for concurrent use.
type denseIndex struct {
	cfg  ANNConfig // resolved
	dim  int
	ids  []string  // by slot; "" for a dead slot (only while ann is set)
	vecs []float32 // len(ids) × dim
	pos  map[string]int
	ann  *hnsw
	// calibrated is the number of vectors at the graph's last calibration; exactUntil,
	// after a calibration dropped the graph, the number from which a graph is tried again.
	calibrated, exactUntil int
}

func newDenseIndex(cfg ANNConfig) *denseIndex {
	return &denseIndex{cfg: cfg.resolved(), pos: map[string]int{}}
}

func (d *denseIndex) len() int { return len(d.pos) }

// set stores unit vector v under id, replacing id's vector; an empty v removes id.
func (d *denseIndex) set(id string, v []float32) error {
	if len(v) == 0 {
		d.remove(id)
		return nil
	}
	i, ok := d.pos[id]
	if ok && len(v) == d.dim && d.ann == nil {
		copy(d.vecs[i*d.dim:(i+1)*d.dim], v)
		return nil
	}
	others := d.len()
	if ok {
		others--
	}
	if others > 0 && len(v) != d.dim {
		return fmt.Errorf("%w: vector has %d dimensions, this user's have %d", ErrInvalid, len(v), d.dim)
	}
	d.remove(id)
	if d.len() == 0 {
		d.ids, d.vecs, d.ann = d.ids[:0], d.vecs[:0], nil
		d.calibrated, d.exactUntil = 0, 0
	}
	d.dim = len(v)
	slot := len(d.ids)
	d.pos[id] = slot
	d.ids = append(d.ids, id)
	d.vecs = append(d.vecs, v...)
	switch {
	case d.ann != nil:
		d.ann.insert(slot)
		if d.len() >= 2*d.calibrated {
			d.calibrate()
		}
	case d.cfg.Threshold > 0 && d.len() >= d.cfg.Threshold && d.len() >= d.exactUntil:
		d.rebuild()
	}
	return nil
}

// rebuild drops the dead slots and builds the graph over the rest.
func (d *denseIndex) rebuild() {
	d.compact()
	d.ann = newHNSW(d.cfg, d)
	for slot := range d.ids {
		d.ann.insert(slot)
	}
	d.calibrate()
}

// calibrationSample is how many of a user's vectors calibrate searches the graph for.
const calibrationSample = 64

// calibrate checks the graph against cfg.Recall: each vector of a sample of the user's
// own (evenly spaced over the slots, so the same vectors give the same sample) is
// searched for among the others, by brute force and through the graph with the beam
// EfSearch, then twice that, and so on, and the first beam whose top 10 hold Recall of
// brute force's becomes the search beam. A beam of n/(4M) nodes already computes about
// n/2 dot products, as much as a scan of half the vectors with a heap kept besides: when
// no beam up to that (or EfSearch, if larger) reaches Recall, the graph is dropped and
// dense search is exact until the user has twice as many vectors. Vectors with
// neighbourhood structure (sentence embeddings) pass at EfSearch; uniform random
// directions in many dimensions do not pass at all.
func (d *denseIndex) calibrate() {
	g := d.ann
	d.calibrated = d.len()
	if g == nil || d.cfg.Recall < 0 || d.len() < 2 {
		return
	}
	const k = 10
	var sample []int
	step := max(len(d.ids)/calibrationSample, 1)
	for slot := 0; slot < len(d.ids) && len(sample) < calibrationSample; slot += step {
		if d.ids[slot] != "" {
			sample = append(sample, slot)
		}
	}
	// others are the n best of a search for slot's vector, without slot's own memory.
	others := func(slot int, hits []scoredID, n int) []string {
		var out []string
		for _, h := range hits {
			if h.id != d.ids[slot] && len(out) < n {
				out = append(out, h.id)
			}
		}
		return out
	}
	want := make([][]string, len(sample))
	total := 0
	for i, slot := range sample {
		want[i] = others(slot, d.exact(d.vecs[slot*d.dim:(slot+1)*d.dim], k+1), k)
		total += len(want[i])
	}
	efMax := max(g.cfg.EfSearch, d.len()/(4*g.cfg.M))
	for ef := g.cfg.EfSearch; ef <= efMax; ef *= 2 {
		found := 0
		for i, slot := range sample {
			got := others(slot, g.searchBeam(d.vecs[slot*d.dim:(slot+1)*d.dim], k+1, ef), k)
			for _, id := range got {
				if slices.Contains(want[i], id) {
					found++
				}
			}
		}
		if float64(found) >= d.cfg.Recall*float64(total) {
			g.ef = ef
			return
		}
	}
	d.ann = nil
	d.compact()
	d.exactUntil = 2 * d.len()
}

// compact drops the dead slots.
func (d *denseIndex) compact() {
	if len(d.ids) == d.len() {
		return
	}
	j := 0
	for i, id := range d.ids {
		if id == "" {
			continue
		}
		if i != j {
			d.ids[j] = id
			copy(d.vecs[j*d.dim:(j+1)*d.dim], d.vecs[i*d.dim:(i+1)*d.dim])
		}
		d.pos[id] = j
		j++
	}
	d.ids, d.vecs = d.ids[:j], d.vecs[:j*d.dim]
}

// vector returns a copy of id's vector, nil when it has none.
func (d *denseIndex) vector(id string) []float32 {
	i, ok := d.pos[id]
	if !ok {
		return nil
	}
	return slices.Clone(d.vecs[i*d.dim : (i+1)*d.dim])
}

// remove drops id: by moving the last vector into its place, or, while the graph
// exists, by leaving a dead slot. The graph goes when the user falls below half the
// threshold, and is rebuilt when dead slots pass a quarter of all.
func (d *denseIndex) remove(id string) {
	i, ok := d.pos[id]
	if !ok {
		return
	}
	delete(d.pos, id)
	if d.ann != nil {
		d.ids[i] = ""
		d.ann.kill(i)
		switch {
		case d.len() < d.cfg.Threshold/2:
			d.ann = nil
			d.compact()
		case 4*d.ann.dead > len(d.ids):
			d.rebuild()
		}
		return
	}
	last := len(d.ids) - 1
	if i != last {
		d.ids[i] = d.ids[last]
		d.pos[d.ids[i]] = i
		copy(d.vecs[i*d.dim:(i+1)*d.dim], d.vecs[last*d.dim:])
	}
	d.ids = d.ids[:last]
	d.vecs = d.vecs[:last*d.dim]
}

// search returns the n vectors most similar to unit vector q (cosine), best first,
// ties by id: exactly, or, while the graph exists, the n best the graph's beam finds,
// with their exact cosines.
func (d *denseIndex) search(q []float32, n int) ([]scoredID, error) {
	if d.len() == 0 || n <= 0 {
		return nil, nil
	}
	if len(q) != d.dim {
		return nil, fmt.Errorf("%w: query vector has %d dimensions, this user's have %d", ErrInvalid, len(q), d.dim)
	}
	if d.ann != nil {
		return d.ann.search(q, n), nil
	}
	return d.exact(q, n), nil
}

// exact is search by brute force.
func (d *denseIndex) exact(q []float32, n int) []scoredID {
	h := make(minHeap, 0, n)
	for i, id := range d.ids {
		if id == "" {
			continue
		}
		s := float64(dot(q, d.vecs[i*d.dim:(i+1)*d.dim]))
		c := scoredID{id: id, score: s}
		if len(h) < n {
			heap.Push(&h, c)
		} else if better(c, h[0]) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	}
	out := make([]scoredID, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(scoredID)
	}
	return out
}

// dot is the inner product of two equal-length vectors: vek's AVX2 kernel where the
// CPU has it (about 19 ns at 512 dimensions, 8× a Go loop unrolled by four), its Go
// loop elsewhere.
func dot(a, b []float32) float32 { return vek32.Dot(a, b[:len(a)]) }

// better orders candidates: higher score, then smaller id.
func better(a, b scoredID) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// minHeap keeps the worst kept candidate on top.
type minHeap []scoredID

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scoredID)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fits reports whether the index can take the batch as a whole: after it, every vector
// must have one dimension.
func (d *denseIndex) fits(ms []Memory) error {
	dim := 0
	inBatch := make(map[string]bool, len(ms))
	for _, m := range ms {
		inBatch[m.ID] = true
		if n := len(m.Vector); n > 0 {
			if dim != 0 && n != dim {
				return fmt.Errorf("%w: memory %q has a %d-dimensional vector, the batch has %d", ErrInvalid, m.ID, n, dim)
			}
			dim = n
		}
	}
	if dim == 0 || dim == d.dim {
		return nil
	}
	kept := 0
	for id := range d.pos {
		if !inBatch[id] {
			kept++
		}
	}
	if kept > 0 {
		return fmt.Errorf("%w: vectors have %d dimensions, this user's have %d", ErrInvalid, dim, d.dim)
	}
	return nil
}

// userIndex is one user's memories in memory, with what a search runs on: their
// vectors and an inverted index of their text. BM25's statistics (document count,
// average length, document frequencies) are the user's own, so no user's memories move
// another's scores. Not safe for concurrent use.
type userIndex struct {
	mems  map[string]Memory // without their vectors, which dense holds
	dense *denseIndex
	text  *fts.Index
}

func newUserIndex(ann ANNConfig) *userIndex {
	return &userIndex{mems: map[string]Memory{}, dense: newDenseIndex(ann), text: fts.NewIndex()}
}

func (u *userIndex) len() int { return len(u.mems) }

// set indexes m (a prepared memory: unit vector or none), replacing what m.ID had.
func (u *userIndex) set(m Memory) error {
	if err := u.dense.set(m.ID, m.Vector); err != nil {
		return err
	}
	u.text.Add(m.ID, m.Content)
	m.Vector, m.Meta = nil, maps.Clone(m.Meta)
	u.mems[m.ID] = m
	return nil
}

func (u *userIndex) remove(id string) {
	delete(u.mems, id)
	u.dense.remove(id)
	u.text.Remove(id)
}

// memory returns a copy of the memory with id.
func (u *userIndex) memory(id string) (Memory, bool) {
	m, ok := u.mems[id]
	if !ok {
		return Memory{}, false
	}
	m.Vector, m.Meta = u.dense.vector(id), maps.Clone(m.Meta)
	return m, true
}

// search builds the dense list (when q is not nil) and the BM25 list, each cfg.depth(k)
// deep, and fuses them into the k best hits, with copies of their memories.
func (u *userIndex) search(cfg Config, query string, q []float32, k int) ([]Hit, error) {
	n := cfg.depth(k)
	var dense, text []scoredID
	if q != nil {
		var err error
		if dense, err = u.dense.search(q, n); err != nil {
			return nil, err
		}
	}
	for _, sc := range u.text.Search(query, n) {
		text = append(text, scoredID{id: sc.ID, score: sc.Score})
	}
	hits := fuse(cfg.rrfK(), k, dense, text)
	for i := range hits {
		hits[i].Memory, _ = u.memory(hits[i].ID)
	}
	return hits, nil
}
