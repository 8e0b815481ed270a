package pgdb

import (
	"database/sql/driver"
	"testing"
)

// LockUser's statement and arguments, as database/sql hands them to the driver, are
// written into one simple query; any other statement is not.
func TestLockLiteral(t *testing.T) {
	args := []driver.NamedValue{{Ordinal: 1, Value: int64(lockNamespace)}, {Ordinal: 2, Value: `o'brien\x`}}
	got, ok := lockLiteral(lockStatement, args)
	want := `SELECT pg_advisory_xact_lock(1635020129, hashtext(current_schema() || '/' || E'o''brien\\x'))`
	if !ok || got != want {
		t.Errorf("lockLiteral = %q, %v; want %q", got, ok, want)
	}
	if _, ok := lockLiteral(`SELECT 1`, nil); ok {
		t.Error("another statement was taken for the lock")
	}
	if _, ok := lockLiteral(lockStatement, []driver.NamedValue{args[0], {Ordinal: 2, Value: "a\x00b"}}); ok {
		t.Error("a user with a NUL was written into a literal")
	}
}
