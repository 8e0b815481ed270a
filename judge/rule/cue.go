package rule

import (
	"fmt"
	"strings"
)

// ChangeCue returns the first sign in after that it changes, denies or narrows what before
// says — a quantity of the same kind with another value ("25 minutes" → "40 minutes"), or
// a change, negation or scope word before does not use — and "" when there is none. It uses
// the rule auditor's lexicon, so the overlay can route pairs an embedding gate passes (a
// sentence encoder barely moves when only a number or a qualifier changes) to the Judge
// that will read them with the same cues.
func ChangeCue(before, after string) string {
	// The cues read the lower-cased text alone: no sentences, words or stems to split.
	o := &text{low: strings.ToLower(typography.Replace(before))}
	n := &text{low: strings.ToLower(typography.Replace(after))}
	oq := quantities(o)
	for _, q := range quantities(n) {
		for _, p := range oq {
			if p.kind == q.kind && p.value != q.value {
				return fmt.Sprintf("number %s (was %s)", q.text, p.text)
			}
		}
	}
	for _, cue := range []struct {
		name string
		m    func(*text) string
	}{
		{"negation", func(t *text) string { return cueNegation.FindString(t.low) }},
		{"change", func(t *text) string { return cueChange.FindString(t.low) }},
		{"scope", func(t *text) string { return cueScope.FindString(t.low) }},
	} {
		if w := cue.m(n); w != "" && cue.m(o) == "" {
			return fmt.Sprintf("%s %q", cue.name, w)
		}
	}
	return ""
}
