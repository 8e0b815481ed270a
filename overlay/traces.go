package overlay

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
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

// SQLTraces keeps traces in a table of the overlay's database, SQLite or PostgreSQL. It
// is safe for concurrent use.
type SQLTraces struct {
	db    *sql.DB
	q     func(*sql.Tx) sqlitedb.Execer
	close func() error
	// classify maps PostgreSQL's errors onto the store's sentinels (store.PostgresError);
	// SQLite's pass as they are.
	classify func(error) error
}

var _ TraceStore = (*SQLTraces)(nil)

// TracesComponent is the name of the traces table's schema in schema_migrations.
const TracesComponent = "traces"

// The traces table's migrations: numbered files NNNN_name.sql, one directory a database.
var (
	//go:embed migrations/*.sql
	traceMigrationFiles embed.FS
	//go:embed pgmigrations/*.sql
	tracePgMigrationFiles embed.FS

	traceSchema   = sqlitedb.Schema{Component: TracesComponent, FS: traceMigrationFiles, Dir: "migrations"}
	tracePgSchema = pgdb.Schema{Component: TracesComponent, FS: tracePgMigrationFiles, Dir: "pgmigrations"}
)

// NewSQLTraces migrates the traces table of an SQLite database (from sqlitedb.Open,
// shared with the bank). Close leaves db open.
func NewSQLTraces(ctx context.Context, db *sql.DB) (*SQLTraces, error) {
	h, err := traceSchema.Adopt(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("traces table: %w", err)
	}
	return &SQLTraces{db: db, q: func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, close: h.Close,
		classify: func(err error) error { return err }}, nil
}

// NewPostgresTraces migrates the traces table of a PostgreSQL database (from
// pgdb.Open, shared with the bank); replicas that start together apply each migration
// once. Close leaves db open.
func NewPostgresTraces(ctx context.Context, db *sql.DB) (*SQLTraces, error) {
	h, err := tracePgSchema.Adopt(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("traces table: %w", err)
	}
	return &SQLTraces{db: db, q: func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, close: h.Close,
		classify: store.PostgresError}, nil
}

// Close closes the prepared statements (the database stays open).
func (t *SQLTraces) Close() error { return t.close() }

// tracedAt formats a trace's creation time so that text order is time order.
const tracedAt = "2006-01-02T15:04:05.000000000Z"

// traceRow is one row of overlay_traces; data is the trace's JSON.
type traceRow struct{ user, id, kind, created, data string }

func newTraceRow(user, id, kind string, created time.Time, v any) (traceRow, error) {
	b, err := json.Marshal(v)
	return traceRow{user: user, id: id, kind: kind, created: created.Format(tracedAt), data: string(b)}, err
}

// traceBatch is the most rows one statement writes.
const traceBatch = 100

// put writes rows, all or none, replacing a trace of the same user and id: up to
// traceBatch rows a statement (a round trip on PostgreSQL), in a transaction when they
// take more than one; a later row of the same user and id wins.
func (t *SQLTraces) put(ctx context.Context, rows []traceRow) error {
	at := map[[2]string]int{}
	var uniq []traceRow
	for _, r := range rows {
		k := [2]string{r.user, r.id}
		if i, ok := at[k]; ok {
			uniq[i] = r // one statement cannot update a row twice
			continue
		}
		at[k] = len(uniq)
		uniq = append(uniq, r)
	}
	if len(uniq) <= traceBatch {
		return putTraceRows(ctx, t.q(nil), uniq)
	}
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := putTraceRows(ctx, t.q(tx), uniq); err != nil {
		return err
	}
	return tx.Commit()
}

func putTraceRows(ctx context.Context, q sqlitedb.Execer, uniq []traceRow) error {
	for start := 0; start < len(uniq); start += traceBatch {
		chunk := uniq[start:min(start+traceBatch, len(uniq))]
		args := make([]any, 0, 5*len(chunk))
		for _, r := range chunk {
			args = append(args, r.user, r.id, r.kind, r.created, r.data)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO overlay_traces ("user", id, kind, created, data) VALUES `+sqlitedb.Values(len(chunk), 5)+`
			ON CONFLICT ("user", id) DO UPDATE SET kind = excluded.kind, created = excluded.created, data = excluded.data`, args...); err != nil {
			return err
		}
	}
	return nil
}

func (t *SQLTraces) PutIngest(ctx context.Context, trs ...*IngestTrace) error {
	return t.classify(t.putIngest(ctx, trs))
}

func (t *SQLTraces) putIngest(ctx context.Context, trs []*IngestTrace) error {
	rows := make([]traceRow, 0, len(trs))
	for _, tr := range trs {
		r, err := newTraceRow(tr.User, tr.ID, "ingest", tr.Created, tr)
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	return t.put(ctx, rows)
}

func (t *SQLTraces) PutQuery(ctx context.Context, tr *QueryTrace) error {
	r, err := newTraceRow(tr.User, tr.ID, "query", tr.Created, tr)
	if err != nil {
		return err
	}
	return t.classify(t.put(ctx, []traceRow{r}))
}

func (t *SQLTraces) Trace(ctx context.Context, user, id string) (string, json.RawMessage, error) {
	var kind, data string
	err := t.q(nil).QueryRowContext(ctx, `SELECT kind, data FROM overlay_traces WHERE "user" = ? AND id = ?`, user, id).Scan(&kind, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("trace %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return "", nil, t.classify(fmt.Errorf("trace %s: %w", id, err))
	}
	return kind, json.RawMessage(data), nil
}

// DeleteUser removes a user's traces (deleting a user's data removes them too).
func (t *SQLTraces) DeleteUser(ctx context.Context, user string) error {
	_, err := t.q(nil).ExecContext(ctx, `DELETE FROM overlay_traces WHERE "user" = ?`, user)
	return t.classify(err)
}

// CopyTo copies every trace into dst, in batches of one transaction each, and returns
// how many it copied; a trace dst already has (same user and id) is replaced.
func (t *SQLTraces) CopyTo(ctx context.Context, dst *SQLTraces) (int, error) {
	n := 0
	after := [2]string{}
	for {
		rows, err := sqlitedb.Collect(ctx, t.q(nil), func(rs *sql.Rows) (r traceRow, err error) {
			err = rs.Scan(&r.user, &r.id, &r.kind, &r.created, &r.data)
			return r, err
		}, `SELECT "user", id, kind, created, data FROM overlay_traces WHERE "user" > ? OR ("user" = ? AND id > ?) ORDER BY "user", id LIMIT 500`,
			after[0], after[0], after[1])
		if err != nil {
			return n, fmt.Errorf("copy traces: %w", err)
		}
		if len(rows) == 0 {
			return n, nil
		}
		if err := dst.put(ctx, rows); err != nil {
			return n, fmt.Errorf("copy traces: %w", err)
		}
		n += len(rows)
		last := rows[len(rows)-1]
		after = [2]string{last.user, last.id}
	}
}

// Count returns the number of traces.
func (t *SQLTraces) Count(ctx context.Context) (int, error) {
	var n int
	if err := t.q(nil).QueryRowContext(ctx, `SELECT count(*) FROM overlay_traces`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count traces: %w", err)
	}
	return n, nil
}
