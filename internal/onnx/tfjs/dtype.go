package tfjs

import (
	"fmt"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// TF DataType enum values (tensorflow/core/framework/types.proto).
const (
	tfFloat    = 1
	tfDouble   = 2
	tfInt32    = 3
	tfUint8    = 4
	tfInt16    = 5
	tfInt8     = 6
	tfString   = 7
	tfInt64    = 9
	tfBool     = 10
	tfBfloat16 = 14
	tfUint16   = 17
	tfHalf     = 19
	tfUint32   = 22
	tfUint64   = 23
)

var tfDTypeByName = map[string]int32{
	"DT_INVALID": 0, "DT_FLOAT": tfFloat, "DT_DOUBLE": tfDouble, "DT_INT32": tfInt32,
	"DT_UINT8": tfUint8, "DT_INT16": tfInt16, "DT_INT8": tfInt8, "DT_STRING": tfString,
	"DT_COMPLEX64": 8, "DT_INT64": tfInt64, "DT_BOOL": tfBool, "DT_QINT8": 11, "DT_QUINT8": 12,
	"DT_QINT32": 13, "DT_BFLOAT16": tfBfloat16, "DT_QINT16": 15, "DT_QUINT16": 16,
	"DT_UINT16": tfUint16, "DT_COMPLEX128": 18, "DT_HALF": tfHalf, "DT_RESOURCE": 20,
	"DT_VARIANT": 21, "DT_UINT32": tfUint32, "DT_UINT64": tfUint64,
}

// onnxType maps a TF DataType to the ONNX element type used for it in the converted graph.
func onnxType(tf int32) (graph.DType, error) {
	switch tf {
	case tfFloat:
		return graph.Float32, nil
	case tfDouble:
		return graph.Float64, nil
	case tfInt32:
		return graph.Int32, nil
	case tfUint8:
		return graph.Uint8, nil
	case tfInt16:
		return graph.Int16, nil
	case tfInt8:
		return graph.Int8, nil
	case tfInt64:
		return graph.Int64, nil
	case tfBool:
		return graph.Bool, nil
	case tfBfloat16:
		return graph.BFloat16, nil
	case tfUint16:
		return graph.Uint16, nil
	case tfHalf:
		return graph.Float16, nil
	case tfUint32:
		return graph.Uint32, nil
	case tfUint64:
		return graph.Uint64, nil
	}
	for name, v := range tfDTypeByName {
		if v == tf {
			return graph.Undefined, fmt.Errorf("TF data type %s is not supported", name)
		}
	}
	return graph.Undefined, fmt.Errorf("unknown TF data type %d", tf)
}

func isFloat(d graph.DType) bool {
	return d == graph.Float32 || d == graph.Float64 || d == graph.Float16 || d == graph.BFloat16
}

func isInt(d graph.DType) bool {
	switch d {
	case graph.Int8, graph.Int16, graph.Int32, graph.Int64, graph.Uint8, graph.Uint16, graph.Uint32, graph.Uint64:
		return true
	}
	return false
}
