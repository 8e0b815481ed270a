package wordpiece

import (
	"slices"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// span is a [start, end) byte range in the original text.
type span struct{ start, end int }

// normalized is a normalised piece of text: its characters and, for each, the byte range
// of the original character it came from (Hugging Face's alignments, kept per character
// since every byte of a character shares one).
type normalized struct {
	runes  []rune
	aligns []span
}

func (n *normalized) reset() {
	n.runes = n.runes[:0]
	n.aligns = n.aligns[:0]
}

func (n *normalized) push(r rune, a span) {
	n.runes = append(n.runes, r)
	n.aligns = append(n.aligns, a)
}

// bertNormalizer is the Hugging Face BertNormalizer. Its steps run in this order, as in
// normalizers/bert.rs: clean text, pad CJK ideographs with spaces, strip accents (NFD then
// drop Mn), lowercase.
type bertNormalizer struct {
	cleanText     bool
	handleChinese bool
	stripAccents  bool
	lowercase     bool
}

// identity loads text (which starts at byte base of the input) into n unchanged.
func identity(n *normalized, text string, base int) {
	n.reset()
	for i, r := range text {
		n.push(r, span{base + i, base + i + utf8.RuneLen(r)})
	}
}

// normalize writes the normalised form of text (which starts at byte base of the input)
// into n. scratch is reused between calls.
func (bn *bertNormalizer) normalize(n *normalized, scratch *normalized, text string, base int) {
	n.reset()
	// Stage 1 and 2: clean text and CJK padding, one original character at a time.
	// An inserted space shares the alignment of the character before it (or the empty
	// range at the start), as NormalizedString::transform does.
	stage := n // the last stage writes to n
	if bn.stripAccents || bn.lowercase {
		stage = scratch
		stage.reset()
	}
	prev := span{base, base}
	for i, r := range text {
		a := span{base + i, base + i + utf8.RuneLen(r)}
		if bn.cleanText {
			if r == 0 || r == 0xFFFD || isBertControl(r) {
				continue
			}
			if isBertWhitespace(r) {
				r = ' '
			}
		}
		if bn.handleChinese && isChineseChar(r) {
			stage.push(' ', prev)
			stage.push(r, a)
			stage.push(' ', a)
		} else {
			stage.push(r, a)
		}
		prev = a
	}
	if stage == n {
		return
	}
	// Stage 3: NFD with canonical reordering into n, then drop non-spacing marks and
	// (stage 4) lowercase while copying back to scratch; the two buffers then swap.
	if bn.stripAccents {
		n.reset()
		decomposeNFD(n, scratch)
		scratch.reset()
		for j, r := range n.runes {
			if isNonspacingMark(r) {
				continue
			}
			if bn.lowercase {
				scratch.appendLower(r, n.aligns[j])
			} else {
				scratch.push(r, n.aligns[j])
			}
		}
		*n, *scratch = *scratch, *n
		return
	}
	// Stage 4 alone: lowercase.
	n.reset()
	for j, r := range scratch.runes {
		n.appendLower(r, scratch.aligns[j])
	}
}

// appendLower appends the full lowercase mapping of r; an expansion (U+0130) shares the
// alignment of r.
func (n *normalized) appendLower(r rune, a span) {
	before := len(n.runes)
	n.runes = toLowerFull(n.runes, r)
	for range len(n.runes) - before {
		n.aligns = append(n.aligns, a)
	}
}

// decomposeNFD appends the canonical decomposition of src to dst, with canonical ordering
// of combining marks. Each output character keeps the alignment of the character it came
// from.
func decomposeNFD(dst *normalized, src *normalized) {
	var buf [4]byte
	runStart := len(dst.runes) // first index of the current run of non-starters
	push := func(c rune, enc []byte, a span) {
		ccc := cccOfBytes(c, enc)
		if ccc == 0 {
			dst.push(c, a)
			runStart = len(dst.runes)
			return
		}
		// Insert c after every earlier non-starter of its run with a combining class not
		// above its own (a stable insertion sort, as canonical ordering requires).
		k := len(dst.runes)
		for k > runStart && cccOf(dst.runes[k-1]) > ccc {
			k--
		}
		dst.runes = slices.Insert(dst.runes, k, c)
		dst.aligns = slices.Insert(dst.aligns, k, a)
	}
	for j, r := range src.runes {
		a := src.aligns[j]
		if r < 0xC0 || hfNoDecomposition(r) {
			// Nothing below U+00C0 has a canonical decomposition or a non-zero
			// combining class.
			push(r, nil, a)
			continue
		}
		if r >= hangulBase && r < hangulBase+hangulCount {
			// Hangul syllables decompose algorithmically into conjoining jamo, all
			// starters.
			s := r - hangulBase
			dst.push(jamoL+s/(jamoV*jamoT), a)
			dst.push(jamoVBase+(s%(jamoV*jamoT))/jamoT, a)
			if t := s % jamoT; t != 0 {
				dst.push(jamoTBase+t, a)
			}
			runStart = len(dst.runes)
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		dec := norm.NFD.Properties(buf[:n]).Decomposition()
		if dec == nil {
			push(r, buf[:n], a)
			continue
		}
		for len(dec) > 0 {
			c, size := utf8.DecodeRune(dec)
			push(c, dec[:size], a)
			dec = dec[size:]
		}
	}
}

// Hangul syllable decomposition constants (Unicode 3.12).
const (
	hangulBase  = 0xAC00
	hangulCount = 11172
	jamoL       = 0x1100
	jamoVBase   = 0x1161
	jamoTBase   = 0x11A7
	jamoV       = 21
	jamoT       = 28
)

// cccOf is the canonical combining class of r as Hugging Face's tables have it: characters
// they do not know have class 0.
func cccOf(r rune) uint8 {
	if r < 0x300 {
		return 0
	}
	var buf [4]byte
	n := utf8.EncodeRune(buf[:], r)
	return cccOfBytes(r, buf[:n])
}

func cccOfBytes(r rune, enc []byte) uint8 {
	if r < 0x300 || enc == nil || hfUnassigned(r) {
		return 0
	}
	return norm.NFD.Properties(enc).CCC()
}
