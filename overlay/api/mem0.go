package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/store"
)

// The Mem0-compatible surface: the endpoints Mem0's client libraries call (read from
// the npm package mem0ai 3.3.1, MemoryClient), under /mem0, so that an app changes its
// client's host to http://HOST:PORT/mem0 and nothing else. atma's state is behind them:
// search is the state-aware query (current states first, labels in metadata), history is
// the memory's version group. Mem0 sends "Authorization: Token <key>": the token or an
// API key, as "Bearer" elsewhere. A memory id names its user too (Mem0's get, update,
// delete and history take no user), so it is opaque: "<user, base64url>.<record id>".
// What Mem0 has and atma does not (entities, batch, projects, webhooks, exports) answers
// 501 with the list of what is served.

// mem0Routes are the served endpoints, relative to /mem0.
var mem0Routes = []struct {
	method, path string
	scope        apikey.Scope
	serve        func(s *server, w http.ResponseWriter, r *http.Request) error
}{
	{"GET", "/v1/ping/{$}", apikey.ScopeRead, (*server).mem0Ping},
	{"POST", "/v3/memories/add/{$}", apikey.ScopeWrite, (*server).mem0Add},
	{"POST", "/v3/memories/search/{$}", apikey.ScopeRead, (*server).mem0Search},
	{"POST", "/v3/memories/{$}", apikey.ScopeRead, (*server).mem0GetAll},
	{"GET", "/v1/memories/{id}/{$}", apikey.ScopeRead, (*server).mem0Get},
	{"PUT", "/v1/memories/{id}/{$}", apikey.ScopeWrite, (*server).mem0Update},
	{"DELETE", "/v1/memories/{id}/{$}", apikey.ScopeWrite, (*server).mem0Delete},
	{"DELETE", "/v1/memories/{$}", apikey.ScopeAdmin, (*server).mem0DeleteAll},
	{"GET", "/v1/memories/{id}/history/{$}", apikey.ScopeRead, (*server).mem0History},
}

// mem0Memory is a memory as Mem0 answers it.
type mem0Memory struct {
	ID        string            `json:"id"`
	Memory    string            `json:"memory"`
	UserID    string            `json:"user_id"`
	Metadata  map[string]string `json:"metadata"`
	Score     float64           `json:"score,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
}

func mem0ID(user, record string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(user)) + "." + record
}

// mem0Of is the Mem0 view of a record of user (the user as the request named it).
func mem0Of(user string, r store.Record) mem0Memory {
	md := map[string]string{"status": string(r.Status)}
	if r.Slot != "" {
		md["slot"] = r.Slot
	}
	for k, v := range r.Meta {
		md[k] = v
	}
	return mem0Memory{ID: mem0ID(user, r.ID), Memory: r.Content, UserID: user, Metadata: md, CreatedAt: r.IngestTime, UpdatedAt: r.IngestTime}
}

// mem0User maps the user a Mem0 request names into the bank (a key's tenant).
func mem0User(r *http.Request, user string) (string, error) {
	if user == "" {
		return "", badRequest(errors.New(`no user: give "user_id" (in "filters" for search and get all)`))
	}
	return bankUser(r, user, "")
}

// mem0Record decodes a memory id of the path: the user it names (mapped) and the record.
func mem0Record(r *http.Request) (name, user, id string, err error) {
	u, rec, ok := strings.Cut(r.PathValue("id"), ".")
	b, derr := base64.RawURLEncoding.DecodeString(u)
	if !ok || derr != nil || rec == "" {
		return "", "", "", &httpError{status: http.StatusNotFound, code: CodeNotFound, err: fmt.Errorf("memory %q: not an id this server gave", r.PathValue("id"))}
	}
	user, err = mem0User(r, string(b))
	return string(b), user, rec, err
}

func (s *server) mem0Ping(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

type mem0Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (s *server) mem0Add(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Messages json.RawMessage   `json:"messages"`
		UserID   string            `json:"user_id"`
		Metadata map[string]string `json:"metadata"`
		Infer    *bool             `json:"infer"`
	}
	if err := s.decodeLenient(w, r, &req); err != nil {
		return err
	}
	name := req.UserID
	user, err := mem0User(r, name)
	if err != nil {
		return err
	}
	// Messages are a string or a list of {role, content}: each user message is a memory.
	var texts []string
	var one string
	var msgs []mem0Message
	switch {
	case json.Unmarshal(req.Messages, &one) == nil:
		texts = []string{one}
	case json.Unmarshal(req.Messages, &msgs) == nil:
		for _, m := range msgs {
			if m.Role == "" || m.Role == "user" {
				texts = append(texts, m.Content)
			}
		}
	default:
		return badRequest(errors.New(`"messages" must be a string or a list of {"role", "content"}`))
	}
	ins := make([]overlay.Input, len(texts))
	for i, t := range texts {
		ins[i] = overlay.Input{Content: t, Source: "mem0", Meta: req.Metadata}
		if err := ins[i].Validate(); err != nil {
			return badRequest(fmt.Errorf("messages[%d]: %w", i, err))
		}
	}
	traces, err := s.ov.Add(context.WithoutCancel(r.Context()), user, ins)
	s.metrics.ingested(traces)
	if err != nil {
		return err
	}
	results := make([]map[string]any, len(traces))
	for i, tr := range traces {
		results[i] = map[string]any{"id": mem0ID(name, tr.RecordID), "memory": tr.Content, "event": "ADD", "data": map[string]string{"memory": tr.Content}}
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results})
	return nil
}

type mem0Filters struct {
	UserID string `json:"user_id"`
}

func (s *server) mem0Search(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Query   string      `json:"query"`
		Filters mem0Filters `json:"filters"`
		TopK    int         `json:"top_k"`
	}
	if err := s.decodeLenient(w, r, &req); err != nil {
		return err
	}
	user, err := mem0User(r, req.Filters.UserID)
	if err != nil {
		return err
	}
	k := req.TopK
	if k <= 0 || k > 50 {
		k = 10
	}
	tr, err := s.ov.Query(r.Context(), user, overlay.QueryRequest{Text: req.Query, TopK: k})
	if err != nil {
		return err
	}
	ids := make([]string, len(tr.Packet.Rows))
	for i, row := range tr.Packet.Rows {
		ids[i] = row.ID
	}
	// One statement for the rows' records (their metadata and times are not in the packet).
	recs, err := s.ov.Store().GetMany(r.Context(), user, ids)
	if err != nil {
		return err
	}
	byID := make(map[string]store.Record, len(recs))
	for _, rec := range recs {
		byID[rec.ID] = rec
	}
	results := make([]mem0Memory, 0, len(tr.Packet.Rows))
	for i, row := range tr.Packet.Rows {
		rec, ok := byID[row.ID]
		if !ok { // deleted since the query read it
			continue
		}
		m := mem0Of(req.Filters.UserID, rec)
		m.Metadata["label"] = string(row.Label)
		m.Score = 1 / float64(i+1) // the packet's order: the requested state first
		results = append(results, m)
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results})
	return nil
}

func (s *server) mem0GetAll(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Filters mem0Filters `json:"filters"`
	}
	if err := s.decodeLenient(w, r, &req); err != nil {
		return err
	}
	user, err := mem0User(r, req.Filters.UserID)
	if err != nil {
		return err
	}
	page, size := 1, 100
	if v, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && v > 0 {
		page = v
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("page_size")); err == nil && v > 0 {
		size = min(v, store.MaxListLimit)
	}
	// Mem0 pages by number; the bank by cursor: walk to the page asked for.
	var recs []store.Record
	cursor := ""
	for p := 1; p <= page; p++ {
		if recs, cursor, err = s.ov.List(r.Context(), user, store.Filter{Limit: size, Cursor: cursor}); err != nil {
			return err
		}
		if cursor == "" && p < page {
			recs = nil
			break
		}
	}
	results := make([]mem0Memory, 0, len(recs))
	for _, rec := range recs {
		if rec.Status != store.StatusTransition {
			results = append(results, mem0Of(req.Filters.UserID, rec))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": results, "count": len(results)})
	return nil
}

func (s *server) mem0Get(w http.ResponseWriter, r *http.Request) error {
	name, user, id, err := mem0Record(r)
	if err != nil {
		return err
	}
	rec, err := s.ov.Store().Get(r.Context(), user, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mem0Of(name, rec))
	return nil
}

// mem0Update stores the new text as a new memory of the same user: the bank decides what
// it replaces (the old one becomes history when they conflict), as atma's update tool.
func (s *server) mem0Update(w http.ResponseWriter, r *http.Request) error {
	name, user, id, err := mem0Record(r)
	if err != nil {
		return err
	}
	var req struct {
		Text     *string           `json:"text"`
		Metadata map[string]string `json:"metadata"`
	}
	if err := s.decodeLenient(w, r, &req); err != nil {
		return err
	}
	if req.Text == nil {
		return badRequest(errors.New(`only "text" can be updated: atma keeps a memory's history, so the new text is a new version`))
	}
	if _, err := s.ov.Store().Get(r.Context(), user, id); err != nil {
		return err
	}
	res, err := s.addOne(r.Context(), user, overlay.Input{Content: *req.Text, Source: "mem0", Meta: req.Metadata})
	if err != nil {
		return err
	}
	rec, err := s.ov.Store().Get(r.Context(), user, res.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mem0Of(name, rec))
	return nil
}

func (s *server) mem0Delete(w http.ResponseWriter, r *http.Request) error {
	_, user, id, err := mem0Record(r)
	if err != nil {
		return err
	}
	if err := s.ov.Delete(r.Context(), user, id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": "Memory deleted successfully!"})
	return nil
}

func (s *server) mem0DeleteAll(w http.ResponseWriter, r *http.Request) error {
	user, err := mem0User(r, r.URL.Query().Get("user_id"))
	if err != nil {
		return err
	}
	if err := s.ov.DeleteUser(r.Context(), user); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"message": "Memories deleted successfully!"})
	return nil
}

// mem0History is the memory's version group, oldest first: the first version "ADD",
// each later one "UPDATE" from the one before it.
func (s *server) mem0History(w http.ResponseWriter, r *http.Request) error {
	name, user, id, err := mem0Record(r)
	if err != nil {
		return err
	}
	view, err := s.ov.Get(r.Context(), user, id)
	if err != nil {
		return err
	}
	versions := view.History
	if len(versions) == 0 {
		versions = []store.Record{view.Record}
	}
	out := make([]map[string]any, 0, len(versions))
	prev := ""
	for i, v := range versions {
		if v.Status == store.StatusTransition {
			continue
		}
		ev := "UPDATE"
		if i == 0 || prev == "" {
			ev = "ADD"
		}
		out = append(out, map[string]any{"id": mem0ID(name, v.ID), "memory_id": mem0ID(name, id), "old_memory": nilIfEmpty(prev), "new_memory": v.Content,
			"event": ev, "user_id": name, "created_at": v.IngestTime, "metadata": map[string]string{"status": string(v.Status)}})
		prev = v.Content
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// decodeLenient reads a Mem0 body: Mem0's clients send fields atma does not use
// (output_format, version, app_id, …), which are ignored here, unlike the strict JSON
// API; names still match exactly and once, and strings must be valid UTF-8.
func (s *server) decodeLenient(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := readBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := jsonv2.Unmarshal(b, v); err != nil {
		return jsonError(err)
	}
	return nil
}

// registerMem0 mounts the Mem0 surface under /mem0, each route through wrap (auth with
// Mem0's "Token" scheme as well, scopes, the in-flight limit, metrics).
func (s *server) registerMem0() {
	for _, m := range mem0Routes {
		h := s.wrap(route{Method: m.method, Path: "/mem0" + m.path, Name: "mem0", serve: m.serve, Scope: m.scope})
		s.mux.Handle(m.method+" /mem0"+m.path, tokenScheme(h))
	}
	s.mux.Handle("/mem0/", tokenScheme(http.HandlerFunc(s.mem0Unsupported)))
}

// tokenScheme reads Mem0's "Authorization: Token <key>" as "Bearer <key>".
func tokenScheme(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Token") {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		h.ServeHTTP(w, r)
	})
}

// mem0Unsupported answers what Mem0 has and atma does not serve.
func (s *server) mem0Unsupported(w http.ResponseWriter, r *http.Request) {
	var served []string
	for _, rt := range mem0Routes {
		served = append(served, rt.method+" /mem0"+strings.TrimSuffix(rt.path, "{$}"))
	}
	s.writeError(w, r, &httpError{status: http.StatusNotImplemented, code: CodeNotImplemented,
		err: fmt.Errorf("%s %s is a Mem0 endpoint atma does not serve (entities, batch, projects, webhooks, exports); served: %s", r.Method, r.URL.Path, strings.Join(served, ", "))})
}
