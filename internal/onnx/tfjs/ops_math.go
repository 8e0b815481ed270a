package tfjs

import (
	"fmt"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// reduce converts Sum, Mean, Max, Min and Prod with their reduction indices given as an input
// (TF) rather than an attribute, and keep_dims. An empty list of axes reduces nothing in TF,
// while ONNX reduces everything unless noop_with_empty_axes is set, so that case is handled
// explicitly.
func reduce(op string) func(*converter, *node, []*value) ([]*value, error) {
	return func(c *converter, n *node, in []*value) ([]*value, error) {
		x, ax := in[0], in[1]
		keep, err := n.attrBool("keep_dims", false)
		if err != nil {
			return nil, err
		}
		if x.dtype == graph.Bool {
			return nil, fmt.Errorf("%s of BOOL is not supported", n.op)
		}
		if op == "ReduceMean" && isInt(x.dtype) {
			return intMean(c, n, x, ax, keep)
		}
		keepAttr := keepDims(keep)
		axesAsInput := c.opset >= 18 || op == "ReduceSum"
		if ax.konst == nil {
			if !axesAsInput {
				return nil, fmt.Errorf("reduction_indices computed at run time need opset 18 or later for %s", op)
			}
			a64, err := c.int64Of(ax)
			if err != nil {
				return nil, fmt.Errorf("reduction_indices: %w", err)
			}
			name := c.op(op, []string{c.ref(x), a64}, keepAttr, graph.AttrInt("noop_with_empty_axes", 1))
			return []*value{out(name, x.dtype, nil, false)}, nil
		}
		axes, err := ax.konst.ints()
		if err != nil {
			return nil, err
		}
		if len(axes) == 0 {
			return []*value{x}, nil
		}
		var name string
		if axesAsInput {
			name = c.op(op, []string{c.ref(x), c.g.Int64s(axes...)}, keepAttr)
		} else {
			name = c.op(op, []string{c.ref(x)}, keepAttr, graph.AttrInts("axes", axes...))
		}
		res := out(name, x.dtype, nil, false)
		res.shape, res.ranked, err = reducedShape(x, axes, keep)
		if err != nil {
			return nil, err
		}
		return []*value{res}, nil
	}
}

func keepDims(keep bool) graph.Attr {
	if keep {
		return graph.AttrInt("keepdims", 1)
	}
	return graph.AttrInt("keepdims", 0)
}

func reducedShape(x *value, axes []int64, keep bool) ([]int64, bool, error) {
	if !x.ranked {
		return nil, false, nil
	}
	drop := map[int64]bool{}
	for _, a := range axes {
		na, err := normAxis(a, x.rank())
		if err != nil {
			return nil, false, err
		}
		drop[na] = true
	}
	var s []int64
	for i, d := range x.shape {
		switch {
		case !drop[int64(i)]:
			s = append(s, d)
		case keep:
			s = append(s, 1)
		}
	}
	return s, true, nil
}

// intMean is TF's integer Mean: the sum divided by the element count with truncation, which
// is what ONNX Div does on integers.
func intMean(c *converter, n *node, x, ax *value, keep bool) ([]*value, error) {
	a64, err := c.int64Of(ax)
	if err != nil {
		return nil, fmt.Errorf("reduction_indices: %w", err)
	}
	if ax.konst != nil {
		if v, _ := ax.konst.ints(); len(v) == 0 {
			return []*value{x}, nil
		}
	}
	keepAttr := keepDims(keep)
	xs := c.ref(x)
	sum := c.op("ReduceSum", []string{xs, a64}, keepAttr, graph.AttrInt("noop_with_empty_axes", 1))
	dims := c.op("Gather", []string{c.op("Shape", []string{xs}), a64}, graph.AttrInt("axis", 0))
	count := c.op("ReduceProd", []string{dims}, graph.AttrInt("keepdims", 0))
	count = c.op("Cast", []string{count}, graph.AttrInt("to", int64(x.dtype)))
	res := out(c.op("Div", []string{sum, count}), x.dtype, nil, false)
	if ax.konst != nil {
		axes, _ := ax.konst.ints()
		if res.shape, res.ranked, err = reducedShape(x, axes, keep); err != nil {
			return nil, err
		}
	}
	return []*value{res}, nil
}

// transposedConst returns the transpose of a constant 2-D operand as a new initializer.
func (c *converter) transposedConst(v *value) string {
	t := v.konst.transpose2D()
	return c.g.Initializer(c.g.Unique(v.base+"/transposed"), t.proto())
}

// convMatMul is a 2-D matrix product with optional transposes; a constant operand is
// transposed at conversion time.
func convMatMul(c *converter, n *node, in []*value) ([]*value, error) {
	a, b := in[0], in[1]
	ta, err := n.attrBool("transpose_a", false)
	if err != nil {
		return nil, err
	}
	tb, err := n.attrBool("transpose_b", false)
	if err != nil {
		return nil, err
	}
	if a.dtype != b.dtype {
		return nil, fmt.Errorf("operands have types %v and %v", a.dtype, b.dtype)
	}
	for _, v := range in {
		if v.ranked && v.rank() != 2 {
			return nil, fmt.Errorf("MatMul operands must be 2-D, one has shape %v", v.shape)
		}
	}
	operand := func(v *value, t bool) string {
		switch {
		case !t:
			return c.ref(v)
		case v.konst != nil:
			return c.transposedConst(v)
		}
		return c.op("Transpose", []string{c.ref(v)}, graph.AttrInts("perm", 1, 0))
	}
	name := c.op("MatMul", []string{operand(a, ta), operand(b, tb)})
	rows, cols := a.dim(0), b.dim(1)
	if ta {
		rows = a.dim(1)
	}
	if tb {
		cols = b.dim(0)
	}
	return []*value{out(name, a.dtype, []int64{rows, cols}, true)}, nil
}

// convBatchMatMul multiplies the last two axes with broadcasting over the rest; adj_x and
// adj_y transpose the last two axes (conjugation is a no-op for real types).
func convBatchMatMul(c *converter, n *node, in []*value) ([]*value, error) {
	x, y := in[0], in[1]
	adjX, err := n.attrBool("adj_x", false)
	if err != nil {
		return nil, err
	}
	adjY, err := n.attrBool("adj_y", false)
	if err != nil {
		return nil, err
	}
	if x.dtype != y.dtype {
		return nil, fmt.Errorf("operands have types %v and %v", x.dtype, y.dtype)
	}
	operand := func(v *value, adj bool) (string, []int64, error) {
		r := v.rank()
		if r >= 0 && r < 2 {
			return "", nil, fmt.Errorf("BatchMatMul operands need rank >= 2, one has shape %v", v.shape)
		}
		if !adj {
			return c.ref(v), v.shape, nil
		}
		if r < 0 {
			return "", nil, fmt.Errorf("adj_x/adj_y need the operand's rank")
		}
		perm := make([]int64, r)
		for i := range perm {
			perm[i] = int64(i)
		}
		perm[r-2], perm[r-1] = perm[r-1], perm[r-2]
		s := append([]int64(nil), v.shape...)
		s[r-2], s[r-1] = s[r-1], s[r-2]
		return c.op("Transpose", []string{c.ref(v)}, graph.AttrInts("perm", perm...)), s, nil
	}
	xn, xs, err := operand(x, adjX)
	if err != nil {
		return nil, err
	}
	yn, ys, err := operand(y, adjY)
	if err != nil {
		return nil, err
	}
	res := out(c.op("MatMul", []string{xn, yn}), x.dtype, nil, false)
	if x.ranked && y.ranked {
		bx := &value{shape: xs[:len(xs)-2], ranked: true}
		by := &value{shape: ys[:len(ys)-2], ranked: true}
		batch, _, err := broadcast(bx, by)
		if err != nil {
			return nil, fmt.Errorf("batch dimensions: %w", err)
		}
		res.shape, res.ranked = append(batch, xs[len(xs)-2], ys[len(ys)-1]), true
	}
	return []*value{res}, nil
}

// convConv2D maps TF's Conv2D (NHWC or NCHW input, HWIO filter, SAME/VALID/EXPLICIT padding,
// strides, dilations) to ONNX Conv (NCHW input, OIHW filter) with transposes around it. A
// 1×1 convolution with unit strides on NHWC input is a matrix product over the channel axis
// and is emitted as MatMul, skipping the transposes.
func convConv2D(c *converter, n *node, in []*value) ([]*value, error) {
	x, f := in[0], in[1]
	if x.dtype != f.dtype {
		return nil, fmt.Errorf("input is %v but filter is %v", x.dtype, f.dtype)
	}
	format, err := n.attrString("data_format", "NHWC")
	if err != nil {
		return nil, err
	}
	if format != "NHWC" && format != "NCHW" {
		return nil, fmt.Errorf("data_format %q is not supported", format)
	}
	padding, err := n.attrString("padding", "")
	if err != nil {
		return nil, err
	}
	list := func(name string, def []int64) ([]int64, error) {
		v, ok, err := n.attrInts(name)
		if err != nil {
			return nil, err
		}
		if !ok || len(v) == 0 {
			return def, nil
		}
		return v, nil
	}
	strides, err := list("strides", []int64{1, 1, 1, 1})
	if err != nil {
		return nil, err
	}
	dil, err := list("dilations", []int64{1, 1, 1, 1})
	if err != nil {
		return nil, err
	}
	if len(strides) != 4 || len(dil) != 4 {
		return nil, fmt.Errorf("strides %v and dilations %v must have 4 entries", strides, dil)
	}
	h, w, ch := 1, 2, 3 // axis positions of H, W, C in the data format
	if format == "NCHW" {
		h, w, ch = 2, 3, 1
	}
	if strides[0] != 1 || strides[ch] != 1 || dil[0] != 1 || dil[ch] != 1 {
		return nil, fmt.Errorf("strides %v / dilations %v over batch or channels are not supported", strides, dil)
	}
	for _, v := range []int64{strides[h], strides[w], dil[h], dil[w]} {
		if v < 1 {
			return nil, fmt.Errorf("strides %v and dilations %v must be positive", strides, dil)
		}
	}
	if x.ranked && x.rank() != 4 {
		return nil, fmt.Errorf("input must be 4-D, has shape %v", x.shape)
	}
	if !f.ranked || f.rank() != 4 {
		return nil, fmt.Errorf("filter must be 4-D with a known shape")
	}
	kh, kw, fi, fo := f.shape[0], f.shape[1], f.shape[2], f.shape[3]
	pads := []int64{0, 0, 0, 0} // top, left, bottom, right
	autoPad := ""
	switch padding {
	case "VALID":
	case "SAME":
		// TF pads (ceil(in/s)-1)·s + (k-1)·d + 1 - in in total, the odd pixel at the end.
		// With unit stride that is (k-1)·d whatever the input size; otherwise it needs the
		// size, and without it ONNX's SAME_UPPER (which ONNX Runtime rejects with dilation)
		// does the same computation at run time.
		total := func(in, k, s, d int64) int64 {
			eff := (k-1)*d + 1
			if s == 1 {
				return eff - 1
			}
			if in < 0 {
				return -1
			}
			return max(((in+s-1)/s-1)*s+eff-in, 0)
		}
		th := total(x.dim(h), kh, strides[h], dil[h])
		tw := total(x.dim(w), kw, strides[w], dil[w])
		if th >= 0 && tw >= 0 {
			pads = []int64{th / 2, tw / 2, th - th/2, tw - tw/2}
		} else {
			if dil[h] != 1 || dil[w] != 1 {
				return nil, fmt.Errorf("SAME padding with strides %v and dilations %v needs a known input height and width", strides, dil)
			}
			autoPad = "SAME_UPPER"
		}
	case "EXPLICIT":
		ep, _, err := n.attrInts("explicit_paddings")
		if err != nil {
			return nil, err
		}
		if len(ep) != 8 {
			return nil, fmt.Errorf("explicit_paddings %v must have 8 entries", ep)
		}
		pads = []int64{ep[2*h], ep[2*w], ep[2*h+1], ep[2*w+1]}
	default:
		return nil, fmt.Errorf("padding %q is not supported", padding)
	}
	group := int64(1)
	if cin := x.dim(ch); cin > 0 && fi > 0 && cin != fi {
		if cin%fi != 0 {
			return nil, fmt.Errorf("input has %d channels, not a multiple of the filter's %d", cin, fi)
		}
		group = cin / fi
	}
	outDim := func(in, k, s, d, p0, p1 int64) int64 {
		if in < 0 || k < 0 {
			return -1
		}
		if autoPad != "" || padding == "SAME" {
			return (in + s - 1) / s
		}
		eff := (k-1)*d + 1
		return (in+p0+p1-eff)/s + 1
	}
	ho := outDim(x.dim(h), kh, strides[h], dil[h], pads[0], pads[2])
	wo := outDim(x.dim(w), kw, strides[w], dil[w], pads[1], pads[3])
	outShape := []int64{x.dim(0), ho, wo, fo}
	if format == "NCHW" {
		outShape = []int64{x.dim(0), fo, ho, wo}
	}

	if format == "NHWC" && kh == 1 && kw == 1 && strides[h] == 1 && strides[w] == 1 && group == 1 && f.konst != nil && pads[0]+pads[1]+pads[2]+pads[3] == 0 {
		wmat := &tensor{dtype: f.konst.dtype, shape: []int64{fi, fo}, raw: f.konst.raw} // [1,1,I,O] is [I,O] in memory
		wn := c.g.Initializer(c.g.Unique(f.base+"/matrix"), wmat.proto())
		return []*value{out(c.op("MatMul", []string{c.ref(x), wn}), x.dtype, outShape, true)}, nil
	}

	var wn string
	if f.konst != nil {
		wn = c.g.Initializer(c.g.Unique(f.base+"/oihw"), f.konst.permute([]int64{3, 2, 0, 1}).proto())
	} else {
		wn = c.op("Transpose", []string{c.ref(f)}, graph.AttrInts("perm", 3, 2, 0, 1))
	}
	xin := c.ref(x)
	if format == "NHWC" {
		xin = c.op("Transpose", []string{xin}, graph.AttrInts("perm", 0, 3, 1, 2))
	}
	attrs := []graph.Attr{
		graph.AttrInts("kernel_shape", kh, kw),
		graph.AttrInts("strides", strides[h], strides[w]),
		graph.AttrInts("dilations", dil[h], dil[w]),
		graph.AttrInt("group", group),
	}
	if autoPad != "" {
		attrs = append(attrs, graph.AttrString("auto_pad", autoPad))
	} else {
		attrs = append(attrs, graph.AttrInts("pads", pads...))
	}
	y := c.op("Conv", []string{xin, wn}, attrs...)
	if format == "NHWC" {
		y = c.op("Transpose", []string{y}, graph.AttrInts("perm", 0, 2, 3, 1))
	}
	return []*value{out(y, x.dtype, outShape, true)}, nil
}
