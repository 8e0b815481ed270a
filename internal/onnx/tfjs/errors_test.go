package tfjs

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeModelDir writes model.json and the given shard files into a fresh directory.
func writeModelDir(tb testing.TB, modelJSON string, files map[string][]byte) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ModelFile), []byte(modelJSON), 0o644); err != nil {
		tb.Fatal(err)
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func float32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// wantErr fails unless err is non-nil and mentions every fragment.
func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not mention %q", err, f)
		}
	}
}

// shardedModel is a graph y = x + w with w a float32 [10] weight split over shards of 16
// bytes (TF.js's layout, with a shorter last shard): 16 + 16 + 8 bytes.
const shardedModel = `{
  "modelTopology": {"node": [
    {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "10"}]}}}},
    {"name": "w", "op": "Const", "attr": {"dtype": {"type": 1}, "value": {"tensor": {"dtype": 1, "tensorShape": {"dim": [{"size": "10"}]}}}}},
    {"name": "y", "op": "AddV2", "input": ["x", "w"]}
  ]},
  "weightsManifest": [{"paths": ["s1", "s2", "s3"], "weights": [{"name": "w", "shape": [10], "dtype": "float32"}]}]
}`

func shardedFiles() map[string][]byte {
	w := float32Bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	return map[string][]byte{"s1": w[:16], "s2": w[16:32], "s3": w[32:]}
}

func TestLoadShardErrors(t *testing.T) {
	t.Run("intact shards load and run", func(t *testing.T) {
		m, err := Load(writeModelDir(t, shardedModel, shardedFiles()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := convertAndRun(t, m, Options{}, map[string]feed{"x": {shape: []int64{10}, data: make([]float32, 10)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := sameResult(got, f32([]int64{10}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9), 0); err != nil {
			t.Error(err)
		}
	})
	tests := []struct {
		name      string
		change    func(map[string][]byte)
		fragments []string
	}{
		{"truncated last shard", func(f map[string][]byte) { f["s3"] = f["s3"][:5] }, []string{"s3", "has 5 bytes, expected 8"}},
		{"truncated middle shard", func(f map[string][]byte) { f["s2"] = f["s2"][:10] }, []string{"s2", "has 10 bytes, expected 16"}},
		{"truncated first shard", func(f map[string][]byte) { f["s1"] = f["s1"][:3] }, []string{"s1", "has 3 bytes, expected 16"}},
		{"shard with extra bytes", func(f map[string][]byte) { f["s3"] = append(f["s3"], 0, 0, 0, 0) }, []string{"s3", "has 12 bytes, expected 8"}},
		{"empty last shard", func(f map[string][]byte) { f["s3"] = nil }, []string{"s3", "has 0 bytes, expected 8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := shardedFiles()
			tc.change(files)
			_, err := Load(writeModelDir(t, shardedModel, files))
			wantErr(t, err, tc.fragments...)
			if !errors.Is(err, ErrShardSize) {
				t.Errorf("error %v does not wrap ErrShardSize", err)
			}
		})
	}
	t.Run("missing shard", func(t *testing.T) {
		files := shardedFiles()
		delete(files, "s2")
		_, err := Load(writeModelDir(t, shardedModel, files))
		wantErr(t, err, "s2", "missing", "re-fetch")
	})
	t.Run("single shard truncated", func(t *testing.T) {
		model := strings.Replace(shardedModel, `["s1", "s2", "s3"]`, `["all"]`, 1)
		_, err := Load(writeModelDir(t, model, map[string][]byte{"all": float32Bytes(1, 2, 3)}))
		wantErr(t, err, "all", "has 12 bytes, expected 40")
	})
	t.Run("path outside the model directory", func(t *testing.T) {
		model := strings.Replace(shardedModel, `["s1", "s2", "s3"]`, `["../s1"]`, 1)
		_, err := Load(writeModelDir(t, model, nil))
		wantErr(t, err, "../s1", "not inside the model directory")
	})
}

func TestLoadJSONErrors(t *testing.T) {
	tests := []struct {
		name, json string
		fragments  []string
	}{
		{"not JSON", `{"modelTopology": {"node": [`, []string{ModelFile, "decode JSON"}},
		{"layers model", `{"format": "layers-model", "modelTopology": null}`, []string{"layers model"}},
		{"no topology", `{"weightsManifest": []}`, []string{"no modelTopology"}},
		{"no nodes", `{"modelTopology": {"node": []}}`, []string{"no nodes"}},
		{"node without op", `{"modelTopology": {"node": [{"name": "a"}]}}`, []string{`node "a" has no op`}},
		{"duplicate node", `{"modelTopology": {"node": [{"name": "a", "op": "Const"}, {"name": "a", "op": "Const"}]}}`, []string{`"a" is used twice`}},
		{"bad int attribute", `{"modelTopology": {"node": [{"name": "a", "op": "Squeeze", "attr": {"x": {"i": "seven"}}}]}}`, []string{"invalid integer"}},
		{"bad dtype", `{"modelTopology": {"node": [{"name": "a", "op": "Const", "attr": {"dtype": {"type": "DT_NOPE"}}}]}}`, []string{"DT_NOPE"}},
		{"bad weight dtype", `{"modelTopology": {"node": [{"name": "a", "op": "Const"}]}, "weightsManifest": [{"paths": ["p"], "weights": [{"name": "a", "shape": [1], "dtype": "complex64"}]}]}`, []string{`weight "a"`, "complex64"}},
		{"negative weight dim", `{"modelTopology": {"node": [{"name": "a", "op": "Const"}]}, "weightsManifest": [{"paths": ["p"], "weights": [{"name": "a", "shape": [-2], "dtype": "float32"}]}]}`, []string{"negative dimension"}},
		{"quantization without scale", `{"modelTopology": {"node": [{"name": "a", "op": "Const"}]}, "weightsManifest": [{"paths": ["p"], "weights": [{"name": "a", "shape": [1], "dtype": "float32", "quantization": {"dtype": "uint8"}}]}]}`, []string{"scale and min"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeModelDir(t, tc.json, nil))
			wantErr(t, err, tc.fragments...)
		})
	}
	t.Run("missing model.json", func(t *testing.T) {
		_, err := Load(t.TempDir())
		wantErr(t, err, ModelFile, "expected a directory")
	})
}

func TestConvertErrors(t *testing.T) {
	m, err := Load(filepath.Join("testdata", "errors"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		opts      Options
		is        error
		fragments []string
	}{
		{"unknown op", Options{OutputName: "fancy_out"}, ErrUnsupportedOp, []string{"FancyOp", `"mystery"`, "supported ops"}},
		{"missing output", Options{OutputName: "nope"}, ErrOutputNotFound, []string{`"nope"`, "candidate outputs", "fancy_out", "dynamic_slice"}},
		{"ambiguous default output", Options{}, ErrOutputNotFound, []string{"OutputName", "fancy_out", "dynamic_slice"}},
		{"computed StridedSlice begin", Options{OutputName: "dynamic_slice"}, nil, []string{`"dynamic_slice"`, "StridedSlice", "begin must be a constant"}},
		{"input from a missing node", Options{OutputName: "dangling"}, nil, []string{`"dangling"`, `"ghost"`, "not a node"}},
		{"cycle", Options{OutputName: "loop_a"}, nil, []string{"cycle"}},
		{"output index out of range", Options{OutputName: "x:3"}, nil, []string{`"x:3"`, "1 output"}},
		{"run-time axes before opset 18", Options{OutputName: "max_dyn"}, nil, []string{`"max_dyn"`, "opset 18"}},
		{"bad constant", Options{OutputName: "uses_bad_const"}, nil, []string{`"bad_const"`, "no entry in the weights manifest"}},
		{"dense without sparse inputs", Options{OutputName: "max_dyn", Dense: true}, nil, []string{"indices", "values", "without Options.Dense"}},
		{"opset too old", Options{Opset: 13}, nil, []string{"opset 13"}},
		{"opset too new", Options{Opset: 99}, nil, []string{"opset 99"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Convert(tc.opts)
			wantErr(t, err, tc.fragments...)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		opts Options
		ok   bool
	}{
		{Options{}, true},
		{Options{Opset: MinOpset}, true},
		{Options{Opset: MaxOpset, Dense: true, OutputName: "a:1"}, true},
		{Options{Opset: MinOpset - 1}, false},
		{Options{Opset: MaxOpset + 1}, false},
		{Options{OutputName: "^ctrl"}, false},
	}
	for _, tc := range tests {
		if err := tc.opts.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate() = %v, want ok=%v", tc.opts, err, tc.ok)
		}
	}
}
