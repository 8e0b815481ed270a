package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/llmauditor"
	"github.com/atma-dev/atma/llm"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/storetest"
)

func TestConfigValidate(t *testing.T) {
	e := newEnv(t, nil, nil)
	ov := e.ov
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"ok", Config{Overlay: ov}, nil},
		{"no overlay", Config{}, []string{"overlay is required"}},
		{"negatives", Config{Overlay: ov, MaxBodyBytes: -1, MaxBatch: -1, MaxInFlight: -1}, []string{"max body bytes", "max batch", "max in flight"}},
		{"token with space", Config{Overlay: ov, Token: "a b"}, []string{"token"}},
		{"short token", Config{Overlay: ov, Token: "x"}, []string{"fewer than 16"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if (err == nil) != (tt.want == nil) {
				t.Fatalf("error %v, want one with %v", err, tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestRoutes walks every route's happy path on one user's memory.
func TestRoutes(t *testing.T) {
	e := newEnv(t, nil, nil)
	traces := e.add("alice",
		Memory{Content: "I live in Berlin.", EventTime: at(1), Source: "chat-1", Meta: map[string]string{"turn": "3"}},
		Memory{Content: "My dog Rex loves the park.", EventTime: at(2)},
		Memory{Content: "I moved to Lisbon last month.", EventTime: at(20)},
	)
	berlin, lisbon := traces[0].RecordID, traces[2].RecordID
	if len(traces[2].Commits) != 1 || traces[2].Commits[0].Action != judge.ActionTransition || traces[2].Commits[0].Old != berlin {
		t.Fatalf("the move was not committed as a transition: %+v", traces[2].Commits)
	}

	t.Run("list", func(t *testing.T) {
		var all ListResponse
		e.call(req{method: "GET", path: "/v1/users/alice/records"}, http.StatusOK, &all)
		if len(all.Records) != 4 || all.NextCursor != "" { // three memories and the transition record
			t.Fatalf("records: %+v", all)
		}
		var sup ListResponse
		e.call(req{method: "GET", path: "/v1/users/alice/records?status=superseded"}, http.StatusOK, &sup)
		if len(sup.Records) != 1 || sup.Records[0].ID != berlin || sup.Records[0].ValidUntil.IsZero() {
			t.Errorf("superseded: %+v", sup.Records)
		}
		slot := traces[2].Commits[0].Slot
		var bySlot ListResponse
		e.call(req{method: "GET", path: "/v1/users/alice/records?slot=" + slot}, http.StatusOK, &bySlot)
		if len(bySlot.Records) != 2 {
			t.Errorf("slot %s: %+v", slot, bySlot.Records)
		}
		// Paging: one record a page, following the cursor, gives every record once.
		var seen []string
		cursor := ""
		for range 10 {
			var page ListResponse
			e.call(req{method: "GET", path: "/v1/users/alice/records?limit=1&cursor=" + cursor}, http.StatusOK, &page)
			for _, r := range page.Records {
				seen = append(seen, r.ID)
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
		if len(seen) != 4 || len(slices.Compact(slices.Sorted(slices.Values(seen)))) != 4 {
			t.Errorf("paged ids %v", seen)
		}
	})

	t.Run("get", func(t *testing.T) {
		var v RecordView
		e.call(req{method: "GET", path: "/v1/users/alice/records/" + lisbon}, http.StatusOK, &v)
		if v.Record.ID != lisbon || v.Record.Status != store.StatusActive || v.Record.User != "alice" {
			t.Errorf("record %+v", v.Record)
		}
		if len(v.History) != 2 || v.History[0].ID != berlin || v.History[1].ID != lisbon {
			t.Errorf("history %+v", v.History)
		}
		linked := map[string]bool{}
		for _, r := range v.Linked {
			linked[r.ID] = true
		}
		if !linked[berlin] {
			t.Errorf("linked records %+v lack %s", v.Linked, berlin)
		}
		var b RecordView
		e.call(req{method: "GET", path: "/v1/users/alice/records/" + berlin}, http.StatusOK, &b)
		if b.Record.Source != "chat-1" || b.Record.Meta["turn"] != "3" || !b.Record.EventTime.Equal(at(1)) {
			t.Errorf("berlin %+v", b.Record)
		}
	})

	t.Run("query packet", func(t *testing.T) {
		var q QueryResponse
		e.call(req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"Where do I live now?","top_k":3}`}, http.StatusOK, &q)
		if len(q.Packet.Rows) == 0 || !strings.Contains(q.Packet.Rows[0].Content, "Lisbon") || q.Packet.Rows[0].Label != retrieval.LabelCurrent {
			t.Fatalf("packet %+v", q.Packet)
		}
		if q.Mode != ModePacket || q.Answer != "" || q.AnswerError != "" || q.TraceID == "" || !strings.Contains(q.PacketText, "current memory") {
			t.Errorf("response %+v", q)
		}
		var tr TraceResponse
		e.call(req{method: "GET", path: "/v1/users/alice/traces/" + q.TraceID}, http.StatusOK, &tr)
		var qt overlay.QueryTrace
		if err := json.Unmarshal(tr.Trace, &qt); err != nil || tr.Kind != "query" || qt.ID != q.TraceID || len(qt.Seeds) == 0 {
			t.Errorf("trace %s %v %+v", tr.Kind, err, qt)
		}
	})

	t.Run("query answer without a model", func(t *testing.T) {
		var q QueryResponse
		e.call(req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"Where did I live before?","mode":"answer","controller":"shadow","gold":"Berlin"}`}, http.StatusOK, &q)
		if q.Mode != ModeAnswer || q.AnswerError != noAnswerModel || q.Diagnosis == nil {
			t.Errorf("response %+v", q)
		}
		if q.Controller.Mode != retrieval.ControllerShadow || !strings.Contains(q.Controller.Reason, "no controller") {
			t.Errorf("controller %+v", q.Controller)
		}
	})

	t.Run("ingest trace", func(t *testing.T) {
		var tr TraceResponse
		e.call(req{method: "GET", path: "/v1/users/alice/traces/" + traces[2].ID}, http.StatusOK, &tr)
		var it overlay.IngestTrace
		if err := json.Unmarshal(tr.Trace, &it); err != nil || tr.Kind != "ingest" || it.RecordID != lisbon {
			t.Errorf("trace %s %v %+v", tr.Kind, err, it)
		}
	})

	t.Run("delete record", func(t *testing.T) {
		dog := traces[1].RecordID
		e.call(req{method: "DELETE", path: "/v1/users/alice/records/" + dog}, http.StatusNoContent, nil)
		w := e.do(req{method: "GET", path: "/v1/users/alice/records/" + dog})
		if w.Code != http.StatusNotFound || errorOf(t, w).Code != CodeNotFound {
			t.Errorf("deleted record: %d %s", w.Code, w.Body)
		}
		// Gone from both searches: the lexical one (SearchText) and the semantic one.
		if hits, err := e.ov.SearchText(t.Context(), "alice", "dog Rex park", 10); err != nil || len(hits) != 0 {
			t.Errorf("full-text hits after delete: %v %v", hits, err)
		}
		res := e.tool("alice", "memory_search_semantic", map[string]any{"query": "my dog Rex in the park", "k": 10})
		if res.IsError || strings.Contains(res.Content, "Rex") {
			t.Errorf("semantic search after delete: %s", res.Content)
		}
	})

	t.Run("health metrics openapi tools", func(t *testing.T) {
		var h Health
		e.call(req{method: "GET", path: "/healthz", token: "-"}, http.StatusOK, &h)
		if h.Status != "ok" {
			t.Errorf("health %+v", h)
		}
		w := e.do(req{method: "GET", path: "/metrics"})
		for _, want := range []string{
			`atma_api_requests_total{code="200",route="addMemories"} 1`,
			`atma_api_request_duration_seconds_count{route="listRecords"}`,
			`atma_api_memories_ingested_total{status="active"} 3`,
			`atma_api_commits_total{action="transition"} 1`,
			`atma_api_judge_routed_total `,
			`atma_api_queries_total{mode="answer"} 1`,
			`atma_api_tool_calls_total{outcome="ok",tool="memory_search_semantic"} 1`,
		} {
			if !strings.Contains(w.Body.String(), want) {
				t.Errorf("metrics lack %q:\n%s", want, w.Body)
			}
		}
		if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Errorf("metrics content type %q", ct)
		}
		w = e.do(req{method: "GET", path: "/openapi.json", token: "-"})
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), openAPIDoc) {
			t.Errorf("openapi: %d", w.Code)
		}
		var tools []Tool
		e.call(req{method: "GET", path: "/v1/tools"}, http.StatusOK, &tools)
		if len(tools) != len(toolSpecs) {
			t.Errorf("%d tools", len(tools))
		}
	})

	t.Run("delete user", func(t *testing.T) {
		e.add("bob", Memory{Content: "I play the cello."})
		e.call(req{method: "DELETE", path: "/v1/users/alice"}, http.StatusNoContent, nil)
		for _, p := range []string{"/v1/users/alice/records", "/v1/users/alice/records/" + lisbon, "/v1/users/alice/traces/" + traces[0].ID} {
			w := e.do(req{method: "GET", path: p})
			if w.Code != http.StatusNotFound || errorOf(t, w).Code != CodeUnknownUser {
				t.Errorf("GET %s after deleting the user: %d %s", p, w.Code, w.Body)
			}
		}
		if hits, _ := e.ov.SearchText(t.Context(), "alice", "Lisbon", 10); len(hits) != 0 {
			t.Errorf("full-text hits after deleting the user: %v", hits)
		}
		var bob ListResponse
		e.call(req{method: "GET", path: "/v1/users/bob/records"}, http.StatusOK, &bob)
		if len(bob.Records) != 1 {
			t.Errorf("deleting alice touched bob: %+v", bob)
		}
	})
}

func TestAuth(t *testing.T) {
	e := newEnv(t, nil, nil)
	tests := []struct {
		name  string
		token string
		path  string
		want  int
	}{
		{"no token", "-", "/v1/tools", http.StatusUnauthorized},
		{"wrong token", "Bearer nope", "/v1/tools", http.StatusUnauthorized},
		{"token prefix", "Bearer " + testToken[:4], "/v1/tools", http.StatusUnauthorized},
		{"wrong scheme", "Basic " + testToken, "/v1/tools", http.StatusUnauthorized},
		{"bare token", testToken, "/v1/tools", http.StatusUnauthorized},
		{"right token", "", "/v1/tools", http.StatusOK},
		{"scheme case", "bearer " + testToken, "/v1/tools", http.StatusOK},
		{"metrics need it", "-", "/metrics", http.StatusUnauthorized},
		{"data routes need it", "-", "/v1/users/alice/records", http.StatusUnauthorized},
		{"health is open", "-", "/healthz", http.StatusOK},
		{"openapi is open", "-", "/openapi.json", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := e.do(req{method: "GET", path: tt.path, token: tt.token})
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.want, w.Body)
			}
			if tt.want == http.StatusUnauthorized {
				if d := errorOf(t, w); d.Code != CodeUnauthorized {
					t.Errorf("code %q", d.Code)
				}
				if w.Header().Get("WWW-Authenticate") == "" {
					t.Error("no WWW-Authenticate header")
				}
			}
		})
	}
	// Without a token configured the API is open.
	open := newEnv(t, nil, func(c *Config) { c.Token = "" })
	if w := open.do(req{method: "GET", path: "/v1/tools", token: "-"}); w.Code != http.StatusOK {
		t.Errorf("open API: %d", w.Code)
	}
	// A refused request writes nothing.
	w := e.do(req{method: "POST", path: "/v1/users/alice/memories", token: "-", body: `{"memories":[{"content":"x"}]}`})
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("unauthorised add: %d", w.Code)
	}
	if recs, _, _ := e.ov.List(t.Context(), "alice", store.Filter{}); len(recs) != 0 {
		t.Errorf("an unauthorised add wrote %d records", len(recs))
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.MaxBodyBytes = 64 << 10; c.MaxBatch = 3 })
	id := e.add("alice", Memory{Content: "I live in Berlin."})[0].RecordID
	mem := func(content string) string {
		b, _ := json.Marshal(AddRequest{Memories: []Memory{{Content: content}}})
		return string(b)
	}
	tests := []struct {
		name       string
		r          req
		wantStatus int
		wantCode   string
		wantMsg    string
	}{
		{"invalid json", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories": [`}, 400, CodeInvalidJSON, "ends too early"},
		{"syntax error", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories": x}`}, 400, CodeInvalidJSON, "at byte"},
		{"wrong type", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories": [{"content": 5}]}`}, 400, CodeInvalidJSON, "content"},
		{"unknown field", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories": [{"content": "x", "colour": "red"}]}`}, 400, CodeUnknownField, "colour"},
		{"unknown top field", req{method: "POST", path: "/v1/users/alice/query", body: `{"query": "x", "k": 3}`}, 400, CodeUnknownField, `"k"`},
		{"trailing data", req{method: "POST", path: "/v1/users/alice/memories", body: mem("x") + `{}`}, 400, CodeInvalidJSON, "after its first value"},
		{"empty body", req{method: "POST", path: "/v1/users/alice/query", body: " "}, 400, CodeInvalidJSON, "empty"},
		{"no memories", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories": []}`}, 400, CodeInvalidInput, "memories is empty"},
		// Decoded strictly: names match exactly, once each; strings are valid UTF-8.
		{"name in another case", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories": [{"Content": "x"}]}`}, 400, CodeUnknownField, `"Content"`},
		{"name given twice", req{method: "POST", path: "/v1/users/alice/query", body: `{"query": "where?", "query": "what?"}`}, 400, CodeInvalidJSON, "given twice"},
		{"invalid UTF-8", req{method: "POST", path: "/v1/users/alice/memories", body: "{\"memories\": [{\"content\": \"caf\xe9\"}]}"}, 400, CodeInvalidJSON, "UTF-8"},
		{"blank content", req{method: "POST", path: "/v1/users/alice/memories", body: mem(" \t ")}, 400, CodeInvalidInput, "no text"},
		{"NUL-only content", req{method: "POST", path: "/v1/users/alice/memories", body: mem("\u0000\u0000")}, 400, CodeInvalidInput, "no text"},
		{"empty content", req{method: "POST", path: "/v1/users/alice/memories", body: mem("")}, 400, CodeInvalidInput, "content is empty"},
		{"oversized content", req{method: "POST", path: "/v1/users/alice/memories", body: mem(strings.Repeat("x", overlay.MaxContentBytes+1))}, 400, CodeInvalidInput, "split it"},
		{"event time out of range", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"x","event_time":"3000-01-01T00:00:00Z"}]}`}, 400, CodeInvalidInput, "1678..2261"},
		{"batch too big", req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"a"},{"content":"b"},{"content":"c"},{"content":"d"}]}`}, 400, CodeInvalidInput, "more than 3"},
		{"body too large", req{method: "POST", path: "/v1/users/alice/memories", body: mem(strings.Repeat("y", 70<<10))}, 413, CodeBodyTooLarge, "limit"},
		{"no content type", req{method: "POST", path: "/v1/users/alice/memories", body: mem("x"), contentType: "-"}, 415, CodeUnsupportedMediaType, "application/json"},
		{"text content type", req{method: "POST", path: "/v1/users/alice/memories", body: mem("x"), contentType: "text/plain"}, 415, CodeUnsupportedMediaType, "text/plain"},
		{"bad user", req{method: "GET", path: "/v1/users/a%01b/records"}, 400, CodeInvalidInput, "control characters"},
		{"long user", req{method: "GET", path: "/v1/users/" + strings.Repeat("u", store.MaxUserLen+1) + "/records"}, 400, CodeInvalidInput, "limit"},
		{"unknown user list", req{method: "GET", path: "/v1/users/nobody/records"}, 404, CodeUnknownUser, "nobody"},
		{"unknown user record", req{method: "GET", path: "/v1/users/nobody/records/" + id}, 404, CodeUnknownUser, "nobody"},
		{"unknown user query", req{method: "POST", path: "/v1/users/nobody/query", body: `{"query":"where?"}`}, 404, CodeUnknownUser, "nobody"},
		{"unknown user delete", req{method: "DELETE", path: "/v1/users/nobody"}, 404, CodeUnknownUser, "nobody"},
		{"unknown record", req{method: "GET", path: "/v1/users/alice/records/nope"}, 404, CodeNotFound, "nope"},
		{"unknown record delete", req{method: "DELETE", path: "/v1/users/alice/records/nope"}, 404, CodeNotFound, "nope"},
		{"unknown trace", req{method: "GET", path: "/v1/users/alice/traces/nope"}, 404, CodeNotFound, "nope"},
		{"bad status filter", req{method: "GET", path: "/v1/users/alice/records?status=gone"}, 400, CodeInvalidInput, "gone"},
		{"bad limit", req{method: "GET", path: "/v1/users/alice/records?limit=-2"}, 400, CodeInvalidInput, "limit"},
		{"huge limit", req{method: "GET", path: "/v1/users/alice/records?limit=5000"}, 400, CodeInvalidInput, "limit"},
		{"unknown parameter", req{method: "GET", path: "/v1/users/alice/records?sort=asc"}, 400, CodeInvalidInput, "sort"},
		{"repeated parameter", req{method: "GET", path: "/v1/users/alice/records?slot=a&slot=b"}, 400, CodeInvalidInput, "2 times"},
		{"malformed escape", req{method: "GET", path: "/v1/users/alice/records?limit=%zz"}, 400, CodeInvalidInput, "malformed query string"},
		{"empty query", req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"  "}`}, 400, CodeInvalidInput, "query is empty"},
		{"bad mode", req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"x","mode":"essay"}`}, 400, CodeInvalidInput, "essay"},
		{"bad controller", req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"x","controller":"auto"}`}, 400, CodeInvalidInput, "auto"},
		{"bad top_k", req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"x","top_k":99}`}, 400, CodeInvalidInput, "top_k"},
		{"no route", req{method: "GET", path: "/v2/nothing"}, 404, CodeNotFound, "no route"},
		{"wrong method", req{method: "PUT", path: "/v1/users/alice/records"}, 405, CodeMethodNotAllowed, "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := e.do(tt.r)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			d := errorOf(t, w)
			if d.Code != tt.wantCode || !strings.Contains(d.Message, tt.wantMsg) {
				t.Errorf("error %+v, want code %s with %q", d, tt.wantCode, tt.wantMsg)
			}
		})
	}
	if w := e.do(req{method: "PUT", path: "/v1/users/alice/records"}); !strings.Contains(w.Header().Get("Allow"), "GET") {
		t.Errorf("405 without Allow: %v", w.Header())
	}
	// None of the refused writes reached the bank.
	var list ListResponse
	e.call(req{method: "GET", path: "/v1/users/alice/records"}, http.StatusOK, &list)
	if len(list.Records) != 1 {
		t.Errorf("refused requests wrote records: %+v", list.Records)
	}
}

// TestBodyLimitStreaming sends a body of unknown length over the limit: the reader
// stops at the limit and the answer is 413.
func TestBodyLimitStreaming(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.MaxBodyBytes = 1 << 10 })
	body := `{"memories":[{"content":"` + strings.Repeat("z", 4<<10) + `"}]}`
	r, err := http.NewRequest("POST", "/v1/users/alice/memories", struct{ *strings.Reader }{strings.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = -1
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Authorization", "Bearer "+testToken)
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge || errorOf(t, w).Code != CodeBodyTooLarge {
		t.Errorf("status %d: %s", w.Code, w.Body)
	}
}

// conflictStore is the bank's store, whose failAt-th transaction (counting from 1) is
// refused as an invariant violation after its function ran, as the store's commit check
// refuses one: the ingest has written its record and, in the same transaction, its host
// memory. It embeds *store.SQL, so the overlay commits through it as through the bank's
// own store: with the host in the transaction.
type conflictStore struct {
	*store.SQL
	mu     sync.Mutex
	n      int
	failAt int
}

func (s *conflictStore) Tx(ctx context.Context, user string, fn func(store.Tx) error) error {
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	return s.SQL.Tx(ctx, user, func(tx store.Tx) error {
		if err := fn(tx); err != nil || n != s.failAt {
			return err
		}
		return fmt.Errorf("commit: %w", &store.ViolationError{Violations: []store.Violation{{Kind: store.ViolationKind("test"), User: user, Detail: "refused by the test"}}})
	})
}

// addCountingHost is the bank's host memory counting the memories written outside the
// store's transaction (Add): the bank's commit path writes none.
type addCountingHost struct {
	*host.SQL
	adds atomic.Int32
}

func (h *addCountingHost) Add(ctx context.Context, user string, m host.Memory) error {
	h.adds.Add(1)
	return h.SQL.Add(ctx, user, m)
}

// TestConflictKeepsCommittedPrefix: a batch whose second memory's commit is refused
// answers 409 naming the memory and the committed prefix; the bank and the host memory
// hold the first memory only.
func TestConflictKeepsCommittedPrefix(t *testing.T) {
	h := &addCountingHost{}
	e := newEnv(t, func(c *overlay.Config) {
		c.Store = &conflictStore{SQL: c.Store.(*store.SQL), failAt: 2}
		h.SQL = c.Host.(*host.SQL)
		c.Host = h
	}, nil)
	w := e.do(req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"I live in Berlin."},{"content":"I have a cat."},{"content":"I like tea."}]}`})
	if w.Code != http.StatusConflict {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	d := errorOf(t, w)
	if d.Code != CodeConflict || len(d.Committed) != 1 || !strings.Contains(d.Message, "memory 1") {
		t.Fatalf("error %+v", d)
	}
	var list ListResponse
	e.call(req{method: "GET", path: "/v1/users/alice/records"}, http.StatusOK, &list)
	if len(list.Records) != 1 || list.Records[0].ID != d.Committed[0] {
		t.Errorf("bank %+v, committed %v", list.Records, d.Committed)
	}
	ctx := t.Context()
	if n, err := e.bank.Host.Len(ctx, "alice"); err != nil || n != 1 {
		t.Errorf("host memory holds %d memories (%v), want the committed one", n, err)
	}
	for _, q := range []string{"cat", "tea"} {
		if hits, err := e.bank.Host.Search(ctx, "alice", q, nil, 10); err != nil || len(hits) != 0 {
			t.Errorf("host memory finds %q of a memory not committed: %v %v", q, hits, err)
		}
	}
	if n := h.adds.Load(); n != 0 {
		t.Errorf("%d host memories written outside the store's transaction: not the bank's commit path", n)
	}
}

func TestInternalErrorHidesDetails(t *testing.T) {
	broken := embedFunc(func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("backbone session exploded at /secret/path")
	})
	e := newEnv(t, func(c *overlay.Config) { c.Embedder = broken }, nil)
	w := e.do(req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"x"}]}`})
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if d := errorOf(t, w); d.Code != CodeInternal || strings.Contains(d.Message, "secret") {
		t.Errorf("error %+v", d)
	}
	if !strings.Contains(e.log.String(), "secret/path") {
		t.Errorf("the log lacks the cause: %s", e.log)
	}
}

// TestInFlightLimit fills the only slot with an add blocked in the embedder: the next
// request is refused with 503 and Retry-After, and the blocked one completes.
func TestInFlightLimit(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := embedFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		once.Do(func() { close(entered); <-release })
		return overlaytest.BagEmbedder{}.Embed(ctx, texts)
	})
	e := newEnv(t, func(c *overlay.Config) { c.Embedder = slow }, func(c *Config) { c.MaxInFlight = 1 })
	done := make(chan int)
	go func() {
		done <- e.do(req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"I live in Berlin."}]}`}).Code
	}()
	<-entered
	w := e.do(req{method: "GET", path: "/v1/users/alice/records"})
	if w.Code != http.StatusServiceUnavailable || errorOf(t, w).Code != CodeUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("second request: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if h := e.do(req{method: "GET", path: "/healthz", token: "-"}); h.Code != http.StatusOK {
		t.Errorf("health counted against the limit: %d", h.Code)
	}
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("blocked add: %d", code)
	}
	if w := e.do(req{method: "GET", path: "/v1/users/alice/records"}); w.Code != http.StatusOK {
		t.Errorf("after the slot freed: %d %s", w.Code, w.Body)
	}
}

// TestUserIsolation: nothing a request for bob does reads or changes alice's records.
func TestUserIsolation(t *testing.T) {
	e := newEnv(t, nil, nil)
	tr := e.add("alice", Memory{Content: "I live in Berlin.", EventTime: at(1)}, Memory{Content: "I moved to Lisbon.", EventTime: at(9)})
	e.add("bob", Memory{Content: "I live in Oslo."})
	aliceID, aliceTrace := tr[1].RecordID, tr[1].ID
	secret := "Lisbon"

	reads := []req{
		{method: "GET", path: "/v1/users/bob/records/" + aliceID},
		{method: "GET", path: "/v1/users/bob/traces/" + aliceTrace},
		{method: "DELETE", path: "/v1/users/bob/records/" + aliceID},
	}
	for _, r := range reads {
		w := e.do(r)
		if w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), secret) {
			t.Errorf("%s %s: %d %s", r.method, r.path, w.Code, w.Body)
		}
	}
	var list ListResponse
	e.call(req{method: "GET", path: "/v1/users/bob/records"}, http.StatusOK, &list)
	var q QueryResponse
	e.call(req{method: "POST", path: "/v1/users/bob/query", body: `{"query":"Where do I live now?","top_k":10}`}, http.StatusOK, &q)
	body, _ := json.Marshal([]any{list, q})
	if strings.Contains(string(body), secret) || strings.Contains(string(body), aliceID) {
		t.Errorf("bob's list or query shows alice's memory: %s", body)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"memory_get", map[string]any{"id": aliceID}},
		{"memory_delete", map[string]any{"id": aliceID}},
		{"memory_update", map[string]any{"id": aliceID, "content": "I moved to Rome."}},
		{"memory_search_lexical", map[string]any{"query": "Lisbon"}},
		{"memory_search_semantic", map[string]any{"query": "moved to Lisbon"}},
		{"memory_query", map[string]any{"query": "Where did I move?"}},
		{"memory_list", map[string]any{}},
	} {
		res := e.tool("bob", c.name, c.args)
		if _, byID := c.args["id"]; byID {
			// The error may repeat the id bob sent, nothing more.
			if !res.IsError || !strings.Contains(res.Content, CodeNotFound) || strings.Contains(res.Content, secret) {
				t.Errorf("bob's %s of alice's record: %s", c.name, res.Content)
			}
			continue
		}
		if strings.Contains(res.Content, secret) || strings.Contains(res.Content, aliceID) {
			t.Errorf("bob's %s shows alice's memory: %s", c.name, res.Content)
		}
	}
	// A user name with a slash (escaped in the path) is a name of its own.
	e.add("team%2Falice", Memory{Content: "I live in Paris."})
	if w := e.do(req{method: "GET", path: "/v1/users/team/records"}); w.Code != http.StatusNotFound {
		t.Errorf("user team: %d %s", w.Code, w.Body)
	}
	var team ListResponse
	e.call(req{method: "GET", path: "/v1/users/team%2Falice/records"}, http.StatusOK, &team)
	if len(team.Records) != 1 || team.Records[0].User != "team/alice" {
		t.Errorf("team/alice: %+v", team.Records)
	}
	e.call(req{method: "DELETE", path: "/v1/users/bob"}, http.StatusNoContent, nil)
	var v RecordView
	e.call(req{method: "GET", path: "/v1/users/alice/records/" + aliceID}, http.StatusOK, &v)
	if v.Record.Status != store.StatusActive || v.Record.Content != "I moved to Lisbon." {
		t.Errorf("alice's record changed: %+v", v.Record)
	}
	var all ListResponse
	e.call(req{method: "GET", path: "/v1/users/alice/records"}, http.StatusOK, &all)
	if len(all.Records) != 3 {
		t.Errorf("alice has %d records after bob's requests", len(all.Records))
	}
}

// TestConcurrentAddsOneUser: parallel batches for one user are serialised and none is
// lost; the bank's invariants hold afterwards.
func TestConcurrentAddsOneUser(t *testing.T) {
	e := newEnv(t, nil, nil)
	const writers, each = 8, 3
	cities := []string{"Berlin", "Lisbon", "Oslo", "Rome", "Paris", "Madrid", "Vienna", "Prague"}
	ids := make(chan string, writers*each)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			var mems []Memory
			for i := range each {
				// No event time: each memory is stamped when its ingest runs, so the
				// versions of a slot follow the order the serialised writes took.
				mems = append(mems, Memory{Content: fmt.Sprintf("I live in %s now, note %d.", cities[(g+i)%len(cities)], g*each+i)})
			}
			b, _ := json.Marshal(AddRequest{Memories: mems})
			w := e.do(req{method: "POST", path: "/v1/users/carol/memories", body: string(b)})
			if w.Code != http.StatusOK {
				t.Errorf("writer %d: %d %s", g, w.Code, w.Body)
				return
			}
			var resp AddResponse
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
				t.Error(err)
				return
			}
			for _, tr := range resp.Traces {
				ids <- tr.RecordID
			}
		})
	}
	wg.Wait()
	close(ids)
	n := 0
	for id := range ids {
		n++
		if _, err := e.ov.Get(t.Context(), "carol", id); err != nil {
			t.Errorf("record %s of a concurrent add: %v", id, err)
		}
	}
	if n != writers*each {
		t.Fatalf("%d records committed, want %d", n, writers*each)
	}
	v, err := e.ov.Check(t.Context(), "carol")
	if err != nil || len(v) != 0 {
		t.Errorf("invariants after concurrent adds: %v %v", v, err)
	}
}

// TestJudgeEndpointDown: with the Judge's endpoint answering 503, adds still succeed
// through the rule auditor, and the traces say why.
func TestJudgeEndpointDown(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"model is loading"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	client, err := llm.New(llm.Config{BaseURL: down.URL + "/v1", Model: "judge-model", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	auditor, err := llmauditor.New(client, llmauditor.Config{Name: "judge-model", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *overlay.Config) { c.Auditor = auditor }, nil)
	traces := e.add("alice", Memory{Content: "I live in Berlin.", EventTime: at(1)}, Memory{Content: "I moved to Lisbon last month.", EventTime: at(20)})
	c := traces[1].Candidates
	if len(c) == 0 || !c[0].Routed || c[0].Verdict == nil || c[0].Auditor != judge.SourceRule || c[0].Fallback == "" {
		t.Fatalf("candidates %+v", c)
	}
	if len(traces[1].Commits) != 1 || traces[1].Commits[0].Action != judge.ActionTransition {
		t.Errorf("the fallback verdict was not committed: %+v", traces[1].Commits)
	}
	var tr TraceResponse
	e.call(req{method: "GET", path: "/v1/users/alice/traces/" + traces[1].ID}, http.StatusOK, &tr)
	if !strings.Contains(string(tr.Trace), `"fallback":"`) {
		t.Errorf("stored trace lacks the fallback: %s", tr.Trace)
	}
	if w := e.do(req{method: "GET", path: "/metrics"}); !strings.Contains(w.Body.String(), "atma_api_judge_fallbacks_total 1\n") {
		t.Errorf("metrics:\n%s", w.Body)
	}
}

func TestCheckBind(t *testing.T) {
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8088", "", true},
		{"127.1.2.3:0", "", true},
		{"[::1]:8088", "", true},
		{"localhost:8088", "", true},
		{"[::ffff:127.0.0.1]:1", "", true},
		{"0.0.0.0:8088", "", false},
		{":8088", "", false},
		{"[::]:8088", "", false},
		{"192.168.1.5:8088", "", false},
		{"example.internal:8088", "", false},
		{"0.0.0.0:8088", "tok", true},
		{"not-an-address", "tok", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr+"/"+tt.token, func(t *testing.T) {
			err := CheckBind(tt.addr, tt.token)
			if (err == nil) != tt.ok {
				t.Errorf("CheckBind = %v, want ok %v", err, tt.ok)
			}
			if err != nil && tt.addr != "not-an-address" && !errors.Is(err, ErrOpenBind) {
				t.Errorf("error %v is not ErrOpenBind", err)
			}
		})
	}
}

// A bank whose file is damaged on disk: /healthz says so (503 bank_damaged), adds are
// refused with the same code and nothing is written, reads of what is intact still work.
func TestDamagedBank(t *testing.T) {
	dir := t.TempDir()
	bank, err := overlay.OpenBank(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	storetest.PutPlain(t, bank.Store, "alice", 400)
	if err := bank.Close(); err != nil {
		t.Fatal(err)
	}
	storetest.DamageFile(t, filepath.Join(dir, overlay.DBFile), 6, 21, 61)

	e := newEnvAt(t, dir, nil, nil)
	w := e.do(req{method: "GET", path: "/healthz", token: "-"})
	if w.Code != http.StatusServiceUnavailable || errorOf(t, w).Code != CodeBankDamaged {
		t.Errorf("healthz of a damaged bank: %d %s", w.Code, w.Body.String())
	}
	b, _ := json.Marshal(AddRequest{Memories: []Memory{{Content: "I moved to Porto."}}})
	w = e.do(req{method: "POST", path: "/v1/users/alice/memories", body: string(b)})
	if w.Code != http.StatusServiceUnavailable || errorOf(t, w).Code != CodeBankDamaged || !strings.Contains(errorOf(t, w).Message, "restore") {
		t.Errorf("add to a damaged bank: %d %s", w.Code, w.Body.String())
	}
}

// The two Unicode spellings of a user id in the path are one user.
func TestUserPathNFC(t *testing.T) {
	e := newEnv(t, nil, nil)
	e.add("Jose\u0301", Memory{Content: "I live in Braga.", EventTime: at(1)})
	var page struct{ Records []Record }
	e.call(req{method: "GET", path: "/v1/users/Jos%C3%A9/records"}, http.StatusOK, &page)
	if len(page.Records) != 1 {
		t.Errorf("the NFC spelling does not find the NFD spelling's records: %+v", page.Records)
	}
}

// A client that sends part of its body and then nothing gets 408 when the body deadline
// passes — it cannot hold its in-flight slot until the server's read timeout — and the
// slot is free again for the next request; on the JSON API and on the Mem0 surface,
// whose lenient decoding reads the body the same way.
func TestSlowBody(t *testing.T) {
	for _, tt := range []struct{ name, path, body string }{
		{"json", "/v1/users/alice/memories", `{"memories": [`},
		{"mem0", "/mem0/v3/memories/add/", `{"messages": "I live`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, func(c *Config) { c.BodyTimeout = 200 * time.Millisecond; c.MaxInFlight = 1 })
			srv := httptest.NewServer(e.h)
			defer srv.Close()
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n%s", tt.path, testToken, tt.body)
			// The answer comes once the deadline passes; the wait below is only a bound.
			if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer to a partial body: %v", err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), CodeBodyTimeout) {
				t.Errorf("partial body: %d %s", resp.StatusCode, b)
			}
			req, _ := http.NewRequest("GET", srv.URL+"/v1/users/alice/records", nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			r2, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r2.Body.Close()
			if r2.StatusCode == http.StatusServiceUnavailable {
				t.Errorf("the slow client still holds the only in-flight slot")
			}
		})
	}
}

// An add with an idempotency key (per memory, or the request's Idempotency-Key header)
// commits once: a repeat answers the first commit's trace, marked repeat, and writes
// nothing; so does a repeat whose first answer was lost before its trace was kept.
func TestIdempotentAdd(t *testing.T) {
	e := newEnv(t, nil, nil)
	send := func(body, key string) AddResponse {
		t.Helper()
		hr := httptest.NewRequest("POST", "/v1/users/alice/memories", strings.NewReader(body))
		hr.Header.Set("Authorization", "Bearer "+testToken)
		hr.Header.Set("Content-Type", "application/json")
		if key != "" {
			hr.Header.Set("Idempotency-Key", key)
		}
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, hr)
		var resp AddResponse
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &resp) != nil {
			t.Fatalf("add: %d %s", w.Code, w.Body)
		}
		return resp
	}
	body := `{"memories":[{"content":"I moved to Lisbon.","event_time":"2025-01-01T00:00:00Z"},{"content":"I adopted a cat called Miso.","event_time":"2025-01-02T00:00:00Z"}]}`
	first := send(body, "req-42")
	again := send(body, "req-42")
	for i := range first.Traces {
		if first.Traces[i].Repeat || !again.Traces[i].Repeat || again.Traces[i].RecordID != first.Traces[i].RecordID || again.Traces[i].ID != first.Traces[i].ID {
			t.Errorf("memory %d: first %+v, repeat %+v", i, first.Traces[i], again.Traces[i])
		}
	}
	own := `{"memories":[{"content":"I started as a nurse.","idempotency_key":"m-7"}]}`
	a, b := send(own, ""), send(own, "")
	if b.Traces[0].RecordID != a.Traces[0].RecordID || !b.Traces[0].Repeat {
		t.Errorf("per-memory key: %+v then %+v", a.Traces[0], b.Traces[0])
	}
	// The first answer was lost and its trace never kept: the repeat still writes
	// nothing, and says so.
	if _, err := e.bank.DB.ExecContext(t.Context(), `DELETE FROM overlay_traces WHERE id = ?`, a.Traces[0].ID); err != nil {
		t.Fatal(err)
	}
	c := send(own, "")
	if c.Traces[0].RecordID != a.Traces[0].RecordID || !c.Traces[0].Repeat || !strings.Contains(c.Traces[0].FactNote, "committed before") {
		t.Errorf("repeat without a kept trace: %+v", c.Traces[0])
	}
	var page struct{ Records []Record }
	e.call(req{method: "GET", path: "/v1/users/alice/records"}, http.StatusOK, &page)
	n := 0
	for _, r := range page.Records {
		if r.Status != "transition" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d memories in the bank after repeats, want 3: %+v", n, page.Records)
	}
	w := e.do(req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"x","idempotency_key":"` + strings.Repeat("k", 300) + `"}]}`})
	if w.Code != http.StatusBadRequest {
		t.Errorf("a 300-byte key: %d", w.Code)
	}
}
