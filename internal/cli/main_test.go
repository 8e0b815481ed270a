package cli

import (
	"github.com/atma-dev/atma/internal/orttest"

	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes a binary's tree in-process and returns its exit code and streams.
func run(t *testing.T, bin string, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(t.Context(), bin, args, IO{
		In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut,
		Getenv: func(k string) string { return env[k] },
	})
	return code, out.String(), errOut.String()
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name     string
		bin      string
		args     []string
		want     int
		wantErr  string
		wantOut  string
		noStdout bool
	}{
		{name: "help", bin: "atma", args: []string{"--help"}, want: ExitOK, wantOut: "embed"},
		{name: "unknown command", bin: "atma", args: []string{"frobnicate"}, want: ExitUsage, wantErr: "unknown command"},
		{name: "unknown flag", bin: "atma", args: []string{"version", "--nope"}, want: ExitUsage, wantErr: "unknown flag"},
		{name: "extra argument", bin: "atma", args: []string{"version", "x"}, want: ExitUsage},
		{name: "embed bad format", bin: "atma", args: []string{"embed", "--format", "xml", "a"}, want: ExitUsage, wantErr: "--format"},
		{name: "embed no texts", bin: "atma", args: []string{"embed"}, want: ExitUsage, wantErr: "no texts"},
		{name: "embed args and file", bin: "atma", args: []string{"embed", "-f", "x.txt", "a"}, want: ExitUsage, wantErr: "not both"},
		{name: "embed bad provider", bin: "atma", args: []string{"embed", "--provider", "tpu", "a"}, want: ExitUsage, wantErr: "tpu"},
		{name: "embed unknown backbone", bin: "atma", args: []string{"embed", "--backbone", "/nope/manifest.json", "a"}, want: ExitFailure, wantErr: "unknown backbone"},
		{name: "sentry help", bin: "sentry", args: []string{"--help"}, want: ExitOK, wantOut: "version"},
		{name: "judge version", bin: "judge", args: []string{"version"}, want: ExitOK, wantOut: "judge dev"},
		{name: "sentry unknown verb", bin: "sentry", args: []string{"frobnicate"}, want: ExitUsage, wantErr: "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.bin, map[string]string{"ATMA_CACHE": t.TempDir()}, "", tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.want, out, errOut)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr %q does not mention %q", errOut, tt.wantErr)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q does not mention %q", out, tt.wantOut)
			}
		})
	}
	if code := Main(context.Background(), "nope", nil, IO{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}); code != ExitFailure {
		t.Errorf("unknown binary: exit %d", code)
	}
}

func TestVersionJSON(t *testing.T) {
	code, out, _ := run(t, "atma", nil, "", "version", "--json")
	var v versionInfo
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Version == "" || v.Go == "" {
		t.Fatalf("exit %d, output %q", code, out)
	}
}

func TestEveryCommandHasHelpAndExample(t *testing.T) {
	for _, bin := range []string{"atma", "sentry", "judge"} {
		f := &Factory{IO: IO{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
		root, err := newRoot(f, bin, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range root.Commands() {
			stack := append(c.Commands(), c)
			for len(stack) > 0 {
				cmd := stack[len(stack)-1]
				stack = append(stack[:len(stack)-1], cmd.Commands()...)
				if cmd.Name() == "help" || cmd.Name() == "completion" {
					continue
				}
				if cmd.Short == "" {
					t.Errorf("%s %s has no short help", bin, cmd.CommandPath())
				}
				if cmd.Runnable() && cmd.Example == "" {
					t.Errorf("%s has no example", cmd.CommandPath())
				}
			}
		}
	}
}

// testTinyCache is the cache holding the test-tiny backbone that `make test` builds.
func testTinyCache(t *testing.T) string {
	t.Helper()
	cache := orttest.CacheDir()
	if _, err := os.Stat(filepath.Join(cache, "backbones", "test-tiny", "manifest.json")); err != nil {
		t.Fatalf("the test-tiny backbone is missing (%v); run: make test-backbone", err)
	}
	return cache
}
