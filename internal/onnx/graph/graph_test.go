package graph_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/internal/onnx/graph"
	"github.com/atma-dev/atma/onnx/onnxpb"
)

// affine is a valid graph y = x·W + b used by several tests.
func affine() *graph.Graph {
	g := graph.New("affine")
	x := g.Input("x", graph.Float32, graph.Sym("batch"), graph.Fixed(3))
	w := g.InitFloat32("W", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6})
	b := g.InitFloat32("b", []int64{2}, []float32{0.5, -0.5})
	g.Node(graph.Node{Op: "Add", Inputs: []string{g.Op("MatMul", x, w), b}, Outputs: []string{"y"}})
	g.Output("y", graph.Float32, graph.Sym("batch"), graph.Fixed(2))
	return g
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		build func(g *graph.Graph)
		want  []string // substrings, one per expected problem, in order
	}{
		{
			name: "valid",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "Clip", Inputs: []string{x, "", g.ScalarFloat32(1)}, Outputs: []string{"y"}})
				g.Output("y", graph.Float32, graph.Fixed(2))
				g.Output("x", graph.Float32, graph.Fixed(2)) // an input may also be an output
			},
		},
		{
			name: "undefined_input",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "Add", Inputs: []string{x, "nope"}, Outputs: []string{"y"}})
				g.Output("y", graph.Float32, graph.Fixed(2))
			},
			want: []string{`input 1 "nope" is not defined before the node`},
		},
		{
			name: "input_defined_later",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "Neg", Inputs: []string{"later"}, Outputs: []string{"y"}})
				g.Node(graph.Node{Op: "Neg", Inputs: []string{x}, Outputs: []string{"later"}})
				g.Output("y", graph.Float32, graph.Fixed(2))
			},
			want: []string{`node 0 "Neg_0" (Neg): input 0 "later" is not defined before the node`},
		},
		{
			name: "duplicate_names",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.InitFloat32("x", []int64{2}, []float32{1, 2})
				g.Node(graph.Node{Op: "Neg", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Node(graph.Node{Op: "Abs", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Output("y", graph.Float32, graph.Fixed(2))
			},
			want: []string{`initializer "x": name already defined`, `output "y": name already defined`},
		},
		{
			name: "outputs_missing_and_duplicated",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "Neg", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Output("y", graph.Float32, graph.Fixed(2))
				g.Output("y", graph.Float32, graph.Fixed(2))
				g.Output("z", graph.Float32, graph.Fixed(2))
			},
			want: []string{`output "y" declared twice`, `output "z" is not produced`},
		},
		{
			name: "no_outputs",
			build: func(g *graph.Graph) {
				g.Input("x", graph.Float32, graph.Fixed(2))
			},
			want: []string{"graph declares no outputs"},
		},
		{
			name: "initializer_contents_do_not_match_shape",
			build: func(g *graph.Graph) {
				a := g.InitFloat32("a", []int64{2, 2}, []float32{1, 2, 3})
				b := g.InitInt64("b", []int64{3}, []int64{1, 2, 3, 4})
				c := g.InitRaw("c", graph.Float16, []int64{2}, []byte{0, 0, 0})
				d := g.Initializer("d", graph.StringTensor([]int64{2}, []string{"x"}))
				e := g.InitRaw("e", graph.Undefined, []int64{1}, []byte{1})
				g.Node(graph.Node{Op: "Identity", Inputs: []string{a}, Outputs: []string{"y"}})
				g.Node(graph.Node{Op: "Identity", Inputs: []string{b}, Outputs: []string{"z"}})
				g.Node(graph.Node{Op: "Concat", Inputs: []string{c, d, e}, Outputs: []string{"w"}})
				g.Output("y", graph.Float32, graph.Fixed(2), graph.Fixed(2))
				g.Output("z", graph.Int64, graph.Fixed(3))
				g.Output("w", graph.Float16, graph.Fixed(2))
			},
			want: []string{
				`initializer "a": shape [2 2] needs 16 bytes, have 12`,
				`initializer "b": shape [3] needs 24 bytes, have 32`,
				`initializer "c": shape [2] needs 4 bytes, have 3`,
				`initializer "d": shape [2] needs 2 string_data elements, have 1`,
				`initializer "e": invalid element type UNDEFINED`,
			},
		},
		{
			name: "bad_types_and_dims",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.DType(99), graph.Fixed(2))
				g.Initializer("neg", &onnxpb.TensorProto{Dims: []int64{-1}, DataType: proto.Int32(int32(graph.Float32))})
				g.Initializer("nil", nil)
				g.Node(graph.Node{Op: "Neg", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Output("y", graph.Undefined, graph.Fixed(2))
			},
			want: []string{
				`input "x": invalid element type DType(99)`,
				`initializer "nil": nil tensor`,
				`output "y": invalid element type UNDEFINED`,
				`initializer "neg": negative dimension in [-1]`,
			},
		},
		{
			name: "domain_without_opset_and_bad_opset",
			build: func(g *graph.Graph) {
				g.Opset("", 0)
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "FastGelu", Domain: "com.microsoft", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Node(graph.Node{Op: "Neg", Domain: "ai.onnx", Inputs: []string{"y"}, Outputs: []string{"z"}})
				g.Output("z", graph.Float32, graph.Fixed(2))
			},
			want: []string{
				`opset for domain "": version 0 is not positive`,
				`node 0 "FastGelu_0" (FastGelu): domain "com.microsoft" has no opset import`,
			},
		},
		{
			name: "node_problems",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Node(graph.Node{Op: "Softmax", Inputs: []string{"y"}, Outputs: []string{"z"}, Attrs: []graph.Attr{
					graph.AttrInt("axis", 1), graph.AttrInt("axis", 0), graph.AttrInt("", 0), {},
				}})
				g.Node(graph.Node{Op: "Constant", Outputs: []string{"c"}, Attrs: []graph.Attr{
					graph.AttrTensor("value", graph.Float32Tensor([]int64{3}, []float32{1})),
				}})
				g.Output("z", graph.Float32, graph.Fixed(2))
			},
			want: []string{
				`node "_0": empty op type`,
				`attribute "axis" given twice`,
				`attribute with an empty name`,
				`zero Attr`,
				`node 2 "Constant_2" (Constant): attribute "value": shape [3] needs 12 bytes, have 4`,
			},
		},
		{
			name: "opn_without_outputs",
			build: func(g *graph.Graph) {
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				outs := g.OpN("Split", 0, []string{x})
				g.Output(outs[0], graph.Float32, graph.Fixed(2))
			},
			want: []string{"Split node asked for 0 outputs"},
		},
		{
			name: "empty_names",
			build: func(g *graph.Graph) {
				g.Input("", graph.Float32, graph.Fixed(2))
				x := g.Input("x", graph.Float32, graph.Fixed(2))
				g.Node(graph.Node{Op: "Neg", Inputs: []string{x}, Outputs: []string{"y"}})
				g.Output("y", graph.Float32)
			},
			want: []string{"input with an empty name"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := graph.New(tc.name)
			tc.build(g)
			err := g.Validate()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				if _, err := g.Marshal(); err != nil {
					t.Fatalf("Marshal() = %v", err)
				}
				return
			}
			var verr *graph.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Validate() = %v, want a *ValidationError", err)
			}
			if verr.Graph != tc.name {
				t.Errorf("ValidationError.Graph = %q, want %q", verr.Graph, tc.name)
			}
			if len(verr.Problems) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(verr.Problems), len(tc.want), strings.Join(verr.Problems, "\n"))
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(verr.Problems, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("no problem mentions %q; got:\n%s", w, strings.Join(verr.Problems, "\n"))
				}
			}
			// Build, Marshal and WriteFile refuse the graph with the same error.
			if _, err := g.Build(); !errors.As(err, &verr) {
				t.Errorf("Build() = %v, want a *ValidationError", err)
			}
			if _, err := g.Marshal(); !errors.As(err, &verr) {
				t.Errorf("Marshal() = %v, want a *ValidationError", err)
			}
			path := filepath.Join(t.TempDir(), "m.onnx")
			if err := g.WriteFile(path); !errors.As(err, &verr) {
				t.Errorf("WriteFile() = %v, want a *ValidationError", err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("WriteFile of an invalid graph left %s (stat: %v)", path, err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	g := graph.New("names")
	x := g.Input("x", graph.Float32, graph.Fixed(2))
	a := g.Op("Neg", x)
	b := g.Op("Neg", a)
	r := g.Unique("Neg")
	c := g.Op("Neg", b)
	split := g.OpN("Split", 2, []string{c}, graph.AttrInt("axis", 0))
	split2 := g.OpN("Split", 2, []string{c}, graph.AttrInt("axis", 0))
	u1, u2 := g.Unique("layer"), g.Unique("layer")
	got := []string{a, b, r, c, split[0], split[1], split2[0], split2[1], u1, u2}
	want := []string{"Neg", "Neg_1", "Neg_2", "Neg_3", "Split_0", "Split_1", "Split_2_0", "Split_2_1", "layer", "layer_1"}
	if !slices.Equal(got, want) {
		t.Errorf("names = %v, want %v", got, want)
	}
	if !g.Has("Neg_2") || !g.Has("x") || g.Has("Neg_4") {
		t.Errorf("Has: reserved or defined names not reported")
	}
	// A reserved name is defined by the node that uses it, without a duplicate.
	g.Node(graph.Node{Op: "Neg", Inputs: []string{c}, Outputs: []string{r}})
	// Equal constants are shared; different ones are not.
	if g.ScalarFloat32(1) != g.ScalarFloat32(1) || g.ScalarFloat32(1) == g.ScalarFloat32(-1) ||
		g.Int64s(1, 2) != g.Int64s(1, 2) || g.Int64s(1, 2) == g.Int64s(12) || g.ScalarInt64(3) == g.Int64s(3) {
		t.Error("constants not shared by value")
	}
	g.Output(r, graph.Float32, graph.Fixed(2))
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBuildModelFields(t *testing.T) {
	g := affine()
	g.Doc = "graph doc"
	g.ModelDoc = "model doc"
	g.Producer, g.ProducerVersion = "atma", "0.1"
	g.IRVersion = 9
	g.Opset("", 18)
	g.Opset("com.microsoft", 1)
	g.Metadata("b", "1")
	g.Metadata("a", "2")
	g.ValueInfo("MatMul", graph.Float32, graph.Sym("batch"), graph.Fixed(2))
	m, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if m.GetIrVersion() != 9 || m.GetProducerName() != "atma" || m.GetProducerVersion() != "0.1" ||
		m.GetDocString() != "model doc" || m.GetGraph().GetDocString() != "graph doc" || m.GetGraph().GetName() != "affine" {
		t.Errorf("model fields not written: %v", m)
	}
	var opsets []string
	for _, o := range m.GetOpsetImport() {
		opsets = append(opsets, fmt.Sprintf("%s=%d", o.GetDomain(), o.GetVersion()))
	}
	if !slices.Equal(opsets, []string{"=18", "com.microsoft=1"}) {
		t.Errorf("opset imports = %v", opsets)
	}
	var meta []string
	for _, e := range m.GetMetadataProps() {
		meta = append(meta, e.GetKey()+"="+e.GetValue())
	}
	if !slices.Equal(meta, []string{"b=1", "a=2"}) {
		t.Errorf("metadata = %v, want insertion order", meta)
	}
	in := m.GetGraph().GetInput()[0].GetType().GetTensorType()
	if in.GetElemType() != int32(graph.Float32) || in.GetShape().GetDim()[0].GetDimParam() != "batch" || in.GetShape().GetDim()[1].GetDimValue() != 3 {
		t.Errorf("input type = %v", in)
	}
	if vi := m.GetGraph().GetValueInfo(); len(vi) != 1 || vi[0].GetName() != "MatMul" {
		t.Errorf("value info = %v", vi)
	}

	// Build returns a copy: changing it or the graph afterwards does not leak either way.
	m.GetGraph().GetNode()[0].OpType = proto.String("Changed")
	again, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if op := again.GetGraph().GetNode()[0].GetOpType(); op != "MatMul" {
		t.Errorf("Build result aliases the graph: op = %q", op)
	}

	// Marshal is deterministic and round-trips.
	b1, err := g.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := g.Marshal()
	if !slices.Equal(b1, b2) {
		t.Error("Marshal is not deterministic")
	}
	var back onnxpb.ModelProto
	if err := proto.Unmarshal(b1, &back); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&back, again) {
		t.Error("Marshal and Build disagree")
	}
}

func TestDefaults(t *testing.T) {
	m, err := affine().Build()
	if err != nil {
		t.Fatal(err)
	}
	if m.GetIrVersion() != graph.DefaultIRVersion {
		t.Errorf("IR version = %d, want %d", m.GetIrVersion(), graph.DefaultIRVersion)
	}
	if o := m.GetOpsetImport(); len(o) != 1 || o[0].GetDomain() != "" || o[0].GetVersion() != graph.DefaultOpset {
		t.Errorf("opset imports = %v", o)
	}
	if m.ProducerName != nil || m.DocString != nil || m.ModelVersion != nil {
		t.Errorf("unset optional fields were written: %v", m)
	}
	if graph.New("").Name != "" {
		t.Error("New changed the name")
	}
}

func TestTensors(t *testing.T) {
	tests := []struct {
		name string
		t    *onnxpb.TensorProto
		dt   graph.DType
		raw  []byte
	}{
		{"float32", graph.Float32Tensor([]int64{2}, []float32{1, -2}), graph.Float32, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}},
		{"float64", graph.Float64Tensor([]int64{1}, []float64{1}), graph.Float64, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{"int64", graph.Int64Tensor([]int64{1}, []int64{-2}), graph.Int64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"int32", graph.Int32Tensor([]int64{2}, []int32{1, 256}), graph.Int32, []byte{1, 0, 0, 0, 0, 1, 0, 0}},
		{"bool", graph.BoolTensor([]int64{3}, []bool{true, false, true}), graph.Bool, []byte{1, 0, 1}},
		{"empty", graph.Float32Tensor([]int64{0, 4}, nil), graph.Float32, []byte{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if graph.DType(tc.t.GetDataType()) != tc.dt {
				t.Errorf("data type = %v, want %v", graph.DType(tc.t.GetDataType()), tc.dt)
			}
			if !slices.Equal(tc.t.GetRawData(), tc.raw) || tc.t.RawData == nil {
				t.Errorf("raw = %v, want %v", tc.t.GetRawData(), tc.raw)
			}
			g := graph.New("t")
			out := g.Initializer("", tc.t)
			g.Output(out, tc.dt)
			if err := g.Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
	s := graph.StringTensor([]int64{2}, []string{"a", "bc"})
	if len(s.GetStringData()) != 2 || string(s.GetStringData()[1]) != "bc" || s.RawData != nil {
		t.Errorf("string tensor = %v", s)
	}
}

func TestDTypeAndDim(t *testing.T) {
	for _, tc := range []struct {
		d    graph.DType
		name string
		size int
	}{
		{graph.Float32, "FLOAT", 4}, {graph.Float16, "FLOAT16", 2}, {graph.BFloat16, "BFLOAT16", 2},
		{graph.Int64, "INT64", 8}, {graph.Bool, "BOOL", 1}, {graph.String, "STRING", 0},
		{graph.Complex128, "COMPLEX128", 16}, {graph.DType(77), "DType(77)", 0},
	} {
		if tc.d.String() != tc.name || tc.d.Size() != tc.size {
			t.Errorf("%d: String %q Size %d, want %q %d", int32(tc.d), tc.d.String(), tc.d.Size(), tc.name, tc.size)
		}
	}
	dims := append(graph.Dims(2, 3), graph.Sym("batch"), graph.Unknown())
	var s []string
	for _, d := range dims {
		s = append(s, d.String())
	}
	if !slices.Equal(s, []string{"2", "3", "batch", "?"}) {
		t.Errorf("dims = %v", s)
	}
}

func TestAttrs(t *testing.T) {
	tensor := graph.Float32Tensor([]int64{1}, []float32{2})
	a := graph.AttrTensor("value", tensor)
	tensor.Dims[0] = 5 // the attribute holds a copy
	ap := func(name string, typ onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
		return &onnxpb.AttributeProto{Name: proto.String(name), Type: typ.Enum()}
	}
	want := []*onnxpb.AttributeProto{
		ap("axis", onnxpb.AttributeProto_INT), ap("perm", onnxpb.AttributeProto_INTS),
		ap("epsilon", onnxpb.AttributeProto_FLOAT), ap("scales", onnxpb.AttributeProto_FLOATS),
		ap("mode", onnxpb.AttributeProto_STRING), ap("keys", onnxpb.AttributeProto_STRINGS),
		ap("value", onnxpb.AttributeProto_TENSOR),
	}
	want[0].I = proto.Int64(-1)
	want[1].Ints = []int64{0, 2, 1}
	want[2].F = proto.Float32(0.5)
	want[3].Floats = []float32{1, 2}
	want[4].S = []byte("reflect")
	want[5].Strings = [][]byte{[]byte("a"), []byte("b")}
	want[6].T = &onnxpb.TensorProto{Dims: []int64{1}, DataType: proto.Int32(1), RawData: []byte{0, 0, 0, 0x40}}
	got := []graph.Attr{
		graph.AttrInt("axis", -1), graph.AttrInts("perm", 0, 2, 1), graph.AttrFloat("epsilon", 0.5),
		graph.AttrFloats("scales", 1, 2), graph.AttrString("mode", "reflect"), graph.AttrStrings("keys", "a", "b"), a,
	}
	for i, g := range got {
		t.Run(g.Name(), func(t *testing.T) {
			if !proto.Equal(g.Proto(), want[i]) {
				t.Errorf("attr = %v, want %v", g.Proto(), want[i])
			}
		})
	}
	if (graph.Attr{}).Proto() != nil {
		t.Error("zero Attr has a proto")
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "affine.onnx")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := affine()
	if err := g.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := g.Marshal()
	if !slices.Equal(got, want) {
		t.Error("file contents differ from Marshal")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the model (temp file left behind?)", len(entries))
	}
	if err := g.WriteFile(filepath.Join(dir, "missing", "m.onnx")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("WriteFile into a missing directory = %v, want an error naming the path", err)
	}
}
