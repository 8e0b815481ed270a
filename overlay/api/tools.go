package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
)

// Tool is an OpenAI function-calling tool definition (an element of a chat request's
// "tools").
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function describes one tool function.
type Function struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  *Schema `json:"parameters"`
}

// Schema is the JSON Schema subset the tool parameters use.
type Schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	Format               string             `json:"format,omitempty"`
	Minimum              *int               `json:"minimum,omitempty"`
	Maximum              *int               `json:"maximum,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
}

// ToolCall is the body of POST /v1/users/{user}/tools/call: either the tool call as
// an OpenAI chat completion returns it ({"id", "type": "function", "function": {"name",
// "arguments"}}) or the short form {"name", "arguments"}. Arguments may be a JSON object
// or a string holding one, as OpenAI sends them.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Type      string          `json:"type,omitempty"`
	Function  *FunctionCall   `json:"function,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// FunctionCall is the function part of an OpenAI tool call.
type FunctionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// ToolResult answers a tool call. Message is ready to append to the chat; IsError says
// the call failed in a way the model can correct (unknown tool, bad arguments, no such
// record), and Content then holds an ErrorResponse.
type ToolResult struct {
	Name    string      `json:"name"`
	IsError bool        `json:"is_error"`
	Content string      `json:"content"`
	Message ToolMessage `json:"message"`
}

// ToolMessage is the chat message that carries a tool's result back to the model.
type ToolMessage struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Content    string `json:"content"`
}

// call returns the tool name and its raw arguments; an error is the envelope's.
func (c ToolCall) call() (string, json.RawMessage, error) {
	name, args := c.Name, c.Arguments
	if c.Function != nil {
		if c.Name != "" || len(c.Arguments) > 0 {
			return "", nil, badRequest(errors.New("give the tool call either as {function: {name, arguments}} or as {name, arguments}, not both"))
		}
		name, args = c.Function.Name, c.Function.Arguments
	}
	if c.Type != "" && c.Type != "function" {
		return "", nil, badRequest(fmt.Errorf("tool call type %q: want function", c.Type))
	}
	if blank(name) {
		return "", nil, badRequest(errors.New("the tool call has no name"))
	}
	return name, args, nil
}

// argumentsObject unwraps arguments given as a JSON string and checks they are an
// object; absent or null arguments are {}.
func argumentsObject(raw json.RawMessage) ([]byte, error) {
	b := []byte(strings.TrimSpace(string(raw)))
	if len(b) == 0 || string(b) == "null" {
		return []byte("{}"), nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, toolArgError(fmt.Errorf("arguments: %w", err))
		}
		b = []byte(strings.TrimSpace(s))
		if len(b) == 0 {
			return []byte("{}"), nil
		}
	}
	if b[0] != '{' {
		return nil, toolArgError(errors.New("arguments must be a JSON object (or a string holding one)"))
	}
	return b, nil
}

// toolArgError marks an error in a tool's arguments: the model gets it back as the
// tool's result.
func toolArgError(err error) error {
	return &httpError{status: http.StatusBadRequest, code: CodeInvalidInput, err: err}
}

// Tool limits.
const (
	defaultToolK     = 5
	maxToolK         = overlay.MaxTopK
	defaultToolLimit = 20
	maxToolLimit     = 100
)

// toolRecord is a record as a tool shows it to a model: short, without vectors.
type toolRecord struct {
	ID         string       `json:"id"`
	Content    string       `json:"content"`
	Status     store.Status `json:"status"`
	Slot       string       `json:"slot,omitempty"`
	Time       string       `json:"time,omitempty"`
	ValidUntil string       `json:"valid_until,omitempty"`
	Links      []Link       `json:"links,omitempty"`
}

func toolRecordOf(r store.Record) toolRecord {
	t := toolRecord{ID: r.ID, Content: r.Content, Status: r.Status, Slot: r.Slot, Time: formatTime(r.Time()), ValidUntil: formatTime(r.ValidUntil)}
	for _, l := range r.Links {
		t.Links = append(t.Links, Link{Type: l.Type, To: l.To})
	}
	return t
}

func toolRecordsOf(rs []store.Record) []toolRecord {
	out := make([]toolRecord, len(rs))
	for i, r := range rs {
		out[i] = toolRecordOf(r)
	}
	return out
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// toolSpec is one agent tool: its definition, a fresh value of its arguments (for the
// checks that definition and decoder agree) and its execution.
type toolSpec struct {
	name, description string
	params            *Schema
	args              func() any
	run               func(s *server, ctx context.Context, user string, args []byte) (any, error)
}

func ptr[T any](v T) *T { return &v }

func str(desc string) *Schema { return &Schema{Type: "string", Description: desc} }

func integer(desc string, lo, hi int) *Schema {
	return &Schema{Type: "integer", Description: desc, Minimum: ptr(lo), Maximum: ptr(hi)}
}

func object(props map[string]*Schema, required ...string) *Schema {
	return &Schema{Type: "object", Properties: props, Required: required, AdditionalProperties: ptr(false)}
}

var (
	contentSchema = &Schema{Type: "string", Description: "The memory, one self-contained statement in the user's words (\"I moved to Lisbon last month.\").", MaxLength: ptr(overlay.MaxContentBytes)}
	timeSchema    = &Schema{Type: "string", Format: "date-time", Description: "When it was said or happened, RFC 3339 (default: now)."}
	idSchema      = str("A record id, as other memory tools return it.")
	keySchema     = str("A slot key: the state a record is a value of, subject/attribute such as \"user/home\", \"sister/job\" or \"mobile-team/project\", and subject/attribute/value for each value of a many-valued attribute such as \"user/pet/miso\" (records and ingest results show it as slot).")
	queryStr      = &Schema{Type: "string", Description: "What to look for.", MaxLength: ptr(overlay.MaxQueryBytes)}
	kSchema       = integer(fmt.Sprintf("How many hits (default %d).", defaultToolK), 1, maxToolK)
)

// toolSpecs are the agent tools, in the order they are served.
var toolSpecs = []toolSpec{
	{
		name:        "memory_add",
		description: "Store a new memory about the user. It goes through the state-aware commit path: if it changes something already stored (a new city, a new job), the old memory is kept as history and the new one becomes current.",
		params:      object(map[string]*Schema{"content": contentSchema, "event_time": timeSchema, "source": str("Where it came from (a conversation id).")}, "content"),
		args:        func() any { return &addArgs{} },
		run:         (*server).toolAdd,
	},
	{
		name:        "memory_update",
		description: "Record that a stored memory changed: give the record id (or its slot key) and the new content. The update is stored as a new memory that the commit path reconciles with the old one; the old one becomes history when the new one replaces it. The result says which targets were replaced and which stay current (the Judge found no conflict: delete those if they are wrong).",
		params:      object(map[string]*Schema{"id": idSchema, "key": keySchema, "content": contentSchema, "event_time": timeSchema}, "content"),
		args:        func() any { return &updateArgs{} },
		run:         (*server).toolUpdate,
	},
	{
		name:        "memory_delete",
		description: "Delete one memory for good, from the bank and from every index. Use it for memories that are wrong, not for ones that changed (store the change with memory_update instead, so the history stays).",
		params:      object(map[string]*Schema{"id": idSchema}, "id"),
		args:        func() any { return &deleteArgs{} },
		run:         (*server).toolDelete,
	},
	{
		name:        "memory_get",
		description: "Get memories by slot key (\"user/home\": its current value and its history), or one memory by id with the records it links to and its version history. Give key or id.",
		params:      object(map[string]*Schema{"key": keySchema, "id": idSchema}),
		args:        func() any { return &getArgs{} },
		run:         (*server).toolGet,
	},
	{
		name:        "memory_list",
		description: "List the user's memories in the order they were stored, optionally only those with a status or a slot key; page with the cursor the previous call returned.",
		params: object(map[string]*Schema{
			"status": {Type: "string", Enum: []string{string(store.StatusActive), string(store.StatusSuperseded), string(store.StatusTransition), string(store.StatusUnknown)}, Description: "Only memories with this status: active (holds now), superseded (history), transition (a recorded change), unknown (waiting for clarification)."},
			"key":    keySchema,
			"limit":  integer(fmt.Sprintf("Page size (default %d).", defaultToolLimit), 1, maxToolLimit),
			"cursor": str("The next_cursor of the previous page."),
		}),
		args: func() any { return &listArgs{} },
		run:  (*server).toolList,
	},
	{
		name:        "memory_search_lexical",
		description: "Find memories that contain the query's words (BM25 full-text search over this user's memories, with this user's statistics), whatever their status. Good for names, numbers and exact phrases.",
		params:      object(map[string]*Schema{"query": queryStr, "k": kSchema}, "query"),
		args:        func() any { return &searchArgs{} },
		run:         (*server).toolSearchLexical,
	},
	{
		name:        "memory_search_semantic",
		description: "Find memories by meaning: the host memory's hybrid search (embedding similarity fused with full-text rank), whatever their status, best first.",
		params:      object(map[string]*Schema{"query": queryStr, "k": kSchema}, "query"),
		args:        func() any { return &searchArgs{} },
		run:         (*server).toolSearchSemantic,
	},
	{
		name:        "memory_query",
		description: "Ask a question about the user's memory and get state-labelled evidence: each row says whether it is a current memory, a historical one or a change, so a question about now is answered from what holds now and a question about the past from history. Prefer this tool to answer questions.",
		params: object(map[string]*Schema{
			"query":      &Schema{Type: "string", Description: "The question, in natural language (\"Where do I live now?\").", MaxLength: ptr(overlay.MaxQueryBytes)},
			"top_k":      integer(fmt.Sprintf("Evidence rows (default %d).", overlay.DefaultTopK), 1, overlay.MaxTopK),
			"controller": {Type: "string", Enum: []string{string(retrieval.ControllerOff), string(retrieval.ControllerShadow), string(retrieval.ControllerOnline)}, Description: "Let the retrieve controller re-order the evidence (online), only check it (shadow) or not call it (off, the default)."},
			"answer":     {Type: "boolean", Description: "Also answer the question with the server's answer model, when it has one."},
		}, "query"),
		args: func() any { return &queryArgs{} },
		run:  (*server).toolQuery,
	},
}

// Tools returns the agent tools' definitions.
func Tools() []Tool {
	out := make([]Tool, len(toolSpecs))
	for i, t := range toolSpecs {
		out[i] = Tool{Type: "function", Function: Function{Name: t.name, Description: t.description, Parameters: t.params}}
	}
	return out
}

func lookupTool(name string) (toolSpec, bool) {
	for _, t := range toolSpecs {
		if t.name == name {
			return t, true
		}
	}
	return toolSpec{}, false
}

func (s *server) tools(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, Tools())
	return nil
}

// writeTools change the bank: an API key needs the write scope for them (the others
// read).
var writeTools = map[string]bool{"memory_add": true, "memory_update": true, "memory_delete": true}

func (s *server) callTool(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var call ToolCall
	if err := s.decodeRequest(w, r, &call); err != nil {
		return err
	}
	name, args, err := call.call()
	if err != nil {
		return err
	}
	if writeTools[name] {
		if err := principalOf(r).allow(apikey.ScopeWrite); err != nil {
			return err
		}
	}
	res, err := s.runTool(r.Context(), user, name, args)
	if err != nil {
		s.metrics.toolCall(name, "failed")
		return err
	}
	out := ToolResult{Name: name, IsError: res.isError, Content: res.content,
		Message: ToolMessage{Role: "tool", ToolCallID: call.ID, Content: res.content}}
	outcome := "ok"
	if res.isError {
		outcome = "error"
	}
	s.metrics.toolCall(name, outcome)
	writeJSON(w, http.StatusOK, out)
	return nil
}

type toolOutcome struct {
	content string
	isError bool
}

// runTool executes a tool. Errors the model can correct come back as the tool's
// content; server errors (500, 503) are returned.
func (s *server) runTool(ctx context.Context, user, name string, raw json.RawMessage) (toolOutcome, error) {
	spec, ok := lookupTool(name)
	args, err := argumentsObject(raw)
	var v any
	switch {
	case !ok:
		names := make([]string, len(toolSpecs))
		for i, t := range toolSpecs {
			names[i] = t.name
		}
		err = &httpError{status: http.StatusNotFound, code: CodeNotFound, err: fmt.Errorf("no tool %q; the tools are %s", name, strings.Join(names, ", "))}
	case err != nil:
	default:
		v, err = spec.run(s, ctx, user, args)
	}
	if err != nil {
		he := classify(err)
		if he.status >= 500 {
			return toolOutcome{}, err
		}
		b, _ := json.Marshal(ErrorResponse{Error: ErrorDetail{Code: he.code, Message: he.Error()}})
		return toolOutcome{content: string(b), isError: true}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return toolOutcome{}, fmt.Errorf("encode the result of %s: %w", name, err)
	}
	return toolOutcome{content: string(b)}, nil
}

// decodeArgs decodes a tool's arguments strictly; a mistake is the model's to fix.
func decodeArgs(args []byte, v any) error {
	if err := decodeStrict(args, v); err != nil {
		return toolArgError(fmt.Errorf("arguments: %w", err))
	}
	return nil
}

type addArgs struct {
	Content   string    `json:"content"`
	EventTime time.Time `json:"event_time,omitzero"`
	Source    string    `json:"source,omitempty"`
}

// addResult is what memory_add and memory_update return.
type addResult struct {
	ID      string                `json:"id"`
	Status  store.Status          `json:"status"`
	Commits []overlay.CommitTrace `json:"commits,omitempty"`
	TraceID string                `json:"trace_id"`
	// Replaced and Kept are memory_update's targets after the update.
	Replaced []string `json:"replaced,omitempty"`
	Kept     []string `json:"kept,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// addOne ingests one memory through the commit path.
func (s *server) addOne(ctx context.Context, user string, in overlay.Input) (addResult, error) {
	if err := in.Validate(); err != nil {
		return addResult{}, err
	}
	if err := validEventTime(in.EventTime); err != nil {
		return addResult{}, toolArgError(err)
	}
	traces, err := s.ov.Add(context.WithoutCancel(ctx), user, []overlay.Input{in})
	s.metrics.ingested(traces)
	if err != nil {
		return addResult{}, err
	}
	tr := traces[0]
	return addResult{ID: tr.RecordID, Status: tr.Status, Commits: tr.Commits, TraceID: tr.ID}, nil
}

func (s *server) toolAdd(ctx context.Context, user string, args []byte) (any, error) {
	var a addArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	return s.addOne(ctx, user, overlay.Input{Content: a.Content, EventTime: a.EventTime, Source: cmp.Or(a.Source, "tool")})
}

type updateArgs struct {
	ID        string    `json:"id,omitempty"`
	Key       string    `json:"key,omitempty"`
	Content   string    `json:"content"`
	EventTime time.Time `json:"event_time,omitzero"`
}

func (s *server) toolUpdate(ctx context.Context, user string, args []byte) (any, error) {
	var a updateArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	var targets []string
	switch {
	case a.ID != "" && a.Key != "":
		return nil, toolArgError(errors.New("give id or key, not both"))
	case a.ID != "":
		if _, err := s.ov.Get(ctx, user, a.ID); err != nil {
			return nil, err
		}
		targets = []string{a.ID}
	case a.Key != "":
		recs, err := s.currentOf(ctx, user, a.Key)
		if err != nil {
			return nil, err
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("key %q has no current memory; store the new one with memory_add: %w", a.Key, store.ErrNotFound)
		}
		for _, r := range recs {
			targets = append(targets, r.ID)
		}
	default:
		return nil, toolArgError(errors.New("give the id or the key of the memory to update (memory_add stores a new one)"))
	}
	res, err := s.addOne(ctx, user, overlay.Input{Content: a.Content, EventTime: a.EventTime, Source: "tool"})
	if err != nil {
		return nil, err
	}
	for _, id := range targets {
		r, err := s.ov.Store().Get(ctx, user, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // deleted meanwhile
		case err != nil:
			return nil, err
		case r.Status == store.StatusSuperseded:
			res.Replaced = append(res.Replaced, id)
		default:
			res.Kept = append(res.Kept, id)
		}
	}
	if len(res.Kept) > 0 {
		res.Note = "the Judge found no conflict between the new memory and the kept ones, so they stay current; delete them with memory_delete if they are wrong"
	}
	return res, nil
}

// currentOf are the records of a slot that hold now (active or transition).
func (s *server) currentOf(ctx context.Context, user, key string) ([]store.Record, error) {
	recs, err := s.slotRecords(ctx, user, key)
	var cur []store.Record
	for _, r := range recs {
		if r.Status == store.StatusActive || r.Status == store.StatusTransition {
			cur = append(cur, r)
		}
	}
	return cur, err
}

// slotRecords are up to MaxListLimit records of a slot.
func (s *server) slotRecords(ctx context.Context, user, key string) ([]store.Record, error) {
	recs, _, err := s.ov.List(ctx, user, store.Filter{Slot: key, Limit: store.MaxListLimit})
	return recs, err
}

type deleteArgs struct {
	ID string `json:"id"`
}

func (s *server) toolDelete(ctx context.Context, user string, args []byte) (any, error) {
	var a deleteArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.ID == "" {
		return nil, toolArgError(errors.New("id is required"))
	}
	if err := s.ov.Delete(context.WithoutCancel(ctx), user, a.ID); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": a.ID}, nil
}

type getArgs struct {
	Key string `json:"key,omitempty"`
	ID  string `json:"id,omitempty"`
}

// getResult is memory_get's answer: by key, Current and History; by id, Record, Linked
// and History.
type getResult struct {
	Key     string       `json:"key,omitempty"`
	Record  *toolRecord  `json:"record,omitempty"`
	Current []toolRecord `json:"current,omitempty"`
	Linked  []toolRecord `json:"linked,omitempty"`
	History []toolRecord `json:"history,omitempty"`
}

func (s *server) toolGet(ctx context.Context, user string, args []byte) (any, error) {
	var a getArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	switch {
	case (a.ID == "") == (a.Key == ""):
		return nil, toolArgError(errors.New("give either key or id"))
	case a.ID != "":
		v, err := s.ov.Get(ctx, user, a.ID)
		if err != nil {
			return nil, err
		}
		rec := toolRecordOf(v.Record)
		return getResult{Record: &rec, Linked: toolRecordsOf(v.Linked), History: toolRecordsOf(v.History)}, nil
	}
	recs, err := s.slotRecords(ctx, user, a.Key)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("key %q has no memories: %w", a.Key, store.ErrNotFound)
	}
	res := getResult{Key: a.Key}
	store.SortVersions(recs)
	for _, r := range recs {
		if r.Status == store.StatusActive || r.Status == store.StatusTransition {
			res.Current = append(res.Current, toolRecordOf(r))
		}
		res.History = append(res.History, toolRecordOf(r))
	}
	return res, nil
}

type listArgs struct {
	Status string `json:"status,omitempty"`
	Key    string `json:"key,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

func (s *server) toolList(ctx context.Context, user string, args []byte) (any, error) {
	var a listArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	if a.Limit < 0 || a.Limit > maxToolLimit {
		return nil, toolArgError(fmt.Errorf("limit %d is outside 1..%d", a.Limit, maxToolLimit))
	}
	f := store.Filter{Status: store.Status(a.Status), Slot: a.Key, Limit: cmp.Or(a.Limit, defaultToolLimit), Cursor: a.Cursor}
	if f.Status != "" && !f.Status.Valid() {
		return nil, toolArgError(fmt.Errorf("status %q: want active, superseded, transition or unknown", a.Status))
	}
	recs, next, err := s.ov.List(ctx, user, f)
	if err != nil {
		return nil, err
	}
	return struct {
		Records    []toolRecord `json:"records"`
		NextCursor string       `json:"next_cursor,omitempty"`
	}{toolRecordsOf(recs), next}, nil
}

type searchArgs struct {
	Query string `json:"query"`
	K     int    `json:"k,omitempty"`
}

func (a searchArgs) check() (int, error) {
	var errs []error
	if blank(a.Query) {
		errs = append(errs, errors.New("query is empty"))
	}
	if len(a.Query) > overlay.MaxQueryBytes {
		errs = append(errs, fmt.Errorf("query is %d bytes, more than %d", len(a.Query), overlay.MaxQueryBytes))
	}
	if a.K < 0 || a.K > maxToolK {
		errs = append(errs, fmt.Errorf("k %d is outside 1..%d", a.K, maxToolK))
	}
	return cmp.Or(a.K, defaultToolK), toolArgErrorOf(errors.Join(errs...))
}

func toolArgErrorOf(err error) error {
	if err == nil {
		return nil
	}
	return toolArgError(err)
}

// toolHit is a search hit.
type toolHit struct {
	toolRecord
	Score float64 `json:"score"`
}

func (s *server) toolSearchLexical(ctx context.Context, user string, args []byte) (any, error) {
	var a searchArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	k, err := a.check()
	if err != nil {
		return nil, err
	}
	hits, err := s.ov.SearchText(ctx, user, a.Query, k)
	if err != nil {
		return nil, err
	}
	out := make([]toolHit, len(hits))
	for i, h := range hits {
		out[i] = toolHit{toolRecordOf(h.Record), h.Score}
	}
	return struct {
		Hits []toolHit `json:"hits"`
	}{out}, nil
}

// toolSearchSemantic runs the overlay's query path and returns its seeds: the host
// memory's hybrid hits, before any state reasoning.
func (s *server) toolSearchSemantic(ctx context.Context, user string, args []byte) (any, error) {
	var a searchArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	k, err := a.check()
	if err != nil {
		return nil, err
	}
	tr, err := s.ov.Query(ctx, user, overlay.QueryRequest{Text: a.Query, TopK: k})
	if err != nil {
		return nil, err
	}
	s.metrics.queried("semantic_search")
	out := []toolHit{}
	for _, sd := range tr.Seeds {
		if len(out) == k {
			break
		}
		r, err := s.ov.Store().Get(ctx, user, sd.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, toolHit{toolRecordOf(r), sd.Score})
	}
	return struct {
		Hits    []toolHit `json:"hits"`
		TraceID string    `json:"trace_id"`
	}{out, tr.ID}, nil
}

type queryArgs struct {
	Query      string `json:"query"`
	TopK       int    `json:"top_k,omitempty"`
	Controller string `json:"controller,omitempty"`
	Answer     bool   `json:"answer,omitempty"`
}

// queryRow is one row of memory_query's evidence.
type queryRow struct {
	ID      string          `json:"id"`
	Label   retrieval.Label `json:"label"`
	Time    string          `json:"time,omitempty"`
	Content string          `json:"content"`
	Slot    string          `json:"slot,omitempty"`
}

func (s *server) toolQuery(ctx context.Context, user string, args []byte) (any, error) {
	var a queryArgs
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	mode := ModePacket
	if a.Answer {
		mode = ModeAnswer
	}
	q, err := QueryRequest{Query: a.Query, TopK: a.TopK, Controller: a.Controller, Mode: mode}.request()
	if err != nil {
		return nil, err
	}
	tr, err := s.ov.Query(ctx, user, q)
	if err != nil {
		return nil, err
	}
	resp := queryResponse(tr, q.Answer)
	s.metrics.queried(resp.Mode)
	rows := make([]queryRow, len(tr.Packet.Rows))
	for i, r := range tr.Packet.Rows {
		rows[i] = queryRow{ID: r.ID, Label: r.Label, Time: formatTime(r.Time), Content: r.Content, Slot: r.Slot}
	}
	return struct {
		QueryMode   retrieval.Mode `json:"query_mode"`
		Rows        []queryRow     `json:"rows"`
		Answer      string         `json:"answer,omitempty"`
		AnswerError string         `json:"answer_error,omitempty"`
		TraceID     string         `json:"trace_id"`
	}{tr.Packet.Mode, rows, resp.Answer, resp.AnswerError, tr.ID}, nil
}
