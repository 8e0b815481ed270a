// Package fts is the overlay's full-text layer: a tokenizer and an in-Go BM25 index with
// the same scoring as SQLite FTS5's bm25(), for the host memory's searches, which run in
// memory over each user's own index. No table of the overlay uses FTS5 any more; its
// bm25() is the reference the index is tested against.
//
// # Tokens
//
// Tokenize mirrors FTS5's unicode61 tokenizer with remove_diacritics 2: text is
// lower-cased, decomposed (NFD) with combining marks dropped, and split into runs of
// letters, digits and private-use characters. "Café-au-lait 2024!" gives cafe, au, lait,
// 2024.
//
// # Queries
//
// Terms are the distinct tokens of a query less English function words ("what", "was",
// "my", …), which in a personal memory match nearly every record; a query made only of
// them keeps them. Index.Search keeps at most MaxQueryTerms of them. A query is never
// parsed: quotes, parentheses, "-", "*", NEAR, AND, OR and NOT are punctuation or plain
// words, and text without tokens matches nothing.
//
// # BM25
//
// Index scores like bm25() with k1 = 1.2 and b = 0.75:
//
//	idf(t)   = ln((N − n(t) + 0.5) / (n(t) + 0.5)), replaced by 1e-6 when ≤ 0
//	score(d) = Σ_t idf(t) · f(t,d)·(k1+1) / (f(t,d) + k1·(1 − b + b·|d|/avgdl))
//
// where N is the number of documents, n(t) those containing t, f(t,d) the count of t in d
// and |d| the token count of d. bm25() returns the negated score (lower is better); Index
// returns it positive (higher is better). Searches of an Index may run concurrently with
// each other, not with Add or Remove.
//
// # Search
//
// Index.Search returns the exact k best, ties by id: the documents, order and scores a
// scoring of every posting gives (TestSearchMatchesExhaustive checks it against such a
// scoring on random corpora). It does not score every posting: postings are kept in
// document order and walked together (max-score, Turtle and Flood 1995), and once k
// documents are kept, terms whose upper bounds together fall short of the k-th score
// (a term's bound is its weight at its highest count in its shortest document) only
// complete the scores of documents another term proposes, looked up by skipping ahead
// in their postings, and only while a document can still reach the k-th score. A score
// is summed over the terms in the query's order, so it is the same float whatever was
// skipped. Removing a document moves the postings of its terms after it (removals are
// rare beside searches); the numbers of removed documents are reclaimed by renumbering
// once they outnumber the documents left. The figures are in docs/benchmarks.md ("Host
// memory").
//
// A term in at least half of the documents has idf ≤ 0, which FTS5 replaces by 1e-6: it
// hardly moves a score, yet makes nearly every document a match, and an OR query then
// scores the whole collection (docs/benchmarks.md, "Host memory"). Index.Search leaves
// such terms out once they are in PruneMinDF documents or more (Prunable).
// Scores change by at most a few millionths, and documents that matched only those terms
// (scored near zero) drop out.
package fts
