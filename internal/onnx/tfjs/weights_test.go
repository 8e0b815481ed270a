package tfjs

import (
	"encoding/binary"
	"math"
	"testing"
)

// quantizedModel exercises every weight encoding of the TF.js manifest: uint8/uint16 affine
// quantization of float32 and int32 weights, float16, int32 storage of an int64 constant,
// bool, and a second weight group.
const quantizedModel = `{
  "modelTopology": {"node": [
    {"name": "z3", "op": "Placeholder", "attr": {"dtype": {"type": 1}, "shape": {"shape": {"dim": [{"size": "3"}]}}}},
    {"name": "z2", "op": "Placeholder", "attr": {"dtype": {"type": 1}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
    {"name": "zi", "op": "Placeholder", "attr": {"dtype": {"type": 9}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
    {"name": "zi32", "op": "Placeholder", "attr": {"dtype": {"type": 3}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
    {"name": "zb", "op": "Placeholder", "attr": {"dtype": {"type": 10}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
    {"name": "q8", "op": "Const", "attr": {"dtype": {"type": 1}}},
    {"name": "q16", "op": "Const", "attr": {"dtype": {"type": 1}}},
    {"name": "h", "op": "Const", "attr": {"dtype": {"type": 1}}},
    {"name": "i64c", "op": "Const", "attr": {"dtype": {"type": 9}, "value": {"tensor": {"dtype": 9, "tensorShape": {"dim": [{"size": "2"}]}}}}},
    {"name": "bw", "op": "Const", "attr": {"dtype": {"type": 10}}},
    {"name": "qi", "op": "Const", "attr": {"dtype": {"type": 3}}},
    {"name": "w2", "op": "Const", "attr": {"dtype": {"type": 1}}},
    {"name": "y8", "op": "AddV2", "input": ["z3", "q8"]},
    {"name": "y16", "op": "AddV2", "input": ["z2", "q16"]},
    {"name": "yh", "op": "AddV2", "input": ["z3", "h"]},
    {"name": "yi", "op": "AddV2", "input": ["zi", "i64c"]},
    {"name": "yb", "op": "LogicalOr", "input": ["zb", "bw"]},
    {"name": "yqi", "op": "AddV2", "input": ["zi32", "qi"]},
    {"name": "y2", "op": "AddV2", "input": ["z2", "w2"]}
  ]},
  "weightsManifest": [
    {"paths": ["g1"], "weights": [
      {"name": "q8", "shape": [3], "dtype": "float32", "quantization": {"dtype": "uint8", "scale": 0.5, "min": -1}},
      {"name": "q16", "shape": [2], "dtype": "float32", "quantization": {"dtype": "uint16", "scale": 0.25, "min": 1}},
      {"name": "h", "shape": [3], "dtype": "float32", "quantization": {"dtype": "float16"}},
      {"name": "i64c", "shape": [2], "dtype": "int32"},
      {"name": "bw", "shape": [2], "dtype": "bool"},
      {"name": "qi", "shape": [2], "dtype": "int32", "quantization": {"dtype": "uint8", "scale": 1.5, "min": -3}}
    ]},
    {"paths": ["sub/g2"], "weights": [{"name": "w2", "shape": [2], "dtype": "float32"}]}
  ]
}`

func quantizedFiles() map[string][]byte {
	var g1 []byte
	g1 = append(g1, 0, 2, 255)                       // q8
	g1 = binary.LittleEndian.AppendUint16(g1, 4)     // q16
	g1 = binary.LittleEndian.AppendUint16(g1, 65535) //
	for _, h := range []uint16{0x3c00, 0xc000, 0x3555} {
		g1 = binary.LittleEndian.AppendUint16(g1, h) // h: 1, -2, 0.333251953125
	}
	g1 = binary.LittleEndian.AppendUint32(g1, uint32(0xfffffffb)) // i64c: -5
	g1 = binary.LittleEndian.AppendUint32(g1, 7)                  //       7
	g1 = append(g1, 1, 0)                                         // bw
	g1 = append(g1, 1, 3)                                         // qi: -1.5 → -1 (JS rounds halves up), 1.5 → 2
	return map[string][]byte{"g1": g1, "sub/g2": float32Bytes(0.25, -4)}
}

func TestWeightEncodings(t *testing.T) {
	m, err := Load(writeModelDir(t, quantizedModel, quantizedFiles()))
	if err != nil {
		t.Fatal(err)
	}
	feeds := map[string]feed{
		"z3":   {shape: []int64{3}, data: make([]float32, 3)},
		"z2":   {shape: []int64{2}, data: make([]float32, 2)},
		"zi":   {shape: []int64{2}, data: []int64{0, 0}},
		"zi32": {shape: []int64{2}, data: []int32{0, 0}},
		"zb":   {shape: []int64{2}, data: []bool{false, false}},
	}
	runOpCases(t, m, feeds, []opCase{
		{name: "uint8 quantized float32", out: "y8", want: f32([]int64{3}, -1, 0, 126.5)},
		{name: "uint16 quantized float32", out: "y16", want: f32([]int64{2}, 2, 16384.75)},
		{name: "float16", out: "yh", want: f32([]int64{3}, 1, -2, 0.333251953125)},
		{name: "int64 constant stored as int32", out: "yi", want: i64([]int64{2}, -5, 7)},
		{name: "bool", out: "yb", want: bools([]int64{2}, true, false)},
		{name: "uint8 quantized int32 rounds like JavaScript", out: "yqi", want: i32([]int64{2}, -1, 2)},
		{name: "second weight group in a subdirectory", out: "y2", want: f32([]int64{2}, 0.25, -4)},
	})
}

func TestFloat16ToFloat32(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, 5.9604645e-08}, {0x0400, 6.1035156e-05},
	}
	for _, tc := range tests { // a decoder must be bit-exact
		if got := float16ToFloat32(tc.h); math.Float32bits(got) != math.Float32bits(tc.want) {
			t.Errorf("float16ToFloat32(%#04x) = %v, want %v", tc.h, got, tc.want)
		}
	}
	if got := float16ToFloat32(0x7c00); got <= 3e38 {
		t.Errorf("float16ToFloat32(+Inf) = %v", got)
	}
}
