package tfjs

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
)

// opCase is one output of a fixture graph, converted alone and run in ONNX Runtime. The
// expected values are worked out by hand from TF's documented semantics.
type opCase struct {
	name  string
	out   string // TF tensor to export
	opset int    // 0: default
	want  result
	tol   float64 // absolute tolerance for float outputs (0: 1e-6)
}

func loadFixture(tb testing.TB, name string) *Model {
	tb.Helper()
	m, err := Load(filepath.Join("testdata", "ops", name))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func runOpCases(t *testing.T, m *Model, feeds map[string]feed, cases []opCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := convertAndRun(t, m, Options{OutputName: tc.out, Opset: tc.opset}, feeds)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameResult(got, tc.want, tc.tol); err != nil {
				t.Error(err)
			}
		})
	}
}

// sameResult compares shape and data; floats within tol (1e-6 when 0), the rest exactly.
func sameResult(got, want result, tol float64) error {
	if tol == 0 {
		tol = 1e-6
	}
	if !slices.Equal(got.shape, want.shape) {
		return fmt.Errorf("shape %v, want %v", got.shape, want.shape)
	}
	switch {
	case want.f32 != nil:
		if len(got.f32) != len(want.f32) {
			return fmt.Errorf("got %d floats (%v), want %v", len(got.f32), got, want.f32)
		}
		for i := range want.f32 {
			g, w := float64(got.f32[i]), float64(want.f32[i])
			if math.IsNaN(g) || math.Abs(g-w) > tol {
				return fmt.Errorf("element %d = %v, want %v (all: %v)", i, g, w, got.f32)
			}
		}
	case want.i64 != nil:
		if !slices.Equal(got.i64, want.i64) {
			return fmt.Errorf("int64 data %v, want %v", got.i64, want.i64)
		}
	case want.i32 != nil:
		if !slices.Equal(got.i32, want.i32) {
			return fmt.Errorf("int32 data %v, want %v", got.i32, want.i32)
		}
	case want.b != nil:
		if !slices.Equal(got.b, want.b) {
			return fmt.Errorf("bool data %v, want %v", got.b, want.b)
		}
	default:
		if len(got.f32)+len(got.i64)+len(got.i32)+len(got.b) != 0 {
			return fmt.Errorf("got data %+v, want an empty tensor", got)
		}
	}
	return nil
}

func f32(shape []int64, v ...float32) result { return result{shape: shape, f32: v} }
func i64(shape []int64, v ...int64) result   { return result{shape: shape, i64: v} }
func i32(shape []int64, v ...int32) result   { return result{shape: shape, i32: v} }
func bools(shape []int64, v ...bool) result  { return result{shape: shape, b: v} }

// mapF applies fn to every element, for expectations defined by a math function.
func mapF(shape []int64, in []float32, fn func(float64) float64) result {
	out := make([]float32, len(in))
	for i, v := range in {
		out[i] = float32(fn(float64(v)))
	}
	return f32(shape, out...)
}

func TestElementwiseOps(t *testing.T) {
	m := loadFixture(t, "elementwise")
	x := []float32{-1.5, 0, 2.5, 7, -0.25, 3}
	feeds := map[string]feed{
		"x":  {shape: []int64{2, 3}, data: x},
		"y":  {shape: []int64{3}, data: []float32{1, -2, 2.5}},
		"p":  {shape: []int64{2, 3}, data: []float32{1, 4, 0.25, 2, 9, 16}},
		"i":  {shape: []int64{4}, data: []int32{1, 2, 3, 4}},
		"x4": {shape: []int64{1, 2, 1, 2}, data: []float32{1, 2, 3, 4}},
		"xr": {shape: []int64{2, 3}, data: x},
	}
	s23 := []int64{2, 3}
	const T, F = true, false
	// softmax of each row of x, by definition.
	var soft []float32
	for r := range 2 {
		row := x[3*r : 3*r+3]
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v))
		}
		for _, v := range row {
			soft = append(soft, float32(math.Exp(float64(v))/sum))
		}
	}
	runOpCases(t, m, feeds, []opCase{
		{name: "Add broadcasts a row", out: "add", want: f32(s23, -0.5, -2, 5, 8, -2.25, 5.5)},
		{name: "Sub", out: "sub", want: f32(s23, -2.5, 2, 0, 6, 1.75, 0.5)},
		{name: "Mul", out: "mul", want: f32(s23, -1.5, 0, 6.25, 7, 0.5, 7.5)},
		{name: "RealDiv", out: "div", want: f32(s23, -1.5, 0, 1, 7, 0.125, 1.2)},
		{name: "Maximum", out: "max", want: f32(s23, 1, 0, 2.5, 7, -0.25, 3)},
		{name: "Minimum", out: "min", want: f32(s23, -1.5, -2, 2.5, 1, -2, 2.5)},
		{name: "Less", out: "less", want: bools(s23, T, F, F, F, F, F)},
		{name: "GreaterEqual", out: "greater_eq", want: bools(s23, F, T, T, T, T, T)},
		{name: "Equal", out: "eq", want: bools(s23, F, F, T, F, F, F)},
		{name: "LogicalNot", out: "not_less", want: bools(s23, F, T, T, T, T, T)},
		{name: "LogicalOr", out: "or", want: bools(s23, T, F, T, F, F, F)},
		{name: "LogicalAnd", out: "and", want: bools(s23, F, T, T, T, T, T)},
		{name: "Square", out: "square", want: f32(s23, 2.25, 0, 6.25, 49, 0.0625, 9)},
		{name: "Rsqrt", out: "rsqrt", want: f32(s23, 1, 0.5, 2, 1/float32(math.Sqrt2), 1.0/3, 0.25)},
		{name: "Sqrt", out: "sqrt", want: f32(s23, 1, 2, 0.5, float32(math.Sqrt2), 3, 4)},
		{name: "Relu", out: "relu", want: f32(s23, 0, 0, 2.5, 7, 0, 3)},
		{name: "Relu6", out: "relu6", want: f32(s23, 0, 0, 2.5, 6, 0, 3)},
		{name: "Tanh", out: "tanh", want: mapF(s23, x, math.Tanh)},
		{name: "Sin", out: "sin", want: mapF(s23, x, math.Sin)},
		{name: "Cos", out: "cos", want: mapF(s23, x, math.Cos)},
		{name: "Sigmoid", out: "sigmoid", want: mapF(s23, x, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) })},
		{name: "Exp", out: "exp", want: mapF(s23, x, math.Exp), tol: 1e-4},
		{name: "Neg", out: "neg", want: f32(s23, 1.5, 0, -2.5, -7, 0.25, -3)},
		{name: "Abs", out: "abs", want: f32(s23, 1.5, 0, 2.5, 7, 0.25, 3)},
		{name: "Softmax over the last axis", out: "softmax", want: f32(s23, soft...)},
		{name: "BiasAdd NHWC", out: "bias_nhwc", want: f32(s23, -1, -1, 4.5, 7.5, -1.25, 5)},
		{name: "BiasAdd NCHW", out: "bias_nchw", want: f32([]int64{1, 2, 1, 2}, 11, 12, 23, 24)},
		{name: "Cast float to int32 truncates", out: "cast_f2i", want: i32(s23, -1, 0, 2, 7, 0, 3)},
		{name: "Cast bool to float", out: "cast_b2f", want: f32(s23, 1, 0, 0, 0, 0, 0)},
		{name: "Cast to the same type", out: "cast_same", want: f32(s23, x...)},
		{name: "SelectV2 broadcasts", out: "select", want: f32(s23, -1.5, -2, 2.5, 1, -2, 2.5)},
		{name: "AddV2 on int32", out: "addv2_int", want: i32([]int64{4}, 11, 22, 33, 44)},
		{name: "Pow", out: "pow", want: f32(s23, 1, 16, 0.0625, 4, 81, 256)},
		{name: "Identity ignores control inputs", out: "ident", want: f32(s23, -0.5, -2, 5, 8, -2.25, 5.5)},
		{name: "input and output of unknown rank", out: "relu_unranked", want: f32(s23, 0, 0, 2.5, 7, 0, 3)},
		{name: "opset 21", out: "add", opset: 21, want: f32(s23, -0.5, -2, 5, 8, -2.25, 5.5)},
	})
}

// arange is 0, 1, …, n-1 as float32.
func arange(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

// gen builds a float tensor of shape by evaluating fn at every multi-index (row-major).
func gen(shape []int64, fn func(idx []int64) float32) result {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	out := make([]float32, 0, n)
	idx := make([]int64, len(shape))
	for range n {
		out = append(out, fn(idx))
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return f32(shape, out...)
}

func TestShapeOps(t *testing.T) {
	m := loadFixture(t, "shape")
	x := arange(24) // x[i][j][k] = 12i + 4j + k, shape [2,3,4]
	feeds := map[string]feed{
		"x":   {shape: []int64{2, 3, 4}, data: x},
		"xu":  {shape: []int64{2, 3, 4}, data: x},
		"lim": {shape: []int64{1}, data: []float32{3}},
	}
	at := func(i, j, k int64) float32 { return float32(12*i + 4*j + k) }
	runOpCases(t, m, feeds, []opCase{
		{name: "Shape defaults to int32", out: "shape32", want: i32([]int64{3}, 2, 3, 4)},
		{name: "Shape with out_type int64", out: "shape64", want: i64([]int64{3}, 2, 3, 4)},
		{name: "Reshape with -1", out: "reshape_const", want: f32([]int64{6, 4}, x...)},
		{name: "Reshape to a computed shape", out: "reshape_dyn", want: f32([]int64{2, 12}, x...)},
		{name: "ExpandDims 0", out: "expand0", want: f32([]int64{1, 2, 3, 4}, x...)},
		{name: "ExpandDims -1", out: "expand_neg", want: f32([]int64{2, 3, 4, 1}, x...)},
		{name: "Squeeze listed axis", out: "squeeze", want: f32([]int64{2, 3, 4}, x...)},
		{name: "Squeeze all size-1 axes", out: "squeeze_all", want: f32([]int64{2, 3, 4}, x...)},
		{name: "Pack on axis 1", out: "pack1", want: gen([]int64{3, 2, 4}, func(p []int64) float32 { return at(p[1], p[0], p[2]) })},
		{name: "ConcatV2 on axis -1", out: "concat", want: gen([]int64{2, 3, 8}, func(p []int64) float32 { return at(p[0], p[1], p[2]%4) })},
		{name: "Transpose", out: "transpose", want: gen([]int64{4, 2, 3}, func(p []int64) float32 { return at(p[1], p[2], p[0]) })},
		{name: "Range to a computed limit", out: "range", want: i32([]int64{4}, 0, 1, 2, 3)},
		{name: "Range of floats", out: "range_f", want: f32([]int64{4}, 0.5, 1.25, 2, 2.75)},
		{name: "Fill", out: "fill", want: f32([]int64{2, 2}, 3, 3, 3, 3)},
	})
}

// withUnknownShape sets the shape attribute of placeholder name to all-unknown dimensions of
// the same rank, so the converter cannot resolve sizes statically.
func withUnknownShape(tb testing.TB, m *Model, name string) {
	tb.Helper()
	n := m.byName[name]
	dims, ok := n.attr["shape"].Shape.dims()
	if !ok {
		tb.Fatalf("placeholder %s has no rank", name)
	}
	s := &shapeJSON{}
	for range dims {
		s.Dim = append(s.Dim, struct {
			Size jsonInt `json:"size"`
		}{Size: -1})
	}
	n.attr["shape"] = attrValue{Shape: s}
}

func TestSliceOps(t *testing.T) {
	at := func(i, j, k int64) float32 { return float32(12*i + 4*j + k) }
	feeds := map[string]feed{
		"x":  {shape: []int64{2, 3, 4}, data: arange(24)},
		"sb": {shape: []int64{3}, data: []int32{1, 0, 2}},
	}
	cases := []opCase{
		{name: "x[0:2, 1:3]", out: "range", want: gen([]int64{2, 2, 4}, func(p []int64) float32 { return at(p[0], p[1]+1, p[2]) })},
		{name: "x[:, 1]", out: "shrink_col", want: gen([]int64{2, 4}, func(p []int64) float32 { return at(p[0], 1, p[1]) })},
		{name: "x[:, ::-1]", out: "reverse", want: gen([]int64{2, 3, 4}, func(p []int64) float32 { return at(p[0], 2-p[1], p[2]) })},
		{name: "x[-1]", out: "last_row", want: gen([]int64{3, 4}, func(p []int64) float32 { return at(1, p[0], p[1]) })},
		{name: "x[..., 1:3]", out: "ellipsis_first", want: gen([]int64{2, 3, 2}, func(p []int64) float32 { return at(p[0], p[1], p[2]+1) })},
		{name: "x[:, None, 0]", out: "new_axis", want: gen([]int64{2, 1, 4}, func(p []int64) float32 { return at(p[0], 0, p[2]) })},
		{name: "x[:, :, ::2]", out: "step2", want: gen([]int64{2, 3, 2}, func(p []int64) float32 { return at(p[0], p[1], 2*p[2]) })},
		{name: "x[:, 1:100] clamps the end", out: "clamp_end", want: gen([]int64{2, 2, 4}, func(p []int64) float32 { return at(p[0], p[1]+1, p[2]) })},
		{name: "x[:, 10:-100:-1] clamps both ends", out: "clamp_reverse", want: gen([]int64{2, 3, 4}, func(p []int64) float32 { return at(p[0], 2-p[1], p[2]) })},
		{name: "x[:, -5::-1] starts before the first element: empty", out: "before_first_shape", want: i32([]int64{3}, 2, 0, 4)},
		{name: "x[:, -3::-1] starts at the first element", out: "first_reverse", want: gen([]int64{2, 1, 4}, func(p []int64) float32 { return at(p[0], 0, p[2]) })},
		{name: "x[1:, :, -1]", out: "shrink_minus1", want: gen([]int64{1, 3}, func(p []int64) float32 { return at(1, p[1], 3) })},
		{name: "x[0, ..., 2]", out: "ellipsis_middle", want: gen([]int64{3}, func(p []int64) float32 { return at(0, p[0], 2) })},
		{name: "x[..., None]", out: "ellipsis_new_axis", want: gen([]int64{2, 3, 4, 1}, func(p []int64) float32 { return at(p[0], p[1], p[2]) })},
		{name: "x[0, 3:0:-2]", out: "reverse_step2", want: gen([]int64{1, 4}, func(p []int64) float32 { return at(0, 2, p[1]) })},
		{name: "Slice with size -1", out: "slice_const", want: gen([]int64{2, 2, 2}, func(p []int64) float32 { return at(p[0], p[1]+1, p[2]+1) })},
		{name: "Slice with a computed begin", out: "slice_dyn", want: gen([]int64{1, 3, 2}, func(p []int64) float32 { return at(1, p[1], p[2]+2) })},
		{name: "SplitV output 0", out: "splitv", want: gen([]int64{2, 3, 1}, func(p []int64) float32 { return at(p[0], p[1], 0) })},
		{name: "SplitV output 1 takes the rest", out: "splitv:1", want: gen([]int64{2, 3, 3}, func(p []int64) float32 { return at(p[0], p[1], p[2]+1) })},
		{name: "Split output 2", out: "split:2", want: gen([]int64{2, 1, 4}, func(p []int64) float32 { return at(p[0], 2, p[2]) })},
		{name: "Split output 2 at opset 18", out: "split:2", opset: 18, want: gen([]int64{2, 1, 4}, func(p []int64) float32 { return at(p[0], 2, p[2]) })},
	}
	t.Run("static shape", func(t *testing.T) {
		runOpCases(t, loadFixture(t, "slice"), feeds, cases)
	})
	t.Run("run-time shape", func(t *testing.T) {
		m := loadFixture(t, "slice")
		withUnknownShape(t, m, "x")
		runOpCases(t, m, feeds, cases)
	})
}

func TestTFSliceLen(t *testing.T) {
	tests := []struct {
		dim, b, e, s int64
		bm, em       bool
		want         int64
	}{
		{dim: 5, b: 1, e: 4, s: 1, want: 3},
		{dim: 5, b: 0, e: 0, s: 1, bm: true, em: true, want: 5},
		{dim: 5, b: 0, e: 0, s: -1, bm: true, em: true, want: 5},
		{dim: 5, b: -1, e: 0, s: -2, em: true, want: 3},
		{dim: 5, b: 4, e: 1, s: 1, want: 0},
		{dim: 5, b: -9, e: 0, s: -1, em: true, want: 0},
		{dim: 5, b: 1, e: 100, s: 3, want: 2},
		{dim: 0, b: 0, e: 0, s: 1, bm: true, em: true, want: 0},
		{dim: -1, b: 0, e: 1, s: 1, want: -1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%+v", tc), func(t *testing.T) {
			if got := tfSliceLen(tc.dim, tc.b, tc.e, tc.s, tc.bm, tc.em); got != tc.want {
				t.Errorf("tfSliceLen = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestGatherScatterOps(t *testing.T) {
	m := loadFixture(t, "gather")
	at := func(i, j, k int64) float32 { return float32(12*i + 4*j + k) }
	ind := []int64{1, 0}
	bidx := [][]int64{{1, 0}, {2, 2}}
	nd := [][]int64{{0, 1}, {1, 2}}
	feeds := map[string]feed{
		"p":     {shape: []int64{2, 3, 4}, data: arange(24)},
		"ind":   {shape: []int64{2}, data: []int32{1, 0}},
		"bidx":  {shape: []int64{2, 2}, data: []int64{1, 0, 2, 2}},
		"nd":    {shape: []int64{2, 2}, data: []int32{0, 1, 1, 2}},
		"sidx":  {shape: []int64{3, 2}, data: []int32{0, 1, 1, 0, 0, 1}},
		"supd":  {shape: []int64{3}, data: []float32{1, 2, 3}},
		"mask":  {shape: []int64{2, 3}, data: []bool{true, false, true, false, true, false}},
		"xf":    {shape: []int64{4}, data: []float32{0, 2.5, 0, -1}},
		"row":   {shape: []int64{1, 3}, data: []float32{7, 8, 9}},
		"vals3": {shape: []int64{3}, data: []int64{5, 6, 7}},
		"v1":    {shape: []int64{1}, data: []float32{1.5}},
	}
	runOpCases(t, m, feeds, []opCase{
		{name: "GatherV2 axis 0", out: "gather0", want: gen([]int64{2, 3, 4}, func(p []int64) float32 { return at(ind[p[0]], p[1], p[2]) })},
		{name: "GatherV2 axis 1", out: "gather1", want: gen([]int64{2, 2, 4}, func(p []int64) float32 { return at(p[0], ind[p[1]], p[2]) })},
		{name: "GatherV2 axis -1", out: "gather_neg", want: gen([]int64{2, 3, 2}, func(p []int64) float32 { return at(p[0], p[1], ind[p[2]]) })},
		{name: "GatherV2 with 2-D indices", out: "gather_2d_idx", want: gen([]int64{2, 3, 2, 2}, func(p []int64) float32 { return at(p[0], p[1], nd[p[2]][p[3]]) })},
		{name: "Gather (v1)", out: "gather_v1", want: gen([]int64{2, 3, 4}, func(p []int64) float32 { return at(ind[p[0]], p[1], p[2]) })},
		{name: "GatherV2 batch_dims 1 on axis 1", out: "batch_gather", want: gen([]int64{2, 2, 4}, func(p []int64) float32 { return at(p[0], bidx[p[0]][p[1]], p[2]) })},
		{name: "GatherV2 batch_dims 1 on axis 2", out: "batch_gather_axis2", want: gen([]int64{2, 3, 2}, func(p []int64) float32 { return at(p[0], p[1], bidx[p[0]][p[2]]) })},
		{name: "GatherV2 batch_dims -1", out: "batch_gather_neg", want: gen([]int64{2, 2, 4}, func(p []int64) float32 { return at(p[0], bidx[p[0]][p[1]], p[2]) })},
		{name: "GatherNd full index", out: "gathernd", want: gen([]int64{2, 4}, func(p []int64) float32 { return at(nd[p[0]][0], nd[p[0]][1], p[1]) })},
		{name: "GatherNd partial index", out: "gathernd_rows", want: gen([]int64{1, 3, 4}, func(p []int64) float32 { return at(1, p[1], p[2]) })},
		{name: "ScatterNd sums duplicates", out: "scatter", want: f32([]int64{2, 2}, 0, 4, 2, 0)},
		{name: "ScatterNd of rows", out: "scatter_rows", want: f32([]int64{2, 3}, 0, 0, 0, 7, 8, 9)},
		{name: "SparseToDense 2-D", out: "sparse_to_dense", want: i64([]int64{2, 4}, 5, -1, 6, -1, -1, 7, -1, -1)},
		{name: "SparseToDense 1-D with a scalar value", out: "sparse_1d_scalar", want: f32([]int64{5}, 1.5, 0, 1.5, 1.5, 0)},
		{name: "Where of bool", out: "where", want: i64([]int64{3, 2}, 0, 0, 0, 2, 1, 1)},
		{name: "Where of float", out: "where_float", want: i64([]int64{2, 1}, 1, 3)},
	})
}

func TestReduceOps(t *testing.T) {
	m := loadFixture(t, "reduce")
	feeds := map[string]feed{
		"x":  {shape: []int64{2, 3}, data: []float32{1, -2, 3, 4, 5, -6}},
		"xi": {shape: []int64{2, 2}, data: []int32{1, 2, -1, -2}},
		"ax": {shape: []int64{1}, data: []int32{0}},
	}
	runOpCases(t, m, feeds, []opCase{
		{name: "Sum axis 1", out: "sum1", want: f32([]int64{2}, 2, 3)},
		{name: "Mean axis -1 keep_dims", out: "mean_keep", want: f32([]int64{2, 1}, 2.0/3, 1)},
		{name: "Mean at opset 18 (axes as input)", out: "mean_keep", opset: 18, want: f32([]int64{2, 1}, 2.0/3, 1)},
		{name: "Max over a scalar axis", out: "max0", want: f32([]int64{3}, 4, 5, 3)},
		{name: "Min over all axes keep_dims", out: "min_all", want: f32([]int64{1, 1}, -6)},
		{name: "Min at opset 21", out: "min_all", opset: 21, want: f32([]int64{1, 1}, -6)},
		{name: "Prod of int32", out: "prod_int", want: i32([]int64{2}, -1, -4)},
		{name: "Sum over no axes is the identity", out: "sum_empty", want: f32([]int64{2, 3}, 1, -2, 3, 4, 5, -6)},
		{name: "Mean of int32 truncates toward zero", out: "mean_int", want: i32([]int64{2}, 1, -1)},
		{name: "Sum over run-time axes", out: "sum_dyn", want: f32([]int64{3}, 5, 3, -3)},
		{name: "Max over run-time axes at opset 18", out: "max_dyn", opset: 18, want: f32([]int64{3}, 4, 5, 3)},
	})
}

// pattern is the filter contents the matmul fixture uses: ((7i mod 5) - 2) / 2.
func pattern(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*7)%5-2) * 0.5
	}
	return v
}

// samePad is TF's SAME padding: the output size and the padding before the input.
func samePad(in, k, s, d int64) (out, before int64) {
	out = (in + s - 1) / s
	total := max((out-1)*s+(k-1)*d+1-in, 0)
	return out, total / 2
}

// refConv2D is TF's Conv2D by its definition: out[n,i,j,o] = Σ in[n, i·sh + a·dh − top,
// j·sw + b·dw − left, c] · f[a,b,c,o] over the filter window, zero outside the input.
func refConv2D(x []float32, xs [4]int64, f []float32, fs [4]int64, sh, sw, dh, dw, top, left, oh, ow int64) result {
	n, h, w, ci := xs[0], xs[1], xs[2], xs[3]
	kh, kw, fi, fo := fs[0], fs[1], fs[2], fs[3]
	groups := ci / fi // grouped convolution: output channel o reads input group o / (fo/groups)
	return gen([]int64{n, oh, ow, fo}, func(p []int64) float32 {
		var sum float64
		g := p[3] / (fo / groups)
		for a := range kh {
			for b := range kw {
				y, xx := p[1]*sh+a*dh-top, p[2]*sw+b*dw-left
				if y < 0 || y >= h || xx < 0 || xx >= w {
					continue
				}
				for c := range fi {
					sum += float64(x[((p[0]*h+y)*w+xx)*ci+g*fi+c]) * float64(f[((a*kw+b)*fi+c)*fo+p[3]])
				}
			}
		}
		return float32(sum)
	})
}

// refMatMul multiplies row-major matrices a [m,k] and b [k,n].
func refMatMul(a, b []float32, m, k, n int) []float32 {
	out := make([]float32, m*n)
	for i := range m {
		for j := range n {
			var s float32
			for l := range k {
				s += a[i*k+l] * b[l*n+j]
			}
			out[i*n+j] = s
		}
	}
	return out
}

// transposeMat transposes a row-major [r,c] matrix.
func transposeMat(a []float32, r, c int) []float32 {
	out := make([]float32, len(a))
	for i := range r {
		for j := range c {
			out[j*r+i] = a[i*c+j]
		}
	}
	return out
}

func TestMatMulAndConvOps(t *testing.T) {
	m := loadFixture(t, "matmul")
	q := []float32{1, 2, 3, 4, 5, 6, -1, 0, 1, 2, -2, 0.5}
	k := []float32{0, 1, 0, 1, 1, 1, 2, 0, -1, 0.5, 0.5, 0.5}
	k2 := []float32{1, 2, 3, 4, -1, 0, 0, 1}
	b := []float32{1, 0, 0, 1, 1, 1}
	img := make([]float32, 32)
	for i := range img {
		img[i] = float32(i%7) - 3
	}
	imgNCHW := make([]float32, 32) // the same image, channels first
	for h := range 4 {
		for w := range 4 {
			for c := range 2 {
				imgNCHW[(c*4+h)*4+w] = img[(h*4+w)*2+c]
			}
		}
	}
	fph := []float32{1, -1, 2, 0.5, 0, 1, -2, 1}
	feeds := map[string]feed{
		"a":        {shape: []int64{2, 3}, data: []float32{1, 2, 3, 4, 5, 6}},
		"b":        {shape: []int64{3, 2}, data: b},
		"q":        {shape: []int64{2, 2, 3}, data: q},
		"k":        {shape: []int64{2, 2, 3}, data: k},
		"k2":       {shape: []int64{2, 2, 2}, data: k2},
		"img":      {shape: []int64{1, 4, 4, 2}, data: img},
		"img_nchw": {shape: []int64{1, 2, 4, 4}, data: imgNCHW},
		"fph":      {shape: []int64{2, 2, 2, 1}, data: fph},
	}
	var bmm, bmmAdjX, bmmB []float32
	for i := range 2 {
		qi, ki, k2i := q[6*i:6*i+6], k[6*i:6*i+6], k2[4*i:4*i+4]
		bmm = append(bmm, refMatMul(qi, transposeMat(ki, 2, 3), 2, 3, 2)...)
		bmmAdjX = append(bmmAdjX, refMatMul(transposeMat(qi, 2, 3), k2i, 3, 2, 2)...)
		bmmB = append(bmmB, refMatMul(qi, b, 2, 3, 2)...)
	}
	xs := [4]int64{1, 4, 4, 2}
	o33, p33 := samePad(4, 3, 1, 1)
	os2, ps2 := samePad(4, 3, 2, 1)
	odl, pdl := samePad(4, 2, 1, 2)
	// EXPLICIT pads: 1 before H, 0 after; 0 before W, 2 after.
	explicit := refConv2D(img, xs, pattern(8), [4]int64{2, 2, 2, 1}, 1, 1, 1, 1, 1, 0, 4, 5)
	nchwOut := refConv2D(img, xs, pattern(8), [4]int64{2, 2, 2, 1}, 1, 1, 1, 1, 0, 0, 3, 3)
	nchwOut.shape = []int64{1, 1, 3, 3} // one output channel: NHWC and NCHW data agree
	cases := []opCase{
		{name: "MatMul", out: "matmul", want: f32([]int64{2, 2}, 4, 5, 10, 11)},
		{name: "MatMul transpose_a", out: "matmul_ta", want: f32([]int64{2, 2}, 2, 1, 1, 2)},
		{name: "MatMul transpose_b of a constant", out: "matmul_tb_const", want: f32([]int64{2, 2}, 6, 2, 15, 5)},
		{name: "BatchMatMul adj_y", out: "bmm", want: f32([]int64{2, 2, 2}, bmm...)},
		{name: "BatchMatMulV2 adj_x", out: "bmm_adjx", want: f32([]int64{2, 3, 2}, bmmAdjX...)},
		{name: "BatchMatMulV2 broadcasts a matrix", out: "bmm_bcast", want: f32([]int64{2, 2, 2}, bmmB...)},
		{name: "Conv2D 1x1", out: "conv1x1", want: refConv2D(img, xs, pattern(6), [4]int64{1, 1, 2, 3}, 1, 1, 1, 1, 0, 0, 4, 4), tol: 1e-5},
		{name: "Conv2D 3x3 SAME", out: "conv3x3_same", want: refConv2D(img, xs, pattern(18), [4]int64{3, 3, 2, 1}, 1, 1, 1, 1, p33, p33, o33, o33), tol: 1e-5},
		{name: "Conv2D 2x2 VALID stride 2", out: "conv2x2_valid_s2", want: refConv2D(img, xs, pattern(16), [4]int64{2, 2, 2, 2}, 2, 2, 1, 1, 0, 0, 2, 2), tol: 1e-5},
		{name: "Conv2D SAME dilation 2", out: "conv_dil", want: refConv2D(img, xs, pattern(8), [4]int64{2, 2, 2, 1}, 1, 1, 2, 2, pdl, pdl, odl, odl), tol: 1e-5},
		{name: "Conv2D SAME stride 2 pads the end", out: "conv_same_s2", want: refConv2D(img, xs, pattern(18), [4]int64{3, 3, 2, 1}, 2, 2, 1, 1, ps2, ps2, os2, os2), tol: 1e-5},
		{name: "Conv2D EXPLICIT padding", out: "conv_explicit", want: explicit, tol: 1e-5},
		{name: "Conv2D NCHW", out: "conv_nchw", want: nchwOut, tol: 1e-5},
		{name: "Conv2D grouped", out: "conv_grouped", want: refConv2D(img, xs, pattern(16), [4]int64{2, 2, 1, 4}, 1, 1, 1, 1, 0, 0, 3, 3), tol: 1e-5},
		{name: "Conv2D with a run-time filter", out: "conv_dyn_filter", want: refConv2D(img, xs, fph, [4]int64{2, 2, 2, 1}, 1, 1, 1, 1, 0, 0, 3, 3), tol: 1e-5},
	}
	t.Run("static shape", func(t *testing.T) { runOpCases(t, m, feeds, cases) })
	t.Run("run-time shape", func(t *testing.T) {
		m := loadFixture(t, "matmul")
		for _, name := range []string{"a", "b", "q", "k", "k2", "img", "img_nchw"} {
			withUnknownShape(t, m, name)
		}
		var dyn []opCase
		for _, c := range cases {
			if c.out != "conv_grouped" { // the group count comes from the input's channel count
				dyn = append(dyn, c)
			}
		}
		runOpCases(t, m, feeds, dyn)
	})
}
