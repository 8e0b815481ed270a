package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string // substrings of the error, all of them; none means valid
	}{
		{name: "minimal", cfg: Config{BaseURL: "http://localhost:8000/v1", Model: "m"}},
		{name: "zero reports everything", cfg: Config{}, want: []string{"base URL is required", "model is required"}},
		{name: "bad scheme", cfg: Config{BaseURL: "ftp://h/v1", Model: "m"}, want: []string{"scheme must be http or https"}},
		{name: "no host", cfg: Config{BaseURL: "http:///v1", Model: "m"}, want: []string{"host is missing"}},
		{name: "query", cfg: Config{BaseURL: "http://h/v1?x=1", Model: "m"}, want: []string{"query or fragment"}},
		{name: "negatives", cfg: Config{BaseURL: "http://h", Model: "m", Timeout: -1, Concurrency: -1, MaxBackoff: -1, MaxRetryAfter: -1},
			want: []string{"timeout", "concurrency", "max backoff", "max retry-after"}},
		{name: "negative retries mean none", cfg: Config{BaseURL: "http://h", Model: "m", MaxRetries: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				if _, err := New(tt.cfg); err != nil {
					t.Fatalf("New = %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if _, err := New(tt.cfg); err == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
}

func TestAPIRoot(t *testing.T) {
	tests := map[string]string{
		"http://localhost:11434":           "http://localhost:11434/v1",
		"http://localhost:11434/":          "http://localhost:11434/v1",
		"http://localhost:8000/v1":         "http://localhost:8000/v1",
		"http://localhost:8000/v1/":        "http://localhost:8000/v1",
		"https://example.com/v1beta/proxy": "https://example.com/v1beta/proxy",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := apiRoot(in); got != want {
				t.Fatalf("apiRoot(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestRequestValidate(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "hi"}}
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{name: "minimal", req: Request{Messages: msgs}},
		{name: "full", req: Request{Messages: msgs, N: 4, Temperature: ptr(0.7), TopP: ptr(0.9), MaxTokens: 64, Seed: ptr(int64(7)),
			Stop: []string{"\n"}, Logprobs: true, TopLogprobs: 5, JSONSchema: &Schema{Name: "verdict", Schema: json.RawMessage(`{"type":"object"}`), Strict: true}}},
		{name: "empty", req: Request{}, want: []string{"at least one message"}},
		{name: "everything wrong", req: Request{Messages: []Message{{Content: "x"}}, N: -1, Temperature: ptr(-1.0), TopP: ptr(0.0), MaxTokens: -1, TopLogprobs: 3,
			JSONSchema: &Schema{Name: "bad name", Schema: json.RawMessage(`[1]`)}},
			want: []string{"role is empty", "n -1", "temperature", "top_p", "max_tokens", "top_logprobs needs logprobs", "json schema name", "not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEncodeRequest(t *testing.T) {
	req := Request{
		Messages:    []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}},
		Temperature: ptr(0.0), MaxTokens: 32, Seed: ptr(int64(100)), Stop: []string{"###"},
		Logprobs: true, TopLogprobs: 3,
		JSONSchema: &Schema{Name: "v", Schema: json.RawMessage(`{"type":"object"}`), Strict: true},
	}
	tests := []struct {
		name   string
		req    Request
		n      int
		off    int64
		mct    bool
		want   map[string]string // field -> JSON
		absent []string
	}{
		{name: "one choice omits n", req: req, n: 1, want: map[string]string{
			"model": `"m"`, "temperature": `0`, "max_tokens": `32`, "seed": `100`, "stop": `["###"]`, "logprobs": `true`,
			"top_logprobs": `3`, "stream": `false`,
			"response_format": `{"type":"json_schema","json_schema":{"name":"v","schema":{"type":"object"},"strict":true}}`,
		}, absent: []string{"n", "top_p", "max_completion_tokens"}},
		{name: "split sub-request", req: req, n: 4, off: 8, want: map[string]string{"n": `4`, "seed": `108`}},
		{name: "max_completion_tokens", req: req, n: 1, mct: true, want: map[string]string{"max_completion_tokens": `32`}, absent: []string{"max_tokens"}},
		{name: "defaults left to server", req: Request{Messages: req.Messages}, n: 1, want: map[string]string{"stream": `false`},
			absent: []string{"temperature", "seed", "logprobs", "top_logprobs", "response_format", "max_tokens", "stop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := encodeRequest("m", tt.req, tt.n, tt.off, tt.mct)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if string(got[k]) != v {
					t.Errorf("%s = %s, want %s", k, got[k], v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := got[k]; ok {
					t.Errorf("%s present (%s), want absent", k, got[k])
				}
			}
		})
	}
}

// durationIn is a closed range a recorded wait must fall in.
type durationIn struct{ lo, hi time.Duration }

func TestChatErrorsAndRetries(t *testing.T) {
	ok := reply{body: testdata(t, "openai_chat_logprobs.json")}
	status := func(code int, file string, header ...string) reply {
		r := reply{status: code, body: testdata(t, file)}
		if len(header) == 2 {
			r.header = map[string]string{header[0]: header[1]}
		}
		if strings.HasSuffix(file, ".html") {
			r.header = map[string]string{"Content-Type": "text/html"}
		}
		return r
	}
	user := []Message{{Role: "user", Content: "hi"}}
	tests := []struct {
		name       string
		cfg        func(*Config)
		req        Request
		replies    []reply // reply to request i; the last one repeats
		wantErr    error   // nil: success
		wantStatus int     // when the error is an *APIError
		errHas     string
		attempts   int // requests the server saw
		waits      []durationIn
	}{
		{name: "success", replies: []reply{ok}, attempts: 1},
		{name: "429 with Retry-After then success", replies: []reply{status(429, "openai_429.json", "Retry-After", "2"), ok},
			attempts: 2, waits: []durationIn{{2 * time.Second, 2200 * time.Millisecond}}},
		{name: "429 with Retry-After-Ms then success", replies: []reply{status(429, "openai_429.json", "Retry-After-Ms", "222"), ok},
			attempts: 2, waits: []durationIn{{222 * time.Millisecond, 245 * time.Millisecond}}},
		{name: "429 asking for longer than MaxRetryAfter", cfg: func(c *Config) { c.MaxRetryAfter = time.Second },
			replies: []reply{status(429, "openai_429.json", "Retry-After", "30"), ok}, wantStatus: 429, errHas: "Rate limit reached", attempts: 1},
		{name: "429 out of quota is final", replies: []reply{status(429, "openai_429_quota.json"), ok}, wantStatus: 429, errHas: "quota", attempts: 1},
		{name: "500 then success", replies: []reply{status(500, "vllm_500.json"), ok}, attempts: 2,
			waits: []durationIn{{baseBackoff / 2, baseBackoff}}},
		{name: "408 then success", replies: []reply{status(408, "fastapi_404.json"), ok}, attempts: 2, waits: []durationIn{{baseBackoff / 2, baseBackoff}}},
		{name: "503 exhausts retries", cfg: func(c *Config) { c.MaxRetries = 2 }, replies: []reply{status(503, "openai_503.json")},
			wantStatus: 503, errHas: "gave up after 3 attempts", attempts: 3,
			waits: []durationIn{{baseBackoff / 2, baseBackoff}, {baseBackoff, 2 * baseBackoff}}},
		{name: "backoff capped by MaxBackoff", cfg: func(c *Config) { c.MaxRetries = 4; c.MaxBackoff = 600 * time.Millisecond },
			replies: []reply{status(503, "openai_503.json")}, wantStatus: 503, attempts: 5,
			waits: []durationIn{{250 * time.Millisecond, 500 * time.Millisecond}, {300 * time.Millisecond, 600 * time.Millisecond},
				{300 * time.Millisecond, 600 * time.Millisecond}, {300 * time.Millisecond, 600 * time.Millisecond}}},
		{name: "HTML 502 page", cfg: func(c *Config) { c.MaxRetries = 1 }, replies: []reply{status(502, "nginx_502.html")},
			wantErr: ErrBadResponse, wantStatus: 502, errHas: "502 Bad Gateway", attempts: 2, waits: []durationIn{{baseBackoff / 2, baseBackoff}}},
		{name: "HTML 200 page", replies: []reply{status(200, "webui_200.html")}, wantErr: ErrBadResponse, errHas: "base URL", attempts: 1},
		{name: "truncated JSON is not retried", replies: []reply{status(200, "truncated.json"), ok}, wantErr: ErrBadResponse,
			errHas: "invalid JSON", attempts: 1},
		{name: "missing choices", replies: []reply{status(200, "missing_choices.json")}, wantErr: ErrBadResponse, errHas: "no choices", attempts: 1},
		{name: "logprobs dropped by the server", req: Request{Messages: user, Logprobs: true}, replies: []reply{status(200, "ollama_chat.json")},
			wantErr: ErrBadResponse, errHas: "logprobs were requested", attempts: 1},
		{name: "vLLM unknown model", replies: []reply{status(404, "vllm_404_model.json"), ok}, wantErr: ErrModelNotFound, wantStatus: 404, attempts: 1},
		{name: "Ollama unknown model", replies: []reply{status(404, "ollama_404_model.json"), ok}, wantErr: ErrModelNotFound, wantStatus: 404, attempts: 1},
		{name: "OpenAI unknown model", replies: []reply{status(404, "openai_404_model.json"), ok}, wantErr: ErrModelNotFound, wantStatus: 404, attempts: 1},
		{name: "wrong path", replies: []reply{status(404, "fastapi_404.json"), ok}, wantStatus: 404, errHas: "base URL", attempts: 1},
		{name: "vLLM context length", replies: []reply{status(400, "vllm_400_context.json"), ok}, wantErr: ErrContextLength, wantStatus: 400, attempts: 1},
		{name: "OpenAI context length", replies: []reply{status(400, "openai_400_context.json"), ok}, wantErr: ErrContextLength, wantStatus: 400, attempts: 1},
		{name: "llama-server context length", replies: []reply{status(400, "llamacpp_400_context.json"), ok}, wantErr: ErrContextLength, wantStatus: 400, attempts: 1},
		{name: "llama-server context length as 500", replies: []reply{status(500, "llamacpp_500_context.json"), ok}, wantErr: ErrContextLength, wantStatus: 500, attempts: 1},
		{name: "Ollama context length", replies: []reply{status(400, "ollama_400_context.json"), ok}, wantErr: ErrContextLength, wantStatus: 400, attempts: 1},
		{name: "other 400 is final", replies: []reply{status(400, "vllm_400_bad_param.json"), ok}, wantStatus: 400, errHas: "top_logprobs", attempts: 1},
		{name: "connection closed then success", replies: []reply{{hijack: true}, ok}, attempts: 2, waits: []durationIn{{baseBackoff / 2, baseBackoff}}},
		{name: "connection closed every time", cfg: func(c *Config) { c.MaxRetries = 2 }, replies: []reply{{hijack: true}},
			wantErr: ErrUnreachable, errHas: "3 attempts", attempts: 3,
			waits: []durationIn{{baseBackoff / 2, baseBackoff}, {baseBackoff, 2 * baseBackoff}}},
		{name: "no retries", cfg: func(c *Config) { c.MaxRetries = -1 }, replies: []reply{status(503, "openai_503.json"), ok}, wantStatus: 503, attempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(i int, _ seen) reply { return tt.replies[min(i, len(tt.replies)-1)] })
			c, sl := newTestClient(t, f.URL, tt.cfg)
			req := tt.req
			if req.Messages == nil {
				req.Messages = user
			}
			resp, err := c.Chat(t.Context(), req)
			if got := len(f.requests()); got != tt.attempts {
				t.Errorf("server saw %d requests, want %d", got, tt.attempts)
			}
			waits := sl.waits()
			if len(waits) != len(tt.waits) {
				t.Errorf("waited %v, want %d waits", waits, len(tt.waits))
			} else {
				for i, w := range tt.waits {
					if waits[i] < w.lo || waits[i] > w.hi {
						t.Errorf("wait %d = %s, want in [%s, %s]", i, waits[i], w.lo, w.hi)
					}
				}
			}
			if tt.wantErr == nil && tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("Chat: %v", err)
				}
				if len(resp.Choices) != 1 || resp.Choices[0].Content == "" || resp.Attempts != tt.attempts || resp.Requests != 1 {
					t.Fatalf("response %+v", resp)
				}
				return
			}
			if err == nil {
				t.Fatal("Chat succeeded, want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			var ae *APIError
			if tt.wantStatus != 0 && (!errors.As(err, &ae) || ae.StatusCode != tt.wantStatus) {
				t.Errorf("err = %v, want an *APIError with status %d", err, tt.wantStatus)
			}
			if !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("err %q does not say %q", err, tt.errHas)
			}
			if errors.Is(err, ErrBadResponse) && !strings.Contains(err.Error(), "body starts") && ae == nil {
				t.Errorf("bad-response error %q does not show the body", err)
			}
		})
	}
}

func TestChatJitterIsSeeded(t *testing.T) {
	run := func() []time.Duration {
		f := newFake(t, func(int, seen) reply { return reply{status: 503, body: testdata(t, "openai_503.json")} })
		c, sl := newTestClient(t, f.URL, func(c *Config) { c.MaxRetries = 3 })
		if _, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: "user", Content: "x"}}}); err == nil {
			t.Fatal("want an error")
		}
		return sl.waits()
	}
	a, b := run(), run()
	if len(a) != 3 || !slices.Equal(a, b) {
		t.Fatalf("waits %v and %v, want the same 3 waits from the same seed", a, b)
	}
}

func TestChatTimeout(t *testing.T) {
	f := newFake(t, func(int, seen) reply { return reply{block: true} })
	c, sl := newTestClient(t, f.URL, func(c *Config) { c.Timeout = 20 * time.Millisecond; c.MaxRetries = 1 })
	_, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: "user", Content: "x"}}})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if errors.Is(err, ErrUnreachable) {
		t.Errorf("a timeout is not unreachable: %v", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2 (one retry)", n)
	}
	if len(sl.waits()) != 1 {
		t.Errorf("waits %v, want one", sl.waits())
	}
}

func TestChatCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	f := newFake(t, func(int, seen) reply {
		started <- struct{}{}
		return reply{block: true}
	})
	c, sl := newTestClient(t, f.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, err := c.Chat(ctx, Request{Messages: []Message{{Role: "user", Content: "x"}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1: a cancelled call is not retried", n)
	}
	if len(sl.waits()) != 0 {
		t.Errorf("waited %v after cancellation", sl.waits())
	}
}

func TestChatCancelledBeforeStart(t *testing.T) {
	f := newFake(t, func(int, seen) reply { return reply{body: testdata(t, "ollama_chat.json")} })
	c, _ := newTestClient(t, f.URL, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Chat(ctx, Request{Messages: []Message{{Role: "user", Content: "x"}}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := c.Models(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Models err = %v, want context.Canceled", err)
	}
}

func TestChatUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	c, sl := newTestClient(t, url, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: "user", Content: "x"}}})
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), url) {
		t.Errorf("err %q does not name the URL", err)
	}
	if len(sl.waits()) != 2 {
		t.Errorf("waits %v, want 2 retries", sl.waits())
	}
}

func TestChatSendsAuthAndModel(t *testing.T) {
	tests := []struct {
		name, key, wantAuth string
	}{
		{name: "with key", key: "sk-test", wantAuth: "Bearer sk-test"},
		{name: "without key", key: "", wantAuth: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(int, seen) reply { return reply{body: testdata(t, "ollama_chat.json")} })
			c, _ := newTestClient(t, f.URL, func(c *Config) { c.APIKey = tt.key; c.BaseURL = f.URL })
			resp, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: "user", Content: "x"}}})
			if err != nil {
				t.Fatal(err)
			}
			s := f.requests()[0]
			if s.auth != tt.wantAuth || s.path != "/v1/chat/completions" || s.method != http.MethodPost || s.req.Model != "test-model" {
				t.Fatalf("server saw %s %s auth %q model %q", s.method, s.path, s.auth, s.req.Model)
			}
			if resp.Model != "llama3.2:1b" {
				t.Errorf("model %q, want the server's", resp.Model)
			}
		})
	}
}

// TestChatQuirks runs the n-handling against fakes that behave like the
// servers in the package doc's table.
func TestChatQuirks(t *testing.T) {
	vllm := testdata(t, "vllm_chat_n2_logprobs.json")
	ollama := testdata(t, "ollama_chat.json")
	llama := testdata(t, "llamacpp_chat_n2_logprobs.json")
	nslots := testdata(t, "llamacpp_400_nslots.json")
	nfield := testdata(t, "llamacpp_400_nfield.json")

	// honours n; usage summed over choices.
	honours := func(_ int, s seen) reply {
		n := requestedN(s)
		return reply{body: withChoices(t, vllm, n, seedTag(s), &wireUsage{27, 5 * n, 27 + 5*n})}
	}
	// Ollama: one choice whatever n says.
	ignores := func(_ int, s seen) reply {
		return reply{body: withChoices(t, ollama, 1, seedTag(s), nil)}
	}
	// llama-server with 4 slots: 400 above that; usage counts one choice.
	slots4 := func(_ int, s seen) reply {
		n := requestedN(s)
		if n > 4 {
			return reply{status: 400, body: nslots}
		}
		return reply{body: withChoices(t, llama, n, seedTag(s), nil)}
	}
	// Newer llama-server words the same refusal as a field-range error.
	slots4field := func(_ int, s seen) reply {
		n := requestedN(s)
		if n > 4 {
			return reply{status: 400, body: nfield}
		}
		return reply{body: withChoices(t, llama, n, seedTag(s), nil)}
	}
	user := []Message{{Role: "user", Content: "q"}}

	tests := []struct {
		name    string
		respond func(int, seen) reply
		req     Request
		// per call: the n of each request the server saw, in order of arrival
		// for the first (sequential) request and as a multiset after that.
		wantN        [][]int
		wantSeeds    []int64 // of successful requests, sorted, per call
		wantUsage    Usage
		wantCounted  Usage
		wantRequests int
		wantAttempts int
	}{
		{
			name: "vLLM honours n", respond: honours, req: Request{Messages: user, N: 4, Seed: ptr(int64(10)), Logprobs: true},
			wantN: [][]int{{4}, {4}}, wantSeeds: []int64{10},
			wantUsage: Usage{27, 20, 47}, wantCounted: Usage{27, 20, 47}, wantRequests: 1, wantAttempts: 1,
		},
		{
			name: "Ollama ignores n", respond: ignores, req: Request{Messages: user, N: 4, Seed: ptr(int64(10))},
			// first call learns: n=4 gives one choice, then three n=1 requests;
			// the second call goes straight to four n=1 requests.
			wantN: [][]int{{4, 1, 1, 1}, {1, 1, 1, 1}}, wantSeeds: []int64{10, 11, 12, 13},
			wantUsage: Usage{4 * 31, 4 * 8, 4 * 39}, wantCounted: Usage{31, 4 * 8, 31 + 4*8}, wantRequests: 4,
		},
		{
			name: "llama-server caps n at its slots", respond: slots4, req: Request{Messages: user, N: 10, Seed: ptr(int64(0)), Logprobs: true},
			// 10 refused, 5 refused, 2 accepted; then 2+2+2+2.
			wantN: [][]int{{10, 5, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2}}, wantSeeds: []int64{0, 2, 4, 6, 8},
			// each response reports 2 completion tokens (one choice's worth);
			// logprobs show 2 tokens per choice ("Yes." replicated).
			wantUsage: Usage{5 * 24, 5 * 2, 5 * 26}, wantCounted: Usage{24, 10 * 2, 24 + 20}, wantRequests: 5,
		},
		{
			name: "newer llama-server caps n with a field error", respond: slots4field, req: Request{Messages: user, N: 10, Seed: ptr(int64(0)), Logprobs: true},
			wantN: [][]int{{10, 5, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2}}, wantSeeds: []int64{0, 2, 4, 6, 8},
			wantUsage: Usage{5 * 24, 5 * 2, 5 * 26}, wantCounted: Usage{24, 10 * 2, 24 + 20}, wantRequests: 5,
		},
		{
			name: "llama-server usage not summed over choices", respond: slots4, req: Request{Messages: user, N: 2, Logprobs: true},
			wantN: [][]int{{2}, {2}}, wantSeeds: nil,
			wantUsage: Usage{24, 2, 26}, wantCounted: Usage{24, 4, 28}, wantRequests: 1, wantAttempts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.respond)
			c, _ := newTestClient(t, f.URL, nil)
			before := 0
			for call, wantN := range tt.wantN {
				resp, err := c.Chat(t.Context(), tt.req)
				if err != nil {
					t.Fatalf("call %d: %v", call, err)
				}
				reqs := f.requests()[before:]
				before += len(reqs)
				var gotN []int
				var seeds []int64
				for _, s := range reqs {
					gotN = append(gotN, requestedN(s))
					if s.req.Seed != nil && !isRefused(tt.respond, s) {
						seeds = append(seeds, *s.req.Seed)
					}
				}
				if !sameHeadThenMultiset(gotN, wantN) {
					t.Errorf("call %d: server saw n = %v, want %v", call, gotN, wantN)
				}
				if len(resp.Choices) != tt.req.N {
					t.Fatalf("call %d: %d choices, want %d", call, len(resp.Choices), tt.req.N)
				}
				contents := map[string]bool{}
				for i, ch := range resp.Choices {
					if ch.Index != i {
						t.Errorf("call %d: choice %d has index %d", call, i, ch.Index)
					}
					contents[ch.Content] = true
				}
				if tt.req.Seed != nil && len(contents) != len(resp.Choices) {
					t.Errorf("call %d: choices repeat (same seed and index): %v", call, contents)
				}
				slices.Sort(seeds)
				if tt.wantSeeds != nil && !slices.Equal(seeds, tt.wantSeeds) {
					t.Errorf("call %d: seeds %v, want %v", call, seeds, tt.wantSeeds)
				}
				if call > 0 {
					continue // usage and counts are checked on the first call
				}
				if resp.Usage != tt.wantUsage || resp.Counted != tt.wantCounted {
					t.Errorf("usage %+v counted %+v, want %+v %+v", resp.Usage, resp.Counted, tt.wantUsage, tt.wantCounted)
				}
				wantAttempts := tt.wantAttempts
				if wantAttempts == 0 {
					wantAttempts = len(tt.wantN[0])
				}
				if resp.Requests != tt.wantRequests || resp.Attempts != wantAttempts {
					t.Errorf("requests %d attempts %d, want %d %d", resp.Requests, resp.Attempts, tt.wantRequests, wantAttempts)
				}
			}
		})
	}
}

// isRefused reports whether respond refuses the request (so its seed was not
// used for any choice).
func isRefused(respond func(int, seen) reply, s seen) bool {
	return respond(0, s).status >= 400
}

// sameHeadThenMultiset compares the first element exactly (a call's first
// request goes out alone) and the whole as multisets (later requests run
// concurrently, so their order of arrival is not fixed).
func sameHeadThenMultiset(got, want []int) bool {
	if len(got) != len(want) {
		return false
	}
	a, b := slices.Clone(got), slices.Clone(want)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b) && got[0] == want[0]
}

func TestChatMaxCompletionTokens(t *testing.T) {
	refuse := testdata(t, "openai_400_max_tokens.json")
	ok := testdata(t, "openai_chat_logprobs.json")
	f := newFake(t, func(_ int, s seen) reply {
		if _, has := s.raw["max_tokens"]; has {
			return reply{status: 400, body: refuse}
		}
		return reply{body: ok}
	})
	c, _ := newTestClient(t, f.URL, nil)
	req := Request{Messages: []Message{{Role: "user", Content: "x"}}, MaxTokens: 16}
	for call := range 2 {
		if _, err := c.Chat(t.Context(), req); err != nil {
			t.Fatalf("call %d: %v", call, err)
		}
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3 (refused, retried, then direct)", len(reqs))
	}
	for i, s := range reqs[1:] {
		if string(s.raw["max_completion_tokens"]) != "16" {
			t.Errorf("request %d: max_completion_tokens = %s, want 16", i+1, s.raw["max_completion_tokens"])
		}
	}
}

func TestChatSubRequestFailure(t *testing.T) {
	// Ollama-like server whose third request fails with a final error: the
	// call fails with that error, not with the cancellation of its siblings.
	ollama := testdata(t, "ollama_chat.json")
	ctxErr := testdata(t, "ollama_400_context.json")
	f := newFake(t, func(i int, s seen) reply {
		if i == 2 {
			return reply{status: 400, body: ctxErr}
		}
		return reply{body: withChoices(t, ollama, 1, fmt.Sprint(i), nil)}
	})
	c, _ := newTestClient(t, f.URL, func(c *Config) { c.Concurrency = 1 })
	_, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: "user", Content: "x"}}, N: 4})
	if !errors.Is(err, ErrContextLength) {
		t.Fatalf("err = %v, want ErrContextLength", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("err %v reports a sibling's cancellation", err)
	}
}

func TestChatInvalidRequest(t *testing.T) {
	f := newFake(t, func(int, seen) reply { return reply{body: testdata(t, "ollama_chat.json")} })
	c, _ := newTestClient(t, f.URL, nil)
	if _, err := c.Chat(t.Context(), Request{}); err == nil || !strings.Contains(err.Error(), "at least one message") {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("an invalid request reached the server (%d requests)", n)
	}
}

// TestChatConcurrencyLimit counts requests in flight on the server side. The
// server holds every request and lets one go only when each outstanding
// request is either held by it or waiting for a slot in the client, so the
// first burst is seen whole: a client over the limit shows a peak above it,
// one under the limit a peak below it. Nothing is timed.
func TestChatConcurrencyLimit(t *testing.T) {
	const limit, n = 3, 8
	ollama := testdata(t, "ollama_chat.json")
	release := make(chan struct{})
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	var (
		mu       sync.Mutex
		gate     bool // hold requests only during the measured call
		inFlight int  // held by the server
		waiting  int  // waiting for a slot in the client
		peak     int
	)
	f := newFake(t, func(i int, s seen) reply {
		mu.Lock()
		held := gate
		if held {
			inFlight++
			peak = max(peak, inFlight)
		}
		mu.Unlock()
		if held {
			notify()
			<-release
			mu.Lock()
			inFlight-- // before answering, so the client's next request cannot overlap it
			mu.Unlock()
			notify()
		}
		return reply{body: withChoices(t, ollama, 1, fmt.Sprint(i), nil)}
	})
	c, _ := newTestClient(t, f.URL, func(c *Config) { c.Concurrency = limit })
	c.semWait = func(delta int) {
		mu.Lock()
		waiting += delta
		mu.Unlock()
		notify()
	}
	req := Request{Messages: []Message{{Role: "user", Content: "x"}}, N: 2}
	// Teach the client that the server ignores n, so the measured call
	// issues all its requests in one concurrent round.
	if _, err := c.Chat(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	gate = true
	mu.Unlock()

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // guards against a hang only
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req.N = n
		_, err := c.Chat(ctx, req)
		done <- err
	}()
	for released := 0; released < n; {
		mu.Lock()
		stalled := inFlight > 0 && inFlight+waiting == n-released
		mu.Unlock()
		if stalled {
			release <- struct{}{}
			released++
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("stuck after %d releases", released)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if peak != limit {
		t.Fatalf("peak in flight %d, want %d", peak, limit)
	}
}

func TestModels(t *testing.T) {
	tests := []struct {
		name    string
		rep     reply
		want    []string
		wantErr error
	}{
		{name: "vLLM", rep: reply{body: testdata(t, "models_vllm.json")}, want: []string{"Qwen/Qwen2.5-1.5B-Instruct"}},
		{name: "Ollama", rep: reply{body: testdata(t, "models_ollama.json")}, want: []string{"llama3.2:1b", "qwen3:0.6b"}},
		{name: "llama-server", rep: reply{body: testdata(t, "models_llamacpp.json")}, want: []string{"qwen2.5-1.5b-instruct-q4_k_m.gguf"}},
		{name: "HTML", rep: reply{body: testdata(t, "webui_200.html")}, wantErr: ErrBadResponse},
		{name: "401", rep: reply{status: 401, body: []byte(`{"error":{"message":"Incorrect API key provided: sk-x.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(int, seen) reply { return tt.rep })
			c, _ := newTestClient(t, f.URL, nil)
			got, err := c.Models(t.Context())
			if s := f.requests()[0]; s.method != http.MethodGet || s.path != "/v1/models" {
				t.Errorf("server saw %s %s", s.method, s.path)
			}
			if tt.rep.status >= 400 {
				var ae *APIError
				if !errors.As(err, &ae) || ae.StatusCode != tt.rep.status || ae.Code != "invalid_api_key" || ae.Retryable {
					t.Fatalf("err = %#v", err)
				}
				return
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Models = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestSeedAllocator(t *testing.T) {
	s := seedAllocator{used: map[int64]bool{}}
	got := []int64{s.alloc(0), s.alloc(4), s.alloc(1), s.alloc(4), s.alloc(0)}
	want := []int64{0, 4, 1, 5, 6}
	if !slices.Equal(got, want) {
		t.Fatalf("alloc = %v, want %v", got, want)
	}
}

func BenchmarkChat(b *testing.B) {
	canned := testdata(b, "vllm_chat_n2_logprobs.json")
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			body := withChoices(b, canned, n, "bench", &wireUsage{27, 5 * n, 27 + 5*n})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			c, _ := newTestClient(b, srv.URL, nil)
			req := Request{Messages: []Message{{Role: "user", Content: "What is 2+2?"}}, N: n, Logprobs: true, TopLogprobs: 2}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Chat(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/request")
		})
	}
}
