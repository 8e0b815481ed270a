//go:build integration

// Integration tests against a real llama.cpp llama-server serving a tiny
// random-weight llama model written by internal/gguf. Run them with
//
//	make test-integration
//	go test -count=1 -tags integration -run . -v ./llm/
//
// They need the server binary: ATMA_LLAMA_SERVER, else the one
// scripts/build-llama-server.sh installs under $ATMA_CACHE/llama-server/bin
// (ATMA_CACHE defaults to ~/.cache/atma). All traffic stays on 127.0.0.1.

package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/internal/llamatest"
	"github.com/atma-dev/atma/llm"
)

// newClient returns a fresh client (nothing learnt about the server yet).
func newClient(t *testing.T, url, model string, maxRetries int) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{
		BaseURL:    url,
		Model:      model,
		Timeout:    time.Minute,
		MaxRetries: maxRetries,
		MaxBackoff: 200 * time.Millisecond,
		Logger:     slog.New(slog.NewTextHandler(t.Output(), nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

func user(s string) []llm.Message { return []llm.Message{{Role: "user", Content: s}} }

// logLatency records what a call cost, for the closing note.
func logLatency(t *testing.T, what string, r *llm.Response) {
	t.Helper()
	tokens := 0
	for _, c := range r.Choices {
		tokens += c.Tokens
	}
	rate := 0.0
	if s := r.Latency.Seconds(); s > 0 {
		rate = float64(tokens) / s
	}
	t.Logf("latency %s: %v for %d choices, %d requests (%d attempts), %d completion tokens (%.0f tok/s), usage %+v, counted %+v",
		what, r.Latency.Round(time.Microsecond), len(r.Choices), r.Requests, r.Attempts, tokens, rate, r.Usage, r.Counted)
}

func TestLlamaServer(t *testing.T) {
	s := llamatest.Start(t)
	c := newClient(t, s.URL, llamatest.ModelAlias, 0)

	t.Run("chat", func(t *testing.T) {
		const maxTok = 16
		r, err := c.Chat(t.Context(), llm.Request{
			Messages: user("Where do I live now?"), MaxTokens: maxTok, Temperature: ptr(0.0),
		})
		if err != nil {
			t.Fatal(err)
		}
		logLatency(t, "single chat, 16 tokens", r)
		if len(r.Choices) != 1 || r.Requests != 1 || r.Attempts != 1 {
			t.Fatalf("%d choices in %d requests (%d attempts), want 1 in 1", len(r.Choices), r.Requests, r.Attempts)
		}
		ch := r.Choices[0]
		if ch.Content == "" || ch.FinishReason != "length" || ch.Tokens != maxTok {
			t.Errorf("choice %+v: want non-empty content, finish_reason length, %d tokens", ch, maxTok)
		}
		if r.Model != llamatest.ModelAlias {
			t.Errorf("model %q, want %q", r.Model, llamatest.ModelAlias)
		}
		t.Logf("content %q", ch.Content)
	})

	t.Run("n within slots", func(t *testing.T) {
		r, err := c.Chat(t.Context(), llm.Request{
			Messages: user("Tell me about my dog."), N: llamatest.Slots, MaxTokens: 12,
			Temperature: ptr(1.0), Seed: ptr(int64(7)),
		})
		if err != nil {
			t.Fatal(err)
		}
		logLatency(t, "n=4 in one request", r)
		if len(r.Choices) != llamatest.Slots || r.Requests != 1 || r.Attempts != 1 {
			t.Fatalf("%d choices in %d requests (%d attempts), want %d in 1", len(r.Choices), r.Requests, r.Attempts, llamatest.Slots)
		}
		for i, ch := range r.Choices {
			if ch.Index != i || ch.FinishReason != "length" || ch.Content == "" {
				t.Errorf("choice %d: %+v", i, ch)
			}
		}
		t.Logf("n=%d with one seed: %d distinct completions; usage.completion_tokens %d for %d×12 generated",
			llamatest.Slots, distinct(r.Choices), r.Usage.CompletionTokens, llamatest.Slots)
	})

	t.Run("n above slots is split", func(t *testing.T) {
		fresh := newClient(t, s.URL, llamatest.ModelAlias, 0) // nothing learnt yet
		const n = 2 * llamatest.Slots
		r, err := fresh.Chat(t.Context(), llm.Request{
			Messages: user("Tell me about my dog."), N: n, MaxTokens: 8,
			Temperature: ptr(1.0), Seed: ptr(int64(7)), Logprobs: true,
		})
		if err != nil {
			t.Fatalf("n=%d on a server with -np %d: %v", n, llamatest.Slots, err)
		}
		logLatency(t, "n=8 split over 4 slots", r)
		if len(r.Choices) != n {
			t.Fatalf("%d choices, want %d", len(r.Choices), n)
		}
		// The first request (n=8) is refused, then two of n=4 succeed.
		if r.Requests != 2 || r.Attempts != 3 {
			t.Errorf("%d requests, %d attempts; want 2 and 3 (one refusal, then two halves)", r.Requests, r.Attempts)
		}
		for i, ch := range r.Choices {
			if ch.Index != i || len(ch.Logprobs) != 8 {
				t.Errorf("choice %d: index %d, %d logprobs", i, ch.Index, len(ch.Logprobs))
			}
		}
		if r.Counted.CompletionTokens != n*8 {
			t.Errorf("counted %d completion tokens, want %d", r.Counted.CompletionTokens, n*8)
		}
		t.Logf("n=%d: %d distinct completions; server usage %+v, counted %+v", n, distinct(r.Choices), r.Usage, r.Counted)
		// The learnt limit is kept: the next call goes straight to two requests.
		r, err = fresh.Chat(t.Context(), llm.Request{Messages: user("Again."), N: n, MaxTokens: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Choices) != n || r.Requests != 2 || r.Attempts != 2 {
			t.Errorf("second call: %d choices in %d requests (%d attempts), want %d in 2 (2)", len(r.Choices), r.Requests, r.Attempts, n)
		}
	})

	t.Run("logprobs", func(t *testing.T) {
		const maxTok, top = 8, 3
		r, err := c.Chat(t.Context(), llm.Request{
			Messages: user("Where do I live now?"), MaxTokens: maxTok, Temperature: ptr(0.0),
			Logprobs: true, TopLogprobs: top,
		})
		if err != nil {
			t.Fatal(err)
		}
		logLatency(t, "logprobs, top 3", r)
		ch := r.Choices[0]
		if len(ch.Logprobs) != maxTok {
			t.Fatalf("%d logprobs, want %d", len(ch.Logprobs), maxTok)
		}
		var text strings.Builder
		for i, lp := range ch.Logprobs {
			text.WriteString(lp.Token)
			if lp.Logprob > 1e-6 || math.IsNaN(lp.Logprob) {
				t.Errorf("token %d %q: logprob %v", i, lp.Token, lp.Logprob)
			}
			if len(lp.Top) != top {
				t.Errorf("token %d: %d alternatives, want %d", i, len(lp.Top), top)
				continue
			}
			if !slices.IsSortedFunc(lp.Top, func(a, b llm.TopLogprob) int { return -cmpFloat(a.Logprob, b.Logprob) }) {
				t.Errorf("token %d: alternatives not most likely first: %+v", i, lp.Top)
			}
			// Greedy decoding picks the most likely token.
			if lp.Top[0].Token != lp.Token || math.Abs(lp.Top[0].Logprob-lp.Logprob) > 1e-4 {
				t.Errorf("token %d: greedy pick %q (%v) is not the top alternative %+v", i, lp.Token, lp.Logprob, lp.Top[0])
			}
		}
		if text.String() != ch.Content {
			t.Errorf("logprob tokens join to %q, content is %q", text.String(), ch.Content)
		}
		if ch.Tokens != maxTok || r.Counted.CompletionTokens != maxTok {
			t.Errorf("choice tokens %d, counted %d, want %d", ch.Tokens, r.Counted.CompletionTokens, maxTok)
		}
	})

	t.Run("seed determinism", func(t *testing.T) {
		run := func(seed int64) string {
			t.Helper()
			r, err := c.Chat(t.Context(), llm.Request{
				Messages: user("Say something."), MaxTokens: 24, Temperature: ptr(1.0), Seed: ptr(seed),
			})
			if err != nil {
				t.Fatal(err)
			}
			return r.Choices[0].Content
		}
		a, b, other := run(42), run(42), run(43)
		if a != b {
			t.Errorf("seed 42 twice at temperature 1:\n%q\n%q", a, b)
		}
		if a == other {
			t.Errorf("seeds 42 and 43 gave the same 24 tokens %q: is the seed ignored?", a)
		}
	})

	t.Run("max_tokens", func(t *testing.T) {
		for _, maxTok := range []int{1, 5, 33} {
			r, err := c.Chat(t.Context(), llm.Request{Messages: user("Count."), MaxTokens: maxTok, Temperature: ptr(1.0), Seed: ptr(int64(maxTok))})
			if err != nil {
				t.Fatal(err)
			}
			ch := r.Choices[0]
			if ch.Tokens != maxTok || r.Usage.CompletionTokens != maxTok || ch.FinishReason != "length" {
				t.Errorf("max_tokens %d: choice tokens %d, usage %d, finish %q", maxTok, ch.Tokens, r.Usage.CompletionTokens, ch.FinishReason)
			}
		}
	})

	t.Run("stop", func(t *testing.T) {
		req := llm.Request{Messages: user("Say something long."), MaxTokens: 32, Temperature: ptr(0.0)}
		r, err := c.Chat(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		full := r.Choices[0].Content
		// A stop string taken from the middle of the greedy completion; the
		// server cuts at its first occurrence and leaves the string out.
		var stop string
		for i := len(full) / 2; i+3 <= len(full); i++ {
			if p := strings.Index(full, full[i:i+3]); p > 0 {
				stop = full[i : i+3]
				break
			}
		}
		if stop == "" {
			t.Fatalf("no usable stop string in %q", full)
		}
		req.Stop = []string{stop}
		r, err = c.Chat(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		ch := r.Choices[0]
		want := full[:strings.Index(full, stop)]
		if ch.Content != want || ch.FinishReason != "stop" {
			t.Errorf("stop %q: content %q, finish %q; want %q, stop (full text %q)", stop, ch.Content, ch.FinishReason, want, full)
		}
	})

	t.Run("usage", func(t *testing.T) {
		// " hello" is one piece of the tiny vocabulary, so the second prompt
		// is exactly two tokens longer.
		var prompt [2]int
		for i, text := range []string{"hello", "hello hello hello"} {
			r, err := c.Chat(t.Context(), llm.Request{Messages: user(text), MaxTokens: 3, Temperature: ptr(0.0)})
			if err != nil {
				t.Fatal(err)
			}
			u := r.Usage
			if u.CompletionTokens != 3 || u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.PromptTokens == 0 {
				t.Errorf("%q: usage %+v, want 3 completion tokens and a consistent total", text, u)
			}
			if r.Counted != u {
				t.Errorf("%q: counted %+v, server %+v", text, r.Counted, u)
			}
			prompt[i] = u.PromptTokens
		}
		if prompt[1]-prompt[0] != 2 {
			t.Errorf("prompt tokens %d and %d, want a difference of 2", prompt[0], prompt[1])
		}
		t.Logf("prompt tokens for %q: %d (ChatML wrapping included)", "hello", prompt[0])
	})

	t.Run("json schema", func(t *testing.T) {
		r, err := c.Chat(t.Context(), llm.Request{
			Messages: user("Where did I move, and when? Answer in JSON."), MaxTokens: 200, N: 3,
			Temperature: ptr(1.0), Seed: ptr(int64(3)),
			JSONSchema: &llm.Schema{Name: "verdict", Schema: json.RawMessage(verdictSchema), Strict: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		logLatency(t, "json schema, n=3", r)
		for i, ch := range r.Choices {
			var v struct {
				City  string `json:"city"`
				Moved *bool  `json:"moved"`
				Year  *int   `json:"year"`
			}
			dec := json.NewDecoder(strings.NewReader(ch.Content))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&v); err != nil {
				t.Errorf("choice %d %q (finish %q): %v", i, ch.Content, ch.FinishReason, err)
				continue
			}
			if (v.City != "Berlin" && v.City != "Lisbon") || v.Moved == nil || v.Year == nil || *v.Year < 1900 || *v.Year > 2100 {
				t.Errorf("choice %d %q breaks the schema", i, ch.Content)
			}
			if ch.FinishReason != "stop" {
				t.Errorf("choice %d: finish %q, want stop (the grammar ends the object)", i, ch.FinishReason)
			}
			t.Logf("choice %d: %s", i, ch.Content)
		}
	})

	t.Run("models", func(t *testing.T) {
		names, err := c.Models(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names, llamatest.ModelAlias) {
			t.Errorf("models %q, want %q among them", names, llamatest.ModelAlias)
		}
		t.Logf("models: %q", names)
	})

	t.Run("wrong model name", func(t *testing.T) {
		wrong := newClient(t, s.URL, "no-such-model", 0)
		r, err := wrong.Chat(t.Context(), llm.Request{Messages: user("hi"), MaxTokens: 2})
		switch {
		case err == nil:
			// A single-model llama-server serves whatever name it is sent;
			// the response names the model it really used.
			t.Logf("llama-server ignored model %q and answered as %q", "no-such-model", r.Model)
			if r.Model != llamatest.ModelAlias {
				t.Errorf("response model %q, want the served %q", r.Model, llamatest.ModelAlias)
			}
		case errors.Is(err, llm.ErrModelNotFound):
			t.Logf("llama-server refused the model name: %v", err)
		default:
			t.Errorf("wrong model name: %v, want success or ErrModelNotFound", err)
		}
	})

	t.Run("context length exceeded", func(t *testing.T) {
		// About 600 tokens (one per " hello"): more than a slot holds, less
		// than -c, so this checks the limit is the slot's.
		long := strings.Repeat("hello ", llamatest.SlotCtx+80)
		_, err := c.Chat(t.Context(), llm.Request{Messages: user(long), MaxTokens: 4})
		if !errors.Is(err, llm.ErrContextLength) {
			t.Fatalf("prompt of %d+ tokens, %d per slot: %v, want ErrContextLength", llamatest.SlotCtx+80, llamatest.SlotCtx, err)
		}
		var apiErr *llm.APIError
		if errors.As(err, &apiErr) {
			t.Logf("HTTP %d, type %q: %s", apiErr.StatusCode, apiErr.Type, apiErr.Message)
		}
		// The slots are still usable afterwards.
		if _, err := c.Chat(t.Context(), llm.Request{Messages: user("hi"), MaxTokens: 2}); err != nil {
			t.Errorf("chat after the overflow: %v", err)
		}
	})
}

// TestLlamaServerKilled kills the server between two calls: the second must
// be ErrUnreachable once the retries are spent, not a hang or a bad response.
func TestLlamaServerKilled(t *testing.T) {
	s := llamatest.Start(t)
	c := newClient(t, s.URL, llamatest.ModelAlias, 2)
	if _, err := c.Chat(t.Context(), llm.Request{Messages: user("hi"), MaxTokens: 2}); err != nil {
		t.Fatal(err)
	}
	s.Kill()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := c.Chat(ctx, llm.Request{Messages: user("hi"), MaxTokens: 2})
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("chat to a killed server: %v, want ErrUnreachable", err)
	}
	t.Logf("killed server: %v after %v (2 retries)", err, time.Since(start).Round(time.Millisecond))
	if _, err := c.Models(ctx); !errors.Is(err, llm.ErrUnreachable) {
		t.Errorf("models from a killed server: %v, want ErrUnreachable", err)
	}
}

// TestLlamaServerMidRequest kills the server while a long generation is in
// flight: the connection drops mid-response.
func TestLlamaServerMidRequest(t *testing.T) {
	s := llamatest.Start(t)
	c := newClient(t, s.URL, llamatest.ModelAlias, -1) // no retries: the first failure is the answer
	errc := make(chan error, 1)
	go func() {
		// Long enough that it is still generating when the kill lands.
		_, err := c.Chat(t.Context(), llm.Request{Messages: user("Write at length."), MaxTokens: 100000, N: llamatest.Slots})
		errc <- err
	}()
	waitForSlotsBusy(t, s)
	s.Kill()
	err := <-errc
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("chat while the server was killed: %v, want ErrUnreachable", err)
	}
	t.Logf("killed mid-request: %v", err)
}

// waitForSlotsBusy polls /slots until a slot is processing, so the kill in
// TestLlamaServerMidRequest lands during generation.
func waitForSlotsBusy(t *testing.T, s *llamatest.Server) {
	t.Helper()
	url := strings.TrimSuffix(s.URL, "/v1") + "/slots"
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			resp.Body.Close()
			if strings.Contains(b.String(), `"is_processing":true`) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no slot became busy within a minute")
}

// verdictSchema bounds every field (an enum, a boolean, a ranged integer,
// no extra properties), so a grammar-constrained random model always
// finishes the object well inside max_tokens.
const verdictSchema = `{
  "type": "object",
  "properties": {
    "city": {"enum": ["Berlin", "Lisbon"]},
    "moved": {"type": "boolean"},
    "year": {"type": "integer", "minimum": 1900, "maximum": 2100}
  },
  "required": ["city", "moved", "year"],
  "additionalProperties": false
}`

func distinct(cs []llm.Choice) int {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[c.Content] = true
	}
	return len(seen)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
