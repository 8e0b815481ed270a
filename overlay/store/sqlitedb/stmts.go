package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// DefaultStmts is how many prepared statements a Handle keeps.
const DefaultStmts = 64

// Execer is what *sql.DB, *sql.Tx and Q share: the statements the bank and the host run.
type Execer interface {
	Querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Stmts keeps prepared statements of one database by their SQL text, the least recently
// used closed first when more than its size are in use. modernc.org/sqlite compiles a
// statement that is not prepared on every call: sqlite3_prepare_v2 was about a quarter
// of the SQLite time of an overlay ingest. A prepared *sql.Stmt is compiled once on
// each connection that runs it, and in a transaction (Q of a *sql.Tx) database/sql
// reuses the connection's compiled statement. Safe for concurrent use.
type Stmts struct {
	db *sql.DB
	mu sync.Mutex // guards cache, and makes a miss prepare one statement, not one per caller
	// cache closes what it evicts; a statement that is running when it is closed
	// finishes first (database/sql keeps it until its rows are closed).
	cache *simplelru.LRU[string, *sql.Stmt]
}

// NewStmts returns a cache of at most size statements (0: DefaultStmts) on db.
func NewStmts(db *sql.DB, size int) *Stmts {
	if size <= 0 {
		size = DefaultStmts
	}
	cache, err := simplelru.NewLRU(size, func(_ string, st *sql.Stmt) { _ = st.Close() })
	if err != nil {
		panic(err) // only for size ≤ 0, excluded above
	}
	return &Stmts{db: db, cache: cache}
}

// Prepare returns the prepared statement for query, preparing it on a miss. The cache
// owns it: callers do not close it.
func (s *Stmts) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		return nil, errors.New("prepare: statement cache is closed")
	}
	if st, ok := s.cache.Get(query); ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.cache.Add(query, st)
	return st, nil
}

// Len returns the number of cached statements.
func (s *Stmts) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		return 0
	}
	return s.cache.Len()
}

// Close closes every cached statement; later calls prepare nothing (Q falls back to
// running statements unprepared, which fails the same way on a closed database).
func (s *Stmts) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		return nil
	}
	var errs []error
	for _, q := range s.cache.Keys() {
		if st, ok := s.cache.Peek(q); ok {
			errs = append(errs, st.Close())
		}
	}
	s.cache = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close prepared statements: %w", err)
	}
	return nil
}

// On returns an Execer that runs statements through the cache on the database (tx nil)
// or in tx, which must belong to the same database.
func (s *Stmts) On(tx *sql.Tx) Q { return Q{s: s, tx: tx} }

// Q runs every statement prepared, through Stmts. A statement must not run again on the
// same transaction while rows of its previous run are open (the connection's compiled
// statement is shared): read rows to the end first, as Collect does.
type Q struct {
	s  *Stmts
	tx *sql.Tx
}

var (
	_ Execer = Q{}
	_ Execer = (*sql.DB)(nil)
	_ Execer = (*sql.Tx)(nil)
)

func (q Q) plain() Execer {
	if q.tx != nil {
		return q.tx
	}
	return q.s.db
}

// stmt returns query prepared for q; nil when it cannot be (the caller then runs it
// unprepared, which reports the same error in the driver's own way).
func (q Q) stmt(ctx context.Context, query string) *sql.Stmt {
	st, err := q.s.Prepare(ctx, query)
	if err != nil {
		return nil
	}
	if q.tx != nil {
		// Bound to the transaction's connection, reusing its compiled statement; it
		// closes with the transaction.
		st = q.tx.StmtContext(ctx, st)
	}
	return st
}

// ExecContext implements Execer.
func (q Q) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.plain().ExecContext(ctx, query, args...)
}

// QueryContext implements Execer.
func (q Q) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.plain().QueryContext(ctx, query, args...)
}

// QueryRowContext implements Execer.
func (q Q) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.plain().QueryRowContext(ctx, query, args...)
}
