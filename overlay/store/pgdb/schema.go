package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Schema is one component's share of the database, with sqlitedb.Schema's fields: the
// name its migrations are recorded under in schema_migrations and its migration files
// (PostgreSQL's; each component keeps them apart from its SQLite ones). Open and Adopt
// are sqlitedb.Schema's on PostgreSQL's Open, Migrate and Handle.
type Schema sqlitedb.Schema

// Migrations loads the schema's migrations, sorted by version (as sqlitedb.Schema does).
func (s Schema) Migrations() ([]sqlitedb.Migration, error) {
	return sqlitedb.Schema(s).Migrations()
}

// Open connects with Open and migrates the schema's tables; the Handle owns the
// database (Close closes it). Nothing stays open on failure.
func (s Schema) Open(ctx context.Context, rawURL string, cfg Config) (Handle, error) {
	db, err := Open(ctx, rawURL, cfg)
	if err != nil {
		return Handle{}, err
	}
	h, err := s.Adopt(ctx, db)
	if err != nil {
		db.Close()
		return Handle{}, err
	}
	h.own = true
	return h, nil
}

// Adopt migrates the schema's tables in db (from Open, possibly shared with other
// components); the Handle's Close leaves db open.
func (s Schema) Adopt(ctx context.Context, db *sql.DB) (Handle, error) {
	ms, err := s.Migrations()
	if err != nil {
		return Handle{}, fmt.Errorf("postgres %s: %w", s.Component, err)
	}
	if _, err := Migrate(ctx, db, s.Component, ms); err != nil {
		return Handle{}, fmt.Errorf("postgres %s: %w", s.Component, err)
	}
	return Handle{db: db}, nil
}

// Handle is a component's hold on the database, as sqlitedb.Handle. Safe for
// concurrent use; Close is called once.
type Handle struct {
	db  *sql.DB
	own bool
}

// DB returns the underlying database.
func (h Handle) DB() *sql.DB { return h.db }

// Q runs statements on the database, or in tx when it is not nil (see Q).
func (h Handle) Q(tx *sql.Tx) Q { return On(h.db, tx) }

// Close closes the database if Schema.Open opened it.
func (h Handle) Close() error {
	if h.own {
		return h.db.Close()
	}
	return nil
}

// migrateLock is the second key of the advisory lock Migrate holds.
const migrateLock = 1

// Migrate applies the migrations of component that the database lacks and returns the
// schema version. It runs in one transaction holding an advisory lock, so processes that
// start together apply each migration once, and PostgreSQL's transactional DDL makes a
// failed migration leave nothing behind. A database newer than the migrations is refused
// (sqlitedb.Pending).
func Migrate(ctx context.Context, db *sql.DB, component string, migrations []sqlitedb.Migration) (int, error) {
	if component == "" {
		return 0, errors.New("migrate: empty component")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("migrate %s: begin: %w", component, err)
	}
	defer tx.Rollback()
	q := On(db, tx)
	if _, err := q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, ?)`, lockNamespace, migrateLock); err != nil {
		return 0, fmt.Errorf("migrate %s: lock: %w", component, err)
	}
	if _, err := q.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		component  text    NOT NULL,
		version    integer NOT NULL,
		name       text    NOT NULL,
		applied_at bigint  NOT NULL,
		PRIMARY KEY (component, version))`); err != nil {
		return 0, fmt.Errorf("migrate %s: create schema_migrations: %w", component, err)
	}
	current, err := version(ctx, q, component)
	if err != nil {
		return 0, err
	}
	pending, err := sqlitedb.Pending(component, current, migrations)
	if err != nil {
		return 0, err
	}
	for _, m := range pending {
		// No arguments: the simple protocol, which runs a file of several statements.
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return 0, fmt.Errorf("migrate %s to %d (%s): %w", component, m.Version, m.Name, err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)`,
			component, m.Version, m.Name, time.Now().UTC().UnixNano()); err != nil {
			return 0, fmt.Errorf("migrate %s to %d: record: %w", component, m.Version, err)
		}
		current = m.Version
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("migrate %s: commit: %w", component, err)
	}
	return current, nil
}

// Version returns the highest applied migration of component, 0 when none.
func Version(ctx context.Context, db *sql.DB, component string) (int, error) {
	return version(ctx, On(db, nil), component)
}

func version(ctx context.Context, q sqlitedb.Querier, component string) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations WHERE component = ?`, component).Scan(&v); err != nil {
		return 0, fmt.Errorf("read %s schema version: %w", component, err)
	}
	return int(v.Int64), nil
}
