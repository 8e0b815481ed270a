package pgdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Config tunes Open. The zero value means defaults.
type Config struct {
	// MaxConns bounds the pool's connections. Default: the URL's pool_max_conns, else 10.
	MaxConns int
	// ConnectTimeout bounds each connection attempt. Default: the URL's connect_timeout,
	// else 5 s.
	ConnectTimeout time.Duration
	// AcquireTimeout bounds how long a statement or a transaction waits for a connection
	// while all MaxConns are in use; it then fails with ErrPoolExhausted, having run
	// nothing. Default: the URL's pool_acquire_timeout (a Go duration, "2s"), else 5 s.
	AcquireTimeout time.Duration
}

// Defaults.
const (
	DefaultMaxConns       = 10
	DefaultConnectTimeout = 5 * time.Second
	DefaultAcquireTimeout = 5 * time.Second
)

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.MaxConns < 0 || c.MaxConns > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("max conns %d is out of range", c.MaxConns))
	}
	if c.ConnectTimeout < 0 {
		errs = append(errs, fmt.Errorf("connect timeout %v is negative", c.ConnectTimeout))
	}
	if c.AcquireTimeout < 0 {
		errs = append(errs, fmt.Errorf("acquire timeout %v is negative", c.AcquireTimeout))
	}
	return errors.Join(errs...)
}

// IsURL reports whether s names a PostgreSQL database: a postgres:// or postgresql://
// URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the URL with its password (in the user info or a password parameter)
// replaced by "xxxxx", for errors and logs; a string that does not parse comes back as
// its scheme alone.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		scheme, _, _ := strings.Cut(rawURL, "://")
		return scheme + "://(unparsable URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Open connects to the database at rawURL (postgres://user:password@host:port/db?…;
// host may be a unix socket directory, as in ?host=/run/postgresql) and checks that it
// answers. Besides pgx's parameters the URL may set pgxpool's (pool_max_conns,
// pool_max_conn_idle_time, …) and pool_acquire_timeout (Config.AcquireTimeout); Config's
// fields win over the URL's. The caller closes the returned *sql.DB, which closes the
// pool. Errors name the URL without its password.
func Open(ctx context.Context, rawURL string, cfg Config) (*sql.DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("postgres config: %w", err)
	}
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("open postgres: %q is not a postgres:// URL", Redact(rawURL))
	}
	parseErr := func(err error) error {
		return fmt.Errorf("open postgres %s: parse URL: %w", Redact(rawURL), errors.New(strings.ReplaceAll(err.Error(), rawURL, Redact(rawURL))))
	}
	pc, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, parseErr(err)
	}
	// Not a server setting: pgx would send what it does not know to the server as one.
	wait := DefaultAcquireTimeout
	if s, ok := pc.ConnConfig.RuntimeParams["pool_acquire_timeout"]; ok {
		delete(pc.ConnConfig.RuntimeParams, "pool_acquire_timeout")
		if wait, err = time.ParseDuration(s); err != nil || wait <= 0 {
			return nil, parseErr(fmt.Errorf("pool_acquire_timeout %q: want a positive duration such as 5s", s))
		}
	}
	if cfg.AcquireTimeout > 0 {
		wait = cfg.AcquireTimeout
	}
	// The config's timeout, else the URL's connect_timeout, else the default.
	if cfg.ConnectTimeout > 0 {
		pc.ConnConfig.ConnectTimeout = cfg.ConnectTimeout
	} else if pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	q := urlQuery(rawURL)
	if cfg.MaxConns > 0 {
		pc.MaxConns = int32(cfg.MaxConns)
	} else if !q.Has("pool_max_conns") {
		pc.MaxConns = DefaultMaxConns
	}
	if !q.Has("pool_max_conn_idle_time") {
		pc.MaxConnIdleTime = 5 * time.Minute
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", Redact(rawURL), err)
	}
	c := &connector{pool: pool, conns: stdlib.GetPoolConnector(pool), wait: wait}
	db := sql.OpenDB(c)
	// pgxpool keeps the idle connections; database/sql keeps none and opens as many as
	// its callers ask for, so that every wait for a connection is the pool's, which
	// connector bounds. (database/sql's own pool waits as long as the caller's context
	// lasts, and an add's has no deadline.)
	db.SetMaxIdleConns(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres %s: %w", Redact(rawURL), err)
	}
	return db, nil
}

// urlQuery is the query of rawURL, empty when it does not parse (pgx then refused it).
func urlQuery(rawURL string) url.Values {
	u, err := url.Parse(rawURL)
	if err != nil {
		return url.Values{}
	}
	return u.Query()
}

// ErrPoolExhausted: every connection of the pool stayed in use for the acquire timeout
// (Config.AcquireTimeout); the statement or transaction that waited ran nothing.
var ErrPoolExhausted = errors.New("every connection of the PostgreSQL pool is in use")

// connector hands database/sql connections of the pool, waiting for one at most wait.
// Safe for concurrent use.
type connector struct {
	pool      *pgxpool.Pool
	conns     driver.Connector // pgx's, on pool
	wait      time.Duration
	exhausted atomic.Int64 // acquires that gave up with every connection in use
}

// Connect implements driver.Connector.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	conn, err := c.conns.Connect(actx)
	if err == nil {
		if sc, ok := conn.(*stdlib.Conn); ok {
			return &beginConn{Conn: sc}, nil
		}
		return conn, nil
	}
	if ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return conn, err // the caller's own deadline or cancel passes as it is
	}
	if st := c.pool.Stat(); st.AcquiredConns() >= st.MaxConns() {
		c.exhausted.Add(1)
		return nil, fmt.Errorf("%w (%d of %d, for %v)", ErrPoolExhausted, st.AcquiredConns(), st.MaxConns(), c.wait)
	}
	// A connection was being opened, not waited for: the server is slow to answer.
	return nil, fmt.Errorf("no connection to PostgreSQL within %v: %w", c.wait, err)
}

// Driver implements driver.Connector.
func (c *connector) Driver() driver.Driver { return poolDriver{Driver: c.conns.Driver(), c: c} }

// Close closes the pool; database/sql calls it from DB.Close.
func (c *connector) Close() error {
	c.pool.Close()
	return nil
}

// poolDriver is pgx's driver, with the connector that Stats reads.
type poolDriver struct {
	driver.Driver
	c *connector
}

// PoolStats is a snapshot of a pool's connections and waits.
type PoolStats struct {
	MaxConns int // the pool's size
	InUse    int // connections acquired now
	Idle     int
	// Waits counts the acquires that found no idle connection and waited for one (to be
	// released or opened), WaitTime their total wait.
	Waits    int64
	WaitTime time.Duration
	// Exhausted counts the acquires that gave up after the acquire timeout with every
	// connection in use (ErrPoolExhausted).
	Exhausted int64
}

// Stats reports the pool of db, a database Open opened; ok is false for any other.
func Stats(db *sql.DB) (PoolStats, bool) {
	d, ok := db.Driver().(poolDriver)
	if !ok {
		return PoolStats{}, false
	}
	st := d.c.pool.Stat()
	return PoolStats{
		MaxConns: int(st.MaxConns()), InUse: int(st.AcquiredConns()), Idle: int(st.IdleConns()),
		Waits: st.EmptyAcquireCount(), WaitTime: st.EmptyAcquireWaitTime(), Exhausted: d.c.exhausted.Load(),
	}, true
}

// Q runs statements on the database, or in tx when it is not nil, with the ?
// placeholders of the components' SQL rewritten to PostgreSQL's $1, $2, … (Rebind).
type Q struct {
	db *sql.DB
	tx *sql.Tx
}

var _ sqlitedb.Execer = Q{}

// On returns a Q on db, or in tx when it is not nil.
func On(db *sql.DB, tx *sql.Tx) Q { return Q{db: db, tx: tx} }

func (q Q) x() sqlitedb.Execer {
	if q.tx != nil {
		return q.tx
	}
	return q.db
}

// ExecContext implements sqlitedb.Execer.
func (q Q) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.x().ExecContext(ctx, Rebind(query), args...)
}

// QueryContext implements sqlitedb.Execer.
func (q Q) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.x().QueryContext(ctx, Rebind(query), args...)
}

// QueryRowContext implements sqlitedb.Execer.
func (q Q) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return q.x().QueryRowContext(ctx, Rebind(query), args...)
}

var rebound sync.Map // query → rewritten query

// Rebind rewrites the ? placeholders of query to $1, $2, … in order, leaving string
// literals ('…'), quoted identifiers ("…") and :: casts alone. The components' queries
// are constants, so each is rewritten once and kept.
func Rebind(query string) string {
	if v, ok := rebound.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	rebound.Store(query, out)
	return out
}

// lockNamespace is the first key of the overlay's advisory locks ("atma" in ASCII), so
// that they do not collide with other applications' locks on the same database.
const lockNamespace = 0x61746d61

// lockSQL is LockUser's statement; a transaction that runs it first sends it with its
// BEGIN (beginConn).
const lockSQL = `SELECT pg_advisory_xact_lock(?, hashtext(current_schema() || '/' || ?))`

// LockUser takes the transaction-scoped advisory lock of user in the current schema,
// waiting for the transaction of another process (or connection) that holds it: writes
// of one user are serialised across every process on the database. q must run in a
// transaction; the lock goes when it commits or rolls back. Taking it again in the same
// transaction does not wait.
func LockUser(ctx context.Context, q sqlitedb.Execer, user string) error {
	if _, err := q.ExecContext(ctx, lockSQL, int64(lockNamespace), user); err != nil {
		return fmt.Errorf("lock user %q: %w", user, err)
	}
	return nil
}
