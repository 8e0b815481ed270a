package graph

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/onnx/onnxpb"
)

// DefaultOpset is the version of the default ONNX domain ("") that a new Graph imports.
const DefaultOpset = 17

// DefaultIRVersion is the IR version written when Graph.IRVersion is zero: 8, the version of
// the onnx.proto schema in onnxpb and the lowest that opset 17 allows.
const DefaultIRVersion = 8

// Graph builds an ONNX model: one main graph plus the model-level fields. Add inputs,
// initializers and nodes in topological order, declare outputs, then call Build, Marshal or
// WriteFile, which validate the whole model and report every problem at once.
//
// The exported fields are written into the ModelProto as they are when Build runs.
// Create graphs with New; the zero Graph is not usable. A Graph is not safe for concurrent use.
type Graph struct {
	// Name is the graph's name ("main" if empty).
	Name string
	// Doc is the graph's doc_string.
	Doc string
	// ModelDoc is the model's doc_string.
	ModelDoc string
	// Producer and ProducerVersion name the tool that wrote the model.
	Producer, ProducerVersion string
	// Domain is the model's reverse-DNS namespace (optional).
	Domain string
	// ModelVersion is the model's version number (optional).
	ModelVersion int64
	// IRVersion is the ONNX IR version; zero means DefaultIRVersion.
	IRVersion int64

	opsets   []opset
	meta     []*onnxpb.StringStringEntryProto
	inputs   []*onnxpb.ValueInfoProto
	outputs  []*onnxpb.ValueInfoProto
	infos    []*onnxpb.ValueInfoProto
	inits    []*onnxpb.TensorProto
	nodes    []*onnxpb.NodeProto
	used     map[string]bool   // every value name declared or reserved by Unique
	defined  map[string]bool   // every value name declared (input, initializer, node output)
	counts   map[string]int    // per-base counters for fresh names
	consts   map[string]string // constant key → initializer name, so equal constants are shared
	nodeSeq  int
	problems []string // recorded while building, reported by Validate
}

type opset struct {
	domain  string
	version int64
}

// New returns an empty graph called name that imports the default domain at DefaultOpset.
func New(name string) *Graph {
	return &Graph{
		Name:    name,
		opsets:  []opset{{"", DefaultOpset}},
		used:    map[string]bool{},
		defined: map[string]bool{},
		counts:  map[string]int{},
		consts:  map[string]string{},
	}
}

// Opset sets the version imported for domain: "" (or "ai.onnx") for the standard operators,
// "ai.onnx.ml", "com.microsoft", …. Calling it again for a domain replaces the version.
func (g *Graph) Opset(domain string, version int64) {
	domain = canonDomain(domain)
	for i := range g.opsets {
		if g.opsets[i].domain == domain {
			g.opsets[i].version = version
			return
		}
	}
	g.opsets = append(g.opsets, opset{domain, version})
}

// Metadata adds a key/value pair to the model's metadata_props; setting a key again replaces
// its value. Pairs are written in the order their keys were first set.
func (g *Graph) Metadata(key, value string) {
	for _, e := range g.meta {
		if e.GetKey() == key {
			e.Value = proto.String(value)
			return
		}
	}
	g.meta = append(g.meta, &onnxpb.StringStringEntryProto{Key: proto.String(key), Value: proto.String(value)})
}

func canonDomain(d string) string {
	if d == "ai.onnx" {
		return ""
	}
	return d
}

// Unique returns base if no value of the graph has that name yet, else base_1, base_2, … —
// the first that is free. The name is reserved, not defined: later calls and generated names
// avoid it, and the Node, Input or Initializer that then uses it defines it. Use it to give
// intermediate values readable names for Node.
func (g *Graph) Unique(base string) string {
	if base == "" {
		base = "v"
	}
	name := g.fresh(base)
	g.used[name] = true
	return name
}

// fresh returns the first of base, base_1, base_2, … that is not in use, without reserving it.
func (g *Graph) fresh(base string) string {
	name := base
	for g.used[name] {
		g.counts[base]++
		name = base + "_" + strconv.Itoa(g.counts[base])
	}
	return name
}

// Has reports whether name is already a value of the graph (input, initializer or node output)
// or was reserved by Unique.
func (g *Graph) Has(name string) bool { return g.used[name] }

// declare records a name given explicitly by the caller, noting a duplicate.
func (g *Graph) declare(name, what string) {
	if name == "" {
		g.problems = append(g.problems, fmt.Sprintf("%s with an empty name", what))
		return
	}
	if g.defined[name] {
		g.problems = append(g.problems, fmt.Sprintf("%s %q: name already defined", what, name))
	}
	g.defined[name] = true
	g.used[name] = true
}

func valueInfo(name string, dt DType, dims []Dim) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{}}
	for _, d := range dims {
		dim := &onnxpb.TensorShapeProto_Dimension{}
		switch {
		case d.Param != "":
			dim.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d.Param}
		case d.Size >= 0:
			dim.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d.Size}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &onnxpb.ValueInfoProto{
		Name: proto.String(name),
		Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(dt)),
			Shape:    shape,
		}}},
	}
}

func (g *Graph) checkType(what, name string, dt DType) {
	if !dt.valid() {
		g.problems = append(g.problems, fmt.Sprintf("%s %q: invalid element type %v", what, name, dt))
	}
}

// Input declares a graph input of element type dt and shape dims (Fixed, Sym or Unknown
// dimensions; none for a scalar) and returns its name.
func (g *Graph) Input(name string, dt DType, dims ...Dim) string {
	g.declare(name, "input")
	g.checkType("input", name, dt)
	g.inputs = append(g.inputs, valueInfo(name, dt, dims))
	return name
}

// Output declares name, a value defined elsewhere in the graph, as a graph output of element
// type dt and shape dims.
func (g *Graph) Output(name string, dt DType, dims ...Dim) {
	g.checkType("output", name, dt)
	g.outputs = append(g.outputs, valueInfo(name, dt, dims))
}

// ValueInfo records the type and shape of an intermediate value, a hint for tools and
// runtimes; it is optional.
func (g *Graph) ValueInfo(name string, dt DType, dims ...Dim) {
	g.checkType("value info", name, dt)
	g.infos = append(g.infos, valueInfo(name, dt, dims))
}

// Initializer adds t, a constant tensor, under name (a fresh "init" name if empty) and returns
// the name. t is copied, so one TensorProto may seed several initializers.
func (g *Graph) Initializer(name string, t *onnxpb.TensorProto) string {
	if name == "" {
		name = g.Unique("init")
	} else {
		g.declare(name, "initializer")
	}
	if t == nil {
		g.problems = append(g.problems, fmt.Sprintf("initializer %q: nil tensor", name))
		return name
	}
	c := proto.Clone(t).(*onnxpb.TensorProto)
	c.Name = proto.String(name)
	g.inits = append(g.inits, c)
	return name
}

// InitFloat32 adds a FLOAT initializer of shape dims; see Initializer.
func (g *Graph) InitFloat32(name string, dims []int64, data []float32) string {
	return g.Initializer(name, Float32Tensor(dims, data))
}

// InitFloat64 adds a DOUBLE initializer of shape dims; see Initializer.
func (g *Graph) InitFloat64(name string, dims []int64, data []float64) string {
	return g.Initializer(name, Float64Tensor(dims, data))
}

// InitInt64 adds an INT64 initializer of shape dims; see Initializer.
func (g *Graph) InitInt64(name string, dims []int64, data []int64) string {
	return g.Initializer(name, Int64Tensor(dims, data))
}

// InitInt32 adds an INT32 initializer of shape dims; see Initializer.
func (g *Graph) InitInt32(name string, dims []int64, data []int32) string {
	return g.Initializer(name, Int32Tensor(dims, data))
}

// InitBool adds a BOOL initializer of shape dims; see Initializer.
func (g *Graph) InitBool(name string, dims []int64, data []bool) string {
	return g.Initializer(name, BoolTensor(dims, data))
}

// InitRaw adds an initializer of element type dt whose contents are the little-endian bytes
// raw (for FLOAT16, UINT8 and other types without a typed helper); see Initializer.
func (g *Graph) InitRaw(name string, dt DType, dims []int64, raw []byte) string {
	return g.Initializer(name, RawTensor(dt, dims, raw))
}

// constant returns the shared initializer for key, adding t under a fresh name the first time.
func (g *Graph) constant(key string, t *onnxpb.TensorProto) string {
	if name, ok := g.consts[key]; ok {
		return name
	}
	name := g.Initializer(g.Unique("const"), t)
	g.consts[key] = name
	return name
}

func joinNums[T any](v []T) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

// ScalarFloat32 returns the name of a FLOAT scalar (rank 0) constant. Equal constants are
// added once and shared, so calling it freely is cheap.
func (g *Graph) ScalarFloat32(v float32) string {
	return g.constant("f32:"+strconv.FormatUint(uint64(math.Float32bits(v)), 16), Float32Tensor(nil, []float32{v}))
}

// ScalarInt64 returns the name of an INT64 scalar constant; see ScalarFloat32.
func (g *Graph) ScalarInt64(v int64) string {
	return g.constant("i64:"+strconv.FormatInt(v, 10), Int64Tensor(nil, []int64{v}))
}

// Int64s returns the name of a 1-D INT64 constant holding v (shapes, axes, perm inputs);
// see ScalarFloat32.
func (g *Graph) Int64s(v ...int64) string {
	return g.constant("i64s:"+joinNums(v), Int64Tensor([]int64{int64(len(v))}, v))
}

// Constant adds a Constant node whose value is t and returns its output name. Use it where a
// value must be a node output rather than an initializer; ScalarFloat32 and friends are
// simpler otherwise.
func (g *Graph) Constant(t *onnxpb.TensorProto) string {
	return g.OpWith("Constant", nil, AttrTensor("value", t))
}

// Node is a fully specified node for Graph.Node.
type Node struct {
	// Op is the operator type ("MatMul"); Domain its operator-set domain ("" for standard
	// ONNX; others need an Opset import).
	Op, Domain string
	// Name is the node's name; empty means a fresh one.
	Name string
	// Inputs are value names in the operator's input order; "" skips an optional input.
	Inputs []string
	// Outputs are the names of the values the node defines; "" skips an optional output.
	Outputs []string
	// Attrs are the node's attributes.
	Attrs []Attr
	// Doc is the node's doc_string.
	Doc string
}

// Node adds n with its explicit output names and returns those names.
func (g *Graph) Node(n Node) []string {
	name := n.Name
	if name == "" {
		name = n.Op + "_" + strconv.Itoa(g.nodeSeq)
	}
	g.nodeSeq++
	what := fmt.Sprintf("node %q (%s)", name, n.Op)
	if n.Op == "" {
		g.problems = append(g.problems, fmt.Sprintf("node %q: empty op type", name))
	}
	for _, o := range n.Outputs {
		if o != "" {
			g.declare(o, what+" output")
		}
	}
	np := &onnxpb.NodeProto{
		Input:  clone(n.Inputs),
		Output: clone(n.Outputs),
		Name:   proto.String(name),
		OpType: proto.String(n.Op),
	}
	if n.Domain != "" {
		np.Domain = proto.String(n.Domain)
	}
	if n.Doc != "" {
		np.DocString = proto.String(n.Doc)
	}
	seen := map[string]bool{}
	for _, a := range n.Attrs {
		if a.p == nil {
			g.problems = append(g.problems, what+": zero Attr")
			continue
		}
		switch {
		case a.Name() == "":
			g.problems = append(g.problems, what+": attribute with an empty name")
		case seen[a.Name()]:
			g.problems = append(g.problems, fmt.Sprintf("%s: attribute %q given twice", what, a.Name()))
		}
		seen[a.Name()] = true
		np.Attribute = append(np.Attribute, a.Proto())
	}
	g.nodes = append(g.nodes, np)
	return clone(n.Outputs)
}

// Op adds a single-output node of type opType and returns the fresh name of its output.
func (g *Graph) Op(opType string, inputs ...string) string {
	return g.OpWith(opType, inputs, nil...)
}

// OpWith is Op with attributes.
func (g *Graph) OpWith(opType string, inputs []string, attrs ...Attr) string {
	return g.OpN(opType, 1, inputs, attrs...)[0]
}

// OpN adds a node of type opType with n outputs, all freshly named, and returns their names.
// The node is named like its first output's base ("MatMul", "MatMul_1", …).
func (g *Graph) OpN(opType string, n int, inputs []string, attrs ...Attr) []string {
	if n < 1 {
		g.problems = append(g.problems, fmt.Sprintf("%s node asked for %d outputs", opType, n))
		n = 1
	}
	base := g.fresh(opType)
	outs := make([]string, n)
	if n == 1 {
		outs[0] = base
	} else {
		g.used[base] = true // the node's name; keep later fresh names off it
		for i := range outs {
			outs[i] = g.fresh(base + "_" + strconv.Itoa(i))
		}
	}
	return g.Node(Node{Op: opType, Name: base, Inputs: inputs, Outputs: outs, Attrs: attrs})
}
