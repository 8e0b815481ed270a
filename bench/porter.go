package bench

// The Porter stemmer as NLTK's PorterStemmer runs it by default (mode NLTK_EXTENSIONS),
// which the official LoCoMo scorer uses: the 1980 algorithm with NLTK's irregular forms,
// no stemming of words of one or two letters, "y" → "i" only after a consonant that is
// not the first letter, and the extra step-2 rules (alli, bli, fulli, logi). Checked
// word for word against NLTK in porter_test.go.

var porterIrregular = map[string]string{
	"skies": "sky", "sky": "sky", "dying": "die", "lying": "lie", "tying": "tie", "news": "news",
	"innings": "inning", "inning": "inning", "outings": "outing", "outing": "outing",
	"cannings": "canning", "canning": "canning", "howe": "howe", "proceed": "proceed",
	"exceed": "exceed", "succeed": "succeed",
}

// porterStem stems one lower-case word.
func porterStem(word string) string {
	if s, ok := porterIrregular[word]; ok {
		return s
	}
	w := []rune(word)
	if len(w) <= 2 {
		return word
	}
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	w = step3(w)
	w = step4(w)
	w = step5a(w)
	w = step5b(w)
	return string(w)
}

func isVowel(r rune) bool { return r == 'a' || r == 'e' || r == 'i' || r == 'o' || r == 'u' }

func isConsonant(w []rune, i int) bool {
	if isVowel(w[i]) {
		return false
	}
	if w[i] == 'y' {
		if i == 0 {
			return true
		}
		return !isConsonant(w, i-1)
	}
	return true
}

// measure counts the VC sequences of stem.
func measure(w []rune) int {
	m := 0
	for i := 1; i < len(w); i++ {
		if !isConsonant(w, i-1) && isConsonant(w, i) {
			m++
		}
	}
	return m
}

func containsVowel(w []rune) bool {
	for i := range w {
		if !isConsonant(w, i) {
			return true
		}
	}
	return false
}

func endsDoubleConsonant(w []rune) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

func endsCVC(w []rune) bool {
	n := len(w)
	if n >= 3 && isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) && w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}

func hasSuffix(w []rune, s string) bool {
	rs := []rune(s)
	if len(rs) > len(w) {
		return false
	}
	for i, r := range rs {
		if w[len(w)-len(rs)+i] != r {
			return false
		}
	}
	return true
}

func cut(w []rune, s string) []rune { return w[:len(w)-len([]rune(s))] }

func join(stem []rune, s string) []rune {
	out := make([]rune, len(stem), len(stem)+len(s))
	copy(out, stem)
	return append(out, []rune(s)...)
}

// rule is a suffix rule: suffix → replacement when cond holds for the stem. The suffix
// "*d" is a double consonant; "" always matches.
type rule struct {
	suffix, repl string
	cond         func(stem []rune) bool
}

// applyRules applies the first rule whose suffix matches; if its condition fails, the
// word is returned unchanged.
func applyRules(w []rune, rules []rule) []rune {
	for _, r := range rules {
		if r.suffix == "*d" && endsDoubleConsonant(w) {
			stem := w[:len(w)-2]
			if r.cond == nil || r.cond(stem) {
				return join(stem, r.repl)
			}
			return w
		}
		if hasSuffix(w, r.suffix) {
			stem := cut(w, r.suffix)
			if r.cond == nil || r.cond(stem) {
				return join(stem, r.repl)
			}
			return w
		}
	}
	return w
}

func positive(stem []rune) bool { return measure(stem) > 0 }
func above1(stem []rune) bool   { return measure(stem) > 1 }

func step1a(w []rune) []rune {
	if hasSuffix(w, "ies") && len(w) == 4 {
		return join(cut(w, "ies"), "ie")
	}
	return applyRules(w, []rule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func step1b(w []rune) []rune {
	if hasSuffix(w, "ied") {
		if len(w) == 4 {
			return join(cut(w, "ied"), "ie")
		}
		return join(cut(w, "ied"), "i")
	}
	if hasSuffix(w, "eed") {
		stem := cut(w, "eed")
		if measure(stem) > 0 {
			return join(stem, "ee")
		}
		return w
	}
	var stem []rune
	ok := false
	for _, s := range []string{"ed", "ing"} {
		if hasSuffix(w, s) {
			stem = cut(w, s)
			if containsVowel(stem) {
				ok = true
				break
			}
		}
	}
	if !ok {
		return w
	}
	last := stem[len(stem)-1]
	return applyRules(stem, []rule{
		{"at", "ate", nil},
		{"bl", "ble", nil},
		{"iz", "ize", nil},
		{"*d", string(last), func([]rune) bool { return last != 'l' && last != 's' && last != 'z' }},
		{"", "e", func(s []rune) bool { return measure(s) == 1 && endsCVC(s) }},
	})
}

func step1c(w []rune) []rune {
	return applyRules(w, []rule{{"y", "i", func(s []rune) bool { return len(s) > 1 && isConsonant(s, len(s)-1) }}})
}

func step2(w []rune) []rune {
	if hasSuffix(w, "alli") && positive(cut(w, "alli")) {
		return step2(join(cut(w, "alli"), "al"))
	}
	word := w
	return applyRules(w, []rule{
		{"ational", "ate", positive},
		{"tional", "tion", positive},
		{"enci", "ence", positive},
		{"anci", "ance", positive},
		{"izer", "ize", positive},
		{"bli", "ble", positive},
		{"alli", "al", positive},
		{"entli", "ent", positive},
		{"eli", "e", positive},
		{"ousli", "ous", positive},
		{"ization", "ize", positive},
		{"ation", "ate", positive},
		{"ator", "ate", positive},
		{"alism", "al", positive},
		{"iveness", "ive", positive},
		{"fulness", "ful", positive},
		{"ousness", "ous", positive},
		{"aliti", "al", positive},
		{"iviti", "ive", positive},
		{"biliti", "ble", positive},
		{"fulli", "ful", positive},
		// NLTK tests the word less its last three letters here, not the stem.
		{"logi", "log", func([]rune) bool { return positive(word[:len(word)-3]) }},
	})
}

func step3(w []rune) []rune {
	return applyRules(w, []rule{
		{"icate", "ic", positive},
		{"ative", "", positive},
		{"alize", "al", positive},
		{"iciti", "ic", positive},
		{"ical", "ic", positive},
		{"ful", "", positive},
		{"ness", "", positive},
	})
}

func step4(w []rune) []rune {
	return applyRules(w, []rule{
		{"al", "", above1},
		{"ance", "", above1},
		{"ence", "", above1},
		{"er", "", above1},
		{"ic", "", above1},
		{"able", "", above1},
		{"ible", "", above1},
		{"ant", "", above1},
		{"ement", "", above1},
		{"ment", "", above1},
		{"ent", "", above1},
		{"ion", "", func(s []rune) bool {
			return measure(s) > 1 && len(s) > 0 && (s[len(s)-1] == 's' || s[len(s)-1] == 't')
		}},
		{"ou", "", above1},
		{"ism", "", above1},
		{"ate", "", above1},
		{"iti", "", above1},
		{"ous", "", above1},
		{"ive", "", above1},
		{"ize", "", above1},
	})
}

func step5a(w []rune) []rune {
	if hasSuffix(w, "e") {
		stem := cut(w, "e")
		if m := measure(stem); m > 1 || m == 1 && !endsCVC(stem) {
			return stem
		}
	}
	return w
}

func step5b(w []rune) []rune {
	word := w
	return applyRules(w, []rule{{"ll", "l", func([]rune) bool { return measure(word[:len(word)-1]) > 1 }}})
}
