package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
)

// TestPostgresUnavailable cuts the API's PostgreSQL bank away between requests: adds
// and reads answer 503 unavailable with Retry-After, nothing is half-written, and the
// API serves again once the database is back.
func TestPostgresUnavailable(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	proxy, via := pgtest.NewProxy(t, url)
	bank, err := overlay.OpenPostgresBank(ctx, via, pgdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer bank.Close()
	logger := slog.New(slog.DiscardHandler)
	ov, err := overlay.New(overlay.Config{Store: bank.Store, Host: bank.Host, Traces: bank.Traces, Embedder: overlaytest.BagEmbedder{}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Overlay: ov, Token: testToken, Keys: bank.Keys, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{t: t, h: h, ov: ov, bank: bank}
	add := func(content string) *httpResponse {
		return e.response(req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"` + content + `"}]}`})
	}
	r := add("I live in Berlin.")
	var added AddResponse
	if r.status != http.StatusOK || json.Unmarshal(r.body, &added) != nil || len(added.Traces) != 1 {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	_, keyToken, err := bank.Keys.Create(ctx, "bot", "acme", nil, []apikey.Scope{apikey.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	for name, r := range map[string]*httpResponse{
		"add":   add("I moved to Lisbon."),
		"list":  e.response(req{method: "GET", path: "/v1/users/alice/records"}),
		"trace": e.response(req{method: "GET", path: "/v1/users/alice/traces/" + added.Traces[0].ID}),
		// A key that cannot be checked is not refused (401) but the bank is unavailable.
		"list with an API key": e.response(req{method: "GET", path: "/v1/users/alice/records", token: "Bearer " + keyToken}),
	} {
		var er ErrorResponse
		if r.status != http.StatusServiceUnavailable || r.retry == "" || json.Unmarshal(r.body, &er) != nil || er.Error.Code != CodeUnavailable {
			t.Errorf("%s with the database away: %d, Retry-After %q, %s", name, r.status, r.retry, r.body)
		}
	}
	direct, err := store.OpenPostgres(context.WithoutCancel(ctx), url, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if recs, _, err := direct.List(ctx, "alice", store.Filter{}); err != nil || len(recs) != 1 {
		t.Errorf("after the failed add the bank holds %d records (%v), want 1", len(recs), err)
	}
	proxy.Restore()
	if r := add("I moved to Lisbon."); r.status != http.StatusOK {
		t.Errorf("add after the database came back: %d %s", r.status, r.body)
	}
}

type httpResponse struct {
	status int
	retry  string // the Retry-After header
	body   []byte
}

func (e *testEnv) response(r req) *httpResponse {
	w := e.do(r)
	return &httpResponse{status: w.Code, retry: w.Header().Get("Retry-After"), body: w.Body.Bytes()}
}
