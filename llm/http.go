package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxResponseBody bounds a response body. n=16 choices of 4k tokens with 20
// alternatives each is about 50 MiB of JSON; anything beyond this is not a
// chat completion.
const maxResponseBody = 256 << 20

// connError is a failed attempt that produced no complete HTTP response.
type connError struct {
	timeout bool
	limit   time.Duration
	err     error
}

func (e *connError) Error() string {
	if e.timeout {
		return fmt.Sprintf("no complete response within %s", e.limit)
	}
	return e.err.Error()
}

func (e *connError) Unwrap() error { return e.err }

// call performs one logical HTTP request with retries, returning the 2xx body
// and the number of attempts made.
func (c *Client) call(ctx context.Context, method, url string, body []byte) ([]byte, int, error) {
	for attempt := 1; ; attempt++ {
		data, err := c.attempt(ctx, method, url, body)
		if err == nil {
			return data, attempt, nil
		}
		if ctx.Err() != nil {
			return nil, attempt, fmt.Errorf("llm: %s %s: %w", method, url, ctx.Err())
		}
		wait, retry := c.retryWait(err, attempt)
		if !retry {
			return nil, attempt, c.finalError(method, url, attempt, err)
		}
		c.log.Warn("llm: retrying", "method", method, "url", url, "attempt", attempt, "wait", wait, "err", err)
		if err := c.sleep(ctx, wait); err != nil {
			return nil, attempt, fmt.Errorf("llm: %s %s: %w", method, url, err)
		}
	}
}

// attempt performs a single HTTP exchange under the concurrency limit and the
// per-attempt timeout.
func (c *Client) attempt(ctx context.Context, method, url string, body []byte) ([]byte, error) {
	if err := c.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() { <-c.sem }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "atma-llm")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, actx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		return nil, c.transportError(ctx, actx, err)
	}
	if len(data) > maxResponseBody {
		return nil, badResponse(data, "body larger than %d bytes", maxResponseBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, newAPIError(resp.StatusCode, resp.Header, data, url, c.now())
	}
	return data, nil
}

// acquire takes a concurrency slot, waiting for one if all are taken.
func (c *Client) acquire(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	default:
	}
	if c.semWait != nil {
		c.semWait(+1)
		defer c.semWait(-1)
	}
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// transportError classifies a failure to get a complete response: the
// caller's cancellation, our per-attempt timeout, or a connection error.
func (c *Client) transportError(ctx, actx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		return &connError{timeout: true, limit: c.cfg.Timeout, err: err}
	}
	return &connError{err: err}
}

// retryWait decides whether a failed attempt is retried and after how long.
func (c *Client) retryWait(err error, attempt int) (time.Duration, bool) {
	if attempt > c.cfg.MaxRetries {
		return 0, false
	}
	var ce *connError
	if errors.As(err, &ce) {
		return c.backoff(attempt), true
	}
	var ae *APIError
	if !errors.As(err, &ae) || !ae.Retryable {
		return 0, false
	}
	if ae.RetryAfter > 0 {
		if ae.RetryAfter > c.cfg.MaxRetryAfter {
			return 0, false
		}
		// Honour the server's wait, plus a little jitter so that clients
		// told the same thing do not all come back in the same instant.
		return ae.RetryAfter + c.jitter(ae.RetryAfter/10), true
	}
	return c.backoff(attempt), true
}

// backoff is exponential with "equal jitter": half the nominal wait fixed,
// half random.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.MaxBackoff
	if attempt-1 < 30 {
		if e := baseBackoff << (attempt - 1); e < d {
			d = e
		}
	}
	return d/2 + c.jitter(d/2)
}

// jitter returns a uniform duration in [0, max].
func (c *Client) jitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(c.rnd.Int64N(int64(max) + 1))
}

// finalError turns the last attempt's error into what the caller sees.
func (c *Client) finalError(method, url string, attempts int, err error) error {
	var ce *connError
	if errors.As(err, &ce) {
		sentinel := ErrUnreachable
		if ce.timeout {
			sentinel = ErrTimeout
		}
		return fmt.Errorf("%w: %s %s (%s): %w", sentinel, method, url, plural(attempts, "attempt"), ce)
	}
	if attempts > 1 {
		return fmt.Errorf("%w (gave up after %s)", err, plural(attempts, "attempt"))
	}
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// sleepContext waits for d or until ctx is done.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
