package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/atma-dev/atma/overlay/store/fts"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

//go:embed pgmigrations/*.sql
var pgMigrationFiles embed.FS

var pgSchema = pgdb.Schema{Component: Component, FS: pgMigrationFiles, Dir: "pgmigrations"}

// PostgresMigrations returns the bank's schema migrations on PostgreSQL.
func PostgresMigrations() ([]sqlitedb.Migration, error) { return pgSchema.Migrations() }

var postgresDialect = func() *dialect {
	d := &dialect{
		getManyFrom: `json_array_elements_text(?::json) AS j(value) JOIN records r ON r."user" = ? AND r.id = j.value`,
		slotFrom:    "records r",
		claim:       pgdb.LockUser,
		classify:    func(err error) (error, bool) { return PostgresError(err), false },
		integrity:   func(context.Context, *sql.DB, bool) ([]string, error) { return nil, nil },
		search:      searchInProcess,
	}
	d.recordCols, d.stateCols = recordColumns(`
	(SELECT coalesce(json_agg(json_build_array(l.type, l.dst) ORDER BY l.type, l.dst), '[]'::json)
		FROM links l WHERE l."user" = r."user" AND l.src = r.id)`)
	return d
}()

// PostgresError maps an error of PostgreSQL onto the store's sentinels (ErrUnavailable,
// ErrBusy, ErrDiskFull, ErrReadOnly, ErrInvalid), saying what happened and what to do;
// other errors, and nil, pass as they are. The components that share the bank's
// PostgreSQL database (the host memory, the traces, the API keys) map theirs with it.
func PostgresError(err error) error {
	switch {
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

// searchInProcess is PostgreSQL's Search: BM25 over the user's own records, scored in
// this process by package fts (FTS5's formula, k1 = 1.2, b = 0.75, the statistics the
// user's own), as the Memory store and the host memory do. It reads the user's
// contents on every call (linear in their records): the overlay's own lexical search
// runs on the host's cached per-user index, not here.
func searchInProcess(ctx context.Context, s *SQL, user, query string, k int) ([]TextHit, error) {
	if len(fts.Terms(query, fts.MaxQueryTerms)) == 0 {
		return nil, nil
	}
	type doc struct{ id, content string }
	docs, err := sqlitedb.Collect(ctx, s.q(nil), func(rows *sql.Rows) (d doc, err error) {
		err = rows.Scan(&d.id, &d.content)
		return d, err
	}, `SELECT id, content FROM records WHERE "user" = ?`, user)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	idx := fts.NewIndex()
	for _, d := range docs {
		idx.Add(d.id, d.content)
	}
	scored := idx.Search(query, k)
	if len(scored) == 0 {
		return nil, nil
	}
	ids := make([]string, len(scored))
	for i, sc := range scored {
		ids[i] = sc.ID
	}
	recs, err := s.GetMany(ctx, user, ids)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	byID := make(map[string]Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	hits := make([]TextHit, 0, len(scored))
	for _, sc := range scored {
		// A record deleted between the two reads is left out.
		if r, ok := byID[sc.ID]; ok {
			hits = append(hits, TextHit{Record: r, Score: sc.Score})
		}
	}
	return hits, nil
}
