package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/overlaytest"
)

// embedFunc is an Embedder made of a function.
type embedFunc func(ctx context.Context, texts []string) ([][]float32, error)

func (f embedFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f(ctx, texts)
}

const testToken = "s3cret-token-for-tests"

// testEnv is an API over a real SQLite bank in a temporary directory.
type testEnv struct {
	t    testing.TB
	h    http.Handler
	ov   *overlay.Overlay
	log  *strings.Builder
	bank *overlay.Bank
}

// newEnv builds the API; mutate adjusts the overlay's config, apiCfg the API's.
func newEnv(t testing.TB, mutate func(*overlay.Config), apiCfg func(*Config)) *testEnv {
	t.Helper()
	return newEnvAt(t, t.TempDir(), mutate, apiCfg)
}

// newEnvAt is newEnv on the bank in data directory dir.
func newEnvAt(t testing.TB, dir string, mutate func(*overlay.Config), apiCfg func(*Config)) *testEnv {
	t.Helper()
	bank, err := overlay.OpenBank(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bank.Close() })
	logs := &strings.Builder{}
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	cfg := overlay.Config{Store: bank.Store, Host: bank.Host, Traces: bank.Traces, Embedder: overlaytest.BagEmbedder{}, Logger: logger,
		Now: func() time.Time { return time.Now() }}
	if mutate != nil {
		mutate(&cfg)
	}
	ov, err := overlay.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ac := Config{Overlay: ov, Token: testToken, Keys: bank.Keys, Logger: logger}
	if apiCfg != nil {
		apiCfg(&ac)
	}
	h, err := New(ac)
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, h: h, ov: ov, log: logs, bank: bank}
}

// lockedWriter serialises writes of concurrent requests' log lines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// req is one request to the API.
type req struct {
	method, path, body string
	token              string // "" sends testToken; "-" sends none
	contentType        string // "" sends application/json when there is a body; "-" none
}

func (e *testEnv) do(r req) *httptest.ResponseRecorder {
	e.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr := httptest.NewRequest(r.method, r.path, body)
	switch r.token {
	case "":
		hr.Header.Set("Authorization", "Bearer "+testToken)
	case "-":
	default:
		hr.Header.Set("Authorization", r.token)
	}
	switch {
	case r.contentType == "-":
	case r.contentType != "":
		hr.Header.Set("Content-Type", r.contentType)
	case r.body != "":
		hr.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, hr)
	return w
}

// call does r, checks the status and decodes the body into out (when not nil).
func (e *testEnv) call(r req, wantStatus int, out any) {
	e.t.Helper()
	w := e.do(r)
	if w.Code != wantStatus {
		e.t.Fatalf("%s %s: status %d, want %d: %s", r.method, r.path, w.Code, wantStatus, w.Body.String())
	}
	if out != nil {
		if err := json.Unmarshal(w.Body.Bytes(), out); err != nil {
			e.t.Fatalf("%s %s: decode %T: %v: %s", r.method, r.path, out, err, w.Body.String())
		}
	}
}

// add posts memories for user and returns the traces.
func (e *testEnv) add(user string, mems ...Memory) []overlay.IngestTrace {
	e.t.Helper()
	b, err := json.Marshal(AddRequest{Memories: mems})
	if err != nil {
		e.t.Fatal(err)
	}
	var resp AddResponse
	e.call(req{method: "POST", path: "/v1/users/" + user + "/memories", body: string(b)}, http.StatusOK, &resp)
	if len(resp.Traces) != len(mems) {
		e.t.Fatalf("%d traces for %d memories", len(resp.Traces), len(mems))
	}
	return resp.Traces
}

// tool executes a tool call and returns the result.
func (e *testEnv) tool(user, name string, args any) ToolResult {
	e.t.Helper()
	b, err := json.Marshal(map[string]any{"name": name, "arguments": args})
	if err != nil {
		e.t.Fatal(err)
	}
	var res ToolResult
	e.call(req{method: "POST", path: "/v1/users/" + user + "/tools/call", body: string(b)}, http.StatusOK, &res)
	return res
}

// errorOf decodes an error response.
func errorOf(t testing.TB, w *httptest.ResponseRecorder) ErrorDetail {
	t.Helper()
	var er ErrorResponse
	if err := json.Unmarshal(w.Body.Bytes(), &er); err != nil || er.Error.Code == "" {
		t.Fatalf("not an error response (%v): %d %s", err, w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("error content type %q", ct)
	}
	return er.Error
}

func at(day int) time.Time { return time.Date(2025, 1, day, 12, 0, 0, 0, time.UTC) }
