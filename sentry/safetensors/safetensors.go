package safetensors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

// maxHeaderLen bounds the JSON header (the reference implementation uses 100 MB).
const maxHeaderLen = 100 << 20

// dtypeSizes are the safetensors element types and their sizes in bytes.
var dtypeSizes = map[string]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// Tensor is one tensor: its element type (a safetensors dtype such as "F32"), shape and
// little-endian bytes.
type Tensor struct {
	DType string
	Shape []int64
	Data  []byte
}

type stEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// Encode serialises tensors (in name order) and metadata. It fails if a name is
// "__metadata__", a dtype is unknown or a tensor's bytes do not fit its shape.
func Encode(tensors map[string]Tensor, meta map[string]string) ([]byte, error) {
	names := make([]string, 0, len(tensors))
	for name := range tensors {
		if name == "__metadata__" {
			return nil, fmt.Errorf("tensor name %q is reserved", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	header := make(map[string]any, len(tensors)+1)
	if len(meta) > 0 {
		header["__metadata__"] = meta
	}
	var off int64
	for _, name := range names {
		t := tensors[name]
		size, ok := dtypeSizes[t.DType]
		if !ok {
			return nil, fmt.Errorf("tensor %s: unknown dtype %q", name, t.DType)
		}
		n, ok := Numel(t.Shape)
		if !ok || n*size != int64(len(t.Data)) {
			return nil, fmt.Errorf("tensor %s: %d bytes do not fit shape %v of %s", name, len(t.Data), t.Shape, t.DType)
		}
		shape := t.Shape
		if shape == nil {
			shape = []int64{}
		}
		header[name] = stEntry{DType: t.DType, Shape: shape, DataOffsets: []int64{off, off + int64(len(t.Data))}}
		off += int64(len(t.Data))
	}
	h, err := json.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("encode safetensors header: %w", err)
	}
	// Pad the header with spaces so the data starts 8-byte aligned, as the reference writer does.
	if pad := (8 - len(h)%8) % 8; pad > 0 {
		h = append(h, bytes.Repeat([]byte{' '}, pad)...)
	}
	out := make([]byte, 8, 8+len(h)+int(off))
	binary.LittleEndian.PutUint64(out, uint64(len(h)))
	out = append(out, h...)
	for _, name := range names {
		out = append(out, tensors[name].Data...)
	}
	return out, nil
}

// Decode parses and validates a whole file: every error says why b is not a well-formed
// safetensors file. The returned tensors' Data alias b.
func Decode(b []byte) (map[string]Tensor, map[string]string, error) {
	if len(b) < 8 {
		return nil, nil, fmt.Errorf("file of %d bytes is truncated (no 8-byte header length)", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > maxHeaderLen {
		return nil, nil, fmt.Errorf("header length %d exceeds %d bytes", n, maxHeaderLen)
	}
	if n > uint64(len(b)-8) {
		return nil, nil, fmt.Errorf("file of %d bytes is truncated (header of %d bytes)", len(b), n)
	}
	hdr := b[8 : 8+n]
	buf := b[8+n:]
	if len(bytes.TrimSpace(hdr)) == 0 || bytes.TrimLeft(hdr, " ")[0] != '{' {
		return nil, nil, fmt.Errorf("header is not a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, nil, fmt.Errorf("header: %v", err)
	}
	var meta map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, fmt.Errorf("metadata is not a string→string map: %v", err)
		}
		delete(raw, "__metadata__")
	}
	type span struct {
		name       string
		begin, end int64
	}
	spans := make([]span, 0, len(raw))
	tensors := make(map[string]Tensor, len(raw))
	for name, r := range raw {
		var e stEntry
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("tensor %s: %v", name, err)
		}
		size, ok := dtypeSizes[e.DType]
		if !ok {
			return nil, nil, fmt.Errorf("tensor %s: unknown dtype %q", name, e.DType)
		}
		if len(e.DataOffsets) != 2 || e.DataOffsets[0] < 0 || e.DataOffsets[1] < e.DataOffsets[0] {
			return nil, nil, fmt.Errorf("tensor %s: bad data_offsets %v", name, e.DataOffsets)
		}
		count, ok := Numel(e.Shape)
		if !ok || count > math.MaxInt64/size || count*size != e.DataOffsets[1]-e.DataOffsets[0] {
			return nil, nil, fmt.Errorf("tensor %s: shape %v of %s does not match data_offsets %v", name, e.Shape, e.DType, e.DataOffsets)
		}
		spans = append(spans, span{name, e.DataOffsets[0], e.DataOffsets[1]})
		tensors[name] = Tensor{DType: e.DType, Shape: e.Shape}
	}
	slices.SortFunc(spans, func(a, b span) int {
		return cmp.Or(cmp.Compare(a.begin, b.begin), cmp.Compare(a.end, b.end))
	})
	var pos int64
	for _, s := range spans {
		if s.begin != pos {
			return nil, nil, fmt.Errorf("tensor %s: data starts at %d, want %d (gap or overlap)", s.name, s.begin, pos)
		}
		pos = s.end
	}
	switch {
	case pos > int64(len(buf)):
		return nil, nil, fmt.Errorf("file is truncated: tensor data needs %d bytes after the header, %d present", pos, len(buf))
	case pos < int64(len(buf)):
		return nil, nil, fmt.Errorf("%d trailing bytes after the tensor data", int64(len(buf))-pos)
	}
	for _, s := range spans {
		t := tensors[s.name]
		t.Data = buf[s.begin:s.end:s.end]
		tensors[s.name] = t
	}
	return tensors, meta, nil
}

// Numel is the product of shape, false if a dimension is negative or the product overflows.
func Numel(shape []int64) (int64, bool) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt64/d) {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// EncodeF32 returns v as little-endian bytes (dtype "F32").
func EncodeF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeF32 returns little-endian "F32" bytes as values; a trailing partial value is ignored.
func DecodeF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
