package words

import (
	"strings"
	"unicode"
)

// Split splits s into lower-case runs of letters and digits: "$62,000 a year" →
// [62 000 a year]. A text without letters or digits has no words (an empty slice,
// not nil: test with len).
func Split(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
