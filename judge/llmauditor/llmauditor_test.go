package llmauditor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/llm"
)

// canned is one answer of the fake endpoint: a status and a body from testdata/llm.
type canned struct {
	status int
	file   string
	ctype  string
}

// fakeEndpoint serves canned answers to POST /v1/chat/completions and records the
// requests it gets.
type fakeEndpoint struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []map[string]json.RawMessage
}

func newFakeEndpoint(t *testing.T, c canned) *fakeEndpoint {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "llm", c.file))
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeEndpoint{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req map[string]json.RawMessage
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		ct := c.ctype
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(c.status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(f.Close)
	return f
}

func newClient(t *testing.T, url string) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: url + "/v1", Model: "qwen-judge", MaxRetries: -1, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

var llmPair = judge.Pair{
	Old:    judge.Record{Text: "I work as a nurse at Riverside Hospital."},
	New:    judge.Record{Text: "I left Riverside Hospital last month and now I work as a pharmacist at Crescent Pharmacy."},
	Scores: &judge.Scores{A: 0.82, B: 0.21, Gap: 0.61},
}

func TestLLMAuditor(t *testing.T) {
	tests := []struct {
		name         string
		reply        canned
		cfg          Config
		wantSource   string
		wantFallback string // substring; "" for none
		wantParseErr bool
		wantStatus   judge.Status
		wantType     judge.ConflictType
		wantTokens   int
	}{
		{"valid answer", canned{200, "chat_valid.json", ""}, Config{}, "qwen2.5-1.5b-judge", "", false, judge.StatusConflict, judge.TypeTemporalUpdate, 508},
		{"think block in reasoning_content", canned{200, "chat_reasoning.json", ""}, Config{}, "qwen3-judge", "", false, judge.StatusConflict, judge.TypeTemporalUpdate, 508},
		{"fenced answer parsed leniently", canned{200, "chat_fenced.json", ""}, Config{}, "qwen2.5-1.5b-judge", "", true, judge.StatusConflict, judge.TypeTemporalUpdate, 508},
		{"fenced answer refused when strict", canned{200, "chat_fenced.json", ""}, Config{Strict: true}, judge.SourceRule, "answer fails the audit format", true, judge.StatusConflict, judge.TypeTemporalUpdate, 508},
		{"garbage falls back", canned{200, "chat_garbage.json", ""}, Config{}, judge.SourceRule, "unparseable answer", true, judge.StatusConflict, judge.TypeTemporalUpdate, 508},
		{"server error falls back", canned{500, "error_500.json", ""}, Config{}, judge.SourceRule, "server error 500", false, judge.StatusConflict, judge.TypeTemporalUpdate, 0},
		{"context length falls back", canned{400, "error_context.json", ""}, Config{}, judge.SourceRule, "context length", false, judge.StatusConflict, judge.TypeTemporalUpdate, 0},
		{"html page falls back", canned{200, "html_200.html", "text/html"}, Config{}, judge.SourceRule, "malformed response", false, judge.StatusConflict, judge.TypeTemporalUpdate, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeEndpoint(t, tt.reply)
			tt.cfg.Logger = quietLogger()
			a, err := New(newClient(t, srv.URL), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Audit(t.Context(), llmPair)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			if res.Source != tt.wantSource {
				t.Errorf("source %q, want %q", res.Source, tt.wantSource)
			}
			if tt.wantFallback == "" && res.Fallback != "" || !strings.Contains(res.Fallback, tt.wantFallback) {
				t.Errorf("fallback %q, want %q", res.Fallback, tt.wantFallback)
			}
			if (res.ParseError != "") != tt.wantParseErr {
				t.Errorf("parse error %q, want one: %v", res.ParseError, tt.wantParseErr)
			}
			if res.Verdict.Status != tt.wantStatus || res.Verdict.ConflictType != tt.wantType {
				t.Errorf("verdict %s/%s, want %s/%s", res.Verdict.Status, res.Verdict.ConflictType, tt.wantStatus, tt.wantType)
			}
			if err := res.Verdict.Validate(); err != nil {
				t.Errorf("invalid verdict: %v", err)
			}
			if res.Tokens != tt.wantTokens {
				t.Errorf("tokens %d, want %d", res.Tokens, tt.wantTokens)
			}
			if res.Raw == "" {
				t.Error("no raw answer")
			}
			if len(srv.reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(srv.reqs))
			}
		})
	}
}

func TestLLMAuditorRequest(t *testing.T) {
	srv := newFakeEndpoint(t, canned{200, "chat_valid.json", ""})
	seed := int64(7)
	a, err := New(newClient(t, srv.URL), Config{Schema: true, Seed: &seed, MaxTokens: 300, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Audit(t.Context(), llmPair); err != nil {
		t.Fatal(err)
	}
	req := srv.reqs[0]
	var msgs []llm.Message
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content != judge.SystemPrompt || msgs[1].Content != judge.UserPrompt(llmPair) {
		t.Errorf("messages = %+v", msgs)
	}
	for key, want := range map[string]string{"temperature": "0", "max_tokens": "300", "seed": "7"} {
		if got := string(req[key]); got != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
	var rf struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(req["response_format"], &rf); err != nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "judge_verdict" {
		t.Errorf("response_format = %s (%v)", req["response_format"], err)
	}
}

func TestLLMAuditorErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply canned
		want  error
	}{
		{"unknown model", canned{404, "error_404_model.json", ""}, llm.ErrModelNotFound},
		{"bad key", canned{401, "error_401.json", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeEndpoint(t, tt.reply)
			a, err := New(newClient(t, srv.URL), Config{Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Audit(t.Context(), llmPair)
			if err == nil {
				t.Fatal("Audit hid a configuration error behind a fallback")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v is not %v", err, tt.want)
			}
		})
	}
}

func TestLLMAuditorUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	a, err := New(newClient(t, url), Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Audit(t.Context(), llmPair)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback != "endpoint unreachable" || res.Source != judge.SourceRule {
		t.Errorf("fallback %q from %q, want the rule auditor because the endpoint is unreachable", res.Fallback, res.Source)
	}
}

func TestLLMAuditorCancelled(t *testing.T) {
	srv := newFakeEndpoint(t, canned{200, "chat_valid.json", ""})
	a, err := New(newClient(t, srv.URL), Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := a.Audit(ctx, llmPair); err == nil {
		t.Error("Audit answered on a cancelled context")
	}
}

func TestLLMAuditorCustomFallback(t *testing.T) {
	srv := newFakeEndpoint(t, canned{200, "chat_garbage.json", ""})
	calls := 0
	fb := auditFunc(func(_ context.Context, p judge.Pair) (judge.Result, error) {
		calls++
		v := judge.Verdict{Status: judge.StatusConsistent, ConflictType: judge.TypeNone, Action: judge.ActionKeep, Links: []judge.Link{}, Confidence: 0.5}
		return judge.Result{Verdict: v, Raw: judge.Render(judge.Steps{Slot: "a", Comparison: "b", ConflictType: "c", Action: "d"}, v), Source: "backup"}, nil
	})
	a, err := New(newClient(t, srv.URL), Config{Fallback: fb, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Audit(t.Context(), llmPair)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.Source != "backup" || res.Fallback == "" || res.Tokens != 508 {
		t.Errorf("calls %d, result %+v", calls, res)
	}
}

func TestLLMConfigValidate(t *testing.T) {
	neg := -1.0
	if _, err := New(nil, Config{}); err == nil {
		t.Error("New accepted a nil client")
	}
	_, err := New(auditChat{}, Config{MaxTokens: -1, Temperature: &neg})
	if err == nil || !strings.Contains(err.Error(), "max tokens -1") || !strings.Contains(err.Error(), "temperature -1") {
		t.Errorf("error = %v, want both problems", err)
	}
}

// auditChat is a Chatter that never answers.
type auditChat struct{}

func (auditChat) Chat(context.Context, llm.Request) (*llm.Response, error) {
	return nil, errors.New("unused")
}

// auditFunc is an Auditor made of a function.
type auditFunc func(ctx context.Context, p judge.Pair) (judge.Result, error)

func (f auditFunc) Audit(ctx context.Context, p judge.Pair) (judge.Result, error) { return f(ctx, p) }
