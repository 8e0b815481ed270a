// Package sqlitedb opens, migrates and encodes for the overlay's SQLite database.
//
// The overlay bank (package overlay/store) and the built-in host memory (package
// overlay/host) live in one SQLite file, in separate tables. Open returns a *sql.DB with
// the settings both need; each package then brings its own tables up to date with
// Migrate, which records applied migrations in a shared schema_migrations table keyed by
// component ("store", "host"), so the two schemas evolve independently.
//
// A component describes its tables as a Schema (its name and embedded migration files).
// Schema.Open opens a database of its own and migrates it; Schema.Adopt migrates a
// database opened by someone else, possibly shared with the other component. Either
// returns a Handle, whose Close closes the database only when the component opened it.
//
// # Driver
//
// The driver is modernc.org/sqlite: SQLite translated to pure Go. It needs no cgo, so the
// atma binary cross-compiles and builds in CI without a C toolchain, and it ships FTS5
// compiled in, which the first migrations of the bank and the host memory still create
// (later ones drop those indexes) and against which package fts checks its BM25.
// mattn/go-sqlite3 is faster on some workloads but needs cgo (and a build tag for FTS5).
//
// The driver compiles a statement on every call that is not prepared, which was about a
// quarter of an overlay ingest's SQLite time; each component's Handle therefore runs its
// statements through Stmts, a small LRU cache of prepared statements
// (hashicorp/golang-lru), on the database or in a transaction (Handle.Q).
//
// # Settings
//
// Every connection runs with journal_mode=WAL (readers never block the writer),
// foreign_keys=ON (links cannot outlive records, nor point at another user's record),
// synchronous=NORMAL (durable at checkpoints, safe against corruption under WAL),
// busy_timeout (Config.BusyTimeout, default 5 s: a writer waits for another process's
// write instead of failing) and BEGIN IMMEDIATE transactions: a transaction takes the write
// lock when it begins, so a read-modify-write inside it can never be invalidated by
// another writer (deferred transactions would fail with SQLITE_BUSY on upgrade).
//
// # Vectors
//
// EncodeVector and DecodeVector store []float32 as little-endian IEEE 754 blobs, four
// bytes a component, with no header: the blob length gives the dimension.
package sqlitedb
