package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
)

// checkDecodeError: a refused body is a 400 or 413 with a known code, never a panic.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	he := classify(err)
	if he.status != http.StatusBadRequest && he.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("decode error classed %d: %v", he.status, err)
	}
}

func FuzzDecodeAddRequest(f *testing.F) {
	for _, s := range []string{
		`{"memories":[{"content":"I live in Berlin.","event_time":"2025-01-01T00:00:00Z","source":"c","source_pos":3,"meta":{"k":"v"}}]}`,
		`{"memories":[]}`, `{"memories":[{"content":""}]}`, `{"memories":null}`, `{}`, `[]`, `null`, ``,
		`{"memories":[{"content":"x","extra":1}]}`, `{"memories":[{"content":"x"}]} {}`,
		`{"memories":[{"content":"\ud800"}]}`, `{"memories":[{"content":"x","event_time":"0001-01-01T00:00:00Z"}]}`,
		`{"memories":[{"content":"x","event_time":"9999-12-31T23:59:59Z"}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var req AddRequest
		if err := decodeBody(strings.NewReader(body), &req); err != nil {
			checkDecodeError(t, err)
			return
		}
		ins, err := req.inputs(DefaultMaxBatch, "")
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if len(ins) == 0 || len(ins) > DefaultMaxBatch {
			t.Fatalf("%d inputs accepted", len(ins))
		}
		for i, in := range ins {
			if err := in.Validate(); err != nil {
				t.Fatalf("input %d accepted but invalid: %v", i, err)
			}
			if validEventTime(in.EventTime) != nil {
				t.Fatalf("input %d: event time %v accepted", i, in.EventTime)
			}
		}
	})
}

func FuzzDecodeQueryRequest(f *testing.F) {
	for _, s := range []string{
		`{"query":"Where do I live now?","mode":"answer","controller":"online","top_k":5,"gold":"Lisbon","unmarked":true}`,
		`{"query":""}`, `{"query":"x","top_k":-1}`, `{"query":"x","top_k":1e9}`, `{"query":"x","mode":"essay"}`, `{"query":1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var req QueryRequest
		if err := decodeBody(strings.NewReader(body), &req); err != nil {
			checkDecodeError(t, err)
			return
		}
		q, err := req.request()
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("accepted request is invalid: %v", err)
		}
		if q.Answer != (req.Mode == ModeAnswer) {
			t.Fatalf("mode %q gave answer %v", req.Mode, q.Answer)
		}
	})
}

// FuzzToolCall decodes the envelope, unwraps the arguments and runs every tool's
// argument decoder on them: refusals are errors the model gets back, never panics.
func FuzzToolCall(f *testing.F) {
	for _, s := range []string{
		`{"id":"call_1","type":"function","function":{"name":"memory_add","arguments":"{\"content\":\"x\"}"}}`,
		`{"name":"memory_list","arguments":{"limit":5}}`, `{"name":"memory_get","arguments":"{\"key\":\"user.city\"}"}`,
		`{"name":"x","arguments":"\"{}\""}`, `{"name":"x","arguments":[]}`, `{"name":"x","arguments":"  "}`, `{"function":{}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var call ToolCall
		if err := decodeBody(strings.NewReader(body), &call); err != nil {
			checkDecodeError(t, err)
			return
		}
		name, raw, err := call.call()
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if strings.TrimSpace(name) == "" {
			t.Fatal("a call without a name was accepted")
		}
		args, err := argumentsObject(raw)
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		if args[0] != '{' {
			t.Fatalf("arguments %q are not an object", args)
		}
		for _, spec := range toolSpecs {
			if err := decodeArgs(args, spec.args()); err != nil {
				checkDecodeError(t, err)
			}
		}
	})
}

func FuzzListFilter(f *testing.F) {
	for _, s := range []string{"status=active&slot=user.city&limit=10&cursor=abc", "limit=0", "limit=1001", "limit=x", "status=gone", "sort=asc", "slot=a&slot=b", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		fl, err := listFilter(q)
		if err != nil {
			if he := classify(err); he.status != http.StatusBadRequest {
				t.Fatalf("filter error classed %d", he.status)
			}
			return
		}
		if fl.Limit < 0 || fl.Limit > store.MaxListLimit || (fl.Status != "" && !fl.Status.Valid()) {
			t.Fatalf("filter %+v accepted", fl)
		}
	})
}

// TestDecodeBodyEquivalence: what decodeBody accepts decodes as encoding/json would.
func TestDecodeBodyEquivalence(t *testing.T) {
	body := `{"memories":[{"content":"a","meta":{"k":"v"}},{"content":"b","source_pos":2}]}`
	var got, want AddRequest
	if err := decodeBody(strings.NewReader(body), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(body), &want); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("decoded %s, want %s", g, w)
	}
	var mbe *http.MaxBytesError
	if err := decodeBody(http.MaxBytesReader(nil, readCloser{strings.NewReader(body)}, 10), &got); !errors.As(err, &mbe) {
		t.Errorf("over the limit: %v", err)
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }
