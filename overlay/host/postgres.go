package host

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

//go:embed pgmigrations/*.sql
var pgMigrationFiles embed.FS

var pgSchema = pgdb.Schema{Component: Component, FS: pgMigrationFiles, Dir: "pgmigrations"}

var postgresDialect = &dialect{
	claim: pgdb.LockUser,
	// Read committed would let a write land between reading the generation and the
	// memories: the index would be newer than its generation says (harmless, reloaded
	// on the next search, but a wasted load).
	snapshot:   sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
	classify:   store.PostgresError,
	withWrites: true,
}

// OpenPostgres connects to the database at url (postgres://…) and migrates the host's
// tables. Close closes the pool.
func OpenPostgres(ctx context.Context, url string, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("postgres host config: %w", err)
	}
	h, err := pgSchema.Open(ctx, url, cfg.Postgres)
	if err != nil {
		return nil, store.PostgresError(err)
	}
	return newSQL(h.DB(), func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, h.Close, postgresDialect, cfg), nil
}

// NewPostgres uses db (from pgdb.Open, possibly shared with store.NewPostgres) and
// migrates the host's tables. Close leaves db open.
func NewPostgres(ctx context.Context, db *sql.DB, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("postgres host config: %w", err)
	}
	h, err := pgSchema.Adopt(ctx, db)
	if err != nil {
		return nil, store.PostgresError(err)
	}
	return newSQL(h.DB(), func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, h.Close, postgresDialect, cfg), nil
}
