// Package store is the overlay bank's storage layer: records, typed links, the
// invariants that keep a user's state correct, and their persistence.
//
// # Records
//
// A Record belongs to exactly one user namespace and holds a content string, its event
// time (or, when unknown, its ingest time) and source position, a Status (active,
// superseded, transition, unknown), typed Links, the Slot it is a value of and whether
// that slot is single-valued, ValidFrom/ValidUntil, a confidence, source and host
// metadata, and its embeddings (backbone vector, topic and logic projections) stored as
// little-endian float32 blobs.
//
// Links are stored in both directions: supersedes ↔ superseded_by, evolves_from ↔
// evolves_to, scoped_exception ↔ scoped_exception, coexists_with ↔ coexists_with. They
// change only through Tx.Link and Tx.Unlink, which write both; Put ignores Record.Links.
//
// # Invariants
//
// Check verifies, for one user:
//
//   - a single-valued slot never has two active records unless they are joined by
//     coexists_with (or scoped_exception) links;
//   - every link has its reciprocal, and never points outside the user's namespace;
//   - a superseded record stays retrievable and has ValidUntil; a record that is
//     superseded_by another is superseded;
//   - a transition points at both states (evolves_from the old, evolves_to the new);
//   - every status is the one DeriveStatuses gives for its version group.
//
// The stores enforce the same rules on every commit: Tx checks the records it touched
// and the version groups of their slots, and refuses a commit that would break one with
// a *ViolationError (ErrConflict), writing nothing. Check therefore finds only damage
// done around the store; it is what `atma overlay check` runs.
//
// # Version groups
//
// The records of one user and slot form a version group, ordered by time (TEM):
// VersionGroup returns it oldest first (CompareVersions: event time, else ingest time;
// then source position, ingest time, id). DeriveStatuses says what each member's status
// must be: in a single-valued slot the newest version that is not retracted (nor a
// transition, nor unknown) is active, with whatever coexists with it or is a scoped
// exception to it, and the others are superseded. Since commits are checked against it,
// a retrieval that missed the newest version can never make an older one look current:
// the commit is refused, and Reconcile settles the group by time instead (statuses,
// ValidUntil, supersedes links). Evolve writes a transition record's links. Which
// records replace which is not decided here: the overlay's commit planner decides it
// and writes links, slot moves and transition records, then Reconcile.
//
// # Transactions and concurrency
//
// Store.Tx runs a function on one user's namespace in one transaction: a supersession
// (old → superseded with ValidUntil, new → active, reciprocal links) commits whole or not
// at all. An error returned by the function, a panic (re-raised after the rollback), a
// cancelled context, a lost database connection or a refused commit all leave the bank
// as it was. Writes of one user are serialised by a per-user mutex in the process and,
// across processes, by the database: in SQLite by transactions that take the write lock
// when they begin (BEGIN IMMEDIATE), in PostgreSQL by a transaction-scoped advisory lock
// on the user (pgdb.LockUser) taken before the transaction reads anything. So
// read-modify-write cycles never lose a write, whichever process — replica — writes.
// Different users' transactions in Memory and PostgreSQL run in parallel; SQLite has
// one writer at a time.
//
// No call for one user reads or changes another's records: every query is keyed by
// user, and in both databases the links' composite foreign keys (user, id) make a link
// across users impossible in the schema itself.
//
// # Implementations
//
// SQL is the persistent store, on SQLite (OpenSQLite, or NewSQLite on a shared database:
// the embedded default) or on PostgreSQL (OpenPostgres, NewPostgres: a bank that several
// processes share). One implementation serves both: the SQL is written once, and a
// dialect holds what differs (the JSON of a record's links, GetMany's id list, how a
// transaction claims its user, error kinds, integrity checks). Memory (NewMemory) keeps
// everything in maps, for tests. All three pass one conformance suite
// (package storetest; PostgreSQL's run in `make test` on a throw-away server). The store
// takes a file path or a URL; the data directory (~/.local/share/atma by default) or
// the URL (--store, $ATMA_DATABASE_URL) is the CLI's decision.
//
// On PostgreSQL (package pgdb) the tables are those of SQLite, text keys in the "C"
// collation (ids sort by their bytes, as in SQLite and Go), vectors as bytea. Errors of
// the connection (refused, lost mid-transaction, the server shutting down) are
// ErrUnavailable, a serialisation failure or deadlock ErrBusy, as is a pool whose every
// connection stayed in use past its acquire timeout (PostgresError, which the
// host memory, the traces and the API keys on the same database map theirs with too); a
// transaction they interrupt committed nothing. Integrity has nothing to check there
// (PostgreSQL checks its own pages; run amcheck or pg_checksums for more), and Damaged
// is always nil.
//
// The SQLite driver is modernc.org/sqlite, a pure-Go translation of SQLite: no cgo, so
// the overlay's packages build and cross-compile without a C toolchain (CGO_ENABLED=0,
// which make lint checks; the Sentry gate they use, package sentry/gate, is pure Go
// too), and FTS5 is compiled in (the first migrations create an FTS5 index, which
// migration 3 drops). mattn/go-sqlite3 would need cgo and an fts5 build tag. The atma
// binary itself needs cgo for ONNX Runtime and NVML (packages onnx and gpu), which embed
// texts and probe GPUs. Package sqlitedb opens the database (WAL, foreign keys, busy
// timeout, immediate transactions) and runs the numbered migrations embedded from
// migrations/*.sql, recorded in schema_migrations.
//
// # Text search
//
// The store does not search text. Records are found through the host memory (package
// overlay/host), which ranks its memories by dense similarity and BM25 over each user's
// own index; the overlay then reads the hits' records from the store (the seeds of the
// commit and query paths, Overlay.SearchText). The bank's FTS5 index over the records'
// content, which nothing queried, is gone since migration 3 (0003_drop_records_fts.sql).
package store
