package overlay

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// TraceStore keeps ingest and query traces, retrievable by id within their user.
type TraceStore interface {
	// PutIngest keeps the traces of one Add call (one write for all of them).
	PutIngest(ctx context.Context, trs ...*IngestTrace) error
	PutQuery(ctx context.Context, tr *QueryTrace) error
	// Trace returns a stored trace as JSON with its kind ("ingest" or "query");
	// store.ErrNotFound when user has none with id.
	Trace(ctx context.Context, user, id string) (kind string, trace json.RawMessage, err error)
}

// MemoryTraces keeps traces in memory. It is safe for concurrent use.
type MemoryTraces struct {
	mu sync.Mutex
	m  map[[2]string]storedTrace
}

type storedTrace struct {
	kind string
	data json.RawMessage
}

var _ TraceStore = (*MemoryTraces)(nil)

// NewMemoryTraces returns an empty in-memory trace store.
func NewMemoryTraces() *MemoryTraces { return &MemoryTraces{m: map[[2]string]storedTrace{}} }

func (t *MemoryTraces) put(user, id, kind string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[[2]string{user, id}] = storedTrace{kind, b}
	return nil
}

func (t *MemoryTraces) PutIngest(_ context.Context, trs ...*IngestTrace) error {
	for _, tr := range trs {
		if err := t.put(tr.User, tr.ID, "ingest", tr); err != nil {
			return err
		}
	}
	return nil
}

func (t *MemoryTraces) PutQuery(_ context.Context, tr *QueryTrace) error {
	return t.put(tr.User, tr.ID, "query", tr)
}

// DeleteUser removes a user's traces.
func (t *MemoryTraces) DeleteUser(_ context.Context, user string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.m {
		if k[0] == user {
			delete(t.m, k)
		}
	}
	return nil
}

func (t *MemoryTraces) Trace(_ context.Context, user, id string) (string, json.RawMessage, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[[2]string{user, id}]
	if !ok {
		return "", nil, fmt.Errorf("trace %s: %w", id, store.ErrNotFound)
	}
	return s.kind, s.data, nil
}

// SQLTraces keeps traces in a table of the overlay's SQLite database. It is safe for
// concurrent use.
type SQLTraces struct {
	db    *sql.DB
	stmts *sqlitedb.Stmts
}

var _ TraceStore = (*SQLTraces)(nil)

// NewSQLTraces creates the traces table if needed.
func NewSQLTraces(ctx context.Context, db *sql.DB) (*SQLTraces, error) {
	_, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS overlay_traces (
		user TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, created TEXT NOT NULL, data TEXT NOT NULL,
		PRIMARY KEY (user, id))`)
	if err != nil {
		return nil, fmt.Errorf("create traces table: %w", err)
	}
	return &SQLTraces{db: db, stmts: sqlitedb.NewStmts(db, 4)}, nil
}

// Close closes the prepared statements (the database stays open).
func (t *SQLTraces) Close() error { return t.stmts.Close() }

// tracedAt formats a trace's creation time so that text order is time order.
const tracedAt = "2006-01-02T15:04:05.000000000Z"

func (t *SQLTraces) put(ctx context.Context, q sqlitedb.Execer, user, id, kind, created string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT OR REPLACE INTO overlay_traces (user, id, kind, created, data) VALUES (?, ?, ?, ?, ?)`, user, id, kind, created, string(b))
	return err
}

func (t *SQLTraces) PutIngest(ctx context.Context, trs ...*IngestTrace) error {
	if len(trs) == 0 {
		return nil
	}
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, tr := range trs {
		if err := t.put(ctx, t.stmts.On(tx), tr.User, tr.ID, "ingest", tr.Created.Format(tracedAt), tr); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (t *SQLTraces) PutQuery(ctx context.Context, tr *QueryTrace) error {
	return t.put(ctx, t.stmts.On(nil), tr.User, tr.ID, "query", tr.Created.Format(tracedAt), tr)
}

func (t *SQLTraces) Trace(ctx context.Context, user, id string) (string, json.RawMessage, error) {
	var kind, data string
	err := t.db.QueryRowContext(ctx, `SELECT kind, data FROM overlay_traces WHERE user = ? AND id = ?`, user, id).Scan(&kind, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("trace %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return "", nil, err
	}
	return kind, json.RawMessage(data), nil
}

// DeleteUser removes a user's traces (deleting a user's data removes them too).
func (t *SQLTraces) DeleteUser(ctx context.Context, user string) error {
	_, err := t.db.ExecContext(ctx, `DELETE FROM overlay_traces WHERE user = ?`, user)
	return err
}
