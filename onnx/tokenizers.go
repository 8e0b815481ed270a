package onnx

import (
	"fmt"

	"github.com/atma-dev/atma/tokenizer/spm"
	"github.com/atma-dev/atma/tokenizer/wordpiece"
)

// LoadTokenizer opens the tokenizer a manifest names.
func LoadTokenizer(m *Manifest) (Tokenizer, error) {
	path := m.Path(m.Tokenizer.Path)
	var (
		tok Tokenizer
		err error
	)
	switch m.Tokenizer.Kind {
	case TokenizerWordPiece:
		tok, err = wordpiece.Load(path)
	case TokenizerSPM:
		tok, err = spm.Load(path)
	default:
		return nil, fmt.Errorf("backbone %s: unknown tokenizer kind %q", m.ID, m.Tokenizer.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("backbone %s: load tokenizer: %w", m.ID, err)
	}
	return tok, nil
}
