//go:build integration

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/internal/llamatest"
	"github.com/atma-dev/atma/overlay"
)

// TestOverlayLLMPaths runs the overlay's LLM paths through the commands users run,
// against a real llama-server with the tiny random model: the LLM Judge on ingest, with
// and without the verdict schema (an answer that does not parse, or a verdict that does
// not hold together, hands the pair to the rule auditor and the trace says why), the LLM fact extractor, the answer model
// and the retrieve controller (schema-constrained: its JSON parses, and ids outside the
// pool are never applied). A random model says nothing useful; the point is the path.
// The log lines are the per-path figures of the LLM-paths issue.
func TestOverlayLLMPaths(t *testing.T) {
	srv, url, model := llamatest.Endpoint(t, 1, 16384)
	tokens := func() float64 {
		if srv == nil {
			return 0
		}
		return srv.PromptTokens(t)
	}
	cache := testTinyCache(t)
	mems := []string{"I live in Berlin.", "I moved to Lisbon.", "My sister works as a nurse.", "My sister is a teacher now."}
	ingest := func(t *testing.T, data string, extra ...string) ([]overlay.IngestTrace, time.Duration) {
		env := map[string]string{"ATMA_CACHE": cache, "ATMA_DATA": data, "ATMA_LLM_URL": url, "ATMA_LLM_MODEL": model}
		var all []overlay.IngestTrace
		start := time.Now()
		for i, text := range mems {
			at := fmt.Sprintf("2025-0%d-01T00:00:00Z", i+1)
			args := append([]string{"overlay", "add", "--json", "--at", at, "-u", "alice", "--backbone", "test-tiny", "--gate-off"}, extra...)
			code, out, errOut := run(t, "atma", env, "", append(args, text)...)
			var trs []overlay.IngestTrace
			if code != 0 || json.Unmarshal([]byte(out), &trs) != nil || len(trs) != 1 {
				t.Fatalf("add %q: exit %d: %s %s", text, code, out, errOut)
			}
			all = append(all, trs...)
		}
		if code, out, errOut := run(t, "atma", env, "", "overlay", "check"); code != 0 {
			t.Errorf("check: exit %d: %s %s", code, out, errOut)
		}
		return all, time.Since(start)
	}
	audits := func(trs []overlay.IngestTrace) (n, byModel int, fallbacks map[string]int) {
		fallbacks = map[string]int{}
		for _, tr := range trs {
			for _, c := range tr.Candidates {
				if c.Verdict == nil {
					continue
				}
				n++
				if c.Auditor == model {
					byModel++
				} else {
					reason := c.Fallback
					if i := strings.IndexAny(reason, "(:"); i > 0 {
						reason = strings.TrimSpace(reason[:i])
					}
					fallbacks[reason]++
				}
			}
		}
		return n, byModel, fallbacks
	}

	rules, rulesTook := ingest(t, t.TempDir(), "--facts", "offline", "--rules")
	before := tokens()
	free, freeTook := ingest(t, t.TempDir(), "--facts", "offline")
	judgeTokens := tokens() - before // the first time these prompts are seen: llama-server caches prompts
	schema, schemaTook := ingest(t, t.TempDir(), "--facts", "offline", "--verdict-schema")
	n, byModel, fb := audits(free)
	t.Logf("judge without a schema: %d audits, %d answered by the model, fallbacks %v; %v for 4 ingests (rules only %v); %.0f prompt tokens an audited pair",
		n, byModel, fb, freeTook.Round(time.Millisecond), rulesTook.Round(time.Millisecond), judgeTokens/float64(max(n, 1)))
	if n == 0 || byModel+sumValues(fb) != n || len(fb) == 0 {
		t.Errorf("unconstrained judge: %d audits, %d by the model, fallbacks %v (a random model's free text must fall back, with a reason)", n, byModel, fb)
	}
	for _, tr := range schema {
		for _, c := range tr.Candidates {
			if c.Fallback != "" {
				t.Logf("schema fallback: %.300s", c.Fallback)
			}
		}
	}
	n, byModel, fb = audits(schema)
	t.Logf("judge with the verdict schema: %d audits, %d answered by the model (schema-valid %.2f), fallbacks %v; %v for 4 ingests",
		n, byModel, float64(byModel)/float64(max(n, 1)), fb, schemaTook.Round(time.Millisecond))
	if n == 0 || byModel+sumValues(fb) != n {
		t.Errorf("schema-constrained judge: %d audits, %d by the model, fallbacks %v (each audit is the model's or falls back with a reason)", n, byModel, fb)
	}
	if len(rules) != len(mems) {
		t.Errorf("rules-only ingest: %d traces", len(rules))
	}

	// The fact extractor: the model's facts parse against the schema, or the offline
	// extractor takes over and says why.
	facts, _ := ingest(t, t.TempDir(), "--facts", "llm", "--verdict-schema")
	for _, tr := range facts {
		if tr.FactSource != model && !strings.Contains(tr.FactNote, "fallback") {
			t.Errorf("LLM facts: source %q, note %q", tr.FactSource, tr.FactNote)
		}
	}

	// Queries: the answer comes back with the packet; the controller's JSON parses (or is
	// rejected with its reason), and nothing outside the pool is applied.
	env := map[string]string{"ATMA_CACHE": cache, "ATMA_DATA": t.TempDir(), "ATMA_LLM_URL": url, "ATMA_LLM_MODEL": model}
	for _, text := range mems {
		if code, _, errOut := run(t, "atma", env, "", "overlay", "add", "-u", "alice", "--backbone", "test-tiny", "--rules", text); code != 0 {
			t.Fatal(errOut)
		}
	}
	plainStart := time.Now()
	if code, _, errOut := run(t, "atma", env, "", "overlay", "query", "--json", "-u", "alice", "--backbone", "test-tiny", "Where did I live before?"); code != 0 {
		t.Fatalf("plain query: %s", errOut)
	}
	plain := time.Since(plainStart)
	for _, mode := range []string{"", "shadow", "online"} {
		args := []string{"overlay", "query", "--json", "-u", "alice", "--backbone", "test-tiny", "Where did I live before?"}
		if mode == "" {
			args = append(args, "--answer")
		} else {
			args = append(args, "--controller", mode)
		}
		before := tokens()
		start := time.Now()
		code, out, errOut := run(t, "atma", env, "", args...)
		t.Logf("query %q: %v (the same query without the model: %v)", mode, time.Since(start).Round(time.Millisecond), plain.Round(time.Millisecond))
		sent := tokens() - before // prompt tokens processed: a prompt seen before is cached
		var tr overlay.QueryTrace
		if code != 0 || json.Unmarshal([]byte(out), &tr) != nil {
			t.Fatalf("query %s: exit %d: %s", mode, code, errOut)
		}
		switch mode {
		case "":
			t.Logf("answer: %d runes, error %q, %d rows; %.0f prompt tokens", len([]rune(tr.Answer)), tr.AnswerError, len(tr.Packet.Rows), sent)
			if tr.Answer == "" && tr.AnswerError == "" || len(tr.Packet.Rows) == 0 {
				t.Errorf("query --answer: answer %q, error %q, %d rows", tr.Answer, tr.AnswerError, len(tr.Packet.Rows))
			}
		default:
			st := tr.ControllerStatus
			t.Logf("controller %s: applied %t, reason %q; %.0f prompt tokens", mode, st.Applied, st.Reason, sent)
			if st.Reason == "" && !st.Applied {
				t.Errorf("controller %s: not applied and no reason", mode)
			}
			if tr.ControllerOutput != nil && st.Applied {
				for _, s := range tr.ControllerOutput.Selected {
					if !strings.Contains(out, `"id":"`+s.ID+`"`) {
						t.Errorf("controller applied id %q outside the pool", s.ID)
					}
				}
			}
		}
	}
}

// The benchmarks with the endpoint set: LTP and LoCoMo on our own small fixture, the
// answer columns filled (the numbers mean nothing for a random model), answer errors
// counted, no crash.
func TestBenchWithLLM(t *testing.T) {
	_, url, model := llamatest.Endpoint(t, 2, 16384)
	env := map[string]string{"ATMA_CACHE": testTinyCache(t), "ATMA_LLM_URL": url, "ATMA_LLM_MODEL": model}
	fixture := "../../bench/testdata/locomo_fixture.json"
	for _, args := range [][]string{
		{"bench", "ltp", "--locomo", fixture, "--profiles", "1", "--max-turns", "100", "--backbone", "test-tiny", "--json"},
		{"bench", "locomo", "--locomo", fixture, "--conversations", "1", "--backbone", "test-tiny", "--json"},
	} {
		start := time.Now()
		code, out, errOut := run(t, "atma", env, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args[:2], code, errOut)
		}
		var rep map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: report %.300s: %v", args[:2], out, err)
		}
		took := time.Since(start).Round(time.Millisecond)
		switch args[1] {
		case "ltp":
			// Every system's QA block is filled: accuracy over the probes, errors counted.
			var r struct {
				Results []struct {
					Variant struct {
						Name string `json:"name"`
					} `json:"variant"`
					QA *struct {
						Accuracy struct{ N int } `json:"accuracy"`
						Errors   int             `json:"errors"`
					} `json:"qa"`
				} `json:"results"`
			}
			_ = json.Unmarshal([]byte(out), &r)
			filled := 0
			for _, res := range r.Results {
				if res.QA != nil && res.QA.Accuracy.N > 0 {
					filled++
					t.Logf("ltp %s: QA over %d probes, %d answers or grades the endpoint failed to give (%v in all)", res.Variant.Name, res.QA.Accuracy.N, res.QA.Errors, took)
				}
			}
			if filled == 0 {
				t.Errorf("ltp: no QA column filled: %.400s", out)
			}
		case "locomo":
			if !strings.Contains(out, `"f1"`) || !strings.Contains(out, `"answer_errors"`) {
				t.Errorf("locomo: no F1 or answer errors in the report: %.400s", out)
			}
			t.Logf("locomo with the endpoint: %v, report keys %d", took, len(rep))
		}
	}
}

// A Judge whose prompt is larger than the server's context: the rule auditor takes the
// pair, the trace says why, and the bank stays sound.
func TestJudgePromptOverContext(t *testing.T) {
	if os.Getenv("ATMA_LLM_URL") != "" {
		t.Skip("needs the local llama-server with a small context, not ATMA_LLM_URL")
	}
	srv := llamatest.StartWith(t, 1, 512)
	env := map[string]string{"ATMA_CACHE": testTinyCache(t), "ATMA_DATA": t.TempDir(), "ATMA_LLM_URL": srv.URL, "ATMA_LLM_MODEL": llamatest.ModelAlias}
	var last []overlay.IngestTrace
	for i, text := range []string{"I live in Berlin.", "I moved to Lisbon."} {
		code, out, errOut := run(t, "atma", env, "", "overlay", "add", "--json", "--at", fmt.Sprintf("2025-0%d-01T00:00:00Z", i+1), "-u", "alice", "--backbone", "test-tiny", "--gate-off", "--facts", "offline", text)
		if code != 0 || json.Unmarshal([]byte(out), &last) != nil {
			t.Fatalf("add: exit %d: %s", code, errOut)
		}
	}
	found := false
	for _, c := range last[0].Candidates {
		if c.Verdict != nil {
			found = true
			if c.Auditor != "rule" || !strings.Contains(c.Fallback, "context") {
				t.Errorf("over-context pair: auditor %q, fallback %q", c.Auditor, c.Fallback)
			}
		}
	}
	if !found {
		t.Errorf("no audited pair: %+v", last[0].Candidates)
	}
	if code, out, errOut := run(t, "atma", env, "", "overlay", "check"); code != 0 {
		t.Errorf("check: exit %d: %s %s", code, out, errOut)
	}
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
