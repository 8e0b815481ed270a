package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDataOptions(t *testing.T) {
	var gen *dataGenerateOptions
	cmd := newCmdDataGenerate(&Factory{}, func(_ context.Context, o *dataGenerateOptions) error { gen = o; return nil })
	cmd.SetArgs([]string{"--out", "d", "--seed", "7", "--profiles", "5", "--interactions", "70", "--implicit-rate", "0.2", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if gen.Out != "d" || gen.Gen.Seed != 7 || gen.Gen.Profiles != 5 || gen.Gen.Interactions != 70 || gen.Gen.ImplicitRate != 0.2 || !gen.JSON {
		t.Errorf("%+v", gen)
	}
	var pairs *dataPairsOptions
	cmd = newCmdDataPairs(&Factory{}, func(_ context.Context, o *dataPairsOptions) error { pairs = o; return nil })
	cmd.SetArgs([]string{"in", "--out", "p", "--hold-out", "reported,job/narrative", "--train", "0.6", "--val", "0.2", "--test", "0.2"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if pairs.Dir != "in" || pairs.Out != "p" || len(pairs.Split.HoldOutFamilies) != 2 || pairs.Split.Train != 0.6 {
		t.Errorf("%+v", pairs)
	}
}

func TestDataCommands(t *testing.T) {
	dir := t.TempDir()
	ds, out := filepath.Join(dir, "data"), filepath.Join(dir, "pairs")
	code, stdout, stderr := run(t, "atma", nil, "", "data", "generate", "--out", ds, "--profiles", "10", "--interactions", "200", "--json")
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	var st struct {
		Profiles, Interactions int
		Hash                   string
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil || st.Profiles != 10 || st.Interactions != 200 || len(st.Hash) != 64 {
		t.Fatalf("generate output %q: %v", stdout, err)
	}
	code, stdout, stderr = run(t, "atma", nil, "", "data", "pairs", ds, "--out", out, "--hold-out", "reported")
	if code != 0 {
		t.Fatalf("pairs: exit %d: %s", code, stderr)
	}
	for _, s := range []string{"train", "val", "test", "heldout"} {
		b, err := os.ReadFile(filepath.Join(out, s+".jsonl"))
		if err != nil || len(b) == 0 {
			t.Errorf("%s.jsonl: %v", s, err)
		}
	}
	code, _, stderr = run(t, "atma", nil, "", "data", "check", ds)
	if code != 0 {
		t.Fatalf("check: exit %d: %s", code, stderr)
	}
	// A broken file: every problem reported with file, line and field; exit 1.
	bad := filepath.Join(ds, "profiles.jsonl")
	os.WriteFile(bad, []byte(`{"id":"p1","facts":[{"slot_key":"job","topic_key":"w","category":"sports","value":"x","text":"y"}]}`+"\n"), 0o644)
	code, _, stderr = run(t, "atma", nil, "", "data", "check", ds)
	if code != ExitFailure || !strings.Contains(stderr, "profiles.jsonl:1: facts[0].category") {
		t.Errorf("check of a bad file: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "atma", nil, "", "data", "generate", "--out", ds, "--conflict-ratio", "2")
	if code != ExitUsage {
		t.Errorf("bad ratio: exit %d: %s", code, stderr)
	}
}
