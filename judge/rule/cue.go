package rule

import (
	"fmt"
	"regexp"
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
		re   *regexp.Regexp
	}{
		{"negation", cueNegation},
		{"change", cueChange},
		{"scope", cueScope},
	} {
		if w := cue.re.FindString(n.low); w != "" && !cue.re.MatchString(o.low) {
			return fmt.Sprintf("%s %q", cue.name, w)
		}
	}
	return ""
}
