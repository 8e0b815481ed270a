package grpo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/llm"
)

func TestK3(t *testing.T) {
	for _, tt := range []struct {
		name              string
		policy, ref, want float64
	}{
		{"equal", -1.3, -1.3, 0},
		{"reference twice as likely", math.Log(0.25), math.Log(0.5), 2 - math.Ln2 - 1},
		{"reference half as likely", math.Log(0.5), math.Log(0.25), 0.5 + math.Ln2 - 1},
		{"reference gives it nothing", -0.1, -9999, 9999 - 0.1 - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := K3(tt.policy, tt.ref); math.Abs(got-tt.want) > 1e-9 || got < 0 {
				t.Errorf("K3(%v, %v) = %v, want %v", tt.policy, tt.ref, got, tt.want)
			}
		})
	}
	kl, err := SequenceKL([]float64{math.Log(0.25), -1}, []float64{math.Log(0.5), -1})
	if err != nil || math.Abs(kl-(1-math.Ln2)/2) > 1e-12 {
		t.Errorf("SequenceKL = %v, %v", kl, err)
	}
	for _, bad := range [][2][]float64{{{1}, {1, 2}}, {{}, {}}, {{math.NaN()}, {0}}} {
		if _, err := SequenceKL(bad[0], bad[1]); err == nil {
			t.Errorf("SequenceKL(%v, %v) accepted", bad[0], bad[1])
		}
	}
}

// fakeVLLMReference answers prompt_logprobs requests the way vLLM does: the chat template
// renders the messages, each "token" is one word of the rendering, and the log-probability
// of the i-th token is -0.1·(i+1) (or what logprob says).
func fakeVLLMReference(t *testing.T, logprob func(i int, tok string) float64, hook func(w http.ResponseWriter) bool) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if hook != nil && hook(w) {
			return
		}
		var req map[string]any
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if req["continue_final_message"] != true || req["add_generation_prompt"] != false || req["prompt_logprobs"] != 0.0 {
			http.Error(w, fmt.Sprintf("unexpected request %s", body), 400)
			return
		}
		var rendered []string
		for _, m := range req["messages"].([]any) {
			mm := m.(map[string]any)
			rendered = append(rendered, "<|im_start|>"+mm["role"].(string))
			rendered = append(rendered, strings.Fields(mm["content"].(string))...)
			if mm["role"] != "assistant" {
				rendered = append(rendered, "<|im_end|>")
			}
		}
		pl := []any{nil}
		for i, tok := range rendered[1:] {
			pl = append(pl, map[string]any{fmt.Sprint(1000 + i): map[string]any{"logprob": logprob(i, tok), "rank": 1, "decoded_token": tok}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": "."}, "finish_reason": "length"}}, "prompt_logprobs": pl})
	}))
}

func tokensOf(text string, lp float64) []llm.TokenLogprob {
	var out []llm.TokenLogprob
	for _, w := range strings.Fields(text) {
		out = append(out, llm.TokenLogprob{Token: w, Logprob: lp})
	}
	return out
}

func TestPromptLogprobsReference(t *testing.T) {
	msgs := []llm.Message{{Role: "system", Content: "audit"}, {Role: "user", Content: "old and new"}}
	completion := "<think> Slot: job </think> {}"
	ref := func(i int, tok string) float64 { return -2 }
	srv := fakeVLLMReference(t, ref, nil)
	defer srv.Close()
	r, err := NewPromptLogprobsReference(PromptLogprobsConfig{BaseURL: srv.URL + "/v1", Model: "base"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("aligned", func(t *testing.T) {
		got, err := r.Logprobs(t.Context(), msgs, completion, tokensOf(completion, -1))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 5 || got[0] != -2 {
			t.Errorf("reference logprobs %v", got)
		}
	})
	t.Run("end-of-turn token left out", func(t *testing.T) {
		toks := append(tokensOf(completion, -1), llm.TokenLogprob{Token: "<|im_end|>", Logprob: -0.01})
		got, err := r.Logprobs(t.Context(), msgs, completion, toks)
		if err != nil || len(got) != 5 {
			t.Errorf("got %v, %v; want the 5 content tokens", got, err)
		}
	})
	t.Run("tokenised differently", func(t *testing.T) {
		toks := tokensOf(completion, -1)
		toks[2].Token = "Slot"
		_, err := r.Logprobs(t.Context(), msgs, completion, toks)
		if !errors.Is(err, ErrTokenMismatch) {
			t.Errorf("err %v, want ErrTokenMismatch", err)
		}
	})
	t.Run("no policy logprobs", func(t *testing.T) {
		if _, err := r.Logprobs(t.Context(), msgs, completion, nil); err == nil {
			t.Error("no error")
		}
	})
}

func TestPromptLogprobsReferenceBadServers(t *testing.T) {
	msgs := []llm.Message{{Role: "user", Content: "q"}}
	for _, tt := range []struct {
		name string
		hook func(w http.ResponseWriter) bool
		want string
	}{
		{"server error", func(w http.ResponseWriter) bool { http.Error(w, `{"error":"boom"}`, 500); return true }, "HTTP 500"},
		{"garbage", func(w http.ResponseWriter) bool { _, _ = io.WriteString(w, "<html>hi</html>"); return true }, "decode reference response"},
		{"not vLLM", func(w http.ResponseWriter) bool { _, _ = io.WriteString(w, `{"choices":[]}`); return true }, "no prompt_logprobs"},
		{"alternatives", func(w http.ResponseWriter) bool {
			_, _ = io.WriteString(w, `{"prompt_logprobs":[null,{"1":{"logprob":-1},"2":{"logprob":-2}}]}`)
			return true
		}, "2 entries"},
		{"timeout", func(w http.ResponseWriter) bool { time.Sleep(300 * time.Millisecond); return false }, "reference request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeVLLMReference(t, func(int, string) float64 { return -1 }, tt.hook)
			defer srv.Close()
			r, err := NewPromptLogprobsReference(PromptLogprobsConfig{BaseURL: srv.URL + "/v1", Model: "base", Timeout: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Logprobs(t.Context(), msgs, "a b", tokensOf("a b", -1))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := NewPromptLogprobsReference(PromptLogprobsConfig{BaseURL: "localhost", Timeout: -1}); err == nil ||
		!strings.Contains(err.Error(), "not an http(s) URL") || !strings.Contains(err.Error(), "model is empty") || !strings.Contains(err.Error(), "negative") {
		t.Errorf("config errors: %v", err)
	}
}
