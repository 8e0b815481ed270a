package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/bench"
)

func TestBenchFactsOptions(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(*benchFactsOptions) bool
	}{
		{"defaults", nil, func(o *benchFactsOptions) bool {
			return o.Split == bench.SplitDev && !o.JSON && o.Out == "" && o.Corpus == ""
		}},
		{"flags", []string{"--split", "all", "--json", "--out", "d", "--corpus", "c.jsonl", "--backbone", "test-tiny", "--llm-url", "http://127.0.0.1:1/v1"},
			func(o *benchFactsOptions) bool {
				return o.Split == bench.SplitAll && o.JSON && o.Out == "d" && o.Corpus == "c.jsonl" && o.Backbone == "test-tiny" && o.URL != ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *benchFactsOptions
			cmd := newCmdBenchFacts(&Factory{}, func(_ context.Context, o *benchFactsOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !tt.check(got) {
				t.Errorf("%+v", got)
			}
		})
	}
	f, _, _ := benchFactory(nil)
	bad := newCmdBench(f)
	bad.SetArgs([]string{"facts", "--split", "train"})
	bad.SetOut(&bytes.Buffer{})
	bad.SetErr(&bytes.Buffer{})
	var ue usageError
	if err := bad.Execute(); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--split must be dev, test or all") {
		t.Errorf("--split train: %v", err)
	}
}

// The whole command on the real ONNX Runtime with the test-tiny backbone (random
// weights: the scores mean nothing, the plumbing is what is tested).
func TestBenchFactsEndToEnd(t *testing.T) {
	cache := testTinyCache(t)
	dir := filepath.Join(t.TempDir(), "facts")
	f, out, errOut := benchFactory(map[string]string{"ATMA_CACHE": cache})
	cmd := newCmdBench(f)
	cmd.SetArgs([]string{"facts", "--backbone", "test-tiny", "--corpus", casesFixture, "--split", "all", "--json", "--out", dir})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep bench.FactsReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v\n%s", err, out.String())
	}
	if rep.Scenarios != 2 || rep.Overall.Memories != 7 || rep.Sources["offline"] != 7 {
		t.Errorf("report %+v", rep)
	}
	for _, name := range []string{"report.json", "tables.md", "traces.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
