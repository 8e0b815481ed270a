package graph_test

import (
	"fmt"
	"log"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/internal/onnx/graph"
	"github.com/atma-dev/atma/onnx/onnxpb"
)

// A model computing y = x·W + b for a batch of 3-vectors.
func Example() {
	g := graph.New("affine")
	g.Producer = "example"
	x := g.Input("x", graph.Float32, graph.Sym("batch"), graph.Fixed(3))
	w := g.InitFloat32("W", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6})
	b := g.InitFloat32("b", []int64{2}, []float32{0.5, -0.5})
	xw := g.Op("MatMul", x, w)
	g.Node(graph.Node{Op: "Add", Inputs: []string{xw, b}, Outputs: []string{"y"}})
	g.Output("y", graph.Float32, graph.Sym("batch"), graph.Fixed(2))

	data, err := g.Marshal()
	if err != nil {
		log.Fatal(err)
	}
	// data is a complete ONNX model; read it back to show what it holds.
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		log.Fatal(err)
	}
	fmt.Println("ir", m.GetIrVersion(), "opset", m.GetOpsetImport()[0].GetVersion(), "producer", m.GetProducerName())
	for _, n := range m.GetGraph().GetNode() {
		fmt.Println(n.GetOpType(), n.GetInput(), "->", n.GetOutput())
	}
	// Output:
	// ir 8 opset 17 producer example
	// MatMul [x W] -> [MatMul]
	// Add [MatMul b] -> [y]
}

// Every problem is reported at once.
func ExampleGraph_Validate() {
	g := graph.New("broken")
	x := g.Input("x", graph.Float32, graph.Fixed(2))
	g.Op("Add", x, "missing")
	g.Output("y", graph.Float32, graph.Fixed(2))
	if err := g.Validate(); err != nil {
		for _, p := range err.(*graph.ValidationError).Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// node 0 "Add" (Add): input 1 "missing" is not defined before the node
	// output "y" is not produced by any node, input or initializer
}
