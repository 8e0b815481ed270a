package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbedOptions(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(*testing.T, *embedOptions)
	}{
		{"defaults", []string{"a", "b"}, func(t *testing.T, o *embedOptions) {
			if len(o.Texts) != 2 || o.Format != "jsonl" || o.BatchSize != 32 || o.Provider != "auto" || o.Backbone != "" {
				t.Errorf("%+v", o)
			}
		}},
		{"all flags", []string{"--backbone", "nomic", "--task", "query", "--dim", "256", "--max-tokens", "64", "--batch", "8", "--provider", "cpu", "--threads", "2", "--ort-lib", "/x.so", "--format", "table", "-f", "in.txt"}, func(t *testing.T, o *embedOptions) {
			if o.Backbone != "nomic" || o.Task != "query" || o.Dimension != 256 || o.MaxTokens != 64 || o.BatchSize != 8 ||
				o.Provider != "cpu" || o.Threads != 2 || o.ORTLib != "/x.so" || o.Format != "table" || o.File != "in.txt" {
				t.Errorf("%+v", o)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *embedOptions
			cmd := newCmdEmbed(&Factory{}, func(_ context.Context, o *embedOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
		})
	}
}

func TestEmbedEndToEnd(t *testing.T) {
	cache := testTinyCache(t)
	env := map[string]string{"ATMA_CACHE": cache}
	t.Run("args to json lines", func(t *testing.T) {
		code, out, errOut := run(t, "atma", env, "", "embed", "--backbone", "test-tiny", "I moved to Lisbon.", "", "Where do I live?")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			var l embedLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			var norm float64
			for _, v := range l.Vector {
				norm += float64(v) * float64(v)
			}
			if l.Index != n || l.Dim != len(l.Vector) || l.Dim == 0 || math.Abs(norm-1) > 1e-5 || l.Tokens < 2 {
				t.Errorf("line %d: index %d dim %d tokens %d norm² %v", n, l.Index, l.Dim, l.Tokens, norm)
			}
			n++
		}
		if n != 3 {
			t.Errorf("%d lines, want 3", n)
		}
	})
	t.Run("stdin to table", func(t *testing.T) {
		code, out, errOut := run(t, "atma", env, "first text\r\nsecond text\n", "embed", "--backbone", "test-tiny", "--format", "table")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "COS(#0)") || !strings.Contains(out, "second text") || !strings.Contains(out, "1.000") {
			t.Errorf("table:\n%s", out)
		}
	})
	t.Run("file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "texts.txt")
		os.WriteFile(p, []byte("one\ntwo\n"), 0o644)
		code, out, errOut := run(t, "atma", env, "", "embed", "--backbone", "test-tiny", "-f", p)
		if code != 0 || strings.Count(out, "\n") != 2 {
			t.Fatalf("exit %d, %d lines: %s", code, strings.Count(out, "\n"), errOut)
		}
	})
	t.Run("invalid UTF-8 is a clear error", func(t *testing.T) {
		code, _, errOut := run(t, "atma", env, "ok\nbad \xff\n", "embed", "--backbone", "test-tiny")
		if code != ExitFailure || !strings.Contains(errOut, "text 1") || !strings.Contains(errOut, "UTF-8") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
	t.Run("missing backbone names the fix", func(t *testing.T) {
		code, _, errOut := run(t, "atma", map[string]string{"ATMA_CACHE": t.TempDir()}, "", "embed", "--backbone", "use-lite", "x")
		if code != ExitFailure || !strings.Contains(errOut, "make models") {
			t.Errorf("exit %d: %s", code, errOut)
		}
		code, _, errOut = run(t, "atma", map[string]string{"ATMA_CACHE": t.TempDir()}, "", "embed", "x")
		if code != ExitFailure || !strings.Contains(errOut, "no backbone available") || !strings.Contains(errOut, "fetch-nomic.sh") {
			t.Errorf("default: exit %d: %s", code, errOut)
		}
	})
}
