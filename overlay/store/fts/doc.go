// Package fts is the overlay's full-text layer: a tokenizer, the sanitiser that turns user
// text into a safe SQLite FTS5 MATCH expression, and an in-Go BM25 index with the same
// scoring as FTS5's bm25(), for the in-memory store and for the host memory's searches
// (which run in memory over each user's own index).
//
// # Tokens
//
// Tokenize mirrors FTS5's unicode61 tokenizer with remove_diacritics 2, the tokenizer the
// overlay's FTS5 tables declare: text is lower-cased, decomposed (NFD) with combining marks
// dropped, and split into runs of letters, digits and private-use characters. "Café-au-lait
// 2024!" gives cafe, au, lait, 2024.
//
// # Queries
//
// Terms are the distinct tokens of a query less English function words ("what", "was",
// "my", …), which in a personal memory match nearly every record; a query made only of
// them keeps them.
//
// User text is never handed to MATCH as it is: quotes, parentheses, column filters, "-",
// "*", "^", NEAR and the bare words AND, OR and NOT are FTS5 syntax, and a stray one fails
// the statement or changes its meaning. MatchQuery writes each of the text's Terms (at
// most MaxQueryTerms) as a double-quoted string joined by OR, so the result is always a
// valid expression that matches any document sharing a term, ranked by BM25. Text
// without tokens gives "", which callers must treat as "no text query" (an empty MATCH
// is a syntax error). The sanitiser is fuzzed against a real FTS5 table.
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
// scores the whole collection (docs/benchmarks.md, "Host memory"). Prune leaves such
// terms out once they are in PruneMinDF documents or more; Index.Search does the same.
// Scores change by at most a few millionths, and documents that matched only those terms
// (scored near zero) drop out.
package fts
