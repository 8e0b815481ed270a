package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

// postgresEnv is an API over a PostgreSQL bank at url with pool configuration cfg,
// /metrics showing the pool, and its log kept.
func postgresEnv(t *testing.T, url string, cfg pgdb.Config) *testEnv {
	t.Helper()
	bank, err := overlay.OpenPostgresBank(t.Context(), url, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bank.Close() })
	logs := &strings.Builder{}
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil))
	ov, err := overlay.New(overlay.Config{Store: bank.Store, Host: bank.Host, Traces: bank.Traces, Embedder: overlaytest.BagEmbedder{}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Overlay: ov, Token: testToken, Keys: bank.Keys, Logger: logger,
		Pool: func() pgdb.PoolStats { s, _ := pgdb.Stats(bank.DB); return s }})
	if err != nil {
		t.Fatal(err)
	}
	return &testEnv{t: t, h: h, ov: ov, log: logs, bank: bank}
}

// TestPostgresPoolExhausted holds every connection of the API's pool (two: one in a
// long transaction, one in a running pg_sleep): an add, a query, a record and a list
// each answer, after the pool's acquire timeout and not when the client gives up, 503
// unavailable with Retry-After and a message that names the pool (and /healthz 503);
// the log says so and /metrics counts them; nothing of the add is written; once the connections are free
// the API serves again.
func TestPostgresPoolExhausted(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	e := postgresEnv(t, url, pgdb.Config{MaxConns: 2, AcquireTimeout: 200 * time.Millisecond})
	add := func(content string) req {
		return req{method: "POST", path: "/v1/users/alice/memories", body: `{"memories":[{"content":"` + content + `"}]}`}
	}
	var added AddResponse
	e.call(add("I live in Berlin."), http.StatusOK, &added)
	record := "/v1/users/alice/records/" + added.Traces[0].RecordID
	// The API's requests carry no deadline (an add's is detached from the client's on
	// purpose): only the pool's acquire timeout ends their wait. Past a minute, it did
	// not.
	within := func(r req) *httpResponse {
		t.Helper()
		got := make(chan *httpResponse, 1)
		go func() { got <- e.response(r) }()
		select {
		case resp := <-got:
			return resp
		case <-time.After(time.Minute):
			t.Fatalf("%s %s still waits for a connection after a minute", r.method, r.path)
			return nil
		}
	}

	_, keyToken, err := e.bank.Keys.Create(ctx, "reader", "acme", nil, []apikey.Scope{apikey.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	release := pgtest.HoldPool(t, e.bank.DB)
	requests := []struct {
		name string
		r    req
	}{
		{"add", add("I moved to Lisbon.")},
		{"query", req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"Where do I live?"}`}},
		{"record", req{method: "GET", path: record}},
		{"list", req{method: "GET", path: "/v1/users/alice/records"}},
		// The key may be good: the bank could not be asked (not 401).
		{"list with an API key", req{method: "GET", path: "/v1/users/alice/records", token: "Bearer " + keyToken}},
	}
	for _, rq := range requests {
		r := within(rq.r)
		var er ErrorResponse
		if r.status != http.StatusServiceUnavailable || r.retry != "1" || json.Unmarshal(r.body, &er) != nil ||
			er.Error.Code != CodeUnavailable || !strings.Contains(er.Error.Message, "pool") {
			t.Errorf("%s with the pool exhausted: %d, Retry-After %q, %s; want 503 unavailable, Retry-After 1, naming the pool", rq.name, r.status, r.retry, r.body)
		}
	}
	// The health check reads the bank too: a replica whose pool stays exhausted is
	// unhealthy.
	if r := within(req{method: "GET", path: "/healthz", token: "-"}); r.status != http.StatusServiceUnavailable {
		t.Errorf("healthz with the pool exhausted: %d %s, want 503", r.status, r.body)
	}
	if n := strings.Count(e.log.String(), "every connection of the PostgreSQL pool is in use"); n < len(requests) {
		t.Errorf("the log names the exhausted pool %d times, want %d:\n%s", n, len(requests), e.log)
	}
	m := within(req{method: "GET", path: "/metrics"})
	metric := func(name string) float64 {
		t.Helper()
		match := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(m.body)
		if match == nil {
			t.Fatalf("/metrics has no %s:\n%s", name, m.body)
		}
		v, err := strconv.ParseFloat(string(match[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := []float64{metric("atma_db_pool_max_connections"), metric("atma_db_pool_in_use_connections")}; got[0] != 2 || got[1] != 2 {
		t.Errorf("/metrics: pool of %v connections, %v in use; want 2 of 2", got[0], got[1])
	}
	if n := metric("atma_db_pool_exhausted_total"); n < float64(len(requests)) {
		t.Errorf("/metrics counts %v exhausted acquires, want at least %d", n, len(requests))
	}

	other, err := overlay.OpenPostgresBank(ctx, url, pgdb.Config{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if recs, _, err := other.Store.List(ctx, "alice", store.Filter{}); err != nil || len(recs) != 1 {
		t.Errorf("after the refused add the bank holds %d records (%v), want 1", len(recs), err)
	}
	if hits, err := other.Host.Search(ctx, "alice", "Lisbon", nil, 5); err != nil || len(hits) != 0 {
		t.Errorf("after the refused add the host memory finds %d memories of Lisbon (%v), want none", len(hits), err)
	}

	release()
	e.call(add("I moved to Lisbon."), http.StatusOK, nil)
	var qr QueryResponse
	e.call(req{method: "POST", path: "/v1/users/alice/query", body: `{"query":"Lisbon"}`}, http.StatusOK, &qr)
	if len(qr.Packet.Rows) == 0 || !strings.Contains(qr.Packet.Rows[0].Content, "Lisbon") {
		t.Errorf("query once the pool is free: %+v, want the Lisbon memory first", qr.Packet.Rows)
	}
	e.call(req{method: "GET", path: record}, http.StatusOK, nil)
}

// TestPostgresRequestsBeyondPool sends more requests at once than the pool has
// connections (one): they wait their turn, none is refused.
func TestPostgresRequestsBeyondPool(t *testing.T) {
	e := postgresEnv(t, pgtest.URL(t), pgdb.Config{MaxConns: 1})
	const users = 6
	var wg sync.WaitGroup
	codes := make([]int, 2*users)
	for i := range users {
		wg.Go(func() {
			codes[i] = e.do(req{method: "POST", path: fmt.Sprintf("/v1/users/u%d/memories", i), body: `{"memories":[{"content":"I live in Porto."}]}`}).Code
		})
		wg.Go(func() {
			codes[users+i] = e.do(req{method: "POST", path: fmt.Sprintf("/v1/users/u%d/query", i), body: `{"query":"Where do I live?"}`}).Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		// A query that runs before its user's add finds no user: 404 is an answer too.
		if c != http.StatusOK && !(i >= users && c == http.StatusNotFound) {
			t.Errorf("request %d: %d, want it to wait for the connection", i, c)
		}
	}
	if s, _ := pgdb.Stats(e.bank.DB); s.Waits == 0 || s.Exhausted != 0 {
		t.Errorf("pool stats %+v: want waits (the requests exceeded the pool) and no acquire given up", s)
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
