// Package graph builds ONNX models in Go: declare typed inputs, add initializers from Go slices,
// chain operator nodes whose intermediate values are named automatically, declare outputs, and
// serialize. It writes the protobuf types of package onnxpb and needs no Python or ONNX
// tooling; the models it produces run in ONNX Runtime.
//
// A small model computes y = x·W + b:
//
//	g := graph.New("affine")
//	x := g.Input("x", graph.Float32, graph.Sym("batch"), graph.Fixed(3))
//	w := g.InitFloat32("W", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6})
//	b := g.InitFloat32("b", []int64{2}, []float32{0.5, -0.5})
//	g.Node(graph.Node{Op: "Add", Inputs: []string{g.Op("MatMul", x, w), b}, Outputs: []string{"y"}})
//	g.Output("y", graph.Float32, graph.Sym("batch"), graph.Fixed(2))
//	data, err := g.Marshal()
//
// # Values and names
//
// Every value is a string name. Graph.Input and the Init* methods return the names they were
// given; Graph.Op, Graph.OpWith (with attributes) and Graph.OpN (several outputs) return fresh
// names derived from the operator type ("MatMul", "MatMul_1", …); Graph.Node takes explicit
// names, which is how a graph output gets its public name. Graph.Unique hands out readable
// fresh names for Node. ScalarFloat32, ScalarInt64 and Int64s add small constants
// (shapes, axes, epsilons) as initializers, sharing equal ones; Graph.Constant adds a Constant
// node instead.
//
// Shapes are declared with Fixed, Sym (a named symbolic dimension such as "batch" or
// "sequence", shared by every value that uses the name) and Unknown. Attributes are typed:
// AttrInt, AttrInts, AttrFloat, AttrFloats, AttrString, AttrStrings and AttrTensor. Tensors for
// initializers and attributes come from Float32Tensor, Int64Tensor, Int32Tensor, BoolTensor,
// Float64Tensor, StringTensor, and RawTensor for any other element type given its
// little-endian bytes.
//
// # Model fields
//
// A new Graph imports the standard domain at opset DefaultOpset (17); Graph.Opset changes that
// or imports other domains ("ai.onnx.ml", "com.microsoft"). The IR version defaults to
// DefaultIRVersion (8). Producer, doc strings, model version and Graph.Metadata
// (metadata_props) are written as given.
//
// # Validation
//
// Nodes must be added in topological order. Build, Marshal and WriteFile first run
// Graph.Validate, which returns a *ValidationError listing every problem at once: an input of a
// node that no graph input, initializer or earlier node defines ("" is allowed for an omitted
// optional input), a name defined twice, a declared output nothing produces, a node in a domain
// without an opset import, an invalid element type, or initializer contents that do not match
// their shape. It does not check operator signatures or infer shapes; ONNX Runtime reports
// those when it loads the model.
//
// WriteFile writes through a temporary file and a rename, so a reader never sees half a model.
// External data (tensors stored beside the model) is not supported; models must fit the 2 GiB
// protobuf limit.
//
// A Graph is not safe for concurrent use.
package graph
