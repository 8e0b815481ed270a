package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testdata returns the bytes of llm/testdata/name.
func testdata(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatalf("read testdata: %v", err)
	}
	return b
}

// reply is what the fake server sends for one request.
type reply struct {
	status int
	header map[string]string
	body   []byte
	// hijack closes the connection without answering.
	hijack bool
	// block waits for the request's context to end without answering.
	block bool
}

// seen is one request as the fake server received it.
type seen struct {
	method, path, auth string
	req                wireRequest
	raw                map[string]json.RawMessage
}

// fakeServer is an OpenAI-compatible endpoint whose answers come from respond,
// which gets the 0-based request number and the decoded body.
type fakeServer struct {
	*httptest.Server
	respond func(i int, s seen) reply

	mu   sync.Mutex
	reqs []seen
}

func newFake(tb testing.TB, respond func(i int, s seen) reply) *fakeServer {
	tb.Helper()
	f := &fakeServer{respond: respond}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s := seen{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization")}
	if len(body) > 0 {
		_ = json.Unmarshal(body, &s.req)
		_ = json.Unmarshal(body, &s.raw)
	}
	f.mu.Lock()
	i := len(f.reqs)
	f.reqs = append(f.reqs, s)
	f.mu.Unlock()

	rep := f.respond(i, s)
	switch {
	case rep.hijack:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case rep.block:
		<-r.Context().Done()
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	status := rep.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(rep.body)
}

// requests returns a copy of what the server has seen so far.
func (f *fakeServer) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

// sleepLog records the waits a client asked for instead of waiting.
type sleepLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
	return ctx.Err()
}

func (l *sleepLog) waits() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.d...)
}

// newTestClient builds a client for url with a fixed seed, a silent logger
// and sleeps that return at once.
func newTestClient(tb testing.TB, url string, mutate func(*Config)) (*Client, *sleepLog) {
	tb.Helper()
	cfg := Config{
		BaseURL: url + "/v1",
		Model:   "test-model",
		Logger:  slog.New(slog.DiscardHandler),
		Rand:    rand.New(rand.NewPCG(1, 2)),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	log := &sleepLog{}
	c.sleep = log.sleep
	return c, log
}

// withChoices rewrites a canned chat response to carry n copies of its first
// choice, with index i and content "<tag> #i". usage, when not nil, replaces
// the canned usage.
func withChoices(tb testing.TB, canned []byte, n int, tag string, usage *wireUsage) []byte {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(canned, &m); err != nil {
		tb.Fatalf("canned body: %v", err)
	}
	first, err := json.Marshal(m["choices"].([]any)[0])
	if err != nil {
		tb.Fatal(err)
	}
	choices := make([]any, n)
	for i := range n {
		var c map[string]any
		if err := json.Unmarshal(first, &c); err != nil {
			tb.Fatal(err)
		}
		c["index"] = i
		c["message"].(map[string]any)["content"] = fmt.Sprintf("%s #%d", tag, i)
		choices[i] = c
	}
	m["choices"] = choices
	if usage != nil {
		m["usage"] = usage
	}
	out, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// requestedN is the n a request asked for (absent means 1).
func requestedN(s seen) int {
	if s.req.N == 0 {
		return 1
	}
	return s.req.N
}

func seedTag(s seen) string {
	if s.req.Seed == nil {
		return "seed=none"
	}
	return fmt.Sprintf("seed=%d", *s.req.Seed)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }

func ptr[T any](v T) *T { return &v }
