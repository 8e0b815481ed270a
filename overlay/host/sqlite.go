package host

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Component is the name of the host's schema in schema_migrations.
const Component = "host"

//go:embed migrations/*.sql
var migrationFiles embed.FS

var schema = sqlitedb.Schema{Component: Component, FS: migrationFiles, Dir: "migrations"}

// Migrations returns the host's schema migrations.
func Migrations() ([]sqlitedb.Migration, error) { return schema.Migrations() }

// SQLite is the Host on an SQLite database, which it may share with the overlay bank.
// Search runs in memory over the user's index (vectors for dense search, an inverted
// index for BM25), loaded from the database on the user's first search and kept
// afterwards: this process's writes update it, and a per-user generation counter tells
// when another process wrote and it must be reloaded. Safe for concurrent use.
type SQLite struct {
	// Handle holds the database: DB returns it, Close closes it if OpenSQLite opened it.
	sqlitedb.Handle
	cfg   Config
	locks sync.Map // user → *sync.Mutex, serialising writes

	mu    sync.Mutex // guards cache
	cache map[string]*cachedUser
	tick  atomic.Int64 // orders the searches, for trim
}

// cachedUser is one user's search index as of generation gen.
type cachedUser struct {
	mu  sync.RWMutex
	gen int64
	idx *userIndex // nil until loaded, and after trim

	used atomic.Int64 // the tick of the user's last search
	size atomic.Int64 // memories in idx
}

var _ Host = (*SQLite)(nil)

// OpenSQLite opens (creating if needed) the database at path and migrates the host's
// tables. Close closes the database.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*SQLite, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite host config: %w", err)
	}
	h, err := schema.Open(ctx, path, cfg.SQLite)
	if err != nil {
		return nil, err
	}
	return &SQLite{Handle: h, cfg: cfg, cache: map[string]*cachedUser{}}, nil
}

// NewSQLite uses db (from sqlitedb.Open, possibly shared with store.NewSQLite) and
// migrates the host's tables. Close leaves db open.
func NewSQLite(ctx context.Context, db *sql.DB, cfg Config) (*SQLite, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite host config: %w", err)
	}
	h, err := schema.Adopt(ctx, db)
	if err != nil {
		return nil, err
	}
	return &SQLite{Handle: h, cfg: cfg, cache: map[string]*cachedUser{}}, nil
}

func (h *SQLite) lock(user string) *sync.Mutex {
	mu, _ := h.locks.LoadOrStore(user, new(sync.Mutex))
	return mu.(*sync.Mutex)
}

func (h *SQLite) entry(user string) *cachedUser {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.cache[user]
	if e == nil {
		e = &cachedUser{}
		h.cache[user] = e
	}
	return e
}

// userState is a user's host_users row.
type userState struct {
	gen, dim, vectors int64
}

func readUserState(ctx context.Context, q sqlitedb.Querier, user string) (userState, error) {
	var st userState
	err := q.QueryRowContext(ctx, `SELECT gen, dim, vectors FROM host_users WHERE user = ?`, user).Scan(&st.gen, &st.dim, &st.vectors)
	if errors.Is(err, sql.ErrNoRows) {
		return userState{}, nil
	}
	return st, err
}

// Add implements Host.
func (h *SQLite) Add(ctx context.Context, user string, m Memory) error {
	return h.AddBatch(ctx, user, []Memory{m})
}

// AddBatch adds memories in one transaction, all or nothing; a later memory with the
// same ID as an earlier one wins.
func (h *SQLite) AddBatch(ctx context.Context, user string, ms []Memory) error {
	mu := h.lock(user)
	mu.Lock()
	defer mu.Unlock()
	tx, err := h.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("add: begin: %w", err)
	}
	defer tx.Rollback()
	apply, err := h.AddIn(ctx, tx, user, ms)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("add: commit: %w", err)
	}
	apply()
	return nil
}

// AddIn adds memories as AddBatch does, but inside tx, a transaction on the host's own
// database that the caller commits: the overlay's bank, which shares the file, writes a
// memory and its record in one transaction. After tx commits, the caller calls apply,
// which brings the in-memory index up to date; after a rollback it does not (the index
// stays as the database is). tx must have begun as a write (BEGIN IMMEDIATE, as
// sqlitedb.Open's transactions do), which serialises it with the host's own writes.
func (h *SQLite) AddIn(ctx context.Context, tx *sql.Tx, user string, ms []Memory) (apply func(), err error) {
	now := h.cfg.now()
	var batch []Memory
	at := map[string]int{}
	for _, m := range ms {
		p, err := prepare(user, m, now)
		if err != nil {
			return nil, err
		}
		if i, ok := at[p.ID]; ok {
			batch[i] = p
			continue
		}
		at[p.ID] = len(batch)
		batch = append(batch, p)
	}
	if len(batch) == 0 {
		return func() {}, nil
	}
	q := h.Q(tx)
	st, err := readUserState(ctx, q, user)
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	// Vectors after the batch: those of memories it does not replace, plus its own.
	replaced, err := h.vectorsAmong(ctx, q, user, batch)
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	kept := st.vectors - replaced
	dim, added := int64(0), int64(0)
	for _, m := range batch {
		if n := int64(len(m.Vector)); n > 0 {
			if dim != 0 && n != dim {
				return nil, fmt.Errorf("add %q: %w: a %d-dimensional vector in a batch of %d", m.ID, ErrInvalid, n, dim)
			}
			dim = n
			added++
		}
	}
	switch {
	case dim == 0 && kept == 0:
		// no vectors left
	case dim == 0:
		dim = st.dim
	case kept > 0 && dim != st.dim:
		return nil, fmt.Errorf("add: %w: vectors have %d dimensions, this user's have %d", ErrInvalid, dim, st.dim)
	}
	for _, m := range batch {
		meta := []byte("{}")
		if len(m.Meta) > 0 {
			if meta, err = json.Marshal(m.Meta); err != nil {
				return nil, fmt.Errorf("add %q: encode meta: %w", m.ID, err)
			}
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO host_memories (user, id, content, time_ns, meta, vec) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (user, id) DO UPDATE SET content = excluded.content, time_ns = excluded.time_ns,
				meta = excluded.meta, vec = excluded.vec`,
			user, m.ID, m.Content, m.Time.UnixNano(), string(meta), sqlitedb.EncodeVector(m.Vector)); err != nil {
			return nil, fmt.Errorf("add %q: %w", m.ID, err)
		}
	}
	next := userState{gen: st.gen + 1, dim: dim, vectors: kept + added}
	if err := writeUserState(ctx, q, user, next); err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	return func() {
		h.advance(user, st.gen, next.gen, func(idx *userIndex) error {
			for _, m := range batch {
				if err := idx.set(m); err != nil {
					return err
				}
			}
			return nil
		})
	}, nil
}

// vectorsAmong counts the stored vectors among the batch's ids.
func (h *SQLite) vectorsAmong(ctx context.Context, q sqlitedb.Querier, user string, batch []Memory) (int64, error) {
	var total int64
	for start := 0; start < len(batch); start += 500 {
		chunk := batch[start:min(start+500, len(batch))]
		args := []any{user}
		for _, m := range chunk {
			args = append(args, m.ID)
		}
		var n int64
		err := q.QueryRowContext(ctx, `SELECT count(*) FROM host_memories WHERE user = ? AND vec IS NOT NULL AND id IN (`+
			placeholders(len(chunk))+`)`, args...).Scan(&n)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func writeUserState(ctx context.Context, q sqlitedb.Execer, user string, st userState) error {
	_, err := q.ExecContext(ctx, `INSERT INTO host_users (user, gen, dim, vectors) VALUES (?, ?, ?, ?)
		ON CONFLICT (user) DO UPDATE SET gen = excluded.gen, dim = excluded.dim, vectors = excluded.vectors`,
		user, st.gen, st.dim, st.vectors)
	return err
}

// advance applies this process's own committed write to the cached index when the
// cache was current before it; otherwise the next search reloads.
func (h *SQLite) advance(user string, from, to int64, apply func(*userIndex) error) {
	e := h.entry(user)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.idx == nil || e.gen != from {
		e.idx = nil
		e.size.Store(0)
		return
	}
	if err := apply(e.idx); err != nil {
		e.idx = nil // reload from the database, which is the truth
		e.size.Store(0)
		return
	}
	e.gen = to
	e.size.Store(int64(e.idx.len()))
}

// Delete implements Host.
func (h *SQLite) Delete(ctx context.Context, user, id string) error {
	if err := store.ValidateUser(user); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	mu := h.lock(user)
	mu.Lock()
	defer mu.Unlock()
	tx, err := h.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete %s: begin: %w", id, err)
	}
	defer tx.Rollback()
	q := h.Q(tx)
	var hadVec bool
	err = q.QueryRowContext(ctx, `DELETE FROM host_memories WHERE user = ? AND id = ? RETURNING vec IS NOT NULL`, user, id).Scan(&hadVec)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("delete %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	st, err := readUserState(ctx, q, user)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	next := st
	next.gen++
	if hadVec {
		next.vectors--
	}
	if next.vectors <= 0 {
		next.vectors, next.dim = 0, 0
	}
	if err := writeUserState(ctx, q, user, next); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete %s: commit: %w", id, err)
	}
	h.advance(user, st.gen, next.gen, func(idx *userIndex) error { idx.remove(id); return nil })
	return nil
}

// DeleteUser removes every memory of user. The user's generation keeps counting, so
// no process mistakes its cache of the old memories for the new ones.
func (h *SQLite) DeleteUser(ctx context.Context, user string) error {
	if err := store.ValidateUser(user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	mu := h.lock(user)
	mu.Lock()
	defer mu.Unlock()
	tx, err := h.DB().BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete user: begin: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM host_memories WHERE user = ?`, user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	st, err := readUserState(ctx, tx, user)
	if err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	next := userState{gen: st.gen + 1}
	if err := writeUserState(ctx, tx, user, next); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete user: commit: %w", err)
	}
	h.advance(user, st.gen, next.gen, func(idx *userIndex) error { *idx = *newUserIndex(); return nil })
	return nil
}

// Get returns one memory.
func (h *SQLite) Get(ctx context.Context, user, id string) (Memory, error) {
	if err := store.ValidateUser(user); err != nil {
		return Memory{}, fmt.Errorf("get: %w", err)
	}
	ms, err := sqlitedb.Collect(ctx, h.Q(nil), scanMemory, `SELECT `+memoryCols+` FROM host_memories WHERE user = ? AND id = ?`, user, id)
	if err != nil {
		return Memory{}, fmt.Errorf("get %s: %w", id, err)
	}
	if len(ms) == 0 {
		return Memory{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return ms[0], nil
}

// Len returns the number of user's memories.
func (h *SQLite) Len(ctx context.Context, user string) (int, error) {
	var n int
	if err := h.DB().QueryRowContext(ctx, `SELECT count(*) FROM host_memories WHERE user = ?`, user).Scan(&n); err != nil {
		return 0, fmt.Errorf("count memories: %w", err)
	}
	return n, nil
}

// Users lists users with memories, sorted.
func (h *SQLite) Users(ctx context.Context) ([]string, error) {
	users, err := sqlitedb.Strings(ctx, h.DB(), `SELECT DISTINCT user FROM host_memories ORDER BY user`)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	return users, nil
}

// memoryCols are the columns scanMemory reads.
const memoryCols = `id, content, time_ns, meta, vec`

func scanMemory(rows *sql.Rows) (Memory, error) {
	var (
		m    Memory
		ns   int64
		meta string
		vec  []byte
	)
	if err := rows.Scan(&m.ID, &m.Content, &ns, &meta, &vec); err != nil {
		return Memory{}, err
	}
	m.Time = time.Unix(0, ns).UTC()
	if err := json.Unmarshal([]byte(meta), &m.Meta); err != nil {
		return Memory{}, fmt.Errorf("decode meta of %s: %w", m.ID, err)
	}
	if len(m.Meta) == 0 {
		m.Meta = nil
	}
	var err error
	if m.Vector, err = sqlitedb.DecodeVector(vec); err != nil {
		return Memory{}, fmt.Errorf("decode vector of %s: %w", m.ID, err)
	}
	return m, nil
}

// index returns user's current index with a read lock held; the caller calls the
// returned function to release it.
func (h *SQLite) index(ctx context.Context, user string) (*userIndex, func(), error) {
	st, err := readUserState(ctx, h.Q(nil), user)
	if err != nil {
		return nil, nil, err
	}
	e := h.entry(user)
	e.used.Store(h.tick.Add(1))
	e.mu.RLock()
	if e.idx != nil && e.gen == st.gen {
		return e.idx, e.mu.RUnlock, nil
	}
	e.mu.RUnlock()
	e.mu.Lock()
	if e.idx == nil || e.gen != st.gen {
		idx, gen, err := h.load(ctx, user)
		if err != nil {
			e.mu.Unlock()
			return nil, nil, err
		}
		e.idx, e.gen = idx, gen
		e.size.Store(int64(idx.len()))
		h.trim(e)
	}
	// Searching under the write lock is fine: it was just loaded, and writers wait.
	return e.idx, e.mu.Unlock, nil
}

// trim drops the indexes of the users searched least recently while the cached
// memories exceed Config.CacheMemories; keep, whose lock the caller holds, stays, and
// so does an index in use (its lock is taken), until a later trim.
func (h *SQLite) trim(keep *cachedUser) {
	h.mu.Lock()
	all := make([]*cachedUser, 0, len(h.cache))
	var total int64
	for _, e := range h.cache {
		total += e.size.Load()
		all = append(all, e)
	}
	h.mu.Unlock()
	limit := h.cfg.cacheMemories()
	if total <= limit {
		return
	}
	slices.SortFunc(all, func(a, b *cachedUser) int { return cmp.Compare(a.used.Load(), b.used.Load()) })
	for _, e := range all {
		if total <= limit {
			return
		}
		if e == keep || !e.mu.TryLock() {
			continue
		}
		if e.idx != nil {
			total -= e.size.Load()
			e.idx = nil
			e.size.Store(0)
		}
		e.mu.Unlock()
	}
}

// load reads user's memories into a new index, with their generation, in one snapshot.
func (h *SQLite) load(ctx context.Context, user string) (*userIndex, int64, error) {
	tx, err := h.DB().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	defer tx.Rollback()
	st, err := readUserState(ctx, tx, user)
	if err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+memoryCols+` FROM host_memories WHERE user = ?`, user)
	if err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	defer rows.Close()
	idx := newUserIndex()
	if st.vectors > 0 && st.dim > 0 {
		idx.dense.ids = make([]string, 0, st.vectors)
		idx.dense.vecs = make([]float32, 0, st.vectors*st.dim)
	}
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("load index: %w", err)
		}
		if err := idx.set(m); err != nil {
			return nil, 0, fmt.Errorf("load vector of %s: %w", m.ID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	return idx, st.gen, nil
}

// Search implements Host.
func (h *SQLite) Search(ctx context.Context, user, query string, qvec []float32, k int) ([]Hit, error) {
	k, q, err := searchArgs(user, qvec, k)
	if err != nil {
		return nil, err
	}
	idx, release, err := h.index(ctx, user)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits, err := idx.search(h.cfg, query, q, k)
	release()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}
