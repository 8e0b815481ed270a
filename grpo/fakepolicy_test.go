package grpo

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/llm"
)

// fakePolicy is an OpenAI-compatible chat endpoint that answers audit prompts the way a
// half-trained policy does. The answer to choice i of a request with seed s is variant
// (s+i) mod 4 of the item's gold answer: right, wrong status, fenced verdict, or cut off
// at the token limit. Requests without a seed (evaluation, temperature 0) get the right
// answer. It honours n, reports token logprobs when asked (one token per word) and can
// hold requests for a fixed latency with a fixed capacity.
type fakePolicy struct {
	*httptest.Server
	byPrompt map[string]eval.Item
	// fail, when set, may answer a request itself (an error, garbage); it sees the
	// request's user prompt and the 0-based request number.
	fail func(w http.ResponseWriter, user string, n int) bool
	// latency and slots make the server take latency per request, serving at most
	// slots at once (0: unlimited, no delay).
	latency time.Duration
	slots   chan struct{}

	mu       sync.Mutex
	requests int
	busy     time.Duration // summed service time, for utilisation
}

func newFakePolicy(t testing.TB, items []eval.Item) *fakePolicy {
	t.Helper()
	f := &fakePolicy{byPrompt: map[string]eval.Item{}}
	for _, it := range items {
		f.byPrompt[judge.UserPrompt(it.Pair)] = it
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakePolicy) withCapacity(slots int, latency time.Duration) *fakePolicy {
	f.slots, f.latency = make(chan struct{}, slots), latency
	return f
}

func (f *fakePolicy) client(t testing.TB, concurrency int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: f.URL + "/v1", Model: "policy", MaxRetries: -1, Concurrency: concurrency, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type wireChat struct {
	Messages []llm.Message `json:"messages"`
	N        int           `json:"n"`
	Seed     *int64        `json:"seed"`
	Logprobs bool          `json:"logprobs"`
}

// answerVariant renders variant v of the item's gold answer.
func answerVariant(it eval.Item, v int) (content, finish string) {
	steps, verdict := eval.Target(it)
	switch v % 4 {
	case 1:
		verdict = judge.Verdict{Status: judge.StatusUnrelated, ConflictType: judge.TypeNone, Action: judge.ActionKeep, Links: []judge.Link{}, Confidence: 0.6}
		if it.Gold.Status == judge.StatusUnrelated {
			verdict.Status = judge.StatusConsistent
		}
	case 2:
		text := judge.Render(steps, verdict)
		i := strings.Index(text, "</think>\n") + len("</think>\n")
		return text[:i] + "```json\n" + text[i:] + "\n```", "stop"
	case 3:
		text := judge.Render(steps, verdict)
		return text[:min(len(text), 120)], "length"
	}
	return judge.Render(steps, verdict), "stop"
}

func (f *fakePolicy) serve(w http.ResponseWriter, r *http.Request) {
	if f.slots != nil {
		f.slots <- struct{}{}
		start := time.Now()
		defer func() {
			<-f.slots
			f.mu.Lock()
			f.busy += time.Since(start)
			f.mu.Unlock()
		}()
		time.Sleep(f.latency)
	}
	body, _ := io.ReadAll(r.Body)
	var req wireChat
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"bad request"}}`, 400)
		return
	}
	user := req.Messages[len(req.Messages)-1].Content
	f.mu.Lock()
	n := f.requests
	f.requests++
	f.mu.Unlock()
	if f.fail != nil && f.fail(w, user, n) {
		return
	}
	it, ok := f.byPrompt[user]
	if !ok {
		http.Error(w, `{"error":{"message":"unknown prompt"}}`, 400)
		return
	}
	if req.N == 0 {
		req.N = 1
	}
	var choices []map[string]any
	for i := range req.N {
		v := 0
		if req.Seed != nil {
			v = int(*req.Seed) + i
		}
		content, finish := answerVariant(it, v)
		ch := map[string]any{"index": i, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": finish}
		if req.Logprobs {
			var toks []map[string]any
			for _, tok := range strings.SplitAfter(content, " ") {
				toks = append(toks, map[string]any{"token": tok, "logprob": -0.5, "top_logprobs": []any{}})
			}
			ch["logprobs"] = map[string]any{"content": toks}
		}
		choices = append(choices, ch)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "policy", "choices": choices,
		"usage": map[string]int{"prompt_tokens": 500, "completion_tokens": 100 * req.N, "total_tokens": 500 + 100*req.N},
	})
}

// fakeReference scores every token a little less likely than the policy did.
type fakeReference struct {
	mu    sync.Mutex
	calls int
	err   error
}

func (f *fakeReference) Logprobs(_ context.Context, _ []llm.Message, _ string, tokens []llm.TokenLogprob) ([]float64, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	out := make([]float64, len(tokens))
	for i, t := range tokens {
		out[i] = t.Logprob - 0.25
	}
	return out, nil
}
