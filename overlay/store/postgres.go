package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/atma-dev/atma/overlay/store/pgdb"
)

//go:embed pgmigrations/*.sql
var pgMigrationFiles embed.FS

var pgSchema = pgdb.Schema{Component: Component, FS: pgMigrationFiles, Dir: "pgmigrations"}

var postgresDialect = func() *dialect {
	d := &dialect{
		getManyFrom: `json_array_elements_text(?::json) AS j(value) JOIN records r ON r."user" = ? AND r.id = j.value`,
		slotFrom:    "records r",
		claim:       pgdb.LockUser,
		withWrites:  true,
		classify:    func(err error) (error, bool) { return PostgresError(err), false },
		integrity:   func(context.Context, *sql.DB, bool) ([]string, error) { return nil, nil },
	}
	d.recordCols, d.stateCols = recordColumns(`
	(SELECT coalesce(json_agg(json_build_array(l.type, l.dst) ORDER BY l.type, l.dst), '[]'::json)
		FROM links l WHERE l."user" = r."user" AND l.src = r.id)`)
	return d
}()

// PostgresError maps an error of PostgreSQL onto the store's sentinels (ErrUnavailable,
// ErrBusy, also for a pool with no connection free, ErrDiskFull, ErrReadOnly, ErrInvalid), saying what happened and what to do;
// other errors, and nil, pass as they are. The components that share the bank's
// PostgreSQL database (the host memory, the traces, the API keys) map theirs with it.
func PostgresError(err error) error {
	switch {
	case errors.Is(err, pgdb.ErrPoolExhausted):
		return fmt.Errorf("%w: no connection of this process's PostgreSQL pool came free in time (the pool is too small for the load, or transactions hold their connections long); what waited ran nothing, retry (%w)", ErrBusy, err)
	case pgdb.IsUnavailable(err):
		return fmt.Errorf("%w: the connection to PostgreSQL failed or was lost (a write it interrupted committed nothing); retry when the database is back (%w)", ErrUnavailable, err)
	case pgdb.IsBusy(err):
		return fmt.Errorf("%w: PostgreSQL gave up the transaction (serialisation failure or deadlock); nothing was written, retry (%w)", ErrBusy, err)
	case pgdb.IsFull(err):
		return fmt.Errorf("%w: PostgreSQL is out of disk or memory; nothing was written (%w)", ErrDiskFull, err)
	case pgdb.IsReadOnly(err):
		return fmt.Errorf("%w: the PostgreSQL server is read-only (a standby?); point --store at the primary (%w)", ErrReadOnly, err)
	case pgdb.IsBadText(err):
		return fmt.Errorf("%w: text PostgreSQL cannot store (a NUL character); remove it (%w)", ErrInvalid, err)
	}
	return err
}

// OpenPostgres connects to the database at url (postgres://…) and migrates the bank's
// tables. Close closes the pool.
func OpenPostgres(ctx context.Context, url string, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("postgres store config: %w", err)
	}
	h, err := pgSchema.Open(ctx, url, cfg.Postgres)
	if err != nil {
		return nil, PostgresError(err)
	}
	return newPostgres(ctx, h, cfg)
}

// NewPostgres uses db (from pgdb.Open, possibly shared with the host) and migrates the
// bank's tables. Close leaves db open.
func NewPostgres(ctx context.Context, db *sql.DB, cfg Config) (*SQL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("postgres store config: %w", err)
	}
	h, err := pgSchema.Adopt(ctx, db)
	if err != nil {
		return nil, PostgresError(err)
	}
	return newPostgres(ctx, h, cfg)
}

func newPostgres(ctx context.Context, h pgdb.Handle, cfg Config) (*SQL, error) {
	return newSQL(ctx, h.DB(), func(tx *sql.Tx) querier { return h.Q(tx) }, h.Close, postgresDialect, cfg)
}
