package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultTimeout       = 5 * time.Minute
	DefaultMaxRetries    = 3
	DefaultConcurrency   = 4
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = 2 * time.Minute

	// baseBackoff is the first retry's nominal wait; it doubles per retry up
	// to MaxBackoff.
	baseBackoff = 500 * time.Millisecond
)

// Config configures a Client. The zero value of every field except BaseURL
// and Model means "use the default". Library code never reads the
// environment: the CLI maps ATMA_LLM_URL, ATMA_LLM_MODEL and ATMA_LLM_API_KEY
// (and flags) onto these fields.
type Config struct {
	// BaseURL is the API root, the URL that /chat/completions and /models are
	// appended to: "http://localhost:8000/v1" (vLLM), "http://localhost:11434/v1"
	// (Ollama), "http://localhost:8080/v1" (llama-server). A bare host with no
	// path ("http://localhost:11434") gets "/v1" appended; any other path is
	// used as given, for hosted APIs whose root is not /v1.
	BaseURL string
	// Model is the model name sent with every request. llama-server serves a
	// single model and ignores it, but it must still be set.
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey string
	// Timeout bounds one HTTP attempt, including reading the body.
	// Default DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is how many times a retryable failure (429, 408, 5xx,
	// connection errors, timeouts) is retried. 0 means DefaultMaxRetries; a
	// negative value disables retries.
	MaxRetries int
	// Concurrency bounds the HTTP requests this client has in flight at once,
	// across all calls. Default DefaultConcurrency.
	Concurrency int
	// MaxBackoff caps the exponential backoff between retries.
	// Default DefaultMaxBackoff.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits out; a server
	// asking for longer gets its error returned at once. Default
	// DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
	// HTTPClient, when set, is used as is. By default the client builds one
	// whose transport keeps Concurrency idle connections per host.
	HTTPClient *http.Client
	// Logger receives retry and quirk-detection events. Default slog.Default().
	Logger *slog.Logger
	// Rand supplies the backoff jitter. It is only used under the client's
	// lock. Default: a PCG seeded from the clock, so that separate processes
	// hitting one server do not retry in step.
	Rand *rand.Rand
}

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.BaseURL) == "" {
		errs = append(errs, errors.New("base URL is required"))
	} else if u, err := url.Parse(c.BaseURL); err != nil {
		errs = append(errs, fmt.Errorf("base URL: %w", err))
	} else {
		if u.Scheme != "http" && u.Scheme != "https" {
			errs = append(errs, fmt.Errorf("base URL %q: scheme must be http or https", c.BaseURL))
		}
		if u.Host == "" {
			errs = append(errs, fmt.Errorf("base URL %q: host is missing", c.BaseURL))
		}
		if u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("base URL %q: must not carry a query or fragment", c.BaseURL))
		}
	}
	if strings.TrimSpace(c.Model) == "" {
		errs = append(errs, errors.New("model is required"))
	}
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("timeout %s is negative", c.Timeout))
	}
	if c.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("concurrency %d is negative", c.Concurrency))
	}
	if c.MaxBackoff < 0 {
		errs = append(errs, fmt.Errorf("max backoff %s is negative", c.MaxBackoff))
	}
	if c.MaxRetryAfter < 0 {
		errs = append(errs, fmt.Errorf("max retry-after %s is negative", c.MaxRetryAfter))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("llm config: %w", err)
	}
	return nil
}

// withDefaults returns c with zero fields replaced by defaults. It assumes
// Validate passed.
func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.MaxRetryAfter == 0 {
		c.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Rand == nil {
		now := uint64(time.Now().UnixNano())
		c.Rand = rand.New(rand.NewPCG(now, now^0x9e3779b97f4a7c15))
	}
	if c.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = c.Concurrency
		c.HTTPClient = &http.Client{Transport: t}
	}
	return c
}

// apiRoot normalises BaseURL: no trailing slash, and "/v1" for a bare host.
func apiRoot(base string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	u, err := url.Parse(base)
	if err == nil && u.Path == "" {
		return base + "/v1"
	}
	return base
}
