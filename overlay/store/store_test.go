package store_test

import (
	"path/filepath"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/storetest"
)

func openSQLite(t *testing.T, cfg store.Config) store.Store {
	t.Helper()
	s, err := store.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "bank.db"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openPostgres opens a store on a fresh schema of the test server (pgtest.URL: skipped
// without ATMA_TEST_DATABASE_URL).
func openPostgres(t *testing.T, cfg store.Config) store.Store {
	t.Helper()
	s, err := store.OpenPostgres(t.Context(), pgtest.URL(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openMemory(t *testing.T, cfg store.Config) store.Store {
	t.Helper()
	s, err := store.NewMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStores runs the conformance suite against every implementation.
func TestStores(t *testing.T) {
	for _, impl := range []struct {
		name string
		open storetest.Opener
	}{
		{"SQLite", openSQLite},
		{"Memory", openMemory},
		{"Postgres", openPostgres},
	} {
		t.Run(impl.name, func(t *testing.T) { storetest.Run(t, impl.open) })
	}
}
