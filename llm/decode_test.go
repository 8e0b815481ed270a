package llm

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecodeChatResponse(t *testing.T) {
	type wantChoice struct {
		content, reasoning, finish string
		tokens                     int
		nLogprobs                  int
		// first logprob entry, checked when nLogprobs > 0
		firstToken string
		firstLP    float64
		firstTop   []TopLogprob
	}
	tests := []struct {
		name         string
		file         string
		wantLogprobs bool
		model        string
		usage        Usage
		choices      []wantChoice
		wantErr      error
		errHas       string
	}{
		{
			name: "vLLM n=2 chat-style logprobs", file: "vllm_chat_n2_logprobs.json", wantLogprobs: true,
			model: "Qwen/Qwen2.5-1.5B-Instruct", usage: Usage{27, 9, 36},
			choices: []wantChoice{
				{content: "The answer is 4.", finish: "stop", tokens: 5, nLogprobs: 5, firstToken: "The", firstLP: -0.3011,
					firstTop: []TopLogprob{{"The", -0.3011}, {"It", -1.3511}}},
				{content: "It's 4.", finish: "stop", tokens: 4, nLogprobs: 4, firstToken: "It", firstLP: -1.3511,
					firstTop: []TopLogprob{{"The", -0.3011}, {"It", -1.3511}}},
			},
		},
		{
			name: "OpenAI chat-style logprobs", file: "openai_chat_logprobs.json", wantLogprobs: true,
			model: "gpt-4o-mini-2024-07-18", usage: Usage{112, 6, 118},
			choices: []wantChoice{{content: `{"verdict":"correct"}`, finish: "stop", tokens: 6, nLogprobs: 6,
				firstToken: `{"`, firstLP: -0.0000017432603,
				firstTop: []TopLogprob{{`{"`, -0.0000017432603}, {"{", -13.250002}, {` {"`, -16.000002}}}},
		},
		{
			name: "llama-server n=2 with ids and bytes", file: "llamacpp_chat_n2_logprobs.json", wantLogprobs: true,
			model: "gpt-3.5-turbo", usage: Usage{24, 2, 26},
			choices: []wantChoice{
				{content: "Yes.", finish: "stop", tokens: 2, nLogprobs: 2, firstToken: "Yes", firstLP: -0.5128,
					firstTop: []TopLogprob{{"Yes", -0.5128}, {"No", -0.9128}}},
				{content: "No, never.", finish: "stop", tokens: 4, nLogprobs: 4, firstToken: "No", firstLP: -0.9128,
					firstTop: []TopLogprob{{"Yes", -0.5128}, {"No", -0.9128}}},
			},
		},
		{
			name: "legacy array logprobs, alternatives sorted", file: "legacy_logprobs.json", wantLogprobs: true,
			model: "mistral-7b-instruct", usage: Usage{18, 2, 20},
			choices: []wantChoice{{content: "Blue sky", finish: "stop", tokens: 2, nLogprobs: 2, firstToken: "Blue", firstLP: -0.7219,
				firstTop: []TopLogprob{{"Blue", -0.7219}, {"Green", -1.9219}, {"Red", -1.9219}}}},
		},
		{
			name: "Ollama single choice, tokens from usage", file: "ollama_chat.json",
			model: "llama3.2:1b", usage: Usage{31, 8, 39},
			choices: []wantChoice{{content: "Paris is the capital of France.", finish: "stop", tokens: 8}},
		},
		{
			name: "Ollama reasoning field", file: "ollama_chat_reasoning.json",
			model: "qwen3:0.6b", usage: Usage{14, 21, 35},
			choices: []wantChoice{{content: "4", reasoning: "The user asks for 2+2. That is 4.", finish: "stop", tokens: 21}},
		},
		{name: "logprobs requested, none sent", file: "ollama_chat.json", wantLogprobs: true,
			wantErr: ErrBadResponse, errHas: "logprobs were requested"},
		{name: "truncated JSON", file: "truncated.json", wantErr: ErrBadResponse, errHas: "invalid JSON"},
		{name: "missing choices", file: "missing_choices.json", wantErr: ErrBadResponse, errHas: "no choices"},
		{name: "empty choices", file: "empty_choices.json", wantErr: ErrBadResponse, errHas: "no choices"},
		{name: "choice without message", file: "choice_without_message.json", wantErr: ErrBadResponse, errHas: "choice 0 has no message"},
		{name: "HTML with 200", file: "webui_200.html", wantErr: ErrBadResponse, errHas: `title "llama.cpp - chat"`},
		{name: "200 carrying only an error object", file: "llamacpp_200_error.json", wantErr: ErrContextLength, errHas: "exceeds the available context size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := testdata(t, tt.file)
			d, err := decodeChatResponse(body, tt.wantLogprobs)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err %q does not say %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if d.Model != tt.model || d.Usage != tt.usage || !d.HasUsage {
				t.Fatalf("model %q usage %+v (has %v), want %q %+v", d.Model, d.Usage, d.HasUsage, tt.model, tt.usage)
			}
			if len(d.Choices) != len(tt.choices) {
				t.Fatalf("%d choices, want %d", len(d.Choices), len(tt.choices))
			}
			for i, w := range tt.choices {
				c := d.Choices[i]
				if c.Index != i || c.Content != w.content || c.Reasoning != w.reasoning || c.FinishReason != w.finish || c.Tokens != w.tokens {
					t.Errorf("choice %d = {%d %q %q %q tokens %d}, want {%d %q %q %q tokens %d}",
						i, c.Index, c.Content, c.Reasoning, c.FinishReason, c.Tokens, i, w.content, w.reasoning, w.finish, w.tokens)
				}
				if len(c.Logprobs) != w.nLogprobs {
					t.Fatalf("choice %d: %d logprobs, want %d", i, len(c.Logprobs), w.nLogprobs)
				}
				if w.nLogprobs == 0 {
					continue
				}
				var text strings.Builder
				for _, lp := range c.Logprobs {
					text.WriteString(lp.Token)
				}
				if text.String() != c.Content {
					t.Errorf("choice %d: tokens %q do not spell the content %q", i, text.String(), c.Content)
				}
				first := c.Logprobs[0]
				if first.Token != w.firstToken || !near(first.Logprob, w.firstLP) {
					t.Errorf("choice %d first token %q %v, want %q %v", i, first.Token, first.Logprob, w.firstToken, w.firstLP)
				}
				if len(first.Top) != len(w.firstTop) {
					t.Fatalf("choice %d: %d alternatives, want %d", i, len(first.Top), len(w.firstTop))
				}
				for j, alt := range w.firstTop {
					if first.Top[j].Token != alt.Token || !near(first.Top[j].Logprob, alt.Logprob) {
						t.Errorf("choice %d alternative %d = %+v, want %+v", i, j, first.Top[j], alt)
					}
				}
			}
		})
	}
}

func TestDecodeLogprobsShapes(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		present bool
		n       int
		errHas  string
	}{
		{name: "absent", raw: ``},
		{name: "null", raw: `null`},
		{name: "chat content null", raw: `{"content":null}`},
		{name: "chat empty", raw: `{"content":[]}`, present: true},
		{name: "chat without top", raw: `{"content":[{"token":"a","logprob":-1}]}`, present: true, n: 1},
		{name: "legacy without top", raw: `{"tokens":["a","b"],"token_logprobs":[-1,-2]}`, present: true, n: 2},
		{name: "legacy null top entry", raw: `{"tokens":["a"],"token_logprobs":[-1],"top_logprobs":[null]}`, present: true, n: 1},
		{name: "chat missing logprob", raw: `{"content":[{"token":"a"}]}`, errHas: "token or logprob missing"},
		{name: "chat alternative missing token", raw: `{"content":[{"token":"a","logprob":-1,"top_logprobs":[{"logprob":-2}]}]}`, errHas: "alternative 0"},
		{name: "legacy length mismatch", raw: `{"tokens":["a","b"],"token_logprobs":[-1]}`, errHas: "2 tokens but 1 token_logprobs"},
		{name: "legacy top mismatch", raw: `{"tokens":["a","b"],"token_logprobs":[-1,-2],"top_logprobs":[{"a":-1}]}`, errHas: "top_logprobs"},
		{name: "legacy null logprob", raw: `{"tokens":["a"],"token_logprobs":[null]}`, errHas: "null logprob"},
		{name: "unknown shape", raw: `{"probs":[]}`, errHas: "neither"},
		{name: "not an object", raw: `[1,2]`, errHas: "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lps, present, err := decodeLogprobs([]byte(tt.raw))
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want one saying %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if present != tt.present || len(lps) != tt.n {
				t.Fatalf("present %v, %d entries; want %v, %d", present, len(lps), tt.present, tt.n)
			}
		})
	}
}

func TestDecodeContent(t *testing.T) {
	tests := []struct {
		raw, want string
		wantErr   bool
	}{
		{raw: `"hi"`, want: "hi"},
		{raw: `null`, want: ""},
		{raw: ``, want: ""},
		{raw: `[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]`, want: "ab"},
		{raw: `42`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := decodeContent([]byte(tt.raw))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("decodeContent(%s) = %q, %v; want %q, error %v", tt.raw, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestNewAPIError(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		file      string
		header    map[string]string
		kind      error
		typ, code string
		msgHas    string
		retryable bool
		after     time.Duration
	}{
		{name: "vLLM unknown model", status: 404, file: "vllm_404_model.json", kind: ErrModelNotFound,
			typ: "NotFoundError", code: "404", msgHas: "does not exist"},
		{name: "OpenAI unknown model", status: 404, file: "openai_404_model.json", kind: ErrModelNotFound,
			typ: "invalid_request_error", code: "model_not_found", msgHas: "gpt-9"},
		{name: "Ollama unknown model", status: 404, file: "ollama_404_model.json", kind: ErrModelNotFound,
			typ: "api_error", msgHas: "try pulling it first"},
		{name: "wrong path is not a wrong model", status: 404, file: "fastapi_404.json", msgHas: "Not Found"},
		{name: "vLLM context length", status: 400, file: "vllm_400_context.json", kind: ErrContextLength,
			typ: "BadRequestError", code: "400", msgHas: "maximum context length is 4096"},
		{name: "OpenAI context length", status: 400, file: "openai_400_context.json", kind: ErrContextLength,
			code: "context_length_exceeded", typ: "invalid_request_error"},
		{name: "llama-server context length", status: 400, file: "llamacpp_400_context.json", kind: ErrContextLength,
			typ: "exceed_context_size_error", code: "400"},
		{name: "llama-server context length as 500 is not retried", status: 500, file: "llamacpp_500_context.json",
			kind: ErrContextLength, typ: "server_error", code: "500"},
		{name: "Ollama context length, string error", status: 400, file: "ollama_400_context.json",
			kind: ErrContextLength, msgHas: "exceeds the context length"},
		{name: "llama-server n over slots", status: 400, file: "llamacpp_400_nslots.json",
			typ: "invalid_request_error", code: "400", msgHas: "n_cmpl"},
		{name: "OpenAI rate limit", status: 429, file: "openai_429.json", header: map[string]string{"Retry-After-Ms": "222", "Retry-After": "1"},
			typ: "tokens", code: "rate_limit_exceeded", retryable: true, after: 222 * time.Millisecond},
		{name: "OpenAI quota is not retried", status: 429, file: "openai_429_quota.json", code: "insufficient_quota", typ: "insufficient_quota"},
		{name: "vLLM engine error", status: 500, file: "vllm_500.json", typ: "InternalServerError", code: "500", retryable: true},
		{name: "OpenAI overloaded", status: 503, file: "openai_503.json", header: map[string]string{"Retry-After": "3"},
			typ: "server_error", retryable: true, after: 3 * time.Second},
		{name: "nginx HTML 502", status: 502, file: "nginx_502.html", kind: ErrBadResponse, msgHas: `"502 Bad Gateway"`, retryable: true},
		{name: "408", status: 408, file: "fastapi_404.json", retryable: true},
		{name: "plain 400", status: 400, file: "vllm_400_bad_param.json", typ: "Bad Request", code: "400", msgHas: "top_logprobs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			e := newAPIError(tt.status, h, testdata(t, tt.file), "http://h/v1/chat/completions", time.Unix(0, 0))
			if e.StatusCode != tt.status || e.Type != tt.typ || e.Code != tt.code {
				t.Errorf("status %d type %q code %q, want %d %q %q", e.StatusCode, e.Type, e.Code, tt.status, tt.typ, tt.code)
			}
			if !errors.Is(e, tt.kind) && tt.kind != nil {
				t.Errorf("%v does not unwrap to %v", e, tt.kind)
			}
			if tt.kind == nil && e.Unwrap() != nil {
				t.Errorf("unwraps to %v, want nothing", e.Unwrap())
			}
			if !strings.Contains(e.Error(), tt.msgHas) {
				t.Errorf("error %q does not say %q", e.Error(), tt.msgHas)
			}
			if e.Retryable != tt.retryable || e.RetryAfter != tt.after {
				t.Errorf("retryable %v after %s, want %v %s", e.Retryable, e.RetryAfter, tt.retryable, tt.after)
			}
			if len(e.Body) > maxErrorBody {
				t.Errorf("body kept %d bytes, limit %d", len(e.Body), maxErrorBody)
			}
			if tt.status == 404 && tt.kind == nil && !strings.Contains(e.Error(), "base URL") {
				t.Errorf("404 without a model should hint at the base URL: %q", e.Error())
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 16, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{name: "none"},
		{name: "seconds", header: map[string]string{"Retry-After": "2"}, want: 2 * time.Second, ok: true},
		{name: "fractional seconds", header: map[string]string{"Retry-After": "0.5"}, want: 500 * time.Millisecond, ok: true},
		{name: "milliseconds win", header: map[string]string{"Retry-After": "2", "Retry-After-Ms": "150"}, want: 150 * time.Millisecond, ok: true},
		{name: "HTTP date", header: map[string]string{"Retry-After": "Thu, 16 Jan 2025 12:00:07 GMT"}, want: 7 * time.Second, ok: true},
		{name: "past date", header: map[string]string{"Retry-After": "Thu, 16 Jan 2025 11:00:00 GMT"}, want: 0, ok: true},
		{name: "negative", header: map[string]string{"Retry-After": "-3"}},
		{name: "garbage", header: map[string]string{"Retry-After": "soon"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := retryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("retryAfter = %s, %v; want %s, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestDecodeModels(t *testing.T) {
	tests := []struct {
		file    string
		want    []string
		wantErr bool
	}{
		{file: "models_vllm.json", want: []string{"Qwen/Qwen2.5-1.5B-Instruct"}},
		{file: "models_ollama.json", want: []string{"llama3.2:1b", "qwen3:0.6b"}},
		{file: "models_ollama_empty.json", want: []string{}},
		{file: "models_llamacpp.json", want: []string{"qwen2.5-1.5b-instruct-q4_k_m.gguf"}},
		{file: "nginx_502.html", wantErr: true},
		{file: "fastapi_404.json", wantErr: true},
		{file: "truncated.json", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := decodeModels(testdata(t, tt.file))
			if tt.wantErr {
				if !errors.Is(err, ErrBadResponse) {
					t.Fatalf("err = %v, want ErrBadResponse", err)
				}
				return
			}
			if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") || got == nil {
				t.Fatalf("decodeModels = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestHeadBytesKeepsUTF8(t *testing.T) {
	s := []byte("ab€") // € is 3 bytes
	for n := range len(s) + 2 {
		got := headBytes(s, n)
		if len(got) > n || !strings.HasPrefix(string(s), string(got)) || !isValidUTF8(got) {
			t.Errorf("headBytes(%q, %d) = %q", s, n, got)
		}
	}
}

func isValidUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// FuzzDecodeResponse feeds arbitrary bodies to every decoder of server output.
// They must never panic, and a body they accept must yield a usable result.
func FuzzDecodeResponse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Add([]byte(`{"choices":[{"message":{"content":null},"logprobs":{"content":null}}]}`), true)
	f.Add([]byte(`{"choices":[{"index":1,"message":{}},{"index":1,"message":{}}],"usage":null}`), false)
	f.Add([]byte(`{"error":"x"}`), false)
	f.Fuzz(func(t *testing.T, body []byte, wantLogprobs bool) {
		d, err := decodeChatResponse(body, wantLogprobs)
		if err == nil {
			if len(d.Choices) == 0 {
				t.Fatal("accepted a response without choices")
			}
			for i, c := range d.Choices {
				if wantLogprobs && c.Content != "" && c.Logprobs == nil {
					t.Fatalf("choice %d: accepted missing logprobs", i)
				}
				if c.Logprobs != nil && c.Tokens != len(c.Logprobs) {
					t.Fatalf("choice %d: tokens %d but %d logprobs", i, c.Tokens, len(c.Logprobs))
				}
			}
		} else if !errors.Is(err, ErrBadResponse) && !errors.Is(err, ErrContextLength) && !errors.Is(err, ErrModelNotFound) {
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("unclassified error %v", err)
			}
		}
		e := newAPIError(500, http.Header{"Retry-After": {string(body)}}, body, "u", time.Unix(0, 0))
		if len(e.Body) > maxErrorBody || e.Error() == "" {
			t.Fatalf("bad APIError %+v", e)
		}
		if ids, err := decodeModels(body); err == nil && ids == nil {
			t.Fatal("decodeModels returned nil ids without error")
		}
	})
}
