package store

import (
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

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// SQL is the Store on an SQL database: SQLite (OpenSQLite, NewSQLite) or PostgreSQL
// (OpenPostgres, NewPostgres). One implementation serves both; a dialect holds the few
// statements that differ, how a transaction claims its user, how errors read and how
// the storage is checked. Safe for concurrent use; other processes may share the
// database.
type SQL struct {
	db    *sql.DB
	q     func(*sql.Tx) querier // the component's statements, on db or in a transaction
	close func() error
	d     *dialect
	cfg   Config
	locks sync.Map // user → *sync.Mutex
	// writer lets one of the process's write transactions at a time take SQLite's write
	// lock, which admits one writer anyway: the others wait here, in order, instead of
	// spinning on the busy timeout (50 concurrent writers exceeded it and failed with
	// SQLITE_BUSY). Other processes still meet the busy timeout. Unused on PostgreSQL,
	// where different users' transactions run in parallel.
	writer sync.Mutex
	// damage is what made the store refuse writes (see Damaged); nil while sound.
	damage atomic.Pointer[damageError]
}

// dialect is what differs between the databases SQL runs on.
type dialect struct {
	// recordCols selects a record and, in the same statement (one snapshot), its links
	// as a JSON array of [type, target] pairs; stateCols is recordCols without the
	// embeddings, for reads that only check state (the commit check reads every touched
	// record and version group; the blobs were most of what it read).
	recordCols, stateCols string
	// getManyFrom is GetMany's FROM clause: the ids (a JSON array, the first argument)
	// joined to user's records (the second).
	getManyFrom string
	// slotFrom is List's FROM clause when it filters by slot.
	slotFrom string
	// oneWriter: the database admits one writer at a time (SQLite).
	oneWriter bool
	// withWrites: the database runs data-modifying WITH clauses (PostgreSQL), so that a
	// read and the write that depends on it are one statement.
	withWrites bool
	// claim runs first in every write transaction: PostgreSQL's per-user advisory lock,
	// which serialises the user's writers across processes (nil: BEGIN IMMEDIATE did it).
	claim func(ctx context.Context, q querier, user string) error
	// classify maps a database error onto the store's sentinels; damaged says the
	// storage is damaged.
	classify func(err error) (mapped error, damaged bool)
	// integrity checks the storage (Admin.Integrity).
	integrity func(ctx context.Context, db *sql.DB, full bool) ([]string, error)
}

// recordColumns returns recordCols and stateCols with links, the expression over the
// record r that gives its links as a JSON array of [type, target] pairs.
func recordColumns(links string) (record, state string) {
	const base = `r.id, r."user", r.content, r.event_ns, r.source_pos, r.ingest_ns, r.status, r.retracted,
	r.slot, r.single_valued, r.valid_from_ns, r.valid_until_ns, r.confidence, r.source, r.host_id, r.meta,`
	return base + `
	r.backbone, r.topic, r.logic,` + links, base + `
	NULL, NULL, NULL,` + links
}

// damageError is the store's ErrDamaged with what was found.
type damageError struct{ problems []string }

func (e *damageError) Error() string {
	return fmt.Sprintf("%v: SQLite reports %s; nothing more is written to it: restore the file from a backup (`atma overlay check` lists the damage; what can still be read stays readable)",
		ErrDamaged, strings.Join(e.problems, "; "))
}

func (e *damageError) Unwrap() error { return ErrDamaged }

var _ Store = (*SQL)(nil)

// newSQL wraps a migrated database and runs the quick integrity check of a store just
// opened: damage found makes the store refuse writes, it does not keep the bank from
// opening (check and show still read what they can). On failure it closes the handle.
func newSQL(ctx context.Context, db *sql.DB, q func(*sql.Tx) querier, closeFn func() error, d *dialect, cfg Config) (*SQL, error) {
	s := &SQL{db: db, q: q, close: closeFn, d: d, cfg: cfg}
	if _, err := s.Integrity(ctx, false); err != nil {
		return nil, errors.Join(err, closeFn())
	}
	return s, nil
}

// DB returns the database.
func (s *SQL) DB() *sql.DB { return s.db }

// Close releases the store's hold on the database, and closes it if the store opened
// it (OpenSQLite, OpenPostgres); a database given to NewSQLite or NewPostgres stays open.
func (s *SQL) Close() error { return s.close() }

// Damaged implements Admin.
func (s *SQL) Damaged() error {
	if d := s.damage.Load(); d != nil {
		return d
	}
	return nil
}

// Integrity implements Admin.
func (s *SQL) Integrity(ctx context.Context, full bool) ([]string, error) {
	problems, err := s.d.integrity(ctx, s.db, full)
	if err != nil {
		return nil, s.noteDamage(err)
	}
	if len(problems) > 0 {
		s.damage.CompareAndSwap(nil, &damageError{problems: problems})
	}
	return problems, nil
}

// noteDamage maps err onto the store's sentinels (ErrReadOnly, ErrDiskFull, ErrBusy,
// ErrUnavailable, …), and marks the store damaged when err says the storage is (as
// ErrDamaged then).
func (s *SQL) noteDamage(err error) error {
	if err == nil {
		return nil
	}
	mapped, damaged := s.d.classify(err)
	if !damaged {
		return mapped
	}
	s.damage.CompareAndSwap(nil, &damageError{problems: []string{err.Error()}})
	return fmt.Errorf("%w (%w)", s.Damaged(), err)
}

func (s *SQL) lock(user string) *sync.Mutex {
	mu, _ := s.locks.LoadOrStore(user, new(sync.Mutex))
	return mu.(*sync.Mutex)
}

// querier runs the bank's statements, on the database or in a transaction: SQLite's
// prepared ones (sqlitedb.Q), PostgreSQL's with their placeholders rewritten (pgdb.Q).
type querier = sqlitedb.Execer

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
	row := q.QueryRowContext(ctx, `SELECT `+cols+` FROM records r WHERE r."user" = ? AND r.id = ?`, user, id)
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
	g, err := queryRecords(ctx, q, `SELECT `+cols+` FROM records r WHERE r."user" = ? AND r.slot = ? `+versionOrder, user, slot)
	if err != nil {
		return nil, fmt.Errorf("version group %q: %w", slot, err)
	}
	return g, nil
}

// Get implements Reader.
func (s *SQL) Get(ctx context.Context, user, id string) (Record, error) {
	if err := ValidateUser(user); err != nil {
		return Record{}, fmt.Errorf("get: %w", err)
	}
	r, err := getRecord(ctx, s.q(nil), s.d.recordCols, user, id)
	return r, s.noteDamage(err)
}

// GetMany implements Reader. It is one statement whatever the number of ids (they go in
// as a JSON array), a point lookup each; the order is restored here, since an ORDER BY
// would copy every row, embeddings included, through SQLite's sorter.
func (s *SQL) GetMany(ctx context.Context, user string, ids []string) ([]Record, error) {
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
	rs, err := getMany(ctx, s.q(nil), s.d, s.d.recordCols, user, uniq)
	if err != nil {
		return nil, s.noteDamage(fmt.Errorf("get many: %w", err))
	}
	slices.SortFunc(rs, func(a, b Record) int { return pos[a.ID] - pos[b.ID] })
	return rs, nil
}

// getMany reads the records of distinct ids in one statement, in no particular order;
// missing ids are left out.
func getMany(ctx context.Context, q querier, d *dialect, cols, user string, ids []string) ([]Record, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	arr, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	return queryRecords(ctx, q, `SELECT `+cols+` FROM `+d.getManyFrom, string(arr), user)
}

// List implements Reader.
func (s *SQL) List(ctx context.Context, user string, f Filter) ([]Record, string, error) {
	if err := ValidateUser(user); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	if err := f.validate(); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	limit, _ := f.limit()
	where := []string{`r."user" = ?`}
	args := []any{user}
	order := "r.id"
	switch {
	case f.Newest && f.Cursor != "":
		where, args = append(where, "r.id < ?"), append(args, f.Cursor)
		order = "r.id DESC"
	case f.Newest:
		order = "r.id DESC"
	default:
		where, args = append(where, "r.id > ?"), append(args, f.Cursor)
	}
	if f.Status != "" {
		where = append(where, "r.status = ?")
		args = append(args, string(f.Status))
	}
	if f.MayHold {
		where = append(where, "r.status IN (?, ?)")
		args = append(args, string(StatusActive), string(StatusUnknown))
	}
	if f.Slot != "" {
		where = append(where, "r.slot = ?")
		args = append(args, f.Slot)
	}
	args = append(args, limit+1)
	from := "records r"
	if f.Slot != "" {
		from = s.d.slotFrom
	}
	rs, err := queryRecords(ctx, s.q(nil), `SELECT `+s.d.recordCols+` FROM `+from+` WHERE `+strings.Join(where, " AND ")+` ORDER BY `+order+` LIMIT ?`, args...)
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
func (s *SQL) VersionGroup(ctx context.Context, user, slot string) ([]Record, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("version group: %w", err)
	}
	g, err := versionGroup(ctx, s.q(nil), s.d.recordCols, user, slot)
	return g, s.noteDamage(err)
}

// Users implements Admin.
func (s *SQL) Users(ctx context.Context) ([]string, error) {
	users, err := sqlitedb.Strings(ctx, s.q(nil), `SELECT DISTINCT "user" FROM records ORDER BY "user"`)
	if err != nil {
		return nil, s.noteDamage(fmt.Errorf("users: %w", err))
	}
	return users, nil
}

// DeleteUser implements Admin.
func (s *SQL) DeleteUser(ctx context.Context, user string) error {
	if err := ValidateUser(user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	// Links go with their records (ON DELETE CASCADE).
	err := s.write(ctx, user, func(stx *sql.Tx) error {
		_, err := s.q(stx).ExecContext(ctx, `DELETE FROM records WHERE "user" = ?`, user)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	return nil
}

// Delete implements Admin.
func (s *SQL) Delete(ctx context.Context, user, id string) error {
	return deleteAndReconcile(ctx, s, user, id)
}

// Tx implements Writer.
func (s *SQL) Tx(ctx context.Context, user string, fn func(Tx) error) error {
	if err := ValidateUser(user); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	if err := s.Damaged(); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	return s.write(ctx, user, func(stx *sql.Tx) error {
		tx := &sqlTx{q: s.q(stx), raw: stx, db: s.db, d: s.d, user: user, now: s.cfg.now(), touched: newTouches()}
		if err := fn(tx); err != nil {
			return err
		}
		tx.done = true
		return checkCommit(ctx, tx.view(), user, tx.touched)
	})
}

// write runs fn in a write transaction on user's namespace and commits it when fn
// returns nil. The user's writers are serialised by a mutex in the process and, across
// processes, by the database: on SQLite the transaction takes the write lock when it
// begins (BEGIN IMMEDIATE, see sqlitedb), on PostgreSQL the user's advisory lock before
// fn runs (pgdb.LockUser). Either way what fn reads stays true until commit.
func (s *SQL) write(ctx context.Context, user string, fn func(*sql.Tx) error) error {
	mu := s.lock(user)
	mu.Lock()
	defer mu.Unlock()
	if s.d.oneWriter {
		s.writer.Lock()
		defer s.writer.Unlock()
	}
	stx, err := s.db.BeginTx(ctx, nil)
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
	if s.d.claim != nil {
		if err := s.d.claim(ctx, s.q(stx), user); err != nil {
			return s.noteDamage(fmt.Errorf("tx: %w", err))
		}
	}
	if err := fn(stx); err != nil {
		return s.noteDamage(err)
	}
	if err := stx.Commit(); err != nil {
		return s.noteDamage(fmt.Errorf("tx: commit: %w", err))
	}
	committed = true
	return nil
}

// sqlTx is a Tx over a database transaction.
type sqlTx struct {
	q       querier
	raw     *sql.Tx
	db      *sql.DB // the database raw runs on
	d       *dialect
	user    string
	now     time.Time
	touched touches
	done    bool
	// state: records are read without their embeddings (stateCols), and writes are
	// refused, since a Put would store a record without them.
	state bool
}

var _ Tx = (*sqlTx)(nil)

// SQLTx returns the database transaction under tx, a transaction of the SQL store, the
// database it runs on and the user whose namespace it writes (on PostgreSQL it holds
// that user's advisory lock, pgdb.LockUser), so that a component on the store's
// database writes in the same transaction (host.SQL.AddIn: the host memory beside the
// store on one database) and can check that it is its own database; ok is false for a
// transaction of another store, or outside the function given to Tx.
func SQLTx(tx Tx) (_ *sql.Tx, _ *sql.DB, user string, ok bool) {
	t, ok := tx.(*sqlTx)
	if !ok || t.done || t.state {
		return nil, nil, "", false
	}
	return t.raw, t.db, t.user, true
}

// view is the read-only view the commit check reads through: state without embeddings.
func (t *sqlTx) view() Tx {
	return &sqlTx{q: t.q, d: t.d, user: t.user, now: t.now, touched: t.touched, state: true}
}

func (t *sqlTx) cols() string {
	if t.state {
		return t.d.stateCols
	}
	return t.d.recordCols
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

// getMany reads the records of distinct ids in one statement (prefetcher: the commit
// check reads what a transaction touched, and their links' targets, a batch at a time).
func (t *sqlTx) getMany(ctx context.Context, ids []string) ([]Record, error) {
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("get many: %w", err)
	}
	rs, err := getMany(ctx, t.q, t.d, t.cols(), t.user, ids)
	if err != nil {
		return nil, fmt.Errorf("get many: %w", err)
	}
	return rs, nil
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
	// Most records put are new (an ingest's record and its transition records): one
	// insert that writes nothing when the id is taken, and only then the read of the
	// record it replaces, what preparePut and the commit check need of it, and the
	// upsert. A new record costs one statement (a round trip on PostgreSQL), not two.
	rec, err := preparePut(r, t.user, t.now, Record{ID: r.ID}, false)
	if err != nil {
		return err
	}
	added, err := t.putRow(ctx, rec, false)
	if err != nil {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	if added {
		t.touched.inserted(rec)
		return nil
	}
	old := Record{ID: r.ID}
	var ingest int64
	if err := t.q.QueryRowContext(ctx, `SELECT ingest_ns, slot FROM records WHERE "user" = ? AND id = ?`, t.user, r.ID).Scan(&ingest, &old.Slot); err != nil {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	old.IngestTime = time.Unix(0, ingest).UTC()
	if rec, err = preparePut(r, t.user, t.now, old, true); err != nil {
		return err
	}
	if _, err := t.putRow(ctx, rec, true); err != nil {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	t.touched.record(old)
	t.touched.record(rec)
	return nil
}

// putRow writes r's row: inserted when its id is free (added), else replaced when
// replace is set, else left as it is.
func (t *sqlTx) putRow(ctx context.Context, r Record, replace bool) (added bool, err error) {
	meta := []byte("{}")
	if len(r.Meta) > 0 {
		if meta, err = json.Marshal(r.Meta); err != nil {
			return false, fmt.Errorf("encode meta: %w", err)
		}
	}
	conflict := `ON CONFLICT ("user", id) DO NOTHING`
	if replace {
		conflict = `ON CONFLICT ("user", id) DO UPDATE SET
			content = excluded.content, event_ns = excluded.event_ns, source_pos = excluded.source_pos,
			ingest_ns = excluded.ingest_ns, status = excluded.status, retracted = excluded.retracted,
			slot = excluded.slot, single_valued = excluded.single_valued, valid_from_ns = excluded.valid_from_ns,
			valid_until_ns = excluded.valid_until_ns, confidence = excluded.confidence, source = excluded.source,
			host_id = excluded.host_id, meta = excluded.meta, backbone = excluded.backbone, topic = excluded.topic,
			logic = excluded.logic`
	}
	res, err := t.q.ExecContext(ctx, `INSERT INTO records ("user", id, content, event_ns, source_pos, ingest_ns, status, retracted,
			slot, single_valued, valid_from_ns, valid_until_ns, confidence, source, host_id, meta, backbone, topic, logic)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		`+conflict,
		r.User, r.ID, r.Content, sqlitedb.TimeToNull(r.EventTime), r.SourcePos, r.IngestTime.UnixNano(), string(r.Status), boolInt(r.Retracted),
		r.Slot, boolInt(r.SingleValued), sqlitedb.TimeToNull(r.ValidFrom), sqlitedb.TimeToNull(r.ValidUntil), r.Confidence, r.Source, r.HostID, string(meta),
		sqlitedb.EncodeVector(r.Embeddings.Backbone), sqlitedb.EncodeVector(r.Embeddings.Topic), sqlitedb.EncodeVector(r.Embeddings.Logic))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// endpointsSQL reads the (id, slot) of two records, "user" and id bound for each: two
// point lookups in one statement (one round trip on PostgreSQL). SQLite plans "id IN
// (?, ?)" on the (user, …) version index and scans the user's records, which made every
// link cost O(records).
const endpointsSQL = `SELECT id, slot FROM records WHERE "user" = ? AND id = ?
		UNION ALL SELECT id, slot FROM records WHERE "user" = ? AND id = ?`

// endpoints returns the slots of from and to, ErrNotFound unless both exist.
func (t *sqlTx) endpoints(ctx context.Context, from, to string) (map[string]string, error) {
	rows, err := t.q.QueryContext(ctx, endpointsSQL, t.user, from, t.user, to)
	if err != nil {
		return nil, err
	}
	return scanEndpoints(rows, from, to)
}

// scanEndpoints reads rows of (id, slot) into the slots of from and to, ErrNotFound
// unless both are there, and closes rows.
func scanEndpoints(rows *sql.Rows, from, to string) (map[string]string, error) {
	defer rows.Close()
	slots := map[string]string{}
	for rows.Next() {
		var id, slot string
		if err := rows.Scan(&id, &slot); err != nil {
			return nil, err
		}
		slots[id] = slot
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if _, ok := slots[from]; !ok {
		return nil, ErrNotFound
	}
	if _, ok := slots[to]; !ok {
		return nil, ErrNotFound
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
	args := []any{t.user, from, string(lt), to, t.user, to, string(lt.Reciprocal()), from}
	var slots map[string]string
	if t.d.withWrites {
		// One round trip: the endpoints read, and the links written when both exist.
		rows, err := t.q.QueryContext(ctx, `WITH e AS (`+endpointsSQL+`),
			l AS (INSERT INTO links ("user", src, type, dst)
				SELECT v.u, v.s, v.t, v.d FROM (VALUES (CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS text)),
					(CAST(? AS text), CAST(? AS text), CAST(? AS text), CAST(? AS text))) AS v(u, s, t, d)
				WHERE (SELECT count(*) FROM e) = 2
				ON CONFLICT DO NOTHING)
			SELECT id, slot FROM e`, append([]any{t.user, from, t.user, to}, args...)...)
		if err == nil {
			slots, err = scanEndpoints(rows, from, to)
		}
		if err != nil {
			return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
		}
	} else {
		var err error
		if slots, err = t.endpoints(ctx, from, to); err != nil {
			return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
		}
		if _, err := t.q.ExecContext(ctx, `INSERT INTO links ("user", src, type, dst) VALUES (?, ?, ?, ?), (?, ?, ?, ?) ON CONFLICT DO NOTHING`, args...); err != nil {
			return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
		}
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
	res, err := t.q.ExecContext(ctx, `DELETE FROM links WHERE "user" = ? AND src = ? AND type = ? AND dst = ?`, t.user, from, string(lt), to)
	if err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, errors.Join(ErrNotFound, err))
	}
	if _, err := t.q.ExecContext(ctx, `DELETE FROM links WHERE "user" = ? AND src = ? AND type = ? AND dst = ?`, t.user, to, string(lt.Reciprocal()), from); err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	t.touchSlots(slots)
	return nil
}

func (t *sqlTx) SetStatus(ctx context.Context, id string, st Status) error {
	return t.setStatus(ctx, id, st, nil)
}

func (t *sqlTx) SetStatusUntil(ctx context.Context, id string, st Status, until time.Time) error {
	return t.setStatus(ctx, id, st, &until)
}

// setStatus sets id's status, and its end when until is not nil: one statement. The end
// is checked against valid_from in the statement: a row it would break is left as it
// is, and only then read again, to tell an invalid end from a missing id.
func (t *sqlTx) setStatus(ctx context.Context, id string, st Status, until *time.Time) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	if err := validStatusUntil(st, until); err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	var slot string
	var err error
	if until == nil {
		err = t.q.QueryRowContext(ctx, `UPDATE records SET status = ? WHERE "user" = ? AND id = ? RETURNING slot`, string(st), t.user, id).Scan(&slot)
	} else {
		end := sqlitedb.TimeToNull(*until)
		err = t.q.QueryRowContext(ctx, `UPDATE records SET status = ?, valid_until_ns = ?
			WHERE "user" = ? AND id = ? AND (CAST(? AS BIGINT) IS NULL OR valid_from_ns IS NULL OR valid_from_ns <= ?)
			RETURNING slot`, string(st), end, t.user, id, end, end).Scan(&slot)
	}
	if errors.Is(err, sql.ErrNoRows) && until != nil {
		var from sql.NullInt64
		switch err := t.q.QueryRowContext(ctx, `SELECT valid_from_ns FROM records WHERE "user" = ? AND id = ?`, t.user, id).Scan(&from); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("set status %s: %w", id, err)
		default:
			return fmt.Errorf("set status %s: %w: valid_until %v is before valid_from %v", id, ErrInvalid, *until, sqlitedb.NullToTime(from))
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("set status %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	t.touched.record(Record{ID: id, Slot: slot})
	return nil
}

func (t *sqlTx) SetSlot(ctx context.Context, id, slot string, single bool) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("set slot %s: %w", id, err)
	}
	if err := validSlot(slot, single); err != nil {
		return fmt.Errorf("set slot %s: %w: %w", id, ErrInvalid, err)
	}
	const update = `UPDATE records SET slot = ?, single_valued = ? WHERE "user" = ? AND id = ?`
	var old string
	var err error
	if t.d.withWrites {
		// One round trip: the update returns the slot it replaced.
		err = t.q.QueryRowContext(ctx, `WITH o AS (SELECT slot FROM records WHERE "user" = ? AND id = ?),
			u AS (`+update+` RETURNING 1)
			SELECT o.slot FROM o CROSS JOIN u`, t.user, id, slot, boolInt(single), t.user, id).Scan(&old)
	} else if err = t.q.QueryRowContext(ctx, `SELECT slot FROM records WHERE "user" = ? AND id = ?`, t.user, id).Scan(&old); err == nil {
		_, err = t.q.ExecContext(ctx, update, slot, boolInt(single), t.user, id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("set slot %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set slot %s: %w", id, err)
	}
	t.touched.record(Record{ID: id, Slot: old})
	t.touched.record(Record{ID: id, Slot: slot})
	return nil
}

func (t *sqlTx) Delete(ctx context.Context, id string) error {
	if err := t.checkWrite(); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	r, err := getRecord(ctx, t.q, t.d.stateCols, t.user, id)
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	neighbours, err := sqlitedb.Collect(ctx, t.q, func(rows *sql.Rows) (n Record, err error) {
		err = rows.Scan(&n.ID, &n.Slot)
		return n, err
	}, `SELECT DISTINCT r.id, r.slot FROM links l JOIN records r ON r."user" = l."user" AND r.id = l.dst
		WHERE l."user" = ? AND l.src = ?`, t.user, id)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	// Links in both directions go with the record (ON DELETE CASCADE).
	if _, err := t.q.ExecContext(ctx, `DELETE FROM records WHERE "user" = ? AND id = ?`, t.user, id); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	for _, n := range neighbours {
		t.touched.record(n)
	}
	if r.Slot != "" {
		t.touched.slots[r.Slot] = true
	}
	t.touched.deleted(id)
	return nil
}

func (t *sqlTx) VersionGroup(ctx context.Context, slot string) ([]Record, error) {
	return versionGroup(ctx, t.q, t.cols(), t.user, slot)
}
