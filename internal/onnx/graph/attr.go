package graph

import (
	"google.golang.org/protobuf/proto"

	"github.com/atma-dev/atma/onnx/onnxpb"
)

// Attr is a typed node attribute, made by AttrInt, AttrFloats and the other constructors.
type Attr struct {
	p *onnxpb.AttributeProto
}

// Proto returns a copy of the attribute as a protobuf message.
func (a Attr) Proto() *onnxpb.AttributeProto {
	if a.p == nil {
		return nil
	}
	return proto.Clone(a.p).(*onnxpb.AttributeProto)
}

// Name is the attribute's name.
func (a Attr) Name() string { return a.p.GetName() }

func attr(name string, typ onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: typ.Enum()}
}

// AttrInt is an INT attribute (axis, keepdims, to, …).
func AttrInt(name string, v int64) Attr {
	p := attr(name, onnxpb.AttributeProto_INT)
	p.I = proto.Int64(v)
	return Attr{p}
}

// AttrInts is an INTS attribute (perm, axes, pads, …).
func AttrInts(name string, v ...int64) Attr {
	p := attr(name, onnxpb.AttributeProto_INTS)
	p.Ints = clone(v)
	return Attr{p}
}

// AttrFloat is a FLOAT attribute (epsilon, alpha, …).
func AttrFloat(name string, v float32) Attr {
	p := attr(name, onnxpb.AttributeProto_FLOAT)
	p.F = proto.Float32(v)
	return Attr{p}
}

// AttrFloats is a FLOATS attribute.
func AttrFloats(name string, v ...float32) Attr {
	p := attr(name, onnxpb.AttributeProto_FLOATS)
	p.Floats = clone(v)
	return Attr{p}
}

// AttrString is a STRING attribute (mode, auto_pad, …).
func AttrString(name, v string) Attr {
	p := attr(name, onnxpb.AttributeProto_STRING)
	p.S = []byte(v)
	return Attr{p}
}

// AttrStrings is a STRINGS attribute.
func AttrStrings(name string, v ...string) Attr {
	p := attr(name, onnxpb.AttributeProto_STRINGS)
	for _, s := range v {
		p.Strings = append(p.Strings, []byte(s))
	}
	return Attr{p}
}

// AttrTensor is a TENSOR attribute (Constant's value, ConstantOfShape's value). The tensor is
// copied.
func AttrTensor(name string, t *onnxpb.TensorProto) Attr {
	p := attr(name, onnxpb.AttributeProto_TENSOR)
	if t != nil {
		p.T = proto.Clone(t).(*onnxpb.TensorProto)
	}
	return Attr{p}
}
