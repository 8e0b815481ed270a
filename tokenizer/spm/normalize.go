package spm

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const (
	// wordStart is SentencePiece's "▁": it starts the text and replaces every space.
	wordStart = '\u2581'
	// cgjStr is U+034F COMBINING GRAPHEME JOINER, which x/text inserts to keep text
	// "stream-safe" (UAX #15) and which JavaScript's String.prototype.normalize never does.
	cgjStr = "\u034f"
)

// symbols is the text the lattice runs over: code points, each with the [start, end) byte
// span of the input it came from.
type symbols struct {
	runes []rune
	spans [][2]int
}

// prepare reproduces the JS processInput into s: NFKC, then "▁" + text with every U+0020
// replaced by "▁"; the empty result stays empty. The synthetic leading "▁" has the span
// [0, 0]; every other code point carries the span of the input normalization segment that
// produced it.
func prepare(text string, s *symbols) {
	s.runes, s.spans = s.runes[:0], s.spans[:0]
	if text == "" {
		return
	}
	s.add(wordStart, 0, 0)
	if norm.NFKC.IsNormalString(text) {
		// x/text's NFKC leaves text as it is, so no CGJ would be inserted and ICU agrees.
		for i, r := range text {
			s.add(r, i, i+utf8.RuneLen(r))
		}
		return
	}
	for _, seg := range nfkcSegments(text) {
		for _, r := range seg.out {
			s.add(r, seg.start, seg.end)
		}
	}
}

func (s *symbols) add(r rune, start, end int) {
	if r == ' ' {
		r = wordStart
	}
	s.runes = append(s.runes, r)
	s.spans = append(s.spans, [2]int{start, end})
}

// segment is the NFKC form of text[start:end].
type segment struct {
	start, end int
	out        []rune
	// overflow marks a segment that x/text cut with an inserted CGJ; it is normalized again
	// without the stream-safe limit.
	overflow bool
}

// nfkcSegments normalizes text to NFKC piece by piece, keeping which input bytes each piece
// came from. Two x/text habits are undone:
//   - a code point whose decomposition holds several starters (ǅ → D z ̌) may come out as
//     several segments, the first ones of zero input width; they get the input span of the
//     segment that consumes the code point;
//   - after 30 combining marks in a row x/text inserts a CGJ and sorts and composes each
//     chunk on its own (the stream-safe format), which ICU, and so JavaScript, never does:
//     such runs are normalized again, whole, by nfkcUnbounded.
func nfkcSegments(text string) []segment {
	var it norm.Iter
	it.InitString(norm.NFKC, text)
	var segs []segment
	buf := make([]rune, 0, len(text))
	for !it.Done() {
		start := it.Pos()
		out := it.Next()
		end := it.Pos()
		if bytes.HasPrefix(out, []byte(cgjStr)) && !strings.HasPrefix(text[start:], cgjStr) && len(segs) > 0 {
			// A continuation: it, the segment it continues and the zero-width segments
			// before that one become one segment.
			from := segs[len(segs)-1].start
			for len(segs) > 0 && segs[len(segs)-1].start >= from {
				segs = segs[:len(segs)-1]
			}
			segs = append(segs, segment{start: from, end: end, overflow: true})
			continue
		}
		n := len(buf)
		for _, r := range string(out) {
			buf = append(buf, r)
		}
		segs = append(segs, segment{start: start, end: end, out: buf[n:len(buf):len(buf)]})
	}
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i].start == segs[i].end {
			segs[i].end = segs[i+1].end
		}
	}
	for i := range segs {
		if segs[i].overflow {
			segs[i].out = nfkcUnbounded(text[segs[i].start:segs[i].end])
		}
	}
	return segs
}

// nfkcUnbounded is NFKC by the book (UAX #15: full compatibility decomposition, canonical
// ordering, canonical composition) with no limit on the number of combining marks. It is
// only used for the rare segments where x/text's stream-safe limit applies, so it favours
// simplicity over speed: decompositions and composite pairs come from x/text itself.
func nfkcUnbounded(s string) []rune {
	// Full compatibility decomposition, one code point at a time (no code point decomposes
	// into more than 30 marks, so x/text never inserts a CGJ here).
	var d []rune
	for _, r := range s {
		d = append(d, []rune(norm.NFKD.String(string(r)))...)
	}
	// Canonical ordering: stable sort of every run of non-starters by combining class.
	for i := 0; i < len(d); {
		if ccc(d[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(d) && ccc(d[j]) != 0 {
			j++
		}
		slices.SortStableFunc(d[i:j], func(a, b rune) int { return int(ccc(a)) - int(ccc(b)) })
		i = j
	}
	// Canonical composition (the reference algorithm of UAX #15).
	if len(d) == 0 {
		return d
	}
	out := []rune{d[0]}
	starter := -1
	lastClass := 256 // nothing composes onto a leading non-starter
	if ccc(d[0]) == 0 {
		starter, lastClass = 0, 0
	}
	for _, c := range d[1:] {
		class := int(ccc(c))
		if starter >= 0 && (lastClass < class || lastClass == 0) {
			if p, ok := compose(out[starter], c); ok {
				out[starter] = p
				continue
			}
		}
		if class == 0 {
			starter = len(out)
		}
		lastClass = class
		out = append(out, c)
	}
	return out
}

func ccc(r rune) uint8 {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return norm.NFD.Properties(buf[:n]).CCC()
}

// compose returns the primary composite of a starter and the code point that follows it,
// if there is one (composition exclusions included, as x/text's NFC knows them).
func compose(starter, c rune) (rune, bool) {
	out := norm.NFC.String(string([]rune{starter, c}))
	r, size := utf8.DecodeRuneInString(out)
	if size != len(out) {
		return 0, false
	}
	return r, true
}
