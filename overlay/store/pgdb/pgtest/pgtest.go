// Package pgtest gives tests a PostgreSQL database of their own: a fresh schema of the
// database that ATMA_TEST_DATABASE_URL names, dropped when the test ends, so that tests
// run in parallel on one server without seeing each other's tables. `make test` starts a
// throw-away server (scripts/pg-test.sh) and sets the variable; without it the tests
// that need PostgreSQL skip, saying so.
package pgtest

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// EnvURL names the variable holding the test server's URL.
const EnvURL = "ATMA_TEST_DATABASE_URL"

// URL returns the URL of a new, empty schema of the test database (its search_path
// set to it), dropped with everything in it when t ends. It skips t when EnvURL is
// unset and fails it when the server does not answer.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		t.Skipf("%s is not set: run `make test`, or scripts/pg-test.sh run go test …, to test on PostgreSQL", EnvURL)
	}
	admin, err := pgdb.Open(t.Context(), base, pgdb.Config{MaxConns: 1})
	if err != nil {
		t.Fatalf("test database (%s): %v", EnvURL, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), `CREATE SCHEMA `+schema); err != nil {
		admin.Close()
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("drop test schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
