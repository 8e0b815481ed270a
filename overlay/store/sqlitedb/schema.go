package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
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
	return Handle{db: db, stmts: NewStmts(db, DefaultStmts)}, nil
}

// Handle is a component's hold on the database: the *sql.DB, the component's prepared
// statements, and whether the component opened the database (Schema.Open) and so closes
// it, or was given it (Schema.Adopt). It is safe for concurrent use, as *sql.DB is;
// Close is called once.
type Handle struct {
	db    *sql.DB
	stmts *Stmts
	own   bool
}

// DB returns the underlying database.
func (h Handle) DB() *sql.DB { return h.db }

// Q runs statements prepared (see Stmts) on the database, or in tx when it is not nil.
func (h Handle) Q(tx *sql.Tx) Q { return h.stmts.On(tx) }

// Close closes the component's prepared statements, and the database if Schema.Open
// opened it (an adopted one stays open).
func (h Handle) Close() error {
	err := h.stmts.Close()
	if h.own {
		err = errors.Join(err, h.db.Close())
	}
	return err
}
