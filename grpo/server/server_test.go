package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atma-dev/atma/grpo/grpotest"
	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

// qwenPrompt renders an item's chat the way Qwen2.5's chat template does, with the
// generation prompt, as OpenRLHF passes it to vLLM with --data.apply_chat_template.
func qwenPrompt(it eval.Item) string {
	var b strings.Builder
	for _, m := range judge.Messages(it.Pair) {
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String()
}

func labelString(t *testing.T, it eval.Item) string {
	t.Helper()
	row, err := DatasetRowFor(it)
	if err != nil {
		t.Fatal(err)
	}
	return row.Label
}

func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func post(t *testing.T, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	resp, err := http.Post(url, "application/json", rd)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestOpenRLHFRequest sends what OpenRLHF's remote_rm_fn sends: query = prompt and
// response decoded together without skipping special tokens, prompts as templated,
// labels as the dataset's strings, plus the fields newer versions add.
func TestOpenRLHFRequest(t *testing.T) {
	_, srv := newTestServer(t, Config{})
	r := newTestRewarder(t, nil)
	cases := []struct {
		item       eval.Item
		completion string
		query      func(prompt, completion string) string
	}{
		{grpotest.ItemJob, grpotest.JobGood, func(p, c string) string { return p + c + "<|im_end|>" }},
		{grpotest.ItemJob, grpotest.JobSupersede, func(p, c string) string { return p + c + "<|im_end|><|endoftext|><|endoftext|>" }},
		{grpotest.ItemDiet, grpotest.DietGood, func(p, c string) string { return "<s>" + p + c + "</s>" }}, // a BOS before the prompt
		{grpotest.ItemHobby, grpotest.HobbyTransition, func(p, c string) string { return p + c }},          // cut at max tokens: no end marker
	}
	var queries, prompts, labels []string
	for _, c := range cases {
		p := qwenPrompt(c.item)
		queries = append(queries, c.query(p, c.completion))
		prompts = append(prompts, p)
		labels = append(labels, labelString(t, c.item))
	}
	code, body := post(t, srv.URL+"/reward", map[string]any{
		"query": queries, "prompts": prompts, "labels": labels,
		"datasources": []string{"atma/judge", "atma/judge", "atma/judge", "atma/judge"},
	})
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var resp openRLHFResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Rewards) != len(cases) || len(resp.Scores) != len(cases) {
		t.Fatalf("%d rewards, %d scores for %d queries", len(resp.Rewards), len(resp.Scores), len(cases))
	}
	for k, n := range append(reward.ComponentNames(), "failed", "no_verdict") {
		if len(resp.ExtraLogs[n]) != len(cases) {
			t.Errorf("extra_logs[%q] has %d values (key %d)", n, len(resp.ExtraLogs[n]), k)
		}
	}
	for i, c := range cases {
		// The prompt the reward sees is the templated one; the score must equal scoring the
		// bare completion against it.
		want := r.Score(prompts[i], c.completion, reward.LabelFor(c.item))
		if !near(resp.Rewards[i], want.Total) {
			t.Errorf("query %d: reward %v, want %v", i, resp.Rewards[i], want.Total)
		}
		if !near(resp.ExtraLogs["verdict"][i], want.Components.Verdict) || resp.ExtraLogs["failed"][i] != 0 {
			t.Errorf("query %d: verdict log %v, failed %v", i, resp.ExtraLogs["verdict"][i], resp.ExtraLogs["failed"][i])
		}
		if !near(resp.Scores[i], want.Components.Verdict) { // verdict credit is out of 1 by default
			t.Errorf("query %d: score %v, want %v", i, resp.Scores[i], want.Components.Verdict)
		}
	}
	if resp.Rewards[0] <= resp.Rewards[1] || resp.Rewards[2] < 5 {
		t.Errorf("rewards %v do not rank the answers", resp.Rewards)
	}
	// The empty request scripts/grpo/openrlhf_grpo.sh sends to check the server is up.
	code, body = post(t, srv.URL+"/reward", `{"query":[],"prompts":[],"labels":[]}`)
	if code != 200 || !strings.HasPrefix(string(body), `{"rewards":[],"scores":[]`) {
		t.Errorf("empty request: %d %s", code, body)
	}
}

// TestTRLRequest sends what scripts/grpo/trl_grpo.py's reward function posts for a
// conversational dataset: prompts and completions as message lists, labels from the
// dataset's label column.
func TestTRLRequest(t *testing.T) {
	_, srv := newTestServer(t, Config{})
	r := newTestRewarder(t, nil)
	items := []eval.Item{grpotest.ItemJob, grpotest.ItemDiet}
	completions := []string{grpotest.JobGood, grpotest.DietMissed}
	var prompts, comps []any
	var labels []string
	for i, it := range items {
		prompts = append(prompts, judge.Messages(it.Pair))
		comps = append(comps, []map[string]string{{"role": "assistant", "content": completions[i]}})
		labels = append(labels, labelString(t, it))
	}
	code, body := post(t, srv.URL+"/trl", map[string]any{"prompts": prompts, "completions": comps, "labels": labels})
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	var resp trlResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	for i, it := range items {
		want := r.Score(promptOf(it), completions[i], reward.LabelFor(it))
		if !near(resp.Rewards[i], want.Total) || !near(resp.Components["implicit"][i], want.Components.Implicit) {
			t.Errorf("completion %d: reward %v implicit %v, want %v", i, resp.Rewards[i], resp.Components["implicit"][i], want)
		}
	}
	// Plain strings, as TRL passes for a standard (non-conversational) dataset.
	code, body = post(t, srv.URL+"/trl", map[string]any{"prompts": []string{promptOf(grpotest.ItemJob)}, "completions": []string{grpotest.JobGood}, "labels": []string{labelString(t, grpotest.ItemJob)}})
	if code != 200 || !strings.Contains(string(body), `"rewards":[4.5]`) {
		t.Errorf("string request: %d %s", code, body)
	}
}

// TestVerlRequest sends what scripts/grpo/verl_reward.py posts: compute_score's arguments
// for one sample, and the batch form.
func TestVerlRequest(t *testing.T) {
	_, srv := newTestServer(t, Config{})
	row, err := DatasetRowFor(grpotest.ItemJob)
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, srv.URL+"/verl", map[string]any{
		"data_source": DataSource, "solution_str": grpotest.JobGood, "ground_truth": row.Label,
		"extra_info": map[string]any{"index": 3, "split": "train", "prompt": row.ExtraInfo.Prompt},
	})
	var single map[string]float64
	if code != 200 || json.Unmarshal(body, &single) != nil || !near(single["score"], 4.5) || single["summary"] != 1 || single["failed"] != 0 {
		t.Fatalf("single: %d %s", code, body)
	}
	code, body = post(t, srv.URL+"/verl", map[string]any{
		"data_sources": []string{DataSource, DataSource}, "solution_strs": []string{grpotest.JobGood, ""},
		"ground_truths": []string{row.Label, row.Label}, "extra_infos": []any{nil, map[string]any{"prompt": row.ExtraInfo.Prompt}},
	})
	var batch struct{ Results []map[string]float64 }
	if code != 200 || json.Unmarshal(body, &batch) != nil || len(batch.Results) != 2 || batch.Results[1]["failed"] != 1 || !near(batch.Results[0]["score"], 4.5) {
		t.Fatalf("batch: %d %s", code, body)
	}
}

func TestServerBadRequests(t *testing.T) {
	_, srv := newTestServer(t, Config{MaxBodyBytes: 4096, MaxItems: 3})
	for _, tt := range []struct {
		name, path string
		body       any
		code       int
		want       string
	}{
		{"not JSON", "/reward", "<html>", 400, "decode OpenRLHF request"},
		{"no prompts", "/reward", map[string]any{"query": []string{"x"}}, 400, "no \"prompts\""},
		{"lengths", "/reward", map[string]any{"query": []string{"x", "y"}, "prompts": []string{"x"}}, 400, "2 queries and 1 prompts"},
		{"too many", "/reward", map[string]any{"query": []string{"a", "b", "c", "d"}, "prompts": []string{"a", "b", "c", "d"}}, 400, "limit of 3"},
		{"too big", "/reward", map[string]any{"query": []string{strings.Repeat("x", 5000)}, "prompts": []string{""}}, 413, "exceeds 4096 bytes"},
		{"bad label", "/reward", map[string]any{"query": []string{"x"}, "prompts": []string{""}, "labels": []string{`{"status":"conflict","conflict_type":"none","action":"keep"}`}}, 400, "labels[0]: invalid label"},
		{"label with unknown key", "/reward", map[string]any{"query": []string{"x"}, "prompts": []string{""}, "labels": []string{`{"status":"consistent","conflict_type":"none","action":"keep","gold":1}`}}, 400, "unknown field"},
		{"TRL unknown key", "/trl", map[string]any{"completions": []string{"x"}, "prompt": []string{"x"}}, 400, "unknown field \"prompt\""},
		{"TRL completion shape", "/trl", map[string]any{"completions": []any{42}}, 400, "completions[0]"},
		{"verl both forms", "/verl", map[string]any{"solution_str": "a", "solution_strs": []string{"b"}}, 400, "both"},
		{"verl neither", "/verl", map[string]any{"data_source": "x"}, 400, "no solution_str"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, srv.URL+tt.path, tt.body)
			var e map[string]string
			if json.Unmarshal(body, &e) != nil || e["error"] == "" {
				t.Fatalf("error body %s is not {\"error\": ...}", body)
			}
			if code != tt.code || !strings.Contains(e["error"], tt.want) {
				t.Errorf("%d %q, want %d mentioning %q", code, e["error"], tt.code, tt.want)
			}
		})
	}
	resp, err := http.Get(srv.URL + "/reward")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /reward: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestServerMissingLabels(t *testing.T) {
	req := map[string]any{"query": []string{"p" + grpotest.JobGood, "p" + grpotest.JobGood}, "prompts": []string{"p", "p"}, "labels": []any{nil, ""}}
	t.Run("counted", func(t *testing.T) {
		_, srv := newTestServer(t, Config{})
		code, body := post(t, srv.URL+"/reward", req)
		var resp openRLHFResponse
		if code != 200 || json.Unmarshal(body, &resp) != nil {
			t.Fatalf("%d %s", code, body)
		}
		if resp.ExtraLogs["failed"][0] != 1 || resp.ExtraLogs["no_label"][1] != 1 || !near(resp.Rewards[0], 2) {
			t.Errorf("missing labels not counted: %s", body)
		}
	})
	t.Run("required", func(t *testing.T) {
		_, srv := newTestServer(t, Config{RequireLabels: true})
		code, body := post(t, srv.URL+"/reward", req)
		if code != 400 || !strings.Contains(string(body), "labels[0]: no gold label; every completion needs") {
			t.Errorf("%d %s", code, body)
		}
	})
}

func TestServerHealthAndMetrics(t *testing.T) {
	_, srv := newTestServer(t, Config{})
	post(t, srv.URL+"/reward", map[string]any{"query": []string{"p" + grpotest.JobGood, "p"}, "prompts": []string{"p", "p"}, "labels": []string{labelString(t, grpotest.ItemJob), labelString(t, grpotest.ItemJob)}})
	post(t, srv.URL+"/trl", "{")
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"status":"ok"`) {
		t.Errorf("healthz: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`atma_reward_requests_total{code="200",endpoint="openrlhf"} 1`,
		`atma_reward_requests_total{code="400",endpoint="trl"} 1`,
		`atma_reward_completions_total{endpoint="openrlhf"} 2`,
		`atma_reward_flags_total{flag="empty"} 1`,
		`atma_reward_component_sum{component="verdict"} 1`,
		`atma_reward_scored_total 2`,
		`atma_reward_inflight_requests 0`,
		`atma_reward_request_duration_seconds_count{endpoint="openrlhf"} 1`,
		`atma_reward_request_duration_seconds_bucket{endpoint="trl",le="+Inf"} 1`,
		"# TYPE atma_reward_request_duration_seconds histogram",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("metrics content type %q", ct)
	}
	// Every sample line is "name{labels} value" or "name value".
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		if f := strings.Fields(line); len(f) != 2 || !strings.HasPrefix(f[0], "atma_reward_") {
			t.Errorf("malformed metrics line %q", line)
		}
	}
}

// TestServerConcurrent sends many requests at once through a server that scores two at a
// time, each large enough to be scored on several goroutines.
func TestServerConcurrent(t *testing.T) {
	_, srv := newTestServer(t, Config{MaxConcurrent: 2})
	n := 200
	req := map[string]any{"query": make([]string, n), "prompts": make([]string, n), "labels": make([]string, n)}
	for i := range n {
		req["query"].([]string)[i] = "p" + grpotest.JobGood
		req["prompts"].([]string)[i] = "p"
		req["labels"].([]string)[i] = labelString(t, grpotest.ItemJob)
	}
	raw, _ := json.Marshal(req)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for range 16 {
		wg.Go(func() {
			resp, err := http.Post(srv.URL+"/reward", "application/json", bytes.NewReader(raw))
			if err != nil {
				errs <- err.Error()
				return
			}
			defer resp.Body.Close()
			var out openRLHFResponse
			if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.Rewards) != n || !near(out.Rewards[n-1], 4.5) {
				errs <- fmt.Sprintf("status %d, %d rewards", resp.StatusCode, len(out.Rewards))
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestSplitQuery(t *testing.T) {
	for _, tt := range []struct {
		name, query, prompt, want string
		flags                     reward.Flags
	}{
		{"prefix", "PROMPT\nanswer<|im_end|>", "PROMPT\n", "answer", 0},
		{"bos", "<s>PROMPT answer</s>", "PROMPT ", "answer", 0},
		{"padding and eos", "P answer <|eot_id|><|finetune_right_pad_id|>", "P ", "answer ", 0},
		{"prompt decoded differently", "sys\nuser text\n<|im_start|>assistant\nanswer<|im_end|>", "sys\nuser  text\n<|im_start|>assistant\n", "answer", reward.FlagPromptMismatch},
		{"prompt nowhere", "answer", "something else", "answer", reward.FlagPromptMismatch},
		{"keeps a literal tag", "P a <b>", "P ", "a <b>", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, f := splitQuery(tt.query, tt.prompt)
			if got != tt.want || f != tt.flags {
				t.Errorf("splitQuery = %q, %v; want %q, %v", got, f, tt.want, tt.flags)
			}
		})
	}
}

func FuzzDecodeOpenRLHF(f *testing.F) {
	f.Add([]byte(`{"query":["P answer<|im_end|>"],"prompts":["P "],"labels":["{}"]}`))
	f.Add([]byte(`{"query":["x"],"prompts":["x"],"labels":[null],"datasources":["a"]}`))
	f.Add([]byte(`{"query":[],"prompts":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := decodeOpenRLHF(body, 8)
		if err != nil {
			return
		}
		var req openRLHFRequest
		if json.Unmarshal(body, &req) != nil || len(items) != len(req.Query) || len(items) > 8 {
			t.Fatalf("%d items from %q", len(items), body)
		}
		for i, it := range items {
			if !strings.Contains(req.Query[i], it.completion) {
				t.Fatalf("completion %q is not part of query %q", it.completion, req.Query[i])
			}
		}
	})
}

// wantText is what a TRL or verl text field reads as, from its definition: a JSON
// string as it is, null or absent as "", a list of messages as their contents joined by
// blank lines.
func wantText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var msgs []struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatalf("accepted text %s is neither a string nor messages: %v", raw, err)
	}
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n\n")
}

// sameLabel: an item's label is the request's raw label, byte for byte (nil when the
// request has none).
func sameLabel(got, want json.RawMessage) bool {
	return bytes.Equal(got, want) && (got == nil) == (want == nil)
}

func FuzzDecodeTRL(f *testing.F) {
	f.Add([]byte(`{"prompts":[[{"role":"user","content":"q"}]],"completions":[[{"role":"assistant","content":"a"}]],"labels":["{}"]}`))
	f.Add([]byte(`{"prompts":["q"],"completions":["a"]}`))
	f.Add([]byte(`{"completions":[null]}`))
	f.Add([]byte(`{"prompts":[null,"p"],"completions":[[{"role":"system","content":"s"},{"role":"user","content":"u"}],"b<|im_end|>"],"labels":[1,{"x":[2]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := decodeTRL(body, 8)
		if err != nil {
			return
		}
		var req trlRequest
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("accepted a body encoding/json refuses: %v", err)
		}
		if len(items) != len(req.Completions) || len(items) > 8 {
			t.Fatalf("%d items from %d completions (limit 8)", len(items), len(req.Completions))
		}
		for i, it := range items {
			if want := wantText(t, req.Completions[i]); it.completion != want {
				t.Errorf("completion %d: %q, want %q", i, it.completion, want)
			}
			var prompt json.RawMessage
			if req.Prompts != nil {
				prompt = req.Prompts[i]
			}
			if want := wantText(t, prompt); it.prompt != want {
				t.Errorf("prompt %d: %q, want %q", i, it.prompt, want)
			}
			var label json.RawMessage
			if req.Labels != nil {
				label = req.Labels[i]
			}
			if !sameLabel(it.label, label) {
				t.Errorf("label %d: %s, want %s", i, it.label, label)
			}
		}
	})
}

func FuzzDecodeVerl(f *testing.F) {
	f.Add([]byte(`{"data_source":"atma/judge","solution_str":"a","ground_truth":"{}","extra_info":{"prompt":"p"}}`))
	f.Add([]byte(`{"solution_strs":["a","b"],"ground_truths":["{}","{}"],"extra_infos":[null,{"prompt":[{"role":"user","content":"q"}]}]}`))
	f.Add([]byte(`{"solution_str":"a </s> <|endoftext|>\n","ground_truth":null}`))
	f.Add([]byte(`{"solution_str":"a","solution_strs":["b"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		items, batch, err := decodeVerl(body, 8)
		if err != nil {
			return
		}
		var req verlRequest
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("accepted a body encoding/json refuses: %v", err)
		}
		if (req.SolutionStr != nil) == (req.Solutions != nil) || batch != (req.Solutions != nil) {
			t.Fatalf("batch %v for solution_str %v, solution_strs %v: want exactly one form", batch, req.SolutionStr != nil, req.Solutions != nil)
		}
		// The form's fields, as batch columns of one row for a single sample.
		sols, truths, infos := req.Solutions, req.Truths, req.ExtraInfos
		if !batch {
			sols = []string{*req.SolutionStr}
			truths, infos = []json.RawMessage{req.GroundTruth}, []json.RawMessage{req.ExtraInfo}
		}
		if len(items) != len(sols) || len(items) > 8 {
			t.Fatalf("%d items from %d solutions (limit 8)", len(items), len(sols))
		}
		for i, it := range items {
			// A completion is its solution less every trailing end-of-turn or padding
			// token (and the white space around them), and nothing else.
			rest, ok := strings.CutPrefix(sols[i], it.completion)
			if !ok || !specialRest.MatchString(rest) || specialEnd.MatchString(it.completion) {
				t.Errorf("completion %d: %q from solution %q", i, it.completion, sols[i])
			}
			var label, info json.RawMessage
			if truths != nil {
				label = truths[i]
			}
			if infos != nil {
				info = infos[i]
			}
			if !sameLabel(it.label, label) {
				t.Errorf("label %d: %s, want %s", i, it.label, label)
			}
			var prompt json.RawMessage
			if b := bytes.TrimSpace(info); len(b) > 0 && string(b) != "null" {
				var x struct {
					Prompt json.RawMessage `json:"prompt"`
				}
				if err := json.Unmarshal(b, &x); err != nil {
					t.Fatalf("accepted extra_info %s: %v", b, err)
				}
				prompt = x.Prompt
			}
			if want := wantText(t, prompt); it.prompt != want {
				t.Errorf("prompt %d: %q, want %q", i, it.prompt, want)
			}
		}
	})
}

// The end-of-turn and padding tokens a solution may end in: </s>, <eos>, <pad>,
// <end_of_turn> and every <|…|> (<|im_end|>, <|endoftext|>, …). specialRest matches
// what trimming may remove, specialEnd a completion that still ends in one.
const specialToken = `(?:</s>|<eos>|<pad>|<end_of_turn>|<\|[^<]+\|>)`

var (
	specialRest = regexp.MustCompile(`^(?:\s*` + specialToken + `)*\s*$`)
	specialEnd  = regexp.MustCompile(specialToken + `\s*$`)
)

const testRewardToken = "reward-token-0123456789"

// With a token, every route but /healthz needs it; unknown routes answer JSON 404s.
func TestServerToken(t *testing.T) {
	_, srv := newTestServer(t, Config{Token: testRewardToken})
	body := `{"query":["x"],"prompts":[""]}`
	for _, tt := range []struct {
		name, method, path, auth string
		code                     int
	}{
		{"no token", "POST", "/reward", "", 401},
		{"wrong token", "POST", "/reward", "Bearer nope-nope-nope-nope", 401},
		{"token", "POST", "/reward", "Bearer " + testRewardToken, 200},
		{"metrics need it", "GET", "/metrics", "", 401},
		{"health is open", "GET", "/healthz", "", 200},
		{"unknown route", "GET", "/nothing", "Bearer " + testRewardToken, 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rd io.Reader
			if tt.method == "POST" {
				rd = strings.NewReader(body)
			}
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, rd)
			if err != nil {
				t.Fatal(err)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.code {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.code, b)
			}
			if tt.code >= 400 && !json.Valid(b) {
				t.Errorf("error body %q is not JSON", b)
			}
		})
	}
	if _, err := New(Config{Token: "short"}); err == nil || !strings.Contains(err.Error(), "fewer than 16") {
		t.Errorf("a 5-byte token: %v", err)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// A request waits for a scoring slot before its body is read, and a declared length over
// the limit is refused unread: the slots bound the bodies held in memory.
func TestServerReadsBodiesInTurn(t *testing.T) {
	s, err := New(Config{MaxConcurrent: 1, MaxBodyBytes: 1 << 10, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	// The first request holds the only slot: its body never ends until released.
	pr, pw := io.Pipe()
	first := httptest.NewRequest("POST", "/reward", pr)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeHTTP(httptest.NewRecorder(), first)
	}()
	// Wait until it holds the slot: while a probe can take the slot, the first request
	// has not got there yet.
	for spins := 0; ; spins++ {
		if spins == 1_000_000 {
			t.Fatal("the first request never took the scoring slot: its body is read before the slot")
		}
		select {
		case s.sem <- struct{}{}:
			<-s.sem
			runtime.Gosched()
			continue
		default:
		}
		break
	}
	ctx, cancel := context.WithCancel(t.Context())
	second := &countingReader{r: strings.NewReader(`{"query":["x"],"prompts":[""]}`)}
	req := httptest.NewRequest("POST", "/reward", second).WithContext(ctx)
	cancel() // the client gives up while waiting for the slot
	s.ServeHTTP(httptest.NewRecorder(), req)
	if second.n != 0 {
		t.Errorf("a waiting request's body was read (%d bytes) before it had a slot", second.n)
	}
	big := &countingReader{r: strings.NewReader(strings.Repeat("x", 4<<10))}
	req = httptest.NewRequest("POST", "/reward", big)
	req.ContentLength = 4 << 10
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusRequestEntityTooLarge || big.n != 0 {
		t.Errorf("declared 4 KiB over a 1 KiB limit: %d, %d bytes read", w.Code, big.n)
	}
	pw.CloseWithError(io.ErrUnexpectedEOF)
	<-done
}

// A client whose requests are refused again and again gets one log line a minute.
func TestServerRefusalLogRateLimited(t *testing.T) {
	var logs bytes.Buffer
	s, err := New(Config{Token: testRewardToken, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/reward", strings.NewReader("{}")))
	}
	if n := strings.Count(logs.String(), "request refused"); n != 1 {
		t.Errorf("%d log lines for 5 refusals of one client:\n%s", n, logs.String())
	}
	r := httptest.NewRequest("POST", "/reward", strings.NewReader("{}"))
	r.RemoteAddr = "198.51.100.7:4000"
	s.ServeHTTP(httptest.NewRecorder(), r)
	if n := strings.Count(logs.String(), "request refused"); n != 2 {
		t.Errorf("another client's refusal is not logged: %d lines", n)
	}
}

// A body that stops half-way gets 408 at the body deadline, and frees its scoring slot.
func TestServerSlowBody(t *testing.T) {
	_, srv := newTestServer(t, Config{BodyTimeout: 200 * time.Millisecond, MaxConcurrent: 1})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "POST /reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"query\": [")
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil { // a bound, not the measure
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a partial body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("partial body: %d", resp.StatusCode)
	}
	if code, body := post(t, srv.URL+"/reward", `{"query":["x"],"prompts":[""]}`); code != http.StatusOK {
		t.Errorf("the slot was not freed: %d %s", code, body)
	}
}
