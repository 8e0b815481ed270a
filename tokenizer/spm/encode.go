package spm

import (
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/atma-dev/atma/tokenizer"
)

// edge is one lattice arc: a piece (or an unknown code point, id 0) over symbols
// [start, end).
type edge struct {
	start, end int32
	id         int32
}

// workspace holds the buffers of one Encode call; they are pooled between calls.
type workspace struct {
	sym    symbols
	edges  []edge
	byEnd  []edge
	perEnd []int32
	best   []float64
	words  []int32
	toks   []token
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// maxPooledSymbols keeps the buffers of huge texts out of the pool.
const maxPooledSymbols = 1 << 16

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
	ws := workspaces.Get().(*workspace)
	defer func() {
		if cap(ws.sym.runes) <= maxPooledSymbols {
			workspaces.Put(ws)
		}
	}()
	prepare(text, &ws.sym)
	toks := t.segment(ws)

	enc := tokenizer.Encoding{}
	if maxTokens > 0 && len(toks) > maxTokens {
		toks = toks[:maxTokens]
		enc.Truncated = true
	}
	enc.IDs = make([]int32, len(toks))
	enc.TypeIDs = make([]int32, len(toks))
	enc.Tokens = make([]string, len(toks))
	enc.Offsets = make([][2]int, len(toks))
	spans := ws.sym.spans
	for i, tok := range toks {
		enc.IDs[i] = tok.id
		enc.Tokens[i] = t.pieces[tok.id]
		enc.Offsets[i] = [2]int{spans[tok.start][0], spans[tok.end-1][1]}
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
// backward pass and the merging of unknown runs. The result lives in ws.
func (t *Tokenizer) segment(ws *workspace) []token {
	runes := ws.sym.runes
	n := len(runes)
	if n == 0 {
		return nil
	}
	// Lattice arcs in the order the JS visits them: by end position, then by start position
	// (for...in over integer keys is ascending); a (start, end) pair has a single piece.
	edges := ws.edges[:0]
	perEnd := resize(ws.perEnd, n+2)
	clear(perEnd)
	for i := range n {
		before := len(edges)
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.child(node, runes[j])
			if !ok {
				break
			}
			node = child
			if nd := t.nodes[node]; nd.id >= 0 {
				edges = append(edges, edge{start: int32(i), end: int32(i) + nd.depth, id: nd.id})
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
	byEnd := resize(ws.byEnd, len(edges))
	fill := resize(ws.words, n+2) // scratch until the forward pass
	copy(fill, perEnd)
	for _, e := range edges { // stable: starts stay ascending within an end
		byEnd[fill[e.end]] = e
		fill[e.end]++
	}
	ws.edges, ws.perEnd, ws.byEnd = edges, perEnd, byEnd

	// Forward pass. best[k] == 0 doubles as "no path yet" in the JS, so an arc always wins
	// over a best of exactly 0, and ties go to the later (shorter) arc. Pieces score what the
	// vocabulary says, unknown code points 0.
	best := resize(ws.best, n+1)
	words := resize(ws.words, n+1)
	clear(best)
	clear(words)
	ws.best, ws.words = best, words
	for end := 1; end <= n; end++ {
		for _, e := range byEnd[perEnd[end]:perEnd[end+1]] {
			score := best[e.start]
			if e.id != unknownID {
				score = t.scores[e.id] + score
			}
			if best[end] == 0 || score >= best[end] {
				best[end] = score
				words[end] = e.id
			}
		}
	}

	// Backward pass: from the end, step back by the chosen piece's length in UTF-16 units.
	// Runs of unknown ids collapse into one (the JS keeps the last of the run; the token here
	// covers all of it). Tokens are collected last to first.
	toks := ws.toks[:0]
	prevUnknown := false
	for iter := n; iter > 0; {
		id := words[iter]
		start := max(iter-int(t.backLen[id]), 0)
		isUnknown := id == unknownID
		if prevUnknown && isUnknown {
			toks[len(toks)-1].start = start
		} else {
			toks = append(toks, token{id: id, start: start, end: iter})
		}
		prevUnknown = isUnknown
		iter -= int(t.backLen[id])
	}
	slices.Reverse(toks)
	ws.toks = toks
	return toks
}

// resize returns s with length n, reusing its storage when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
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
