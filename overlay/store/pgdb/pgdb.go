package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Config tunes Open. The zero value means defaults.
type Config struct {
	// MaxConns bounds the pool's connections (all kept open when idle). Default 10.
	MaxConns int
	// ConnectTimeout bounds each connection attempt. Default: the URL's connect_timeout,
	// else 5 s.
	ConnectTimeout time.Duration
}

// Defaults.
const (
	DefaultMaxConns       = 10
	DefaultConnectTimeout = 5 * time.Second
)

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.MaxConns < 0 {
		errs = append(errs, fmt.Errorf("max conns %d is negative", c.MaxConns))
	}
	if c.ConnectTimeout < 0 {
		errs = append(errs, fmt.Errorf("connect timeout %v is negative", c.ConnectTimeout))
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
// answers. The caller closes the returned *sql.DB. Errors name the URL without its
// password.
func Open(ctx context.Context, rawURL string, cfg Config) (*sql.DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("postgres config: %w", err)
	}
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("open postgres: %q is not a postgres:// URL", Redact(rawURL))
	}
	pc, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: parse URL: %w", Redact(rawURL), errors.New(strings.ReplaceAll(err.Error(), rawURL, Redact(rawURL))))
	}
	// The config's timeout, else the URL's connect_timeout, else the default.
	if cfg.ConnectTimeout > 0 {
		pc.ConnectTimeout = cfg.ConnectTimeout
	} else if pc.ConnectTimeout == 0 {
		pc.ConnectTimeout = DefaultConnectTimeout
	}
	n := cfg.MaxConns
	if n == 0 {
		n = DefaultMaxConns
	}
	db := stdlib.OpenDB(*pc)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open postgres %s: %w", Redact(rawURL), err)
	}
	return db, nil
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

// LockUser takes the transaction-scoped advisory lock of user in the current schema,
// waiting for the transaction of another process (or connection) that holds it: writes
// of one user are serialised across every process on the database. q must run in a
// transaction; the lock goes when it commits or rolls back. Taking it again in the same
// transaction does not wait.
func LockUser(ctx context.Context, q sqlitedb.Execer, user string) error {
	if _, err := q.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(current_schema() || '/' || ?))`, lockNamespace, user); err != nil {
		return fmt.Errorf("lock user %q: %w", user, err)
	}
	return nil
}
