package wordpiece

import (
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/atma-dev/atma/tokenizer"
)

// ErrInvalidUTF8 is returned by Encode for a text that is not valid UTF-8; the error wraps
// it with the offset of the first invalid byte.
var ErrInvalidUTF8 = errors.New("text is not valid UTF-8")

// Tokenizer is a BERT WordPiece tokenizer loaded from a Hugging Face tokenizer.json.
// It is immutable once built and safe for concurrent use by multiple goroutines.
type Tokenizer struct {
	model            wordPieceModel
	normalizer       *bertNormalizer // nil: no normaliser
	bertPreTokenizer bool            // false: the whole normalised text is one word
	added            *addedVocab
	template         []templateItem // nil: no post-processor
	nSpecial         int            // tokens the template adds
	decoder          *wordPieceDecoder
	padID            int32
	vocabSize        int

	scratch sync.Pool // *encodeScratch
}

// templateItem is one piece of the single-sequence template: special tokens, or (special
// false) the place of the text's tokens.
type templateItem struct {
	special bool
	ids     []int32
	tokens  []string
	typeID  int32
}

// maxPooledText is the longest text whose buffers go back to the pool.
const maxPooledText = 1 << 16

// encodeScratch holds the buffers of one Encode call.
type encodeScratch struct {
	norm, stage normalized
	word        wordScratch
	pieces      []piece
	npieces     []piece
	nstr        []byte
	charAt      []int32
	tokens      []token
}

// Encode tokenises text and adds the post-processor's special tokens ([CLS] … [SEP] for
// BERT). Special tokens written in the text, such as "[SEP]" or "[MASK]", are matched as
// those tokens, as Hugging Face does for added tokens.
//
// maxTokens > 0 limits the result, special tokens included, to at most maxTokens tokens:
// the text's tokens are cut on the right, the special tokens are kept and Truncated is set.
// A maxTokens smaller than the number of special tokens is an error; 0 means no limit.
//
// Offsets are byte offsets into text; the post-processor's special tokens have [0, 0].
func (t *Tokenizer) Encode(text string, maxTokens int) (tokenizer.Encoding, error) {
	if maxTokens < 0 {
		return tokenizer.Encoding{}, fmt.Errorf("encode: negative maxTokens %d", maxTokens)
	}
	if maxTokens > 0 && maxTokens < t.nSpecial {
		return tokenizer.Encoding{}, fmt.Errorf("encode: maxTokens %d leaves no room for the %d special tokens", maxTokens, t.nSpecial)
	}
	if !utf8.ValidString(text) {
		return tokenizer.Encoding{}, fmt.Errorf("encode: %w at byte %d", ErrInvalidUTF8, invalidUTF8At(text))
	}
	s, _ := t.scratch.Get().(*encodeScratch)
	if s == nil {
		s = &encodeScratch{}
	}
	defer func() {
		// Keep the buffers of ordinary texts only, so that one huge text does not pin
		// its memory in the pool.
		if len(text) <= maxPooledText {
			clear(s.tokens) // drop references into text
			t.scratch.Put(s)
		}
	}()

	toks := t.tokenize(s, text)
	truncated := false
	if maxTokens > 0 && len(toks)+t.nSpecial > maxTokens {
		toks = toks[:maxTokens-t.nSpecial]
		truncated = true
	}
	return t.postProcess(toks, truncated), nil
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
}

// tokenize runs added-token extraction, normalisation, pre-tokenisation and the model,
// as Tokenizer::encode_single_sequence does.
func (t *Tokenizer) tokenize(s *encodeScratch, text string) []token {
	s.tokens = s.tokens[:0]
	s.pieces = t.added.raw.split(s.pieces[:0], text)
	for _, p := range s.pieces {
		if p.tok != nil {
			s.tokens = append(s.tokens, token{id: p.tok.id, value: text[p.start:p.end], off: span{p.start, p.end}})
			continue
		}
		seg := text[p.start:p.end]
		if t.normalizer != nil {
			t.normalizer.normalize(&s.norm, &s.stage, seg, p.start)
		} else {
			identity(&s.norm, seg, p.start)
		}
		n := &s.norm
		if t.added.norm.empty() {
			s.tokens = t.preTokenizeAndModel(s, s.tokens, n.runes, n.aligns)
			continue
		}
		// Added tokens that match the normalised text: split the normalised string.
		s.nstr = s.nstr[:0]
		s.charAt = s.charAt[:0]
		for i, r := range n.runes {
			before := len(s.nstr)
			s.nstr = utf8.AppendRune(s.nstr, r)
			for range len(s.nstr) - before {
				s.charAt = append(s.charAt, int32(i))
			}
		}
		s.charAt = append(s.charAt, int32(len(n.runes)))
		nstr := string(s.nstr)
		s.npieces = t.added.norm.split(s.npieces[:0], nstr)
		for _, np := range s.npieces {
			lo, hi := s.charAt[np.start], s.charAt[np.end]
			if np.tok != nil {
				s.tokens = append(s.tokens, token{
					id:    np.tok.id,
					value: nstr[np.start:np.end],
					off:   span{n.aligns[lo].start, n.aligns[hi-1].end},
				})
				continue
			}
			s.tokens = t.preTokenizeAndModel(s, s.tokens, n.runes[lo:hi], n.aligns[lo:hi])
		}
	}
	return s.tokens
}

// preTokenizeAndModel splits normalised text into words as BertPreTokenizer does
// (whitespace removed, each punctuation character alone) and runs the model on each.
func (t *Tokenizer) preTokenizeAndModel(s *encodeScratch, dst []token, runes []rune, aligns []span) []token {
	if len(runes) == 0 {
		return dst
	}
	if !t.bertPreTokenizer {
		return t.model.tokenizeWord(dst, runes, aligns, &s.word)
	}
	start := 0
	for i, r := range runes {
		switch preTokClass(r) {
		case preSpace:
			if start < i {
				dst = t.model.tokenizeWord(dst, runes[start:i], aligns[start:i], &s.word)
			}
			start = i + 1
		case prePunct:
			if start < i {
				dst = t.model.tokenizeWord(dst, runes[start:i], aligns[start:i], &s.word)
			}
			dst = t.model.tokenizeWord(dst, runes[i:i+1], aligns[i:i+1], &s.word)
			start = i + 1
		}
	}
	if start < len(runes) {
		dst = t.model.tokenizeWord(dst, runes[start:], aligns[start:], &s.word)
	}
	return dst
}

// postProcess copies toks into a fresh Encoding wrapped in the template's special tokens.
func (t *Tokenizer) postProcess(toks []token, truncated bool) tokenizer.Encoding {
	n := len(toks) + t.nSpecial
	enc := tokenizer.Encoding{
		IDs:       make([]int32, 0, n),
		TypeIDs:   make([]int32, 0, n),
		Tokens:    make([]string, 0, n),
		Offsets:   make([][2]int, 0, n),
		Truncated: truncated,
	}
	appendSeq := func(typeID int32) {
		for _, tk := range toks {
			enc.IDs = append(enc.IDs, tk.id)
			enc.TypeIDs = append(enc.TypeIDs, typeID)
			enc.Tokens = append(enc.Tokens, tk.value)
			enc.Offsets = append(enc.Offsets, [2]int{tk.off.start, tk.off.end})
		}
	}
	if t.template == nil {
		appendSeq(0)
		return enc
	}
	for _, it := range t.template {
		if !it.special {
			appendSeq(it.typeID)
			continue
		}
		for k, id := range it.ids {
			enc.IDs = append(enc.IDs, id)
			enc.TypeIDs = append(enc.TypeIDs, it.typeID)
			enc.Tokens = append(enc.Tokens, it.tokens[k])
			enc.Offsets = append(enc.Offsets, [2]int{0, 0})
		}
	}
	return enc
}

// PadID is the id to pad with: the padding section's pad_id, else the id of its pad_token,
// else the id of "[PAD]", else 0.
func (t *Tokenizer) PadID() int32 { return t.padID }

// VocabSize is the number of distinct token strings, added tokens included (Hugging Face's
// get_vocab_size(true)).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// tokenID looks a token string up among the added tokens, then in the vocabulary.
func (t *Tokenizer) tokenID(tok string) (int32, bool) {
	if t.added != nil {
		for id, at := range t.added.byID {
			if at.content == tok {
				return id, true
			}
		}
	}
	id, ok := t.model.vocab[tok]
	return id, ok
}

// idToken is the string Decode uses for id: the added token's (normalised) content, else
// the vocabulary entry.
func (t *Tokenizer) idToken(id int32) (string, bool) {
	if at, ok := t.added.byID[id]; ok {
		return at.decoded, true
	}
	if id >= 0 && int(id) < len(t.model.idToToken) && t.model.idToToken[id] != "" {
		return t.model.idToToken[id], true
	}
	return "", false
}

// normalizeForPattern is the normalised form of an added token's content.
func (t *Tokenizer) normalizeForPattern(content string) string {
	if t.normalizer == nil {
		return content
	}
	var n, scratch normalized
	t.normalizer.normalize(&n, &scratch, content, 0)
	return string(n.runes)
}
