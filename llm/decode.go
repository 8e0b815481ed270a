package llm

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Choice is one generated completion.
type Choice struct {
	// Index is the choice's position in Response.Choices (0..N-1), whatever
	// index the server gave it within its own sub-request.
	Index   int
	Content string
	// Reasoning is the separate reasoning text that reasoning-model parsers
	// return next to the answer (reasoning_content in vLLM and llama-server,
	// reasoning in Ollama); empty otherwise.
	Reasoning    string
	FinishReason string
	// Logprobs holds one entry per generated token when the request asked
	// for logprobs, whichever of the two wire forms the server used.
	Logprobs []TokenLogprob
	// Tokens is the number of completion tokens of this choice when known:
	// the length of Logprobs, or the server's completion_tokens when the
	// choice was the only one in its response. 0 means unknown.
	Tokens int
}

// TokenLogprob is the log-probability of one generated token and, when
// requested, the most likely alternatives at its position.
type TokenLogprob struct {
	Token   string
	Logprob float64
	// Top is in the server's order for chat-style logprobs (most likely
	// first on every server we know), and sorted by descending Logprob, then
	// Token, for the legacy map form, whose order JSON does not keep.
	Top []TopLogprob
}

// TopLogprob is one alternative token at a position.
type TopLogprob struct {
	Token   string
	Logprob float64
}

// Usage counts tokens.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
}

func (u *Usage) add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
}

// decoded is one HTTP response's worth of choices.
type decoded struct {
	Model    string
	Choices  []Choice
	Usage    Usage
	HasUsage bool
}

type wireResponse struct {
	Model   string          `json:"model"`
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        *int            `json:"index"`
	Message      *wireMessage    `json:"message"`
	FinishReason *string         `json:"finish_reason"`
	Logprobs     json.RawMessage `json:"logprobs"`
}

type wireMessage struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// decodeChatResponse parses a 2xx body of POST /chat/completions. It accepts
// both logprobs forms and reports ErrBadResponse, saying what was wrong, for
// anything that is not a usable completion. wantLogprobs makes a choice with
// content and no logprobs an error: a server that silently drops logprobs
// would otherwise poison every downstream score.
func decodeChatResponse(body []byte, wantLogprobs bool) (*decoded, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badResponse(body, "empty body")
	}
	if isHTML(body) {
		what := "HTML page instead of JSON"
		if t := htmlTitle(body); t != "" {
			what += fmt.Sprintf(" (title %q)", t)
		}
		return nil, badResponse(body, "%s; is the base URL the API root (for example http://host:port/v1)?", what)
	}
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, badResponse(body, "invalid JSON (%v)", err)
	}
	if len(w.Choices) == 0 {
		// Some servers answer 200 with only an error object.
		if len(w.Error) > 0 && !bytes.Equal(bytes.TrimSpace(w.Error), []byte("null")) {
			e := newAPIError(http.StatusOK, nil, body, "", time.Time{})
			if e.kind == nil || e.kind == ErrBadResponse {
				return nil, fmt.Errorf("%w: %w", ErrBadResponse, e)
			}
			return nil, e
		}
		return nil, badResponse(body, "no choices")
	}
	d := &decoded{Model: w.Model}
	if w.Usage != nil {
		d.HasUsage = true
		d.Usage = Usage{w.Usage.PromptTokens, w.Usage.CompletionTokens, w.Usage.TotalTokens}
		if d.Usage.TotalTokens == 0 {
			d.Usage.TotalTokens = d.Usage.PromptTokens + d.Usage.CompletionTokens
		}
	}
	indexed := true
	seen := make(map[int]bool, len(w.Choices))
	for i, wc := range w.Choices {
		if wc.Message == nil {
			return nil, badResponse(body, "choice %d has no message", i)
		}
		content, err := decodeContent(wc.Message.Content)
		if err != nil {
			return nil, badResponse(body, "choice %d: %v", i, err)
		}
		c := Choice{Content: content}
		if wc.FinishReason != nil {
			c.FinishReason = *wc.FinishReason
		}
		switch {
		case wc.Message.ReasoningContent != nil:
			c.Reasoning = *wc.Message.ReasoningContent
		case wc.Message.Reasoning != nil:
			c.Reasoning = *wc.Message.Reasoning
		}
		lps, present, err := decodeLogprobs(wc.Logprobs)
		if err != nil {
			return nil, badResponse(body, "choice %d logprobs: %v", i, err)
		}
		if wantLogprobs && !present && content != "" {
			return nil, badResponse(body, "choice %d: logprobs were requested but the server sent none", i)
		}
		c.Logprobs = lps
		if present {
			c.Tokens = len(lps)
		}
		if wc.Index == nil || seen[*wc.Index] {
			indexed = false
		} else {
			seen[*wc.Index] = true
			c.Index = *wc.Index
		}
		d.Choices = append(d.Choices, c)
	}
	// Choices come back in index order from every server we know; sort in
	// case one does not, but only when the indices are usable.
	if indexed {
		slices.SortStableFunc(d.Choices, func(a, b Choice) int { return cmp.Compare(a.Index, b.Index) })
	}
	if len(d.Choices) == 1 && d.Choices[0].Tokens == 0 && d.HasUsage {
		d.Choices[0].Tokens = d.Usage.CompletionTokens
	}
	return d, nil
}

// decodeContent accepts the message content as a string, null (tool calls,
// refusals, reasoning cut off by max_tokens) or an array of text parts.
func decodeContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("content: %w", err)
		}
		return s, nil
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("content parts: %w", err)
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "" || p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("content is neither a string nor a list of parts")
}

// chatLogprobs is the chat-completions form:
// {"content":[{"token":..,"logprob":..,"top_logprobs":[{"token":..,"logprob":..}]}]}
type chatLogprobs struct {
	Content []struct {
		Token       *string  `json:"token"`
		Logprob     *float64 `json:"logprob"`
		TopLogprobs []struct {
			Token   *string  `json:"token"`
			Logprob *float64 `json:"logprob"`
		} `json:"top_logprobs"`
	} `json:"content"`
}

// legacyLogprobs is the completions form, which some chat servers still send:
// {"tokens":[..],"token_logprobs":[..],"top_logprobs":[{"tok":lp,..},..]}
type legacyLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []*float64           `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

// decodeLogprobs turns either wire form into []TokenLogprob. present is
// false when the field is absent or null.
func decodeLogprobs(raw json.RawMessage) (lps []TokenLogprob, present bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false, nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, false, fmt.Errorf("not an object: %w", err)
	}
	if c, ok := keys["content"]; ok {
		if bytes.Equal(bytes.TrimSpace(c), []byte("null")) {
			return nil, false, nil
		}
		var cl chatLogprobs
		if err := json.Unmarshal(raw, &cl); err != nil {
			return nil, false, fmt.Errorf("chat form: %w", err)
		}
		lps = make([]TokenLogprob, 0, len(cl.Content))
		for i, e := range cl.Content {
			if e.Token == nil || e.Logprob == nil {
				return nil, false, fmt.Errorf("token %d: token or logprob missing", i)
			}
			t := TokenLogprob{Token: *e.Token, Logprob: *e.Logprob}
			for j, alt := range e.TopLogprobs {
				if alt.Token == nil || alt.Logprob == nil {
					return nil, false, fmt.Errorf("token %d alternative %d: token or logprob missing", i, j)
				}
				t.Top = append(t.Top, TopLogprob{Token: *alt.Token, Logprob: *alt.Logprob})
			}
			lps = append(lps, t)
		}
		return lps, true, nil
	}
	if _, ok := keys["tokens"]; ok {
		var ll legacyLogprobs
		if err := json.Unmarshal(raw, &ll); err != nil {
			return nil, false, fmt.Errorf("legacy form: %w", err)
		}
		if len(ll.TokenLogprobs) != len(ll.Tokens) {
			return nil, false, fmt.Errorf("legacy form: %d tokens but %d token_logprobs", len(ll.Tokens), len(ll.TokenLogprobs))
		}
		if len(ll.TopLogprobs) != 0 && len(ll.TopLogprobs) != len(ll.Tokens) {
			return nil, false, fmt.Errorf("legacy form: %d tokens but %d top_logprobs", len(ll.Tokens), len(ll.TopLogprobs))
		}
		lps = make([]TokenLogprob, len(ll.Tokens))
		for i, tok := range ll.Tokens {
			if ll.TokenLogprobs[i] == nil {
				return nil, false, fmt.Errorf("legacy form: token %d has a null logprob", i)
			}
			lps[i] = TokenLogprob{Token: tok, Logprob: *ll.TokenLogprobs[i]}
			if len(ll.TopLogprobs) == 0 || len(ll.TopLogprobs[i]) == 0 {
				continue
			}
			top := make([]TopLogprob, 0, len(ll.TopLogprobs[i]))
			for t, lp := range ll.TopLogprobs[i] {
				top = append(top, TopLogprob{Token: t, Logprob: lp})
			}
			slices.SortFunc(top, func(a, b TopLogprob) int {
				if c := cmp.Compare(b.Logprob, a.Logprob); c != 0 {
					return c
				}
				return strings.Compare(a.Token, b.Token)
			})
			lps[i].Top = top
		}
		return lps, true, nil
	}
	return nil, false, errors.New("neither the chat form (content) nor the legacy form (tokens)")
}

// decodeModels parses GET /models.
func decodeModels(body []byte) ([]string, error) {
	if isHTML(body) {
		return nil, badResponse(body, "HTML page instead of JSON; is the base URL the API root (for example http://host:port/v1)?")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, badResponse(body, "invalid JSON (%v)", err)
	}
	raw, ok := top["data"]
	if !ok {
		return nil, badResponse(body, "no data field")
	}
	var data []struct {
		ID string `json:"id"`
	}
	// Ollama answers "data": null when no model is pulled.
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, badResponse(body, "data is not a list of models (%v)", err)
	}
	ids := make([]string, 0, len(data))
	for i, m := range data {
		if m.ID == "" {
			return nil, badResponse(body, "model %d has no id", i)
		}
		ids = append(ids, m.ID)
	}
	return ids, nil
}
