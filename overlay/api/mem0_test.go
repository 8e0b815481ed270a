package api

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/atma-dev/atma/internal/npmclient"
	"github.com/atma-dev/atma/overlay/apikey"
)

// TestMem0Client drives Mem0's own client (npm mem0ai's MemoryClient) against the Mem0
// surface: what an app sees when it changes its client's host to atma.
func TestMem0Client(t *testing.T) {
	pkg := npmclient.Dir(t, "mem0-client", "mem0ai")
	e := newEnv(t, nil, nil)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	cmd := exec.CommandContext(t.Context(), "node", "testdata/mem0_client.mjs", pkg, srv.URL+"/mem0", testToken)
	cmd.Env = append(os.Environ(), "MEM0_TELEMETRY=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mem0 client: %v\n%s", err, out)
	}
	var got struct {
		Added               int
		SearchFirst         string
		SearchLabel         string
		All                 int
		Get, Updated        string
		History             []string
		Deleted, DeletedAll string
		Unsupported         string
		MS                  map[string]float64
	}
	line := strings.TrimSpace(string(out))
	if err := json.Unmarshal([]byte(line[strings.LastIndexByte(line, '\n')+1:]), &got); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	t.Logf("Mem0 client round trips, ms (the first includes the client's ping): %v", got.MS)
	if got.Added != 1 || !strings.Contains(got.SearchFirst, "Lisbon") || got.SearchLabel != "current memory" || got.All != 2 ||
		!strings.Contains(got.Get, "Lisbon") || !strings.Contains(got.Updated, "Porto") || len(got.History) < 2 ||
		!strings.Contains(got.Deleted, "deleted") || !strings.Contains(got.DeletedAll, "deleted") {
		t.Errorf("mem0 client saw %+v", got)
	}
	if !strings.Contains(got.Unsupported, "not_implemented") {
		t.Errorf("an unsupported endpoint: %q", got.Unsupported)
	}
}

// The Mem0 surface with API keys: Mem0's "Token" scheme authenticates, a key's user_id is
// in its tenant, and another tenant's key cannot read a memory by its id.
func TestMem0Keys(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.Token = "" })
	_, acme, err := e.bank.Keys.Create(t.Context(), "a", "acme", nil, []apikey.Scope{apikey.ScopeRead, apikey.ScopeWrite})
	if err != nil {
		t.Fatal(err)
	}
	_, blue, err := e.bank.Keys.Create(t.Context(), "b", "blue", nil, []apikey.Scope{apikey.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	w := e.do(req{method: "POST", path: "/mem0/v3/memories/add/", body: `{"messages":"I live in Braga.","user_id":"alice"}`, token: "Token " + acme})
	var added struct{ Results []struct{ ID string } }
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &added) != nil || len(added.Results) != 1 {
		t.Fatalf("add with acme's key: %d %s", w.Code, w.Body)
	}
	id := added.Results[0].ID
	if w := e.do(req{method: "GET", path: "/mem0/v1/memories/" + id + "/", token: "Token " + acme}); w.Code != 200 {
		t.Errorf("acme reads its memory: %d %s", w.Code, w.Body)
	}
	if w := e.do(req{method: "GET", path: "/mem0/v1/memories/" + id + "/", token: "Token " + blue}); w.Code != 404 || strings.Contains(w.Body.String(), "Braga") {
		t.Errorf("blue reads acme's memory: %d %s", w.Code, w.Body)
	}
	if w := e.do(req{method: "POST", path: "/mem0/v3/memories/add/", body: `{"messages":"x","user_id":"alice"}`, token: "Token " + blue}); w.Code != 403 {
		t.Errorf("a read-only key adds: %d %s", w.Code, w.Body)
	}
	if w := e.do(req{method: "GET", path: "/mem0/v1/ping/", token: "-"}); w.Code != 401 {
		t.Errorf("no key on a server with keys: %d", w.Code)
	}
}
