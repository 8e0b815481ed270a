package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
)

// Schema is one component's share of the database: the name its migrations are recorded
// under in schema_migrations and the migration files that build its tables.
type Schema struct {
	// Component names the schema in schema_migrations ("store", "host") and in errors.
	Component string
	// FS holds the migrations as files NNNN_name.sql in directory Dir (see
	// LoadMigrations); typically an embed.FS.
	FS  fs.FS
	Dir string
}

// Migrations loads the schema's migrations, sorted by version.
func (s Schema) Migrations() ([]Migration, error) {
	sub, err := fs.Sub(s.FS, s.Dir)
	if err != nil {
		return nil, err
	}
	return LoadMigrations(sub)
}

// Open opens (creating if needed) the database at path with Open and migrates the
// schema's tables. The returned Handle owns the database: its Close closes it. Nothing
// stays open on failure.
func (s Schema) Open(ctx context.Context, path string, cfg Config) (Handle, error) {
	db, err := Open(ctx, path, cfg)
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

// Adopt migrates the schema's tables in db, opened with Open and possibly shared with
// other components. The returned Handle does not own db: its Close leaves db open.
func (s Schema) Adopt(ctx context.Context, db *sql.DB) (Handle, error) {
	ms, err := s.Migrations()
	if err != nil {
		return Handle{}, fmt.Errorf("sqlite %s: %w", s.Component, err)
	}
	if _, err := Migrate(ctx, db, s.Component, ms); err != nil {
		return Handle{}, fmt.Errorf("sqlite %s: %w", s.Component, err)
	}
	return Handle{db: db}, nil
}

// Handle is a component's hold on the database: the *sql.DB, and whether the component
// opened it (Schema.Open) and so closes it, or was given it (Schema.Adopt). It is safe
// for concurrent use, as *sql.DB is; Close is called once.
type Handle struct {
	db  *sql.DB
	own bool
}

// DB returns the underlying database.
func (h Handle) DB() *sql.DB { return h.db }

// Close closes the database if Schema.Open opened it, and does nothing if it was adopted.
func (h Handle) Close() error {
	if h.own {
		return h.db.Close()
	}
	return nil
}
