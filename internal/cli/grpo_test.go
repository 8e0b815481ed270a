package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJudgeGRPOCommand(t *testing.T) {
	if code, _, errOut := run(t, "judge", nil, "", "grpo", "--dir", t.TempDir(), "--learner", "trl"); code != ExitUsage || !strings.Contains(errOut, "only \"none\"") {
		t.Errorf("unknown learner: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "judge", nil, "", "grpo", "--dir", t.TempDir()); code != ExitUsage || !strings.Contains(errOut, "no policy endpoint") {
		t.Errorf("no endpoint: exit %d: %s", code, errOut)
	}
	p := filepath.Join(t.TempDir(), "ds.jsonl")
	code, out, errOut := run(t, "judge", nil, "", "grpo", "--export-dataset", p)
	b, _ := os.ReadFile(p)
	if code != 0 || !strings.Contains(out, "700 prompts") || strings.Count(string(b), "\n") != 700 {
		t.Errorf("export: exit %d: %s %s", code, out, errOut)
	}
	cfg := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(cfg, []byte(`{"steps": 2, "nope": 1}`), 0o644)
	if code, _, errOut := run(t, "judge", map[string]string{"ATMA_LLM_URL": "http://127.0.0.1:1/v1"}, "", "grpo", "--dir", t.TempDir(), "--config", cfg); code != ExitFailure || !strings.Contains(errOut, "nope") {
		t.Errorf("unknown config key: exit %d: %s", code, errOut)
	}
}

func TestRewardServerCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, "judge", []string{"reward-server", "--addr", addr}, IO{Out: &strings.Builder{}, ErrOut: &strings.Builder{}, Getenv: func(string) string { return "" }})
	}()
	var resp *http.Response
	for i := 0; i < 100; i++ {
		if resp, err = http.Get(fmt.Sprintf("http://%s/healthz", addr)); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("server never answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
	body := `{"query": ["prompt completion"], "prompts": ["prompt"], "labels": [""]}`
	r, err := http.Post(fmt.Sprintf("http://%s/reward", addr), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("openrlhf: %d", r.StatusCode)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("graceful stop: exit %d", code)
	}
}
