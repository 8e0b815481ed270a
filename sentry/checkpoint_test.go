package sentry

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
	"github.com/atma-dev/atma/sentry/safetensors"
)

func testCheckpoint() *Checkpoint {
	h := randomHeads(21, 6, 5, 4)
	return &Checkpoint{Heads: h, Meta: Meta{
		Meta: gate.Meta{
			Backbone: gate.Backbone{ID: "nomic-embed-text-v1.5", SHA256: strings.Repeat("c0ffee", 10) + "abcd", Dim: 6},
			Hidden:   5, Out: 4,
			Thresholds: gate.Thresholds{Top: 0.62, Log: 0.4, Gap: 0.18}, Calibrated: true,
		},
		Alpha: 1, Beta: 0.5,
		Config:   Config{Hidden: 5, Out: 4, Beta: 0.5}.withDefaults(),
		DataHash: "d474", Epoch: 3, Step: 120, ValLoss: 0.25, ValLossTop: 0.1, ValLossLog: 0.3,
		Progress: Progress{BestValLoss: 0.25, BestEpoch: 3, History: []EpochMetrics{{Epoch: 1, Step: 40, TrainLoss: 0.5, ValLoss: 0.4, LR: 1e-3}}},
	}}
}

func encodeT(t *testing.T, c *Checkpoint) []byte {
	t.Helper()
	b, _, err := c.encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    *Checkpoint
	}{{gate.LogicCosine, testCheckpoint()}, {gate.LogicPair, testPairCheckpoint()}} {
		t.Run(tc.name, func(t *testing.T) { checkRoundTrip(t, tc.c) })
	}
}

// checkRoundTrip writes c, loads it back and compares heads and metadata.
func checkRoundTrip(t *testing.T, c *Checkpoint) {
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

// TestGateReadsCheckpoint checks that the inference package reads what training writes: the
// same heads, and the backbone, sizes, thresholds and checksum of the metadata.
func TestGateReadsCheckpoint(t *testing.T) {
	for _, c := range []*Checkpoint{testCheckpoint(), testPairCheckpoint()} {
		t.Run(c.Heads.LogicKind(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "heads.safetensors")
			if err := WriteCheckpoint(path, c); err != nil {
				t.Fatal(err)
			}
			full, err := ReadCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := gate.LoadCheckpoint(path, c.Meta.Backbone)
			if err != nil {
				t.Fatal(err)
			}
			headsEqual(t, "gate", got.Heads, c.Heads)
			want := c.Meta.Meta
			want.WeightsSHA256 = full.Meta.WeightsSHA256
			if got.Meta != want || want.WeightsSHA256 == "" {
				t.Errorf("gate metadata\n got %+v\nwant %+v", got.Meta, want)
			}
			if _, err := gate.LoadCheckpoint(path, gate.Backbone{ID: "use-lite"}); !errors.Is(err, gate.ErrBackboneMismatch) {
				t.Errorf("other backbone: %v", err)
			}
		})
	}
}

// TestCheckpointPyTorchLayout reads the raw tensors: PyTorch names, [out, in] weights.
func TestCheckpointPyTorchLayout(t *testing.T) {
	c := testCheckpoint()
	tensors, meta, err := safetensors.Decode(encodeT(t, c))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Heads
	in, hidden, out := 6, 5, 4
	w0 := tensors["topic_head.0.weight"]
	if w0.DType != "F32" || !slices.Equal(w0.Shape, []int64{int64(hidden), int64(in)}) {
		t.Fatalf("topic_head.0.weight: %s %v", w0.DType, w0.Shape)
	}
	vals := safetensors.DecodeF32(w0.Data)
	for j := range hidden {
		for i := range in {
			if vals[j*in+i] != h.Topic.W1[i*hidden+j] {
				t.Fatalf("topic_head.0.weight[%d][%d] = %v, want W1[%d][%d] = %v", j, i, vals[j*in+i], i, j, h.Topic.W1[i*hidden+j])
			}
		}
	}
	w2 := tensors["logic_head.2.weight"]
	if !slices.Equal(w2.Shape, []int64{int64(out), int64(hidden)}) || safetensors.DecodeF32(w2.Data)[1*hidden+3] != h.Logic.W2[3*out+1] {
		t.Errorf("logic_head.2.weight shape %v or layout wrong", w2.Shape)
	}
	if b := tensors["logic_head.0.bias"]; !slices.Equal(b.Shape, []int64{int64(hidden)}) {
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
func reencode(t *testing.T, b []byte, edit func(map[string]safetensors.Tensor, map[string]string)) []byte {
	t.Helper()
	tensors, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	edit(tensors, meta)
	meta["data_sha256"] = gate.Checksum(tensors)
	out, err := safetensors.Encode(tensors, meta)
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
		return reencode(t, good, func(_ map[string]safetensors.Tensor, m map[string]string) {
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
		{"empty", nil, gate.ErrCorrupt, "truncated"},
		{"length only partly", cut(5), gate.ErrCorrupt, "truncated"},
		{"header cut", cut(int(hdrLen)), gate.ErrCorrupt, "truncated"},
		{"data cut", cut(len(good) - 10), gate.ErrCorrupt, "truncated"},
		{"trailing bytes", append(append([]byte(nil), good...), 0, 0, 0, 0), gate.ErrCorrupt, "trailing"},
		{"huge header length", append(binary.LittleEndian.AppendUint64(nil, 1<<40), good[8:]...), gate.ErrCorrupt, "exceeds"},
		{"header not JSON", withHeader(good, "[1, 2]  "), gate.ErrCorrupt, "not a JSON object"},
		{"header garbage", withHeader(good, "{\"a\": nope}"), gate.ErrCorrupt, "header"},
		{"flipped weight bit", flip(len(good) - 3), gate.ErrCorrupt, "checksum"},
		{"other format", setMeta("format", "something-else"), gate.ErrCorrupt, "format"},
		{"newer version", setMeta("format_version", "2"), gate.ErrVersion, "version"},
		{"missing alpha", setMeta("alpha", ""), gate.ErrCorrupt, `"alpha" is missing`},
		{"bad number", setMeta("tau_top", "high"), gate.ErrCorrupt, `"tau_top" = "high"`},
		{"bad hyperparameters", setMeta("hyperparameters", "{"), gate.ErrCorrupt, "hyperparameters"},
		{"other activation", setMeta("topic_activation", "gelu"), gate.ErrCorrupt, "gelu"},
		{"metadata disagrees with tensors", setMeta("hidden_dim", "7"), gate.ErrShapeMismatch, "shape [5 6], want [7 6]"},
		{"missing tensor", reencode(t, good, func(ts map[string]safetensors.Tensor, _ map[string]string) { delete(ts, "logic_head.2.bias") }), gate.ErrShapeMismatch, "logic_head.2.bias is missing"},
		{"extra tensor", reencode(t, good, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			ts["extra"] = safetensors.Tensor{DType: "F32", Shape: []int64{1}, Data: make([]byte, 4)}
		}), gate.ErrShapeMismatch, "unexpected tensor extra"},
		{"wrong dtype", reencode(t, good, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			ts["topic_head.0.bias"] = safetensors.Tensor{DType: "F64", Shape: []int64{5}, Data: make([]byte, 40)}
		}), gate.ErrShapeMismatch, "dtype F64"},
		{"NaN weight", reencode(t, good, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			x := ts["logic_head.0.weight"]
			d := append([]byte(nil), x.Data...)
			binary.LittleEndian.PutUint32(d[8:], math.Float32bits(float32(math.NaN())))
			x.Data = d
			ts["logic_head.0.weight"] = x
		}), gate.ErrCorrupt, "not finite"},
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
		b    gate.Backbone
		want error
	}{
		{"same", bb, nil},
		{"unchecked", gate.Backbone{}, nil},
		{"sha upper case", gate.Backbone{ID: bb.ID, SHA256: strings.ToUpper(bb.SHA256)}, nil},
		{"other id", gate.Backbone{ID: "use-lite", SHA256: bb.SHA256}, gate.ErrBackboneMismatch},
		{"other sha", gate.Backbone{ID: bb.ID, SHA256: strings.Repeat("0", 64)}, gate.ErrBackboneMismatch},
		{"other dim", gate.Backbone{ID: bb.ID, SHA256: bb.SHA256, Dim: 768}, gate.ErrShapeMismatch},
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
	if err := c.Meta.CheckShape(512, 256); !errors.Is(err, gate.ErrShapeMismatch) {
		t.Errorf("CheckShape(512, 256) = %v", err)
	}
}

func TestOptimizerStateRoundTrip(t *testing.T) {
	const in, hidden, out = 4, 3, 2
	newOpt := func() (*adamW, [8]any) {
		var params [8]any
		for i, p := range gate.Params(randomHeads(31, in, hidden, out)) {
			params[i] = *p
		}
		return newAdamW(Config{}.withDefaults(), params[:], paramNames), params
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
	if err := writeOptimizer(path, o, gate.Layout{In: in, Hidden: hidden, Out: out}, "weights-sum"); err != nil {
		t.Fatal(err)
	}
	r, _ := newOpt()
	if err := readOptimizer(path, r, gate.Layout{In: in, Hidden: hidden, Out: out}, "weights-sum"); err != nil {
		t.Fatal(err)
	}
	if r.t != 2 {
		t.Errorf("step %d, want 2", r.t)
	}
	for i, name := range paramNames {
		compareSlices(t, name+".exp_avg", to64(r.m[i].([]float32)), to64(o.m[i].([]float32)), 0)
		compareSlices(t, name+".exp_avg_sq", to64(r.v[i].([]float32)), to64(o.v[i].([]float32)), 0)
	}
	if err := readOptimizer(path, r, gate.Layout{In: in, Hidden: hidden, Out: out}, "other-weights"); !errors.Is(err, gate.ErrCorrupt) {
		t.Errorf("state for other weights: %v", err)
	}
	if err := readOptimizer(path, r, gate.Layout{In: in, Hidden: hidden + 1, Out: out}, "weights-sum"); !errors.Is(err, gate.ErrShapeMismatch) {
		t.Errorf("state for other sizes: %v", err)
	}
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := readOptimizer(path, r, gate.Layout{In: in, Hidden: hidden, Out: out}, "weights-sum"); !errors.Is(err, gate.ErrCorrupt) {
		t.Errorf("truncated state: %v", err)
	}
}

func FuzzDecodeCheckpoint(f *testing.F) {
	c := testCheckpoint()
	good, _, err := c.encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add(withHeader(good, `{"__metadata__":{"format":"atma-sentry-heads"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		gc, gerr := gate.DecodeCheckpoint(b)
		if err == nil && gerr != nil {
			t.Fatalf("package sentry reads the file, package gate refuses it: %v", gerr)
		}
		if err != nil {
			if !errors.Is(err, gate.ErrCorrupt) && !errors.Is(err, gate.ErrVersion) && !errors.Is(err, gate.ErrShapeMismatch) {
				t.Fatalf("error %v wraps none of the checkpoint errors", err)
			}
			return
		}
		if err := c.Heads.Validate(); err != nil {
			t.Fatalf("decoded inconsistent heads: %v", err)
		}
		if !reflect.DeepEqual(gc.Heads, c.Heads) || gc.Meta != c.Meta.Meta {
			t.Fatalf("package gate reads other heads or metadata than package sentry")
		}
	})
}
