package llm

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent
// use; the concurrency limit and what it learns about the server (how many
// choices one request may carry, whether max_tokens is refused) are shared
// by all calls.
type Client struct {
	cfg       Config
	chatURL   string
	modelsURL string
	log       *slog.Logger
	sem       chan struct{}

	mu  sync.Mutex // guards rnd
	rnd *rand.Rand

	// maxN is the largest n the server has honoured in one request after
	// returning fewer choices than asked or refusing n; 0 until then.
	maxN atomic.Int64
	// maxCompletionTokens is set once the server refused max_tokens and
	// asked for max_completion_tokens.
	maxCompletionTokens atomic.Bool

	// sleep and now are replaced in tests so that retries neither wait nor
	// depend on the clock.
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
	// semWait, when set, is told +1 when a request starts waiting for a
	// concurrency slot and -1 when it stops; tests use it to see the client
	// stall at its limit without timing anything.
	semWait func(delta int)
}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	root := apiRoot(cfg.BaseURL)
	return &Client{
		cfg:       cfg,
		chatURL:   root + "/chat/completions",
		modelsURL: root + "/models",
		log:       cfg.Logger,
		sem:       make(chan struct{}, cfg.Concurrency),
		rnd:       cfg.Rand,
		sleep:     sleepContext,
		now:       time.Now,
	}, nil
}

// Response is the outcome of one Chat call, however many HTTP requests it
// took.
type Response struct {
	// Choices holds exactly Request.N choices (1 when N is 0), indexed
	// 0..N-1 in the order the sub-requests were planned.
	Choices []Choice
	// Usage is what the servers reported, summed over the requests made; a
	// server that ignores n is sent the prompt once per request, and Usage
	// shows that.
	Usage Usage
	// Counted is our own count: the prompt once, plus each choice's
	// completion tokens, taken from its logprobs when present (which catches
	// servers that report one choice's tokens for a many-choice response),
	// else from the server's completion_tokens. Tokens the server did not
	// report and we could not see count as zero.
	Counted Usage
	// Requests is the number of successful HTTP requests; Attempts adds the
	// retried and the refused ones (n too large, max_tokens refused).
	Requests int
	Attempts int
	// Latency is the wall time of the whole call.
	Latency time.Duration
	// Model is the model name the server reported, or the configured one if
	// it reported none.
	Model string
}

// subResult is the outcome of one sub-request.
type subResult struct {
	d        *decoded
	attempts int
}

// Chat runs a chat completion and returns Request.N choices, splitting the
// work into several requests when the server ignores or caps n.
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("llm: chat: %w", err)
	}
	start := time.Now()
	want := req.choices()
	resp := &Response{Choices: make([]Choice, 0, want)}
	seeds := seedAllocator{used: map[int64]bool{}}
	for len(resp.Choices) < want {
		sizes := c.plan(want - len(resp.Choices))
		results := make([]subResult, len(sizes))
		g, gctx := errgroup.WithContext(ctx)
		pos := int64(len(resp.Choices))
		for i, size := range sizes {
			off := seeds.alloc(pos)
			pos += int64(size)
			g.Go(func() error {
				var err error
				results[i], err = c.sub(gctx, req, size, off)
				return err
			})
		}
		err := g.Wait()
		for _, r := range results {
			resp.Attempts += r.attempts
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("llm: chat: %w", ctx.Err())
			}
			return nil, err
		}
		for _, r := range results {
			c.merge(resp, r.d, want)
		}
	}
	resp.Counted.TotalTokens = resp.Counted.PromptTokens + resp.Counted.CompletionTokens
	if resp.Model == "" {
		resp.Model = c.cfg.Model
	}
	resp.Latency = time.Since(start)
	return resp, nil
}

// merge appends one sub-request's choices (at most want in all) and usage.
func (c *Client) merge(resp *Response, d *decoded, want int) {
	resp.Requests++
	if resp.Model == "" {
		resp.Model = d.Model
	}
	if d.HasUsage {
		resp.Usage.add(d.Usage)
		resp.Counted.PromptTokens = max(resp.Counted.PromptTokens, d.Usage.PromptTokens)
	}
	allLogprobs := true
	sum := 0
	kept := d.Choices[:min(len(d.Choices), want-len(resp.Choices))]
	for _, ch := range kept {
		if ch.Logprobs == nil {
			allLogprobs = false
		}
		sum += ch.Tokens
		ch.Index = len(resp.Choices)
		resp.Choices = append(resp.Choices, ch)
	}
	if allLogprobs || len(d.Choices) == 1 {
		resp.Counted.CompletionTokens += sum
	} else {
		resp.Counted.CompletionTokens += d.Usage.CompletionTokens
	}
}

// plan splits the remaining choices into sub-request sizes. Until the server
// has shown a limit, everything goes in one request.
func (c *Client) plan(remaining int) []int {
	limit := int(c.maxN.Load())
	if limit <= 0 || remaining <= limit {
		return []int{remaining}
	}
	sizes := make([]int, 0, (remaining+limit-1)/limit)
	for remaining > 0 {
		s := min(limit, remaining)
		sizes = append(sizes, s)
		remaining -= s
	}
	return sizes
}

// sub runs one sub-request for n choices, halving n while the server refuses
// it and switching to max_completion_tokens if max_tokens is refused.
func (c *Client) sub(ctx context.Context, req Request, n int, seedOffset int64) (subResult, error) {
	var r subResult
	for {
		mct := c.maxCompletionTokens.Load()
		body, err := encodeRequest(c.cfg.Model, req, n, seedOffset, mct)
		if err != nil {
			return r, err
		}
		raw, attempts, err := c.call(ctx, http.MethodPost, c.chatURL, body)
		r.attempts += attempts
		if err != nil {
			if n > 1 && isNCapError(err) {
				n /= 2
				c.lowerMaxN(n)
				c.log.Info("llm: server refused n; splitting into smaller requests", "url", c.chatURL, "n", n, "err", err)
				continue
			}
			if !mct && req.MaxTokens > 0 && isMaxTokensRejected(err) {
				c.maxCompletionTokens.Store(true)
				c.log.Info("llm: server refused max_tokens; sending max_completion_tokens", "url", c.chatURL)
				continue
			}
			return r, err
		}
		d, err := decodeChatResponse(raw, req.Logprobs)
		if err != nil {
			return r, fmt.Errorf("POST %s: %w", c.chatURL, err)
		}
		if got := len(d.Choices); got < n {
			c.lowerMaxN(got)
			c.log.Info("llm: server returned fewer choices than n; issuing the rest as separate requests",
				"url", c.chatURL, "n", n, "got", got)
		} else if got > n {
			c.log.Warn("llm: server returned more choices than n; keeping the first n", "url", c.chatURL, "n", n, "got", got)
			d.Choices = d.Choices[:n]
		}
		r.d = d
		return r, nil
	}
}

// lowerMaxN records that the server carries at most n choices per request.
func (c *Client) lowerMaxN(n int) {
	if n < 1 {
		n = 1
	}
	for {
		cur := c.maxN.Load()
		if cur != 0 && cur <= int64(n) {
			return
		}
		if c.maxN.CompareAndSwap(cur, int64(n)) {
			return
		}
	}
}

// seedAllocator gives each sub-request the seed offset of the first choice
// it fills, so that the seeds a call uses do not depend on whether the
// client already knew the server's limit; if a partial answer makes an
// offset repeat, it moves past every offset used so far.
type seedAllocator struct {
	used map[int64]bool
	max  int64
}

func (s *seedAllocator) alloc(pos int64) int64 {
	if s.used[pos] {
		pos = s.max + 1
	}
	s.used[pos] = true
	s.max = max(s.max, pos)
	return pos
}

// Models lists the model IDs the server serves (GET /models), for telling a
// user which names would have worked.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	raw, _, err := c.call(ctx, http.MethodGet, c.modelsURL, nil)
	if err != nil {
		return nil, err
	}
	ids, err := decodeModels(raw)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", c.modelsURL, err)
	}
	return ids, nil
}
