package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/internal/npmclient"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
)

// TestMCPWithTypeScriptClient: the official TypeScript SDK, as a client of the
// streamable HTTP endpoint, initialises, lists the tools, adds a memory and reads the
// labelled packet of a query.
func TestMCPWithTypeScriptClient(t *testing.T) {
	sdk := npmclient.Dir(t, "mcp-client", "@modelcontextprotocol/sdk")
	e := newEnv(t, nil, nil)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	out, err := exec.CommandContext(t.Context(), "node", "testdata/mcp_client.mjs", sdk, srv.URL+"/v1/users/alice/mcp", testToken).CombinedOutput()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var got struct {
		Instructions string
		Tools        []string
		AddError     bool
		Query        string
	}
	if err := json.Unmarshal(out[strings.LastIndexByte(strings.TrimSpace(string(out)), '\n')+1:], &got); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	if !slices.Contains(got.Tools, "memory_add") || !slices.Contains(got.Tools, "memory_query") || got.AddError ||
		!strings.Contains(got.Query, "Lisbon") || !strings.Contains(got.Query, "current memory") || !strings.Contains(got.Instructions, "historical memory") {
		t.Errorf("client saw %+v", got)
	}
}

// The stdio server (NewMCP, `atma overlay mcp`) acts for its configured user only, and
// the HTTP endpoint refuses a request without the token.
func TestMCPServerUser(t *testing.T) {
	x, err := facts.NewOffline(overlaytest.BagEmbedder{}, facts.Config{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *overlay.Config) { c.Facts = x }, nil)
	e.add("bob", Memory{Content: "I live in Porto.", EventTime: at(1)})
	srv, err := NewMCP(e.ov, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_add", Arguments: map[string]any{"content": "I live in Braga."}}); err != nil {
		t.Fatal(err)
	}
	// The current state of a slot is a resource.
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "atma://state/user/home"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Braga") {
		t.Errorf("resource user/home: %+v %v", rr, err)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "atma://state/user/nothing"}); err == nil {
		t.Error("a slot without records was read")
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_search_lexical", Arguments: map[string]any{"query": "Porto"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, "Porto") {
		t.Errorf("alice's MCP server found bob's memory: %s", text)
	}
	w := e.do(req{method: "POST", path: "/v1/users/alice/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, token: "-"})
	if w.Code != 401 {
		t.Errorf("MCP without a token: %d", w.Code)
	}
}

// Bad input over MCP: an unknown tool, arguments of the wrong type or too large, and a
// write with a read-only key are errors with a message, and nothing is written.
func TestMCPBadInput(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.Token = "" })
	_, ro, err := e.bank.Keys.Create(t.Context(), "ro", "acme", nil, []apikey.Scope{apikey.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	connect := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: srv.URL + "/v1/users/alice/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token}}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	cs := connect(ro)
	for _, tt := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"memory_nothing", map[string]any{}, "unknown tool"},
		{"memory_query", map[string]any{"query": 42}, "query"},
		{"memory_add", map[string]any{"content": strings.Repeat("x", overlay.MaxContentBytes+1)}, "write"},
		{"memory_add", map[string]any{"content": "I moved to Porto."}, "write"},
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.name, Arguments: tt.args})
		var msg string
		switch {
		case err != nil:
			msg = err.Error()
		case res.IsError:
			msg = res.Content[0].(*mcp.TextContent).Text
		default:
			t.Errorf("%s %v: no error", tt.name, tt.args)
			continue
		}
		if !strings.Contains(msg, tt.want) {
			t.Errorf("%s: error %q lacks %q", tt.name, msg, tt.want)
		}
	}
	if recs, _, err := e.ov.List(t.Context(), "acme/alice", store.Filter{}); err != nil || len(recs) != 0 {
		t.Errorf("bad calls wrote %d records (%v)", len(recs), err)
	}
}

// POST /mcp serves the one user an API key is bound to, and asks for the user otherwise.
func TestMCPOwnUser(t *testing.T) {
	e := newEnv(t, nil, nil)
	_, alice, err := e.bank.Keys.Create(t.Context(), "a", "acme", []string{"alice"}, []apikey.Scope{apikey.ScopeRead, apikey.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{alice}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "memory_add", Arguments: map[string]any{"content": "I live in Braga."}}); err != nil || res.IsError {
		t.Fatalf("add through /mcp: %v %+v", err, res)
	}
	if recs, _, err := e.ov.List(t.Context(), "acme/alice", store.Filter{}); err != nil || len(recs) != 1 {
		t.Errorf("acme/alice has %d records (%v)", len(recs), err)
	}
	w := e.do(req{method: "POST", path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`})
	if w.Code != 400 || !strings.Contains(w.Body.String(), "/v1/users/{user}/mcp") {
		t.Errorf("/mcp with the token: %d %s", w.Code, w.Body)
	}
}

// One MCP server serves every HTTP request, so each call must act for its own request's
// user and key however the requests interleave: alice and bob, with a read-write key
// each, add and search at the same time and see only their own memories, while a
// read-only key's writes for carol are refused. A request that did not come through the
// route names no caller and is refused too.
func TestMCPCallerPerRequest(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.Token = "" })
	key := func(name string, scopes ...apikey.Scope) string {
		_, tok, err := e.bank.Keys.Create(t.Context(), name, "acme", nil, scopes)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	rw, ro := key("rw", apikey.ScopeRead, apikey.ScopeWrite), key("ro", apikey.ScopeRead)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	connect := func(t *testing.T, url, token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	call := func(cs *mcp.ClientSession, name string, args map[string]any) (string, bool, error) {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "", false, err
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError, nil
	}
	users := []struct{ user, token, city, other string }{
		{"alice", rw, "Lisbon", "Porto"},
		{"bob", rw, "Porto", "Lisbon"},
		{"carol", ro, "Braga", "Lisbon"},
	}
	t.Run("concurrent callers", func(t *testing.T) {
		for _, u := range users {
			t.Run(u.user, func(t *testing.T) {
				t.Parallel()
				cs := connect(t, srv.URL+"/v1/users/"+u.user+"/mcp", u.token)
				for i := range 10 {
					text, isErr, err := call(cs, "memory_add", map[string]any{"content": fmt.Sprintf("Note %d: I met a friend in %s.", i, u.city)})
					switch {
					case err != nil:
						t.Fatal(err)
					case u.token == ro && (!isErr || !strings.Contains(text, "write")):
						t.Fatalf("a read-only key wrote for %s: %s", u.user, text)
					case u.token == rw && isErr:
						t.Fatalf("add for %s: %s", u.user, text)
					}
					text, isErr, err = call(cs, "memory_search_lexical", map[string]any{"query": u.other})
					if err != nil || isErr {
						t.Fatalf("search for %s: %v %s", u.user, err, text)
					}
					if strings.Contains(text, u.other) {
						t.Fatalf("%s's search found another user's memory: %s", u.user, text)
					}
				}
			})
		}
	})
	for _, u := range users {
		want := 10
		if u.token == ro {
			want = 0
		}
		recs, _, err := e.ov.List(t.Context(), "acme/"+u.user, store.Filter{})
		if err != nil || len(recs) != want {
			t.Errorf("acme/%s has %d records (%v), want %d", u.user, len(recs), err, want)
		}
		for _, r := range recs {
			if !strings.Contains(r.Content, u.city) {
				t.Errorf("acme/%s holds %q", u.user, r.Content)
			}
		}
	}
	t.Run("no caller", func(t *testing.T) {
		bare := httptest.NewServer(e.h.(*server).mcpHTTP)
		defer bare.Close()
		cs := connect(t, bare.URL, rw)
		if _, _, err := call(cs, "memory_add", map[string]any{"content": "I live in Faro."}); err == nil || !strings.Contains(err.Error(), "names no user") {
			t.Errorf("a tool call without a caller: %v", err)
		}
		if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "atma://state/user/home"}); err == nil || !strings.Contains(err.Error(), "names no user") {
			t.Errorf("a resource read without a caller: %v", err)
		}
	})
}
