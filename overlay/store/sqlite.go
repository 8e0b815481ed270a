package store

import (
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

	"github.com/atma-dev/atma/overlay/store/fts"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Component is the name of the bank's schema in schema_migrations.
const Component = "store"

//go:embed migrations/*.sql
var migrationFiles embed.FS

var schema = sqlitedb.Schema{Component: Component, FS: migrationFiles, Dir: "migrations"}

// Migrations returns the bank's schema migrations.
func Migrations() ([]sqlitedb.Migration, error) { return schema.Migrations() }

// SQLite is the Store on an SQLite database (see package sqlitedb for its settings).
// Safe for concurrent use; other processes may share the file.
type SQLite struct {
	// Handle holds the database: DB returns it, Close closes it if OpenSQLite opened it.
	sqlitedb.Handle
	cfg   Config
	locks sync.Map // user → *sync.Mutex
	// writer lets one of the process's write transactions at a time take SQLite's write
	// lock, which admits one writer anyway: the others wait here, in order, instead of
	// spinning on the busy timeout (50 concurrent writers exceeded it and failed with
	// SQLITE_BUSY). Other processes still meet the busy timeout.
	writer sync.Mutex
	// damage is what made the store refuse writes (see Damaged); nil while sound.
	damage atomic.Pointer[damageError]
}

// damageError is the store's ErrDamaged with what was found.
type damageError struct{ problems []string }

func (e *damageError) Error() string {
	return fmt.Sprintf("%v: SQLite reports %s; nothing more is written to it: restore the file from a backup (`atma overlay check` lists the damage; what can still be read stays readable)",
		ErrDamaged, strings.Join(e.problems, "; "))
}

func (e *damageError) Unwrap() error { return ErrDamaged }

// Damaged implements Admin.
func (s *SQLite) Damaged() error {
	if d := s.damage.Load(); d != nil {
		return d
	}
	return nil
}

// Integrity implements Admin.
func (s *SQLite) Integrity(ctx context.Context, full bool) ([]string, error) {
	problems, err := sqlitedb.Integrity(ctx, s.DB(), full)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		s.damage.CompareAndSwap(nil, &damageError{problems: problems})
	}
	return problems, nil
}

// noteDamage marks the store damaged when err says a page is malformed, and returns err
// (as ErrDamaged then).
func (s *SQLite) noteDamage(err error) error {
	switch {
	case err == nil:
		return nil
	case sqlitedb.IsReadOnly(err):
		return fmt.Errorf("%w: nothing was written; make the data directory and atma.db writable (%w)", ErrReadOnly, err)
	case sqlitedb.IsFull(err):
		return fmt.Errorf("%w: nothing was written; free space on the bank's disk and retry (%w)", ErrDiskFull, err)
	case sqlitedb.IsBusy(err):
		return fmt.Errorf("%w: another process held the bank's write lock past the busy timeout; nothing was written, retry (%w)", ErrBusy, err)
	case !sqlitedb.IsDamaged(err):
		return err
	}
	s.damage.CompareAndSwap(nil, &damageError{problems: []string{err.Error()}})
	return fmt.Errorf("%w (%w)", s.Damaged(), err)
}

// opened runs the quick integrity check of a store just opened: damage found makes the
// store refuse writes, it does not keep the bank from opening (check and show still
// read what they can).
func (s *SQLite) opened(ctx context.Context) (*SQLite, error) {
	if _, err := s.Integrity(ctx, false); err != nil {
		return nil, err
	}
	return s, nil
}

var _ Store = (*SQLite)(nil)

// OpenSQLite opens (creating if needed) the bank at path and migrates it. Close closes
// the database.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*SQLite, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite store config: %w", err)
	}
	h, err := schema.Open(ctx, path, cfg.SQLite)
	if err != nil {
		return nil, err
	}
	s, err := (&SQLite{Handle: h, cfg: cfg}).opened(ctx)
	if err != nil {
		return nil, errors.Join(err, h.Close())
	}
	return s, nil
}

// NewSQLite uses db, opened with sqlitedb.Open and possibly shared with the host, and
// migrates the bank's tables. Close leaves db open.
func NewSQLite(ctx context.Context, db *sql.DB, cfg Config) (*SQLite, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sqlite store config: %w", err)
	}
	h, err := schema.Adopt(ctx, db)
	if err != nil {
		return nil, err
	}
	s, err := (&SQLite{Handle: h, cfg: cfg}).opened(ctx)
	if err != nil {
		return nil, errors.Join(err, h.Close())
	}
	return s, nil
}

func (s *SQLite) lock(user string) *sync.Mutex {
	mu, _ := s.locks.LoadOrStore(user, new(sync.Mutex))
	return mu.(*sync.Mutex)
}

// querier runs the bank's statements: prepared ones (sqlitedb.Q) on the database or in a
// transaction.
type querier = sqlitedb.Execer

// recordCols selects a record and, in the same statement (one snapshot), its links as
// a JSON array of [type, target] pairs.
const recordCols = `r.id, r.user, r.content, r.event_ns, r.source_pos, r.ingest_ns, r.status, r.retracted,
	r.slot, r.single_valued, r.valid_from_ns, r.valid_until_ns, r.confidence, r.source, r.host_id, r.meta,
	r.backbone, r.topic, r.logic,` + linkCol

// stateCols is recordCols without the embeddings, for reads that only check state (the
// commit check reads every touched record and version group; the blobs were most of
// what it read).
const stateCols = `r.id, r.user, r.content, r.event_ns, r.source_pos, r.ingest_ns, r.status, r.retracted,
	r.slot, r.single_valued, r.valid_from_ns, r.valid_until_ns, r.confidence, r.source, r.host_id, r.meta,
	NULL, NULL, NULL,` + linkCol

const linkCol = `
	(SELECT json_group_array(json_array(type, dst)) FROM
		(SELECT type, dst FROM links l WHERE l.user = r.user AND l.src = r.id ORDER BY type, dst))`

type scanner interface{ Scan(dest ...any) error }

func scanRecord(sc scanner, extra ...any) (Record, error) {
	var (
		r                            Record
		event, validFrom, validUntil sql.NullInt64
		ingest, retracted, single    int64
		status, meta, links          string
		backbone, topic, logic       []byte
	)
	dest := append([]any{&r.ID, &r.User, &r.Content, &event, &r.SourcePos, &ingest, &status, &retracted,
		&r.Slot, &single, &validFrom, &validUntil, &r.Confidence, &r.Source, &r.HostID, &meta,
		&backbone, &topic, &logic, &links}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return Record{}, err
	}
	r.EventTime = sqlitedb.NullToTime(event)
	r.IngestTime = time.Unix(0, ingest).UTC()
	r.ValidFrom = sqlitedb.NullToTime(validFrom)
	r.ValidUntil = sqlitedb.NullToTime(validUntil)
	r.Status = Status(status)
	r.Retracted = retracted != 0
	r.SingleValued = single != 0
	if err := json.Unmarshal([]byte(meta), &r.Meta); err != nil {
		return Record{}, fmt.Errorf("decode meta of %s: %w", r.ID, err)
	}
	var pairs [][2]string
	if err := json.Unmarshal([]byte(links), &pairs); err != nil {
		return Record{}, fmt.Errorf("decode links of %s: %w", r.ID, err)
	}
	for _, p := range pairs {
		r.Links = append(r.Links, Link{Type: LinkType(p[0]), To: p[1]})
	}
	var err error
	for _, v := range []struct {
		b   []byte
		dst *[]float32
	}{{backbone, &r.Embeddings.Backbone}, {topic, &r.Embeddings.Topic}, {logic, &r.Embeddings.Logic}} {
		if *v.dst, err = sqlitedb.DecodeVector(v.b); err != nil {
			return Record{}, fmt.Errorf("decode embedding of %s: %w", r.ID, err)
		}
	}
	return normalize(r), nil
}

func getRecord(ctx context.Context, q querier, cols, user, id string) (Record, error) {
	row := q.QueryRowContext(ctx, `SELECT `+cols+` FROM records r WHERE r.user = ? AND r.id = ?`, user, id)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Record{}, fmt.Errorf("get %s: %w", id, err)
	}
	return r, nil
}

func queryRecords(ctx context.Context, q querier, query string, args ...any) ([]Record, error) {
	return sqlitedb.Collect(ctx, q, func(rows *sql.Rows) (Record, error) { return scanRecord(rows) }, query, args...)
}

const versionOrder = `ORDER BY coalesce(r.event_ns, r.ingest_ns), r.source_pos, r.ingest_ns, r.id`

func versionGroup(ctx context.Context, q querier, cols, user, slot string) ([]Record, error) {
	if slot == "" {
		return nil, nil
	}
	g, err := queryRecords(ctx, q, `SELECT `+cols+` FROM records r WHERE r.user = ? AND r.slot = ? `+versionOrder, user, slot)
	if err != nil {
		return nil, fmt.Errorf("version group %q: %w", slot, err)
	}
	return g, nil
}

// Get implements Reader.
func (s *SQLite) Get(ctx context.Context, user, id string) (Record, error) {
	if err := ValidateUser(user); err != nil {
		return Record{}, fmt.Errorf("get: %w", err)
	}
	r, err := getRecord(ctx, s.Q(nil), recordCols, user, id)
	return r, s.noteDamage(err)
}

// GetMany implements Reader. It is one statement whatever the number of ids (they go in
// as a JSON array), a point lookup each; the order is restored here, since an ORDER BY
// would copy every row, embeddings included, through SQLite's sorter.
func (s *SQLite) GetMany(ctx context.Context, user string, ids []string) ([]Record, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("get many: %w", err)
	}
	pos := make(map[string]int, len(ids))
	uniq := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, ok := pos[id]; !ok {
			pos[id] = len(uniq)
			uniq = append(uniq, id)
		}
	}
	if len(uniq) == 0 {
		return nil, nil
	}
	arr, err := json.Marshal(uniq)
	if err != nil {
		return nil, fmt.Errorf("get many: %w", err)
	}
	rs, err := queryRecords(ctx, s.Q(nil), `SELECT `+recordCols+` FROM json_each(?) j
		CROSS JOIN records r ON r.user = ? AND r.id = j.value`, string(arr), user)
	if err != nil {
		return nil, s.noteDamage(fmt.Errorf("get many: %w", err))
	}
	slices.SortFunc(rs, func(a, b Record) int { return pos[a.ID] - pos[b.ID] })
	return rs, nil
}

// List implements Reader.
func (s *SQLite) List(ctx context.Context, user string, f Filter) ([]Record, string, error) {
	if err := ValidateUser(user); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	if err := f.validate(); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	limit, _ := f.limit()
	where := []string{"r.user = ?", "r.id > ?"}
	args := []any{user, f.Cursor}
	if f.Status != "" {
		where = append(where, "r.status = ?")
		args = append(args, string(f.Status))
	}
	if f.Slot != "" {
		where = append(where, "r.slot = ?")
		args = append(args, f.Slot)
	}
	args = append(args, limit+1)
	// With a slot, the slot's records come from the version index; left to itself,
	// SQLite walks every record of the user in id order (or of the status) to filter.
	from := "records r"
	if f.Slot != "" {
		from = "records r INDEXED BY records_version"
	}
	rs, err := queryRecords(ctx, s.Q(nil), `SELECT `+recordCols+` FROM `+from+` WHERE `+strings.Join(where, " AND ")+` ORDER BY r.id LIMIT ?`, args...)
	if err != nil {
		return nil, "", s.noteDamage(fmt.Errorf("list: %w", err))
	}
	next := ""
	if len(rs) > limit {
		rs = rs[:limit]
		next = rs[limit-1].ID
	}
	return rs, next, nil
}

// VersionGroup implements Reader.
func (s *SQLite) VersionGroup(ctx context.Context, user, slot string) ([]Record, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("version group: %w", err)
	}
	g, err := versionGroup(ctx, s.Q(nil), recordCols, user, slot)
	return g, s.noteDamage(err)
}

// Search implements Searcher. BM25 statistics (document count, average length) span
// every user of the database, since all share one FTS5 table; hits are the user's only.
// Whatever a user sees goes through the host's per-user index instead
// (Overlay.SearchText, the agent tools' lexical search).
func (s *SQLite) Search(ctx context.Context, user, query string, k int) ([]TextHit, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if k <= 0 {
		k = DefaultSearchK
	}
	terms, err := sqlitedb.PruneTerms(ctx, s.Q(nil), "records_fts_vocab", "SELECT count(*) FROM records", fts.Terms(query, fts.MaxQueryTerms))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	match := fts.MatchTerms(terms)
	if match == "" {
		return nil, nil
	}
	hits, err := sqlitedb.Collect(ctx, s.Q(nil), func(rows *sql.Rows) (h TextHit, err error) {
		h.Record, err = scanRecord(rows, &h.Score)
		return h, err
	}, `SELECT `+recordCols+`, -bm25(records_fts)
		FROM records_fts JOIN records r ON r.rid = records_fts.rowid
		WHERE records_fts MATCH ? AND r.user = ?
		ORDER BY bm25(records_fts), r.id LIMIT ?`, match, user, k)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// Users implements Admin.
func (s *SQLite) Users(ctx context.Context) ([]string, error) {
	users, err := sqlitedb.Strings(ctx, s.DB(), `SELECT DISTINCT user FROM records ORDER BY user`)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	return users, nil
}

// DeleteUser implements Admin.
func (s *SQLite) DeleteUser(ctx context.Context, user string) error {
	if err := ValidateUser(user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	mu := s.lock(user)
	mu.Lock()
	defer mu.Unlock()
	// Links go with their records (ON DELETE CASCADE), index entries with the triggers.
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM records WHERE user = ?`, user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	return nil
}

// Delete implements Admin.
func (s *SQLite) Delete(ctx context.Context, user, id string) error {
	return deleteAndReconcile(ctx, s, user, id)
}

// Tx implements Writer.
func (s *SQLite) Tx(ctx context.Context, user string, fn func(Tx) error) error {
	if err := ValidateUser(user); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	if err := s.Damaged(); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	mu := s.lock(user)
	mu.Lock()
	defer mu.Unlock()
	s.writer.Lock()
	defer s.writer.Unlock()
	// BEGIN IMMEDIATE (see sqlitedb): the write lock is held from here, so what fn
	// reads stays true until commit, also against other processes.
	stx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		return s.noteDamage(fmt.Errorf("tx: begin: %w", err))
	}
	committed := false
	defer func() {
		if !committed {
			// Runs on errors and on panics alike; the panic then goes on.
			_ = stx.Rollback()
		}
	}()
	tx := &sqlTx{q: s.Q(stx), raw: stx, user: user, now: s.cfg.now(), touched: newTouches()}
	if err := fn(tx); err != nil {
		return s.noteDamage(err)
	}
	tx.done = true
	if err := checkCommit(ctx, tx.view(), user, tx.touched); err != nil {
		return s.noteDamage(err)
	}
	if err := stx.Commit(); err != nil {
		return s.noteDamage(fmt.Errorf("tx: commit: %w", err))
	}
	committed = true
	return nil
}

// sqlTx is a Tx over an SQLite transaction.
type sqlTx struct {
	q       querier
	raw     *sql.Tx
	user    string
	now     time.Time
	touched touches
	done    bool
	// state: records are read without their embeddings (stateCols), and writes are
	// refused, since a Put would store a record without them.
	state bool
}

var _ Tx = (*sqlTx)(nil)

// SQLTx returns the database transaction under tx, a transaction of the SQLite store,
// so that a component sharing the store's database writes in the same transaction (the
// host memory: store.SQLite and host.SQLite on one sqlitedb.Open); ok is false for a
// transaction of another store, or outside the function given to Tx.
func SQLTx(tx Tx) (_ *sql.Tx, ok bool) {
	t, ok := tx.(*sqlTx)
	if !ok || t.done || t.state {
		return nil, false
	}
	return t.raw, true
}

// view is the read-only view the commit check reads through: state without embeddings.
func (t *sqlTx) view() Tx {
	return &sqlTx{q: t.q, user: t.user, now: t.now, touched: t.touched, state: true}
}

func (t *sqlTx) cols() string {
	if t.state {
		return stateCols
	}
	return recordCols
}

func (t *sqlTx) Now() time.Time { return t.now }

func (t *sqlTx) check() error {
	if t.done {
		return errors.New("transaction is finished")
	}
	return nil
}

// checkWrite is check for writes.
func (t *sqlTx) checkWrite() error {
	if t.state {
		return errors.New("write through the commit check's read-only view")
	}
	return t.check()
}

func (t *sqlTx) Get(ctx context.Context, id string) (Record, error) {
	if err := t.check(); err != nil {
		return Record{}, fmt.Errorf("get %s: %w", id, err)
	}
	return getRecord(ctx, t.q, t.cols(), t.user, id)
}

func (t *sqlTx) Put(ctx context.Context, r Record) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	// What preparePut and the commit check need of the record it replaces.
	var (
		old    = Record{ID: r.ID}
		ingest int64
	)
	err := t.q.QueryRowContext(ctx, `SELECT ingest_ns, slot FROM records WHERE user = ? AND id = ?`, t.user, r.ID).Scan(&ingest, &old.Slot)
	existed := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	old.IngestTime = time.Unix(0, ingest).UTC()
	r, err = preparePut(r, t.user, t.now, old, existed)
	if err != nil {
		return err
	}
	meta := []byte("{}")
	if len(r.Meta) > 0 {
		if meta, err = json.Marshal(r.Meta); err != nil {
			return fmt.Errorf("put %s: encode meta: %w", r.ID, err)
		}
	}
	_, err = t.q.ExecContext(ctx, `INSERT INTO records (user, id, content, event_ns, source_pos, ingest_ns, status, retracted,
			slot, single_valued, valid_from_ns, valid_until_ns, confidence, source, host_id, meta, backbone, topic, logic)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user, id) DO UPDATE SET
			content = excluded.content, event_ns = excluded.event_ns, source_pos = excluded.source_pos,
			ingest_ns = excluded.ingest_ns, status = excluded.status, retracted = excluded.retracted,
			slot = excluded.slot, single_valued = excluded.single_valued, valid_from_ns = excluded.valid_from_ns,
			valid_until_ns = excluded.valid_until_ns, confidence = excluded.confidence, source = excluded.source,
			host_id = excluded.host_id, meta = excluded.meta, backbone = excluded.backbone, topic = excluded.topic,
			logic = excluded.logic`,
		r.User, r.ID, r.Content, sqlitedb.TimeToNull(r.EventTime), r.SourcePos, r.IngestTime.UnixNano(), string(r.Status), boolInt(r.Retracted),
		r.Slot, boolInt(r.SingleValued), sqlitedb.TimeToNull(r.ValidFrom), sqlitedb.TimeToNull(r.ValidUntil), r.Confidence, r.Source, r.HostID, string(meta),
		sqlitedb.EncodeVector(r.Embeddings.Backbone), sqlitedb.EncodeVector(r.Embeddings.Topic), sqlitedb.EncodeVector(r.Embeddings.Logic))
	if err != nil {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	if existed {
		t.touched.record(old)
	}
	t.touched.record(r)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// endpoints returns the slots of from and to, ErrNotFound unless both exist.
func (t *sqlTx) endpoints(ctx context.Context, from, to string) (map[string]string, error) {
	// Two point lookups: SQLite plans "id IN (?, ?)" on the (user, …) version index and
	// scans the user's records, which made every link cost O(records).
	slots := map[string]string{}
	for _, id := range []string{from, to} {
		var slot string
		err := t.q.QueryRowContext(ctx, `SELECT slot FROM records WHERE user = ? AND id = ?`, t.user, id).Scan(&slot)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		if err != nil {
			return nil, err
		}
		slots[id] = slot
	}
	return slots, nil
}

func (t *sqlTx) touchSlots(slots map[string]string) {
	for id, slot := range slots {
		t.touched.record(Record{ID: id, Slot: slot})
	}
}

func (t *sqlTx) Link(ctx context.Context, from string, lt LinkType, to string) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
	}
	if err := validLink(from, lt, to); err != nil {
		return err
	}
	slots, err := t.endpoints(ctx, from, to)
	if err != nil {
		return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
	}
	if _, err := t.q.ExecContext(ctx, `INSERT OR IGNORE INTO links (user, src, type, dst) VALUES (?, ?, ?, ?), (?, ?, ?, ?)`,
		t.user, from, string(lt), to, t.user, to, string(lt.Reciprocal()), from); err != nil {
		return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
	}
	t.touchSlots(slots)
	return nil
}

func (t *sqlTx) Unlink(ctx context.Context, from string, lt LinkType, to string) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	if err := validLink(from, lt, to); err != nil {
		return err
	}
	slots, err := t.endpoints(ctx, from, to)
	if err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	res, err := t.q.ExecContext(ctx, `DELETE FROM links WHERE user = ? AND src = ? AND type = ? AND dst = ?`, t.user, from, string(lt), to)
	if err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, errors.Join(ErrNotFound, err))
	}
	if _, err := t.q.ExecContext(ctx, `DELETE FROM links WHERE user = ? AND src = ? AND type = ? AND dst = ?`, t.user, to, string(lt.Reciprocal()), from); err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	t.touchSlots(slots)
	return nil
}

func (t *sqlTx) SetStatus(ctx context.Context, id string, st Status) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	if !st.Valid() {
		return fmt.Errorf("set status %s: %w: unknown status %q", id, ErrInvalid, st)
	}
	var slot string
	err := t.q.QueryRowContext(ctx, `UPDATE records SET status = ? WHERE user = ? AND id = ? RETURNING slot`, string(st), t.user, id).Scan(&slot)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("set status %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	t.touched.record(Record{ID: id, Slot: slot})
	return nil
}

func (t *sqlTx) Delete(ctx context.Context, id string) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	r, err := getRecord(ctx, t.q, stateCols, t.user, id)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	neighbours, err := sqlitedb.Collect(ctx, t.q, func(rows *sql.Rows) (n Record, err error) {
		err = rows.Scan(&n.ID, &n.Slot)
		return n, err
	}, `SELECT DISTINCT r.id, r.slot FROM links l JOIN records r ON r.user = l.user AND r.id = l.dst
		WHERE l.user = ? AND l.src = ?`, t.user, id)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	// Links in both directions go with the record (ON DELETE CASCADE), the FTS entry
	// with the trigger.
	if _, err := t.q.ExecContext(ctx, `DELETE FROM records WHERE user = ? AND id = ?`, t.user, id); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	for _, n := range neighbours {
		t.touched.record(n)
	}
	if r.Slot != "" {
		t.touched.slots[r.Slot] = true
	}
	return nil
}

func (t *sqlTx) VersionGroup(ctx context.Context, slot string) ([]Record, error) {
	return versionGroup(ctx, t.q, t.cols(), t.user, slot)
}
