// Package host is the built-in host memory that the overlay wraps: it stores a user's
// raw memories and retrieves seeds for a query by hybrid search, dense plus BM25 fused
// with reciprocal rank fusion — UMA's RAG baseline.
//
// # Interface
//
// Host is three methods (Add, Search, Delete), small enough for adapters to external
// memories (Mem0, Zep) to implement. The built-in hosts, SQLite and InMemory, also offer
// AddBatch, Get, DeleteUser, Len and Users. Both are safe for concurrent use, pass one
// test suite, and keep users apart: no call for one user reads or changes another's
// memories, and each user's vectors have their own dimension.
//
// # Search
//
// Search(ctx, user, query, qvec, k) builds two candidate lists, each Config.Candidates
// deep (default 100, at least k):
//
//   - dense: cosine similarity between qvec and the user's vectors, by brute force
//     (vectors are stored at unit length, so it is one dot product each);
//   - text: BM25 over the memories' content. SQLite uses FTS5's bm25(); InMemory the
//     in-Go index of package fts, with the same formula (k1 = 1.2, b = 0.75). User text
//     goes through fts.Terms and is quoted, so it never breaks MATCH syntax, and terms
//     in at least half of a large collection are left out (fts.Prune).
//
// and fuses them with RRF: score = Σ 1/(Config.RRFK + rank), RRFK = 60 by default. A
// Hit carries the fused score and each list's rank and raw score. An empty query or a
// nil qvec skips that list. RRF is exported for fusing other lists (bank and host).
//
// # SQLite
//
// The SQLite host shares the overlay's database file with the bank (package
// overlay/store): one file, one WAL, one backup, separate tables prefixed host_, and its
// own migration track ("host") in schema_migrations. Open the database once with
// sqlitedb.Open and pass it to both store.NewSQLite and NewSQLite, or use OpenSQLite for
// a host alone. BM25 statistics span all users of the file (one FTS5 table); results
// never do.
//
// Dense search needs the vectors in memory: the first search of a user loads them, and
// the host keeps them (about 2 KiB a memory at 512 dimensions) for later searches. Its
// own writes update that copy; a per-user generation counter, bumped in the same
// transaction as every write, tells it when another process wrote and it must reload.
//
// # Costs
//
// Measured on the 2-core development machine (AMD EPYC), one user, 512-d vectors,
// memories of 15–35 words drawn from a Zipf law over 5,000 words, 6-word queries,
// top 10 of 100 candidates a list (BenchmarkSearch):
//
//	memories  dense (SQLite / InMemory)  BM25 (SQLite / InMemory)  hybrid (SQLite / InMemory)
//	1k        0.4 ms / 0.3 ms            see BenchmarkSearch        see BenchmarkSearch
//	10k       2.1 ms / 1.7 ms
//	100k      23 ms / 17 ms
//
// Brute-force dense search is linear, about 0.2 µs a vector at 512 dimensions: it stays
// under ~25 ms up to 100k memories a user, which is acceptable behind an LLM call; past
// a few hundred thousand (≥ 50 ms) an approximate index (HNSW) should replace it. BM25
// costs grow with the number of memories that share a query term; leaving out terms in
// half of the collection keeps common words from matching everything.
//
// On disk (BenchmarkSize) a memory with a 512-d vector takes about 2.6 KB — see the
// benchmark's bytes/1k-memories metric; the vector is 2 KiB of it.
package host
