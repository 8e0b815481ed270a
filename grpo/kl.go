package grpo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/llm"
)

// K3 is the k3 estimator of KL(π‖π_ref) at one token sampled from π, from the two
// log-probabilities of that token: with d = logRef − logPolicy, k3 = e^d − d − 1. It is
// unbiased, never negative, and 0 when the two agree (Schulman's "Approximating KL
// divergence"; the estimator of GRPO, TRL and verl's low_var_kl).
func K3(logPolicy, logRef float64) float64 {
	d := logRef - logPolicy
	return math.Expm1(d) - d
}

// SequenceKL is the mean of K3 over the tokens of one completion: the per-token KL that
// GRPO's loss weighs with its coefficient. The slices hold one log-probability per token,
// aligned. It is an error for them to differ in length, to be empty, or to hold NaN.
func SequenceKL(policy, ref []float64) (float64, error) {
	if len(policy) != len(ref) {
		return 0, fmt.Errorf("kl: %d policy and %d reference log-probabilities", len(policy), len(ref))
	}
	if len(policy) == 0 {
		return 0, errors.New("kl: no tokens")
	}
	sum := 0.0
	for i := range policy {
		if math.IsNaN(policy[i]) || math.IsNaN(ref[i]) {
			return 0, fmt.Errorf("kl: token %d has a NaN log-probability", i)
		}
		sum += K3(policy[i], ref[i])
	}
	return sum / float64(len(policy)), nil
}

// Reference scores a completion under the reference model: the log-probability of each
// of the policy's tokens, in order. tokens are the policy's tokens (from a request with
// logprobs), which the reference must match.
type Reference interface {
	Logprobs(ctx context.Context, messages []llm.Message, completion string, tokens []llm.TokenLogprob) ([]float64, error)
}

// ErrTokenMismatch: the reference tokenised the completion differently from the policy,
// so per-token log-probabilities cannot be paired.
var ErrTokenMismatch = errors.New("reference tokens do not match the policy's")

// PromptLogprobsConfig configures a PromptLogprobsReference.
type PromptLogprobsConfig struct {
	// BaseURL is the API root of the reference server, as in llm.Config
	// ("http://localhost:8001/v1").
	BaseURL string
	// Model is the reference model's name on that server.
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Timeout bounds one request (0: 2 minutes).
	Timeout time.Duration
	// HTTPClient, when set, is used as is.
	HTTPClient *http.Client
}

// PromptLogprobsReference reads reference log-probabilities from a vLLM server: it sends
// the chat with the completion as the final assistant turn, continued rather than closed
// (continue_final_message, add_generation_prompt false), asks for prompt_logprobs and one
// new token, and takes the last len(tokens) prompt positions, which are the completion's
// tokens when the reference shares the policy's tokenizer (the usual set-up: the
// reference is the policy's base model). A trailing end-of-turn token that the policy
// reports and the continued turn lacks is left out of the pairing; any other difference in
// tokens is ErrTokenMismatch. It is safe for concurrent use.
type PromptLogprobsReference struct {
	cfg PromptLogprobsConfig
	url string
	hc  *http.Client
}

// NewPromptLogprobsReference returns a reference backed by a vLLM server.
func NewPromptLogprobsReference(cfg PromptLogprobsConfig) (*PromptLogprobsReference, error) {
	var errs []error
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		errs = append(errs, fmt.Errorf("reference base URL %q is not an http(s) URL", cfg.BaseURL))
	}
	if cfg.Model == "" {
		errs = append(errs, errors.New("reference model is empty"))
	}
	if cfg.Timeout < 0 {
		errs = append(errs, fmt.Errorf("reference timeout %v is negative", cfg.Timeout))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: cfg.Timeout}
	}
	return &PromptLogprobsReference{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", hc: hc}, nil
}

type promptLogprobsRequest struct {
	Model                string        `json:"model"`
	Messages             []llm.Message `json:"messages"`
	MaxTokens            int           `json:"max_tokens"`
	Temperature          float64       `json:"temperature"`
	PromptLogprobs       int           `json:"prompt_logprobs"`
	AddGenerationPrompt  bool          `json:"add_generation_prompt"`
	ContinueFinalMessage bool          `json:"continue_final_message"`
}

// promptLogprob is one entry of a position's map, token id → entry.
type promptLogprob struct {
	Logprob      *float64 `json:"logprob"`
	Rank         int      `json:"rank"`
	DecodedToken *string  `json:"decoded_token"`
}

type promptLogprobsResponse struct {
	PromptLogprobs []map[string]promptLogprob `json:"prompt_logprobs"`
}

// maxReferenceBody bounds the reference's answer: one map per prompt token.
const maxReferenceBody = 64 << 20

// Logprobs implements Reference.
func (r *PromptLogprobsReference) Logprobs(ctx context.Context, messages []llm.Message, completion string, tokens []llm.TokenLogprob) ([]float64, error) {
	if len(tokens) == 0 {
		return nil, errors.New("reference logprobs: the policy returned no token logprobs")
	}
	msgs := append(append([]llm.Message(nil), messages...), llm.Message{Role: "assistant", Content: completion})
	body, err := json.Marshal(promptLogprobsRequest{
		Model: r.cfg.Model, Messages: msgs, MaxTokens: 1, PromptLogprobs: 0,
		AddGenerationPrompt: false, ContinueFinalMessage: true,
	})
	if err != nil {
		return nil, fmt.Errorf("encode reference request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("reference request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reference request: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxReferenceBody+1))
	if err != nil {
		return nil, fmt.Errorf("read reference response: %w", err)
	}
	if len(raw) > maxReferenceBody {
		return nil, fmt.Errorf("reference response exceeds %d bytes", maxReferenceBody)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("reference server: HTTP %d: %.200s", resp.StatusCode, string(raw))
	}
	positions, err := decodePromptLogprobs(raw)
	if err != nil {
		return nil, err
	}
	return alignReference(positions, tokens)
}

// refToken is one prompt position's log-probability and, when the server said, its text.
type refToken struct {
	logprob float64
	text    *string
}

// decodePromptLogprobs reads vLLM's prompt_logprobs: one entry per prompt token, null for
// the first, else a map from token id to {logprob, rank, decoded_token} holding the
// prompt's own token (and, had more been asked, alternatives).
func decodePromptLogprobs(raw []byte) ([]refToken, error) {
	var pr promptLogprobsResponse
	if err := json.Unmarshal(raw, &pr); err != nil {
		return nil, fmt.Errorf("decode reference response: %w (%.120s)", err, string(raw))
	}
	if len(pr.PromptLogprobs) == 0 {
		return nil, fmt.Errorf("reference response has no prompt_logprobs (is the server vLLM?): %.120s", string(raw))
	}
	out := make([]refToken, 0, len(pr.PromptLogprobs))
	for i, m := range pr.PromptLogprobs {
		if m == nil {
			if i == 0 {
				out = append(out, refToken{logprob: math.NaN()})
				continue
			}
			return nil, fmt.Errorf("reference prompt_logprobs[%d] is null", i)
		}
		if len(m) != 1 {
			return nil, fmt.Errorf("reference prompt_logprobs[%d] has %d entries, want the prompt token alone (prompt_logprobs 0)", i, len(m))
		}
		for _, e := range m {
			if e.Logprob == nil || math.IsNaN(*e.Logprob) {
				return nil, fmt.Errorf("reference prompt_logprobs[%d] has no logprob", i)
			}
			out = append(out, refToken{logprob: *e.Logprob, text: e.DecodedToken})
		}
	}
	return out, nil
}

// alignReference pairs the last reference positions with the policy's tokens.
func alignReference(ref []refToken, tokens []llm.TokenLogprob) ([]float64, error) {
	n := len(tokens)
	for n > 0 && reward.IsSpecialToken(tokens[n-1].Token) {
		last := ref[len(ref)-1]
		if last.text != nil && *last.text == tokens[n-1].Token {
			break // the reference has it too
		}
		n--
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the completion has no tokens besides end-of-turn markers", ErrTokenMismatch)
	}
	if n > len(ref)-1 {
		return nil, fmt.Errorf("%w: %d policy tokens, %d reference positions", ErrTokenMismatch, n, len(ref))
	}
	tail := ref[len(ref)-n:]
	out := make([]float64, n)
	for i, t := range tail {
		if t.text != nil && *t.text != tokens[i].Token {
			return nil, fmt.Errorf("%w: token %d is %q for the policy, %q for the reference", ErrTokenMismatch, i, tokens[i].Token, *t.text)
		}
		if math.IsNaN(t.logprob) {
			return nil, fmt.Errorf("%w: token %d falls on the reference's first position", ErrTokenMismatch, i)
		}
		out[i] = t.logprob
	}
	return out, nil
}

// policyLogprobs are the policy's log-probabilities of the tokens the reference was paired
// with: the first n.
func policyLogprobs(tokens []llm.TokenLogprob, n int) []float64 {
	out := make([]float64, n)
	for i := range n {
		out[i] = tokens[i].Logprob
	}
	return out
}
