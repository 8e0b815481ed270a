package graph

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/onnx/onnxpb"
)

// The tensor constructors below build unnamed onnxpb.TensorProto values for initializers
// (Graph.Initializer) and tensor attributes (AttrTensor). Numbers are stored little-endian in
// raw_data, the compact form exporters use. They do not check that len(data) matches dims;
// Graph.Validate does, for every tensor that ends up in the model.

// Float32Tensor is a FLOAT tensor of shape dims holding data in row-major order.
func Float32Tensor(dims []int64, data []float32) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return RawTensor(Float32, dims, raw)
}

// Float64Tensor is a DOUBLE tensor of shape dims.
func Float64Tensor(dims []int64, data []float64) *onnxpb.TensorProto {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	return RawTensor(Float64, dims, raw)
}

// Int64Tensor is an INT64 tensor of shape dims.
func Int64Tensor(dims []int64, data []int64) *onnxpb.TensorProto {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return RawTensor(Int64, dims, raw)
}

// Int32Tensor is an INT32 tensor of shape dims.
func Int32Tensor(dims []int64, data []int32) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
	}
	return RawTensor(Int32, dims, raw)
}

// BoolTensor is a BOOL tensor of shape dims (one byte per element, 0 or 1).
func BoolTensor(dims []int64, data []bool) *onnxpb.TensorProto {
	raw := make([]byte, len(data))
	for i, v := range data {
		if v {
			raw[i] = 1
		}
	}
	return RawTensor(Bool, dims, raw)
}

// StringTensor is a STRING tensor of shape dims. ONNX stores strings element by element, never
// in raw_data.
func StringTensor(dims []int64, data []string) *onnxpb.TensorProto {
	t := &onnxpb.TensorProto{Dims: clone(dims), DataType: proto.Int32(int32(String))}
	for _, s := range data {
		t.StringData = append(t.StringData, []byte(s))
	}
	return t
}

// RawTensor is a tensor of element type dt and shape dims whose contents are raw, the
// little-endian bytes ONNX expects in raw_data (for FLOAT16, BFLOAT16, UINT8 and the other
// types without a typed constructor). raw is used as is, not copied.
func RawTensor(dt DType, dims []int64, raw []byte) *onnxpb.TensorProto {
	if raw == nil {
		raw = []byte{} // an empty tensor still has a (present, empty) raw_data field
	}
	return &onnxpb.TensorProto{
		Dims:     clone(dims),
		DataType: proto.Int32(int32(dt)),
		RawData:  raw,
	}
}

func clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// checkTensor returns the problems of t: an invalid element type, negative dims, or contents
// whose length does not match the product of its dims.
func checkTensor(t *onnxpb.TensorProto) []string {
	var probs []string
	dt := DType(t.GetDataType())
	if !dt.valid() {
		probs = append(probs, fmt.Sprintf("invalid element type %v", dt))
	}
	n := int64(1)
	for _, d := range t.GetDims() {
		if d < 0 {
			probs = append(probs, fmt.Sprintf("negative dimension in %v", t.GetDims()))
			return probs
		}
		n *= d
	}
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return append(probs, "external data is not supported")
	}
	var got int64
	var unit string
	switch {
	case t.RawData != nil:
		if dt == String {
			return append(probs, "STRING tensor with raw_data")
		}
		if sz := dt.Size(); sz > 0 {
			n *= int64(sz)
			got, unit = int64(len(t.RawData)), "bytes"
		} else {
			return probs
		}
	case len(t.FloatData) > 0:
		got, unit = int64(len(t.FloatData)), "float_data elements"
		if dt == Complex64 {
			n *= 2
		}
	case len(t.DoubleData) > 0:
		got, unit = int64(len(t.DoubleData)), "double_data elements"
		if dt == Complex128 {
			n *= 2
		}
	case len(t.Int32Data) > 0:
		got, unit = int64(len(t.Int32Data)), "int32_data elements"
	case len(t.Int64Data) > 0:
		got, unit = int64(len(t.Int64Data)), "int64_data elements"
	case len(t.Uint64Data) > 0:
		got, unit = int64(len(t.Uint64Data)), "uint64_data elements"
	case len(t.StringData) > 0:
		got, unit = int64(len(t.StringData)), "string_data elements"
	default:
		got, unit = 0, "elements"
	}
	if got != n {
		probs = append(probs, fmt.Sprintf("shape %v needs %d %s, have %d", t.GetDims(), n, unit, got))
	}
	return probs
}
