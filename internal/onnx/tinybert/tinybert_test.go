package tinybert_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/onnx/tinybert"
)

// batch right-pads rows of token ids (and their types) to one length; padded positions get
// padID, type padType and mask 0.
func batch(rows, typeRows [][]int64, padID, padType int64) (ids, mask, types [][]int64) {
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	for b, r := range rows {
		id, m, tt := make([]int64, n), make([]int64, n), make([]int64, n)
		for i := range n {
			if i < len(r) {
				id[i], m[i] = r[i], 1
				if typeRows != nil {
					tt[i] = typeRows[b][i]
				}
			} else {
				id[i], tt[i] = padID, padType
			}
		}
		ids, mask, types = append(ids, id), append(mask, m), append(types, tt)
	}
	return ids, mask, types
}

// randomRows returns rows of the given lengths with ids in [0, vocab) and types in {0, 1}.
func randomRows(r *rand.Rand, vocab int, lens ...int) (rows, types [][]int64) {
	for _, n := range lens {
		row, tt := make([]int64, n), make([]int64, n)
		for i := range row {
			row[i] = r.Int64N(int64(vocab))
			if i >= n/2 {
				tt[i] = 1
			}
		}
		rows, types = append(rows, row), append(types, tt)
	}
	return rows, types
}

// maxDiff is the largest |a-b| over the first len(b[r]) positions of each row, or +Inf if a
// row is missing or a value is NaN.
func maxDiff(a, b [][][]float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for r := range b {
		if len(a[r]) < len(b[r]) {
			return math.Inf(1)
		}
		for i := range b[r] {
			if len(a[r][i]) != len(b[r][i]) {
				return math.Inf(1)
			}
			for j := range b[r][i] {
				x := math.Abs(float64(a[r][i][j]) - float64(b[r][i][j]))
				if math.IsNaN(x) {
					return math.Inf(1)
				}
				d = max(d, x)
			}
		}
	}
	return d
}

func newModel(t testing.TB, cfg tinybert.Config) *tinybert.Model {
	t.Helper()
	m, err := tinybert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  tinybert.Config
		want []string
	}{
		{name: "zero", cfg: tinybert.Config{}},
		{name: "bench", cfg: tinybert.Bench},
		{name: "partial", cfg: tinybert.Config{Hidden: 48, Heads: 3, Seed: -5}},
		{name: "negative", cfg: tinybert.Config{VocabSize: -1, Layers: -2}, want: []string{"vocab size -1", "layers -2"}},
		{name: "heads_do_not_divide", cfg: tinybert.Config{Hidden: 30}, want: []string{"hidden 30 is not a multiple of heads 4"}},
		{name: "bad_eps", cfg: tinybert.Config{LayerNormEps: float32(math.NaN())}, want: []string{"epsilon NaN"}},
		{name: "negative_eps", cfg: tinybert.Config{LayerNormEps: -1}, want: []string{"epsilon -1"}},
		{name: "too_wide", cfg: tinybert.Config{Hidden: 1 << 21}, want: []string{"hidden 2097152 is outside"}},
		{name: "too_big", cfg: tinybert.Config{Hidden: 1 << 14, VocabSize: 1 << 16}, want: []string{"do not fit a 2 GiB"}},
		{name: "several", cfg: tinybert.Config{Heads: -1, Intermediate: -3, LayerNormEps: -1},
			want: []string{"heads -1", "intermediate -3", "epsilon -1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want errors mentioning %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v, want it to mention %q", err, w)
				}
			}
			if _, nerr := tinybert.New(tc.cfg); nerr == nil || nerr.Error() != err.Error() {
				t.Errorf("New() error = %v, want %v", nerr, err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	m := newModel(t, tinybert.Config{Seed: 7})
	want := tinybert.Default
	want.Seed = 7
	if m.Config != want {
		t.Errorf("Config = %+v, want defaults %+v", m.Config, want)
	}
	c := m.Config
	if len(m.WordEmbeddings) != c.VocabSize*c.Hidden || len(m.PositionEmbeddings) != c.MaxPositions*c.Hidden ||
		len(m.TypeEmbeddings) != c.TypeVocab*c.Hidden || len(m.Layers) != c.Layers ||
		len(m.Layers[1].Intermediate.Weight) != c.Hidden*c.Intermediate || len(m.Layers[1].Output.Bias) != c.Hidden {
		t.Fatal("weight sizes do not match the config")
	}
	same := newModel(t, tinybert.Config{Seed: 7})
	other := newModel(t, tinybert.Config{Seed: 8})
	if !slices.Equal(m.WordEmbeddings, same.WordEmbeddings) || !slices.Equal(m.Layers[1].OutputNorm.Beta, same.Layers[1].OutputNorm.Beta) {
		t.Error("equal configs gave different weights")
	}
	if slices.Equal(m.WordEmbeddings, other.WordEmbeddings) {
		t.Error("different seeds gave equal weights")
	}
	a, err := m.ONNX()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := same.ONNX()
	o, _ := other.ONNX()
	if !bytes.Equal(a, b) || bytes.Equal(a, o) {
		t.Error("ONNX bytes are not a function of the config")
	}
}

// TestORTMatchesForward runs the ONNX model in ONNX Runtime and compares it with Forward.
func TestORTMatchesForward(t *testing.T) {
	m := newModel(t, tinybert.Config{Seed: 42})
	model, err := m.ONNX()
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, model, m.Config.Hidden, 1)
	r := rand.New(rand.NewPCG(1, 2))
	type input struct{ ids, mask, types [][]int64 }
	mk := func(lens ...int) input {
		rows, types := randomRows(r, m.Config.VocabSize, lens...)
		ids, mask, tt := batch(rows, types, 0, 0)
		return input{ids, mask, tt}
	}
	emptyRow := mk(6, 0)
	tests := []struct {
		name string
		in   input
	}{
		{"single_unpadded", input{[][]int64{{101, 7592, 2088, 102}}, [][]int64{{1, 1, 1, 1}}, [][]int64{{0, 0, 0, 0}}}},
		{"length_one", mk(1, 1)},
		{"padded_mixed_lengths", mk(5, 2, 9)},
		{"longer", mk(64, 40, 17, 63)},
		{"row_of_padding_only", emptyRow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := s.run(t, tc.in.ids, tc.in.mask, tc.in.types)
			want := m.Forward(tc.in.ids, tc.in.mask, tc.in.types)
			d := maxDiff(got, want)
			t.Logf("max |ORT - Forward| = %.3g", d)
			if !(d <= 1e-5) {
				t.Errorf("max |ORT - Forward| = %.3g, want <= 1e-5", d)
			}
		})
	}
}

// TestPaddingInvariance checks that a row's hidden states do not depend on padding or on the
// ids and types at padded positions, in ONNX Runtime and in Forward.
func TestPaddingInvariance(t *testing.T) {
	m := newModel(t, tinybert.Config{Seed: 3})
	model, err := m.ONNX()
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, model, m.Config.Hidden, 1)
	r := rand.New(rand.NewPCG(5, 6))
	rows, types := randomRows(r, m.Config.VocabSize, 7, 30, 3)
	aloneIDs, aloneMask, aloneTypes := batch(rows[:1], types[:1], 0, 0)

	runners := map[string]func(ids, mask, types [][]int64) [][][]float32{
		"ort":     func(ids, mask, types [][]int64) [][][]float32 { return s.run(t, ids, mask, types) },
		"forward": m.Forward,
	}
	for name, run := range runners {
		t.Run(name, func(t *testing.T) {
			alone := run(aloneIDs, aloneMask, aloneTypes)
			for _, pad := range []struct{ id, typ int64 }{{0, 0}, {999, 1}} {
				ids, mask, tt := batch(rows, types, pad.id, pad.typ)
				padded := run(ids, mask, tt)
				if d := maxDiff(padded[:1], alone); !(d <= 1e-6) {
					t.Errorf("pad id %d type %d: row changed by %.3g after padding, want <= 1e-6", pad.id, pad.typ, d)
				}
			}
			// The check above could pass if attention did not mix tokens at all: changing an
			// attended token must change the others.
			changed := slices.Clone(aloneIDs[0])
			changed[0] = (changed[0] + 1) % int64(m.Config.VocabSize)
			other := run([][]int64{changed}, aloneMask, aloneTypes)
			if d := maxDiff([][][]float32{other[0][1:]}, [][][]float32{alone[0][1:]}); d < 1e-3 {
				t.Errorf("changing token 0 moved the other tokens by only %.3g; attention does not mix", d)
			}
		})
	}
}

func TestForwardDefaults(t *testing.T) {
	m := newModel(t, tinybert.Config{Seed: 1})
	ids := [][]int64{{5, 6, 7}, {8, 9}}
	got := m.Forward(ids, nil, nil)
	want := m.Forward(ids, [][]int64{{1, 1, 1}, {1, 1}}, [][]int64{{0, 0, 0}, {0, 0}})
	if d := maxDiff(got, want); d != 0 {
		t.Errorf("nil mask and types differ from explicit defaults by %.3g", d)
	}
	if len(got[1]) != 2 || len(got[1][0]) != m.Config.Hidden {
		t.Fatalf("shape [%d][%d][%d], want rows of their own length", len(got), len(got[1]), len(got[1][0]))
	}
	// Hidden states are LayerNorm outputs: per token, mean ≈ mean(beta) and spread ≈ gamma.
	var mean, sq float64
	for _, v := range got[0][0] {
		mean += float64(v)
		sq += float64(v) * float64(v)
	}
	mean /= float64(m.Config.Hidden)
	std := math.Sqrt(sq/float64(m.Config.Hidden) - mean*mean)
	if math.Abs(mean) > 0.1 || std < 0.8 || std > 1.2 {
		t.Errorf("token 0: mean %.3g std %.3g, want a normalized vector", mean, std)
	}
}

func TestForwardPanics(t *testing.T) {
	m := newModel(t, tinybert.Config{MaxPositions: 4, VocabSize: 10})
	tests := []struct {
		name              string
		ids, mask, types  [][]int64
		wantPanicContains string
	}{
		{"mask_rows", [][]int64{{1}}, [][]int64{{1}, {1}}, nil, "attention mask rows"},
		{"type_rows", [][]int64{{1}}, nil, [][]int64{}, "token type rows"},
		{"mask_length", [][]int64{{1, 2}}, [][]int64{{1}}, nil, "row of 2 ids"},
		{"id_range", [][]int64{{10}}, nil, nil, "out of range"},
		{"negative_id", [][]int64{{-1}}, nil, nil, "out of range"},
		{"type_range", [][]int64{{1}}, nil, [][]int64{{2}}, "out of range"},
		{"too_long", [][]int64{{1, 2, 3, 4, 5}}, nil, nil, "exceeds 4 positions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if p == nil || !strings.Contains(fmt.Sprint(p), tc.wantPanicContains) {
					t.Errorf("panic = %v, want one mentioning %q", p, tc.wantPanicContains)
				}
			}()
			m.Forward(tc.ids, tc.mask, tc.types)
		})
	}
}

// TestSignature: ONNX Runtime reads the model's inputs and output as Hugging Face BERT
// exports name and shape them.
func TestSignature(t *testing.T) {
	m := newModel(t, tinybert.Config{Hidden: 16, Heads: 2, Layers: 1, VocabSize: 100})
	data, err := m.ONNX()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tinybert.onnx")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	requireORT(t)
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range append(ins, outs...) {
		got = append(got, fmt.Sprintf("%s %v %v", i.Name, i.DataType, i.Dimensions))
	}
	i64, f32 := ort.TensorElementDataType(ort.TensorElementDataTypeInt64), ort.TensorElementDataType(ort.TensorElementDataTypeFloat)
	want := []string{
		fmt.Sprintf("input_ids %v [-1 -1]", i64),
		fmt.Sprintf("attention_mask %v [-1 -1]", i64),
		fmt.Sprintf("token_type_ids %v [-1 -1]", i64),
		fmt.Sprintf("last_hidden_state %v [-1 -1 16]", f32),
	}
	if !slices.Equal(got, want) {
		t.Errorf("model signature:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// BenchmarkORTRun measures one ONNX Runtime forward pass (default threads) per op.
func BenchmarkORTRun(b *testing.B) {
	for _, bc := range []struct {
		name       string
		cfg        tinybert.Config
		batch, seq int
	}{
		{"tiny/8x16", tinybert.Config{}, 8, 16},
		{"4x384/1x128", tinybert.Bench, 1, 128},
		{"4x384/32x128", tinybert.Bench, 32, 128},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := newModel(b, bc.cfg)
			model, err := m.ONNX()
			if err != nil {
				b.Fatal(err)
			}
			s := newSession(b, model, m.Config.Hidden, 0)
			lens := make([]int, bc.batch)
			for i := range lens {
				lens[i] = bc.seq
			}
			rows, types := randomRows(rand.New(rand.NewPCG(9, 9)), m.Config.VocabSize, lens...)
			ids, mask, tt := batch(rows, types, 0, 0)
			for b.Loop() {
				s.run(b, ids, mask, tt)
			}
			b.ReportMetric(float64(bc.batch*bc.seq*b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkForward measures the Go reference at the tiny configuration.
func BenchmarkForward(b *testing.B) {
	m := newModel(b, tinybert.Config{})
	rows, types := randomRows(rand.New(rand.NewPCG(9, 9)), m.Config.VocabSize, 16, 16)
	ids, mask, tt := batch(rows, types, 0, 0)
	for b.Loop() {
		m.Forward(ids, mask, tt)
	}
}
