package host

import (
	"cmp"
	"context"
	"database/sql"
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

// SQL is the Host on an SQL database — SQLite (OpenSQLite, NewSQLite) or PostgreSQL
// (OpenPostgres, NewPostgres) — which it may share with the overlay bank. Search runs in
// memory over the user's index (vectors for dense search, an inverted index for BM25),
// loaded from the database on the user's first search and kept afterwards: this
// process's writes update it, and a per-user generation counter, read from the
// database on every search, tells when another process wrote: the index then reads what
// changed since its generation (refresh), or the whole user again after a DeleteUser.
// Safe for concurrent use.
type SQL struct {
	db    *sql.DB
	q     func(*sql.Tx) sqlitedb.Execer
	close func() error
	d     *dialect
	cfg   Config
	locks sync.Map // user → *sync.Mutex, serialising writes

	mu    sync.Mutex // guards cache
	cache map[string]*cachedUser
	tick  atomic.Int64 // orders the searches, for trim
	// loads and refreshes count whole and incremental index reads (for tests).
	loads, refreshes atomic.Int64
}

// dialect is what differs between the databases SQL runs on.
type dialect struct {
	// claim runs first in every write transaction: PostgreSQL's per-user advisory lock
	// (nil on SQLite, where BEGIN IMMEDIATE took the write lock).
	claim func(ctx context.Context, q sqlitedb.Execer, user string) error
	// snapshot begins the read of a user's memories and generation, in one snapshot.
	snapshot sql.TxOptions
	// classify maps a database error onto the store's sentinels (ErrUnavailable, …).
	classify func(error) error
	// withWrites: the database runs data-modifying WITH clauses (PostgreSQL).
	withWrites bool
}

// cachedUser is one user's search index as of generation gen.
type cachedUser struct {
	mu  sync.RWMutex
	gen int64
	idx *userIndex // nil until loaded, and after trim

	used atomic.Int64 // the tick of the user's last search
	size atomic.Int64 // memories in idx
}

var _ Host = (*SQL)(nil)

func newSQL(db *sql.DB, q func(*sql.Tx) sqlitedb.Execer, closeFn func() error, d *dialect, cfg Config) *SQL {
	return &SQL{db: db, q: q, close: closeFn, d: d, cfg: cfg, cache: map[string]*cachedUser{}}
}

// DB returns the database.
func (h *SQL) DB() *sql.DB { return h.db }

// Close releases the host's hold on the database, and closes it if the host opened it
// (OpenSQLite, OpenPostgres).
func (h *SQL) Close() error { return h.close() }

func (h *SQL) lock(user string) *sync.Mutex {
	mu, _ := h.locks.LoadOrStore(user, new(sync.Mutex))
	return mu.(*sync.Mutex)
}

// begin starts a write transaction of user's memories: on PostgreSQL it takes the
// user's advisory lock first (pgdb.LockUser), on SQLite BEGIN IMMEDIATE took the write
// lock. The caller holds the user's mutex and rolls tx back unless it commits.
func (h *SQL) begin(ctx context.Context, user string) (*sql.Tx, sqlitedb.Execer, error) {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("begin: %w", err)
	}
	q := h.q(tx)
	if h.d.claim != nil {
		if err := h.d.claim(ctx, q, user); err != nil {
			tx.Rollback()
			return nil, nil, err
		}
	}
	return tx, q, nil
}

func (h *SQL) entry(user string) *cachedUser {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.cache[user]
	if e == nil {
		e = &cachedUser{}
		h.cache[user] = e
	}
	return e
}

// userState is a user's host_users row: reset is the generation of the user's last
// DeleteUser (an index older than it is reloaded whole, see index).
type userState struct {
	gen, dim, vectors, reset int64
}

func readUserState(ctx context.Context, q sqlitedb.Querier, user string) (userState, error) {
	var st userState
	err := q.QueryRowContext(ctx, `SELECT gen, dim, vectors, reset_gen FROM host_users WHERE "user" = ?`, user).Scan(&st.gen, &st.dim, &st.vectors, &st.reset)
	if errors.Is(err, sql.ErrNoRows) {
		return userState{}, nil
	}
	return st, err
}

// Add implements Host.
func (h *SQL) Add(ctx context.Context, user string, m Memory) error {
	return h.AddBatch(ctx, user, []Memory{m})
}

// AddBatch adds memories in one transaction, all or nothing; a later memory with the
// same ID as an earlier one wins.
func (h *SQL) AddBatch(ctx context.Context, user string, ms []Memory) error {
	mu := h.lock(user)
	mu.Lock()
	defer mu.Unlock()
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return h.d.classify(fmt.Errorf("add: begin: %w", err))
	}
	defer tx.Rollback()
	apply, err := h.addIn(ctx, tx, user, ms, false)
	if err != nil {
		return h.d.classify(err)
	}
	if err := tx.Commit(); err != nil {
		return h.d.classify(fmt.Errorf("add: commit: %w", err))
	}
	apply()
	return nil
}

// AddIn adds memories as AddBatch does, but inside tx, a transaction of the bank's
// store on the host's own database (store.NewSQLite and NewSQLite, or store.NewPostgres
// and NewPostgres, on one *sql.DB), which the store commits: the overlay writes a
// memory and its record in one transaction (overlay.TxHost). After tx commits, the
// caller calls apply, which brings the in-memory index up to date; after a rollback it
// does not (the index stays as the database is). A transaction of another store, or of
// a store on another database, is refused: such a host is not a participant of that
// store's transactions (overlay.Config.SeparateHost). On SQLite the store's
// transactions begin as writes (BEGIN IMMEDIATE), which serialises them with the
// host's own writes; on PostgreSQL the store's transaction of the user holds the user's
// advisory lock (pgdb.LockUser), which the host's own writes take, and AddIn takes it
// in a transaction of another user.
func (h *SQL) AddIn(ctx context.Context, tx store.Tx, user string, ms []Memory) (apply func(), err error) {
	raw, db, owner, ok := store.SQLTx(tx)
	switch {
	case !ok:
		return nil, fmt.Errorf("add: %w: not a transaction of the SQL store (the host memory writes only in its own database's transactions)", ErrInvalid)
	case db != h.db:
		return nil, fmt.Errorf("add: %w: the store's transaction runs on another database than the host memory's; a host elsewhere is a separate host (overlay.Config.SeparateHost)", ErrInvalid)
	}
	// Not classified here: the store's Tx maps what its transaction returns.
	return h.addIn(ctx, raw, user, ms, owner == user)
}

// addIn writes ms in tx; locked: tx already holds the user's lock (claim).
func (h *SQL) addIn(ctx context.Context, tx *sql.Tx, user string, ms []Memory, locked bool) (apply func(), err error) {
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
	q := h.q(tx)
	if h.d.claim != nil && !locked {
		if err := h.d.claim(ctx, q, user); err != nil {
			return nil, fmt.Errorf("add: %w", err)
		}
	}
	var st, next userState
	if h.d.withWrites && len(batch) <= memoryChunk && len(batch) <= vectorChunk {
		st, next, err = writeFolded(ctx, q, user, batch)
	} else {
		st, next, err = readAndWrite(ctx, q, user, batch)
	}
	if err != nil {
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

// memoryChunk is the most memories one statement writes (7 parameters each).
const memoryChunk = 100

// nextState is the user's state after batch replaces replaced of the stored vectors:
// the generation moves on, and every vector the user keeps has one dimension.
func nextState(st userState, replaced int64, batch []Memory) (userState, error) {
	kept := st.vectors - replaced
	dim, added, err := batchVectors(batch)
	if err != nil {
		return userState{}, err
	}
	switch {
	case dim == 0 && kept == 0:
		// no vectors left
	case dim == 0:
		dim = st.dim
	case kept > 0 && dim != st.dim:
		return userState{}, fmt.Errorf("%w: vectors have %d dimensions, this user's have %d", ErrInvalid, dim, st.dim)
	}
	return userState{gen: st.gen + 1, dim: dim, vectors: kept + added, reset: st.reset}, nil
}

// batchVectors returns the dimension of batch's vectors and how many it has, refusing
// a batch of two dimensions.
func batchVectors(batch []Memory) (dim, added int64, err error) {
	for _, m := range batch {
		if n := int64(len(m.Vector)); n > 0 {
			if dim != 0 && n != dim {
				return 0, 0, fmt.Errorf("%q: %w: a %d-dimensional vector in a batch of %d", m.ID, ErrInvalid, n, dim)
			}
			dim = n
			added++
		}
	}
	return dim, added, nil
}

// readAndWrite reads the user's state, then writes batch at the next generation (see
// writeMemories) and the state after it.
func readAndWrite(ctx context.Context, q sqlitedb.Execer, user string, batch []Memory) (st, next userState, err error) {
	st, replaced, err := readAddState(ctx, q, user, batch)
	if err != nil {
		return st, next, err
	}
	if next, err = nextState(st, replaced, batch); err != nil {
		return st, next, err
	}
	return st, next, writeMemories(ctx, q, user, batch, next)
}

// memoryArgs are one memory's columns after "user": id, content, time_ns, meta, vec.
func memoryArgs(m Memory) ([]any, error) {
	meta := []byte("{}")
	if len(m.Meta) > 0 {
		var err error
		if meta, err = json.Marshal(m.Meta); err != nil {
			return nil, fmt.Errorf("%q: encode meta: %w", m.ID, err)
		}
	}
	return []any{m.ID, m.Content, m.Time.UnixNano(), string(meta), sqlitedb.EncodeVector(m.Vector)}, nil
}

// upsertMemory is what a memory's insert does when its id is taken.
const upsertMemory = `ON CONFLICT ("user", id) DO UPDATE SET content = excluded.content, time_ns = excluded.time_ns,
		meta = excluded.meta, vec = excluded.vec, gen = excluded.gen`

// writeMemories writes a batch of distinct ids at generation next.gen (by which other
// processes find what changed), a multi-row statement a chunk, and the user's new state.
func writeMemories(ctx context.Context, q sqlitedb.Execer, user string, batch []Memory, next userState) error {
	for start := 0; start < len(batch); start += memoryChunk {
		chunk := batch[start:min(start+memoryChunk, len(batch))]
		args := make([]any, 0, 7*len(chunk))
		for _, m := range chunk {
			cols, err := memoryArgs(m)
			if err != nil {
				return err
			}
			args = append(append(append(args, user), cols...), next.gen)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO host_memories ("user", id, content, time_ns, meta, vec, gen) VALUES `+
			sqlitedb.Values(len(chunk), 7)+` `+upsertMemory, args...); err != nil {
			return err
		}
	}
	return writeUserState(ctx, q, user, next)
}

// writeFolded is readAndWrite in one statement, for a database that runs
// data-modifying WITH clauses (PostgreSQL) and a batch of at most memoryChunk memories
// and vectorChunk ids: an ingest's host write is one round trip there, not two. The
// statement reads the state and the replaced vectors, writes the memories at the next
// generation and the state after them, and returns both states; nextState, the one
// rule, then checks what it wrote (a batch it refuses is written, and the caller's
// transaction rolls back on the error, as with every error in it).
func writeFolded(ctx context.Context, q sqlitedb.Execer, user string, batch []Memory) (st, next userState, err error) {
	dim, added, err := batchVectors(batch)
	if err != nil {
		return st, next, err
	}
	args := addStateArgs(user, batch)
	rows := make([]string, len(batch))
	for i, m := range batch {
		cols, err := memoryArgs(m)
		if err != nil {
			return st, next, err
		}
		args = append(append(args, user), cols...)
		rows[i] = `(CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS bigint), CAST(? AS text), CAST(? AS bytea))`
	}
	args = append(args, user, dim, dim, added)
	var (
		replaced int64
		wrote    userState
	)
	err = q.QueryRowContext(ctx, `WITH s AS (`+addStateSQL(len(batch))+`),
		m AS (INSERT INTO host_memories ("user", id, content, time_ns, meta, vec, gen)
			SELECT v.u, v.id, v.content, v.t, v.meta, v.vec, s.gen + 1
			FROM s CROSS JOIN (VALUES `+strings.Join(rows, ", ")+`) AS v(u, id, content, t, meta, vec)
			`+upsertMemory+`),
		w AS (INSERT INTO host_users ("user", gen, dim, vectors, reset_gen)
			SELECT CAST(? AS text), s.gen + 1,
				CASE WHEN CAST(? AS integer) <> 0 THEN CAST(? AS integer) WHEN s.vectors = s.replaced THEN 0 ELSE s.dim END,
				s.vectors - s.replaced + CAST(? AS bigint), s.reset_gen
			FROM s
			`+userStateConflict+`
			RETURNING gen, dim, vectors, reset_gen)
		SELECT s.gen, s.dim, s.vectors, s.reset_gen, s.replaced, w.gen, w.dim, w.vectors, w.reset_gen FROM s CROSS JOIN w`, args...).
		Scan(&st.gen, &st.dim, &st.vectors, &st.reset, &replaced, &wrote.gen, &wrote.dim, &wrote.vectors, &wrote.reset)
	if err != nil {
		return st, next, err
	}
	if next, err = nextState(st, replaced, batch); err != nil {
		return st, next, err
	}
	if wrote != next {
		return st, next, fmt.Errorf("the user's state written (%+v) is not the one the rule gives (%+v)", wrote, next)
	}
	return st, next, nil
}

// readAddState reads the user's state and how many stored vectors the batch replaces
// (the vectors after it: those of memories it does not replace, plus its own): the
// state with the first vectorChunk ids in one statement — one round trip on PostgreSQL
// for an ingest's batch — and any further ids a statement each vectorChunk.
func readAddState(ctx context.Context, q sqlitedb.Querier, user string, batch []Memory) (userState, int64, error) {
	head := batch[:min(len(batch), vectorChunk)]
	var (
		st       userState
		replaced int64
	)
	err := q.QueryRowContext(ctx, addStateSQL(len(head)), addStateArgs(user, head)...).Scan(&st.gen, &st.dim, &st.vectors, &st.reset, &replaced)
	if err != nil {
		return userState{}, 0, err
	}
	rest, err := vectorsAmong(ctx, q, user, batch[len(head):])
	return st, replaced + rest, err
}

// addStateSQL reads a user's state (zeros for a new user) and how many of n ids hold a
// stored vector, as (gen, dim, vectors, reset_gen, replaced); its arguments are
// addStateArgs.
func addStateSQL(n int) string {
	return `SELECT coalesce(u.gen, 0) AS gen, coalesce(u.dim, 0) AS dim, coalesce(u.vectors, 0) AS vectors,
			coalesce(u.reset_gen, 0) AS reset_gen,
			(SELECT count(*) FROM host_memories WHERE "user" = ? AND vec IS NOT NULL AND id IN (` + sqlitedb.Placeholders(n) + `)) AS replaced
		FROM (SELECT 1) AS one LEFT JOIN host_users u ON u."user" = ?`
}

func addStateArgs(user string, batch []Memory) []any {
	args := []any{user}
	for _, m := range batch {
		args = append(args, m.ID)
	}
	return append(args, user)
}

// vectorChunk is the most ids one statement looks up.
const vectorChunk = 500

// vectorsAmong counts the stored vectors among the batch's ids.
func vectorsAmong(ctx context.Context, q sqlitedb.Querier, user string, batch []Memory) (int64, error) {
	var total int64
	for start := 0; start < len(batch); start += vectorChunk {
		chunk := batch[start:min(start+vectorChunk, len(batch))]
		args := []any{user}
		for _, m := range chunk {
			args = append(args, m.ID)
		}
		var n int64
		err := q.QueryRowContext(ctx, `SELECT count(*) FROM host_memories WHERE "user" = ? AND vec IS NOT NULL AND id IN (`+
			sqlitedb.Placeholders(len(chunk))+`)`, args...).Scan(&n)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// upsertUserState writes a host_users row ("user", gen, dim, vectors, reset_gen).
const upsertUserState = `INSERT INTO host_users ("user", gen, dim, vectors, reset_gen) VALUES (?, ?, ?, ?, ?)
		` + userStateConflict

// userStateConflict is what a host_users insert does when the user has a row.
const userStateConflict = `ON CONFLICT ("user") DO UPDATE SET gen = excluded.gen, dim = excluded.dim, vectors = excluded.vectors, reset_gen = excluded.reset_gen`

func writeUserState(ctx context.Context, q sqlitedb.Execer, user string, st userState) error {
	_, err := q.ExecContext(ctx, upsertUserState, user, st.gen, st.dim, st.vectors, st.reset)
	return err
}

// advance applies this process's own committed write to the cached index when the
// cache was current before it; otherwise the next search reloads.
func (h *SQL) advance(user string, from, to int64, apply func(*userIndex) error) {
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
func (h *SQL) Delete(ctx context.Context, user, id string) error {
	if err := store.ValidateUser(user); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	mu := h.lock(user)
	mu.Lock()
	defer mu.Unlock()
	return h.d.classify(h.delete(ctx, user, id))
}

func (h *SQL) delete(ctx context.Context, user, id string) error {
	tx, q, err := h.begin(ctx, user)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	defer tx.Rollback()
	var hadVec bool
	err = q.QueryRowContext(ctx, `DELETE FROM host_memories WHERE "user" = ? AND id = ? RETURNING vec IS NOT NULL`, user, id).Scan(&hadVec)
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
	// The tombstone tells other processes' indexes to drop it (see refresh).
	if _, err := q.ExecContext(ctx, `INSERT INTO host_deletions ("user", id, gen) VALUES (?, ?, ?)
		ON CONFLICT ("user", id) DO UPDATE SET gen = excluded.gen`, user, id, next.gen); err != nil {
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
func (h *SQL) DeleteUser(ctx context.Context, user string) error {
	if err := store.ValidateUser(user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	mu := h.lock(user)
	mu.Lock()
	defer mu.Unlock()
	return h.d.classify(h.deleteUser(ctx, user))
}

func (h *SQL) deleteUser(ctx context.Context, user string) error {
	tx, q, err := h.begin(ctx, user)
	if err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	defer tx.Rollback()
	for _, table := range []string{"host_memories", "host_deletions"} {
		if _, err := q.ExecContext(ctx, `DELETE FROM `+table+` WHERE "user" = ?`, user); err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
	}
	st, err := readUserState(ctx, q, user)
	if err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	// Without tombstones, an index older than this generation is reloaded whole.
	next := userState{gen: st.gen + 1, reset: st.gen + 1}
	if err := writeUserState(ctx, q, user, next); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete user: commit: %w", err)
	}
	h.advance(user, st.gen, next.gen, func(idx *userIndex) error { *idx = *newUserIndex(h.cfg.ANN); return nil })
	return nil
}

// Get returns one memory.
func (h *SQL) Get(ctx context.Context, user, id string) (Memory, error) {
	if err := store.ValidateUser(user); err != nil {
		return Memory{}, fmt.Errorf("get: %w", err)
	}
	ms, err := sqlitedb.Collect(ctx, h.q(nil), scanMemory, `SELECT `+memoryCols+` FROM host_memories WHERE "user" = ? AND id = ?`, user, id)
	if err != nil {
		return Memory{}, h.d.classify(fmt.Errorf("get %s: %w", id, err))
	}
	if len(ms) == 0 {
		return Memory{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return ms[0], nil
}

// Len returns the number of user's memories.
func (h *SQL) Len(ctx context.Context, user string) (int, error) {
	var n int
	if err := h.q(nil).QueryRowContext(ctx, `SELECT count(*) FROM host_memories WHERE "user" = ?`, user).Scan(&n); err != nil {
		return 0, h.d.classify(fmt.Errorf("count memories: %w", err))
	}
	return n, nil
}

// Users lists users with memories, sorted.
func (h *SQL) Users(ctx context.Context) ([]string, error) {
	users, err := sqlitedb.Strings(ctx, h.q(nil), `SELECT DISTINCT "user" FROM host_memories ORDER BY "user"`)
	if err != nil {
		return nil, h.d.classify(fmt.Errorf("users: %w", err))
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
func (h *SQL) index(ctx context.Context, user string) (*userIndex, func(), error) {
	st, err := readUserState(ctx, h.q(nil), user)
	if err != nil {
		return nil, nil, err
	}
	e := h.entry(user)
	e.used.Store(h.tick.Add(1))
	e.mu.RLock()
	// A generation past st's: another search refreshed the index since st was read.
	if e.idx != nil && e.gen >= st.gen {
		return e.idx, e.mu.RUnlock, nil
	}
	e.mu.RUnlock()
	e.mu.Lock()
	if e.idx != nil && e.gen < st.gen && e.gen >= st.reset {
		// Another process wrote since the index was loaded: read what changed.
		if err := h.refresh(ctx, user, e); err != nil {
			e.idx = nil // reload whole below
		}
	}
	if e.idx == nil || e.gen < st.gen {
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
func (h *SQL) trim(keep *cachedUser) {
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

// refresh brings e's index up to the user's current generation with what changed since
// its own, read in one snapshot: the memories written since (each row keeps the
// generation that last set it) and the tombstones of those deleted since. The caller
// holds e.mu for writing. An error leaves the index part-way (the caller drops it); so
// does a DeleteUser since, whose memories left no tombstones.
func (h *SQL) refresh(ctx context.Context, user string, e *cachedUser) error {
	tx, err := h.db.BeginTx(ctx, &h.d.snapshot)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := h.q(tx)
	st, err := readUserState(ctx, q, user)
	if err != nil {
		return err
	}
	if st.reset > e.gen {
		return errors.New("the user was deleted since")
	}
	gone, err := sqlitedb.Strings(ctx, q, `SELECT id FROM host_deletions WHERE "user" = ? AND gen > ?`, user, e.gen)
	if err != nil {
		return err
	}
	changed, err := sqlitedb.Collect(ctx, q, scanMemory, `SELECT `+memoryCols+` FROM host_memories WHERE "user" = ? AND gen > ?`, user, e.gen)
	if err != nil {
		return err
	}
	// Tombstones first: a memory deleted and added again since is a row newer than its
	// tombstone, and stays.
	for _, id := range gone {
		e.idx.remove(id)
	}
	for _, m := range changed {
		if err := e.idx.set(m); err != nil {
			return err
		}
	}
	e.gen = st.gen
	e.size.Store(int64(e.idx.len()))
	h.refreshes.Add(1)
	return nil
}

// load reads user's memories into a new index, with their generation, in one snapshot.
func (h *SQL) load(ctx context.Context, user string) (*userIndex, int64, error) {
	h.loads.Add(1)
	tx, err := h.db.BeginTx(ctx, &h.d.snapshot)
	if err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	defer tx.Rollback()
	q := h.q(tx)
	st, err := readUserState(ctx, q, user)
	if err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT `+memoryCols+` FROM host_memories WHERE "user" = ?`, user)
	if err != nil {
		return nil, 0, fmt.Errorf("load index: %w", err)
	}
	defer rows.Close()
	idx := newUserIndex(h.cfg.ANN)
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
func (h *SQL) Search(ctx context.Context, user, query string, qvec []float32, k int) ([]Hit, error) {
	k, q, err := searchArgs(user, qvec, k)
	if err != nil {
		return nil, err
	}
	idx, release, err := h.index(ctx, user)
	if err != nil {
		return nil, h.d.classify(fmt.Errorf("search: %w", err))
	}
	hits, err := idx.search(h.cfg, query, q, k)
	release()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// Memories returns every memory of user, vectors included, in id order (for copying a
// host to another database; searches go through the cached index instead).
func (h *SQL) Memories(ctx context.Context, user string) ([]Memory, error) {
	if err := store.ValidateUser(user); err != nil {
		return nil, fmt.Errorf("memories: %w", err)
	}
	ms, err := sqlitedb.Collect(ctx, h.q(nil), scanMemory, `SELECT `+memoryCols+` FROM host_memories WHERE "user" = ? ORDER BY id`, user)
	if err != nil {
		return nil, h.d.classify(fmt.Errorf("memories: %w", err))
	}
	return ms, nil
}
