// Package tokenizer holds what every atma tokenizer returns: an Encoding of token ids with
// their type ids, pieces and byte offsets. The tokenizers themselves live in sub-packages:
// wordpiece (Hugging Face tokenizer.json, BERT WordPiece, pure Go) and spm (the SentencePiece
// tokenizer of the Universal Sentence Encoder lite).
package tokenizer

// Encoding is one text turned into tokens. All slices have the same length.
type Encoding struct {
	// IDs are vocabulary ids, special tokens included.
	IDs []int32
	// TypeIDs are segment ids (all zero for a single sequence).
	TypeIDs []int32
	// Tokens are the vocabulary pieces of IDs.
	Tokens []string
	// Offsets are [start, end) byte offsets of each token in the input text; special tokens
	// added around the text (such as [CLS] and [SEP]) have [0, 0], while one typed in the
	// text has its real offsets.
	Offsets [][2]int
	// Truncated reports that tokens were dropped to fit the requested maximum.
	Truncated bool
}

// Len is the number of tokens.
func (e Encoding) Len() int { return len(e.IDs) }
