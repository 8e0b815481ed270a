package host

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Component is the name of the host's schema in schema_migrations.
const Component = "host"

//go:embed migrations/*.sql
var migrationFiles embed.FS

var schema = sqlitedb.Schema{Component: Component, FS: migrationFiles, Dir: "migrations"}

var sqliteDialect = &dialect{
	snapshot: sql.TxOptions{ReadOnly: true},
	classify: func(err error) error { return err },
}

// OpenSQLite opens (creating if needed) the database at path and migrates the host's
// tables. Close closes the database.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite host config: %w", err)
	}
	h, err := schema.Open(ctx, path, cfg.SQLite)
	if err != nil {
		return nil, err
	}
	return newSQL(h.DB(), func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, h.Close, sqliteDialect, cfg), nil
}

// NewSQLite uses db (from sqlitedb.Open, possibly shared with store.NewSQLite) and
// migrates the host's tables. Close leaves db open.
func NewSQLite(ctx context.Context, db *sql.DB, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite host config: %w", err)
	}
	h, err := schema.Adopt(ctx, db)
	if err != nil {
		return nil, err
	}
	return newSQL(h.DB(), func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, h.Close, sqliteDialect, cfg), nil
}
