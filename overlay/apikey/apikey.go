// Package apikey holds the overlay API's keys: each is bound to a tenant namespace, and
// optionally to some of the tenant's users, with scopes (read, write, admin). Keys live
// in the bank's database (SQLite or PostgreSQL), their secrets as SHA-256 hashes only; the token is
// shown once, when the key is created. `atma overlay keys create|list|revoke` manages
// them; package api authenticates requests with Store.Authenticate and maps a key's
// users into its tenant's namespace (Key.UserID), so a key of one tenant can never name
// another tenant's user.
package apikey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Scope is what a key may do.
type Scope string

// Scopes.
const (
	ScopeRead  Scope = "read"  // list, get, query, trace, search
	ScopeWrite Scope = "write" // add memories, delete records
	ScopeAdmin Scope = "admin" // delete a whole user, read metrics
)

// Scopes lists every scope.
var Scopes = []Scope{ScopeRead, ScopeWrite, ScopeAdmin}

// Errors of Authenticate.
var (
	ErrUnknownKey = errors.New("unknown API key")
	ErrRevoked    = errors.New("API key revoked")
)

// TokenPrefix starts every API key token: "atma_<id>_<secret>".
const TokenPrefix = "atma_"

// Separator joins a tenant and a user in the bank's user id: a key of tenant "acme"
// reads and writes the bank's user "acme/alice" when a request names "alice".
const Separator = "/"

// Key is an API key as stored (without its secret).
type Key struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Tenant  string    `json:"tenant"`
	Users   []string  `json:"users"` // empty: every user of the tenant
	Scopes  []Scope   `json:"scopes"`
	Created time.Time `json:"created"`
	Revoked time.Time `json:"revoked,omitzero"`
}

// Allows reports whether k has scope sc.
func (k Key) Allows(sc Scope) bool { return slices.Contains(k.Scopes, sc) }

// UserID maps a user named in a request to the bank's user id in k's tenant, or refuses
// it: a name with the separator (it would leave the namespace), or, when k is bound to
// some users, a user not among them.
func (k Key) UserID(user string) (string, error) {
	if strings.Contains(user, Separator) {
		return "", fmt.Errorf("user %q has %q, which a tenant's key cannot name", user, Separator)
	}
	if len(k.Users) > 0 && !slices.Contains(k.Users, user) {
		return "", fmt.Errorf("key %s is not for user %q", k.ID, user)
	}
	return k.Tenant + Separator + user, nil
}

//go:embed migrations/*.sql pgmigrations/*.sql
var migrationFiles embed.FS

var (
	schema   = sqlitedb.Schema{Component: "apikey", FS: migrationFiles, Dir: "migrations"}
	pgSchema = pgdb.Schema{Component: "apikey", FS: migrationFiles, Dir: "pgmigrations"}
)

// Store is the keys table. Safe for concurrent use.
type Store struct {
	q     func(*sql.Tx) sqlitedb.Execer
	close func() error
	now   func() time.Time
	// classify maps PostgreSQL's errors onto the store's sentinels (store.PostgresError);
	// SQLite's pass as they are.
	classify func(error) error
}

// NewSQLite migrates the keys table in db (the bank's database, opened with
// sqlitedb.Open); Close leaves db open.
func NewSQLite(ctx context.Context, db *sql.DB) (*Store, error) {
	h, err := schema.Adopt(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Store{q: func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, close: h.Close, now: time.Now,
		classify: func(err error) error { return err }}, nil
}

// NewPostgres migrates the keys table in db (the bank's database, opened with
// pgdb.Open); Close leaves db open.
func NewPostgres(ctx context.Context, db *sql.DB) (*Store, error) {
	h, err := pgSchema.Adopt(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Store{q: func(tx *sql.Tx) sqlitedb.Execer { return h.Q(tx) }, close: h.Close, now: time.Now,
		classify: store.PostgresError}, nil
}

// Close releases the store's prepared statements; the database stays open.
func (s *Store) Close() error { return s.close() }

// validName: tenants, names and users are short printable words.
func validName(what, s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%s is empty", what)
	case len(s) > 128:
		return fmt.Errorf("%s is %d bytes, the limit is 128", what, len(s))
	case strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("%s %q has spaces or control characters", what, s)
	case strings.Contains(s, Separator):
		return fmt.Errorf("%s %q has %q", what, s, Separator)
	}
	return nil
}

// Create adds a key and returns it with its token, which is not stored and cannot be
// shown again. Scopes must be some of Scopes; users, when given, are the only users of
// the tenant the key may name.
func (s *Store) Create(ctx context.Context, name, tenant string, users []string, scopes []Scope) (Key, string, error) {
	var errs []error
	for _, v := range []struct{ what, s string }{{"name", name}, {"tenant", tenant}} {
		if err := validName(v.what, v.s); err != nil {
			errs = append(errs, err)
		}
	}
	for _, u := range users {
		if err := validName("user", u); err != nil {
			errs = append(errs, err)
		} else if err := store.ValidateUser(tenant + Separator + u); err != nil {
			errs = append(errs, err)
		}
	}
	if len(scopes) == 0 {
		errs = append(errs, errors.New("no scope: give some of read, write, admin"))
	}
	for _, sc := range scopes {
		if !slices.Contains(Scopes, sc) {
			errs = append(errs, fmt.Errorf("scope %q is not read, write or admin", sc))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	id, secret := make([]byte, 6), make([]byte, 24)
	if _, err := rand.Read(id); err != nil {
		return Key{}, "", err
	}
	if _, err := rand.Read(secret); err != nil {
		return Key{}, "", err
	}
	k := Key{ID: hex.EncodeToString(id), Name: name, Tenant: tenant, Users: slices.Clone(users), Scopes: slices.Clone(scopes), Created: s.now().UTC()}
	if k.Users == nil {
		k.Users = []string{}
	}
	us, _ := json.Marshal(k.Users)
	ss, _ := json.Marshal(k.Scopes)
	sum := sha256.Sum256([]byte(hex.EncodeToString(secret)))
	if _, err := s.q(nil).ExecContext(ctx, `INSERT INTO api_keys (id, name, tenant, users, scopes, secret_sha, created_ns) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.Name, k.Tenant, string(us), string(ss), hex.EncodeToString(sum[:]), k.Created.UnixNano()); err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	return k, TokenPrefix + k.ID + "_" + hex.EncodeToString(secret), nil
}

// List returns every key, revoked ones included, oldest first.
func (s *Store) List(ctx context.Context) ([]Key, error) {
	rows, err := s.q(nil).QueryContext(ctx, `SELECT id, name, tenant, users, scopes, created_ns, revoked_ns FROM api_keys ORDER BY created_ns, id`)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		k, _, err := scanKey(rows, false)
		if err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Active reports whether some key is not revoked.
func (s *Store) Active(ctx context.Context) (bool, error) {
	var n int
	err := s.q(nil).QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE revoked_ns IS NULL`).Scan(&n)
	return n > 0, err
}

// Revoke revokes key id; store.ErrNotFound when there is none. Revoking twice keeps the
// first time.
func (s *Store) Revoke(ctx context.Context, id string) error {
	res, err := s.q(nil).ExecContext(ctx, `UPDATE api_keys SET revoked_ns = coalesce(revoked_ns, ?) WHERE id = ?`, s.now().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("revoke key %q: %w", id, store.ErrNotFound)
	}
	return nil
}

// Authenticate returns the key a token belongs to: ErrUnknownKey for a token of no key
// (or not in the key format), ErrRevoked for a revoked key, an error that is
// store.ErrUnavailable when the database cannot be reached. The secret is compared by
// its hash in constant time.
func (s *Store) Authenticate(ctx context.Context, token string) (Key, error) {
	rest, ok := strings.CutPrefix(token, TokenPrefix)
	id, secret, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 || id == "" || secret == "" {
		return Key{}, ErrUnknownKey
	}
	row := s.q(nil).QueryRowContext(ctx, `SELECT id, name, tenant, users, scopes, created_ns, revoked_ns, secret_sha FROM api_keys WHERE id = ?`, id)
	k, sha, err := scanKey(row, true)
	if errors.Is(err, sql.ErrNoRows) {
		return Key{}, ErrUnknownKey
	}
	if err != nil {
		return Key{}, fmt.Errorf("authenticate: %w", s.classify(err))
	}
	got := sha256.Sum256([]byte(secret))
	want, err := hex.DecodeString(sha)
	if err != nil || subtle.ConstantTimeCompare(got[:], want) != 1 {
		return Key{}, ErrUnknownKey
	}
	if !k.Revoked.IsZero() {
		return Key{}, ErrRevoked
	}
	return k, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanKey(sc scanner, withSecret bool) (Key, string, error) {
	var k Key
	var users, scopes, sha string
	var created int64
	var revoked sql.NullInt64
	dest := []any{&k.ID, &k.Name, &k.Tenant, &users, &scopes, &created, &revoked}
	if withSecret {
		dest = append(dest, &sha)
	}
	if err := sc.Scan(dest...); err != nil {
		return Key{}, "", err
	}
	if err := json.Unmarshal([]byte(users), &k.Users); err != nil {
		return Key{}, "", fmt.Errorf("key %s users: %w", k.ID, err)
	}
	if err := json.Unmarshal([]byte(scopes), &k.Scopes); err != nil {
		return Key{}, "", fmt.Errorf("key %s scopes: %w", k.ID, err)
	}
	k.Created = time.Unix(0, created).UTC()
	if revoked.Valid {
		k.Revoked = time.Unix(0, revoked.Int64).UTC()
	}
	return k, sha, nil
}

// CopyTo copies every key (revoked ones and their secrets' hashes included) into dst,
// which must hold none of their ids, and returns how many it copied.
func (s *Store) CopyTo(ctx context.Context, dst *Store) (int, error) {
	type row struct {
		id, name, tenant, users, scopes, sha string
		created                              int64
		revoked                              sql.NullInt64
	}
	rows, err := sqlitedb.Collect(ctx, s.q(nil), func(rs *sql.Rows) (r row, err error) {
		err = rs.Scan(&r.id, &r.name, &r.tenant, &r.users, &r.scopes, &r.sha, &r.created, &r.revoked)
		return r, err
	}, `SELECT id, name, tenant, users, scopes, secret_sha, created_ns, revoked_ns FROM api_keys ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("copy keys: %w", err)
	}
	for _, r := range rows {
		if _, err := dst.q(nil).ExecContext(ctx, `INSERT INTO api_keys (id, name, tenant, users, scopes, secret_sha, created_ns, revoked_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			r.id, r.name, r.tenant, r.users, r.scopes, r.sha, r.created, r.revoked); err != nil {
			return 0, fmt.Errorf("copy key %s: %w", r.id, err)
		}
	}
	return len(rows), nil
}
