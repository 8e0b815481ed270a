package sqlitedb_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

func testSchema(component string, migrations ...string) sqlitedb.Schema {
	files := fstest.MapFS{}
	for i, sql := range migrations {
		files[fmt.Sprintf("m/%04d_step.sql", i+1)] = &fstest.MapFile{Data: []byte(sql)}
	}
	return sqlitedb.Schema{Component: component, FS: files, Dir: "m"}
}

func TestSchemaOpenOwns(t *testing.T) {
	s := testSchema("comp", "CREATE TABLE a (x INTEGER);", "ALTER TABLE a ADD COLUMN y TEXT;")
	h, err := s.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	db := h.DB()
	if v, err := sqlitedb.Version(t.Context(), db, "comp"); err != nil || v != 2 {
		t.Fatalf("version %d, %v; want 2", v, err)
	}
	if _, err := db.Exec("INSERT INTO a (x, y) VALUES (1, 'y')"); err != nil {
		t.Fatalf("migrations not applied: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(t.Context()); err == nil {
		t.Error("Close of an opened schema left the database open")
	}
}

func TestSchemaAdoptShares(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, err := testSchema("a", "CREATE TABLE a (x INTEGER);").Adopt(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	b, err := testSchema("b", "CREATE TABLE b (x INTEGER);", "CREATE TABLE b2 (x INTEGER);").Adopt(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	if a.DB() != db || b.DB() != db {
		t.Error("adopted handles do not return the database they were given")
	}
	for _, tt := range []struct {
		component string
		want      int
	}{{"a", 1}, {"b", 2}} {
		if v, err := sqlitedb.Version(t.Context(), db, tt.component); err != nil || v != tt.want {
			t.Errorf("%s: version %d, %v; want %d", tt.component, v, err, tt.want)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(t.Context()); err != nil {
		t.Errorf("Close of an adopted schema closed the shared database: %v", err)
	}
}

func TestSchemaErrors(t *testing.T) {
	tests := []struct {
		name    string
		schema  sqlitedb.Schema
		wantErr string
	}{
		{"broken SQL", testSchema("comp", "CREATE TABLE broken (;"), "sqlite comp: migrate comp to 1"},
		{"bad file name", sqlitedb.Schema{Component: "comp", FS: fstest.MapFS{"m/init.sql": {}}, Dir: "m"}, "sqlite comp: migration \"init.sql\""},
		{"no component", testSchema("", "CREATE TABLE a (x INTEGER);"), "empty component"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("open", func(t *testing.T) {
				h, err := tt.schema.Open(t.Context(), filepath.Join(t.TempDir(), "e.db"), sqlitedb.Config{})
				if err == nil {
					h.Close()
					t.Fatal("Open succeeded")
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			})
			t.Run("adopt", func(t *testing.T) {
				db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "e.db"), sqlitedb.Config{})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := tt.schema.Adopt(t.Context(), db); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			})
		})
	}
	t.Run("bad path", func(t *testing.T) {
		if h, err := testSchema("comp", "CREATE TABLE a (x INTEGER);").Open(t.Context(), ":memory:", sqlitedb.Config{}); err == nil {
			h.Close()
			t.Error("Open of :memory: succeeded")
		}
	})
}
