package overlay

import (
	"regexp"
	"slices"
	"strings"
)

// The logic head compares sentence embeddings, and small sentence encoders barely move
// when only a number or a qualifier changes ("25 minutes" → "40 minutes", "I love spicy
// food" → "… except at lunch"). These cues catch such pairs among the topically close
// ones, so they reach the Judge; the trace names the cue.
var (
	numberRE  = regexp.MustCompile(`\d+(?:[.,]\d+)?`)
	cueWordRE = regexp.MustCompile(`(?i)\b(?:not|no longer|anymore|never|n't|except|unless|only|but|instead|now|these days|actually|moved|left|quit|used to|no more|stopped|gave up|gave away)\b|n't\b`)
)

// suspicionCue returns the first cue in newText that old does not share, or "".
func suspicionCue(old, newText string) string {
	oldNums, newNums := numberRE.FindAllString(old, -1), numberRE.FindAllString(newText, -1)
	for _, n := range newNums {
		if len(oldNums) > 0 && !slices.Contains(oldNums, n) {
			return "number " + n
		}
	}
	lowOld := strings.ToLower(old)
	for _, m := range cueWordRE.FindAllString(newText, -1) {
		if !strings.Contains(lowOld, strings.ToLower(m)) {
			return "word " + strings.ToLower(m)
		}
	}
	return ""
}
