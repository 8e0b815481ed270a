package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry"
	"github.com/atma-dev/atma/sentry/gate"
)

func TestSentryTrainOptions(t *testing.T) {
	var got *sentryTrainOptions
	cmd := newCmdSentryTrain(&Factory{}, func(_ context.Context, o *sentryTrainOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--out", "ck", "--epochs", "3", "--batch", "16", "--lr", "0.01", "--hidden", "64", "--out-dim", "32",
		"--patience", "2", "--hold-out", "reported", "--data", "d", "--backbone", "test-tiny", "--target-recall", "0.9", "--resume", "ck/last"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	c := got.Config
	if got.Out != "ck" || c.Epochs != 3 || c.BatchSize != 16 || c.LR != 0.01 || c.Hidden != 64 || c.Out != 32 || c.Patience != 2 ||
		got.HoldOut[0] != "reported" || got.Data != "d" || got.Backbone != "test-tiny" || c.Calibration.TargetRecall != 0.9 || got.Resume != "ck/last" {
		t.Errorf("%+v", got)
	}
	if c.Logic != gate.LogicCosine || c.PairHidden != 0 || got.Echo || got.ValFams != nil {
		t.Errorf("defaults: logic %q, pair hidden %d, echo %v, val families %v; want the paper's head on the plain data", c.Logic, c.PairHidden, got.Echo, got.ValFams)
	}
	cmd = newCmdSentryTrain(&Factory{}, func(_ context.Context, o *sentryTrainOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--logic", "pair", "--pair-hidden", "8", "--val-families", "casual,job/direct", "--val-family-fraction", "0.1", "--data-echo"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if c := got.Config; c.Logic != gate.LogicPair || c.PairHidden != 8 || len(got.ValFams) != 2 || got.ValFams[1] != "job/direct" || got.ValFrac != 0.1 || !got.Echo {
		t.Errorf("pair options: %+v", got)
	}
	cmd = newCmdSentryTrain(&Factory{}, func(context.Context, *sentryTrainOptions) error { return nil })
	cmd.SetArgs([]string{"--logic", "bilinear"})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), `unknown logic head "bilinear"`) {
		t.Errorf("unknown logic head: %v", err)
	}
	cmd = newCmdSentryTrain(&Factory{}, func(context.Context, *sentryTrainOptions) error { return nil })
	cmd.SetArgs([]string{"--epochs", "-1"})
	if err := cmd.Execute(); err == nil {
		t.Error("negative epochs accepted")
	}
}

func TestParseGateLines(t *testing.T) {
	got, err := parseGateLines([]string{"old\tnew", `{"old":"a","new":"b"}`, ""})
	if err != nil || len(got) != 2 || got[0].New != "new" || got[1].Old != "a" {
		t.Fatalf("%+v, %v", got, err)
	}
	_, err = parseGateLines([]string{"no tab here", `{"old":"a"}`, `{"old":1,"new":"b"}`, `{"old":"a","new":"b","conflict":"yes"}`})
	for _, w := range []string{"line 1", "line 2: both", `line 3: field "old"`, `line 4: label "conflict"`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
	// Extra fields are kept, labels read.
	got, err = parseGateLines([]string{`{"id":"p7","old":"a","new":"b","conflict":true,"note":{"k":1}}`})
	if err != nil || len(got) != 1 || string(got[0].Fields["id"]) != `"p7"` || got[0].Conflict == nil || !*got[0].Conflict {
		t.Fatalf("%+v, %v", got, err)
	}
	out := gateLine(got[0], gate.Decision{A: 0.9, B: 0.1, Gap: 0.8, Route: true}, gate.Thresholds{Top: 0.6, Log: 0.45, Gap: 0.15})
	b, _ := json.Marshal(out)
	for _, w := range []string{`"id":"p7"`, `"note":{"k":1}`, `"route":true`, `"thresholds":{`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("gate line %s lacks %s", b, w)
		}
	}
}

func TestMeasureGate(t *testing.T) {
	yes, no := true, false
	pairs := []gateInput{
		{Old: "a", New: "b", Conflict: &yes},                // same slot, conflict, routed
		{Old: "a", New: "c", SameSlot: &yes, Conflict: &no}, // same slot, consistent
		{Old: "a", New: "d", SameSlot: &no},                 // other slot, routed
		{Old: "a", New: "e"},                                // unlabelled
	}
	ds := []gate.Decision{{A: 0.9, Gap: 0.7, Route: true}, {A: 0.8, Gap: 0.1}, {A: 0.2, Gap: 0.1, Route: true}, {A: 0.5}}
	m := measureGate(pairs, ds, gate.Thresholds{})
	if m.Pairs != 4 || m.Labelled != 3 || m.Routed != 0.5 {
		t.Errorf("counts %+v", m)
	}
	for name, v := range map[string]*float64{"same-slot AUC": m.SameSlotAUC, "conflict AUC": m.ConflictAUC, "conflict recall": m.ConflictRecall, "other-slot routed": m.OtherSlotRouted} {
		if v == nil || *v != 1 {
			t.Errorf("%s = %v, want 1", name, v)
		}
	}
	if m := measureGate(pairs[3:], ds[3:], gate.Thresholds{}); m.Labelled != 0 || m.SameSlotAUC != nil || m.ConflictRecall != nil {
		t.Errorf("unlabelled pairs measured: %+v", m)
	}
}

// gateOutput is what the tests read of a `sentry gate --json` line (gateLine).
type gateOutput struct {
	Old        string          `json:"old"`
	New        string          `json:"new"`
	A          float64         `json:"a"`
	B          float64         `json:"b"`
	Gap        float64         `json:"gap"`
	Route      bool            `json:"route"`
	Thresholds gate.Thresholds `json:"thresholds"`
}

// tinyTraining is a checkpoint trainTinySentry trained: the environment and temporary
// directory it used, the flags of the data commands, the output directory and what
// `sentry train --json` printed.
type tinyTraining struct {
	env      map[string]string
	dir, out string
	common   []string
	stdout   string
	sum      sentrySummary
}

// trainTinySentry generates a small dataset and trains on it for two epochs with the
// test-tiny backbone through the command tree, adding flags to `sentry train`.
func trainTinySentry(t *testing.T, flags ...string) tinyTraining {
	t.Helper()
	tr := tinyTraining{env: map[string]string{"ATMA_CACHE": testTinyCache(t)}, dir: t.TempDir()}
	ds := filepath.Join(tr.dir, "data")
	tr.out = filepath.Join(tr.dir, "ck")
	if code, _, stderr := run(t, "atma", nil, "", "data", "generate", "--out", ds, "--profiles", "10", "--interactions", "280"); code != 0 {
		t.Fatal(stderr)
	}
	tr.common = []string{"--backbone", "test-tiny", "--data", ds, "--no-cache"}
	args := append(append([]string{"train", "--out", tr.out, "--epochs", "2", "--hidden", "32", "--out-dim", "16", "--json"}, flags...), tr.common...)
	code, stdout, stderr := run(t, "sentry", tr.env, "", args...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	tr.stdout = stdout
	if err := json.Unmarshal([]byte(stdout), &tr.sum); err != nil {
		t.Fatalf("train summary %q: %v", stdout, err)
	}
	return tr
}

// TestSentryEndToEnd trains on a small generated dataset with the test-tiny backbone, then
// evaluates, calibrates, gates and exports through the command tree.
func TestSentryEndToEnd(t *testing.T) {
	tr := trainTinySentry(t)
	env, dir, out, common := tr.env, tr.dir, tr.out, tr.common
	if sum := tr.sum; sum.Backbone.ID != "test-tiny" || len(sum.Rows) != 2 || sum.Rows[0].Eval.N == 0 {
		t.Fatalf("train summary %q", tr.stdout)
	}
	for _, f := range []string{sentry.BestFile, sentry.LastFile, sentry.MetricsFile, sentry.LossPlotFile, "eval.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	ck := filepath.Join(out, sentry.BestFile)
	if code, _, stderr := run(t, "sentry", env, "", append([]string{"eval", "-c", ck}, common...)...); code != 0 {
		t.Errorf("eval: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := run(t, "sentry", env, "", append([]string{"calibrate", "-c", ck, "--target-recall", "0.9"}, common...)...); code != 0 || !strings.Contains(stdout, "written to") {
		t.Errorf("calibrate: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr := run(t, "sentry", env, "I live in Berlin.\tI moved to Lisbon.\n", "gate", "-c", ck, "--backbone", "test-tiny", "--json", "--no-cache")
	var g gateOutput
	if code != 0 || json.Unmarshal([]byte(stdout), &g) != nil || g.Old != "I live in Berlin." || g.A < -1.0001 || g.A > 1.0001 {
		t.Errorf("gate: exit %d: %q %s", code, stdout, stderr)
	}
	// A labelled file with fields of its own: kept on every line, then the metrics.
	pairs := `{"id":"x1","old":"I live in Berlin.","new":"I moved to Lisbon.","conflict":true}` + "\n" +
		`{"id":"x2","old":"I live in Berlin.","new":"My sister likes tea.","same_slot":false}` + "\n"
	code, stdout, stderr = run(t, "sentry", env, pairs, "gate", "--sentry", ck, "--backbone", "test-tiny", "--json", "--no-cache")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], `"id":"x1"`) || !strings.Contains(lines[1], `"thresholds"`) || !strings.HasPrefix(lines[2], `{"metrics":`) {
		t.Errorf("labelled gate: exit %d: %q %s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, "sentry", env, "", "export", "--checkpoint", ck, "--out", filepath.Join(dir, "heads.onnx")); code != 0 || !strings.Contains(stdout, "verified") {
		t.Errorf("export: exit %d: %s %s", code, stdout, stderr)
	}
	// A checkpoint from another backbone is refused with a clear error.
	if code, _, stderr := run(t, "sentry", env, "a\tb\n", "gate", "-c", ck, "--backbone", "use-lite", "--no-cache"); code != ExitFailure || !strings.Contains(stderr, "another backbone") {
		t.Errorf("wrong backbone: exit %d: %s", code, stderr)
	}
}

// TestSentryPairEndToEnd trains a pair logic head with the test-tiny backbone, gates with it
// and checks that export refuses it with a clear error.
func TestSentryPairEndToEnd(t *testing.T) {
	tr := trainTinySentry(t, "--logic", "pair", "--pair-hidden", "8")
	env, dir, out := tr.env, tr.dir, tr.out
	if tr.sum.Logic != gate.LogicPair {
		t.Fatalf("train summary %q", tr.stdout)
	}
	ck := filepath.Join(out, sentry.BestFile)
	c, err := sentry.ReadCheckpoint(ck)
	if err != nil || c.Heads.LogicKind() != gate.LogicPair || c.Heads.Pair.Hidden != 8 {
		t.Fatalf("checkpoint: %v", err)
	}
	code, stdout, stderr := run(t, "sentry", env, "I live in Berlin.\tI moved to Lisbon.\n", "gate", "-c", ck, "--backbone", "test-tiny", "--json", "--no-cache")
	var g gateOutput
	if code != 0 || json.Unmarshal([]byte(stdout), &g) != nil || g.B <= -1 || g.B >= 1 {
		t.Errorf("gate: exit %d: %q %s", code, stdout, stderr)
	}
	if code, _, stderr := run(t, "sentry", env, "", "export", "-c", ck, "--out", filepath.Join(dir, "heads.onnx")); code == 0 || !strings.Contains(stderr, "pair logic head") {
		t.Errorf("export of a pair head: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "heads.onnx")); err == nil {
		t.Error("a refused export wrote its file")
	}
}
