package tfjs

import (
	"fmt"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

func convGather(c *converter, n *node, in []*value) ([]*value, error) {
	return gather(c, in[0], in[1], 0, 0)
}

// convGatherV2 is TF GatherV2(params, indices, axis) with the batch_dims attribute.
func convGatherV2(c *converter, n *node, in []*value) ([]*value, error) {
	axis, err := constInt(in[2], "axis")
	if err != nil {
		return nil, err
	}
	bd, err := n.attrInt("batch_dims", 0)
	if err != nil {
		return nil, err
	}
	return gather(c, in[0], in[1], axis, bd)
}

// gather: batch_dims 0 is ONNX Gather. With batch_dims b, TF gathers independently per
// leading batch index; that is GatherND with batch_dims b on indices[..., None] once the
// gathered axis is moved next to the batch axes, and a transpose puts the result back in
// TF's order params[:axis] + indices[b:] + params[axis+1:].
func gather(c *converter, p, idx *value, axis, bd int64) ([]*value, error) {
	if !isInt(idx.dtype) {
		return nil, fmt.Errorf("indices are %v; want an integer type", idx.dtype)
	}
	pr, ir := p.rank(), idx.rank()
	if bd < 0 {
		if ir < 0 {
			return nil, fmt.Errorf("negative batch_dims needs the indices' rank")
		}
		bd += int64(ir)
	}
	if pr >= 0 {
		a, err := normAxis(axis, pr)
		if err != nil {
			return nil, err
		}
		axis = a
	} else if bd != 0 {
		return nil, fmt.Errorf("batch_dims needs the params' rank")
	}
	if bd == 0 {
		res := out(c.op("Gather", []string{c.ref(p), c.ref(idx)}, graph.AttrInt("axis", axis)), p.dtype, nil, false)
		if pr >= 0 && ir >= 0 && axis >= 0 {
			res.ranked = true
			res.shape = append(append(append([]int64{}, p.shape[:axis]...), idx.shape...), p.shape[axis+1:]...)
		}
		return []*value{res}, nil
	}
	if ir < 0 {
		return nil, fmt.Errorf("batch_dims needs the indices' rank")
	}
	if bd > int64(ir) || bd > axis {
		return nil, fmt.Errorf("batch_dims %d must be at most the indices' rank %d and the axis %d", bd, ir, axis)
	}
	src := c.ref(p)
	if axis > bd {
		perm := []int64{}
		for i := range bd {
			perm = append(perm, i)
		}
		perm = append(perm, axis)
		for i := bd; i < int64(pr); i++ {
			if i != axis {
				perm = append(perm, i)
			}
		}
		src = c.op("Transpose", []string{src}, graph.AttrInts("perm", perm...))
	}
	i64, err := c.int64Of(idx)
	if err != nil {
		return nil, err
	}
	ix := c.op("Unsqueeze", []string{i64, c.g.Int64s(-1)})
	y := c.op("GatherND", []string{src, ix}, graph.AttrInt("batch_dims", bd))
	ni, nm := int64(ir)-bd, axis-bd
	if nm > 0 && ni > 0 {
		outRank := int64(pr) - 1 + ni
		perm := []int64{}
		for i := range bd {
			perm = append(perm, i)
		}
		for i := range nm {
			perm = append(perm, bd+ni+i)
		}
		for i := range ni {
			perm = append(perm, bd+i)
		}
		for i := bd + ni + nm; i < outRank; i++ {
			perm = append(perm, i)
		}
		y = c.op("Transpose", []string{y}, graph.AttrInts("perm", perm...))
	}
	shape := append(append(append([]int64{}, p.shape[:axis]...), idx.shape[bd:]...), p.shape[axis+1:]...)
	return []*value{out(y, p.dtype, shape, true)}, nil
}

// convGatherNd is ONNX GatherND (batch_dims 0) with INT64 indices.
func convGatherNd(c *converter, n *node, in []*value) ([]*value, error) {
	p, idx := in[0], in[1]
	i64, err := c.int64Of(idx)
	if err != nil {
		return nil, fmt.Errorf("indices: %w", err)
	}
	res := out(c.op("GatherND", []string{c.ref(p), i64}), p.dtype, nil, false)
	if p.ranked && idx.ranked && idx.rank() >= 1 {
		if k := idx.shape[idx.rank()-1]; k >= 0 {
			if k > int64(p.rank()) {
				return nil, fmt.Errorf("index depth %d exceeds the params' rank %d", k, p.rank())
			}
			res.ranked = true
			res.shape = append(append([]int64{}, idx.shape[:idx.rank()-1]...), p.shape[k:]...)
		}
	}
	return []*value{res}, nil
}

// shapeResult is the static shape of a tensor whose shape is given by the tensor s.
func shapeResult(s *value) ([]int64, bool) {
	if s.konst != nil {
		d, err := s.konst.ints()
		return d, err == nil
	}
	return rankFromShapeInput(s)
}

// convScatterNd is TF ScatterNd: updates scattered into zeros of the given shape, with
// duplicate indices summed, which is ONNX ScatterND with reduction="add" on a zero tensor.
func convScatterNd(c *converter, n *node, in []*value) ([]*value, error) {
	idx, upd, shp := in[0], in[1], in[2]
	i64, err := c.int64Of(idx)
	if err != nil {
		return nil, fmt.Errorf("indices: %w", err)
	}
	s64, err := c.int64Of(shp)
	if err != nil {
		return nil, fmt.Errorf("shape: %w", err)
	}
	zero, err := zeroScalar(upd.dtype)
	if err != nil {
		return nil, err
	}
	zero.shape = []int64{1}
	zeros := c.op("ConstantOfShape", []string{s64}, graph.AttrTensor("value", zero.proto()))
	res := out(c.op("ScatterND", []string{zeros, i64, c.ref(upd)}, graph.AttrString("reduction", "add")), upd.dtype, nil, false)
	res.shape, res.ranked = shapeResult(shp)
	return []*value{res}, nil
}

func zeroScalar(dt graph.DType) (*tensor, error) {
	switch {
	case dt == graph.Float32 || dt == graph.Float64:
		return floatTensor(dt, nil, []float64{0}), nil
	case isInt(dt) || dt == graph.Bool:
		return intTensor(dt, nil, []int64{0}), nil
	case dt == graph.Float16 || dt == graph.BFloat16:
		return &tensor{dtype: dt, raw: []byte{0, 0}}, nil
	}
	return nil, fmt.Errorf("type %v is not supported here", dt)
}

// convSparseToDense fills a tensor of output_shape with default_value and writes the sparse
// values at their indices. Indices may be a scalar, a vector (for a 1-D output) or a matrix;
// values may be a scalar used for every index. TF rejects duplicate or unsorted indices when
// validate_indices is set; ONNX does not check them (see the package doc).
func convSparseToDense(c *converter, n *node, in []*value) ([]*value, error) {
	idx, shp, vals, def := in[0], in[1], in[2], in[3]
	if vals.dtype != def.dtype {
		return nil, fmt.Errorf("values are %v but default_value is %v", vals.dtype, def.dtype)
	}
	if idx.rank() < 0 || vals.rank() < 0 {
		return nil, fmt.Errorf("sparse_indices and sparse_values need known ranks")
	}
	if def.rank() > 0 {
		return nil, fmt.Errorf("default_value must be a scalar")
	}
	i64, err := c.int64Of(idx)
	if err != nil {
		return nil, fmt.Errorf("sparse_indices: %w", err)
	}
	switch idx.rank() {
	case 0:
		i64 = c.op("Reshape", []string{i64, c.g.Int64s(1, 1)})
	case 1:
		i64 = c.op("Unsqueeze", []string{i64, c.g.Int64s(-1)})
	case 2:
	default:
		return nil, fmt.Errorf("sparse_indices must have rank 0, 1 or 2, has %d", idx.rank())
	}
	s64, err := c.int64Of(shp)
	if err != nil {
		return nil, fmt.Errorf("output_shape: %w", err)
	}
	data := c.op("Expand", []string{c.ref(def), s64})
	v := c.ref(vals)
	if vals.rank() == 0 {
		lead := c.op("Slice", []string{c.op("Shape", []string{i64}), c.g.Int64s(0), c.g.Int64s(-1)})
		v = c.op("Expand", []string{v, lead})
	}
	res := out(c.op("ScatterND", []string{data, i64, v}), vals.dtype, nil, false)
	res.shape, res.ranked = shapeResult(shp)
	return []*value{res}, nil
}

// convWhere is TF Where with one argument: the coordinates of the true (non-zero) elements in
// row-major order, as int64 [count, rank]: ONNX NonZero gives [rank, count].
func convWhere(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	nz := c.op("NonZero", []string{c.ref(x)})
	r := int64(x.rank())
	return []*value{out(c.op("Transpose", []string{nz}, graph.AttrInts("perm", 1, 0)), graph.Int64, []int64{-1, r}, true)}, nil
}
