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
// carries an ingest's record, links and host memories, as on SQLite. database/sql's
// pool is the pool: Config.MaxConns connections (default 10), as many kept idle. pgx
// prepares and caches each statement per connection.
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
