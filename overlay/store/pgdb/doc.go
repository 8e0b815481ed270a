// Package pgdb opens and migrates the overlay's PostgreSQL database: the store, the host
// memory, the traces and the API keys of a bank that several `atma overlay serve`
// processes share.
//
// It is the PostgreSQL counterpart of package sqlitedb, and shares what does not depend
// on the engine with it: migrations are files NNNN_name.sql loaded by
// sqlitedb.LoadMigrations and checked by sqlitedb.Pending (a database migrated by a
// newer program is refused), recorded in the same schema_migrations table keyed by
// component; vectors are sqlitedb.EncodeVector's little-endian float32 bytes, stored as
// bytea; times are Unix nanoseconds in bigint columns. The components write their SQL
// once, with ? placeholders and the column "user" quoted (a reserved word in
// PostgreSQL); Q rewrites the placeholders to $1, $2, … for PostgreSQL.
//
// # Driver and pool
//
// The driver is github.com/jackc/pgx/v5 through its database/sql adapter (stdlib), so
// the store and the host run the same code paths on both engines, and one *sql.Tx
// carries an ingest's record, links and host memories, as on SQLite. The pool is
// pgxpool's: Config.MaxConns connections (or the URL's pool_max_conns; default 10), idle
// ones closed after 5 minutes; database/sql keeps none of its own, so that every wait for
// a connection is the pool's. pgx prepares and caches each statement per connection.
//
// database/sql's own pool would wait for a free connection as long as the caller's
// context lasts, and an API add's context has no deadline (a write the server accepted
// runs to its end). So Open's connector bounds the wait: a statement or transaction that
// finds every connection in use for Config.AcquireTimeout (or the URL's
// pool_acquire_timeout; default 5 s) fails with ErrPoolExhausted, having run nothing,
// which package store maps onto its ErrBusy (the API's 503 with Retry-After). A caller
// whose own deadline comes first gets its context's error. Stats reports the pool's
// connections, its waits and the acquires given up, for metrics.
//
// # Several processes
//
// Writes of one user are serialised across processes by LockUser: a transaction
// takes pg_advisory_xact_lock on a key derived from the schema and the user before it
// reads anything, and holds it until it commits or rolls back. Different users' writes
// run in parallel. Migrate takes an advisory lock too, so replicas that start together
// apply each migration once.
//
// # Errors
//
// IsUnavailable tells a database that cannot be reached or went away (connection
// refused or lost, the server shutting down or refusing connections) from errors of
// the statement itself; IsBusy a serialisation failure or deadlock, IsFull a full disk,
// IsReadOnly a standby or read-only transaction, IsBadText text PostgreSQL cannot hold
// (a NUL character). Package store maps them onto its sentinels. Redact removes the
// password from a URL before it goes into an error or a log line.
package pgdb
