package tfjs

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/atma-dev/atma/internal/onnx/graph"
	"github.com/atma-dev/atma/onnx/onnxpb"
)

// tensor is a constant: an ONNX element type, a shape and the elements as little-endian bytes
// in row-major order (ONNX's raw_data layout).
type tensor struct {
	dtype graph.DType
	shape []int64
	raw   []byte
}

func (t *tensor) size() int64 {
	n := int64(1)
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// ints returns the elements of an integer or boolean tensor.
func (t *tensor) ints() ([]int64, error) {
	n := int(t.size())
	out := make([]int64, n)
	r := t.raw
	switch t.dtype {
	case graph.Int64, graph.Uint64:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(r[8*i:]))
		}
	case graph.Int32:
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(r[4*i:])))
		}
	case graph.Uint32:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint32(r[4*i:]))
		}
	case graph.Int16:
		for i := range out {
			out[i] = int64(int16(binary.LittleEndian.Uint16(r[2*i:])))
		}
	case graph.Uint16:
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint16(r[2*i:]))
		}
	case graph.Int8:
		for i := range out {
			out[i] = int64(int8(r[i]))
		}
	case graph.Uint8, graph.Bool:
		for i := range out {
			out[i] = int64(r[i])
		}
	default:
		return nil, fmt.Errorf("constant of type %v is not an integer", t.dtype)
	}
	return out, nil
}

// floats returns the elements of a FLOAT or DOUBLE tensor.
func (t *tensor) floats() ([]float64, error) {
	n := int(t.size())
	out := make([]float64, n)
	switch t.dtype {
	case graph.Float32:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.raw[4*i:])))
		}
	case graph.Float64:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.raw[8*i:]))
		}
	default:
		return nil, fmt.Errorf("constant of type %v is not FLOAT or DOUBLE", t.dtype)
	}
	return out, nil
}

func (t *tensor) proto() *onnxpb.TensorProto {
	return graph.RawTensor(t.dtype, t.shape, t.raw)
}

// intTensor builds an integer (or BOOL) tensor of element type dt.
func intTensor(dt graph.DType, shape []int64, vals []int64) *tensor {
	sz := dt.Size()
	raw := make([]byte, sz*len(vals))
	for i, v := range vals {
		switch sz {
		case 8:
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
		case 4:
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
		case 2:
			binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
		case 1:
			raw[i] = byte(v)
		}
	}
	return &tensor{dtype: dt, shape: append([]int64{}, shape...), raw: raw}
}

// floatTensor builds a FLOAT or DOUBLE tensor.
func floatTensor(dt graph.DType, shape []int64, vals []float64) *tensor {
	raw := make([]byte, dt.Size()*len(vals))
	for i, v := range vals {
		if dt == graph.Float64 {
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
		} else {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(v)))
		}
	}
	return &tensor{dtype: dt, shape: append([]int64{}, shape...), raw: raw}
}

// castTo converts t to element type dt the way a TF Cast would for the cases that arise
// between a weight's stored type and its node's declared type (int32 stored, int64 declared;
// float32 stored, float64 declared; and the identity).
func (t *tensor) castTo(dt graph.DType) (*tensor, error) {
	if t.dtype == dt {
		return t, nil
	}
	switch {
	case (isInt(t.dtype) || t.dtype == graph.Bool) && (isInt(dt) || dt == graph.Bool):
		v, err := t.ints()
		if err != nil {
			return nil, err
		}
		if dt == graph.Bool {
			for i := range v {
				if v[i] != 0 {
					v[i] = 1
				}
			}
		}
		return intTensor(dt, t.shape, v), nil
	case (t.dtype == graph.Float32 || t.dtype == graph.Float64) && (dt == graph.Float32 || dt == graph.Float64):
		v, err := t.floats()
		if err != nil {
			return nil, err
		}
		return floatTensor(dt, t.shape, v), nil
	case (isInt(t.dtype) || t.dtype == graph.Bool) && (dt == graph.Float32 || dt == graph.Float64):
		v, err := t.ints()
		if err != nil {
			return nil, err
		}
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		return floatTensor(dt, t.shape, f), nil
	}
	return nil, fmt.Errorf("cannot convert a %v constant to %v", t.dtype, dt)
}

// transpose2D returns the transpose of a rank-2 tensor (any element size).
func (t *tensor) transpose2D() *tensor {
	r, c := t.shape[0], t.shape[1]
	sz := int64(t.dtype.Size())
	out := make([]byte, len(t.raw))
	for i := range r {
		for j := range c {
			copy(out[(j*r+i)*sz:(j*r+i+1)*sz], t.raw[(i*c+j)*sz:(i*c+j+1)*sz])
		}
	}
	return &tensor{dtype: t.dtype, shape: []int64{c, r}, raw: out}
}

// permute returns t with its axes permuted by perm (out.shape[i] = t.shape[perm[i]]).
func (t *tensor) permute(perm []int64) *tensor {
	rank := len(t.shape)
	sz := int64(t.dtype.Size())
	outShape := make([]int64, rank)
	for i, p := range perm {
		outShape[i] = t.shape[p]
	}
	inStride := make([]int64, rank)
	s := int64(1)
	for i := rank - 1; i >= 0; i-- {
		inStride[i] = s
		s *= t.shape[i]
	}
	out := make([]byte, len(t.raw))
	idx := make([]int64, rank)
	n := t.size()
	for o := range n {
		// idx is the output multi-index of element o.
		var src int64
		for i := range rank {
			src += idx[i] * inStride[perm[i]]
		}
		copy(out[o*sz:(o+1)*sz], t.raw[src*sz:(src+1)*sz])
		for i := rank - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < outShape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return &tensor{dtype: t.dtype, shape: outShape, raw: out}
}

// float16ToFloat32 decodes an IEEE 754 half-precision value.
func float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := uint32(127 - 15 + 1)
		for frac&0x400 == 0 {
			frac <<= 1
			e--
		}
		frac &= 0x3ff
		return math.Float32frombits(sign | e<<23 | frac<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | frac<<13)
}
