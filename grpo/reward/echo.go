package reward

import (
	"strings"
	"sync"

	"github.com/atma-dev/atma/judge"
)

// Words, for the length and echo terms, are maximal runs of ASCII letters and digits or of
// non-ASCII bytes (so a word in any script is one word); everything else separates them.
func isWordByte(c byte) bool { return wordByte[c] }

var wordByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x80 || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
	}
	return t
}()

// forWords calls f with each word of s.
func forWords(s string, f func(string)) {
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		f(s[i:j])
		i = j
	}
}

// countWords counts the words of s.
func countWords(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); i++ {
		w := isWordByte(s[i])
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// appendWordHashes appends the FNV-1a hash of each word of s, ASCII letters folded to
// lower case.
func appendWordHashes(dst []uint64, s string) []uint64 {
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		h := uint64(fnvOffset)
		for ; i < len(s) && isWordByte(s[i]); i++ {
			c := s[i]
			if c >= 'A' && c <= 'Z' {
				c |= 0x20
			}
			h = (h ^ uint64(c)) * fnvPrime
		}
		dst = append(dst, h)
	}
	return dst
}

// appendShingles appends the hash of every run of n consecutive words.
func appendShingles(dst, words []uint64, n int) []uint64 {
	for i := 0; i+n <= len(words); i++ {
		h := uint64(fnvOffset)
		for _, w := range words[i : i+n] {
			h = (h ^ w) * fnvPrime
			h ^= h >> 29
		}
		dst = append(dst, h)
	}
	return dst
}

// hashSet is an open-addressing set of hashes (0 stands for an empty slot; a hash of 0 is
// stored as 1). It is built once and then only read, so a shared one is safe for
// concurrent use.
type hashSet struct {
	slots []uint64
	mask  uint64
}

// reset empties the set and sizes it for n hashes at most half full.
func (s *hashSet) reset(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	if cap(s.slots) >= size {
		s.slots = s.slots[:size]
		clear(s.slots)
	} else {
		s.slots = make([]uint64, size)
	}
	s.mask = uint64(size - 1)
}

func (s *hashSet) add(h uint64) {
	if h == 0 {
		h = 1
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			return
		case h:
			return
		}
	}
}

func (s *hashSet) has(h uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	if h == 0 {
		h = 1
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case 0:
			return false
		case h:
			return true
		}
	}
}

// fill makes the set hold hashes.
func (s *hashSet) fill(hashes []uint64) {
	s.reset(len(hashes))
	for _, h := range hashes {
		s.add(h)
	}
}

// newShingleSet is the set of text's n-word shingles.
func newShingleSet(text string, n int) *hashSet {
	s := new(hashSet)
	s.fill(appendShingles(nil, appendWordHashes(nil, text), n))
	return s
}

// echoScratch holds the buffers of one echo computation.
type echoScratch struct {
	words, comp, prompt, pair []uint64
	promptSet, pairSet        hashSet
}

var echoPool = sync.Pool{New: func() any { return new(echoScratch) }}

// echo is the prompt-echo term: the share of the completion's shingles, outside its JSON
// (whose keys and enums are the prompt's own), that occur in the prompt
// and not in the pair's texts (which a completion may quote). A completion that holds the
// whole prompt, or the whole user turn, gets the full penalty.
func (r *Rewarder) echo(prompt, completion string, a answer, l Label) float64 {
	e := r.cfg.Echo
	if prompt == "" {
		return 0
	}
	// before and after are the prompt around the system prompt, when it holds it (a chat
	// template puts its markers before it and the user turn after it).
	before, after := prompt, ""
	sysAt := strings.Index(prompt, judge.SystemPrompt)
	if sysAt >= 0 {
		before, after = prompt[:sysAt], prompt[sysAt+len(judge.SystemPrompt):]
	}
	if u := strings.TrimSpace(after); len(u) >= 32 && strings.Contains(completion, u) ||
		len(prompt) >= 32 && strings.Contains(completion, prompt) {
		return e.Penalty
	}

	sc := echoPool.Get().(*echoScratch)
	defer echoPool.Put(sc)
	n := e.NGram

	// The completion's shingles outside its JSON: from the first '{' after the think block
	// to the last '}', fenced or not.
	sc.comp = sc.comp[:0]
	lo, hi := len(completion), len(completion)
	if i := strings.IndexByte(completion[a.region:], '{'); i >= 0 {
		if j := strings.LastIndexByte(completion, '}'); j > a.region+i {
			lo, hi = a.region+i, j+1
		}
	}
	sc.words = appendWordHashes(sc.words[:0], completion[:lo])
	sc.comp = appendShingles(sc.comp, sc.words, n)
	sc.words = appendWordHashes(sc.words[:0], completion[hi:])
	sc.comp = appendShingles(sc.comp, sc.words, n)
	if len(sc.comp) == 0 {
		return 0
	}

	// The prompt's shingles beyond the system prompt, whose set is precomputed.
	sc.words = appendWordHashes(sc.words[:0], before)
	sc.prompt = appendShingles(sc.prompt[:0], sc.words, n)
	sc.words = appendWordHashes(sc.words[:0], after)
	sc.prompt = appendShingles(sc.prompt, sc.words, n)
	sc.promptSet.fill(sc.prompt)

	oldText, newText := l.OldText, l.NewText
	if oldText == "" && newText == "" {
		oldText, newText = pairTexts(prompt)
	}
	sc.words = appendWordHashes(sc.words[:0], oldText)
	sc.pair = appendShingles(sc.pair[:0], sc.words, n)
	sc.words = appendWordHashes(sc.words[:0], newText)
	sc.pair = appendShingles(sc.pair, sc.words, n)
	sc.pairSet.fill(sc.pair)

	echoed := 0
	for _, h := range sc.comp {
		if (sc.promptSet.has(h) || sysAt >= 0 && r.sys.has(h)) && !sc.pairSet.has(h) {
			echoed++
		}
	}
	ratio := float64(echoed) / float64(len(sc.comp))
	switch {
	case ratio <= e.FreeRatio:
		return 0
	case ratio >= e.FullRatio:
		return e.Penalty
	}
	return e.Penalty * (ratio - e.FreeRatio) / (e.FullRatio - e.FreeRatio)
}
