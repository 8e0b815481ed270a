package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestJudgeGRPOCommand(t *testing.T) {
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
	if err := os.WriteFile(cfg, []byte(`{"steps": 2, "nope": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "judge", map[string]string{"ATMA_LLM_URL": "http://127.0.0.1:1/v1"}, "", "grpo", "--dir", t.TempDir(), "--config", cfg); code != ExitFailure || !strings.Contains(errOut, "nope") {
		t.Errorf("unknown config key: exit %d: %s", code, errOut)
	}
}

// listenLog is the ErrOut of a command under test: it passes the address of the
// "reward server listening" log line to addr, once.
type listenLog struct {
	mu   sync.Mutex
	buf  strings.Builder
	addr chan string
	sent bool
}

var listenAddr = regexp.MustCompile(`msg="reward server listening" addr=(\S+)`)

func (l *listenLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if m := listenAddr.FindStringSubmatch(l.buf.String()); m != nil && !l.sent {
		l.sent = true
		l.addr <- m[1]
	}
	return len(p), nil
}

func (l *listenLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestRewardServerCommand starts `judge reward-server` on a port the system picks, reads
// the address from its log, scores one OpenRLHF and one TRL request with it and stops it
// by cancelling its context.
func TestRewardServerCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logs := &listenLog{addr: make(chan string, 1)}
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, "judge", []string{"reward-server", "--addr", "127.0.0.1:0"}, IO{Out: &strings.Builder{}, ErrOut: logs, Getenv: func(string) string { return "" }})
	}()
	var addr string
	select {
	case addr = <-logs.addr:
	case code := <-done:
		t.Fatalf("the server stopped with exit %d before listening: %s", code, logs)
	}
	post := func(path, body string, out any) {
		t.Helper()
		r, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		if r.StatusCode != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s: status %d, content type %q", path, r.StatusCode, r.Header.Get("Content-Type"))
		}
		if err := json.NewDecoder(r.Body).Decode(out); err != nil {
			t.Fatalf("%s: decode the answer: %v", path, err)
		}
	}
	r, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Errorf("healthz: %d", r.StatusCode)
	}
	// A completion that is no verdict at all: scored, and flagged as failed.
	var openrlhf struct {
		Rewards   []float64            `json:"rewards"`
		ExtraLogs map[string][]float64 `json:"extra_logs"`
	}
	post("/reward", `{"query": ["prompt completion"], "prompts": ["prompt"], "labels": [""]}`, &openrlhf)
	if len(openrlhf.Rewards) != 1 || len(openrlhf.ExtraLogs["failed"]) != 1 || openrlhf.ExtraLogs["failed"][0] != 1 {
		t.Errorf("openrlhf: %+v, want one reward for a failed completion", openrlhf)
	}
	var trl struct {
		Rewards []float64  `json:"rewards"`
		Flags   [][]string `json:"flags"`
	}
	post("/trl", `{"prompts": ["p", "q"], "completions": ["a", "b"]}`, &trl)
	if len(trl.Rewards) != 2 || len(trl.Flags) != 2 {
		t.Errorf("trl: %+v, want two rewards", trl)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("graceful stop: exit %d: %s", code, logs)
	}
}
