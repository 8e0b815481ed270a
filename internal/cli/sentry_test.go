package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry"
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
	_, err = parseGateLines([]string{"no tab here", `{"old":"a"}`, `{"old":"a","new":"b","x":1}`})
	for _, w := range []string{"line 1", "line 2: both", "line 3"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
}

// TestSentryEndToEnd trains on a small generated dataset with the test-tiny backbone, then
// evaluates, calibrates, gates and exports through the command tree.
func TestSentryEndToEnd(t *testing.T) {
	cache := testTinyCache(t)
	env := map[string]string{"ATMA_CACHE": cache}
	dir := t.TempDir()
	ds, out := filepath.Join(dir, "data"), filepath.Join(dir, "ck")
	if code, _, stderr := run(t, "atma", nil, "", "data", "generate", "--out", ds, "--profiles", "10", "--interactions", "280"); code != 0 {
		t.Fatal(stderr)
	}
	common := []string{"--backbone", "test-tiny", "--data", ds, "--no-cache"}
	code, stdout, stderr := run(t, "sentry", env, "", append([]string{"train", "--out", out, "--epochs", "2", "--hidden", "32", "--out-dim", "16", "--json"}, common...)...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	var sum sentrySummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Backbone.ID != "test-tiny" || len(sum.Rows) != 2 || sum.Rows[0].Eval.N == 0 {
		t.Fatalf("train summary %q: %v", stdout, err)
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
	code, stdout, stderr = run(t, "sentry", env, "I live in Berlin.\tI moved to Lisbon.\n", "gate", "-c", ck, "--backbone", "test-tiny", "--json", "--no-cache")
	var g gateOutput
	if code != 0 || json.Unmarshal([]byte(stdout), &g) != nil || g.Old != "I live in Berlin." || g.A < -1.0001 || g.A > 1.0001 {
		t.Errorf("gate: exit %d: %q %s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, "sentry", env, "", "export", "-c", ck, "--out", filepath.Join(dir, "heads.onnx")); code != 0 || !strings.Contains(stdout, "verified") {
		t.Errorf("export: exit %d: %s %s", code, stdout, stderr)
	}
	// A checkpoint from another backbone is refused with a clear error.
	if code, _, stderr := run(t, "sentry", env, "a\tb\n", "gate", "-c", ck, "--backbone", "use-lite", "--no-cache"); code != ExitFailure || !strings.Contains(stderr, "another backbone") {
		t.Errorf("wrong backbone: exit %d: %s", code, stderr)
	}
}
