package wordpiece

import "unicode/utf8"

// token is one model or added token before post-processing.
type token struct {
	id    int32
	value string
	off   span
}

// wordPieceModel is the Hugging Face WordPiece model: greedy longest-match-first over the
// vocabulary, continuation pieces carrying a prefix ("##"), and one unknown token for a
// word that cannot be covered or that is longer than maxChars characters.
type wordPieceModel struct {
	vocab     map[string]int32
	idToToken []string
	unk       string
	unkID     int32
	prefix    string
	maxChars  int
	// Longest vocabulary entry in bytes, and longest continuation entry without its
	// prefix: no longer candidate can match, so the search starts there.
	maxWordLen int
	maxContLen int
}

// wordScratch holds per-call buffers for tokenizeWord.
type wordScratch struct {
	word   []byte
	charAt []int32 // byte offset (at a character boundary) -> character index
	key    []byte
}

// tokenizeWord appends the tokens of one pre-token, given as its normalised characters
// and their alignments, to dst. It mirrors WordPiece::tokenize in models/wordpiece/mod.rs.
func (m *wordPieceModel) tokenizeWord(dst []token, runes []rune, aligns []span, s *wordScratch) []token {
	whole := span{aligns[0].start, aligns[len(aligns)-1].end}
	if len(runes) > m.maxChars {
		return append(dst, token{id: m.unkID, value: m.unk, off: whole})
	}
	s.word = s.word[:0]
	s.charAt = s.charAt[:0]
	for i, r := range runes {
		before := len(s.word)
		s.word = utf8.AppendRune(s.word, r)
		for range len(s.word) - before {
			s.charAt = append(s.charAt, int32(i))
		}
	}
	s.charAt = append(s.charAt, int32(len(runes)))
	w := s.word
	mark := len(dst)
	for start := 0; start < len(w); {
		limit := m.maxWordLen
		if start > 0 {
			limit = m.maxContLen
		}
		end := len(w)
		if end-start > limit {
			end = start + limit
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		var (
			id    int32
			found bool
		)
		for end > start {
			if start == 0 {
				id, found = m.vocab[string(w[:end])]
			} else {
				s.key = append(append(s.key[:0], m.prefix...), w[start:end]...)
				id, found = m.vocab[string(s.key)]
			}
			if found {
				break
			}
			_, size := utf8.DecodeLastRune(w[start:end])
			end -= size
		}
		if !found {
			return append(dst[:mark], token{id: m.unkID, value: m.unk, off: whole})
		}
		var value string
		if start == 0 {
			value = m.pieceString(id, w[:end])
		} else {
			value = m.pieceString(id, s.key)
		}
		dst = append(dst, token{
			id:    id,
			value: value,
			off:   span{aligns[s.charAt[start]].start, aligns[s.charAt[end]-1].end},
		})
		start = end
	}
	return dst
}

// pieceString returns the vocabulary entry for id, which is key unless the vocabulary
// gives one id to several entries; it avoids an allocation per token.
func (m *wordPieceModel) pieceString(id int32, key []byte) string {
	if int(id) < len(m.idToToken) && m.idToToken[id] == string(key) {
		return m.idToToken[id]
	}
	return string(key)
}
