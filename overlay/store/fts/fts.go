package fts

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxQueryTerms bounds the distinct terms Index.Search keeps of a query, so a pasted
// document cannot turn into a query that scores every document against thousands of
// terms.
const MaxQueryTerms = 64

// Tokenize splits text into lower-case tokens without diacritics (see the package doc).
func Tokenize(text string) []string {
	var toks []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	var it norm.Iter
	it.InitString(norm.NFD, text)
	for !it.Done() {
		seg := it.Next()
		for _, r := range string(seg) {
			switch {
			case unicode.Is(unicode.Mn, r):
				// A combining mark is the diacritic of the previous letter: drop it
				// without splitting the token.
			case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r):
				cur.WriteRune(unicode.ToLower(r))
			default:
				flush()
			}
		}
	}
	flush()
	return toks
}

// Terms returns the distinct query tokens of text in first-seen order, at most max of
// them (all when max ≤ 0). English function words ("what", "was", "my", …) are left out,
// unless the text has nothing else: in a personal memory nearly every record says "I" and
// "my", and a question's "what was" would rank small talk above the answer.
func Terms(text string, max int) []string {
	seen := map[string]bool{}
	var out, stops []string
	for _, t := range Tokenize(text) {
		if seen[t] {
			continue
		}
		seen[t] = true
		if stopWords[t] {
			stops = append(stops, t)
			continue
		}
		out = append(out, t)
		if max > 0 && len(out) == max {
			break
		}
	}
	if len(out) == 0 {
		out = stops
		if max > 0 && len(out) > max {
			out = out[:max]
		}
	}
	return out
}

// stopWords are English function words (pronouns, auxiliaries, articles, prepositions,
// question words), the usual short list of search engines.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about am an and are as at be been being but by can could
		did do does doing for from had has have having he her hers him his how i if in into is
		it its me my mine myself of on or our ours she so than that the their them then there
		these they this those to was we were what when where which who whom why will with would
		you your yours`) {
		m[w] = true
	}
	return m
}()

// PruneMinDF is the document frequency from which a term may be Prunable.
const PruneMinDF = 1000

// Prunable reports whether a term in df of n documents is left out of queries: it is in
// at least half of them, where BM25's idf is ≤ 0 and FTS5 weighs it 1e-6, so it barely
// moves a score but makes nearly every document a match, and it is in at least
// PruneMinDF, so small collections are searched with every term.
func Prunable(df, n int) bool {
	return df >= PruneMinDF && 2*df >= n
}
