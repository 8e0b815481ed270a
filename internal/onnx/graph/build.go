package graph

import (
	"fmt"
	"strings"

	"github.com/atma-dev/atma/internal/atomicfile"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/onnx/onnxpb"
)

// ValidationError lists every problem Validate found in a graph.
type ValidationError struct {
	Graph    string
	Problems []string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("invalid ONNX graph %q: %d problem(s): %s", e.Graph, len(e.Problems), strings.Join(e.Problems, "; "))
}

// Validate checks the graph and returns a *ValidationError listing every problem, or nil:
// names given twice, node inputs that are not defined before the node (by a graph input, an
// initializer or an earlier node's output; "" marks an omitted optional input), declared
// outputs that nothing defines, outputs declared twice, nodes in a domain with no Opset import,
// invalid element types and initializers whose contents do not match their shape.
func (g *Graph) Validate() error {
	probs := append([]string(nil), g.problems...)
	defined := map[string]bool{}
	for _, in := range g.inputs {
		defined[in.GetName()] = true
	}
	for _, t := range g.inits {
		defined[t.GetName()] = true
		for _, p := range checkTensor(t) {
			probs = append(probs, fmt.Sprintf("initializer %q: %s", t.GetName(), p))
		}
	}
	domains := map[string]bool{}
	for _, o := range g.opsets {
		domains[o.domain] = true
		if o.version <= 0 {
			probs = append(probs, fmt.Sprintf("opset for domain %q: version %d is not positive", o.domain, o.version))
		}
	}
	for i, n := range g.nodes {
		what := fmt.Sprintf("node %d %q (%s)", i, n.GetName(), n.GetOpType())
		if d := canonDomain(n.GetDomain()); !domains[d] {
			probs = append(probs, fmt.Sprintf("%s: domain %q has no opset import", what, d))
		}
		for j, in := range n.GetInput() {
			if in != "" && !defined[in] {
				probs = append(probs, fmt.Sprintf("%s: input %d %q is not defined before the node", what, j, in))
			}
		}
		for _, a := range n.GetAttribute() {
			if t := a.GetT(); t != nil {
				for _, p := range checkTensor(t) {
					probs = append(probs, fmt.Sprintf("%s: attribute %q: %s", what, a.GetName(), p))
				}
			}
		}
		for _, o := range n.GetOutput() {
			if o != "" {
				defined[o] = true
			}
		}
	}
	if len(g.outputs) == 0 {
		probs = append(probs, "graph declares no outputs")
	}
	seen := map[string]bool{}
	for _, o := range g.outputs {
		name := o.GetName()
		if seen[name] {
			probs = append(probs, fmt.Sprintf("output %q declared twice", name))
		}
		seen[name] = true
		if !defined[name] {
			probs = append(probs, fmt.Sprintf("output %q is not produced by any node, input or initializer", name))
		}
	}
	if len(probs) > 0 {
		return &ValidationError{Graph: g.graphName(), Problems: probs}
	}
	return nil
}

func (g *Graph) graphName() string {
	if g.Name == "" {
		return "main"
	}
	return g.Name
}

// Build validates the graph and returns it as a ModelProto. The result is a deep copy: later
// changes to g do not affect it.
func (g *Graph) Build() (*onnxpb.ModelProto, error) {
	m, err := g.build()
	if err != nil {
		return nil, err
	}
	return proto.Clone(m).(*onnxpb.ModelProto), nil
}

// build is Build without the copy: the result shares g's nodes, initializers and value infos.
func (g *Graph) build() (*onnxpb.ModelProto, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	gp := &onnxpb.GraphProto{
		Name:        proto.String(g.graphName()),
		Node:        g.nodes,
		Initializer: g.inits,
		Input:       g.inputs,
		Output:      g.outputs,
		ValueInfo:   g.infos,
	}
	if g.Doc != "" {
		gp.DocString = proto.String(g.Doc)
	}
	ir := g.IRVersion
	if ir == 0 {
		ir = DefaultIRVersion
	}
	m := &onnxpb.ModelProto{
		IrVersion:     proto.Int64(ir),
		Graph:         gp,
		MetadataProps: g.meta,
	}
	for _, o := range g.opsets {
		m.OpsetImport = append(m.OpsetImport, &onnxpb.OperatorSetIdProto{Domain: proto.String(o.domain), Version: proto.Int64(o.version)})
	}
	for _, f := range []struct {
		v   string
		dst **string
	}{{g.Producer, &m.ProducerName}, {g.ProducerVersion, &m.ProducerVersion}, {g.Domain, &m.Domain}, {g.ModelDoc, &m.DocString}} {
		if f.v != "" {
			*f.dst = proto.String(f.v)
		}
	}
	if g.ModelVersion != 0 {
		m.ModelVersion = proto.Int64(g.ModelVersion)
	}
	return m, nil
}

// Marshal validates the graph and returns the serialized model. The encoding is deterministic:
// the same graph always yields the same bytes.
func (g *Graph) Marshal() ([]byte, error) {
	m, err := g.build() // no copy: a large model's weights would be duplicated for nothing
	if err != nil {
		return nil, err
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("marshal ONNX model: %w", err)
	}
	return b, nil
}

// WriteFile validates the graph and writes the serialized model to path atomically: to a
// temporary file in the same directory, then renamed over path, so readers never see a
// partial model.
func (g *Graph) WriteFile(path string) error {
	b, err := g.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.Write(path, b)
}
