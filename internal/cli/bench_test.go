package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/bench"
)

const benchFixture = "../../bench/testdata/locomo_fixture.json"

func benchFactory(env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	f := &Factory{IO: IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }}}
	f.Logger = slog.New(slog.NewTextHandler(&errOut, nil))
	return f, &out, &errOut
}

func TestBenchOptions(t *testing.T) {
	t.Run("ltp defaults", func(t *testing.T) {
		var got *benchLTPOptions
		cmd := newCmdBenchLTP(&Factory{}, func(_ context.Context, o *benchLTPOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--locomo", "x.json"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.LoCoMo != "x.json" || got.Profiles != 10 || got.Units != 40 || got.MaxTurns != 0 || got.Seed != 0 || got.TopK != 5 || got.Ablation != "" || got.JSON || got.Out != "" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("ltp flags", func(t *testing.T) {
		var got *benchLTPOptions
		cmd := newCmdBenchLTP(&Factory{}, func(_ context.Context, o *benchLTPOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--locomo", "x.json", "--profiles", "2", "--units", "14", "--max-turns", "200", "--seed", "3", "--top-k", "8",
			"--ablation", "gate-off,labels-off", "--json", "--out", "d", "--gate-off", "--no-speaker", "--backbone", "test-tiny", "--sentry", "s.safetensors", "--llm-url", "http://127.0.0.1:1/v1"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.Profiles != 2 || got.Units != 14 || got.MaxTurns != 200 || got.Seed != 3 || got.TopK != 8 || got.Ablation != "gate-off,labels-off" ||
			!got.JSON || got.Out != "d" || !got.GateOff || !got.NoSpeaker || got.Backbone != "test-tiny" || got.Checkpoint != "s.safetensors" || got.URL == "" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("locomo", func(t *testing.T) {
		var got *benchLoCoMoOptions
		cmd := newCmdBenchLoCoMo(&Factory{}, func(_ context.Context, o *benchLoCoMoOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--locomo", "x.json", "--conversations", "2", "--top-k", "10"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.LoCoMo != "x.json" || got.Conversations != 2 || got.TopK != 10 {
			t.Errorf("%+v", got)
		}
	})
	t.Run("tem", func(t *testing.T) {
		var got *benchTEMOptions
		cmd := newCmdBenchTEM(&Factory{}, func(_ context.Context, o *benchTEMOptions) error { got = o; return nil })
		cmd.SetArgs([]string{"--personas", "3", "--moves", "4"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.Personas != 3 || got.Moves != 4 || got.Sessions != 8 || got.Seed != 1 || got.Filler != 4 {
			t.Errorf("%+v", got)
		}
	})
}

func TestBenchUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"ltp without data", []string{"ltp"}, "--locomo is required"},
		{"locomo without data", []string{"locomo"}, "--locomo is required"},
		{"unknown ablation", []string{"ltp", "--locomo", "x", "--ablation", "judge-on"}, "unknown ablation"},
		{"top-k", []string{"tem", "--top-k", "0"}, "--top-k"},
		{"too many units", []string{"ltp", "--locomo", "x", "--units", "50"}, "units 50"},
		{"one move", []string{"tem", "--moves", "1"}, "moves 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := benchFactory(nil)
			cmd := newCmdBench(f)
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want a usage error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestBenchLTPValidateOnly(t *testing.T) {
	f, out, _ := benchFactory(nil)
	cmd := newCmdBench(f)
	cmd.SetArgs([]string{"ltp", "--locomo", benchFixture, "--profiles", "3", "--validate-only"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\nok  "); n != 8 || !strings.Contains(out.String(), "3 profiles, 120 units, 240 probes") {
		t.Fatalf("%d checks passed:\n%s", n, out.String())
	}
	f, _, _ = benchFactory(nil)
	cmd = newCmdBench(f)
	cmd.SetArgs([]string{"ltp", "--locomo", benchFixture, "--validate-only"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "10 profiles need as many conversations") {
		t.Fatalf("ten profiles on three conversations: %v", err)
	}
}

// The whole command on the real ONNX Runtime with the test-tiny backbone (random
// weights: the numbers mean nothing, the plumbing is what is tested).
func TestBenchTEMEndToEnd(t *testing.T) {
	cache := testTinyCache(t)
	dir := filepath.Join(t.TempDir(), "tem")
	f, out, errOut := benchFactory(map[string]string{"ATMA_CACHE": cache})
	cmd := newCmdBench(f)
	cmd.SetArgs([]string{"tem", "--backbone", "test-tiny", "--gate-off", "--personas", "2", "--json", "--out", dir})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep bench.TEMReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v\n%s", err, out.String())
	}
	if rep.Personas != 2 || rep.Questions != 24 || len(rep.Conditions) != 3 {
		t.Errorf("report %+v", rep)
	}
	for _, name := range []string{"report.json", "tables.md", "traces.jsonl", "chart.png"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

const casesFixture = "../../bench/testdata/cases_fixture.jsonl"

func TestBenchCasesOptions(t *testing.T) {
	var got *benchCasesOptions
	cmd := newCmdBenchCases(&Factory{}, func(_ context.Context, o *benchCasesOptions) error { got = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Split != bench.SplitDev || got.Corpus != "" || got.ValidateOnly || got.TopK != 5 {
		t.Errorf("defaults %+v", got)
	}
	cmd = newCmdBenchCases(&Factory{}, func(_ context.Context, o *benchCasesOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--split", "test", "--corpus", "c.jsonl", "--validate-only", "--json", "--out", "d"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Split != bench.SplitTest || got.Corpus != "c.jsonl" || !got.ValidateOnly || !got.JSON || got.Out != "d" {
		t.Errorf("flags %+v", got)
	}
	f, _, _ := benchFactory(nil)
	bad := newCmdBench(f)
	bad.SetArgs([]string{"cases", "--split", "train"})
	bad.SetOut(&bytes.Buffer{})
	bad.SetErr(&bytes.Buffer{})
	var ue usageError
	if err := bad.Execute(); !errors.As(err, &ue) || !strings.Contains(err.Error(), "--split must be dev, test or all") {
		t.Errorf("--split train: %v", err)
	}
}

func TestBenchCasesValidateOnly(t *testing.T) {
	f, out, _ := benchFactory(nil)
	cmd := newCmdBench(f)
	cmd.SetArgs([]string{"cases", "--validate-only", "--corpus", casesFixture})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "corpus ok: 2 scenarios (1 dev, 1 test), 7 memories, 5 probes, 4 relations, 7 pairs") {
		t.Errorf("output:\n%s", out.String())
	}
	// A corpus with problems: every one, with file and line, and nothing else runs.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"scenario","id":"s","domain":"x","split":"dev","title":"t"}`+"\n"+`{"type":"probe","scenario":"s","id":"p","kind":"now","question":"q","gold":["v"],"gold_memories":["m"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, _ = benchFactory(nil)
	cmd = newCmdBench(f)
	cmd.SetArgs([]string{"cases", "--validate-only", "--corpus", bad})
	err := cmd.Execute()
	for _, w := range []string{bad + ":1: domain", bad + ":2: kind", bad + ":2: gold[0]", bad + ":2: gold_memories[0]", bad + ":1: scenario \"s\" has 0 memories"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("err %v, want %q", err, w)
		}
	}
}

// The whole command on the real ONNX Runtime with the test-tiny backbone.
func TestBenchCasesEndToEnd(t *testing.T) {
	cache := testTinyCache(t)
	dir := filepath.Join(t.TempDir(), "cases")
	f, out, errOut := benchFactory(map[string]string{"ATMA_CACHE": cache})
	cmd := newCmdBench(f)
	cmd.SetArgs([]string{"cases", "--backbone", "test-tiny", "--gate-off", "--corpus", casesFixture, "--split", "all", "--json", "--out", dir})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep bench.CasesReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v\n%s", err, out.String())
	}
	if rep.Scenarios != 2 || rep.Probes != 5 || rep.Pairs != 7 || len(rep.Systems) != 2 || rep.Sentry != nil || rep.Judge.Verdict.N != 7 {
		t.Errorf("report %+v", rep)
	}
	for _, name := range []string{"report.json", "tables.md", "traces.jsonl", "chart.png"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
