package graph_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// tensor is a named value for or from ONNX Runtime; data is []float32, []int64 or []bool.
type tensor struct {
	name  string
	shape []int64
	data  any
}

func newValue(t *testing.T, v tensor) ort.Value {
	t.Helper()
	requireORT(t)
	var (
		val ort.Value
		err error
	)
	switch d := v.data.(type) {
	case []float32:
		val, err = ort.NewTensor(ort.NewShape(v.shape...), d)
	case []int64:
		val, err = ort.NewTensor(ort.NewShape(v.shape...), d)
	case []bool:
		val, err = ort.NewTensor(ort.NewShape(v.shape...), d)
	default:
		t.Fatalf("input %s: unsupported data %T", v.name, v.data)
	}
	if err != nil {
		t.Fatalf("input %s: %v", v.name, err)
	}
	t.Cleanup(func() { val.Destroy() })
	return val
}

// checkValue compares an ONNX Runtime output with want: same shape, same element type, floats
// within tol and everything else exactly.
func checkValue(t *testing.T, got ort.Value, want tensor, tol float64) {
	t.Helper()
	if s := []int64(got.GetShape()); !slices.Equal(s, want.shape) {
		t.Errorf("output %s: shape %v, want %v", want.name, s, want.shape)
		return
	}
	switch w := want.data.(type) {
	case []float32:
		g, ok := got.(*ort.Tensor[float32])
		if !ok {
			t.Fatalf("output %s: got %T, want float32 tensor", want.name, got)
		}
		for i, v := range g.GetData() {
			if d := math.Abs(float64(v) - float64(w[i])); !(d <= tol) {
				t.Errorf("output %s[%d] = %v, want %v (|diff| %.3g > %.3g)", want.name, i, v, w[i], d, tol)
			}
		}
	case []int64:
		g, ok := got.(*ort.Tensor[int64])
		if !ok {
			t.Fatalf("output %s: got %T, want int64 tensor", want.name, got)
		}
		if !slices.Equal(g.GetData(), w) {
			t.Errorf("output %s = %v, want %v", want.name, g.GetData(), w)
		}
	case []bool:
		g, ok := got.(*ort.Tensor[bool])
		if !ok {
			t.Fatalf("output %s: got %T, want bool tensor", want.name, got)
		}
		if !slices.Equal(g.GetData(), w) {
			t.Errorf("output %s = %v, want %v", want.name, g.GetData(), w)
		}
	default:
		t.Fatalf("output %s: unsupported want %T", want.name, want.data)
	}
}

// seq returns n float32 values starting at from with step.
func seq(n int, from, step float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = from + float32(i)*step
	}
	return out
}

// rows applies f to each row of length n of x (row-major) and returns the concatenation.
func rows(x []float32, n int, f func([]float64) []float64) []float32 {
	var out []float32
	for r := 0; r < len(x); r += n {
		row := make([]float64, n)
		for i := range row {
			row[i] = float64(x[r+i])
		}
		for _, v := range f(row) {
			out = append(out, float32(v))
		}
	}
	return out
}

func softmax(x []float64) []float64 {
	m := slices.Max(x)
	out := make([]float64, len(x))
	var s float64
	for i, v := range x {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func layerNorm(x, scale, bias []float64, eps float64) []float64 {
	var mean, variance float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	variance /= float64(len(x))
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v-mean)/math.Sqrt(variance+eps)*scale[i] + bias[i]
	}
	return out
}

// half encodes small exact values as IEEE 754 binary16 bits, little-endian.
func half(vals ...uint16) []byte {
	raw := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(raw[2*i:], v)
	}
	return raw
}

// TestORT builds small graphs, runs them in the real ONNX Runtime and compares every output
// with a value computed in Go.
func TestORT(t *testing.T) {
	x23 := []float32{0.5, -1, 2, 3, 0.25, -4}
	tests := []struct {
		name  string
		build func(g *graph.Graph)
		in    []tensor
		want  []tensor
		tol   float64
	}{
		{
			name: "matmul_add",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Sym("batch"), graph.Fixed(3))
				w := g.InitFloat32("W", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6})
				b := g.InitFloat32("b", []int64{2}, []float32{0.5, -0.5})
				g.Node(graph.Node{Op: "Add", Inputs: []string{g.Op("MatMul", x, w), b}, Outputs: []string{"y"}})
				g.Output("y", graph.Float32, graph.Sym("batch"), graph.Fixed(2))
			},
			in: []tensor{{"x", []int64{2, 3}, x23}},
			// [0.5 -1 2]·W = [0.5-3+10, 1-4+12] = [7.5 9]; [3 .25 -4]·W = [3+.75-20, 6+1-24] = [-16.25 -17]
			want: []tensor{{"y", []int64{2, 2}, []float32{8, 8.5, -15.75, -17.5}}},
			tol:  1e-6,
		},
		{
			name: "gather",
			build: func(g *graph.Graph) {
				ids := g.Input("ids", graph.Int64, graph.Sym("batch"), graph.Sym("sequence"))
				table := g.InitFloat32("table", []int64{5, 3}, seq(15, 0, 1))
				g.Node(graph.Node{Op: "Gather", Inputs: []string{table, ids}, Outputs: []string{"emb"}, Attrs: []graph.Attr{graph.AttrInt("axis", 0)}})
				g.Output("emb", graph.Float32, graph.Sym("batch"), graph.Sym("sequence"), graph.Fixed(3))
			},
			in:   []tensor{{"ids", []int64{2, 2}, []int64{4, 0, 2, -1}}},
			want: []tensor{{"emb", []int64{2, 2, 3}, []float32{12, 13, 14, 0, 1, 2, 6, 7, 8, 12, 13, 14}}},
			tol:  0,
		},
		{
			name: "reduce_mean",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				keep := g.OpWith("ReduceMean", []string{x}, graph.AttrInts("axes", -1), graph.AttrInt("keepdims", 1))
				g.Node(graph.Node{Op: "ReduceMean", Inputs: []string{x}, Outputs: []string{"cols"}, Attrs: []graph.Attr{graph.AttrInts("axes", 0), graph.AttrInt("keepdims", 0)}})
				g.Node(graph.Node{Op: "Identity", Inputs: []string{keep}, Outputs: []string{"rows"}})
				g.Output("rows", graph.Float32, graph.Fixed(2), graph.Fixed(1))
				g.Output("cols", graph.Float32, graph.Fixed(3))
			},
			in: []tensor{{"x", []int64{2, 3}, x23}},
			want: []tensor{
				{"rows", []int64{2, 1}, []float32{1.5 / 3, -0.75 / 3}},
				{"cols", []int64{3}, []float32{1.75, -0.375, -1}},
			},
			tol: 1e-6,
		},
		{
			name: "layer_normalization",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Sym("n"), graph.Fixed(3))
				scale := g.InitFloat32("scale", []int64{3}, []float32{1, 2, 0.5})
				bias := g.InitFloat32("bias", []int64{3}, []float32{0, 0.1, -0.1})
				g.Node(graph.Node{Op: "LayerNormalization", Inputs: []string{x, scale, bias}, Outputs: []string{"y"},
					Attrs: []graph.Attr{graph.AttrInt("axis", -1), graph.AttrFloat("epsilon", 1e-3)}})
				g.Output("y", graph.Float32, graph.Sym("n"), graph.Fixed(3))
			},
			in: []tensor{{"x", []int64{2, 3}, x23}},
			want: []tensor{{"y", []int64{2, 3}, rows(x23, 3, func(r []float64) []float64 {
				return layerNorm(r, []float64{1, 2, 0.5}, []float64{0, 0.1, -0.1}, 1e-3)
			})}},
			tol: 1e-5,
		},
		{
			name: "softmax",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				g.Node(graph.Node{Op: "Softmax", Inputs: []string{x}, Outputs: []string{"p"}, Attrs: []graph.Attr{graph.AttrInt("axis", -1)}})
				g.Output("p", graph.Float32, graph.Fixed(2), graph.Fixed(3))
			},
			in:   []tensor{{"x", []int64{2, 3}, x23}},
			want: []tensor{{"p", []int64{2, 3}, rows(x23, 3, softmax)}},
			tol:  1e-6,
		},
		{
			name: "where_bool_initializer_and_input",
			build: func(g *graph.Graph) {
				c := g.Input("c", graph.Bool, graph.Fixed(2), graph.Fixed(3))
				x := g.Input("x", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				rowMask := g.InitBool("row_mask", []int64{3}, []bool{true, false, true})
				w := g.Op("Where", c, x, g.ScalarFloat32(-1))
				g.Node(graph.Node{Op: "Where", Inputs: []string{rowMask, w, g.ScalarFloat32(7)}, Outputs: []string{"y"}})
				g.Node(graph.Node{Op: "Not", Inputs: []string{c}, Outputs: []string{"nc"}})
				g.Output("y", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				g.Output("nc", graph.Bool, graph.Fixed(2), graph.Fixed(3))
			},
			in: []tensor{
				{"c", []int64{2, 3}, []bool{true, true, false, false, true, true}},
				{"x", []int64{2, 3}, x23},
			},
			want: []tensor{
				{"y", []int64{2, 3}, []float32{0.5, 7, -1, -1, 7, -4}},
				{"nc", []int64{2, 3}, []bool{false, false, true, true, false, false}},
			},
		},
		{
			name: "cast_int32_int64_float64_float16",
			build: func(g *graph.Graph) {
				ids := g.Input("ids", graph.Int64, graph.Fixed(3))
				i32 := g.InitInt32("i32", []int64{3}, []int32{10, -20, 1 << 30})
				sum := g.Op("Add", ids, g.OpWith("Cast", []string{i32}, graph.AttrInt("to", int64(graph.Int64))))
				g.Node(graph.Node{Op: "Identity", Inputs: []string{sum}, Outputs: []string{"sum"}})
				f := g.OpWith("Cast", []string{ids}, graph.AttrInt("to", int64(graph.Float32)))
				d := g.OpWith("Cast", []string{g.InitFloat64("", []int64{3}, []float64{0.25, 0.5, 1e-3})}, graph.AttrInt("to", int64(graph.Float32)))
				// 1.0, -2.0, 0.5 as binary16
				h := g.OpWith("Cast", []string{g.InitRaw("h", graph.Float16, []int64{3}, half(0x3C00, 0xC000, 0x3800))}, graph.AttrInt("to", int64(graph.Float32)))
				g.Node(graph.Node{Op: "Sum", Inputs: []string{f, d, h}, Outputs: []string{"f"}})
				g.Output("sum", graph.Int64, graph.Fixed(3))
				g.Output("f", graph.Float32, graph.Fixed(3))
			},
			in: []tensor{{"ids", []int64{3}, []int64{1, 2, 3}}},
			want: []tensor{
				{"sum", []int64{3}, []int64{11, -18, 1<<30 + 3}},
				{"f", []int64{3}, []float32{1 + 0.25 + 1, 2 + 0.5 - 2, 3 + 1e-3 + 0.5}},
			},
			tol: 1e-6,
		},
		{
			name: "attributes_of_each_kind",
			build: func(g *graph.Graph) {
				g.Opset("ai.onnx.ml", 2)
				x := g.Input("x", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				ids := g.Input("ids", graph.Int64, graph.Fixed(3))
				// FLOAT: LeakyRelu alpha; INTS: Transpose perm.
				lr := g.OpWith("LeakyRelu", []string{x}, graph.AttrFloat("alpha", 0.5))
				g.Node(graph.Node{Op: "Transpose", Inputs: []string{lr}, Outputs: []string{"t"}, Attrs: []graph.Attr{graph.AttrInts("perm", 1, 0)}})
				// STRING: Pad mode; INTS input via Int64s.
				g.Node(graph.Node{Op: "Pad", Inputs: []string{x, g.Int64s(0, 1, 0, 1)}, Outputs: []string{"pad"}, Attrs: []graph.Attr{graph.AttrString("mode", "reflect")}})
				// FLOATS and INTS: Constant value_floats / value_ints.
				cf := g.OpWith("Constant", nil, graph.AttrFloats("value_floats", 1.5, -2.5, 3))
				ci := g.OpWith("Constant", nil, graph.AttrInts("value_ints", 100, 200, 300))
				g.Node(graph.Node{Op: "Mul", Inputs: []string{x, cf}, Outputs: []string{"scaled"}})
				// TENSOR: Constant value and ConstantOfShape value.
				ct := g.Constant(graph.Float32Tensor([]int64{2, 1}, []float32{10, 20}))
				fill := g.OpWith("ConstantOfShape", []string{g.Int64s(2, 3)}, graph.AttrTensor("value", graph.Float32Tensor([]int64{1}, []float32{0.125})))
				g.Node(graph.Node{Op: "Sum", Inputs: []string{ct, fill}, Outputs: []string{"ct"}})
				// STRINGS: LabelEncoder (ai.onnx.ml) over a string constant.
				strs := g.OpWith("Constant", nil, graph.AttrStrings("value_strings", "b", "zz", "a"))
				enc := graph.Node{Op: "LabelEncoder", Domain: "ai.onnx.ml", Inputs: []string{strs}, Outputs: []string{g.Unique("codes")}, Attrs: []graph.Attr{
					graph.AttrStrings("keys_strings", "a", "b", "c"),
					graph.AttrInts("values_int64s", 1, 2, 3),
					graph.AttrInt("default_int64", -7),
				}}
				codes := g.Node(enc)[0]
				g.Node(graph.Node{Op: "Add", Inputs: []string{g.Op("Add", ids, ci), codes}, Outputs: []string{"codes_plus"}})
				g.Output("t", graph.Float32, graph.Fixed(3), graph.Fixed(2))
				g.Output("pad", graph.Float32, graph.Fixed(2), graph.Fixed(5))
				g.Output("scaled", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				g.Output("ct", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				g.Output("codes_plus", graph.Int64, graph.Fixed(3))
			},
			in: []tensor{{"x", []int64{2, 3}, x23}, {"ids", []int64{3}, []int64{1, 2, 3}}},
			want: []tensor{
				{"t", []int64{3, 2}, []float32{0.5, 3, -0.5, 0.25, 2, -2}},
				{"pad", []int64{2, 5}, []float32{-1, 0.5, -1, 2, -1, 0.25, 3, 0.25, -4, 0.25}},
				{"scaled", []int64{2, 3}, []float32{0.75, 2.5, 6, 4.5, -0.625, -12}},
				{"ct", []int64{2, 3}, []float32{10.125, 10.125, 10.125, 20.125, 20.125, 20.125}},
				{"codes_plus", []int64{3}, []int64{1 + 100 + 2, 2 + 200 - 7, 3 + 300 + 1}},
			},
			tol: 1e-6,
		},
		{
			name: "multi_output_and_omitted_optional_input",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2), graph.Fixed(3))
				top := g.OpN("TopK", 2, []string{x, g.Int64s(2)}, graph.AttrInt("axis", -1))
				halves := g.OpN("Split", 2, []string{x}, graph.AttrInt("axis", 0))
				// Clip without min: the second input is omitted with "".
				g.Node(graph.Node{Op: "Clip", Inputs: []string{halves[1], "", g.ScalarFloat32(0.5)}, Outputs: []string{"clipped"}})
				g.Node(graph.Node{Op: "Identity", Inputs: []string{top[0]}, Outputs: []string{"values"}})
				g.Node(graph.Node{Op: "Identity", Inputs: []string{top[1]}, Outputs: []string{"indices"}})
				g.Output("values", graph.Float32, graph.Fixed(2), graph.Fixed(2))
				g.Output("indices", graph.Int64, graph.Fixed(2), graph.Fixed(2))
				g.Output("clipped", graph.Float32, graph.Fixed(1), graph.Fixed(3))
			},
			in: []tensor{{"x", []int64{2, 3}, x23}},
			want: []tensor{
				{"values", []int64{2, 2}, []float32{2, 0.5, 3, 0.25}},
				{"indices", []int64{2, 2}, []int64{2, 0, 0, 1}},
				{"clipped", []int64{1, 3}, []float32{0.5, 0.25, -4}},
			},
			tol: 0,
		},
		{
			name: "dynamic_reshape",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Sym("batch"), graph.Sym("sequence"), graph.Fixed(4))
				// [B, S, 4] → [B, S, 2, 2] with 0 (copy) codes, then → [B, -1] from Shape/Gather/Concat.
				heads := g.Op("Reshape", x, g.Int64s(0, 0, 2, 2))
				b := g.OpWith("Gather", []string{g.Op("Shape", heads), g.Int64s(0)}, graph.AttrInt("axis", 0))
				flat := g.Op("Reshape", heads, g.OpWith("Concat", []string{b, g.Int64s(-1)}, graph.AttrInt("axis", 0)))
				g.Node(graph.Node{Op: "Identity", Inputs: []string{flat}, Outputs: []string{"flat"}})
				g.Node(graph.Node{Op: "Shape", Inputs: []string{heads}, Outputs: []string{"heads_shape"}})
				g.Output("flat", graph.Float32, graph.Sym("batch"), graph.Unknown())
				g.Output("heads_shape", graph.Int64, graph.Fixed(4))
			},
			in: []tensor{{"x", []int64{2, 3, 4}, seq(24, 0, 1)}},
			want: []tensor{
				{"flat", []int64{2, 12}, seq(24, 0, 1)},
				{"heads_shape", []int64{4}, []int64{2, 3, 2, 2}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := graph.New(tc.name)
			tc.build(g)
			model, err := g.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var ins []ort.Value
			for _, in := range tc.in {
				names = append(names, in.name)
				ins = append(ins, newValue(t, in))
			}
			var outNames []string
			for _, w := range tc.want {
				outNames = append(outNames, w.name)
			}
			outs := runORT(t, model, names, ins, outNames)
			for i, w := range tc.want {
				checkValue(t, outs[i], w, tc.tol)
			}
		})
	}
}

// TestORTModelFields checks that the model-level fields reach ONNX Runtime.
func TestORTModelFields(t *testing.T) {
	g := graph.New("fields")
	g.Producer = "atma-test"
	g.ModelDoc = "a model for tests"
	g.Domain = "dev.atma.test"
	g.ModelVersion = 42
	g.Metadata("purpose", "test")
	g.Metadata("hidden", "32")
	g.Metadata("purpose", "replaced")
	x := g.Input("x", graph.Float32, graph.Fixed(1))
	g.Node(graph.Node{Op: "Neg", Inputs: []string{x}, Outputs: []string{"y"}})
	g.Output("y", graph.Float32, graph.Fixed(1))
	model, err := g.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	requireORT(t)
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, []string{"x"}, []string{"y"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	md, err := s.GetModelMetadata()
	if err != nil {
		t.Fatal(err)
	}
	defer md.Destroy()
	got := map[string]string{}
	for k, f := range map[string]func() (string, error){
		"producer": md.GetProducerName, "graph": md.GetGraphName, "domain": md.GetDomain, "description": md.GetDescription,
	} {
		v, err := f()
		if err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	for _, k := range []string{"purpose", "hidden"} {
		v, ok, err := md.LookupCustomMetadataMap(k)
		if err != nil || !ok {
			t.Fatalf("metadata %q: ok=%v err=%v", k, ok, err)
		}
		got[k] = v
	}
	version, err := md.GetVersion()
	if err != nil {
		t.Fatal(err)
	}
	got["version"] = fmt.Sprint(version)
	want := map[string]string{
		"producer": "atma-test", "graph": "fields", "domain": "dev.atma.test", "description": "a model for tests",
		"purpose": "replaced", "hidden": "32", "version": "42",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %q, want %q", k, got[k], w)
		}
	}
}
