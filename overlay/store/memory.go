package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// Memory is the in-memory Store, for tests and ephemeral runs. It behaves as SQLite
// does (the same test suite runs against both). Safe for concurrent use.
type Memory struct {
	cfg   Config
	mu    sync.Mutex // guards users
	users map[string]*memUser
}

// memUser is one namespace. txMu serialises its transactions for their whole length;
// dataMu guards recs, which change only at commit.
type memUser struct {
	txMu   sync.Mutex
	dataMu sync.RWMutex
	recs   map[string]Record
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty in-memory store. cfg.SQLite is ignored.
func NewMemory(cfg Config) (*Memory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("memory store config: %w", err)
	}
	return &Memory{cfg: cfg, users: map[string]*memUser{}}, nil
}

// Close does nothing; a Memory holds no resources.
func (m *Memory) Close() error { return nil }

// space returns user's namespace, creating it when create is set (nil otherwise).
// Namespaces are never removed from the map, so a transaction waiting on txMu cannot end
// up writing into an orphan after DeleteUser.
func (m *Memory) space(user string, create bool) *memUser {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.users[user]
	if u == nil && create {
		u = &memUser{recs: map[string]Record{}}
		m.users[user] = u
	}
	return u
}

// Get implements Reader.
func (m *Memory) Get(ctx context.Context, user, id string) (Record, error) {
	if err := ValidateUser(user); err != nil {
		return Record{}, fmt.Errorf("get: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Record{}, fmt.Errorf("get %s: %w", id, err)
	}
	u := m.space(user, false)
	if u == nil {
		return Record{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	u.dataMu.RLock()
	defer u.dataMu.RUnlock()
	r, ok := u.recs[id]
	if !ok {
		return Record{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return r.Clone(), nil
}

// GetMany implements Reader.
func (m *Memory) GetMany(ctx context.Context, user string, ids []string) ([]Record, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("get many: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get many: %w", err)
	}
	u := m.space(user, false)
	if u == nil {
		return nil, nil
	}
	u.dataMu.RLock()
	defer u.dataMu.RUnlock()
	var out []Record
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if r, ok := u.recs[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, r.Clone())
		}
	}
	return out, nil
}

// List implements Reader.
func (m *Memory) List(ctx context.Context, user string, f Filter) ([]Record, string, error) {
	if err := ValidateUser(user); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	if err := f.validate(); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	limit, _ := f.limit()
	u := m.space(user, false)
	if u == nil {
		return nil, "", nil
	}
	u.dataMu.RLock()
	defer u.dataMu.RUnlock()
	var ids []string
	for id, r := range u.recs {
		after := id > f.Cursor
		if f.Newest {
			after = f.Cursor == "" || id < f.Cursor
		}
		if after && (f.Status == "" || r.Status == f.Status) && (!f.MayHold || r.Status == StatusActive || r.Status == StatusUnknown) && (f.Slot == "" || r.Slot == f.Slot) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if f.Newest {
		slices.Reverse(ids)
	}
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = ids[limit-1]
	}
	out := make([]Record, len(ids))
	for i, id := range ids {
		out[i] = u.recs[id].Clone()
	}
	return out, next, nil
}

// VersionGroup implements Reader.
func (m *Memory) VersionGroup(ctx context.Context, user, slot string) ([]Record, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("version group: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("version group %q: %w", slot, err)
	}
	u := m.space(user, false)
	if u == nil || slot == "" {
		return nil, nil
	}
	u.dataMu.RLock()
	defer u.dataMu.RUnlock()
	return groupOf(u.recs, nil, slot), nil
}

// groupOf collects slot's records from base overlaid with staged (nil = deleted).
func groupOf(base map[string]Record, staged map[string]*Record, slot string) []Record {
	var g []Record
	for id, r := range base {
		if _, ok := staged[id]; !ok && r.Slot == slot {
			g = append(g, r.Clone())
		}
	}
	for _, r := range staged {
		if r != nil && r.Slot == slot {
			g = append(g, r.Clone())
		}
	}
	SortVersions(g)
	return g
}

// Integrity implements Admin: memory has no storage to damage.
func (m *Memory) Integrity(ctx context.Context, _ bool) ([]string, error) { return nil, ctx.Err() }

// Damaged implements Admin: never.
func (m *Memory) Damaged() error { return nil }

// Users implements Admin.
func (m *Memory) Users(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	m.mu.Lock()
	spaces := make(map[string]*memUser, len(m.users))
	for name, u := range m.users {
		spaces[name] = u
	}
	m.mu.Unlock()
	var out []string
	for name, u := range spaces {
		u.dataMu.RLock()
		n := len(u.recs)
		u.dataMu.RUnlock()
		if n > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// DeleteUser implements Admin.
func (m *Memory) DeleteUser(ctx context.Context, user string) error {
	if err := ValidateUser(user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	u := m.space(user, false)
	if u == nil {
		return nil
	}
	u.txMu.Lock()
	defer u.txMu.Unlock()
	u.dataMu.Lock()
	defer u.dataMu.Unlock()
	u.recs = map[string]Record{}
	return nil
}

// Delete implements Admin.
func (m *Memory) Delete(ctx context.Context, user, id string) error {
	return deleteAndReconcile(ctx, m, user, id)
}

// Tx implements Writer.
func (m *Memory) Tx(ctx context.Context, user string, fn func(Tx) error) error {
	if err := ValidateUser(user); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	u := m.space(user, true)
	u.txMu.Lock()
	defer u.txMu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	tx := &memTx{u: u, user: user, now: m.cfg.now(), staged: map[string]*Record{}, touched: newTouches()}
	// Writes live in tx.staged until the commit below, so an error or a panic in fn
	// leaves u untouched.
	if err := fn(tx); err != nil {
		return err
	}
	tx.done = true
	if err := checkCommit(ctx, tx.view(), user, tx.touched); err != nil {
		return err
	}
	u.dataMu.Lock()
	defer u.dataMu.Unlock()
	for id, r := range tx.staged {
		if r == nil {
			delete(u.recs, id)
			continue
		}
		u.recs[id] = *r
	}
	return nil
}

// memTx stages writes over the namespace's committed records.
type memTx struct {
	u       *memUser
	user    string
	now     time.Time
	staged  map[string]*Record // nil = deleted
	touched touches
	done    bool // fn returned: only verifyCommit's reads may follow
}

var _ Tx = (*memTx)(nil)

// view is the transaction used for reading after fn returned.
func (t *memTx) view() Tx {
	return &memTx{u: t.u, user: t.user, now: t.now, staged: t.staged, touched: t.touched}
}

func (t *memTx) Now() time.Time { return t.now }

func (t *memTx) check(ctx context.Context) error {
	if t.done {
		return errors.New("transaction is finished")
	}
	return ctx.Err()
}

// load returns the current version of id (a copy the caller may change).
func (t *memTx) load(id string) (Record, bool) {
	if r, ok := t.staged[id]; ok {
		if r == nil {
			return Record{}, false
		}
		return r.Clone(), true
	}
	t.u.dataMu.RLock()
	defer t.u.dataMu.RUnlock()
	r, ok := t.u.recs[id]
	return r.Clone(), ok
}

func (t *memTx) stage(r Record) {
	r = normalize(r)
	t.staged[r.ID] = &r
	t.touched.record(r)
}

func (t *memTx) Get(ctx context.Context, id string) (Record, error) {
	if err := t.check(ctx); err != nil {
		return Record{}, fmt.Errorf("get %s: %w", id, err)
	}
	r, ok := t.load(id)
	if !ok {
		return Record{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return r, nil
}

func (t *memTx) Put(ctx context.Context, r Record) error {
	if err := t.check(ctx); err != nil {
		return fmt.Errorf("put %s: %w", r.ID, err)
	}
	old, existed := t.load(r.ID)
	r, err := preparePut(r, t.user, t.now, old, existed)
	if err != nil {
		return err
	}
	if existed {
		t.touched.record(old)
		r.Links = old.Links
	} else {
		r.Links = nil
	}
	t.stage(r.Clone())
	return nil
}

func (t *memTx) Link(ctx context.Context, from string, lt LinkType, to string) error {
	if err := t.check(ctx); err != nil {
		return fmt.Errorf("link %s %s %s: %w", from, lt, to, err)
	}
	if err := validLink(from, lt, to); err != nil {
		return err
	}
	a, okA := t.load(from)
	b, okB := t.load(to)
	if !okA || !okB {
		return fmt.Errorf("link %s %s %s: %w", from, lt, to, ErrNotFound)
	}
	if a.HasLink(lt, to) && b.HasLink(lt.Reciprocal(), from) {
		return nil
	}
	if !a.HasLink(lt, to) {
		a.Links = append(a.Links, Link{Type: lt, To: to})
	}
	if !b.HasLink(lt.Reciprocal(), from) {
		b.Links = append(b.Links, Link{Type: lt.Reciprocal(), To: from})
	}
	t.stage(a)
	t.stage(b)
	return nil
}

func (t *memTx) Unlink(ctx context.Context, from string, lt LinkType, to string) error {
	if err := t.check(ctx); err != nil {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, err)
	}
	if err := validLink(from, lt, to); err != nil {
		return err
	}
	a, okA := t.load(from)
	b, okB := t.load(to)
	if !okA || !okB || !a.HasLink(lt, to) {
		return fmt.Errorf("unlink %s %s %s: %w", from, lt, to, ErrNotFound)
	}
	a.Links = slices.DeleteFunc(a.Links, func(l Link) bool { return l == Link{Type: lt, To: to} })
	b.Links = slices.DeleteFunc(b.Links, func(l Link) bool { return l == Link{Type: lt.Reciprocal(), To: from} })
	t.stage(a)
	t.stage(b)
	return nil
}

func (t *memTx) SetStatus(ctx context.Context, id string, s Status) error {
	return t.setStatus(ctx, id, s, nil)
}

func (t *memTx) SetStatusUntil(ctx context.Context, id string, s Status, until time.Time) error {
	return t.setStatus(ctx, id, s, &until)
}

// setStatus sets id's status, and its end when until is not nil.
func (t *memTx) setStatus(ctx context.Context, id string, s Status, until *time.Time) error {
	if err := t.check(ctx); err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	if err := validStatusUntil(s, until); err != nil {
		return fmt.Errorf("set status %s: %w", id, err)
	}
	r, ok := t.load(id)
	if !ok {
		return fmt.Errorf("set status %s: %w", id, ErrNotFound)
	}
	r.Status = s
	if until != nil {
		if !until.IsZero() && !r.ValidFrom.IsZero() && until.Before(r.ValidFrom) {
			return fmt.Errorf("set status %s: %w: valid_until %v is before valid_from %v", id, ErrInvalid, *until, r.ValidFrom)
		}
		r.ValidUntil = normTime(*until)
	}
	t.stage(r)
	return nil
}

func (t *memTx) SetSlot(ctx context.Context, id, slot string, single bool) error {
	if err := t.check(ctx); err != nil {
		return fmt.Errorf("set slot %s: %w", id, err)
	}
	if err := validSlot(slot, single); err != nil {
		return fmt.Errorf("set slot %s: %w: %w", id, ErrInvalid, err)
	}
	r, ok := t.load(id)
	if !ok {
		return fmt.Errorf("set slot %s: %w", id, ErrNotFound)
	}
	t.touched.record(r) // the group it leaves
	r.Slot, r.SingleValued = slot, single
	t.stage(r)
	return nil
}

func (t *memTx) Delete(ctx context.Context, id string) error {
	if err := t.check(ctx); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	r, ok := t.load(id)
	if !ok {
		return fmt.Errorf("delete %s: %w", id, ErrNotFound)
	}
	for _, l := range r.Links {
		if n, ok := t.load(l.To); ok {
			n.Links = slices.DeleteFunc(n.Links, func(nl Link) bool { return nl.To == id })
			t.stage(n)
		}
	}
	t.staged[id] = nil
	if r.Slot != "" {
		t.touched.slots[r.Slot] = true
	}
	return nil
}

func (t *memTx) VersionGroup(ctx context.Context, slot string) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("version group %q: %w", slot, err)
	}
	if slot == "" {
		return nil, nil
	}
	t.u.dataMu.RLock()
	defer t.u.dataMu.RUnlock()
	return groupOf(t.u.recs, t.staged, slot), nil
}

// preparePut validates r for a Put by user at now, over the existing version old.
func preparePut(r Record, user string, now time.Time, old Record, existed bool) (Record, error) {
	if r.User == "" {
		r.User = user
	}
	if r.User != user {
		return Record{}, fmt.Errorf("put %s: %w: record of user %q in a transaction of user %q", r.ID, ErrInvalid, r.User, user)
	}
	if r.Status == "" {
		r.Status = StatusActive
	}
	if r.IngestTime.IsZero() {
		if existed {
			r.IngestTime = old.IngestTime
		} else {
			r.IngestTime = now
		}
	}
	if err := validate(r); err != nil {
		return Record{}, fmt.Errorf("put: %w", err)
	}
	return normalize(r), nil
}

func validLink(from string, t LinkType, to string) error {
	switch {
	case !t.Valid():
		return fmt.Errorf("link %s %s %s: %w: unknown link type", from, t, to, ErrInvalid)
	case from == to:
		return fmt.Errorf("link %s %s %s: %w: a record cannot link to itself", from, t, to, ErrInvalid)
	}
	return nil
}

// deleteAndReconcile removes id in one transaction and reconciles what it leaves: its
// version group and the records it linked to.
func deleteAndReconcile(ctx context.Context, s Writer, user, id string) error {
	err := s.Tx(ctx, user, func(tx Tx) error {
		r, err := tx.Get(ctx, id)
		if err != nil {
			return err
		}
		if err := tx.Delete(ctx, id); err != nil {
			return err
		}
		if r.Slot != "" {
			if err := Reconcile(ctx, tx, r.Slot); err != nil {
				return err
			}
		}
		for _, l := range r.Links {
			if err := ReconcileRecord(ctx, tx, l.To); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	return nil
}
