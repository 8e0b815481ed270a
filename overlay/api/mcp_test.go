package api

import (
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/atma-dev/atma/internal/npmclient"
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
	e := newEnv(t, nil, nil)
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
