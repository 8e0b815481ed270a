package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
)

// toolNameRE matches the function names OpenAI accepts.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// TestToolDefinitions checks the definitions are what OpenAI accepts and that each
// tool's schema and its decoder agree field for field.
func TestToolDefinitions(t *testing.T) {
	b, err := json.Marshal(Tools())
	if err != nil {
		t.Fatal(err)
	}
	var defs []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &defs); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for i, d := range defs {
		t.Run(d.Function.Name, func(t *testing.T) {
			if d.Type != "function" || !toolNameRE.MatchString(d.Function.Name) || names[d.Function.Name] || len(d.Function.Description) < 20 {
				t.Errorf("definition %+v", d)
			}
			names[d.Function.Name] = true
			p := d.Function.Parameters
			if p["type"] != "object" || p["additionalProperties"] != false {
				t.Errorf("parameters %v", p)
			}
			props, _ := p["properties"].(map[string]any)
			for _, r := range anySlice(p["required"]) {
				if _, ok := props[r.(string)]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
			for name, v := range props {
				ps := v.(map[string]any)
				switch ps["type"] {
				case "string", "integer", "boolean":
				default:
					t.Errorf("property %s has type %v", name, ps["type"])
				}
				if ps["description"] == nil {
					t.Errorf("property %s has no description", name)
				}
			}
			// The decoder knows exactly the schema's properties.
			fields := jsonFields(reflect.TypeOf(toolSpecs[i].args()).Elem())
			keys := make([]string, 0, len(props))
			for k := range props {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(fields, keys) {
				t.Errorf("argument fields %v, schema properties %v", fields, keys)
			}
		})
	}
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// toolJSON decodes a successful tool result's content.
func toolJSON(t *testing.T, res ToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", res.Name, res.Content)
	}
	if res.Message.Role != "tool" || res.Message.Content != res.Content {
		t.Errorf("message %+v", res.Message)
	}
	if err := json.Unmarshal([]byte(res.Content), out); err != nil {
		t.Fatalf("%s content: %v: %s", res.Name, err, res.Content)
	}
}

func TestToolCalls(t *testing.T) {
	e := newEnv(t, nil, nil)
	var berlin addResult
	toolJSON(t, e.tool("alice", "memory_add", map[string]any{"content": "I live in Berlin.", "event_time": "2025-01-01T12:00:00Z"}), &berlin)
	if berlin.ID == "" || berlin.Status != store.StatusActive || berlin.TraceID == "" {
		t.Fatalf("add %+v", berlin)
	}
	var tea addResult
	toolJSON(t, e.tool("alice", "memory_add", map[string]any{"content": "I drink green tea every morning.", "source": "chat-9"}), &tea)

	t.Run("update by id", func(t *testing.T) {
		var up addResult
		toolJSON(t, e.tool("alice", "memory_update", map[string]any{"id": berlin.ID, "content": "I moved to Lisbon last month.", "event_time": "2025-02-01T12:00:00Z"}), &up)
		if !slices.Equal(up.Replaced, []string{berlin.ID}) || len(up.Kept) != 0 || len(up.Commits) == 0 {
			t.Fatalf("update %+v", up)
		}
		r, _ := e.ov.Store().Get(t.Context(), "alice", berlin.ID)
		if r.Status != store.StatusSuperseded {
			t.Errorf("berlin is %s", r.Status)
		}
	})

	t.Run("update that the Judge keeps", func(t *testing.T) {
		var up addResult
		toolJSON(t, e.tool("alice", "memory_update", map[string]any{"id": tea.ID, "content": "The quarterly report is due on Friday."}), &up)
		if len(up.Replaced) != 0 || !slices.Equal(up.Kept, []string{tea.ID}) || up.Note == "" {
			t.Errorf("update %+v", up)
		}
	})

	var slot string
	t.Run("get by id and by key", func(t *testing.T) {
		var byID getResult
		toolJSON(t, e.tool("alice", "memory_get", map[string]any{"id": berlin.ID}), &byID)
		if byID.Record == nil || byID.Record.ID != berlin.ID || len(byID.History) != 2 || byID.Record.Slot == "" {
			t.Fatalf("get by id %+v", byID)
		}
		slot = byID.Record.Slot
		var byKey getResult
		toolJSON(t, e.tool("alice", "memory_get", map[string]any{"key": slot}), &byKey)
		if len(byKey.Current) != 1 || !strings.Contains(byKey.Current[0].Content, "Lisbon") || len(byKey.History) != 2 || byKey.History[0].ID != berlin.ID {
			t.Errorf("get by key %+v", byKey)
		}
	})

	t.Run("update by key", func(t *testing.T) {
		var up addResult
		toolJSON(t, e.tool("alice", "memory_update", map[string]any{"key": slot, "content": "I moved to Porto this week."}), &up)
		if len(up.Replaced) != 1 {
			t.Errorf("update by key %+v", up)
		}
	})

	t.Run("list", func(t *testing.T) {
		var page struct {
			Records    []toolRecord `json:"records"`
			NextCursor string       `json:"next_cursor"`
		}
		toolJSON(t, e.tool("alice", "memory_list", map[string]any{"status": "superseded"}), &page)
		if len(page.Records) != 2 {
			t.Errorf("superseded %+v", page.Records)
		}
		toolJSON(t, e.tool("alice", "memory_list", map[string]any{"limit": 1}), &page)
		if len(page.Records) != 1 || page.NextCursor == "" {
			t.Errorf("first page %+v", page)
		}
	})

	t.Run("lexical search", func(t *testing.T) {
		var hits struct{ Hits []toolHit }
		toolJSON(t, e.tool("alice", "memory_search_lexical", map[string]any{"query": "green tea", "k": 3}), &hits)
		if len(hits.Hits) == 0 || hits.Hits[0].ID != tea.ID || hits.Hits[0].Score <= 0 {
			t.Errorf("hits %+v", hits)
		}
	})

	t.Run("semantic search", func(t *testing.T) {
		var hits struct {
			Hits    []toolHit
			TraceID string `json:"trace_id"`
		}
		toolJSON(t, e.tool("alice", "memory_search_semantic", map[string]any{"query": "tea in the morning", "k": 2}), &hits)
		if len(hits.Hits) == 0 || len(hits.Hits) > 2 || hits.Hits[0].ID != tea.ID || hits.TraceID == "" {
			t.Errorf("hits %+v", hits)
		}
	})

	t.Run("query", func(t *testing.T) {
		var q struct {
			QueryMode   string     `json:"query_mode"`
			Rows        []queryRow `json:"rows"`
			AnswerError string     `json:"answer_error"`
			TraceID     string     `json:"trace_id"`
		}
		toolJSON(t, e.tool("alice", "memory_query", map[string]any{"query": "Where do I live now?", "top_k": 3, "answer": true}), &q)
		if q.QueryMode != "current" || len(q.Rows) == 0 || !strings.Contains(q.Rows[0].Content, "Porto") || q.Rows[0].Label != "current memory" || q.AnswerError != noAnswerModel {
			t.Errorf("query %+v", q)
		}
	})

	t.Run("delete", func(t *testing.T) {
		var del map[string]string
		toolJSON(t, e.tool("alice", "memory_delete", map[string]any{"id": tea.ID}), &del)
		if del["deleted"] != tea.ID {
			t.Errorf("delete %v", del)
		}
		var hits struct{ Hits []toolHit }
		toolJSON(t, e.tool("alice", "memory_search_lexical", map[string]any{"query": "green tea"}), &hits)
		if len(hits.Hits) != 0 {
			t.Errorf("deleted memory still found: %+v", hits)
		}
	})

	t.Run("unknown user reads are empty", func(t *testing.T) {
		var page struct{ Records []toolRecord }
		toolJSON(t, e.tool("nobody", "memory_list", nil), &page)
		var hits struct{ Hits []toolHit }
		toolJSON(t, e.tool("nobody", "memory_search_semantic", map[string]any{"query": "anything"}), &hits)
		if len(page.Records) != 0 || len(hits.Hits) != 0 {
			t.Errorf("nobody has %+v %+v", page, hits)
		}
	})
}

// TestToolCallForms: the OpenAI tool call as returned, the short form, arguments as a
// string or an object, and the errors a model can make.
func TestToolCallForms(t *testing.T) {
	e := newEnv(t, nil, nil)
	e.add("alice", Memory{Content: "I live in Berlin."})
	tests := []struct {
		name      string
		body      string
		wantError string // "" for success; else the code in the content
		wantID    string
	}{
		{"openai form", `{"id":"call_1","type":"function","function":{"name":"memory_search_lexical","arguments":"{\"query\":\"Berlin\"}"}}`, "", "call_1"},
		{"short form object", `{"name":"memory_list","arguments":{"limit":5}}`, "", ""},
		{"no arguments", `{"name":"memory_list"}`, "", ""},
		{"empty string arguments", `{"name":"memory_list","arguments":""}`, "", ""},
		{"null arguments", `{"name":"memory_list","arguments":null}`, "", ""},
		{"unknown tool", `{"id":"c","name":"memory_wipe","arguments":{}}`, CodeNotFound, "c"},
		{"unknown argument", `{"name":"memory_list","arguments":{"colour":"red"}}`, CodeInvalidInput, ""},
		{"wrong argument type", `{"name":"memory_list","arguments":"{\"limit\":\"ten\"}"}`, CodeInvalidInput, ""},
		{"arguments not an object", `{"name":"memory_list","arguments":[1]}`, CodeInvalidInput, ""},
		{"arguments string not JSON", `{"name":"memory_list","arguments":"limit=5"}`, CodeInvalidInput, ""},
		{"missing required", `{"name":"memory_add","arguments":{}}`, CodeInvalidInput, ""},
		{"oversized content", `{"name":"memory_add","arguments":{"content":"` + strings.Repeat("x", 17<<10) + `"}}`, CodeInvalidInput, ""},
		{"no such record", `{"name":"memory_get","arguments":{"id":"nope"}}`, CodeNotFound, ""},
		{"no such key", `{"name":"memory_get","arguments":{"key":"user.moon"}}`, CodeNotFound, ""},
		{"get needs one of key and id", `{"name":"memory_get","arguments":{}}`, CodeInvalidInput, ""},
		{"update needs a target", `{"name":"memory_update","arguments":{"content":"x"}}`, CodeInvalidInput, ""},
		{"k too big", `{"name":"memory_search_lexical","arguments":{"query":"x","k":500}}`, CodeInvalidInput, ""},
		{"bad controller", `{"name":"memory_query","arguments":{"query":"x","controller":"auto"}}`, CodeInvalidInput, ""},
		{"bad status", `{"name":"memory_list","arguments":{"status":"gone"}}`, CodeInvalidInput, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res ToolResult
			e.call(req{method: "POST", path: "/v1/users/alice/tools/call", body: tt.body}, http.StatusOK, &res)
			if res.Message.ToolCallID != tt.wantID {
				t.Errorf("tool_call_id %q, want %q", res.Message.ToolCallID, tt.wantID)
			}
			if tt.wantError == "" {
				if res.IsError {
					t.Errorf("error: %s", res.Content)
				}
				return
			}
			var er ErrorResponse
			if !res.IsError || json.Unmarshal([]byte(res.Content), &er) != nil || er.Error.Code != tt.wantError {
				t.Errorf("result %+v, want error %s", res, tt.wantError)
			}
		})
	}
	// Envelope mistakes are the caller's, not the model's: 400.
	for _, body := range []string{
		`{"arguments":{}}`,
		`{"name":" "}`,
		`{"type":"function","function":{"name":"memory_list"},"name":"memory_list"}`,
		`{"type":"code","name":"memory_list"}`,
		`{"name":"memory_list","extra":1}`,
	} {
		if w := e.do(req{method: "POST", path: "/v1/users/alice/tools/call", body: body}); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", body, w.Code, w.Body)
		}
	}
	w := e.do(req{method: "GET", path: "/metrics"})
	for _, want := range []string{`{outcome="error",tool="unknown"} 1`, `{outcome="ok",tool="memory_list"}`} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// Lexical search ranks with each user's own statistics: another user's memories that
// share the query's words change neither the hits nor the scores of alice's search.
func TestLexicalSearchPerUser(t *testing.T) {
	e := newEnv(t, nil, nil)
	e.add("alice", Memory{Content: "I moved to Lisbon last spring.", EventTime: at(1)}, Memory{Content: "My sister still lives in Porto.", EventTime: at(2)})
	search := func() []toolHit {
		var hits struct{ Hits []toolHit }
		toolJSON(t, e.tool("alice", "memory_search_lexical", map[string]any{"query": "Lisbon", "k": 5}), &hits)
		return hits.Hits
	}
	before := search()
	if len(before) != 1 || !strings.Contains(before[0].Content, "Lisbon") {
		t.Fatalf("alice's hits %+v", before)
	}
	var mems []Memory
	for i := range 60 {
		mems = append(mems, Memory{Content: fmt.Sprintf("Lisbon trip note %d: trams, tiles and Lisbon custard tarts.", i), EventTime: at(3)})
	}
	e.add("bob", mems[:30]...)
	e.add("bob", mems[30:]...)
	after := search()
	if len(after) != 1 || after[0].ID != before[0].ID || math.Abs(after[0].Score-before[0].Score) > 1e-9 {
		t.Errorf("alice's hits changed with bob's memories: %+v, before %+v", after, before)
	}
}
