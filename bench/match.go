package bench

import (
	"slices"

	"github.com/atma-dev/atma/internal/words"
)

// containsPhrase reports whether phrase's words occur in s, in order and adjacent.
func containsPhrase(s, phrase string) bool {
	p := words.Split(phrase)
	if len(p) == 0 {
		return false
	}
	w := words.Split(s)
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
	all := words.Split(key)
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
	for _, w := range words.Split(s) {
		have[w] = true
	}
	for _, w := range k {
		if !have[w] {
			return false
		}
	}
	return true
}
