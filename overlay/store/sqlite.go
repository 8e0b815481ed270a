package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Component is the name of the bank's schema in schema_migrations.
const Component = "store"

//go:embed migrations/*.sql
var migrationFiles embed.FS

var schema = sqlitedb.Schema{Component: Component, FS: migrationFiles, Dir: "migrations"}

var sqliteDialect = func() *dialect {
	d := &dialect{
		// A point lookup for each id; CROSS JOIN keeps SQLite from scanning the records.
		getManyFrom: `json_each(?) j CROSS JOIN records r ON r."user" = ? AND r.id = j.value`,
		// With a slot, the slot's records come from the version index; left to itself,
		// SQLite walks every record of the user in id order (or of the status) to filter.
		slotFrom:  "records r INDEXED BY records_version",
		oneWriter: true,
		classify:  classifySQLite,
		integrity: sqlitedb.Integrity,
	}
	d.recordCols, d.stateCols = recordColumns(`
	(SELECT json_group_array(json_array(type, dst)) FROM
		(SELECT type, dst FROM links l WHERE l."user" = r."user" AND l.src = r.id ORDER BY type, dst))`)
	return d
}()

func classifySQLite(err error) (error, bool) {
	switch {
	case sqlitedb.IsReadOnly(err):
		return fmt.Errorf("%w: nothing was written; make the data directory and atma.db writable (%w)", ErrReadOnly, err), false
	case sqlitedb.IsFull(err):
		return fmt.Errorf("%w: nothing was written; free space on the bank's disk and retry (%w)", ErrDiskFull, err), false
	case sqlitedb.IsBusy(err):
		return fmt.Errorf("%w: another process held the bank's write lock past the busy timeout; nothing was written, retry (%w)", ErrBusy, err), false
	}
	return err, sqlitedb.IsDamaged(err)
}

// OpenSQLite opens (creating if needed) the bank at path and migrates it. Close closes
// the database.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite store config: %w", err)
	}
	h, err := schema.Open(ctx, path, cfg.SQLite)
	if err != nil {
		return nil, err
	}
	return newSQLite(ctx, h, cfg)
}

// NewSQLite uses db, opened with sqlitedb.Open and possibly shared with the host, and
// migrates the bank's tables. Close leaves db open.
func NewSQLite(ctx context.Context, db *sql.DB, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite store config: %w", err)
	}
	h, err := schema.Adopt(ctx, db)
	if err != nil {
		return nil, err
	}
	return newSQLite(ctx, h, cfg)
}

func newSQLite(ctx context.Context, h sqlitedb.Handle, cfg Config) (*SQL, error) {
	return newSQL(ctx, h.DB(), func(tx *sql.Tx) querier { return h.Q(tx) }, h.Close, sqliteDialect, cfg)
}
