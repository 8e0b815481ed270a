package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/llm"
)

// The reward server's request decoders. Each turns a request body into items to score:
// the prompt, the completion, the raw label and what was noticed on the way.
type scoreItem struct {
	prompt, completion string
	label              json.RawMessage
	flags              reward.Flags
}

// openRLHFRequest is OpenRLHF's remote reward request (remote_rm_fn): query is the
// decoded prompt and response together, special tokens included; prompts the prompts as
// given to the engine (after the chat template); labels the dataset's label column.
// Newer versions add fields (datasources, query_token_ids, prompt_token_lens, metadata),
// which are ignored.
type openRLHFRequest struct {
	Query   []string          `json:"query"`
	Prompts []string          `json:"prompts"`
	Labels  []json.RawMessage `json:"labels"`
}

// decodeOpenRLHF decodes an OpenRLHF request and cuts each query into its completion.
func decodeOpenRLHF(body []byte, maxItems int) ([]scoreItem, error) {
	var req openRLHFRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode OpenRLHF request: %w", err)
	}
	switch {
	case req.Query == nil:
		return nil, errors.New("decode OpenRLHF request: no \"query\" array")
	case req.Prompts == nil:
		return nil, errors.New("decode OpenRLHF request: no \"prompts\" array (OpenRLHF sends it with the queries since it added labels; without it the completion cannot be told from the prompt)")
	case len(req.Prompts) != len(req.Query):
		return nil, fmt.Errorf("decode OpenRLHF request: %d queries and %d prompts", len(req.Query), len(req.Prompts))
	case req.Labels != nil && len(req.Labels) != len(req.Query):
		return nil, fmt.Errorf("decode OpenRLHF request: %d queries and %d labels", len(req.Query), len(req.Labels))
	case len(req.Query) > maxItems:
		return nil, fmt.Errorf("decode OpenRLHF request: %d queries, more than the limit of %d", len(req.Query), maxItems)
	}
	items := make([]scoreItem, len(req.Query))
	for i, q := range req.Query {
		c, f := splitQuery(q, req.Prompts[i])
		items[i] = scoreItem{prompt: req.Prompts[i], completion: c, flags: f}
		if req.Labels != nil {
			items[i].label = req.Labels[i]
		}
	}
	return items, nil
}

// splitQuery cuts the completion out of an OpenRLHF query. The query is the prompt's and
// the response's tokens decoded together, which normally reproduces the prompt as a
// prefix, perhaps after a BOS token. When the decoded prompt differs (tokenizers that do
// not round-trip), the completion starts after the last occurrence of the prompt's last
// non-empty line (the chat template's assistant header), flagged FlagPromptMismatch; when
// even that is absent the whole query is the completion. Trailing end-of-turn and padding
// tokens are removed.
func splitQuery(query, prompt string) (string, reward.Flags) {
	var c string
	var f reward.Flags
	switch {
	case strings.HasPrefix(query, prompt):
		c = query[len(prompt):]
	case prompt != "" && strings.Contains(query, prompt):
		c = query[strings.Index(query, prompt)+len(prompt):]
	default:
		f |= reward.FlagPromptMismatch
		c = query
		if line := lastLine(prompt); line != "" {
			if i := strings.LastIndex(query, line); i >= 0 {
				c = strings.TrimPrefix(query[i+len(line):], "\n")
			}
		}
	}
	return trimSpecialSuffix(c), f
}

// lastLine is the last non-empty line of s, trimmed.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// trimSpecialSuffix removes end-of-turn and padding tokens ("<|im_end|>", "</s>", …) and
// white space from the end of a completion.
func trimSpecialSuffix(s string) string {
	for {
		t := strings.TrimRight(s, " \t\r\n")
		if !strings.HasSuffix(t, ">") {
			return s
		}
		i := strings.LastIndexByte(t, '<')
		if i < 0 || !reward.IsSpecialToken(t[i:]) {
			return s
		}
		s = t[:i]
	}
}

// trlRequest is what scripts/grpo's TRL reward function posts: TRL's prompts and
// completions (strings, or chat message lists for conversational datasets) and the
// dataset's label column.
type trlRequest struct {
	Prompts     []json.RawMessage `json:"prompts"`
	Completions []json.RawMessage `json:"completions"`
	Labels      []json.RawMessage `json:"labels"`
}

func decodeTRL(body []byte, maxItems int) ([]scoreItem, error) {
	var req trlRequest
	if err := reward.DecodeStrict(bytes.NewReader(body), &req); err != nil {
		return nil, fmt.Errorf("decode TRL request: %w", err)
	}
	switch {
	case req.Completions == nil:
		return nil, errors.New("decode TRL request: no \"completions\" array")
	case req.Prompts != nil && len(req.Prompts) != len(req.Completions):
		return nil, fmt.Errorf("decode TRL request: %d prompts and %d completions", len(req.Prompts), len(req.Completions))
	case req.Labels != nil && len(req.Labels) != len(req.Completions):
		return nil, fmt.Errorf("decode TRL request: %d labels and %d completions", len(req.Labels), len(req.Completions))
	case len(req.Completions) > maxItems:
		return nil, fmt.Errorf("decode TRL request: %d completions, more than the limit of %d", len(req.Completions), maxItems)
	}
	items := make([]scoreItem, len(req.Completions))
	for i := range items {
		c, err := textOrMessages(req.Completions[i])
		if err != nil {
			return nil, fmt.Errorf("decode TRL request: completions[%d]: %w", i, err)
		}
		items[i].completion = c
		if req.Prompts != nil {
			if items[i].prompt, err = textOrMessages(req.Prompts[i]); err != nil {
				return nil, fmt.Errorf("decode TRL request: prompts[%d]: %w", i, err)
			}
		}
		if req.Labels != nil {
			items[i].label = req.Labels[i]
		}
	}
	return items, nil
}

// textOrMessages reads a string, or a list of chat messages whose contents it joins
// (PromptText), or null as "".
func textOrMessages(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case raw[0] == '[':
		var msgs []llm.Message
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return "", fmt.Errorf("want a string or a list of {\"role\", \"content\"} messages: %w", err)
		}
		return reward.PromptText(msgs), nil
	}
	return "", fmt.Errorf("want a string or a list of messages, got %.30s", string(raw))
}

// verlRequest is what scripts/grpo's verl reward function posts: compute_score's
// arguments, one sample (data_source, solution_str, ground_truth, extra_info) or a batch
// (the plural names, as verl's batch reward manager passes them). The prompt comes from
// extra_info.prompt when the dataset put it there.
type verlRequest struct {
	DataSource  *string           `json:"data_source"`
	SolutionStr *string           `json:"solution_str"`
	GroundTruth json.RawMessage   `json:"ground_truth"`
	ExtraInfo   json.RawMessage   `json:"extra_info"`
	DataSources []string          `json:"data_sources"`
	Solutions   []string          `json:"solution_strs"`
	Truths      []json.RawMessage `json:"ground_truths"`
	ExtraInfos  []json.RawMessage `json:"extra_infos"`
}

// decodeVerl decodes a verl request; batch reports which form it was.
func decodeVerl(body []byte, maxItems int) (items []scoreItem, batch bool, err error) {
	var req verlRequest
	if err := reward.DecodeStrict(bytes.NewReader(body), &req); err != nil {
		return nil, false, fmt.Errorf("decode verl request: %w", err)
	}
	single := req.SolutionStr != nil
	batch = req.Solutions != nil
	switch {
	case single && batch:
		return nil, false, errors.New("decode verl request: both solution_str and solution_strs")
	case !single && !batch:
		return nil, false, errors.New("decode verl request: no solution_str (one sample) or solution_strs (a batch)")
	case single:
		prompt, err := extraPrompt(req.ExtraInfo)
		if err != nil {
			return nil, false, fmt.Errorf("decode verl request: extra_info: %w", err)
		}
		return []scoreItem{{prompt: prompt, completion: trimSpecialSuffix(*req.SolutionStr), label: req.GroundTruth}}, false, nil
	}
	n := len(req.Solutions)
	switch {
	case n > maxItems:
		return nil, true, fmt.Errorf("decode verl request: %d solutions, more than the limit of %d", n, maxItems)
	case req.Truths != nil && len(req.Truths) != n:
		return nil, true, fmt.Errorf("decode verl request: %d solutions and %d ground truths", n, len(req.Truths))
	case req.ExtraInfos != nil && len(req.ExtraInfos) != n:
		return nil, true, fmt.Errorf("decode verl request: %d solutions and %d extra infos", n, len(req.ExtraInfos))
	case req.DataSources != nil && len(req.DataSources) != n:
		return nil, true, fmt.Errorf("decode verl request: %d solutions and %d data sources", n, len(req.DataSources))
	}
	items = make([]scoreItem, n)
	for i, s := range req.Solutions {
		items[i].completion = trimSpecialSuffix(s)
		if req.Truths != nil {
			items[i].label = req.Truths[i]
		}
		if req.ExtraInfos != nil {
			if items[i].prompt, err = extraPrompt(req.ExtraInfos[i]); err != nil {
				return nil, true, fmt.Errorf("decode verl request: extra_infos[%d]: %w", i, err)
			}
		}
	}
	return items, true, nil
}

// extraPrompt reads extra_info.prompt (a string or messages); other keys are verl's own.
func extraPrompt(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var info struct {
		Prompt json.RawMessage `json:"prompt"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return "", fmt.Errorf("want an object: %w", err)
	}
	return textOrMessages(info.Prompt)
}
