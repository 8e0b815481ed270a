package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// maxProblems bounds the problems an integrity check reports.
const maxProblems = 20

// Integrity runs SQLite's own check of the database file — PRAGMA quick_check, or
// integrity_check when full (which also compares every index with its table; both read
// the whole file) — and returns the problems it lists, at most 20; nil when the file is
// sound. A file too damaged to be checked is a problem too, not an error: errors are a
// cancelled context or a closed database.
func Integrity(ctx context.Context, db *sql.DB, full bool) ([]string, error) {
	pragma := "PRAGMA quick_check(" + fmt.Sprint(maxProblems) + ")"
	if full {
		pragma = "PRAGMA integrity_check(" + fmt.Sprint(maxProblems) + ")"
	}
	rows, err := Strings(ctx, db, pragma)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && IsDamaged(err):
		return []string{err.Error()}, nil
	case err != nil:
		return nil, fmt.Errorf("integrity check: %w", err)
	case len(rows) == 1 && strings.EqualFold(rows[0], "ok"):
		return nil, nil
	}
	return rows, nil
}

// IsDamaged reports an error by which SQLite says the file is damaged:
// SQLITE_CORRUPT ("database disk image is malformed") or SQLITE_NOTADB.
func IsDamaged(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// IsReadOnly reports an error by which SQLite says it cannot write the file:
// SQLITE_READONLY (a read-only file or directory, a read-only mount).
func IsReadOnly(err error) bool { return hasCode(err, sqlite3.SQLITE_READONLY) }

// IsFull reports an error by which SQLite says the disk (or its quota) is full:
// SQLITE_FULL.
func IsFull(err error) bool { return hasCode(err, sqlite3.SQLITE_FULL) }

func hasCode(err error, code int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == code
}

// IsBusy reports an error by which SQLite says another connection held a lock past the
// busy timeout: SQLITE_BUSY.
func IsBusy(err error) bool { return hasCode(err, sqlite3.SQLITE_BUSY) }
