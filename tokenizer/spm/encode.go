package spm

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/atma-dev/atma/tokenizer"
)

// edge is one lattice arc: a piece covering symbols [start, end).
type edge struct {
	start, end int32
	id         int32
	score      float64
}

// Encode splits text into USE-lite token ids exactly as the JS Tokenizer.encode of
// @energetic-ai/embeddings 0.2.0 does (see doc.go). maxTokens > 0 keeps only the first
// maxTokens ids and sets Truncated when some were dropped; 0 means no limit. The model itself
// reads at most MaxModelTokens ids. The empty string gives no tokens.
//
// Offsets are byte offsets in text. A token spans the input bytes of the NFKC
// normalization segments its code points came from (a segment is usually one code point; a
// code point that NFKC splits, such as "ﬁ", gives its whole span to each token that holds
// part of it). The "▁" added in front of the text covers no input: a token made of it alone
// is [0, 0]. A merged run of unknown code points spans the whole run. Tokens are the
// vocabulary pieces of the ids (the unknown piece for id 0), TypeIDs are all zero.
func (t *Tokenizer) Encode(text string, maxTokens int) (tokenizer.Encoding, error) {
	if maxTokens < 0 {
		return tokenizer.Encoding{}, fmt.Errorf("spm encode: maxTokens %d is negative", maxTokens)
	}
	if !utf8.ValidString(text) {
		return tokenizer.Encoding{}, fmt.Errorf("spm encode: byte offset %d: %w", invalidOffset(text), ErrInvalidUTF8)
	}
	sym := prepare(text)
	toks := t.segment(sym.runes)

	enc := tokenizer.Encoding{}
	if maxTokens > 0 && len(toks) > maxTokens {
		toks = toks[:maxTokens]
		enc.Truncated = true
	}
	enc.IDs = make([]int32, len(toks))
	enc.TypeIDs = make([]int32, len(toks))
	enc.Tokens = make([]string, len(toks))
	enc.Offsets = make([][2]int, len(toks))
	for i, tok := range toks {
		enc.IDs[i] = tok.id
		enc.Tokens[i] = t.pieces[tok.id]
		enc.Offsets[i] = [2]int{sym.spans[tok.start][0], sym.spans[tok.end-1][1]}
	}
	return enc, nil
}

// token is one id of the result with the symbols [start, end) it covers.
type token struct {
	id         int32
	start, end int
}

// segment is the JS Tokenizer.encode after processInput: the lattice of every vocabulary
// piece (or unknown code point), the forward pass with its tie and sentinel rules, the
// backward pass and the merging of unknown runs.
func (t *Tokenizer) segment(runes []rune) []token {
	n := len(runes)
	if n == 0 {
		return nil
	}
	// Lattice arcs in the order the JS visits them: by end position, then by start position
	// (for...in over integer keys is ascending); a (start, end) pair has a single piece.
	edges := make([]edge, 0, 2*n)
	perEnd := make([]int32, n+2)
	for i := range n {
		before := len(edges)
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.edges[trieEdge{node, runes[j]}]
			if !ok {
				break
			}
			node = child
			if nd := &t.nodes[node]; nd.end {
				edges = append(edges, edge{start: int32(i), end: int32(i) + nd.depth, id: nd.id, score: nd.score})
			}
		}
		if len(edges) == before {
			// commonPrefixSearch with no match: the code point alone, id 0, score 0.
			edges = append(edges, edge{start: int32(i), end: int32(i) + 1, id: unknownID})
		}
		for _, e := range edges[before:] {
			perEnd[e.end+1]++
		}
	}
	for i := 1; i < len(perEnd); i++ {
		perEnd[i] += perEnd[i-1]
	}
	byEnd := make([]edge, len(edges))
	fill := slices.Clone(perEnd)
	for _, e := range edges { // stable: starts stay ascending within an end
		byEnd[fill[e.end]] = e
		fill[e.end]++
	}

	// Forward pass. best[k] == 0 doubles as "no path yet" in the JS, so an arc always wins
	// over a best of exactly 0, and ties go to the later (shorter) arc.
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	for end := 1; end <= n; end++ {
		for _, e := range byEnd[perEnd[end]:perEnd[end+1]] {
			score := e.score + best[e.start]
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = e.id
			}
		}
	}

	// Backward pass: from the end, step back by the chosen piece's length in UTF-16 units.
	var rev []token
	for iter := n; iter > 0; {
		id := words[iter]
		start := max(iter-int(t.backLen[id]), 0)
		rev = append(rev, token{id: id, start: start, end: iter})
		iter -= int(t.backLen[id])
	}

	// Runs of unknown ids collapse into one (the JS keeps the last of the run; the offsets
	// here cover all of it).
	out := make([]token, 0, len(rev))
	prevUnknown := false
	for _, tok := range rev {
		isUnknown := tok.id == unknownID
		if prevUnknown && isUnknown {
			out[len(out)-1].start = tok.start
		} else {
			out = append(out, tok)
		}
		prevUnknown = isUnknown
	}
	slices.Reverse(out)
	return out
}

// invalidOffset is the byte offset of the first invalid UTF-8 sequence in s.
func invalidOffset(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(s)
}
