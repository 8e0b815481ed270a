package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sentinel errors. Test for them with errors.Is; an *APIError unwraps to the
// sentinel that matches its body, so both errors.Is and errors.As work on the
// same error.
var (
	// ErrUnreachable: no complete HTTP response came back (connection
	// refused, DNS failure, connection reset or closed before or during the
	// response), after all retries.
	ErrUnreachable = errors.New("llm: server unreachable")
	// ErrTimeout: an attempt ran past Config.Timeout, after all retries.
	ErrTimeout = errors.New("llm: request timed out")
	// ErrModelNotFound: the server does not serve the configured model
	// (HTTP 404 or a "model ... not found / does not exist" body).
	ErrModelNotFound = errors.New("llm: model not found")
	// ErrBadResponse: the server answered, but not with what the OpenAI API
	// promises: an HTML page, truncated or invalid JSON, no choices, a choice
	// without a message, logprobs that were asked for and are missing.
	ErrBadResponse = errors.New("llm: bad response")
	// ErrContextLength: the prompt (plus max_tokens) does not fit the
	// model's context window. Retrying the same request cannot succeed.
	ErrContextLength = errors.New("llm: prompt exceeds the model's context length")
)

// APIError is a non-2xx answer from the server (or a 2xx answer whose body is
// an error object and nothing else).
type APIError struct {
	StatusCode int
	// Type, Code and Message come from the error body in whichever shape the
	// server uses (OpenAI {"error":{...}}, vLLM {"object":"error",...},
	// Ollama {"error":"..."}, FastAPI {"detail":...}). Code is the JSON value
	// as text: "context_length_exceeded" from OpenAI, "400" from vLLM and
	// llama-server.
	Type, Code, Message string
	// Body is the start of the raw body (at most maxErrorBody bytes).
	Body string
	// Retryable reports whether the client treats this status as transient
	// (408, 429 and 5xx, except bodies that say the prompt is too long or
	// that the account has no quota left).
	Retryable bool
	// RetryAfter is the wait the server asked for (Retry-After-Ms or
	// Retry-After); zero when it asked for none.
	RetryAfter time.Duration
	// URL is the endpoint that answered.
	URL string

	kind error // sentinel this error unwraps to, nil for none
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm: HTTP %d", e.StatusCode)
	if e.URL != "" {
		fmt.Fprintf(&b, " from %s", e.URL)
	}
	b.WriteString(": ")
	msg := e.Message
	if msg == "" {
		msg = fmt.Sprintf("body %q", headBytes([]byte(e.Body), 200))
	}
	b.WriteString(msg)
	var tags []string
	if e.Type != "" {
		tags = append(tags, "type "+e.Type)
	}
	if e.Code != "" && e.Code != strconv.Itoa(e.StatusCode) {
		tags = append(tags, "code "+e.Code)
	}
	if len(tags) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(tags, ", "))
	}
	if e.StatusCode == http.StatusNotFound && e.kind != ErrModelNotFound {
		b.WriteString("; is the base URL the API root (for example http://host:port/v1)?")
	}
	return b.String()
}

// Unwrap returns the sentinel that describes the error, if any.
func (e *APIError) Unwrap() error { return e.kind }

// maxErrorBody bounds APIError.Body.
const maxErrorBody = 1024

// newAPIError builds an *APIError from a response status, headers and body,
// classifying it into a sentinel and deciding whether it is retryable.
func newAPIError(status int, header http.Header, body []byte, url string, now time.Time) *APIError {
	e := &APIError{
		StatusCode: status,
		Body:       string(headBytes(body, maxErrorBody)),
		URL:        url,
	}
	parsed := parseErrorBody(body, e)
	if !parsed {
		if isHTML(body) {
			e.Message = "HTML page instead of a JSON error"
			if t := htmlTitle(body); t != "" {
				e.Message += " (title " + strconv.Quote(t) + ")"
			}
		}
	}
	e.RetryAfter, _ = retryAfter(header, now)

	switch {
	case isContextLength(e):
		e.kind = ErrContextLength
	case isModelNotFound(e):
		e.kind = ErrModelNotFound
	case !parsed:
		e.kind = ErrBadResponse
	}
	e.Retryable = (status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500) &&
		e.kind != ErrContextLength && e.Code != "insufficient_quota"
	return e
}

// parseErrorBody fills Type, Code and Message from the error shapes servers
// use. It reports false when the body is not a JSON object it recognises.
func parseErrorBody(body []byte, e *APIError) bool {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return false
	}
	type fields struct {
		Message json.RawMessage `json:"message"`
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	fill := func(f fields) {
		e.Message = jsonText(f.Message)
		e.Type = jsonText(f.Type)
		e.Code = jsonText(f.Code)
	}
	if raw, ok := top["error"]; ok {
		// OpenAI, llama-server, Ollama's OpenAI layer, newer vLLM: an object.
		var f fields
		if json.Unmarshal(raw, &f) == nil && len(f.Message) > 0 {
			fill(f)
			return true
		}
		// Ollama's native layer: {"error":"model 'x' not found"}.
		if s := jsonText(raw); s != "" {
			e.Message = s
			return true
		}
	}
	// Older vLLM: {"object":"error","message":...,"type":...,"code":...}.
	if _, ok := top["message"]; ok {
		var f fields
		if json.Unmarshal(body, &f) == nil {
			fill(f)
			return true
		}
	}
	// FastAPI default handlers: {"detail":"Not Found"} or a validation list.
	if raw, ok := top["detail"]; ok {
		if s := jsonText(raw); s != "" {
			e.Message = s
		} else {
			e.Message = string(headBytes(raw, 200))
		}
		return true
	}
	return false
}

// jsonText renders a JSON scalar as text: strings unquoted, numbers as
// written, null and absent as "".
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if raw[0] == '{' || raw[0] == '[' {
		return ""
	}
	return string(raw)
}

// contextLengthPhrases are lower-cased fragments of the messages servers send
// when the prompt does not fit:
//
//	OpenAI, vLLM:  "This model's maximum context length is 4096 tokens. ..."
//	vLLM:          "... is longer than the maximum model length of 4096 ..."
//	llama-server:  "the request exceeds the available context size, try increasing it"
//	               "Context size has been exceeded."
//	Ollama:        "the input length exceeds the context length"
var contextLengthPhrases = []string{
	"maximum context length",
	"maximum model length",
	"exceeds the available context size",
	"context size has been exceeded",
	"exceeds the context length",
	"input exceeds context length",
	"context window",
	"prompt is too long",
}

func isContextLength(e *APIError) bool {
	if e.Code == "context_length_exceeded" || e.Type == "exceed_context_size_error" {
		return true
	}
	msg := strings.ToLower(e.Message)
	for _, p := range contextLengthPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// isModelNotFound recognises "unknown model" answers. A 404 whose body does
// not mention a model is a wrong path (base URL without /v1), not a wrong
// model, so it is left unclassified and its message hints at the base URL.
func isModelNotFound(e *APIError) bool {
	if e.Code == "model_not_found" {
		return true
	}
	msg := strings.ToLower(e.Message)
	if !strings.Contains(msg, "model") {
		return false
	}
	if e.StatusCode == http.StatusNotFound {
		return true
	}
	return strings.Contains(msg, "not found") || strings.Contains(msg, "does not exist")
}

// isNCapError recognises a server refusing n > its parallel slot count:
//
//	llama-server: "n_cmpl cannot be greater than the number of slots, please increase -np"
//	older llama-server: "Only one completion choice is allowed"
func isNCapError(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "n_cmpl") ||
		strings.Contains(msg, "number of slots") ||
		strings.Contains(msg, "one completion choice") ||
		// llama-server since late 2025: "Field 'n': Value must be between 1 <= value <= 4, but got 8".
		strings.HasPrefix(msg, "field 'n'")
}

// isMaxTokensRejected recognises hosted models that refuse max_tokens and
// want max_completion_tokens instead ("Unsupported parameter: 'max_tokens'
// is not supported with this model. Use 'max_completion_tokens' instead.").
func isMaxTokensRejected(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "max_tokens") && strings.Contains(msg, "max_completion_tokens")
}

// retryAfter reads Retry-After-Ms (sent by OpenAI) or Retry-After (seconds,
// possibly fractional, or an HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || s > 1e9 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// isHTML reports whether a body looks like an HTML page.
func isHTML(body []byte) bool {
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '<'
}

// htmlTitle extracts <title>...</title>, which for proxy error pages is the
// most useful line ("502 Bad Gateway").
func htmlTitle(body []byte) string {
	lower := bytes.ToLower(body)
	i := bytes.Index(lower, []byte("<title>"))
	if i < 0 {
		return ""
	}
	rest := body[i+len("<title>"):]
	j := bytes.Index(bytes.ToLower(rest), []byte("</title>"))
	if j < 0 {
		return ""
	}
	return strings.Join(strings.Fields(string(headBytes(rest[:j], 200))), " ")
}

// headBytes returns at most n bytes of b, cut back to a UTF-8 boundary.
func headBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

// badResponse builds an ErrBadResponse that says what was wrong and shows the
// first 200 bytes of the body.
func badResponse(body []byte, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	return fmt.Errorf("%w: %s; body starts %q", ErrBadResponse, what, headBytes(body, 200))
}
