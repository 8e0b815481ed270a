package host

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/internal/orttest"
	"github.com/atma-dev/atma/onnx"
	"github.com/atma-dev/atma/overlay/internal/benchtest"
	"github.com/atma-dev/atma/sentry"
)

// lowRank draws unit vectors near a random rank-dimensional subspace of R^dim (noise
// of 0.3 the signal's deviation on each coordinate): random, but with the low intrinsic
// dimension of sentence embeddings. Uniform random directions in 512 dimensions have
// none: every point is nearly as far from a query as its nearest neighbour, and no
// graph index reaches 0.95 recall on them without visiting most of the points (see
// docs/scaling.md).
type lowRank struct {
	rng       *rand.Rand
	dim, rank int
	basis     []float32 // rank × dim
}

func newLowRank(seed uint64, dim, rank int) *lowRank {
	g := &lowRank{rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), dim: dim, rank: rank, basis: make([]float32, rank*dim)}
	for i := range g.basis {
		g.basis[i] = float32(g.rng.NormFloat64())
	}
	return g
}

func (g *lowRank) vector() []float32 {
	v := make([]float32, g.dim)
	for j := range g.rank {
		z := float32(g.rng.NormFloat64())
		row := g.basis[j*g.dim : (j+1)*g.dim]
		for i := range v {
			v[i] += z * row[i]
		}
	}
	noise := 0.3 * math.Sqrt(float64(g.rank))
	for i := range v {
		v[i] += float32(noise * g.rng.NormFloat64())
	}
	u, err := normalize(v)
	if err != nil {
		panic(err)
	}
	return u
}

// recallAt10 is the share of the exact top 10 that the index's dense search (asked for
// DefaultCandidates, as Search asks) puts in its own top 10.
func recallAt10(t testing.TB, d *denseIndex, queries [][]float32) float64 {
	t.Helper()
	found := 0
	for _, q := range queries {
		got, err := d.search(q, DefaultCandidates)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]bool{}
		for _, s := range got[:min(10, len(got))] {
			in[s.id] = true
		}
		for _, s := range d.exact(q, 10) {
			if in[s.id] {
				found++
			}
		}
	}
	return float64(found) / float64(10*len(queries))
}

// annIndex indexes vectors as m%07d with the graph from the first (threshold 1).
func annIndex(t testing.TB, cfg ANNConfig, vecs [][]float32) *denseIndex {
	t.Helper()
	cfg.Threshold = 1
	d := newDenseIndex(cfg)
	start := time.Now()
	for i, v := range vecs {
		if err := d.set(fmt.Sprintf("m%07d", i), v); err != nil {
			t.Fatal(err)
		}
	}
	if d.ann == nil {
		t.Fatalf("no graph: calibration dropped it (recall under %v at every beam cheaper than a scan)", d.cfg.Recall)
	}
	t.Logf("built the graph of %d vectors in %v; search beam %d", len(vecs), time.Since(start).Round(time.Millisecond), d.ann.ef)
	return d
}

// TestANNRecallRandom: on 50,000 random 512-d vectors of low intrinsic dimension the
// graph's top 10 hold at least 95 % of the exact top 10. The build takes 10–20 s on
// two cores, so -short skips it.
func TestANNRecallRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a graph of 50,000 512-d vectors (10–20 s); run without -short")
	}
	g := newLowRank(1, 512, 24)
	vecs := make([][]float32, 50_000)
	for i := range vecs {
		vecs[i] = g.vector()
	}
	d := annIndex(t, ANNConfig{}, vecs)
	queries := make([][]float32, 200)
	for i := range queries {
		queries[i] = g.vector()
	}
	r := recallAt10(t, d, queries)
	t.Logf("recall@10 %.4f (50,000 vectors, default parameters, %d queries)", r, len(queries))
	if r < 0.95 {
		t.Errorf("recall@10 %.4f, want ≥ 0.95", r)
	}
}

// uniform draws unit vectors of dim dimensions uniformly over the sphere.
func uniform(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	u, err := normalize(v)
	if err != nil {
		panic(err)
	}
	return u
}

// TestANNRecallUniform: on 50,000 uniform random 512-d vectors, which no graph searches
// well without visiting most of them, the index still finds at least 95 % of the exact
// top 10: its calibration drops the graph and searches exactly. The graph is built
// (and dropped) as the vectors arrive, 10–30 s on two cores, so -short skips it.
func TestANNRecallUniform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds graphs of up to 50,000 512-d vectors (10–30 s); run without -short")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	d := newDenseIndex(ANNConfig{Threshold: 1})
	start := time.Now()
	for i := range 50_000 {
		if err := d.set(fmt.Sprintf("m%07d", i), uniform(rng, 512)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("indexed 50,000 vectors in %v; graph kept: %v, tried again from %d vectors", time.Since(start).Round(time.Millisecond), d.ann != nil, d.exactUntil)
	if d.ann != nil {
		t.Errorf("the graph was kept (beam %d) on uniform random vectors", d.ann.ef)
	}
	queries := make([][]float32, 100)
	for i := range queries {
		queries[i] = uniform(rng, 512)
	}
	r := recallAt10(t, d, queries)
	t.Logf("recall@10 %.4f (50,000 vectors, default parameters, %d queries)", r, len(queries))
	if r < 0.95 {
		t.Errorf("recall@10 %.4f, want ≥ 0.95", r)
	}
	// Without the check the graph stays, and misses much of the top 10.
	d = newDenseIndex(ANNConfig{Threshold: 1, Recall: -1})
	for i := range 20_000 {
		if err := d.set(fmt.Sprintf("m%07d", i), uniform(rng, 512)); err != nil {
			t.Fatal(err)
		}
	}
	if d.ann == nil || d.ann.ef != DefaultANNEfSearch {
		t.Fatalf("Recall -1: graph %v, want one with the beam %d", d.ann != nil, DefaultANNEfSearch)
	}
	r = recallAt10(t, d, queries)
	t.Logf("recall@10 without the check, 20,000 vectors: %.4f", r)
	if r >= 0.95 {
		t.Errorf("recall@10 without the check %.4f: this data no longer shows what the check is for", r)
	}
}

// TestANNCalibrationWidensBeam: a graph whose beam is too narrow for Recall gets a wider
// one, not dropped, when a beam cheaper than a scan reaches it.
func TestANNCalibrationWidensBeam(t *testing.T) {
	g := newLowRank(2, 64, 8)
	d := newDenseIndex(ANNConfig{Threshold: 1, M: 4, EfConstruction: 8, EfSearch: 11})
	for i := range 4000 {
		if err := d.set(fmt.Sprintf("m%07d", i), g.vector()); err != nil {
			t.Fatal(err)
		}
	}
	if d.ann == nil {
		t.Fatal("the graph was dropped")
	}
	t.Logf("beam %d (EfSearch 11)", d.ann.ef)
	if d.ann.ef <= 11 {
		t.Errorf("beam %d: calibration did not widen it", d.ann.ef)
	}
	queries := make([][]float32, 200)
	for i := range queries {
		queries[i] = g.vector()
	}
	if r := recallAt10(t, d, queries); r < 0.9 {
		t.Errorf("recall@10 %.4f after calibration, want ≥ 0.9", r)
	}
}

// TestANNRecallText: on sentences of package data's generator embedded by the use-lite
// backbone (10,000 indexed, the rest as queries) the graph's top 10 hold at least 95 %
// of the exact top 10. It skips without the backbone (`make models` installs it); the
// vectors are kept in the embedding cache, so only the first run embeds (about 40 s).
func TestANNRecallText(t *testing.T) {
	cache := orttest.CacheDir()
	m, err := onnx.LoadManifest(filepath.Join(cache, "backbones", "use-lite", "manifest.json"))
	if err != nil {
		t.Skipf("needs the use-lite backbone, which `make models` installs: %v", err)
	}
	orttest.Require(t)
	var texts []string
	seen := map[string]bool{}
	for seed := uint64(1); len(texts) < 12_000; seed++ {
		ds, err := data.Generate(data.GenConfig{Seed: seed, Interactions: 3000})
		if err != nil {
			t.Fatal(err)
		}
		add := func(s string) {
			if !seen[s] {
				seen[s] = true
				texts = append(texts, s)
			}
		}
		for _, p := range ds.Profiles {
			for _, f := range p.Facts {
				add(f.Text)
			}
		}
		for _, in := range ds.Interactions {
			add(in.Text)
		}
	}
	enc, err := onnx.NewEncoder(t.Context(), m, onnx.EncoderConfig{BatchSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Destroy()
	// The key `atma sentry` uses for the same backbone, dimension and task.
	key := fmt.Sprintf("%s-%d-%s", enc.ModelSHA256(), enc.Dimension(), m.DefaultTask)
	emb, err := sentry.OpenCache(sentry.CacheConfig{Dir: filepath.Join(cache, "embeddings"), Key: key}, enc)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	raw, err := emb.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float32, len(raw))
	for i, v := range raw {
		if vecs[i], err = normalize(v); err != nil {
			t.Fatal(err)
		}
	}
	d := annIndex(t, ANNConfig{}, vecs[:10_000])
	r := recallAt10(t, d, vecs[10_000:])
	t.Logf("recall@10 %.4f (10,000 sentences, default parameters, %d queries)", r, len(vecs)-10_000)
	if r < 0.95 {
		t.Errorf("recall@10 %.4f, want ≥ 0.95", r)
	}
}

// TestDenseIndexANN drives one index through adds, replacements and removals across
// the threshold both ways, and past the tombstones' rebuild: the invariants hold after
// every step, every search returns live memories only, with their current vectors'
// exact cosines, and finds nearly what brute force finds. The graph must have been
// built, rebuilt for tombstones, and dropped at least once each.
func TestDenseIndexANN(t *testing.T) {
	cfg := ANNConfig{Threshold: 60, M: 6, EfConstruction: 32, EfSearch: 40}
	d := newDenseIndex(cfg)
	rng := rand.New(rand.NewPCG(3, 4))
	vec := func() []float32 {
		v := make([]float32, 8)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		u, _ := normalize(v)
		return u
	}
	live := map[string][]float32{}
	next := 0
	var built, rebuilt, dropped int
	step := func(op string) {
		t.Helper()
		before := d.ann
		switch op {
		case "add":
			id := fmt.Sprintf("m%04d", next)
			next++
			v := vec()
			if err := d.set(id, v); err != nil {
				t.Fatal(err)
			}
			live[id] = v
		case "replace", "remove", "clear":
			if len(live) == 0 {
				return
			}
			ids := slices.Sorted(func(yield func(string) bool) {
				for id := range live {
					if !yield(id) {
						return
					}
				}
			})
			id := ids[rng.IntN(len(ids))]
			switch op {
			case "replace":
				v := vec()
				if err := d.set(id, v); err != nil {
					t.Fatal(err)
				}
				live[id] = v
			case "remove":
				d.remove(id)
				delete(live, id)
			case "clear": // a memory whose vector is dropped
				if err := d.set(id, nil); err != nil {
					t.Fatal(err)
				}
				delete(live, id)
			}
		}
		switch {
		case before == nil && d.ann != nil:
			built++
		case before != nil && d.ann == nil:
			dropped++
		case before != nil && d.ann != before:
			rebuilt++
		}
		checkDense(t, d, live)
	}
	plan := []struct {
		steps int
		ops   []string
	}{
		{150, []string{"add"}}, // past the threshold
		{300, []string{"add", "replace", "replace", "remove", "remove", "clear"}},
		{200, []string{"remove", "remove", "remove", "replace"}}, // below half of it
		{150, []string{"add", "add", "remove"}},
	}
	found, want := 0, 0
	for pi, p := range plan {
		for s := range p.steps {
			step(p.ops[rng.IntN(len(p.ops))])
			if s%10 != 0 || d.ann == nil {
				continue
			}
			for range 3 {
				q := vec()
				got, err := d.search(q, 10)
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range got {
					v, ok := live[h.id]
					if !ok {
						t.Fatalf("phase %d step %d: the graph returned %s, which is not live", pi, s, h.id)
					}
					if c := float64(dot(q, v)); math.Abs(c-h.score) > 1e-6 {
						t.Fatalf("phase %d step %d: %s scored %v, its vector's cosine is %v", pi, s, h.id, h.score, c)
					}
				}
				if !sort.SliceIsSorted(got, func(i, j int) bool { return better(got[i], got[j]) }) {
					t.Fatalf("phase %d step %d: hits out of order: %v", pi, s, got)
				}
				in := map[string]bool{}
				for _, h := range got {
					in[h.id] = true
				}
				for _, h := range d.exact(q, 10) {
					want++
					if in[h.id] {
						found++
					}
				}
			}
		}
	}
	if built == 0 || rebuilt == 0 || dropped == 0 {
		t.Errorf("graph built %d, rebuilt %d, dropped %d times; want each at least once", built, rebuilt, dropped)
	}
	if r := float64(found) / float64(want); r < 0.9 {
		t.Errorf("recall@10 over the run %.3f, want ≥ 0.9", r)
	}
}

// checkDense checks d's bookkeeping against the live vectors.
func checkDense(t *testing.T, d *denseIndex, live map[string][]float32) {
	t.Helper()
	if d.len() != len(live) {
		t.Fatalf("index holds %d vectors, want %d", d.len(), len(live))
	}
	dead := 0
	for slot, id := range d.ids {
		if id == "" {
			dead++
			continue
		}
		if d.pos[id] != slot {
			t.Fatalf("slot %d holds %s, whose position is %d", slot, id, d.pos[id])
		}
		if !slices.Equal(d.vecs[slot*d.dim:(slot+1)*d.dim], live[id]) {
			t.Fatalf("slot %d holds a stale vector of %s", slot, id)
		}
	}
	if len(d.vecs) != len(d.ids)*d.dim {
		t.Fatalf("%d floats for %d slots of %d", len(d.vecs), len(d.ids), d.dim)
	}
	switch {
	case d.ann == nil && dead > 0:
		t.Fatalf("%d dead slots without a graph", dead)
	case d.ann != nil:
		if len(d.ann.nodes) != len(d.ids) || d.ann.dead != dead {
			t.Fatalf("graph of %d nodes, %d dead; index of %d slots, %d dead", len(d.ann.nodes), d.ann.dead, len(d.ids), dead)
		}
		for slot, n := range d.ann.nodes {
			if n.dead != (d.ids[slot] == "") {
				t.Fatalf("node %d dead %v, slot id %q", slot, n.dead, d.ids[slot])
			}
		}
		if 4*dead > len(d.ids) {
			t.Fatalf("%d of %d slots dead: should have been rebuilt", dead, len(d.ids))
		}
	}
}

// BenchmarkANNSearch measures a dense search (top 10 of DefaultCandidates, as the
// overlay asks) of one user of 20k and 100k random 512-d memories of low intrinsic
// dimension (lowRank), through InMemory.Search: brute force (ANN off) and the HNSW graph
// (default parameters, but from the first vector), each with its median latency (p50-ms); the graph's run also
// reports its ratio to brute force's median in the same run (x-exact), its recall@10
// against brute force, and the graph's build time (build-s, outside the timer).
func BenchmarkANNSearch(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			ctx := context.Background()
			g := newLowRank(1, 512, 24)
			ms := make([]Memory, n)
			for i := range ms {
				ms[i] = Memory{ID: fmt.Sprintf("m%07d", i), Content: "a note", Vector: g.vector()}
			}
			queries := make([][]float32, 64)
			for i := range queries {
				queries[i] = g.vector()
			}
			open := func(ann ANNConfig) (*InMemory, time.Duration) {
				h, err := NewInMemory(Config{ANN: ann})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				if err := h.AddBatch(ctx, "u", ms); err != nil {
					b.Fatal(err)
				}
				return h, time.Since(start)
			}
			exact, _ := open(ANNConfig{Threshold: -1})
			ann, build := open(ANNConfig{Threshold: 1})
			var exactP50 float64
			for _, mode := range []string{"exact", "ann"} {
				h := exact
				if mode == "ann" {
					h = ann
				}
				b.Run(mode, func(b *testing.B) {
					var lat []time.Duration
					i := 0
					for b.Loop() {
						start := time.Now()
						if _, err := h.Search(ctx, "u", "", queries[i%len(queries)], 10); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(start))
						i++
					}
					p50 := benchtest.Percentile(lat, 50)
					b.ReportMetric(p50, "p50-ms")
					if mode == "exact" {
						exactP50 = p50
						return
					}
					b.ReportMetric(p50/exactP50, "x-exact")
					b.ReportMetric(build.Seconds(), "build-s")
					found := 0
					for _, q := range queries {
						got, _ := ann.Search(ctx, "u", "", q, 10)
						want, _ := exact.Search(ctx, "u", "", q, 10)
						in := map[string]bool{}
						for _, h := range got {
							in[h.ID] = true
						}
						for _, h := range want {
							if in[h.ID] {
								found++
							}
						}
					}
					b.ReportMetric(float64(found)/float64(10*len(queries)), "recall@10")
				})
			}
		})
	}
}
