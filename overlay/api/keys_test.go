package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/apikey"
)

// API keys, route by route: a key of tenant B never reaches tenant A's users (its
// "alice" is another user), a key bound to some users reaches no other, scopes hold, a
// revoked key is refused, and once keys exist a request needs one (or the token).
func TestAPIKeysIsolateTenants(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.Token = "" })
	ctx := t.Context()
	key := func(tenant string, users []string, scopes ...apikey.Scope) (apikey.Key, string) {
		k, tok, err := e.bank.Keys.Create(ctx, tenant+"-key", tenant, users, scopes)
		if err != nil {
			t.Fatal(err)
		}
		return k, "Bearer " + tok
	}
	_, a := key("acme", nil, apikey.ScopeRead, apikey.ScopeWrite, apikey.ScopeAdmin)
	_, b := key("blue", nil, apikey.ScopeRead, apikey.ScopeWrite, apikey.ScopeAdmin)
	_, aliceOnly := key("acme", []string{"alice"}, apikey.ScopeRead)
	revokedKey, revoked := key("acme", nil, apikey.ScopeRead)
	if err := e.bank.Keys.Revoke(ctx, revokedKey.ID); err != nil {
		t.Fatal(err)
	}

	body, _ := json.Marshal(AddRequest{Memories: []Memory{{Content: "I moved to Lisbon last month.", EventTime: at(1)}}})
	w := e.do(req{method: "POST", path: "/v1/users/alice/memories", body: string(body), token: a})
	if w.Code != http.StatusOK {
		t.Fatalf("acme adds alice: %d %s", w.Code, w.Body)
	}
	var added AddResponse
	if err := json.Unmarshal(w.Body.Bytes(), &added); err != nil || len(added.Traces) != 1 {
		t.Fatalf("add response %s: %v", w.Body, err)
	}
	rec, trace := added.Traces[0].RecordID, added.Traces[0].ID
	tool := func(name string) string {
		return `{"name":"` + name + `","arguments":{"query":"Lisbon","id":"` + rec + `","content":"I moved to Porto."}}`
	}
	routes := []struct {
		name                 string
		method, path, body   string
		acme, blue, narrowed int // status for acme's key, blue's, and acme's alice-only read key (on bob)
	}{
		{"list records", "GET", "/v1/users/alice/records", "", 200, 404, 200},
		{"get record", "GET", "/v1/users/alice/records/" + rec, "", 200, 404, 200},
		{"query", "POST", "/v1/users/alice/query", `{"query":"where do I live now?"}`, 200, 404, 200},
		{"trace", "GET", "/v1/users/alice/traces/" + trace, "", 200, 404, 200},
		{"lexical tool", "POST", "/v1/users/alice/tools/call", tool("memory_search_lexical"), 200, 200, 200},
		{"get tool", "POST", "/v1/users/alice/tools/call", tool("memory_get"), 200, 200, 200},
	}
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			if w := e.do(req{method: rt.method, path: rt.path, body: rt.body, token: a}); w.Code != rt.acme {
				t.Errorf("acme's key: %d %s", w.Code, w.Body)
			}
			w := e.do(req{method: rt.method, path: rt.path, body: rt.body, token: b})
			if w.Code != rt.blue || strings.Contains(w.Body.String(), "Lisbon") {
				t.Errorf("blue's key reads acme's alice: %d %s", w.Code, w.Body)
			}
			if w := e.do(req{method: rt.method, path: rt.path, body: rt.body, token: aliceOnly}); w.Code != rt.narrowed {
				t.Errorf("alice-only key on alice: %d %s", w.Code, w.Body)
			}
			bobPath := strings.Replace(rt.path, "/alice/", "/bob/", 1)
			if w := e.do(req{method: rt.method, path: bobPath, body: rt.body, token: aliceOnly}); w.Code != http.StatusForbidden {
				t.Errorf("alice-only key on bob: %d %s", w.Code, w.Body)
			}
			if w := e.do(req{method: rt.method, path: rt.path, body: rt.body, token: revoked}); w.Code != http.StatusUnauthorized {
				t.Errorf("revoked key: %d %s", w.Code, w.Body)
			}
			if w := e.do(req{method: rt.method, path: rt.path, body: rt.body, token: "-"}); w.Code != http.StatusUnauthorized {
				t.Errorf("no key on a server with keys: %d %s", w.Code, w.Body)
			}
		})
	}
	// Writes: blue cannot delete acme's record or user; the read-only key cannot write.
	for _, w := range []struct {
		name, method, path, body, token string
		code                            int
	}{
		{"blue deletes the record", "DELETE", "/v1/users/alice/records/" + rec, "", b, 404},
		{"blue deletes the user", "DELETE", "/v1/users/alice", "", b, 404},
		{"blue's delete tool", "POST", "/v1/users/alice/tools/call", tool("memory_delete"), b, 200},
		{"read-only key adds", "POST", "/v1/users/alice/memories", string(body), aliceOnly, 403},
		{"read-only key's add tool", "POST", "/v1/users/alice/tools/call", tool("memory_add"), aliceOnly, 403},
		{"read-only key deletes", "DELETE", "/v1/users/alice/records/" + rec, "", aliceOnly, 403},
		{"a user name that leaves the namespace", "GET", "/v1/users/blue%2Falice/records", "", a, 403},
	} {
		if got := e.do(req{method: w.method, path: w.path, body: w.body, token: w.token}); got.Code != w.code {
			t.Errorf("%s: %d, want %d: %s", w.name, got.Code, w.code, got.Body)
		}
	}
	var page struct{ Records []Record }
	e.call(req{method: "GET", path: "/v1/users/alice/records", token: a}, http.StatusOK, &page)
	if len(page.Records) != 1 || page.Records[0].ID != rec {
		t.Errorf("acme's alice after blue's attempts: %+v", page.Records)
	}
}
