package facts

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atma-dev/atma/llm"
)

// completion wraps content in an OpenAI chat completion body.
func completion(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "x", "object": "chat.completion", "model": "tiny-extractor",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
	})
	return string(b)
}

func TestLLMExtract(t *testing.T) {
	good := `{"facts":[{"subject":"user","attribute":"Home","value":"Tallinn","negated":false,"scope":"","event_time":"2026-03"},{"subject":"Sister","attribute":"job","value":"nurse","negated":false,"scope":"","event_time":""}]}`
	tests := []struct {
		name    string
		status  int
		body    string
		hang    bool
		source  string // want Result.Source
		why     string // want a substring of Why
		fatal   bool   // want an error
		nFacts  int
		subject string
	}{
		{"answer", 200, completion(good), false, "tiny-extractor", "", false, 2, "user"},
		{"fenced answer", 200, completion("```json\n" + good + "\n```"), false, "tiny-extractor", "", false, 2, "user"},
		{"no fact", 200, completion(`{"facts":[]}`), false, "tiny-extractor", "no fact", false, 0, ""},
		{"garbage JSON", 200, completion(`{"facts":[{"subject":`), false, SourceOffline, "llm fallback (unusable answer", false, -1, ""},
		{"prose", 200, completion("Sure! The user lives in Tallinn."), false, SourceOffline, "no JSON object", false, -1, ""},
		{"wrong types", 200, completion(`{"facts":[{"subject":"user","attribute":"home","value":7,"negated":"no"}]}`), false, SourceOffline, "decode facts", false, -1, ""},
		{"facts not an array", 200, completion(`{"facts":"none"}`), false, SourceOffline, "decode facts", false, -1, ""},
		{"server error", 500, `{"error":{"message":"boom"}}`, false, SourceOffline, "server error 500", false, -1, ""},
		{"malformed body", 200, `<html>oops</html>`, false, SourceOffline, "malformed response", false, -1, ""},
		{"timeout", 200, "", true, SourceOffline, "timed out", false, -1, ""},
		{"model not found", 404, `{"error":{"message":"model 'x' not found","type":"invalid_request_error"}}`, false, "", "", true, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			var mu sync.Mutex
			var prompt string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				prompt = string(b)
				mu.Unlock()
				if tt.hang {
					select {
					case <-release:
					case <-r.Context().Done():
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			defer close(release)
			c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "tiny-extractor", MaxRetries: -1, Timeout: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			x, err := NewLLM(c, newTestOffline(t, &bagEmbedder{}), LLMConfig{})
			if err != nil {
				t.Fatal(err)
			}
			in := Input{Text: "i moved to Tallinn in march and my sister is a nurse there", Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), Slots: []string{"user/home", "sister/job"}}
			res, err := x.Extract(t.Context(), []Input{in})
			if tt.fatal {
				if err == nil || !errors.Is(err, llm.ErrModelNotFound) {
					t.Fatalf("err %v, want model not found returned, not papered over", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Source != tt.source || !strings.Contains(r.Why, tt.why) {
				t.Errorf("source %q why %q, want %q and %q", r.Source, r.Why, tt.source, tt.why)
			}
			if tt.nFacts >= 0 && len(r.Facts) != tt.nFacts {
				t.Errorf("facts %+v, want %d", r.Facts, tt.nFacts)
			}
			if tt.subject != "" && (r.Facts[0].Subject != tt.subject || r.Facts[0].Slot() != "user/home" || r.Facts[0].EventTime.Format("2006-01") != "2026-03" || r.Facts[1].Slot() != "sister/job") {
				t.Errorf("facts %+v", r.Facts)
			}
			mu.Lock()
			defer mu.Unlock()
			if !strings.Contains(prompt, "user/home, sister/job") || !strings.Contains(prompt, "memory_facts") {
				t.Errorf("the request shows no slot keys or no schema: %s", prompt)
			}
		})
	}
}

// Later inputs of one call are shown the slots the model produced for earlier ones.
func TestLLMShowsEarlierSlots(t *testing.T) {
	var prompts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		prompts = append(prompts, string(b))
		io.WriteString(w, completion(`{"facts":[{"subject":"theo","attribute":"hobby","value":"climbing","negated":false,"scope":"","event_time":""}]}`))
	}))
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	x, err := NewLLM(c, newTestOffline(t, &bagEmbedder{}), LLMConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Extract(t.Context(), []Input{{Text: "theo climbs"}, {Text: "theo took up bouldering"}}); err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 2 || strings.Contains(prompts[0], "theo/hobby") || !strings.Contains(prompts[1], "theo/hobby") {
		t.Errorf("prompts %q", prompts)
	}
}

func TestParseAnswerSpeaker(t *testing.T) {
	fs, err := ParseAnswer(`<think>hm</think>{"facts":[{"subject":"self","attribute":"pet","value":"Rex","negated":true,"scope":"","event_time":"March"},{"subject":"","attribute":"x","value":"y","negated":false,"scope":"","event_time":""}]}`, "wendel")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Slot() != "wendel/pet" || !fs[0].Negated || !fs[0].EventTime.IsZero() {
		t.Errorf("%+v", fs)
	}
}

func TestNewLLMValidates(t *testing.T) {
	if _, err := NewLLM(nil, nil, LLMConfig{MaxTokens: -1}); err == nil || !strings.Contains(err.Error(), "nil chat client") || !strings.Contains(err.Error(), "nil fallback") {
		t.Errorf("%v", err)
	}
	c, _ := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if _, err := NewLLM(c, newTestOffline(t, &bagEmbedder{}), LLMConfig{MaxTokens: -1, MaxSlots: -2}); err == nil || !strings.Contains(err.Error(), "max tokens") || !strings.Contains(err.Error(), "max slots") {
		t.Errorf("%v", err)
	}
}
