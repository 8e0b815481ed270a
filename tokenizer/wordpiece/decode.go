package wordpiece

import "strings"

// wordPieceDecoder is the Hugging Face WordPiece decoder (decoders/wordpiece.rs).
type wordPieceDecoder struct {
	prefix  string
	cleanup bool
}

// cleanupPairs are the replacements of decoders::wordpiece::cleanup, applied in order to
// each token, as the Rust code does.
var cleanupPairs = [...][2]string{
	{" .", "."},
	{" ?", "?"},
	{" !", "!"},
	{" ,", ","},
	{" ' ", "'"},
	{" n't", "n't"},
	{" 'm", "'m"},
	{" do not", " don't"},
	{" 's", "'s"},
	{" 've", "'ve"},
	{" 're", "'re"},
}

func cleanup(tok string) string {
	if !strings.ContainsRune(tok, ' ') {
		return tok
	}
	for _, p := range cleanupPairs {
		tok = strings.ReplaceAll(tok, p[0], p[1])
	}
	return tok
}

// Decode turns ids back into text with the tokenizer's decoder (WordPiece: a piece starting
// with "##" is glued to the previous one, others are separated by a space, and spaces
// before punctuation are cleaned up). skipSpecial drops special tokens such as [CLS] and
// [PAD]. Ids outside the vocabulary are skipped, as Hugging Face does.
func (t *Tokenizer) Decode(ids []int32, skipSpecial bool) string {
	var b strings.Builder
	first := true
	for _, id := range ids {
		tok, ok := t.idToken(id)
		if !ok {
			continue
		}
		if skipSpecial && t.added.special[tok] {
			continue
		}
		if t.decoder == nil {
			// No decoder: Hugging Face joins the tokens with spaces.
			if !first {
				b.WriteByte(' ')
			}
			b.WriteString(tok)
			first = false
			continue
		}
		if !first {
			if strings.HasPrefix(tok, t.decoder.prefix) {
				tok = strings.Replace(tok, t.decoder.prefix, "", 1)
			} else {
				tok = " " + tok
			}
		}
		if t.decoder.cleanup {
			tok = cleanup(tok)
		}
		b.WriteString(tok)
		first = false
	}
	return b.String()
}
