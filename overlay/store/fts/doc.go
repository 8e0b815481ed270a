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
// returns it positive (higher is better). An Index is not safe for concurrent use.
//
// A term in at least half of the documents has idf ≤ 0, which FTS5 replaces by 1e-6: it
// hardly moves a score, yet makes nearly every document a match, and an OR query then
// scores the whole collection (docs/benchmarks.md, "Host memory"). Index.Search leaves
// such terms out once they are in PruneMinDF documents or more (Prunable).
// Scores change by at most a few millionths, and documents that matched only those terms
// (scored near zero) drop out.
package fts
