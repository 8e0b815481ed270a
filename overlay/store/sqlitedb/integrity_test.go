package sqlitedb_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// The errors SQLite gives for a file it may not write and for a full disk are told apart
// (a full disk simulated by a page limit; a read-only file by opening it read-only, since
// tests may run as root, whom file modes do not stop).
func TestErrorKinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := sqlitedb.Open(t.Context(), path, sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE t (v TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), `PRAGMA max_page_count = 8`); err != nil {
		t.Fatal(err)
	}
	var full error
	for i := 0; i < 100 && full == nil; i++ {
		_, full = db.ExecContext(t.Context(), `INSERT INTO t VALUES (?)`, strings.Repeat("x", 4000))
	}
	if !sqlitedb.IsFull(full) || sqlitedb.IsReadOnly(full) || sqlitedb.IsDamaged(full) {
		t.Errorf("a full database: %v (full %t)", full, sqlitedb.IsFull(full))
	}
	ro, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.ExecContext(t.Context(), `INSERT INTO t VALUES ('y')`)
	if !sqlitedb.IsReadOnly(err) || sqlitedb.IsFull(err) {
		t.Errorf("a read-only database: %v (read-only %t)", err, sqlitedb.IsReadOnly(err))
	}
}
