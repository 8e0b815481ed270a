// Package npmclient finds the real client libraries the integration tests drive, which
// scripts/npm-clients.sh installs pinned into $ATMA_CACHE/npm/<name> (`make test` runs
// it): the MCP TypeScript SDK and Mem0's client. A test without them, or without node,
// skips and says why.
package npmclient

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir returns the install directory of client name ("mcp-client", "mem0-client") in
// the user's cache, checking that node_modules/<pkg>/package.json is there; the test
// skips otherwise, and when node is not on PATH.
func Dir(t testing.TB, name, pkg string) string {
	t.Helper()
	cache := os.Getenv("ATMA_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "atma")
	}
	dir := filepath.Join(cache, "npm", name)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
		t.Skipf("%s is not installed in %s (make test installs it: scripts/npm-clients.sh)", pkg, dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	return dir
}
