package bench

import (
	"slices"
	"strings"
	"unicode"
)

// words splits s into lower-case runs of letters and digits: "$62,000 a year" → [62 000
// a year].
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// containsPhrase reports whether phrase's words occur in s, in order and adjacent.
func containsPhrase(s, phrase string) bool {
	p := words(phrase)
	if len(p) == 0 {
		return false
	}
	w := words(s)
	for i := 0; i+len(p) <= len(w); i++ {
		if slices.Equal(w[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

// functionWords are left out when matching a key entity in an answer.
var functionWords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "on": true, "at": true, "my": true, "is": true}

// keyWords are the words of a key entity that an answer must contain: its words without
// function words, unless it has nothing else.
func keyWords(key string) []string {
	var out []string
	all := words(key)
	for _, w := range all {
		if !functionWords[w] {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// holdsKey reports whether s contains every key word of key (in any order).
func holdsKey(s, key string) bool {
	k := keyWords(key)
	if len(k) == 0 {
		return false
	}
	have := map[string]bool{}
	for _, w := range words(s) {
		have[w] = true
	}
	for _, w := range k {
		if !have[w] {
			return false
		}
	}
	return true
}
