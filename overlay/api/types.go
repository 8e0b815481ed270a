package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
)

// AddRequest is the body of POST /v1/users/{user}/memories.
type AddRequest struct {
	Memories []Memory `json:"memories"`
}

// Memory is one new memory.
type Memory struct {
	Content string `json:"content"`
	// EventTime is when it was said or happened (RFC 3339; absent: now).
	EventTime time.Time `json:"event_time,omitzero"`
	// SourcePos orders memories of one source with the same time (a turn index).
	SourcePos int64             `json:"source_pos,omitempty"`
	Source    string            `json:"source,omitempty"`
	Meta      map[string]string `json:"meta,omitempty"`
	// IdempotencyKey makes the memory safe to send again: a repeat returns the first
	// commit's trace (repeat: true) and writes nothing (see overlay.Input). Without
	// one, a request's Idempotency-Key header gives memory i the key "<header>#<i>".
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// inputs checks the batch and returns the overlay's inputs, reporting every bad memory.
func (a AddRequest) inputs(maxBatch int, requestKey string) ([]overlay.Input, error) {
	switch {
	case len(a.Memories) == 0:
		return nil, badRequest(errors.New("memories is empty; send at least one"))
	case len(a.Memories) > maxBatch:
		return nil, badRequest(fmt.Errorf("%d memories in one request, more than %d; split the batch", len(a.Memories), maxBatch))
	}
	ins := make([]overlay.Input, len(a.Memories))
	var errs []error
	for i, m := range a.Memories {
		ins[i] = m.input()
		if ins[i].IdempotencyKey == "" && requestKey != "" {
			ins[i].IdempotencyKey = fmt.Sprintf("%s#%d", requestKey, i)
		}
		if err := ins[i].Validate(); err != nil {
			errs = append(errs, fmt.Errorf("memories[%d]: %w", i, err))
		}
		if err := validEventTime(m.EventTime); err != nil {
			errs = append(errs, fmt.Errorf("memories[%d]: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, badRequest(err)
	}
	return ins, nil
}

func (m Memory) input() overlay.Input {
	return overlay.Input{Content: m.Content, EventTime: m.EventTime, SourcePos: m.SourcePos, Source: m.Source, Meta: m.Meta, IdempotencyKey: m.IdempotencyKey}
}

// validEventTime keeps event times in the range the bank stores.
func validEventTime(t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if y := t.UTC().Year(); y < 1678 || y > 2261 {
		return fmt.Errorf("event_time %s is outside the years 1678..2261", t.Format(time.RFC3339))
	}
	return nil
}

// AddResponse answers an add request: one ingest trace per memory, in order.
type AddResponse struct {
	Traces []overlay.IngestTrace `json:"traces"`
}

// Record is a bank record as the API shows it (without its vectors).
type Record struct {
	ID           string            `json:"id"`
	User         string            `json:"user"`
	Content      string            `json:"content"`
	Status       store.Status      `json:"status"`
	Retracted    bool              `json:"retracted,omitempty"`
	EventTime    time.Time         `json:"event_time,omitzero"`
	SourcePos    int64             `json:"source_pos,omitempty"`
	IngestTime   time.Time         `json:"ingest_time,omitzero"`
	Slot         string            `json:"slot,omitempty"`
	SingleValued bool              `json:"single_valued,omitempty"`
	ValidFrom    time.Time         `json:"valid_from,omitzero"`
	ValidUntil   time.Time         `json:"valid_until,omitzero"`
	Confidence   float64           `json:"confidence"`
	Source       string            `json:"source,omitempty"`
	HostID       string            `json:"host_id,omitempty"`
	Meta         map[string]string `json:"meta,omitempty"`
	Links        []Link            `json:"links,omitempty"`
}

// Link is one outgoing typed link of a record.
type Link struct {
	Type store.LinkType `json:"type"`
	To   string         `json:"to"`
}

func recordOf(r store.Record) Record {
	out := Record{
		ID: r.ID, User: r.User, Content: r.Content, Status: r.Status, Retracted: r.Retracted,
		EventTime: r.EventTime, SourcePos: r.SourcePos, IngestTime: r.IngestTime, Slot: r.Slot,
		SingleValued: r.SingleValued, ValidFrom: r.ValidFrom, ValidUntil: r.ValidUntil,
		Confidence: r.Confidence, Source: r.Source, HostID: r.HostID, Meta: r.Meta,
	}
	for _, l := range r.Links {
		out.Links = append(out.Links, Link{Type: l.Type, To: l.To})
	}
	return out
}

func recordsOf(rs []store.Record) []Record {
	out := make([]Record, len(rs))
	for i, r := range rs {
		out[i] = recordOf(r)
	}
	return out
}

// RecordView is a record with the records its links point at and its slot's version
// history, oldest first.
type RecordView struct {
	Record  Record   `json:"record"`
	Linked  []Record `json:"linked"`
	History []Record `json:"history"`
}

// ListResponse is a page of records; NextCursor is "" on the last page.
type ListResponse struct {
	Records    []Record `json:"records"`
	NextCursor string   `json:"next_cursor"`
}

// Query modes.
const (
	ModePacket = "packet" // the labelled evidence packet only
	ModeAnswer = "answer" // the packet and the answer model's answer
)

// QueryRequest is the body of POST /v1/users/{user}/query.
type QueryRequest struct {
	Query string `json:"query"`
	// Mode is packet (default) or answer.
	Mode string `json:"mode,omitempty"`
	// Controller is off (default), shadow or online.
	Controller string `json:"controller,omitempty"`
	// TopK is the packet size (0: 5; at most 50).
	TopK int `json:"top_k,omitempty"`
	// Gold, when given, lets the response classify a wrong answer as a bank, retrieval
	// or QA failure.
	Gold string `json:"gold,omitempty"`
	// Unmarked leaves the state labels out of the packet (ablation).
	Unmarked bool `json:"unmarked,omitempty"`
	// KeepLabels labels a packet that knows no state all the same (ablation).
	KeepLabels bool `json:"keep_labels,omitempty"`
	// KeepOrder keeps the rows in the pool's order (ablation).
	KeepOrder bool `json:"keep_order,omitempty"`
	// Order ("anchored", "tier-first") and Labels ("state", "paper", "slot") choose the
	// pre-rank and the label rule (ablations; empty: the defaults).
	Order  string `json:"order,omitempty"`
	Labels string `json:"labels,omitempty"`
}

func (q QueryRequest) request() (overlay.QueryRequest, error) {
	out := overlay.QueryRequest{Text: q.Query, TopK: q.TopK, Controller: retrieval.ControllerMode(q.Controller), Gold: q.Gold, Unmarked: q.Unmarked, KeepLabels: q.KeepLabels, KeepOrder: q.KeepOrder,
		Order: retrieval.Order(q.Order), Labels: retrieval.LabelRule(q.Labels)}
	var errs []error
	switch q.Mode {
	case "", ModePacket:
	case ModeAnswer:
		out.Answer = true
	default:
		errs = append(errs, fmt.Errorf("mode %q: want packet or answer", q.Mode))
	}
	if err := out.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return out, badRequest(err)
	}
	return out, nil
}

// QueryResponse answers a query; the full trace is at GET /v1/users/{user}/traces/{trace_id}.
type QueryResponse struct {
	TraceID string            `json:"trace_id"`
	Query   string            `json:"query"`
	Mode    string            `json:"mode"`
	Profile retrieval.Profile `json:"profile"`
	Packet  retrieval.Packet  `json:"packet"`
	// PacketText is the packet as the answer model reads it.
	PacketText  string                     `json:"packet_text"`
	Answer      string                     `json:"answer,omitempty"`
	AnswerError string                     `json:"answer_error,omitempty"`
	Controller  retrieval.ControllerStatus `json:"controller"`
	Diagnosis   *retrieval.Diagnosis       `json:"diagnosis,omitempty"`
	Timings     overlay.QueryTimings       `json:"timings"`
}

// noAnswerModel is the answer error when answer mode meets an overlay without one.
const noAnswerModel = "no answer model is configured; the packet is returned without an answer"

func queryResponse(tr *overlay.QueryTrace, answer bool) QueryResponse {
	resp := QueryResponse{
		TraceID: tr.ID, Query: tr.Query, Mode: ModePacket, Profile: tr.Profile, Packet: tr.Packet,
		PacketText: tr.Packet.Text(), Answer: tr.Answer, AnswerError: tr.AnswerError,
		Controller: tr.ControllerStatus, Diagnosis: tr.Diagnosis, Timings: tr.Timings,
	}
	if answer {
		resp.Mode = ModeAnswer
		// The overlay builds the answer prompt only when it has an answer model.
		if len(tr.Prompt) == 0 && resp.AnswerError == "" {
			resp.AnswerError = noAnswerModel
		}
	}
	return resp
}

// TraceResponse is a stored trace: Kind is "ingest" or "query".
type TraceResponse struct {
	Kind  string          `json:"kind"`
	Trace json.RawMessage `json:"trace"`
}

// Health answers GET /healthz.
type Health struct {
	Status string `json:"status"`
	Uptime string `json:"uptime"`
}

// blank reports whether s has nothing but white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }
