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
// Measured on the 2-core development machine (AMD EPYC, shared), one user, 512-d
// vectors, memories of 15–35 words drawn from a Zipf law over 5,000 words, 6-word
// queries drawn from the same law, top 10 of 100 candidates a list (BenchmarkSearch,
// milliseconds a search, SQLite / InMemory):
//
//	memories   dense         BM25          hybrid (dense + BM25 + RRF)
//	1k         0.3 / 0.4     3.3 / 0.2     3.9 / 0.7
//	10k        1.9 / 1.9     9.7 / 1.3     11 / 3.2
//	100k       18 / 19       83 / 34       99 / 43
//
// Brute-force dense search is linear, about 0.2 µs a vector at 512 dimensions: under
// 20 ms up to 100k memories a user, acceptable next to an LLM call. Past roughly 250k
// memories a user (≥ 50 ms) it should give way to an approximate index (HNSW). BM25 is
// the larger cost at scale: an OR query scores every memory sharing a term, and FTS5's
// bm25() runs as translated C; it grows with the number of matches, not of memories,
// which leaving out terms in half the collection (fts.Prune) keeps in check.
//
// Adding costs about 0.5 ms a memory one at a time and 0.1 ms in batches of 100
// (BenchmarkAdd, 10k memories). On disk a memory with a 512-d vector and 15–35 words
// takes about 2.5 KB, 2 KiB of it the vector (BenchmarkSize: bytes/1k-memories).
package host
