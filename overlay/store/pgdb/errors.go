package pgdb

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// IsUnavailable reports an error by which the database could not be reached or went
// away: a connection refused, timed out or lost (also in the middle of a transaction,
// whose writes PostgreSQL then discards), the server shutting down, starting up or out
// of connection slots. A retry may succeed once the database is back.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch code := pgCode(err); {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case strings.HasPrefix(code, "08"), // connection exception
		code == "57P01", code == "57P02", code == "57P03", // admin or crash shutdown, cannot connect now
		code == "53300": // too many connections
		return true
	case code != "":
		return false
	case errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}

// IsBusy reports a serialisation failure or a deadlock: nothing was written, a retry
// may succeed.
func IsBusy(err error) bool {
	code := pgCode(err)
	return code == "40001" || code == "40P01" || code == "55P03" // lock not available
}

// IsFull reports a full disk or exhausted memory on the server (class 53 but too many
// connections).
func IsFull(err error) bool {
	code := pgCode(err)
	return code == "53100" || code == "53200"
}

// IsReadOnly reports a write refused because the database or transaction is read-only
// (a hot standby).
func IsReadOnly(err error) bool { return pgCode(err) == "25006" }

// IsBadText reports text PostgreSQL cannot store: a NUL character, or a byte sequence
// invalid in the database's encoding.
func IsBadText(err error) bool {
	code := pgCode(err)
	return code == "22021" || code == "22P05"
}
