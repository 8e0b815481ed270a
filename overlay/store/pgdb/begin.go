package pgdb

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// beginConn is pgx's database/sql connection whose default transactions (read
// committed, read-write: every write transaction of the components) send BEGIN with
// their first statement rather than on their own. When that statement is LockUser's,
// which every write transaction runs first, BEGIN and the lock go to the server as one
// simple query: one round trip where pgx's BeginTx and the lock were two. Any other
// first statement is preceded by a plain BEGIN, as pgx's BeginTx would have sent it, so
// that nothing ever runs outside the transaction it was meant for. Transactions with
// options (the host's repeatable-read snapshots) begin as pgx begins them.
//
// Written here because neither database/sql nor pgx's stdlib can defer BEGIN (pgx's
// pipelines and batches are outside database/sql, which every component uses).
type beginConn struct {
	*stdlib.Conn
	ctx     context.Context // the transaction's (BeginTx's), for its COMMIT and ROLLBACK
	pending bool            // a transaction has begun and sent nothing yet
	open    bool            // a transaction of this connection is open (sent or pending)
}

// BeginTx implements driver.ConnBeginTx.
func (c *beginConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts != (driver.TxOptions{}) {
		return c.Conn.BeginTx(ctx, opts)
	}
	if c.Conn.Conn().IsClosed() {
		return nil, driver.ErrBadConn
	}
	c.ctx, c.pending, c.open = ctx, true, true
	return beginTx{c}, nil
}

// begin sends the pending BEGIN before query runs, in one statement with query when it
// is LockUser's.
func (c *beginConn) begin(ctx context.Context, query string, args []driver.NamedValue) (folded bool, err error) {
	if !c.pending {
		return false, nil
	}
	c.pending = false
	stmt := "begin"
	if lock, ok := lockLiteral(query, args); ok {
		stmt, folded = "begin; "+lock, true
	}
	if _, err := c.Conn.Conn().Exec(ctx, stmt); err != nil {
		return folded, err
	}
	return folded, nil
}

// ExecContext implements driver.ExecerContext.
func (c *beginConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	folded, err := c.begin(ctx, query, args)
	if err != nil || folded {
		return driver.RowsAffected(0), err
	}
	return c.Conn.ExecContext(ctx, query, args)
}

// QueryContext implements driver.QueryerContext.
func (c *beginConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if _, err := c.begin(ctx, "", nil); err != nil {
		return nil, err
	}
	return c.Conn.QueryContext(ctx, query, args)
}

// PrepareContext implements driver.ConnPrepareContext.
func (c *beginConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if _, err := c.begin(ctx, "", nil); err != nil {
		return nil, err
	}
	return c.Conn.PrepareContext(ctx, query)
}

// end closes the connection's transaction; sent says whether its BEGIN went to the
// server (so that COMMIT or ROLLBACK must), err that it was closed already.
func (c *beginConn) end() (sent bool, err error) {
	if !c.open {
		return false, pgx.ErrTxClosed
	}
	sent = !c.pending
	c.open, c.pending = false, false
	return sent, nil
}

// beginTx is a default transaction of a beginConn.
type beginTx struct{ c *beginConn }

// Commit implements driver.Tx as pgx's does: a COMMIT the server answers with ROLLBACK
// (the transaction had failed) is pgx.ErrTxCommitRollback.
func (t beginTx) Commit() error {
	c := t.c
	if sent, err := c.end(); !sent {
		return err // closed, or nothing was sent: nothing to commit
	}
	conn := c.Conn.Conn()
	tag, err := conn.Exec(c.ctx, "commit")
	if err != nil {
		if conn.PgConn().TxStatus() != 'I' {
			_ = conn.Close(c.ctx)
		}
		return err
	}
	if tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback implements driver.Tx as pgx's does: a connection whose ROLLBACK failed is in
// no known state and is closed (the pool then drops it).
func (t beginTx) Rollback() error {
	c := t.c
	if sent, err := c.end(); !sent {
		return err
	}
	conn := c.Conn.Conn()
	if _, err := conn.Exec(c.ctx, "rollback"); err != nil {
		_ = conn.Close(context.WithoutCancel(c.ctx))
		return err
	}
	return nil
}

// lockStatement is LockUser's statement as it reaches the driver (Rebind's form).
var lockStatement = Rebind(lockSQL)

// lockLiteral is LockUser's statement with its arguments written in (a simple query
// carries no parameters), when query and args are LockUser's.
func lockLiteral(query string, args []driver.NamedValue) (string, bool) {
	if query != lockStatement || len(args) != 2 {
		return "", false
	}
	ns, ok1 := args[0].Value.(int64) // LockUser passes the namespace as an int64
	user, ok2 := args[1].Value.(string)
	if !ok1 || !ok2 || strings.IndexByte(user, 0) >= 0 {
		return "", false
	}
	lit := "E'" + literalEscaper.Replace(user) + "'"
	return strings.Replace(strings.Replace(lockStatement, "$1", strconv.FormatInt(ns, 10), 1), "$2", lit, 1), true
}

// literalEscaper escapes text for an escape string literal (E'...'), which reads backslashes as escapes
// whatever standard_conforming_strings says: both backslashes and quotes.
var literalEscaper = strings.NewReplacer(`\`, `\\`, `'`, `''`)
