package wordpiece

import "unicode"

// Character classes of the Hugging Face BERT normaliser and pre-tokeniser. The Rust code
// uses char::is_whitespace (the Unicode White_Space property, as unicode.IsSpace here) and
// the unicode_categories crate for Cc/Cf/Co, Mn and P*. That crate's tables are older than
// Go's (Unicode 15), so a character assigned after them is not a control, mark or
// punctuation for Hugging Face, and a few characters changed category since; the tables
// in hfunicode.go record those differences so that this package agrees.

// isBertWhitespace is BertNormalizer's is_whitespace.
func isBertWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r)
}

// isBertControl is BertNormalizer's is_control: Cc, Cf or Co, except tab, newline and
// carriage return.
func isBertControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	if hfUnassigned(r) {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co)
}

// isChineseChar reports the CJK ideograph blocks that BertNormalizer surrounds with spaces.
func isChineseChar(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF,
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0x20000 && r <= 0x2A6DF,
		r >= 0x2A700 && r <= 0x2B73F,
		r >= 0x2B740 && r <= 0x2B81F,
		r >= 0x2B920 && r <= 0x2CEAF,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0x2F800 && r <= 0x2FA1F:
		return true
	}
	return false
}

// isNonspacingMark is the Mn test used when stripping accents.
func isNonspacingMark(r rune) bool {
	if r < 0x300 {
		return false
	}
	if unicode.Is(hfMarkTable, r) {
		return true
	}
	return !hfUnassigned(r) && unicode.Is(unicode.Mn, r)
}

// isBertPunctuation is BertPreTokenizer's is_bert_punc: ASCII punctuation (which includes
// symbols such as $, +, < and ~) or any Unicode P* character.
func isBertPunctuation(r rune) bool {
	if r < 0x80 {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	if unicode.Is(hfPunctTable, r) {
		return true
	}
	return !hfUnassigned(r) && unicode.IsPunct(r)
}

// Classes of BertPreTokenizer: whitespace splits and is dropped, punctuation stands alone.
const (
	preWord = iota
	preSpace
	prePunct
)

// preTokClass classes r for BertPreTokenizer, which splits on char::is_whitespace and
// then isolates is_bert_punc characters.
func preTokClass(r rune) int {
	switch {
	case r == ' ':
		return preSpace
	case (r < ' ' || r >= 0x80) && unicode.IsSpace(r):
		return preSpace
	case isBertPunctuation(r):
		return prePunct
	}
	return preWord
}

// toLowerFull appends the full lowercase mapping of r (Rust's char::to_lowercase): the
// simple mapping, except U+0130 which lowercases to two characters, completed with the
// mappings Go's tables lack.
func toLowerFull(dst []rune, r rune) []rune {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(dst, r)
	}
	if r == 0x130 {
		return append(dst, 'i', 0x307)
	}
	if l, ok := hfLower[r]; ok {
		return append(dst, l)
	}
	return append(dst, unicode.ToLower(r))
}
