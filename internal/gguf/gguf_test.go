package gguf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// readFile parses a GGUF v3 file the way llama.cpp's gguf.cpp does: header,
// typed metadata, tensor infos, then data at aligned offsets after the
// padded header. It is the check on the writer, so it shares no code with it.
func readFile(b []byte) (*File, error) {
	d := &decoder{b: b}
	if m := d.u32(); m != Magic {
		return nil, fmt.Errorf("magic %#x", m)
	}
	if v := d.u32(); v != Version {
		return nil, fmt.Errorf("version %d", v)
	}
	nTensors, nKV := d.u64(), d.u64()
	if d.err != nil || nTensors > uint64(len(b)) || nKV > uint64(len(b)) {
		return nil, fmt.Errorf("header: counts %d, %d: %v", nTensors, nKV, d.err)
	}
	f := &File{}
	for range nKV {
		key := d.str()
		f.KV = append(f.KV, KV{Key: key, Value: d.value(ValueType(d.u32()))})
	}
	offsets := make([]uint64, 0, nTensors)
	for range nTensors {
		t := Tensor{Name: d.str()}
		nDims := d.u32()
		if nDims > 4 {
			return nil, fmt.Errorf("tensor %q: %d dims", t.Name, nDims)
		}
		for range nDims {
			t.Dims = append(t.Dims, d.u64())
		}
		if typ := d.u32(); typ != TensorTypeF32 {
			return nil, fmt.Errorf("tensor %q: type %d", t.Name, typ)
		}
		offsets = append(offsets, d.u64())
		f.Tensors = append(f.Tensors, t)
	}
	if d.err != nil {
		return nil, d.err
	}
	base := (uint64(d.off) + Alignment - 1) / Alignment * Alignment
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if offsets[i]%Alignment != 0 {
			return nil, fmt.Errorf("tensor %q: offset %d not aligned", t.Name, offsets[i])
		}
		n := uint64(1)
		for _, x := range t.Dims {
			n *= x
		}
		start := base + offsets[i]
		if start+4*n > uint64(len(b)) || n > uint64(len(b)) {
			return nil, fmt.Errorf("tensor %q: data past end", t.Name)
		}
		t.Data = make([]float32, n)
		for j := range t.Data {
			t.Data[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[start+4*uint64(j):]))
		}
	}
	return f, nil
}

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) next(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	p := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *decoder) u8() uint8 {
	if p := d.next(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if p := d.next(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if p := d.next(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if p := d.next(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) str() string { return string(d.next(d.u64())) }

func (d *decoder) value(t ValueType) any {
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		return int8(d.u8())
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		return int16(d.u16())
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		return d.u8() != 0
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	case TypeArray:
		et, n := ValueType(d.u32()), d.u64()
		if n > uint64(len(d.b)) {
			d.err = fmt.Errorf("array of %d", n)
			return nil
		}
		switch et {
		case TypeUint8:
			return readArray(d, n, (*decoder).u8)
		case TypeInt8:
			return readArray(d, n, func(d *decoder) int8 { return int8(d.u8()) })
		case TypeUint16:
			return readArray(d, n, (*decoder).u16)
		case TypeInt16:
			return readArray(d, n, func(d *decoder) int16 { return int16(d.u16()) })
		case TypeUint32:
			return readArray(d, n, (*decoder).u32)
		case TypeInt32:
			return readArray(d, n, func(d *decoder) int32 { return int32(d.u32()) })
		case TypeFloat32:
			return readArray(d, n, func(d *decoder) float32 { return math.Float32frombits(d.u32()) })
		case TypeBool:
			return readArray(d, n, func(d *decoder) bool { return d.u8() != 0 })
		case TypeString:
			return readArray(d, n, (*decoder).str)
		case TypeUint64:
			return readArray(d, n, (*decoder).u64)
		case TypeInt64:
			return readArray(d, n, func(d *decoder) int64 { return int64(d.u64()) })
		case TypeFloat64:
			return readArray(d, n, func(d *decoder) float64 { return math.Float64frombits(d.u64()) })
		}
	}
	if d.err == nil {
		d.err = fmt.Errorf("value type %d", t)
	}
	return nil
}

func readArray[T any](d *decoder, n uint64, read func(*decoder) T) []T {
	out := make([]T, 0, min(n, 1024))
	for range n {
		out = append(out, read(d))
		if d.err != nil {
			return nil
		}
	}
	return out
}

func encode(t *testing.T, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := f.WriteTo(&buf)
	if err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	if n != int64(buf.Len()) {
		t.Fatalf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	f := &File{
		KV: []KV{
			{"u8", uint8(200)}, {"i8", int8(-7)}, {"u16", uint16(60000)}, {"i16", int16(-30000)},
			{"u32", uint32(4000000000)}, {"i32", int32(-2000000000)}, {"f32", float32(1.5)},
			{"bool.true", true}, {"bool.false", false}, {"str", "héllo ▁ world"}, {"empty", ""},
			{"u64", uint64(1) << 63}, {"i64", int64(-1) << 62}, {"f64", math.Pi},
			{"arr.u8", []uint8{1, 2}}, {"arr.i8", []int8{-1}}, {"arr.u16", []uint16{7}},
			{"arr.i16", []int16{-7}}, {"arr.u32", []uint32{1, 2, 3}}, {"arr.i32", []int32{-1, 0, 1}},
			{"arr.f32", []float32{0.25, -2}}, {"arr.bool", []bool{true, false, true}},
			{"arr.str", []string{"a", "", "<0xFF>"}}, {"arr.u64", []uint64{9}},
			{"arr.i64", []int64{-9}}, {"arr.f64", []float64{1e300}}, {"arr.empty", []string{}},
		},
		Tensors: []Tensor{
			{Name: "a", Dims: []uint64{3}, Data: []float32{1, 2, 3}},
			{Name: "b", Dims: []uint64{2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}},
			{Name: "c", Dims: []uint64{8}, Data: []float32{0, -1, 1, 2, 3, 4, 5, 6}},
			{Name: "d", Dims: []uint64{1, 1, 1, 1}, Data: []float32{42}},
		},
	}
	b := encode(t, f)
	got, err := readFile(b)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if diff := cmp.Diff(f, got); diff != "" {
		t.Errorf("read back differs (-wrote +read):\n%s", diff)
	}
	if len(b)%Alignment != 0 {
		t.Errorf("file is %d bytes, not a multiple of %d", len(b), Alignment)
	}
}

// TestLayout pins the byte layout of a minimal file against the GGUF v3
// specification, independently of the reader above.
func TestLayout(t *testing.T) {
	f := &File{
		KV:      []KV{{"k", uint32(7)}},
		Tensors: []Tensor{{Name: "t", Dims: []uint64{1}, Data: []float32{1}}},
	}
	b := encode(t, f)
	var want bytes.Buffer
	w := func(v any) { _ = binary.Write(&want, binary.LittleEndian, v) }
	want.WriteString("GGUF")
	w(uint32(3))
	w(uint64(1)) // tensors
	w(uint64(1)) // kv
	w(uint64(1))
	want.WriteString("k")
	w(uint32(TypeUint32))
	w(uint32(7))
	w(uint64(1))
	want.WriteString("t")
	w(uint32(1)) // n_dims
	w(uint64(1)) // ne[0]
	w(uint32(0)) // F32
	w(uint64(0)) // offset
	for want.Len()%32 != 0 {
		want.WriteByte(0)
	}
	w(float32(1))
	for want.Len()%32 != 0 {
		want.WriteByte(0)
	}
	if !bytes.Equal(b, want.Bytes()) {
		t.Errorf("layout:\n got % x\nwant % x", b, want.Bytes())
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		f    File
		want []string
	}{
		{"ok", File{KV: []KV{{"a", "b"}}, Tensors: []Tensor{{Name: "t", Dims: []uint64{2}, Data: []float32{1, 2}}}}, nil},
		{"duplicate key", File{KV: []KV{{"a", "b"}, {"a", "c"}}}, []string{`"a": duplicate key`}},
		{"empty key", File{KV: []KV{{"", "b"}}}, []string{"empty key"}},
		{"bad type", File{KV: []KV{{"a", 3}, {"b", [][]string{}}}}, []string{"unsupported value type int", "unsupported value type [][]string"}},
		{"bad string", File{KV: []KV{{"a", "\xff"}, {"b", []string{"ok", "\xc3"}}}}, []string{"string is not UTF-8", "element 1 is not UTF-8"}},
		{"tensor shape", File{Tensors: []Tensor{
			{Name: "t", Dims: []uint64{2, 2}, Data: []float32{1}},
			{Name: "t", Dims: []uint64{1}, Data: []float32{1}},
			{Name: "u", Dims: nil},
			{Name: "v", Dims: []uint64{0}},
		}}, []string{"hold 4 values, data has 1", `"t": duplicate name`, "0 dimensions", "zero dimension"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.f.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: nil, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v\nwant it to mention %q", err, w)
				}
			}
			if _, werr := tt.f.WriteTo(io.Discard); werr == nil {
				t.Errorf("WriteTo wrote an invalid file")
			}
		})
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		n := w.after
		w.after = 0
		return n, errors.New("disk full")
	}
	w.after -= len(p)
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	f, err := TinyLlama(LlamaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(&failWriter{after: 10000}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("WriteTo on a failing writer: %v, want the writer's error", err)
	}
}

func TestTinyLlama(t *testing.T) {
	cfg := LlamaConfig{Seed: 7}
	f, err := TinyLlama(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readFile(encode(t, f))
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	kv := map[string]any{}
	for _, e := range got.KV {
		kv[e.Key] = e.Value
	}
	tokens := kv["tokenizer.ggml.tokens"].([]string)
	nVocab := uint64(len(tokens))
	for key, want := range map[string]any{
		"general.architecture":                   "llama",
		"llama.embedding_length":                 uint32(64),
		"llama.block_count":                      uint32(2),
		"llama.feed_forward_length":              uint32(128),
		"llama.attention.head_count":             uint32(4),
		"llama.attention.head_count_kv":          uint32(2),
		"llama.rope.dimension_count":             uint32(16),
		"llama.context_length":                   uint32(2048),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.vocab_size":                       uint32(nVocab),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.bos_token_id":            uint32(BOSID),
		"tokenizer.ggml.eos_token_id":            uint32(ImEndID),
		"tokenizer.ggml.unknown_token_id":        uint32(UnkID),
		"tokenizer.chat_template":                ChatMLTemplate,
	} {
		if !cmp.Equal(kv[key], want) {
			t.Errorf("%s = %v (%T), want %v (%T)", key, kv[key], kv[key], want, want)
		}
	}
	if n := len(kv["tokenizer.ggml.scores"].([]float32)); uint64(n) != nVocab {
		t.Errorf("%d scores for %d tokens", n, nVocab)
	}
	if n := len(kv["tokenizer.ggml.token_type"].([]int32)); uint64(n) != nVocab {
		t.Errorf("%d token types for %d tokens", n, nVocab)
	}

	dims := map[string][]uint64{}
	for _, ts := range got.Tensors {
		dims[ts.Name] = ts.Dims
	}
	want := map[string][]uint64{
		"token_embd.weight":  {64, nVocab},
		"output_norm.weight": {64},
		"output.weight":      {64, nVocab},
	}
	for b := range 2 {
		p := fmt.Sprintf("blk.%d.", b)
		want[p+"attn_norm.weight"] = []uint64{64}
		want[p+"attn_q.weight"] = []uint64{64, 64}
		want[p+"attn_k.weight"] = []uint64{64, 32}
		want[p+"attn_v.weight"] = []uint64{64, 32}
		want[p+"attn_output.weight"] = []uint64{64, 64}
		want[p+"ffn_norm.weight"] = []uint64{64}
		want[p+"ffn_gate.weight"] = []uint64{64, 128}
		want[p+"ffn_up.weight"] = []uint64{64, 128}
		want[p+"ffn_down.weight"] = []uint64{128, 64}
	}
	if diff := cmp.Diff(want, dims); diff != "" {
		t.Errorf("tensor dims (-want +got):\n%s", diff)
	}

	// The anchor: dimension 0 of every embedding is constant and no block
	// writes to it, and only normal pieces can win the output.
	byName := map[string][]float32{}
	for _, ts := range got.Tensors {
		byName[ts.Name] = ts.Data
	}
	for tok := range nVocab {
		if v := byName["token_embd.weight"][tok*64]; v != anchor {
			t.Fatalf("token %d: embedding[0] = %v, want %v", tok, v, anchor)
		}
	}
	for _, name := range []string{"blk.0.attn_output.weight", "blk.1.ffn_down.weight"} {
		nIn := dims[name][0]
		for i, v := range byName[name][:nIn] {
			if v != 0 {
				t.Errorf("%s writes dimension 0 (input %d: %v)", name, i, v)
				break
			}
		}
	}
	types := kv["tokenizer.ggml.token_type"].([]int32)
	out := byName["output.weight"]
	for tok := range nVocab {
		w0 := out[tok*64]
		if sampleable := types[tok] == TokenNormal; sampleable != (w0 == 0) {
			t.Errorf("token %d %q (type %d): output anchor weight %v", tok, tokens[tok], types[tok], w0)
		}
	}
}

func TestTinyLlamaDeterministic(t *testing.T) {
	sum := func(cfg LlamaConfig) [32]byte {
		f, err := TinyLlama(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(encode(t, f))
	}
	a, b := sum(LlamaConfig{Seed: 1}), sum(LlamaConfig{Seed: 1})
	if a != b {
		t.Errorf("same seed, different files: %x vs %x", a, b)
	}
	if c := sum(LlamaConfig{Seed: 2}); c == a {
		t.Errorf("seeds 1 and 2 wrote the same file")
	}
}

func TestLlamaVocab(t *testing.T) {
	words := append([]string{"naïve", "Ünïcödé", "the"}, DefaultWords...)
	v := LlamaVocab(words)
	if len(v.Scores) != len(v.Tokens) || len(v.Types) != len(v.Tokens) {
		t.Fatalf("%d tokens, %d scores, %d types", len(v.Tokens), len(v.Scores), len(v.Types))
	}
	seen := map[string]int{}
	for id, tok := range v.Tokens {
		if prev, ok := seen[tok]; ok {
			t.Errorf("piece %q at ids %d and %d", tok, prev, id)
		}
		seen[tok] = id
		if !utf8.ValidString(tok) || tok == "" {
			t.Errorf("id %d: piece %q is empty or not UTF-8", id, tok)
		}
	}
	for b := range 256 {
		p := fmt.Sprintf("<0x%02X>", b)
		if id, ok := seen[p]; !ok || v.Types[id] != TokenByte || id != 3+b {
			t.Errorf("byte token %s: id %d (present %v)", p, id, ok)
		}
	}
	for id, want := range map[int]string{UnkID: "<unk>", BOSID: "<s>", EOSID: "</s>", ImStartID: "<|im_start|>", ImEndID: "<|im_end|>"} {
		if v.Tokens[id] != want || v.Types[id] == TokenNormal {
			t.Errorf("id %d = %q (type %d), want special %q", id, v.Tokens[id], v.Types[id], want)
		}
	}
	// Every word is reachable by SentencePiece merges: each prefix of
	// "▁word" longer than one character is a piece, and so is each character.
	for _, w := range words {
		piece := spaceMark + w
		for i, r := range piece {
			if i == 0 {
				continue
			}
			if _, ok := seen[piece[:i]]; !ok && i > len(spaceMark) {
				t.Errorf("word %q: prefix %q missing", w, piece[:i])
			}
			if r < 0x80 {
				if _, ok := seen[string(r)]; !ok {
					t.Errorf("character %q missing", r)
				}
			}
		}
		if _, ok := seen[piece]; !ok {
			t.Errorf("word %q: piece %q missing", w, piece)
		}
	}
}

func TestLlamaConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  LlamaConfig
		want []string
	}{
		{"zero is defaults", LlamaConfig{}, nil},
		{"custom", LlamaConfig{EmbeddingLength: 32, HeadCount: 2, HeadCountKV: 1, BlockCount: 1}, nil},
		{"negative", LlamaConfig{BlockCount: -1, ContextLength: -5}, []string{"BlockCount is -1", "ContextLength is -5"}},
		{"heads", LlamaConfig{EmbeddingLength: 60, HeadCount: 8, HeadCountKV: 3}, []string{"not a multiple of HeadCount 8", "not a multiple of HeadCountKV 3"}},
		{"odd head", LlamaConfig{EmbeddingLength: 12, HeadCount: 4, HeadCountKV: 4}, []string{"head size 3 is odd"}},
		{"words", LlamaConfig{Words: []string{"", "a b", "\xff", "ok"}}, []string{"Words[0] is empty", `Words[1] "a b" holds a space`, "Words[2]", "not UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if _, err := TinyLlama(tt.cfg); err != nil {
					t.Fatalf("TinyLlama: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: nil, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %v\nwant it to mention %q", err, w)
				}
			}
			if _, err := TinyLlama(tt.cfg); err == nil {
				t.Errorf("TinyLlama accepted an invalid config")
			}
		})
	}
}

// FuzzRoundTrip writes arbitrary keys, strings and float data and checks the
// reader gets them back; invalid input must be refused, never written.
func FuzzRoundTrip(f *testing.F) {
	f.Add("general.name", "tiny", "t", []byte{0, 0, 128, 63})
	f.Add("", "\xff", "", []byte{})
	f.Fuzz(func(t *testing.T, key, val, name string, raw []byte) {
		data := make([]float32, len(raw)/4)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		file := &File{
			KV:      []KV{{key, val}, {key + ".arr", []string{val, key}}},
			Tensors: []Tensor{{Name: name, Dims: []uint64{uint64(len(data))}, Data: data}},
		}
		var buf bytes.Buffer
		if _, err := file.WriteTo(&buf); err != nil {
			if file.Validate() == nil {
				t.Fatalf("WriteTo failed on a valid file: %v", err)
			}
			return
		}
		got, err := readFile(buf.Bytes())
		if err != nil {
			t.Fatalf("read back: %v", err)
		}
		// Compare bits: NaNs must survive unchanged.
		if diff := cmp.Diff(file.KV, got.KV); diff != "" {
			t.Errorf("metadata differs:\n%s", diff)
		}
		for i, v := range got.Tensors[0].Data {
			if math.Float32bits(v) != math.Float32bits(data[i]) {
				t.Fatalf("data[%d] = %08x, want %08x", i, math.Float32bits(v), math.Float32bits(data[i]))
			}
		}
	})
}
