package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNotFound: no such record (or user) in the namespace asked for.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the transaction would break an invariant (see ViolationError).
	ErrConflict = errors.New("conflict")
	// ErrInvalid: a malformed argument or record.
	ErrInvalid = errors.New("invalid")
	// ErrDamaged: the store's storage is damaged (an SQLite file that fails its integrity
	// check, or in which a statement found a malformed page); writes are refused so that
	// nothing more goes into it.
	ErrDamaged = errors.New("the bank is damaged")
	// ErrReadOnly: the bank's storage cannot be written (a read-only file, directory or
	// mount); nothing was written.
	ErrReadOnly = errors.New("the bank is read-only")
	// ErrDiskFull: the disk under the bank is full; nothing was written.
	ErrDiskFull = errors.New("the disk is full")
	// ErrBusy: the bank's write lock stayed taken (by another process) past the busy
	// timeout, PostgreSQL gave up a transaction (serialisation failure, deadlock), or
	// every connection of the PostgreSQL pool stayed in use past its acquire timeout;
	// nothing was written, a retry may succeed.
	ErrBusy = errors.New("the bank is busy")
	// ErrUnavailable: the bank's database server cannot be reached, or the connection
	// was lost (PostgreSQL); a transaction it interrupted committed nothing, a retry may
	// succeed once the database is back.
	ErrUnavailable = errors.New("the bank's database is unavailable")
)

// Reader reads one user's records.
type Reader interface {
	// Get returns the record with its links; ErrNotFound when the user has none with id.
	Get(ctx context.Context, user, id string) (Record, error)
	// GetMany returns the records among ids that user has, in the order of ids, each
	// once; ids it does not have are left out.
	GetMany(ctx context.Context, user string, ids []string) ([]Record, error)
	// List returns a page of records in id order and the cursor of the next page ("" at
	// the end).
	List(ctx context.Context, user string, f Filter) ([]Record, string, error)
	// VersionGroup returns the records of user with slot, oldest first (see SortVersions).
	VersionGroup(ctx context.Context, user, slot string) ([]Record, error)
}

// Writer changes one user's records, atomically.
type Writer interface {
	// Tx runs fn in one transaction on user's namespace. Writes of one user are
	// serialised. If fn returns an error or panics, or the result breaks an invariant
	// (a *ViolationError, which is ErrConflict), nothing is written; fn's error is
	// returned as it is and a panic is re-raised after the rollback.
	Tx(ctx context.Context, user string, fn func(Tx) error) error
}

// Admin removes data and lists namespaces.
type Admin interface {
	// Delete removes a record and its links (both directions), then reconciles the
	// statuses of its version group and linked records (deleting the newest version
	// makes the one before it current again).
	Delete(ctx context.Context, user, id string) error
	// DeleteUser removes every record of user; deleting an unknown user does nothing.
	DeleteUser(ctx context.Context, user string) error
	// Users lists the users that have records, sorted.
	Users(ctx context.Context) ([]string, error)
	// Integrity checks the storage itself (SQLite's quick_check, or integrity_check when
	// full; nothing on PostgreSQL, which checks its own pages) and returns what it found
	// wrong; nil when sound. Problems mark the store damaged.
	Integrity(ctx context.Context, full bool) ([]string, error)
	// Damaged returns the damage found so far — by Integrity (the SQLite store runs the
	// quick check when it opens) or by a statement that read a malformed page — as an
	// error that is ErrDamaged, or nil. A damaged store refuses every write with it.
	Damaged() error
}

// Store is the bank: every implementation (SQL on SQLite or PostgreSQL, Memory) is safe
// for concurrent use.
type Store interface {
	Reader
	Writer
	Admin
	Close() error
}

// Tx is one transaction on one user's namespace. Reads see the transaction's own
// writes. A Tx is valid only inside the function given to Store.Tx and not safe for
// concurrent use.
type Tx interface {
	// Now is the transaction's clock reading, used for every default time it fills.
	Now() time.Time
	Get(ctx context.Context, id string) (Record, error)
	// Put inserts or replaces a record (not its links). An empty User becomes the
	// transaction's user; another user is ErrInvalid. An empty Status becomes active; a
	// zero IngestTime becomes the existing record's, or Now.
	Put(ctx context.Context, r Record) error
	// Link adds from →t→ to and its reciprocal; both records must exist. Linking twice
	// does nothing.
	Link(ctx context.Context, from string, t LinkType, to string) error
	// Unlink removes from →t→ to and its reciprocal; ErrNotFound if the link is absent.
	Unlink(ctx context.Context, from string, t LinkType, to string) error
	SetStatus(ctx context.Context, id string, s Status) error
	// SetStatusUntil sets a record's status and the end of its validity (zero: none) and
	// leaves the rest as it is: one statement where Get and Put are three or four (the
	// reconciliation of a version group). ErrNotFound if the record is absent;
	// ErrInvalid for an unknown status or an end before the record's valid_from.
	SetStatusUntil(ctx context.Context, id string, s Status, until time.Time) error
	// SetSlot moves a record into the version group slot ("" for none), single-valued
	// or not; ErrNotFound if it is absent.
	SetSlot(ctx context.Context, id, slot string, single bool) error
	// Delete removes a record and every link to or from it.
	Delete(ctx context.Context, id string) error
	VersionGroup(ctx context.Context, slot string) ([]Record, error)
}

// Filter selects records for List. Zero fields match everything.
type Filter struct {
	Status Status
	// MayHold keeps the records that may hold now: active or unknown (a slot's current
	// members, in one read). Not with Status.
	MayHold bool
	Slot    string
	Limit   int    // 0 means DefaultListLimit; capped at MaxListLimit
	Cursor  string // from the previous page; "" for the first
	// Newest lists in descending id order, newest first; the cursor then pages towards
	// older records.
	Newest bool
}

// List limits.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

func (f Filter) limit() (int, error) {
	switch {
	case f.Limit < 0:
		return 0, fmt.Errorf("%w: limit %d is negative", ErrInvalid, f.Limit)
	case f.Limit == 0:
		return DefaultListLimit, nil
	case f.Limit > MaxListLimit:
		return MaxListLimit, nil
	}
	return f.Limit, nil
}

func (f Filter) validate() error {
	if f.Status != "" && !f.Status.Valid() {
		return fmt.Errorf("%w: filter status %q", ErrInvalid, f.Status)
	}
	if f.Status != "" && f.MayHold {
		return fmt.Errorf("%w: a filter of status %q and of the records that may hold now: give one", ErrInvalid, f.Status)
	}
	_, err := f.limit()
	return err
}

// TextHit is a record found by text and its BM25 score (higher is better). The store
// does not search text: the host memory does (overlay.Overlay.SearchText returns these).
type TextHit struct {
	Record Record
	Score  float64
}

// Config tunes a store. The zero value means defaults.
type Config struct {
	// Now is the clock for ingest times and Tx.Now; default time.Now.
	Now func() time.Time
	// SQLite configures the database OpenSQLite opens; unused by NewSQLite and Memory.
	SQLite sqlitedb.Config
	// Postgres configures the pool OpenPostgres opens; unused by NewPostgres and Memory.
	Postgres pgdb.Config
}

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if err := c.SQLite.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("sqlite: %w", err))
	}
	if err := c.Postgres.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("postgres: %w", err))
	}
	return errors.Join(errs...)
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return normTime(c.Now())
	}
	return normTime(time.Now())
}
