package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// Magic is "GGUF" read as a little-endian uint32; Version is the format
// version written; Alignment is the byte alignment of the tensor data section
// and of every tensor in it (GGUF's default, so general.alignment is not
// written).
const (
	Magic     uint32 = 0x46554747
	Version   uint32 = 3
	Alignment        = 32
)

// ValueType is the type tag of a metadata value (gguf_metadata_value_type).
type ValueType uint32

// The metadata value types of GGUF v3.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorTypeF32 is ggml's type id for float32 tensors, the only kind written.
const TensorTypeF32 uint32 = 0

// KV is one metadata entry. Value is one of uint8, int8, uint16, int16,
// uint32, int32, float32, bool, string, uint64, int64, float64, or a slice of
// one of them (an array; arrays of arrays are not supported).
type KV struct {
	Key   string
	Value any
}

// Tensor is one float32 tensor. Dims are in GGUF order, ne[0] first: ne[0]
// is the contiguous (fastest-varying) dimension, so a matrix that maps n_in
// inputs to n_out outputs has Dims {n_in, n_out} and Data holds n_out rows
// of n_in values.
type Tensor struct {
	Name string
	Dims []uint64
	Data []float32
}

// File is a GGUF file to be written: metadata in order, then tensors in
// order. A File is not safe for concurrent modification.
type File struct {
	KV      []KV
	Tensors []Tensor
}

// Validate reports every problem that would make the file unreadable to
// llama.cpp: empty or duplicate keys and tensor names, strings that are not
// UTF-8, unsupported value types, and tensors whose dimensions do not match
// their data.
func (f *File) Validate() error {
	var errs []error
	keys := make(map[string]bool, len(f.KV))
	for i, kv := range f.KV {
		switch {
		case kv.Key == "":
			errs = append(errs, fmt.Errorf("metadata %d: empty key", i))
		case keys[kv.Key]:
			errs = append(errs, fmt.Errorf("metadata %q: duplicate key", kv.Key))
		case !utf8.ValidString(kv.Key):
			errs = append(errs, fmt.Errorf("metadata %q: key is not UTF-8", kv.Key))
		}
		keys[kv.Key] = true
		if _, err := valueType(kv.Value); err != nil {
			errs = append(errs, fmt.Errorf("metadata %q: %w", kv.Key, err))
		} else if err := checkStrings(kv.Value); err != nil {
			errs = append(errs, fmt.Errorf("metadata %q: %w", kv.Key, err))
		}
	}
	names := make(map[string]bool, len(f.Tensors))
	for i, t := range f.Tensors {
		switch {
		case t.Name == "":
			errs = append(errs, fmt.Errorf("tensor %d: empty name", i))
		case names[t.Name]:
			errs = append(errs, fmt.Errorf("tensor %q: duplicate name", t.Name))
		case !utf8.ValidString(t.Name):
			errs = append(errs, fmt.Errorf("tensor %q: name is not UTF-8", t.Name))
		}
		names[t.Name] = true
		if len(t.Dims) == 0 || len(t.Dims) > 4 {
			errs = append(errs, fmt.Errorf("tensor %q: %d dimensions, want 1 to 4", t.Name, len(t.Dims)))
			continue
		}
		n := uint64(1)
		for _, d := range t.Dims {
			if d == 0 {
				errs = append(errs, fmt.Errorf("tensor %q: zero dimension in %v", t.Name, t.Dims))
			}
			n *= d
		}
		if n != uint64(len(t.Data)) {
			errs = append(errs, fmt.Errorf("tensor %q: dims %v hold %d values, data has %d", t.Name, t.Dims, n, len(t.Data)))
		}
	}
	return errors.Join(errs...)
}

// WriteTo writes the file in GGUF v3 layout: header, metadata, tensor infos,
// padding to Alignment, then each tensor's data padded to Alignment. It
// implements io.WriterTo.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if err := f.Validate(); err != nil {
		return 0, fmt.Errorf("write gguf: %w", err)
	}
	cw := &countWriter{w: bufio.NewWriter(w)}
	e := encoder{w: cw}
	e.u32(Magic)
	e.u32(Version)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(f.KV)))
	for _, kv := range f.KV {
		e.str(kv.Key)
		e.value(kv.Value)
	}
	var offset uint64
	for _, t := range f.Tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(TensorTypeF32)
		e.u64(offset)
		offset += pad(uint64(len(t.Data)) * 4)
	}
	e.zeros(pad(uint64(cw.n)) - uint64(cw.n))
	for _, t := range f.Tensors {
		for _, v := range t.Data {
			e.u32(math.Float32bits(v))
		}
		size := uint64(len(t.Data)) * 4
		e.zeros(pad(size) - size)
	}
	if e.err == nil {
		e.err = cw.w.(*bufio.Writer).Flush()
	}
	if e.err != nil {
		return cw.n, fmt.Errorf("write gguf: %w", e.err)
	}
	return cw.n, nil
}

func pad(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }

// valueType returns the GGUF type of v; for a slice it is TypeArray.
func valueType(v any) (ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, nil
	case int8:
		return TypeInt8, nil
	case uint16:
		return TypeUint16, nil
	case int16:
		return TypeInt16, nil
	case uint32:
		return TypeUint32, nil
	case int32:
		return TypeInt32, nil
	case float32:
		return TypeFloat32, nil
	case bool:
		return TypeBool, nil
	case string:
		return TypeString, nil
	case uint64:
		return TypeUint64, nil
	case int64:
		return TypeInt64, nil
	case float64:
		return TypeFloat64, nil
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []float32,
		[]bool, []string, []uint64, []int64, []float64:
		return TypeArray, nil
	}
	return 0, fmt.Errorf("unsupported value type %T", v)
}

func checkStrings(v any) error {
	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return errors.New("string is not UTF-8")
		}
	case []string:
		for i, s := range v {
			if !utf8.ValidString(s) {
				return fmt.Errorf("element %d is not UTF-8", i)
			}
		}
	}
	return nil
}

// encoder writes little-endian GGUF primitives, keeping the first error.
type encoder struct {
	w   io.Writer
	buf [8]byte
	err error
}

func (e *encoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u8(v uint8) { e.buf[0] = v; e.write(e.buf[:1]) }
func (e *encoder) u16(v uint16) {
	binary.LittleEndian.PutUint16(e.buf[:], v)
	e.write(e.buf[:2])
}
func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:], v)
	e.write(e.buf[:4])
}
func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:], v)
	e.write(e.buf[:8])
}
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.write([]byte(s)) }
func (e *encoder) zeros(n uint64) {
	var z [Alignment]byte
	for n > 0 {
		k := min(n, Alignment)
		e.write(z[:k])
		n -= k
	}
}

// value writes a type tag and the value; v has passed valueType.
func (e *encoder) value(v any) {
	t, _ := valueType(v)
	if t != TypeArray {
		e.u32(uint32(t))
		e.scalar(v)
		return
	}
	e.u32(uint32(TypeArray))
	switch a := v.(type) {
	case []uint8:
		array(e, a)
	case []int8:
		array(e, a)
	case []uint16:
		array(e, a)
	case []int16:
		array(e, a)
	case []uint32:
		array(e, a)
	case []int32:
		array(e, a)
	case []float32:
		array(e, a)
	case []bool:
		array(e, a)
	case []string:
		array(e, a)
	case []uint64:
		array(e, a)
	case []int64:
		array(e, a)
	case []float64:
		array(e, a)
	}
}

// array writes an array's element type, length and elements.
func array[T any](e *encoder, a []T) {
	var zero T
	t, _ := valueType(zero)
	e.u32(uint32(t))
	e.u64(uint64(len(a)))
	for _, x := range a {
		e.scalar(x)
	}
}

func (e *encoder) scalar(v any) {
	switch v := v.(type) {
	case uint8:
		e.u8(v)
	case int8:
		e.u8(uint8(v))
	case uint16:
		e.u16(v)
	case int16:
		e.u16(uint16(v))
	case uint32:
		e.u32(v)
	case int32:
		e.u32(uint32(v))
	case float32:
		e.u32(math.Float32bits(v))
	case bool:
		if v {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case string:
		e.str(v)
	case uint64:
		e.u64(v)
	case int64:
		e.u64(uint64(v))
	case float64:
		e.u64(math.Float64bits(v))
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
