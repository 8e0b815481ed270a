package sqlitedb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Config tunes Open. The zero value means defaults.
type Config struct {
	// BusyTimeout is how long a statement waits for another connection's lock before
	// failing with SQLITE_BUSY. Default 5 s.
	BusyTimeout time.Duration
}

// PageSize is the page size of new databases, SQLite's default. Every commit writes each
// page it changed to the WAL whole, and an ingest commits several times, touching a
// handful of pages each time: with 16 KiB pages (which pack the overlay's 2–4 KiB rows
// tighter, the file 12 % smaller) commits took 0.3 ms more a memory, about a fifth of
// the commit path (BenchmarkIngest/Batch32, commit-us/mem 1.2–1.4 ms against 1.5–1.8).
const PageSize = 4096

// DefaultBusyTimeout is the busy timeout used when Config.BusyTimeout is zero.
const DefaultBusyTimeout = 5 * time.Second

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.BusyTimeout < 0 {
		errs = append(errs, fmt.Errorf("busy timeout %v is negative", c.BusyTimeout))
	}
	if c.BusyTimeout > 0 && c.BusyTimeout < time.Millisecond {
		errs = append(errs, fmt.Errorf("busy timeout %v is below 1ms", c.BusyTimeout))
	}
	return errors.Join(errs...)
}

// Open opens (creating if needed) the SQLite database at path with WAL, foreign keys,
// a busy timeout and immediate transactions. The parent directory is created with mode
// 0700. The caller closes the returned *sql.DB.
func Open(ctx context.Context, path string, cfg Config) (*sql.DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite config: %w", err)
	}
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open sqlite: path %q: want a file system path", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open sqlite: create data directory: %w", err)
	}
	busy := cfg.BusyTimeout
	if busy == 0 {
		busy = DefaultBusyTimeout
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	// page_size takes effect only while the file is new: it has to come before anything
	// writes page 1, journal_mode=WAL included, hence WAL is set below and not here.
	q.Add("_pragma", fmt.Sprintf("page_size(%d)", PageSize))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// 64 MiB of page cache (the default is 2 MiB): loading a user's host index reads the
	// user's every memory, vectors included.
	q.Add("_pragma", "cache_size(-65536)")
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", abs, err)
	}
	// WAL is a property of the file: set once, every connection uses it.
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: set journal mode: %w", abs, err)
	}
	if !strings.EqualFold(mode, "wal") {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: journal mode is %q, want wal", abs, mode)
	}
	return db, nil
}

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// LoadMigrations reads files named NNNN_name.sql from the root of fsys, sorted by
// version. Versions start at 1 and must be contiguous.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: want NNNN_name.sql", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", name, err)
		}
		ms = append(ms, Migration{Version: v, Name: rest, SQL: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migrations: version %d follows %d, want contiguous from 1", m.Version, i)
		}
	}
	return ms, nil
}

// Migrate applies the migrations of component that the database lacks, each in its own
// transaction together with its schema_migrations row, and returns the schema version.
// It refuses a database whose component schema is newer than the migrations it knows,
// which means an older binary opened a newer bank.
func Migrate(ctx context.Context, db *sql.DB, component string, migrations []Migration) (int, error) {
	if component == "" {
		return 0, errors.New("migrate: empty component")
	}
	const ddl = `CREATE TABLE IF NOT EXISTS schema_migrations (
		component  TEXT    NOT NULL,
		version    INTEGER NOT NULL,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL,
		PRIMARY KEY (component, version)
	) STRICT`
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return 0, fmt.Errorf("migrate %s: create schema_migrations: %w", component, err)
	}
	current, err := Version(ctx, db, component)
	if err != nil {
		return 0, err
	}
	pending, err := Pending(component, current, migrations)
	if err != nil {
		return 0, err
	}
	for _, m := range pending {
		if err := apply(ctx, db, component, m); err != nil {
			return 0, err
		}
		current = m.Version
	}
	return current, nil
}

// Pending returns the migrations of component (sorted, as LoadMigrations gives them) that
// a database at schema version current lacks. A database newer than the migrations is an
// error: an older program opened a bank that a newer one migrated, and writing to it
// could break what the newer schema relies on. Both databases' Migrate use it.
func Pending(component string, current int, migrations []Migration) ([]Migration, error) {
	if current > len(migrations) {
		return nil, fmt.Errorf("migrate %s: database schema version %d is newer than this program's %d: run the newer atma that migrated it (or restore a backup made before)",
			component, current, len(migrations))
	}
	var out []Migration
	for _, m := range migrations {
		if m.Version > current {
			out = append(out, m)
		}
	}
	return out, nil
}

func apply(ctx context.Context, db *sql.DB, component string, m Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %s to %d: begin: %w", component, m.Version, err)
	}
	defer tx.Rollback()
	// Another process may have applied it since Version was read; the immediate
	// transaction holds the write lock, so this answer stays true until commit.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE component = ? AND version = ?`, component, m.Version).Scan(&n); err != nil {
		return fmt.Errorf("migrate %s to %d: %w", component, m.Version, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("migrate %s to %d (%s): %w", component, m.Version, m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)`,
		component, m.Version, m.Name, time.Now().UTC().UnixNano()); err != nil {
		return fmt.Errorf("migrate %s to %d: record: %w", component, m.Version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %s to %d: commit: %w", component, m.Version, err)
	}
	return nil
}

// Version returns the highest applied migration of component, 0 when none.
func Version(ctx context.Context, db *sql.DB, component string) (int, error) {
	var v sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations WHERE component = ?`, component).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("read %s schema version: %w", component, err)
	}
	return int(v.Int64), nil
}

// EncodeVector returns v as a little-endian float32 blob; nil for an empty vector.
func EncodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector is the inverse of EncodeVector; an empty blob gives nil.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("decode vector: %d bytes is not a multiple of 4", len(b))
	}
	if len(b) == 0 {
		return nil, nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// TimeToNull converts t to Unix nanoseconds, NULL for the zero time.
func TimeToNull(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// NullToTime is the inverse of TimeToNull; times come back in UTC.
func NullToTime(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// minNano and maxNano bound the times that Unix nanoseconds can hold.
var (
	minNano = time.Unix(0, math.MinInt64).UTC()
	maxNano = time.Unix(0, math.MaxInt64).UTC()
)

// TimeInRange reports whether t is zero or representable as Unix nanoseconds
// (years 1678 to 2262).
func TimeInRange(t time.Time) bool {
	return t.IsZero() || (!t.Before(minNano) && !t.After(maxNano))
}

// Querier is what *sql.DB, *sql.Tx and *sql.Conn share for reading.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Collect runs query on q and returns what scan makes of each row, in order. Errors come
// back as the driver or scan gave them, for the caller to wrap with its action. The rows
// are closed when it returns, so a transaction can run its next statement.
func Collect[T any](ctx context.Context, q Querier, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Strings runs query, which selects one text column, and returns its values in order;
// errors as Collect.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	return Collect(ctx, q, func(rows *sql.Rows) (v string, err error) {
		err = rows.Scan(&v)
		return v, err
	}, query, args...)
}

// DiskSize checkpoints the WAL of db (open on path) into the main file and returns the
// bytes the database takes on disk: the file, its WAL and its shared-memory index.
func DiskSize(ctx context.Context, db *sql.DB, path string) (int64, error) {
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return 0, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	var n int64
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n, nil
}

// Placeholders is n "?" separated by commas, for an IN list.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// Values is the VALUES list of a multi-row INSERT: rows groups of cols placeholders,
// "(?, ?), (?, ?)".
func Values(rows, cols int) string {
	return strings.TrimSuffix(strings.Repeat("("+Placeholders(cols)+"), ", rows), ", ")
}
