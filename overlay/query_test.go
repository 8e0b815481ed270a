package overlay

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atma-dev/atma/llm"
	"github.com/atma-dev/atma/overlay/retrieval"
)

func TestQueryFollowsRequestedState(t *testing.T) {
	ctx := t.Context()
	o := newTestOverlay(t, nil)
	if _, err := o.Add(ctx, "alice", []Input{
		{Content: "I live in Berlin.", EventTime: at(1)},
		{Content: "My dog Rex loves the park.", EventTime: at(2)},
		{Content: "I moved to Lisbon last month.", EventTime: at(20)},
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query     string
		wantFirst string
		wantLabel retrieval.Label
		wantAlso  string
	}{
		{"Where do I live now?", "Lisbon", retrieval.LabelCurrent, ""},
		{"Where did I live before?", "Berlin", retrieval.LabelHistorical, ""},
		{"How has where I live changed?", "Berlin", retrieval.LabelTransition, "Lisbon"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			tr, err := o.Query(ctx, "alice", QueryRequest{Text: tt.query})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Packet.Rows) == 0 {
				t.Fatal("empty packet")
			}
			first := tr.Packet.Rows[0]
			if !strings.Contains(first.Content, tt.wantFirst) || first.Label != tt.wantLabel {
				t.Errorf("first row %q (%s), want one with %q (%s)\n%s", first.Content, first.Label, tt.wantFirst, tt.wantLabel, tr.Packet.Text())
			}
			if tt.wantAlso != "" && !strings.Contains(tr.Packet.Text(), tt.wantAlso) {
				t.Errorf("packet lacks %q:\n%s", tt.wantAlso, tr.Packet.Text())
			}
			kind, raw, err := o.cfg.Traces.Trace(ctx, "alice", tr.ID)
			if err != nil || kind != "query" || !strings.Contains(string(raw), tt.query[:10]) {
				t.Errorf("stored trace: %s %v", kind, err)
			}
			if _, _, err := o.cfg.Traces.Trace(ctx, "bob", tr.ID); err == nil {
				t.Error("bob reads alice's trace")
			}
		})
	}
}

type chatFunc func(context.Context, llm.Request) (*llm.Response, error)

func (f chatFunc) Chat(ctx context.Context, r llm.Request) (*llm.Response, error) { return f(ctx, r) }

func TestQueryControllerAndAnswer(t *testing.T) {
	ctx := t.Context()
	answer := chatFunc(func(_ context.Context, r llm.Request) (*llm.Response, error) {
		return &llm.Response{Choices: []llm.Choice{{Content: "You live in Lisbon."}}}, nil
	})
	var sent llm.Request // the controller's request
	evil := chatFunc(func(_ context.Context, r llm.Request) (*llm.Response, error) {
		sent = r
		return &llm.Response{Choices: []llm.Choice{{Content: `{"query_mode":"current","confidence":1,"fallback":false,"selected":[{"id":"not-in-pool","rank":1,"role":"answer","state_fit":1,"scope_fit":1,"change_fit":0,"noise_risk":0,"reason":"x"}],"packing":{"fill":true,"chronological":false}}`}}}, nil
	})
	o := newTestOverlay(t, func(c *Config) { c.Answerer, c.Controller = answer, evil })
	if _, err := o.Add(ctx, "u", []Input{{Content: "I live in Berlin.", EventTime: at(1)}, {Content: "I moved to Lisbon.", EventTime: at(3)}}); err != nil {
		t.Fatal(err)
	}
	tr, err := o.Query(ctx, "u", QueryRequest{Text: "Where do I live now?", Answer: true, Controller: retrieval.ControllerOnline, Gold: "Lisbon"})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Answer != "You live in Lisbon." || len(tr.Prompt) == 0 {
		t.Errorf("answer %q", tr.Answer)
	}
	// The controller's request is bounded as package retrieval says the caller sends it.
	if sent.JSONSchema == nil || sent.JSONSchema.Name != retrieval.ControllerSchema().Name || !bytes.Equal(sent.JSONSchema.Schema, retrieval.ControllerSchema().Schema) ||
		sent.MaxTokens != retrieval.ControllerMaxTokens || sent.Temperature == nil || *sent.Temperature != float64(retrieval.ControllerTemperature) {
		t.Errorf("controller request: schema %v, max tokens %d, temperature %v", sent.JSONSchema, sent.MaxTokens, sent.Temperature)
	}
	if tr.ControllerStatus.Applied || !strings.Contains(tr.ControllerStatus.Reason, "rejected") {
		t.Errorf("an id outside the pool was applied: %+v", tr.ControllerStatus)
	}
	if tr.Diagnosis == nil || tr.Diagnosis.Class != retrieval.FailureNone {
		t.Errorf("diagnosis %+v", tr.Diagnosis)
	}
}

func TestQueryBadInput(t *testing.T) {
	o := newTestOverlay(t, nil)
	for _, q := range []QueryRequest{{Text: " "}, {Text: "x", TopK: 99}, {Text: "x", TopK: -1}, {Text: "x", Controller: "maybe"}, {Text: "x", Order: "by-date"}, {Text: "x", Labels: "strict"}, {Text: strings.Repeat("x", MaxQueryBytes+1)}} {
		if _, err := o.Query(t.Context(), "u", q); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%+v: %v", q, err)
		}
	}
	tr, err := o.Query(t.Context(), "nobody", QueryRequest{Text: "where do I live?"})
	if err != nil || len(tr.Packet.Rows) != 0 {
		t.Errorf("unknown user: %v %+v", err, tr)
	}
}
