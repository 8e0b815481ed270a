package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/judge"
)

func TestParseEndpoint(t *testing.T) {
	name, url, model, err := parseEndpoint("qwen=http://127.0.0.1:8000/v1#Qwen2.5-3B")
	if err != nil || name != "qwen" || url != "http://127.0.0.1:8000/v1" || model != "Qwen2.5-3B" {
		t.Errorf("%q %q %q %v", name, url, model, err)
	}
	for _, bad := range []string{"", "x", "x=http://h", "=http://h#m", "x=#m"} {
		if _, _, _, err := parseEndpoint(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestJudgeCommands(t *testing.T) {
	t.Run("audit with rules", func(t *testing.T) {
		code, out, errOut := run(t, "judge", nil, "", "audit", "--old", "I live in Berlin.", "--new", "I moved to Lisbon last month.", "--json")
		var res judge.Result
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("exit %d: %q %s", code, out, errOut)
		}
		if res.Source != "rule" || res.Verdict.Status != judge.StatusConflict || res.Verdict.ConflictType != judge.TypeTemporalUpdate {
			t.Errorf("%+v", res.Verdict)
		}
	})
	t.Run("audit file from stdin", func(t *testing.T) {
		in := `{"old":{"text":"I have a cat."},"new":{"text":"I gave my cat away."}}` + "\n" + `{"old":{"text":"I like tea."},"new":{"text":"I bought new shoes."}}` + "\n"
		code, out, errOut := run(t, "judge", nil, in, "audit", "--json")
		if code != 0 || strings.Count(out, "\n") != 2 {
			t.Fatalf("exit %d: %q %s", code, out, errOut)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		if code, _, errOut := run(t, "judge", nil, "{not json\n", "audit"); code != ExitUsage || !strings.Contains(errOut, "line 1") {
			t.Errorf("exit %d: %s", code, errOut)
		}
		if code, _, _ := run(t, "judge", nil, "", "audit", "--old", "x"); code != ExitUsage {
			t.Errorf("--old alone: exit %d", code)
		}
		if code, _, _ := run(t, "judge", nil, "", "eval", "--endpoint", "nope"); code != ExitUsage {
			t.Errorf("bad endpoint: exit %d", code)
		}
	})
	t.Run("endpoint down falls back to rules", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "<html>502 Bad Gateway</html>", http.StatusBadGateway)
		}))
		defer srv.Close()
		env := map[string]string{"ATMA_LLM_URL": srv.URL + "/v1", "ATMA_LLM_MODEL": "tiny"}
		code, out, errOut := run(t, "judge", env, "", "audit", "--old", "I live in Berlin.", "--new", "I moved to Lisbon.", "--json", "--timeout", "2s")
		var res judge.Result
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Fallback == "" || res.Source != "rule" {
			t.Errorf("exit %d: %q %s", code, out, errOut)
		}
	})
	t.Run("eval and sft-data", func(t *testing.T) {
		dir := t.TempDir()
		code, out, errOut := run(t, "judge", nil, "", "eval", "--n", "40", "--out", filepath.Join(dir, "r.json"))
		if code != 0 || !strings.Contains(out, "rule") {
			t.Fatalf("eval: exit %d: %s %s", code, out, errOut)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "r.json")); err != nil || !json.Valid(b) {
			t.Errorf("report file: %v", err)
		}
		code, out, errOut = run(t, "judge", nil, "", "sft-data", "--n", "5")
		if code != 0 || strings.Count(out, "\n") != 5 || !strings.Contains(out, `"role":"assistant"`) {
			t.Errorf("sft-data: exit %d: %s", code, errOut)
		}
	})
}
