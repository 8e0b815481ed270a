package graph

import (
	"fmt"

	"github.com/atma-dev/atma/onnx/onnxpb"
)

// DType is an ONNX tensor element type. The values are those of onnx.proto's
// TensorProto.DataType, so a DType converts to and from onnxpb.TensorProto_DataType directly.
type DType int32

// The ONNX element types.
const (
	Undefined  DType = DType(onnxpb.TensorProto_UNDEFINED)
	Float32    DType = DType(onnxpb.TensorProto_FLOAT)
	Uint8      DType = DType(onnxpb.TensorProto_UINT8)
	Int8       DType = DType(onnxpb.TensorProto_INT8)
	Uint16     DType = DType(onnxpb.TensorProto_UINT16)
	Int16      DType = DType(onnxpb.TensorProto_INT16)
	Int32      DType = DType(onnxpb.TensorProto_INT32)
	Int64      DType = DType(onnxpb.TensorProto_INT64)
	String     DType = DType(onnxpb.TensorProto_STRING)
	Bool       DType = DType(onnxpb.TensorProto_BOOL)
	Float16    DType = DType(onnxpb.TensorProto_FLOAT16)
	Float64    DType = DType(onnxpb.TensorProto_DOUBLE)
	Uint32     DType = DType(onnxpb.TensorProto_UINT32)
	Uint64     DType = DType(onnxpb.TensorProto_UINT64)
	Complex64  DType = DType(onnxpb.TensorProto_COMPLEX64)
	Complex128 DType = DType(onnxpb.TensorProto_COMPLEX128)
	BFloat16   DType = DType(onnxpb.TensorProto_BFLOAT16)
)

// String returns the ONNX name of the type ("FLOAT", "INT64", …).
func (d DType) String() string {
	if n, ok := onnxpb.TensorProto_DataType_name[int32(d)]; ok {
		return n
	}
	return fmt.Sprintf("DType(%d)", int32(d))
}

// Size is the number of bytes one element occupies in a tensor's raw_data, or 0 for types
// without a fixed size (STRING, UNDEFINED and unknown values).
func (d DType) Size() int {
	switch d {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float32, Int32, Uint32:
		return 4
	case Float64, Int64, Uint64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

// valid reports whether d is a defined, non-UNDEFINED ONNX element type.
func (d DType) valid() bool {
	_, ok := onnxpb.TensorProto_DataType_name[int32(d)]
	return ok && d != Undefined
}

// Dim is one dimension of a declared shape: a fixed size, a symbolic name such as "batch", or
// unknown (neither).
type Dim struct {
	// Size is the fixed size when Param is empty; a negative Size with an empty Param means
	// the dimension is unknown.
	Size int64
	// Param names a symbolic dimension ("batch", "sequence"). Values that share a Param share
	// the size at run time.
	Param string
}

// Fixed is a dimension of size n.
func Fixed(n int64) Dim { return Dim{Size: n} }

// Sym is a symbolic dimension called name.
func Sym(name string) Dim { return Dim{Param: name} }

// Unknown is a dimension with neither a size nor a name.
func Unknown() Dim { return Dim{Size: -1} }

// Dims turns fixed sizes into dimensions: Dims(2, 3) is [Fixed(2), Fixed(3)].
func Dims(sizes ...int64) []Dim {
	out := make([]Dim, len(sizes))
	for i, s := range sizes {
		out[i] = Fixed(s)
	}
	return out
}

// String renders the dimension as a size, a name, or "?".
func (d Dim) String() string {
	switch {
	case d.Param != "":
		return d.Param
	case d.Size < 0:
		return "?"
	}
	return fmt.Sprint(d.Size)
}
