package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atma-dev/atma/internal/npmclient"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/store/storetest"
)

// TestOverlayCommands runs add, query, show, trace and check against a real SQLite bank
// with the test-tiny backbone and the rule auditor.
func TestOverlayCommands(t *testing.T) {
	env := map[string]string{"ATMA_CACHE": testTinyCache(t), "ATMA_DATA": t.TempDir()}
	common := []string{"-u", "alice", "--backbone", "test-tiny", "--gate-off"}
	code, out, errOut := run(t, "atma", env, "", append([]string{"overlay", "add", "--at", "2024-01-01T00:00:00Z", "I live in Berlin."}, common...)...)
	if code != 0 {
		t.Fatalf("add: exit %d: %s", code, errOut)
	}
	code, out, errOut = run(t, "atma", env, "", append([]string{"overlay", "add", "--at", "2025-01-01T00:00:00Z", "--json", "I moved to Lisbon last month."}, common...)...)
	var traces []overlay.IngestTrace
	if code != 0 || json.Unmarshal([]byte(out), &traces) != nil || len(traces) != 1 || len(traces[0].Commits) != 1 {
		t.Fatalf("add: exit %d: %q %s", code, out, errOut)
	}
	code, out, errOut = run(t, "atma", env, "", append([]string{"overlay", "query", "Where do I live now?"}, common...)...)
	if code != 0 || !strings.Contains(out, "[1] current memory") || !strings.Contains(out, "Lisbon") || !strings.Contains(out, "trace: ") {
		t.Fatalf("query: exit %d: %s %s", code, out, errOut)
	}
	traceID := strings.TrimSpace(out[strings.LastIndex(out, "trace: ")+len("trace: "):])
	if code, out, errOut := run(t, "atma", env, "", "overlay", "trace", "-u", "alice", traceID); code != 0 || !strings.Contains(out, `"kind": "query"`) {
		t.Errorf("trace: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "atma", env, "", "overlay", "trace", "-u", "bob", traceID); code != ExitFailure || !strings.Contains(errOut, "not found") {
		t.Errorf("bob reads alice's trace: exit %d: %s", code, errOut)
	}
	if code, out, _ := run(t, "atma", env, "", "overlay", "show", "-u", "alice", "--status", "superseded"); code != 0 || !strings.Contains(out, "Berlin") || strings.Contains(out, "Lisbon") {
		t.Errorf("show: exit %d: %s", code, out)
	}
	if code, out, errOut := run(t, "atma", env, "", "overlay", "check"); code != 0 || !strings.Contains(out, "alice: 0 violations") {
		t.Errorf("check: exit %d: %s %s", code, out, errOut)
	}
	// The bank's memories have facts already: reindex reads none, and check still passes.
	code, out, errOut = run(t, "atma", env, "", append([]string{"overlay", "reindex", "--json"}, common...)...)
	var rep overlay.ReindexReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.User != "alice" || rep.Records < 2 || rep.Moved != 0 {
		t.Errorf("reindex: exit %d: %q %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "atma", env, "", append([]string{"overlay", "reindex", "--facts", "off"}, common...)...); code != ExitUsage || !strings.Contains(errOut, "--facts off") {
		t.Errorf("reindex --facts off: exit %d: %s", code, errOut)
	}
	// Bad input: nothing is written.
	if code, _, errOut := run(t, "atma", env, "", append([]string{"overlay", "add", "bad \xff"}, common...)...); code != ExitUsage || !strings.Contains(errOut, "UTF-8") {
		t.Errorf("bad UTF-8: exit %d: %s", code, errOut)
	}
	if code, _, _ := run(t, "atma", env, "", "overlay", "add", "x"); code != ExitUsage {
		t.Errorf("no --user: exit %d", code)
	}
	if code, _, _ := run(t, "atma", env, "", append([]string{"overlay", "query", "--top-k", "99", "q"}, common...)...); code != ExitUsage {
		t.Errorf("top-k 99: exit %d", code)
	}
}

// `overlay check` on a bank whose file is damaged on disk reports the damage (text and
// JSON) and exits 1.
func TestOverlayCheckDamagedFile(t *testing.T) {
	dir := t.TempDir()
	bank, err := overlay.OpenBank(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	storetest.PutPlain(t, bank.Store, "alice", 400)
	if err := bank.Close(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ATMA_DATA": dir}
	if code, out, errOut := run(t, "atma", env, "", "overlay", "check"); code != 0 || !strings.Contains(out, "alice: 0 violations") {
		t.Fatalf("check of a sound bank: exit %d: %s %s", code, out, errOut)
	}
	storetest.DamageFile(t, filepath.Join(dir, overlay.DBFile), 6, 21, 61)
	code, out, errOut := run(t, "atma", env, "", "overlay", "check")
	if code != ExitFailure || !strings.Contains(out, "bank file: damaged") || !strings.Contains(errOut, "damaged") {
		t.Errorf("check of a damaged bank: exit %d: %s %s", code, out, errOut)
	}
	code, out, _ = run(t, "atma", env, "", "overlay", "check", "--json")
	if code != ExitFailure || !strings.Contains(out, `"damaged-file"`) {
		t.Errorf("check --json of a damaged bank: exit %d: %s", code, out)
	}
}

// A read-only command on a data directory without a bank refuses, and creates nothing.
func TestOverlayMissingBank(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	env := map[string]string{"ATMA_DATA": dir}
	for _, args := range [][]string{{"overlay", "check"}, {"overlay", "show", "-u", "alice"}, {"overlay", "trace", "-u", "alice", "t1"}} {
		code, _, errOut := run(t, "atma", env, "", args...)
		if code != ExitUsage || !strings.Contains(errOut, "no bank in "+dir) {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a read-only command created %s: %v", dir, err)
	}
}

// `overlay add` from a file checks every line first (a bad one commits nothing and is
// named), then commits chunk by chunk, printing each memory as its chunk commits.
func TestOverlayAddFile(t *testing.T) {
	env := map[string]string{"ATMA_CACHE": testTinyCache(t), "ATMA_DATA": t.TempDir()}
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("note %d: the tram to the old town was late again.", i))
	}
	common := []string{"overlay", "add", "-u", "alice", "--backbone", "test-tiny", "--gate-off", "-f", "-"}
	code, _, errOut := run(t, "atma", env, strings.Join(append(slices.Clone(lines), "bad \xff line"), "\n"), common...)
	if code != ExitUsage || !strings.Contains(errOut, "memory 41 of 41") || !strings.Contains(errOut, "nothing was committed") {
		t.Fatalf("add with a bad line: exit %d: %s", code, errOut)
	}
	if code, out, _ := run(t, "atma", env, "", "overlay", "show", "-u", "alice", "--json"); code != 0 || strings.Contains(out, `"Source":"cli"`) {
		t.Errorf("a refused file left records: exit %d: %.200s", code, out)
	}
	code, out, errOut := run(t, "atma", env, strings.Join(lines, "\n"), common...)
	if code != 0 || strings.Count(out, "+ ") != 40 {
		t.Fatalf("add: exit %d, %d memories printed: %s", code, strings.Count(out, "+ "), errOut)
	}
	if code, out, _ := run(t, "atma", env, "", "overlay", "show", "-u", "alice", "--json"); code != 0 || strings.Count(out, `"Source":"cli"`) != 40 {
		t.Errorf("show: exit %d, %d records", code, strings.Count(out, `"Source":"cli"`))
	}
}

func TestOverlayKeysCommands(t *testing.T) {
	env := map[string]string{"ATMA_DATA": t.TempDir()}
	code, out, errOut := run(t, "atma", env, "", "overlay", "keys", "create", "--tenant", "acme", "--users", "alice", "--scopes", "read", "--json")
	var k struct {
		ID, Tenant, Token string
		Users             []string
	}
	if code != 0 || json.Unmarshal([]byte(out), &k) != nil || k.Tenant != "acme" || !strings.HasPrefix(k.Token, "atma_") || len(k.Users) != 1 {
		t.Fatalf("create: exit %d: %s %s", code, out, errOut)
	}
	if code, out, _ := run(t, "atma", env, "", "overlay", "keys", "list"); code != 0 || !strings.Contains(out, k.ID) || strings.Contains(out, k.Token) {
		t.Errorf("list: exit %d: %s", code, out)
	}
	if code, _, _ := run(t, "atma", env, "", "overlay", "keys", "revoke", k.ID); code != 0 {
		t.Errorf("revoke: exit %d", code)
	}
	if code, _, errOut := run(t, "atma", env, "", "overlay", "keys", "revoke", "nope"); code != ExitUsage || !strings.Contains(errOut, "keys list") {
		t.Errorf("revoke unknown: exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "atma", env, "", "overlay", "keys", "create", "--tenant", "acme", "--scopes", "root"); code != ExitUsage || !strings.Contains(errOut, `scope "root"`) {
		t.Errorf("bad scope: exit %d: %s", code, errOut)
	}
}

// `atma overlay mcp` with the official TypeScript SDK as its client over stdio.
func TestOverlayMCPStdio(t *testing.T) {
	cache := testTinyCache(t)
	sdk := npmclient.Dir(t, "mcp-client", "@modelcontextprotocol/sdk")
	bin := filepath.Join(t.TempDir(), "atma")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../../cmd/atma").CombinedOutput(); err != nil {
		t.Fatalf("build atma: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(t.Context(), "node", "testdata/mcp_stdio_client.mjs", sdk, bin, "overlay", "mcp", "-u", "alice", "--backbone", "test-tiny", "--gate-off")
	cmd.Env = append(os.Environ(), "ATMA_CACHE="+cache, "ATMA_DATA="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	if s := string(out); !strings.Contains(s, `"addError":false`) || !strings.Contains(s, "Lisbon") || !strings.Contains(s, "current memory") {
		t.Errorf("stdio client saw %s", s)
	}
}
