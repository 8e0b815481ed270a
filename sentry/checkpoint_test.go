package sentry

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func testCheckpoint() *Checkpoint {
	h := randomHeads(21, 6, 5, 4)
	return &Checkpoint{Heads: h, Meta: Meta{
		Backbone: Backbone{ID: "nomic-embed-text-v1.5", SHA256: strings.Repeat("c0ffee", 10) + "abcd", Dim: 6},
		Hidden:   5, Out: 4, Alpha: 1, Beta: 0.5,
		Thresholds: Thresholds{Top: 0.62, Log: 0.4, Gap: 0.18}, Calibrated: true,
		Config:   Config{Hidden: 5, Out: 4, Beta: 0.5}.withDefaults(),
		DataHash: "d474", Epoch: 3, Step: 120, ValLoss: 0.25, ValLossTop: 0.1, ValLossLog: 0.3,
		Progress: Progress{BestValLoss: 0.25, BestEpoch: 3, History: []EpochMetrics{{Epoch: 1, Step: 40, TrainLoss: 0.5, ValLoss: 0.4, LR: 1e-3}}},
	}}
}

func encodeT(t *testing.T, c *Checkpoint) []byte {
	t.Helper()
	b, err := c.encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckpointRoundTrip(t *testing.T) {
	c := testCheckpoint()
	path := filepath.Join(t.TempDir(), "heads.safetensors")
	if err := WriteCheckpoint(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCheckpoint(path, c.Meta.Backbone)
	if err != nil {
		t.Fatal(err)
	}
	headsEqual(t, "round trip", got.Heads, c.Heads)
	want := c.Meta
	want.WeightsSHA256 = got.Meta.WeightsSHA256
	if got.Meta.WeightsSHA256 == "" {
		t.Error("no weights checksum")
	}
	gm, wm := got.Meta, want
	if len(gm.Progress.History) != 1 || gm.Progress.History[0] != wm.Progress.History[0] {
		t.Errorf("history %+v, want %+v", gm.Progress.History, wm.Progress.History)
	}
	gp, wp := gm.Progress, wm.Progress
	gp.History, wp.History = nil, nil
	if !reflect.DeepEqual(gp, wp) || gm.Config != wm.Config {
		t.Errorf("progress or config differ:\n got %+v %+v\nwant %+v %+v", gm.Progress, gm.Config, wm.Progress, wm.Config)
	}
	gm.Progress, wm.Progress = Progress{}, Progress{}
	if !reflect.DeepEqual(gm, wm) {
		t.Errorf("metadata\n got %+v\nwant %+v", gm, wm)
	}
	// No temporary files are left behind.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after an atomic write", len(entries))
	}
}

// TestCheckpointPyTorchLayout reads the raw tensors: PyTorch names, [out, in] weights.
func TestCheckpointPyTorchLayout(t *testing.T) {
	c := testCheckpoint()
	tensors, meta, err := decodeSafetensors(encodeT(t, c))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Heads
	in, hidden, out := 6, 5, 4
	w0 := tensors["topic_head.0.weight"]
	if w0.DType != "F32" || !equalShape(w0.Shape, []int64{int64(hidden), int64(in)}) {
		t.Fatalf("topic_head.0.weight: %s %v", w0.DType, w0.Shape)
	}
	vals := bytesF32(w0.Data)
	for j := range hidden {
		for i := range in {
			if vals[j*in+i] != h.Topic.W1[i*hidden+j] {
				t.Fatalf("topic_head.0.weight[%d][%d] = %v, want W1[%d][%d] = %v", j, i, vals[j*in+i], i, j, h.Topic.W1[i*hidden+j])
			}
		}
	}
	w2 := tensors["logic_head.2.weight"]
	if !equalShape(w2.Shape, []int64{int64(out), int64(hidden)}) || bytesF32(w2.Data)[1*hidden+3] != h.Logic.W2[3*out+1] {
		t.Errorf("logic_head.2.weight shape %v or layout wrong", w2.Shape)
	}
	if b := tensors["logic_head.0.bias"]; !equalShape(b.Shape, []int64{int64(hidden)}) {
		t.Errorf("logic_head.0.bias shape %v", b.Shape)
	}
	for _, k := range []string{"backbone_id", "backbone_sha256", "alpha", "beta", "tau_top", "tau_log", "tau_gap", "hyperparameters", "data_hash", "epoch", "val_loss", "format_version"} {
		if meta[k] == "" {
			t.Errorf("metadata %q is empty", k)
		}
	}
	if meta["tau_gap"] != "0.18" || meta["format_version"] != "1" {
		t.Errorf("tau_gap %q, format_version %q", meta["tau_gap"], meta["format_version"])
	}
	n := binary.LittleEndian.Uint64(encodeT(t, c))
	if n%8 != 0 {
		t.Errorf("header length %d is not 8-aligned", n)
	}
}

// reencode decodes a checkpoint, lets edit change its tensors and metadata, and encodes it
// again with a valid checksum, to reach the checks behind the checksum.
func reencode(t *testing.T, b []byte, edit func(map[string]stTensor, map[string]string)) []byte {
	t.Helper()
	tensors, meta, err := decodeSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	edit(tensors, meta)
	sum, err := tensorsSHA256(tensors)
	if err != nil {
		t.Fatal(err)
	}
	meta["data_sha256"] = sum
	out, err := encodeSafetensors(tensors, meta)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withHeader replaces the JSON header of a safetensors file, keeping its data.
func withHeader(b []byte, header string) []byte {
	n := binary.LittleEndian.Uint64(b)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, b[8+n:]...)
}

func TestCheckpointCorruption(t *testing.T) {
	good := encodeT(t, testCheckpoint())
	hdrLen := binary.LittleEndian.Uint64(good)
	cut := func(n int) []byte { return append([]byte(nil), good[:n]...) }
	flip := func(at int) []byte {
		b := append([]byte(nil), good...)
		b[at] ^= 0x40
		return b
	}
	setMeta := func(k, v string) []byte {
		return reencode(t, good, func(_ map[string]stTensor, m map[string]string) {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		})
	}
	tests := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"empty", nil, ErrCorrupt, "truncated"},
		{"length only partly", cut(5), ErrCorrupt, "truncated"},
		{"header cut", cut(int(hdrLen)), ErrCorrupt, "truncated"},
		{"data cut", cut(len(good) - 10), ErrCorrupt, "truncated"},
		{"trailing bytes", append(append([]byte(nil), good...), 0, 0, 0, 0), ErrCorrupt, "trailing"},
		{"huge header length", append(binary.LittleEndian.AppendUint64(nil, 1<<40), good[8:]...), ErrCorrupt, "exceeds"},
		{"header not JSON", withHeader(good, "[1, 2]  "), ErrCorrupt, "not a JSON object"},
		{"header garbage", withHeader(good, "{\"a\": nope}"), ErrCorrupt, "header"},
		{"flipped weight bit", flip(len(good) - 3), ErrCorrupt, "checksum"},
		{"other format", setMeta("format", "something-else"), ErrCorrupt, "format"},
		{"newer version", setMeta("format_version", "2"), ErrVersion, "version"},
		{"missing alpha", setMeta("alpha", ""), ErrCorrupt, `"alpha" is missing`},
		{"bad number", setMeta("tau_top", "high"), ErrCorrupt, `"tau_top" = "high"`},
		{"bad hyperparameters", setMeta("hyperparameters", "{"), ErrCorrupt, "hyperparameters"},
		{"other activation", setMeta("topic_activation", "gelu"), ErrCorrupt, "gelu"},
		{"metadata disagrees with tensors", setMeta("hidden_dim", "7"), ErrShapeMismatch, "shape [5 6], want [7 6]"},
		{"missing tensor", reencode(t, good, func(ts map[string]stTensor, _ map[string]string) { delete(ts, "logic_head.2.bias") }), ErrShapeMismatch, "logic_head.2.bias is missing"},
		{"extra tensor", reencode(t, good, func(ts map[string]stTensor, _ map[string]string) {
			ts["extra"] = stTensor{DType: "F32", Shape: []int64{1}, Data: make([]byte, 4)}
		}), ErrShapeMismatch, "unexpected tensor extra"},
		{"wrong dtype", reencode(t, good, func(ts map[string]stTensor, _ map[string]string) {
			ts["topic_head.0.bias"] = stTensor{DType: "F64", Shape: []int64{5}, Data: make([]byte, 40)}
		}), ErrShapeMismatch, "dtype F64"},
		{"NaN weight", reencode(t, good, func(ts map[string]stTensor, _ map[string]string) {
			x := ts["logic_head.0.weight"]
			d := append([]byte(nil), x.Data...)
			binary.LittleEndian.PutUint32(d[8:], math.Float32bits(float32(math.NaN())))
			x.Data = d
			ts["logic_head.0.weight"] = x
		}), ErrCorrupt, "not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.safetensors")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadCheckpoint(path)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
	if _, err := ReadCheckpoint(filepath.Join(t.TempDir(), "missing.safetensors")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestCheckpointBackboneChecks(t *testing.T) {
	c := testCheckpoint()
	path := filepath.Join(t.TempDir(), "c.safetensors")
	if err := WriteCheckpoint(path, c); err != nil {
		t.Fatal(err)
	}
	bb := c.Meta.Backbone
	tests := []struct {
		name string
		b    Backbone
		want error
	}{
		{"same", bb, nil},
		{"unchecked", Backbone{}, nil},
		{"sha upper case", Backbone{ID: bb.ID, SHA256: strings.ToUpper(bb.SHA256)}, nil},
		{"other id", Backbone{ID: "use-lite", SHA256: bb.SHA256}, ErrBackboneMismatch},
		{"other sha", Backbone{ID: bb.ID, SHA256: strings.Repeat("0", 64)}, ErrBackboneMismatch},
		{"other dim", Backbone{ID: bb.ID, SHA256: bb.SHA256, Dim: 768}, ErrShapeMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadCheckpoint(path, tc.b)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
	if err := c.Meta.CheckShape(5, 4); err != nil {
		t.Error(err)
	}
	if err := c.Meta.CheckShape(512, 256); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("CheckShape(512, 256) = %v", err)
	}
}

func TestOptimizerStateRoundTrip(t *testing.T) {
	const in, hidden, out = 4, 3, 2
	newOpt := func() (*adamW, [8]any) {
		var params [8]any
		for i, p := range headSlices(randomHeads(31, in, hidden, out)) {
			params[i] = *p
		}
		return newAdamW(Config{}.withDefaults(), params[:], paramNames[:]), params
	}
	o, params := newOpt()
	for step := range 2 {
		var grads [8]any
		for i, p := range params {
			g := make([]float32, len(p.([]float32)))
			for j := range g {
				g[j] = float32(i+1) * float32(j-step)
			}
			grads[i] = g
		}
		if err := o.step(grads[:], 1e-3); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "x.optim.safetensors")
	if err := writeOptimizer(path, o, dims{in: in, hidden: hidden, out: out}, "weights-sum"); err != nil {
		t.Fatal(err)
	}
	r, _ := newOpt()
	if err := readOptimizer(path, r, dims{in: in, hidden: hidden, out: out}, "weights-sum"); err != nil {
		t.Fatal(err)
	}
	if r.t != 2 {
		t.Errorf("step %d, want 2", r.t)
	}
	for i := range paramNames {
		compareSlices(t, paramNames[i]+".exp_avg", to64(r.m[i].([]float32)), to64(o.m[i].([]float32)), 0)
		compareSlices(t, paramNames[i]+".exp_avg_sq", to64(r.v[i].([]float32)), to64(o.v[i].([]float32)), 0)
	}
	if err := readOptimizer(path, r, dims{in: in, hidden: hidden, out: out}, "other-weights"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("state for other weights: %v", err)
	}
	if err := readOptimizer(path, r, dims{in: in, hidden: hidden + 1, out: out}, "weights-sum"); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("state for other sizes: %v", err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := readOptimizer(path, r, dims{in: in, hidden: hidden, out: out}, "weights-sum"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated state: %v", err)
	}
}

func TestSafetensorsEncodeDecode(t *testing.T) {
	tensors := map[string]stTensor{
		"a":      {DType: "F32", Shape: []int64{2, 2}, Data: f32Bytes([]float32{1, 2, 3, 4})},
		"scalar": {DType: "I64", Shape: []int64{}, Data: make([]byte, 8)},
		"empty":  {DType: "F32", Shape: []int64{0, 3}, Data: nil},
	}
	b, err := encodeSafetensors(tensors, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	got, meta, err := decodeSafetensors(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta["k"] != "v" || len(got) != 3 || !bytes.Equal(got["a"].Data, tensors["a"].Data) || len(got["scalar"].Data) != 8 {
		t.Errorf("decoded %v %v", got, meta)
	}
	if _, err := encodeSafetensors(map[string]stTensor{"bad": {DType: "F32", Shape: []int64{3}, Data: make([]byte, 8)}}, nil); err == nil {
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
			_, _, err := decodeSafetensors(b)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want ErrCorrupt mentioning %q", err, tc.msg)
			}
		})
	}
}

func FuzzDecodeCheckpoint(f *testing.F) {
	c := testCheckpoint()
	good, err := c.encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add(withHeader(good, `{"__metadata__":{"format":"atma-sentry-heads"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrShapeMismatch) {
				t.Fatalf("error %v wraps none of the checkpoint errors", err)
			}
			return
		}
		if err := c.Heads.validate(); err != nil {
			t.Fatalf("decoded inconsistent heads: %v", err)
		}
	})
}

func FuzzDecodeSafetensors(f *testing.F) {
	b, _ := encodeSafetensors(map[string]stTensor{"x": {DType: "F32", Shape: []int64{2}, Data: make([]byte, 8)}}, map[string]string{"a": "b"})
	f.Add(b)
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tensors, _, err := decodeSafetensors(b)
		if err != nil {
			return
		}
		for name, ts := range tensors {
			n, ok := numel(ts.Shape)
			if !ok || n*dtypeSizes[ts.DType] != int64(len(ts.Data)) {
				t.Fatalf("tensor %s: %d bytes for shape %v of %s", name, len(ts.Data), ts.Shape, ts.DType)
			}
		}
	})
}
