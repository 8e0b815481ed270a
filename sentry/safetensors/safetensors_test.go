package safetensors

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func TestSafetensorsEncodeDecode(t *testing.T) {
	tensors := map[string]Tensor{
		"a":      {DType: "F32", Shape: []int64{2, 2}, Data: EncodeF32([]float32{1, 2, 3, 4})},
		"scalar": {DType: "I64", Shape: []int64{}, Data: make([]byte, 8)},
		"empty":  {DType: "F32", Shape: []int64{0, 3}, Data: nil},
	}
	b, err := Encode(tensors, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	got, meta, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta["k"] != "v" || len(got) != 3 || !bytes.Equal(got["a"].Data, tensors["a"].Data) || len(got["scalar"].Data) != 8 {
		t.Errorf("decoded %v %v", got, meta)
	}
	if _, err := Encode(map[string]Tensor{"bad": {DType: "F32", Shape: []int64{3}, Data: make([]byte, 8)}}, nil); err == nil {
		t.Error("encoded a tensor whose bytes do not fit its shape")
	}
}

func TestDecodeSafetensorsErrors(t *testing.T) {
	tests := []struct {
		name, header string
		data         int
		msg          string
	}{
		{"overlap", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8, "gap or overlap"},
		{"gap", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[12,20]}}`, 20, "gap or overlap"},
		{"unknown dtype", `{"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}}`, 8, "unknown dtype"},
		{"negative dim", `{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, 8, "does not match"},
		{"shape and offsets", `{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8, "does not match"},
		{"reversed offsets", `{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, 8, "bad data_offsets"},
		{"unknown field", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}}`, 8, "unknown field"},
		{"metadata not strings", `{"__metadata__":{"k":1}}`, 0, "metadata"},
		{"overflowing shape", `{"a":{"dtype":"F64","shape":[4611686018427387904,4],"data_offsets":[0,8]}}`, 8, "does not match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := binary.LittleEndian.AppendUint64(nil, uint64(len(tc.header)))
			b = append(append(b, tc.header...), make([]byte, tc.data)...)
			_, _, err := Decode(b)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
}

func FuzzDecodeSafetensors(f *testing.F) {
	b, _ := Encode(map[string]Tensor{"x": {DType: "F32", Shape: []int64{2}, Data: make([]byte, 8)}}, map[string]string{"a": "b"})
	f.Add(b)
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tensors, _, err := Decode(b)
		if err != nil {
			return
		}
		for name, ts := range tensors {
			n, ok := Numel(ts.Shape)
			if !ok || n*dtypeSizes[ts.DType] != int64(len(ts.Data)) {
				t.Fatalf("tensor %s: %d bytes for shape %v of %s", name, len(ts.Data), ts.Shape, ts.DType)
			}
		}
	})
}
