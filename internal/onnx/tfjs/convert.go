package tfjs

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/internal/onnx/graph"
	"github.com/atma-dev/atma/onnx/onnxpb"
)

// Supported ONNX opsets. TF's ScatterNd sums duplicate indices, which needs ScatterND's
// reduction="add" (opset 16); 17 is the floor because it is the opset the rest of atma and
// internal/onnx/graph target. 21 is the newest opset whose operator changes the converter has been
// checked against (the tests run at 17, 18 and 21).
const (
	DefaultOpset = 17
	MinOpset     = 17
	MaxOpset     = 21
)

// Names of the inputs of a model converted with Options.Dense.
const (
	DenseInputIDs      = "input_ids"
	DenseAttentionMask = "attention_mask"
)

// Names of the sparse inputs that Options.Dense replaces.
const (
	SparseIndices = "indices"
	SparseValues  = "values"
)

// ErrUnsupportedOp is returned (wrapped, with the op and node named) for a TF op the
// converter does not implement.
var ErrUnsupportedOp = errors.New("unsupported TF op")

// ErrOutputNotFound is returned when the requested output is not a node of the graph, or the
// default output is ambiguous; the message lists the candidates.
var ErrOutputNotFound = errors.New("output not found")

// Options configures Convert. The zero value converts the model's only sink node at opset 17
// with the model's own (sparse) inputs.
type Options struct {
	// Opset is the ONNX opset of the default domain: 0 means DefaultOpset; MinOpset through
	// MaxOpset are supported.
	Opset int
	// OutputName is the TF tensor to export ("node" or "node:1"). Empty means the model's
	// signature output, or else its only node that nothing consumes. The ONNX output has the
	// same name.
	OutputName string
	// Dense gives the ONNX model the inputs input_ids and attention_mask (both int64
	// [batch, sequence]) in place of the sparse indices [N, 2] and values [N]. The sparse
	// pair is rebuilt inside the graph from the positions where attention_mask is non-zero, in
	// row-major order, which is the order TF.js's own encoder builds them in, so results are
	// the same as feeding the sparse inputs. The model must have the two inputs "indices" and
	// "values". As in the sparse graph, trailing rows without tokens are dropped from the
	// output (see the package documentation).
	Dense bool
}

// Validate reports every problem with the options at once.
func (o Options) Validate() error {
	var errs []error
	if o.Opset != 0 && (o.Opset < MinOpset || o.Opset > MaxOpset) {
		errs = append(errs, fmt.Errorf("opset %d is not supported (want %d to %d, or 0 for %d)", o.Opset, MinOpset, MaxOpset, DefaultOpset))
	}
	if strings.HasPrefix(o.OutputName, "^") {
		errs = append(errs, fmt.Errorf("output name %q is a control dependency, not a tensor", o.OutputName))
	}
	return errors.Join(errs...)
}

// irVersion is the lowest IR version that allows each opset.
func irVersion(opset int) int64 {
	switch {
	case opset >= 21:
		return 10
	case opset >= 19:
		return 9
	}
	return 8
}

// value is a tensor of the converted graph. A constant is materialised as an initializer only
// when a node uses it, so constants that become attributes leave nothing behind.
type value struct {
	name   string // ONNX value name ("" while an unused constant)
	base   string // name to give the constant's initializer
	dtype  graph.DType
	shape  []int64 // dims when ranked; -1 marks an unknown dim
	ranked bool
	konst  *tensor
	i64    string // cached INT64 version
}

func (v *value) rank() int {
	if !v.ranked {
		return -1
	}
	return len(v.shape)
}

// dim returns dimension i (negative counts from the end) or -1 when unknown.
func (v *value) dim(i int) int64 {
	if !v.ranked {
		return -1
	}
	if i < 0 {
		i += len(v.shape)
	}
	if i < 0 || i >= len(v.shape) {
		return -1
	}
	return v.shape[i]
}

// converter holds the state of one Convert call.
type converter struct {
	m     *Model
	g     *graph.Graph
	opset int
	vals  map[string][]*value
	cur   *node // node being converted, for naming
	// unranked lists graph inputs and outputs of unknown rank.
	unranked []string
}

// Convert translates the model into a serialized ONNX model. Unknown ops, ops used in ways the
// converter cannot express exactly, and missing outputs are errors that name the node.
func (m *Model) Convert(opts Options) ([]byte, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("convert TF.js model: %w", err)
	}
	if opts.Opset == 0 {
		opts.Opset = DefaultOpset
	}
	target, err := m.pickOutput(opts.OutputName)
	if err != nil {
		return nil, fmt.Errorf("convert TF.js model: %w", err)
	}
	order, err := m.topoOrder(target.node)
	if err != nil {
		return nil, fmt.Errorf("convert TF.js model: %w", err)
	}
	if err := checkOps(order); err != nil {
		return nil, fmt.Errorf("convert TF.js model: %w", err)
	}
	g := graph.New("tfjs")
	g.Opset("", int64(opts.Opset))
	g.IRVersion = irVersion(opts.Opset)
	g.Producer = "atma internal/onnx/tfjs"
	c := &converter{m: m, g: g, opset: opts.Opset, vals: map[string][]*value{}}
	if err := c.inputs(order, opts.Dense); err != nil {
		return nil, fmt.Errorf("convert TF.js model: %w", err)
	}
	outName := g.Unique(target.String())
	if outName != target.String() {
		return nil, fmt.Errorf("convert TF.js model: output name %q collides with an input", target)
	}
	for _, n := range order {
		if _, done := c.vals[n.name]; done {
			continue // a Placeholder already declared
		}
		ins := make([]*value, len(n.inputs))
		for i, r := range n.inputs {
			vs := c.vals[r.node]
			if r.index >= len(vs) {
				return nil, fmt.Errorf("convert TF.js model: node %q (%s): input %q: node %q has %d output(s)", n.name, n.op, r, r.node, len(vs))
			}
			ins[i] = vs[r.index]
		}
		h := handlers[n.op]
		if want := h.inputs; want >= 0 && len(ins) != want {
			return nil, fmt.Errorf("convert TF.js model: node %q (%s): has %d inputs, want %d", n.name, n.op, len(ins), want)
		}
		c.cur = n
		outs, err := h.fn(c, n, ins)
		if err != nil {
			return nil, fmt.Errorf("convert TF.js model: node %q (%s): %w", n.name, n.op, err)
		}
		c.vals[n.name] = outs
	}
	vs := c.vals[target.node]
	if target.index >= len(vs) {
		return nil, fmt.Errorf("convert TF.js model: output %q: node %q has %d output(s)", target, target.node, len(vs))
	}
	res := vs[target.index]
	c.cur = &node{name: target.node}
	g.Node(graph.Node{Op: "Identity", Inputs: []string{c.ref(res)}, Outputs: []string{outName}})
	g.Output(outName, res.dtype, dimsOf(res)...)
	if !res.ranked {
		c.unranked = append(c.unranked, outName)
	}
	b, err := c.marshal()
	if err != nil {
		return nil, fmt.Errorf("convert TF.js model: %w", err)
	}
	return b, nil
}

// marshal serializes the graph. graph.Graph declares every input and output with a shape, and
// an empty one means a scalar; values whose rank is unknown get their shape removed, which is
// how ONNX says "any rank".
func (c *converter) marshal() ([]byte, error) {
	if len(c.unranked) == 0 {
		return c.g.Marshal()
	}
	mp, err := c.g.Build()
	if err != nil {
		return nil, err
	}
	for _, vi := range append(append([]*onnxpb.ValueInfoProto{}, mp.Graph.Input...), mp.Graph.Output...) {
		if slices.Contains(c.unranked, vi.GetName()) {
			vi.GetType().GetTensorType().Shape = nil
		}
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(mp)
	if err != nil {
		return nil, fmt.Errorf("marshal ONNX model: %w", err)
	}
	return b, nil
}

func dimsOf(v *value) []graph.Dim {
	if !v.ranked {
		return nil
	}
	d := make([]graph.Dim, len(v.shape))
	for i, s := range v.shape {
		if s < 0 {
			d[i] = graph.Unknown()
		} else {
			d[i] = graph.Fixed(s)
		}
	}
	return d
}

// pickOutput resolves Options.OutputName, or the default output.
func (m *Model) pickOutput(name string) (tensorRef, error) {
	cands := m.Outputs()
	if name == "" {
		if len(cands) == 1 {
			return tensorRef{node: cands[0]}, nil
		}
		return tensorRef{}, fmt.Errorf("%w: the graph has %d candidate outputs, set Options.OutputName to one of: %s", ErrOutputNotFound, len(cands), strings.Join(cands, ", "))
	}
	r := parseRef(name)
	if _, ok := m.byName[r.node]; !ok {
		return tensorRef{}, fmt.Errorf("%w: no node %q in %s; candidate outputs: %s", ErrOutputNotFound, r.node, m.path, strings.Join(cands, ", "))
	}
	return r, nil
}

// topoOrder returns the nodes the output depends on, producers before consumers.
func (m *Model) topoOrder(out string) ([]*node, error) {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var order []*node
	type frame struct {
		n    *node
		next int
	}
	start := m.byName[out]
	stack := []frame{{n: start}}
	state[out] = open
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == len(f.n.inputs) {
			state[f.n.name] = done
			order = append(order, f.n)
			stack = stack[:len(stack)-1]
			continue
		}
		r := f.n.inputs[f.next]
		f.next++
		p, ok := m.byName[r.node]
		if !ok {
			return nil, fmt.Errorf("node %q (%s): input %q is not a node of the graph", f.n.name, f.n.op, r)
		}
		switch state[r.node] {
		case open:
			return nil, fmt.Errorf("node %q (%s): the graph has a cycle through %q; control flow is not supported", f.n.name, f.n.op, r.node)
		case unseen:
			state[r.node] = open
			stack = append(stack, frame{n: p})
		}
	}
	return order, nil
}

// inputs declares the graph inputs: the Placeholders the output depends on, or with dense the
// input_ids/attention_mask pair and the nodes that rebuild the sparse inputs from them.
func (c *converter) inputs(order []*node, dense bool) error {
	var phs []*node
	for _, n := range order {
		if n.op == "Placeholder" {
			phs = append(phs, n)
		}
	}
	decl := func(n *node) (*value, error) {
		t, ok, err := n.attrType("dtype")
		if err != nil {
			return nil, fmt.Errorf("placeholder %q: %w", n.name, err)
		}
		if !ok {
			return nil, fmt.Errorf("placeholder %q has no dtype attribute", n.name)
		}
		dt, err := onnxType(t)
		if err != nil {
			return nil, fmt.Errorf("placeholder %q: %w", n.name, err)
		}
		v := &value{name: n.name, dtype: dt}
		if a, ok := n.attr["shape"]; ok && a.Shape != nil {
			v.shape, v.ranked = a.Shape.dims()
		}
		return v, nil
	}
	if !dense {
		for _, n := range phs {
			v, err := decl(n)
			if err != nil {
				return err
			}
			c.g.Input(v.name, v.dtype, dimsOf(v)...)
			if !v.ranked {
				c.unranked = append(c.unranked, v.name)
			}
			c.vals[n.name] = []*value{v}
		}
		return nil
	}
	var idx, vals *node
	var names []string
	for _, n := range phs {
		names = append(names, n.name)
		switch n.name {
		case SparseIndices:
			idx = n
		case SparseValues:
			vals = n
		}
	}
	if idx == nil || vals == nil || len(phs) != 2 {
		return fmt.Errorf("dense inputs need a graph whose only inputs are %q [N, 2] and %q [N]; this one has %v: convert without Options.Dense", SparseIndices, SparseValues, names)
	}
	iv, err := decl(idx)
	if err != nil {
		return err
	}
	vv, err := decl(vals)
	if err != nil {
		return err
	}
	if !isInt(iv.dtype) || !isInt(vv.dtype) || (iv.ranked && (len(iv.shape) != 2 || (iv.shape[1] != 2 && iv.shape[1] != -1))) || (vv.ranked && len(vv.shape) != 1) {
		return fmt.Errorf("dense inputs need integer inputs %q [N, 2] and %q [N]; have %v %v and %v %v: convert without Options.Dense", SparseIndices, SparseValues, iv.dtype, iv.shape, vv.dtype, vv.shape)
	}
	g := c.g
	dims := []graph.Dim{graph.Sym("batch"), graph.Sym("sequence")}
	ids := g.Input(DenseInputIDs, graph.Int64, dims...)
	mask := g.Input(DenseAttentionMask, graph.Int64, dims...)
	c.cur = &node{name: "dense_inputs"}
	// indices = positions of the non-zero mask entries, row-major ([N, 2] int64);
	// values = input_ids at those positions.
	nz := c.op("NonZero", []string{c.op("Cast", []string{mask}, graph.AttrInt("to", int64(graph.Bool)))})
	pos := c.op("Transpose", []string{nz}, graph.AttrInts("perm", 1, 0))
	tok := c.op("GatherND", []string{ids, pos})
	iOut := &value{name: pos, dtype: graph.Int64, shape: []int64{-1, 2}, ranked: true}
	vOut := &value{name: tok, dtype: graph.Int64, shape: []int64{-1}, ranked: true}
	if iv.dtype != graph.Int64 {
		iOut = &value{name: c.op("Cast", []string{pos}, graph.AttrInt("to", int64(iv.dtype))), dtype: iv.dtype, shape: iOut.shape, ranked: true}
	}
	if vv.dtype != graph.Int64 {
		vOut = &value{name: c.op("Cast", []string{tok}, graph.AttrInt("to", int64(vv.dtype))), dtype: vv.dtype, shape: vOut.shape, ranked: true}
	}
	c.vals[idx.name] = []*value{iOut}
	c.vals[vals.name] = []*value{vOut}
	return nil
}

// ref returns the ONNX name of v, adding a constant's initializer on first use.
func (c *converter) ref(v *value) string {
	if v.name == "" {
		v.name = c.g.Initializer(c.g.Unique(v.base), v.konst.proto())
	}
	return v.name
}

// op adds a single-output node named after the TF node being converted.
func (c *converter) op(opType string, inputs []string, attrs ...graph.Attr) string {
	return c.opN(opType, 1, inputs, attrs...)[0]
}

func (c *converter) opN(opType string, n int, inputs []string, attrs ...graph.Attr) []string {
	base := c.g.Unique(c.cur.name + "/" + opType)
	outs := make([]string, n)
	if n == 1 {
		outs[0] = base
	} else {
		for i := range outs {
			outs[i] = c.g.Unique(fmt.Sprintf("%s:%d", base, i))
		}
	}
	return c.g.Node(graph.Node{Op: opType, Name: base, Inputs: inputs, Outputs: outs, Attrs: attrs})
}

// int64Of returns the name of v as an INT64 tensor: a new initializer for a constant, a Cast
// otherwise (shapes, axes and indices must be INT64 in ONNX).
func (c *converter) int64Of(v *value) (string, error) {
	if v.dtype == graph.Int64 {
		return c.ref(v), nil
	}
	if v.i64 != "" {
		return v.i64, nil
	}
	if !isInt(v.dtype) {
		return "", fmt.Errorf("expected an integer tensor, have %v", v.dtype)
	}
	if v.konst != nil {
		t, err := v.konst.castTo(graph.Int64)
		if err != nil {
			return "", err
		}
		v.i64 = c.g.Initializer(c.g.Unique(v.base+"/int64"), t.proto())
		return v.i64, nil
	}
	v.i64 = c.op("Cast", []string{c.ref(v)}, graph.AttrInt("to", int64(graph.Int64)))
	return v.i64, nil
}

// constInts returns the elements of a constant integer input, or an error saying what must be
// constant.
func constInts(v *value, what string) ([]int64, error) {
	if v.konst == nil {
		return nil, fmt.Errorf("%s must be a constant (it is computed at run time, which this converter does not support here)", what)
	}
	return v.konst.ints()
}

// constInt is constInts for a scalar or single-element input.
func constInt(v *value, what string) (int64, error) {
	vs, err := constInts(v, what)
	if err != nil {
		return 0, err
	}
	if len(vs) != 1 {
		return 0, fmt.Errorf("%s must hold one value, has %d", what, len(vs))
	}
	return vs[0], nil
}

// out makes a non-constant result value.
func out(name string, dt graph.DType, shape []int64, ranked bool) *value {
	if !ranked {
		shape = nil
	}
	return &value{name: name, dtype: dt, shape: shape, ranked: ranked}
}

// like makes a result with v's type and shape.
func like(name string, v *value) *value {
	return out(name, v.dtype, append([]int64(nil), v.shape...), v.ranked)
}

// SupportedOps lists the TF ops the converter handles, sorted.
func SupportedOps() []string {
	ops := []string{"Placeholder"}
	for k := range handlers {
		ops = append(ops, k)
	}
	sort.Strings(ops)
	return ops
}

// checkOps reports every op of nodes that has no handler, each with the first node using it.
func checkOps(nodes []*node) error {
	first := map[string]string{}
	var missing []string
	for _, n := range nodes {
		if _, ok := handlers[n.op]; ok || n.op == "Placeholder" {
			continue
		}
		if _, seen := first[n.op]; !seen {
			first[n.op] = n.name
			missing = append(missing, n.op)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	parts := make([]string, len(missing))
	for i, op := range missing {
		parts[i] = fmt.Sprintf("%s (node %q)", op, first[op])
	}
	return fmt.Errorf("%w: %s; add a converter for it to internal/onnx/tfjs or export the model without it (supported ops: %s)", ErrUnsupportedOp, strings.Join(parts, ", "), strings.Join(SupportedOps(), ", "))
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis int64, rank int) (int64, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, fmt.Errorf("axis %d is out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return axis, nil
}

// scalarOf returns a one-element constant of type dt as an initializer name.
func (c *converter) scalarOf(dt graph.DType, v float64) string {
	var t *tensor
	if isFloat(dt) {
		t = floatTensor(dt, nil, []float64{v})
	} else {
		t = intTensor(dt, nil, []int64{int64(v)})
	}
	return c.g.Initializer(c.g.Unique(c.cur.name+"/const"), t.proto())
}

const (
	maxInt64 = math.MaxInt64
	minInt64 = math.MinInt64
)
