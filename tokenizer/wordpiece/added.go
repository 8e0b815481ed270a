package wordpiece

import (
	"unicode"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's added_tokens: a string matched in the text
// before the model runs (for BERT the special tokens [CLS], [SEP], [MASK], ...).
type addedToken struct {
	id         int32
	content    string
	singleWord bool   // match only when not inside a word
	lstrip     bool   // swallow whitespace on the left
	rstrip     bool   // swallow whitespace on the right
	normalized bool   // match against the normalised text instead of the original
	special    bool   // skipped by Decode when asked to
	decoded    string // what Decode writes: the content, normalised if normalized is set
}

// addedVocab mirrors tokenizer/added_vocabulary.rs.
type addedVocab struct {
	byID    map[int32]*addedToken
	special map[string]bool // contents of special tokens
	raw     matcher         // tokens matched against the original text
	norm    matcher         // tokens matched against the normalised text
}

// matcher finds non-overlapping leftmost-longest occurrences of its patterns, as the
// Aho-Corasick automaton with MatchKind::LeftmostLongest does.
type matcher struct {
	patterns []string
	tokens   []*addedToken
	first    [256]bool // first bytes of the patterns
}

func (m *matcher) add(pattern string, tok *addedToken) {
	if pattern == "" {
		return
	}
	m.patterns = append(m.patterns, pattern)
	m.tokens = append(m.tokens, tok)
	m.first[pattern[0]] = true
}

func (m *matcher) empty() bool { return len(m.patterns) == 0 }

// next returns the leftmost-longest match in s at or after from, or ok false.
func (m *matcher) next(s string, from int) (start, end int, tok *addedToken, ok bool) {
	for i := from; i < len(s); i++ {
		if !m.first[s[i]] {
			continue
		}
		best := -1
		for k, p := range m.patterns {
			if len(p) > len(s)-i || s[i:i+len(p)] != p {
				continue
			}
			if best < 0 || len(p) > len(m.patterns[best]) {
				best = k
			}
		}
		if best >= 0 {
			return i, i + len(m.patterns[best]), m.tokens[best], true
		}
	}
	return 0, 0, nil, false
}

// piece is a part of a text: either an added token (tok != nil) or text to tokenise.
type piece struct {
	start, end int // byte range in the string that was split
	tok        *addedToken
}

// split cuts s into pieces at the added tokens, applying single_word, lstrip and rstrip as
// AddedVocabulary::find_matches does. An empty s gives no pieces.
func (m *matcher) split(dst []piece, s string) []piece {
	offset := 0
	for from := 0; ; {
		start, stop, tok, ok := m.next(s, from)
		if !ok {
			break
		}
		from = stop
		if tok.singleWord {
			startSpace := start == 0 || !endsWithWordChar(s[:start])
			stopSpace := stop == len(s) || !startsWithWordChar(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.lstrip {
			start = max(trailingSpaceStart(s[:start]), offset)
		}
		if tok.rstrip {
			stop += leadingSpaceLen(s[stop:])
		}
		if offset < start {
			dst = append(dst, piece{start: offset, end: start})
		}
		dst = append(dst, piece{start: start, end: stop, tok: tok})
		offset = stop
	}
	if offset < len(s) {
		dst = append(dst, piece{start: offset, end: len(s)})
	}
	return dst
}

func newAddedVocab(specs []addedToken, normalize func(string) string) *addedVocab {
	av := &addedVocab{byID: make(map[int32]*addedToken), special: make(map[string]bool)}
	var specials, others []*addedToken
	seen := make(map[addedToken]bool)
	for i := range specs {
		t := &specs[i]
		t.decoded = t.content
		if t.special {
			av.special[t.content] = true
		}
		if seen[*t] {
			continue
		}
		seen[*t] = true
		av.byID[t.id] = t
		if t.special {
			specials = append(specials, t)
		} else {
			others = append(others, t)
		}
	}
	// Patterns in Hugging Face's order: special tokens, then the others. Each carries the
	// flags of the token registered under its id.
	for _, t := range append(specials, others...) {
		flags := av.byID[t.id]
		if t.normalized {
			t.decoded = normalize(t.content)
			av.norm.add(t.decoded, flags)
		} else {
			av.raw.add(t.content, flags)
		}
	}
	return av
}

// isWordChar is the regex crate's Unicode \w: Alphabetic, marks, decimal digits,
// connector punctuation and the joiners.
func isWordChar(r rune) bool {
	if r < 0x80 {
		return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) ||
		unicode.In(r, unicode.Nd, unicode.Nl, unicode.Pc, unicode.Other_Alphabetic) ||
		r == 0x200C || r == 0x200D
}

func endsWithWordChar(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && isWordChar(r)
}

func startsWithWordChar(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isWordChar(r)
}

// trailingSpaceStart is where the run of whitespace that ends s begins.
func trailingSpaceStart(s string) int {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// leadingSpaceLen is the length of the run of whitespace that starts s.
func leadingSpaceLen(s string) int {
	for i, r := range s {
		if !unicode.IsSpace(r) {
			return i
		}
	}
	return len(s)
}
