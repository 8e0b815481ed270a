package sqlitedb_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

func TestStmts(t *testing.T) {
	ctx := t.Context()
	db, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "atma.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	s := sqlitedb.NewStmts(db, 2)
	count := func(q sqlitedb.Execer) int {
		t.Helper()
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM kv`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("prepared once, least recently used closed first", func(t *testing.T) {
		a, err := s.Prepare(ctx, `SELECT 1`)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := s.Prepare(ctx, `SELECT 1`); again != a {
			t.Error("the same SQL was prepared twice")
		}
		if _, err := s.Prepare(ctx, `SELECT 2`); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Prepare(ctx, `SELECT 3`); err != nil {
			t.Fatal(err)
		}
		if s.Len() != 2 {
			t.Errorf("%d statements cached, want 2", s.Len())
		}
		var one int
		if err := a.QueryRowContext(ctx).Scan(&one); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("the evicted statement still runs (%v)", err)
		}
	})

	t.Run("in a transaction", func(t *testing.T) {
		for _, commit := range []bool{false, true} {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			q := s.On(tx)
			if _, err := q.ExecContext(ctx, `INSERT INTO kv (k, v) VALUES (?, ?)`, "a", 1); err != nil {
				t.Fatal(err)
			}
			if n := count(q); n != 1 {
				t.Errorf("the transaction sees %d rows of its own, want 1", n)
			}
			if commit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if commit {
				want = 1
			}
			if n := count(s.On(nil)); n != want {
				t.Errorf("commit %v: %d rows after, want %d", commit, n, want)
			}
		}
	})

	t.Run("errors come back as the driver gives them", func(t *testing.T) {
		var x int
		err := s.On(nil).QueryRowContext(ctx, `SELECT nope FROM kv`).Scan(&x)
		if err == nil || !strings.Contains(err.Error(), "no such column") {
			t.Errorf("bad SQL: %v", err)
		}
		if _, err := s.On(nil).ExecContext(ctx, `INSERT INTO kv (k, v) VALUES (?, ?)`, "a", 2); err == nil {
			t.Error("a duplicate key was inserted")
		}
	})

	t.Run("closed cache runs unprepared", func(t *testing.T) {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s.Len() != 0 {
			t.Errorf("%d statements after Close", s.Len())
		}
		if n := count(s.On(nil)); n != 1 {
			t.Errorf("%d rows through a closed cache, want 1", n)
		}
		if _, err := s.Prepare(ctx, `SELECT 1`); err == nil {
			t.Error("a closed cache prepared a statement")
		}
	})
}
