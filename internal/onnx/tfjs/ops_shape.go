package tfjs

import (
	"fmt"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// convShape is ONNX Shape (always INT64) cast to TF's out_type, which defaults to int32.
func convShape(c *converter, n *node, in []*value) ([]*value, error) {
	dt := graph.Int32
	if t, ok, err := n.attrType("out_type"); err != nil {
		return nil, err
	} else if ok {
		if dt, err = onnxType(t); err != nil {
			return nil, err
		}
	}
	if dt != graph.Int32 && dt != graph.Int64 {
		return nil, fmt.Errorf("out_type %v; want int32 or int64", dt)
	}
	x := in[0]
	s := c.op("Shape", []string{c.ref(x)})
	if dt != graph.Int64 {
		s = c.op("Cast", []string{s}, graph.AttrInt("to", int64(dt)))
	}
	return []*value{out(s, dt, []int64{int64(x.rank())}, true)}, nil
}

// convReshape is ONNX Reshape with allowzero=1: in TF a 0 in the shape is a zero-sized
// dimension, while ONNX's default reads it as "copy the input's dimension".
func convReshape(c *converter, n *node, in []*value) ([]*value, error) {
	x, s := in[0], in[1]
	if s.ranked && len(s.shape) != 1 {
		return nil, fmt.Errorf("shape must be 1-D, has shape %v", s.shape)
	}
	shapeName, err := c.int64Of(s)
	if err != nil {
		return nil, fmt.Errorf("shape: %w", err)
	}
	res := out(c.op("Reshape", []string{c.ref(x), shapeName}, graph.AttrInt("allowzero", 1)), x.dtype, nil, false)
	if s.konst != nil {
		dims, err := s.konst.ints()
		if err != nil {
			return nil, err
		}
		res.shape, res.ranked = resolveReshape(x, dims), true
	} else {
		res.shape, res.ranked = rankFromShapeInput(s)
	}
	return []*value{res}, nil
}

// maxRank bounds the ranks the converter tracks; a shape tensor claiming more elements than
// this leaves the result's rank unknown rather than allocating for it.
const maxRank = 64

// rankFromShapeInput is the static shape (all dims unknown) of a tensor whose shape is the
// 1-D tensor s, when s's length is known.
func rankFromShapeInput(s *value) ([]int64, bool) {
	if !s.ranked || s.rank() != 1 || s.shape[0] < 0 || s.shape[0] > maxRank {
		return nil, false
	}
	return fill(int(s.shape[0]), -1), true
}

// resolveReshape fills in a -1 in a constant target shape when the input's size is known.
func resolveReshape(x *value, dims []int64) []int64 {
	outShape := append([]int64(nil), dims...)
	total, known := staticSize(x)
	if !known {
		return outShape
	}
	rest, hole := int64(1), -1
	for i, d := range outShape {
		if d == -1 {
			hole = i
		} else {
			rest *= d
		}
	}
	if hole >= 0 && rest > 0 && total%rest == 0 {
		outShape[hole] = total / rest
	}
	return outShape
}

func staticSize(v *value) (int64, bool) {
	if !v.ranked {
		return 0, false
	}
	n := int64(1)
	for _, d := range v.shape {
		if d < 0 {
			return 0, false
		}
		n *= d
	}
	return n, true
}

func fill(n int, v int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// unsqueezeShape inserts a 1 at axis (already normalised to the output rank).
func unsqueezeShape(v *value, axis int64) ([]int64, bool) {
	if !v.ranked {
		return nil, false
	}
	s := append([]int64(nil), v.shape[:axis]...)
	s = append(s, 1)
	return append(s, v.shape[axis:]...), true
}

func convExpandDims(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	axis, err := constInt(in[1], "dim")
	if err != nil {
		return nil, err
	}
	res := out(c.op("Unsqueeze", []string{c.ref(x), c.g.Int64s(axis)}), x.dtype, nil, false)
	if x.ranked {
		a, err := normAxis(axis, x.rank()+1)
		if err != nil {
			return nil, err
		}
		res.shape, res.ranked = unsqueezeShape(x, a)
	}
	return []*value{res}, nil
}

// convSqueeze removes the listed size-1 axes, or every size-1 axis when the list is empty
// (as both TF and ONNX do).
func convSqueeze(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	axes, ok, err := n.attrInts("squeeze_dims")
	if err != nil {
		return nil, err
	}
	if !ok {
		if axes, _, err = n.attrInts("axis"); err != nil {
			return nil, err
		}
	}
	ins := []string{c.ref(x)}
	if len(axes) > 0 {
		ins = append(ins, c.g.Int64s(axes...))
	}
	res := out(c.op("Squeeze", ins), x.dtype, nil, false)
	if !x.ranked {
		return []*value{res}, nil
	}
	drop := map[int64]bool{}
	if len(axes) == 0 {
		for i, d := range x.shape {
			if d < 0 {
				return []*value{res}, nil // which axes go depends on run-time sizes
			}
			if d == 1 {
				drop[int64(i)] = true
			}
		}
	}
	for _, a := range axes {
		na, err := normAxis(a, x.rank())
		if err != nil {
			return nil, err
		}
		if d := x.shape[na]; d != 1 && d != -1 {
			return nil, fmt.Errorf("cannot squeeze axis %d of size %d", a, d)
		}
		drop[na] = true
	}
	res.ranked = true
	for i, d := range x.shape {
		if !drop[int64(i)] {
			res.shape = append(res.shape, d)
		}
	}
	return []*value{res}, nil
}

// convPack stacks N tensors of one shape along a new axis: Unsqueeze each, then Concat.
func convPack(c *converter, n *node, in []*value) ([]*value, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("Pack needs at least one input")
	}
	axis, err := n.attrInt("axis", 0)
	if err != nil {
		return nil, err
	}
	x := in[0]
	for _, v := range in[1:] {
		if v.dtype != x.dtype {
			return nil, fmt.Errorf("inputs have types %v and %v", x.dtype, v.dtype)
		}
	}
	ax := c.g.Int64s(axis)
	parts := make([]string, len(in))
	for i, v := range in {
		parts[i] = c.op("Unsqueeze", []string{c.ref(v), ax})
	}
	name := parts[0]
	if len(parts) > 1 {
		name = c.op("Concat", parts, graph.AttrInt("axis", axis))
	}
	res := out(name, x.dtype, nil, false)
	if x.ranked {
		a, err := normAxis(axis, x.rank()+1)
		if err != nil {
			return nil, err
		}
		res.shape, res.ranked = unsqueezeShape(x, a)
		res.shape[a] = int64(len(in))
	}
	return []*value{res}, nil
}

// convConcatV2 joins N tensors along the axis given as the last input.
func convConcatV2(c *converter, n *node, in []*value) ([]*value, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("ConcatV2 needs values and an axis, has %d inputs", len(in))
	}
	axis, err := constInt(in[len(in)-1], "axis")
	if err != nil {
		return nil, err
	}
	vals := in[:len(in)-1]
	names := make([]string, len(vals))
	x := vals[0]
	rank := -1
	for i, v := range vals {
		if v.dtype != x.dtype {
			return nil, fmt.Errorf("inputs have types %v and %v", x.dtype, v.dtype)
		}
		names[i] = c.ref(v)
		if v.ranked {
			rank = v.rank()
		}
	}
	res := out(c.op("Concat", names, graph.AttrInt("axis", axis)), x.dtype, nil, false)
	if rank >= 0 {
		a, err := normAxis(axis, rank)
		if err != nil {
			return nil, err
		}
		res.shape, res.ranked = fill(rank, -1), true
		var total int64
		for _, v := range vals {
			if !v.ranked || v.rank() != rank {
				if v.ranked {
					return nil, fmt.Errorf("inputs have ranks %d and %d", rank, v.rank())
				}
				total = -1
				continue
			}
			for i, d := range v.shape {
				if int64(i) != a && d >= 0 {
					res.shape[i] = d
				}
			}
			if total >= 0 && v.shape[a] >= 0 {
				total += v.shape[a]
			} else {
				total = -1
			}
		}
		res.shape[a] = total
	}
	return []*value{res}, nil
}

func convTranspose(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	perm, err := constInts(in[1], "perm")
	if err != nil {
		return nil, err
	}
	if x.ranked && len(perm) != x.rank() {
		return nil, fmt.Errorf("perm %v does not match rank %d", perm, x.rank())
	}
	seen := make([]bool, len(perm))
	for i, p := range perm {
		if p < 0 {
			p += int64(len(perm))
			perm[i] = p
		}
		if p < 0 || p >= int64(len(perm)) || seen[p] {
			return nil, fmt.Errorf("perm %v is not a permutation", perm)
		}
		seen[p] = true
	}
	res := out(c.op("Transpose", []string{c.ref(x)}, graph.AttrInts("perm", perm...)), x.dtype, nil, false)
	res.ranked = true
	res.shape = make([]int64, len(perm))
	for i, p := range perm {
		res.shape[i] = x.dim(int(p))
	}
	return []*value{res}, nil
}

// sliceSpec is one ONNX Slice axis.
type sliceSpec struct {
	axis, start, end, step int64
	// guard, when set, is the TF begin of a negative-stride axis whose run-time size is
	// unknown: TF clamps a begin before the first element to -1 (an empty slice) where ONNX
	// clamps it to 0, so the end is patched at run time when dim+guard < 0.
	guard    int64
	hasGuard bool
}

// convStridedSlice implements TF's StridedSlice with all five masks on constant
// begin/end/strides: an ONNX Slice over the indexed axes, then Squeeze for shrink_axis and
// Unsqueeze for new_axis. Bounds follow TF: indices are clamped to the valid range, with the
// one case where ONNX clamps differently handled explicitly.
func convStridedSlice(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	begin, err := constInts(in[1], "begin")
	if err != nil {
		return nil, err
	}
	end, err := constInts(in[2], "end")
	if err != nil {
		return nil, err
	}
	strides, err := constInts(in[3], "strides")
	if err != nil {
		return nil, err
	}
	if len(begin) != len(end) || len(begin) != len(strides) {
		return nil, fmt.Errorf("begin, end and strides have lengths %d, %d, %d", len(begin), len(end), len(strides))
	}
	if len(begin) > 62 {
		return nil, fmt.Errorf("slice spec of %d entries is too long", len(begin))
	}
	var masks [5]int64
	for i, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		if masks[i], err = n.attrInt(name, 0); err != nil {
			return nil, err
		}
	}
	beginMask, endMask, ellMask, newMask, shrinkMask := masks[0], masks[1], masks[2], masks[3], masks[4]
	bit := func(m int64, i int) bool { return m&(1<<i) != 0 }

	spec := len(begin)
	ellipses := 0
	for i := range spec {
		if bit(ellMask, i) {
			ellipses++
		}
	}
	if ellipses > 1 {
		return nil, fmt.Errorf("more than one ellipsis in the slice spec")
	}
	explicit := ellipses == 1
	if !explicit { // TF appends an implicit ellipsis that keeps the remaining axes
		ellMask |= 1 << spec
		begin, end, strides = append(begin, 0), append(end, 0), append(strides, 1)
		spec++
	}
	consumed := 0
	for i := range spec {
		if !bit(ellMask, i) && !bit(newMask, i) {
			consumed++
		}
	}
	rank := x.rank()
	if rank >= 0 && consumed > rank {
		return nil, fmt.Errorf("slice spec indexes %d axes of a rank-%d tensor", consumed, rank)
	}
	if explicit && rank < 0 {
		return nil, fmt.Errorf("an ellipsis needs the input's rank, which is unknown here")
	}

	var (
		slices   []sliceSpec
		squeeze  []int64
		newAxes  []int64
		outShape []int64
		outKnown = true
		inAxis   int64
		outPos   int64
	)
	for i := range spec {
		switch {
		case bit(ellMask, i):
			if explicit || rank >= 0 {
				k := int64(rank) - int64(consumed)
				if !explicit {
					k = int64(rank) - inAxis
				}
				for range k {
					outShape = append(outShape, x.dim(int(inAxis)))
					inAxis++
					outPos++
				}
			} else {
				outKnown = false
			}
		case bit(newMask, i):
			newAxes = append(newAxes, outPos)
			outShape = append(outShape, 1)
			outPos++
		default:
			b, e, s := begin[i], end[i], strides[i]
			dim := x.dim(int(inAxis))
			if s == 0 {
				return nil, fmt.Errorf("strides[%d] is 0", i)
			}
			if bit(shrinkMask, i) {
				if s < 0 {
					return nil, fmt.Errorf("shrink_axis on entry %d needs a positive stride, has %d (TF: only stride 1 allowed on non-range indexing)", i, s)
				}
				if dim >= 0 && (b >= dim || b < -dim) {
					return nil, fmt.Errorf("index %d is out of bounds for axis %d of size %d", b, inAxis, dim)
				}
				stop := b + 1
				if b == -1 {
					stop = maxInt64
				}
				slices = append(slices, sliceSpec{axis: inAxis, start: b, end: stop, step: 1})
				squeeze = append(squeeze, inAxis)
				inAxis++
				continue
			}
			sp := sliceSpec{axis: inAxis, start: b, end: e, step: s}
			// Masked bounds are the extremes; ONNX clamps them to the ends of the axis.
			switch {
			case bit(beginMask, i) && s > 0:
				sp.start = 0
			case bit(beginMask, i):
				sp.start = maxInt64
			}
			switch {
			case bit(endMask, i) && s > 0:
				sp.end = maxInt64
			case bit(endMask, i):
				sp.end = minInt64
			}
			if s < 0 && !bit(beginMask, i) && b < 0 {
				if dim >= 0 {
					if dim+b < 0 { // TF: begin clamps to -1, nothing is selected
						sp.start, sp.end = 0, 0
					}
				} else {
					sp.guard, sp.hasGuard = b, true
				}
			}
			if !(bit(beginMask, i) && bit(endMask, i) && s == 1) {
				slices = append(slices, sp)
			}
			outShape = append(outShape, tfSliceLen(dim, b, e, s, bit(beginMask, i), bit(endMask, i)))
			inAxis++
			outPos++
		}
	}

	cur := c.ref(x)
	if len(slices) > 0 {
		var axes, starts, ends, steps []int64
		guarded := false
		for _, sp := range slices {
			axes = append(axes, sp.axis)
			starts = append(starts, sp.start)
			ends = append(ends, sp.end)
			steps = append(steps, sp.step)
			guarded = guarded || sp.hasGuard
		}
		endsName := c.g.Int64s(ends...)
		if guarded {
			endsName = c.guardEnds(cur, slices)
		}
		cur = c.op("Slice", []string{cur, c.g.Int64s(starts...), endsName, c.g.Int64s(axes...), c.g.Int64s(steps...)})
	}
	if len(squeeze) > 0 {
		cur = c.op("Squeeze", []string{cur, c.g.Int64s(squeeze...)})
	}
	if len(newAxes) > 0 {
		cur = c.op("Unsqueeze", []string{cur, c.g.Int64s(newAxes...)})
	}
	if cur == c.ref(x) {
		return []*value{x}, nil
	}
	return []*value{out(cur, x.dtype, outShape, outKnown)}, nil
}

// guardEnds builds the ends input of a Slice at run time for the axes whose TF begin lies
// before the first element: their end becomes 0 (with ONNX's start clamped to 0, an empty
// slice) when dim+begin < 0.
func (c *converter) guardEnds(x string, slices []sliceSpec) string {
	shape := c.op("Shape", []string{x})
	parts := make([]string, len(slices))
	for i, sp := range slices {
		parts[i] = c.g.Int64s(sp.end)
		if !sp.hasGuard {
			continue
		}
		dim := c.op("Gather", []string{shape, c.g.Int64s(sp.axis)}, graph.AttrInt("axis", 0))
		before := c.op("Less", []string{c.op("Add", []string{dim, c.g.Int64s(sp.guard)}), c.g.Int64s(0)})
		parts[i] = c.op("Where", []string{before, c.g.Int64s(0), parts[i]})
	}
	return c.op("Concat", parts, graph.AttrInt("axis", 0))
}

// tfSliceLen is the length TF's StridedSlice gives an axis of size dim (-1 when unknown),
// following ValidateStridedSliceOp: masked bounds take the ends of the valid range, others
// are made non-negative and clamped to it.
func tfSliceLen(dim, b, e, s int64, bm, em bool) int64 {
	if dim < 0 {
		return -1
	}
	lo, hi := int64(0), dim
	if s < 0 {
		lo, hi = -1, dim-1
	}
	clamp := func(x int64) int64 {
		if x < 0 {
			x += dim
		}
		return min(max(x, lo), hi)
	}
	var begin, end int64
	switch {
	case bm && s > 0:
		begin = lo
	case bm:
		begin = hi
	default:
		begin = clamp(b)
	}
	switch {
	case em && s > 0:
		end = hi
	case em:
		end = lo
	default:
		end = clamp(e)
	}
	interval := end - begin
	if interval == 0 || (interval < 0) != (s < 0) {
		return 0
	}
	l := interval / s
	if interval%s != 0 {
		l++
	}
	return l
}

// convSlice is TF Slice(x, begin, size) where size -1 means "to the end".
func convSlice(c *converter, n *node, in []*value) ([]*value, error) {
	x, bv, sv := in[0], in[1], in[2]
	res := out("", x.dtype, nil, false)
	var starts, ends string
	if bv.konst != nil && sv.konst != nil {
		b, _ := bv.konst.ints()
		s, _ := sv.konst.ints()
		if len(b) != len(s) {
			return nil, fmt.Errorf("begin has %d entries, size %d", len(b), len(s))
		}
		e := make([]int64, len(b))
		for i := range b {
			if s[i] == -1 {
				e[i] = maxInt64
			} else if s[i] < -1 || b[i] < 0 {
				return nil, fmt.Errorf("begin %v and size %v must be non-negative (size may be -1)", b, s)
			} else {
				e[i] = b[i] + s[i]
			}
		}
		starts, ends = c.g.Int64s(b...), c.g.Int64s(e...)
		if x.ranked {
			if len(b) != x.rank() {
				return nil, fmt.Errorf("begin has %d entries for a rank-%d input", len(b), x.rank())
			}
			res.shape, res.ranked = make([]int64, len(b)), true
			for i := range b {
				switch {
				case s[i] >= 0:
					res.shape[i] = s[i]
				case x.shape[i] >= 0:
					res.shape[i] = x.shape[i] - b[i]
				default:
					res.shape[i] = -1
				}
			}
		}
	} else {
		var err error
		if starts, err = c.int64Of(bv); err != nil {
			return nil, fmt.Errorf("begin: %w", err)
		}
		size, err := c.int64Of(sv)
		if err != nil {
			return nil, fmt.Errorf("size: %w", err)
		}
		toEnd := c.op("Equal", []string{size, c.g.ScalarInt64(-1)})
		ends = c.op("Where", []string{toEnd, c.g.ScalarInt64(maxInt64), c.op("Add", []string{starts, size})})
		if x.ranked {
			res.shape, res.ranked = fill(x.rank(), -1), true
		}
	}
	// With axes omitted, ONNX slices axes 0..len(starts)-1, TF's layout for begin and size.
	res.name = c.op("Slice", []string{c.ref(x), starts, ends})
	return []*value{res}, nil
}

// maxSplit bounds the number of outputs of a split.
const maxSplit = 1 << 16

// convSplitV splits along axis into pieces of the given sizes; one size may be -1 (the rest).
func convSplitV(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	sizes, err := constInts(in[1], "size_splits")
	if err != nil {
		return nil, err
	}
	axis, err := constInt(in[2], "axis")
	if err != nil {
		return nil, err
	}
	num, err := n.attrInt("num_split", int64(len(sizes)))
	if err != nil {
		return nil, err
	}
	if num != int64(len(sizes)) || num < 1 || num > maxSplit {
		return nil, fmt.Errorf("num_split %d does not match %d split sizes (at most %d)", num, len(sizes), maxSplit)
	}
	if x.ranked {
		if axis, err = normAxis(axis, x.rank()); err != nil {
			return nil, err
		}
	}
	hole, rest := -1, int64(0)
	for i, s := range sizes {
		switch {
		case s == -1 && hole >= 0:
			return nil, fmt.Errorf("more than one -1 in size_splits %v", sizes)
		case s == -1:
			hole = i
		case s < 0:
			return nil, fmt.Errorf("negative size in size_splits %v", sizes)
		default:
			rest += s
		}
	}
	dim := x.dim(int(axis))
	if dim >= 0 {
		if hole >= 0 {
			if dim < rest {
				return nil, fmt.Errorf("size_splits %v exceed the axis size %d", sizes, dim)
			}
			sizes[hole] = dim - rest
		} else if rest != dim {
			return nil, fmt.Errorf("size_splits %v do not add up to the axis size %d", sizes, dim)
		}
		hole = -1
	}
	split := c.g.Int64s(sizes...)
	if hole >= 0 {
		d := c.op("Gather", []string{c.op("Shape", []string{c.ref(x)}), c.g.Int64s(axis)}, graph.AttrInt("axis", 0))
		parts := []string{}
		if hole > 0 {
			parts = append(parts, c.g.Int64s(sizes[:hole]...))
		}
		parts = append(parts, c.op("Sub", []string{d, c.g.Int64s(rest)}))
		if hole < len(sizes)-1 {
			parts = append(parts, c.g.Int64s(sizes[hole+1:]...))
		}
		split = c.op("Concat", parts, graph.AttrInt("axis", 0))
	}
	names := c.opN("Split", len(sizes), []string{c.ref(x), split}, graph.AttrInt("axis", axis))
	outs := make([]*value, len(names))
	for i, nm := range names {
		outs[i] = like(nm, x)
		if x.ranked {
			outs[i].shape[axis] = sizes[i]
			if hole == i {
				outs[i].shape[axis] = -1
			}
		}
	}
	return outs, nil
}

// convSplit splits (axis, value) into num_split equal pieces.
func convSplit(c *converter, n *node, in []*value) ([]*value, error) {
	axis, err := constInt(in[0], "axis")
	if err != nil {
		return nil, err
	}
	x := in[1]
	num, err := n.attrInt("num_split", 0)
	if err != nil {
		return nil, err
	}
	if num < 1 || num > maxSplit {
		return nil, fmt.Errorf("num_split %d must be between 1 and %d", num, maxSplit)
	}
	if x.ranked {
		if axis, err = normAxis(axis, x.rank()); err != nil {
			return nil, err
		}
	}
	dim := x.dim(int(axis))
	ins := []string{c.ref(x)}
	attrs := []graph.Attr{graph.AttrInt("axis", axis)}
	if dim >= 0 {
		if dim%num != 0 {
			return nil, fmt.Errorf("axis size %d is not divisible by num_split %d", dim, num)
		}
		ins = append(ins, c.g.Int64s(fill(int(num), dim/num)...))
	} else if c.opset >= 18 {
		attrs = append(attrs, graph.AttrInt("num_outputs", num))
	}
	names := c.opN("Split", int(num), ins, attrs...)
	outs := make([]*value, len(names))
	for i, nm := range names {
		outs[i] = like(nm, x)
		if x.ranked && dim >= 0 {
			outs[i].shape[axis] = dim / num
		}
	}
	return outs, nil
}

// convRange is ONNX Range, which has TF's semantics (ceil((limit-start)/delta) elements).
func convRange(c *converter, n *node, in []*value) ([]*value, error) {
	s, l, d := in[0], in[1], in[2]
	if s.dtype != l.dtype || s.dtype != d.dtype {
		return nil, fmt.Errorf("start, limit and delta have types %v, %v, %v", s.dtype, l.dtype, d.dtype)
	}
	if d.konst != nil {
		if v, err := d.konst.ints(); err == nil && len(v) == 1 && v[0] == 0 {
			return nil, fmt.Errorf("delta is 0")
		}
	}
	for _, v := range in {
		if v.ranked && v.rank() != 0 {
			if v.rank() == 1 && v.shape[0] == 1 {
				continue
			}
			return nil, fmt.Errorf("start, limit and delta must be scalars")
		}
	}
	names := make([]string, 3)
	for i, v := range in {
		names[i] = c.ref(v)
		if v.ranked && v.rank() == 1 {
			names[i] = c.op("Squeeze", []string{names[i], c.g.Int64s(0)})
		}
	}
	return []*value{out(c.op("Range", names), s.dtype, []int64{-1}, true)}, nil
}

// convFill broadcasts a scalar to a shape.
func convFill(c *converter, n *node, in []*value) ([]*value, error) {
	dims, v := in[0], in[1]
	shape, err := c.int64Of(dims)
	if err != nil {
		return nil, fmt.Errorf("dims: %w", err)
	}
	res := out(c.op("Expand", []string{c.ref(v), shape}), v.dtype, nil, false)
	if dims.konst != nil {
		res.shape, _ = dims.konst.ints()
		res.ranked = true
	} else {
		res.shape, res.ranked = rankFromShapeInput(dims)
	}
	return []*value{res}, nil
}
