package overlay

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// TestTracesMigrations: the traces table is a numbered migration of its own component
// on both databases, and an SQLite bank whose traces table was made before it had one
// (created when the bank opened) opens with its traces kept and the migration recorded.
func TestTracesMigrations(t *testing.T) {
	ctx := t.Context()
	t.Run("SQLite bank from before the migration", func(t *testing.T) {
		dir := t.TempDir()
		db, err := sqlitedb.Open(ctx, filepath.Join(dir, DBFile), sqlitedb.Config{})
		if err != nil {
			t.Fatal(err)
		}
		// What NewSQLTraces did before the migration, and one trace in it.
		for _, q := range []string{`CREATE TABLE IF NOT EXISTS overlay_traces (
			user TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, created TEXT NOT NULL, data TEXT NOT NULL,
			PRIMARY KEY (user, id))`,
			`INSERT INTO overlay_traces VALUES ('u', 't1', 'query', '2025-01-01T00:00:00.000000000Z', '{"id":"t1"}')`} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		bank, err := OpenBank(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer bank.Close()
		if kind, raw, err := bank.Traces.Trace(ctx, "u", "t1"); err != nil || kind != "query" || string(raw) != `{"id":"t1"}` {
			t.Errorf("the old trace: %q %s %v", kind, raw, err)
		}
		if v, err := sqlitedb.Version(ctx, bank.DB, TracesComponent); err != nil || v != 1 {
			t.Errorf("traces schema version %d (%v), want 1", v, err)
		}
	})
	t.Run("SQLite", func(t *testing.T) {
		bank, err := OpenBank(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer bank.Close()
		if v, err := sqlitedb.Version(ctx, bank.DB, TracesComponent); err != nil || v != 1 {
			t.Errorf("traces schema version %d (%v), want 1", v, err)
		}
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		bank := openPostgresBank(t, pgtest.URL(t))
		if v, err := pgdb.Version(ctx, bank.DB, TracesComponent); err != nil || v != 1 {
			t.Errorf("traces schema version %d (%v), want 1", v, err)
		}
	})
}

// TestTracesBatches: an Add's traces are written a statement of up to traceBatch rows
// at a time, all or none, the last of a repeated id winning, on both databases.
func TestTracesBatches(t *testing.T) {
	ctx := t.Context()
	for name, open := range map[string]func(t *testing.T) *Bank{
		"SQLite": func(t *testing.T) *Bank {
			b, err := OpenBank(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		"PostgreSQL": func(t *testing.T) *Bank { return openPostgresBank(t, pgtest.URL(t)) },
	} {
		t.Run(name, func(t *testing.T) {
			bank := open(t)
			defer bank.Close()
			var trs []*IngestTrace
			for i := range 2*traceBatch + 7 {
				trs = append(trs, &IngestTrace{ID: fmt.Sprintf("t%03d", i), User: "u", Content: fmt.Sprintf("memory %d", i)})
			}
			trs = append(trs, &IngestTrace{ID: "t005", User: "u", Content: "memory 5, again"})
			if err := bank.Traces.PutIngest(ctx, trs...); err != nil {
				t.Fatal(err)
			}
			if n, err := bank.Traces.Count(ctx); err != nil || n != 2*traceBatch+7 {
				t.Errorf("%d traces (%v), want %d", n, err, 2*traceBatch+7)
			}
			for id, want := range map[string]string{"t000": "memory 0", "t005": "memory 5, again", "t206": "memory 206"} {
				_, raw, err := bank.Traces.Trace(ctx, "u", id)
				var tr IngestTrace
				if err == nil {
					err = json.Unmarshal(raw, &tr)
				}
				if err != nil || tr.Content != want {
					t.Errorf("trace %s: %q (%v), want %q", id, tr.Content, err, want)
				}
			}
		})
	}
}
