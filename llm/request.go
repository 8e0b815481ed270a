package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
)

// Message is one chat turn. Role is "system", "user", "assistant" (or any
// other role the server accepts, such as "developer" or "tool").
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Schema asks for output that matches a JSON Schema (response_format
// json_schema). vLLM, llama-server, Ollama and OpenAI all enforce it.
type Schema struct {
	// Name identifies the schema: letters, digits, '_' and '-', at most 64.
	Name string
	// Schema is the JSON Schema document, a JSON object.
	Schema json.RawMessage
	// Strict asks the server to follow the schema exactly (OpenAI's strict
	// mode; local servers always constrain decoding).
	Strict bool
}

// Request is one chat completion call. Pointer fields are sent only when
// set, so the server's defaults apply otherwise.
type Request struct {
	Messages []Message
	// N is the number of choices wanted; 0 means 1. Servers that ignore n or
	// cap it are handled by the client (see the package doc).
	N           int
	Temperature *float64
	TopP        *float64
	// MaxTokens bounds each choice's completion; 0 leaves it to the server.
	MaxTokens int
	// Seed makes sampling repeatable on servers that support it. When the
	// client splits a request, sub-request k carries Seed + (index of its
	// first choice), so split choices are not copies of one another.
	Seed *int64
	Stop []string
	// Logprobs asks for per-token log-probabilities; TopLogprobs (needs
	// Logprobs) asks for that many alternatives at each position.
	Logprobs    bool
	TopLogprobs int
	// JSONSchema, when set, constrains the output to a JSON Schema.
	JSONSchema *Schema
}

var schemaName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckSampling reports the problems of the sampling settings a caller's configuration
// passes on to its requests (the LLM Judge's, the LLM fact extractor's): a negative token
// bound, a temperature that is not a non-negative number. name is how the bound is
// called in the messages ("max tokens" in a configuration, "max_tokens" on the wire).
func CheckSampling(name string, maxTokens int, temperature *float64) []error {
	var errs []error
	if t := temperature; t != nil && (math.IsNaN(*t) || math.IsInf(*t, 0) || *t < 0) {
		errs = append(errs, fmt.Errorf("temperature %v is not a non-negative number", *t))
	}
	if maxTokens < 0 {
		errs = append(errs, fmt.Errorf("%s %d is negative", name, maxTokens))
	}
	return errs
}

// Validate reports every problem with r at once.
func (r Request) Validate() error {
	var errs []error
	if len(r.Messages) == 0 {
		errs = append(errs, errors.New("at least one message is required"))
	}
	for i, m := range r.Messages {
		if m.Role == "" {
			errs = append(errs, fmt.Errorf("message %d: role is empty", i))
		}
	}
	if r.N < 0 {
		errs = append(errs, fmt.Errorf("n %d is negative", r.N))
	}
	errs = append(errs, CheckSampling("max_tokens", r.MaxTokens, r.Temperature)...)
	if p := r.TopP; p != nil && (math.IsNaN(*p) || *p <= 0 || *p > 1) {
		errs = append(errs, fmt.Errorf("top_p %v is outside (0, 1]", *p))
	}
	if r.TopLogprobs < 0 {
		errs = append(errs, fmt.Errorf("top_logprobs %d is negative", r.TopLogprobs))
	}
	if r.TopLogprobs > 0 && !r.Logprobs {
		errs = append(errs, errors.New("top_logprobs needs logprobs"))
	}
	if s := r.JSONSchema; s != nil {
		if !schemaName.MatchString(s.Name) {
			errs = append(errs, fmt.Errorf("json schema name %q: want 1-64 letters, digits, '_' or '-'", s.Name))
		}
		if t := bytes.TrimSpace(s.Schema); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			errs = append(errs, errors.New("json schema: not a JSON object"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid request: %w", err)
	}
	return nil
}

// choices is the number of choices r asks for.
func (r Request) choices() int {
	if r.N <= 0 {
		return 1
	}
	return r.N
}

// wireRequest is the body of POST /chat/completions.
type wireRequest struct {
	Model               string              `json:"model"`
	Messages            []Message           `json:"messages"`
	N                   int                 `json:"n,omitempty"`
	Temperature         *float64            `json:"temperature,omitempty"`
	TopP                *float64            `json:"top_p,omitempty"`
	MaxTokens           int                 `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                 `json:"max_completion_tokens,omitempty"`
	Seed                *int64              `json:"seed,omitempty"`
	Stop                []string            `json:"stop,omitempty"`
	Logprobs            bool                `json:"logprobs,omitempty"`
	TopLogprobs         *int                `json:"top_logprobs,omitempty"`
	ResponseFormat      *wireResponseFormat `json:"response_format,omitempty"`
	Stream              bool                `json:"stream"`
}

type wireResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *wireJSONSchema `json:"json_schema,omitempty"`
}

type wireJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict,omitempty"`
}

// encodeRequest renders the body of one sub-request asking for n choices,
// seeding it with Seed+seedOffset.
func encodeRequest(model string, r Request, n int, seedOffset int64, maxCompletionTokens bool) ([]byte, error) {
	w := wireRequest{
		Model:       model,
		Messages:    r.Messages,
		Temperature: r.Temperature,
		TopP:        r.TopP,
		Stop:        r.Stop,
		Logprobs:    r.Logprobs,
	}
	if n > 1 {
		// n=1 is the default; leaving it out keeps us clear of servers that
		// reject the field outright.
		w.N = n
	}
	if maxCompletionTokens {
		w.MaxCompletionTokens = r.MaxTokens
	} else {
		w.MaxTokens = r.MaxTokens
	}
	if r.Seed != nil {
		s := *r.Seed + seedOffset
		w.Seed = &s
	}
	if r.Logprobs && r.TopLogprobs > 0 {
		k := r.TopLogprobs
		w.TopLogprobs = &k
	}
	if s := r.JSONSchema; s != nil {
		w.ResponseFormat = &wireResponseFormat{
			Type:       "json_schema",
			JSONSchema: &wireJSONSchema{Name: s.Name, Schema: s.Schema, Strict: s.Strict},
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode chat request: %w", err)
	}
	return b, nil
}
