package tfjs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseModelJSON feeds arbitrary bytes to the model.json parser and, when they parse, to
// the converter: neither may panic, whatever the graph.
func FuzzParseModelJSON(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*", "*", ModelFile))
	if err != nil {
		f.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join("testdata", "*", ModelFile))
	for _, p := range append(seeds, more...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(shardedModel))
	f.Add([]byte(quantizedModel))
	f.Add([]byte(`{"modelTopology": {"node": [{"name": "a", "op": "Const", "attr": {"value": {"tensor": {"dtype": "DT_INT32", "tensorShape": {"dim": [{"size": "3"}]}, "tensorContent": "AQAAAAIAAAADAAAA"}}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mj, err := parseModelJSON(data)
		if err != nil {
			return
		}
		m := newModel("fuzz/model.json", mj, map[string]*tensor{})
		outs := m.Outputs()
		if len(outs) > 4 { // keep each input cheap; mutations reach the other outputs
			outs = outs[:4]
		}
		for _, out := range outs {
			for _, dense := range []bool{false, true} {
				_, _ = m.Convert(Options{OutputName: out, Dense: dense})
			}
		}
	})
}
