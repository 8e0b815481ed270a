package spm

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func FuzzEncode(f *testing.F) {
	tok := useLite(f)
	for _, it := range readGolden(f).Items {
		f.Add(it.Text, uint8(0))
	}
	f.Add("Hello world.", uint8(2))
	f.Add("a\xffb", uint8(0))
	f.Add("x"+strings.Repeat("\u0316\u0301", 20), uint8(3))
	f.Fuzz(func(t *testing.T, text string, maxTokens uint8) {
		enc, err := tok.Encode(text, int(maxTokens))
		if !utf8.ValidString(text) {
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("Encode(%q) error = %v, want ErrInvalidUTF8", text, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Encode(%q): %v", text, err)
		}
		n := enc.Len()
		if len(enc.TypeIDs) != n || len(enc.Tokens) != n || len(enc.Offsets) != n {
			t.Fatalf("lengths differ: %d ids, %d type ids, %d tokens, %d offsets", n, len(enc.TypeIDs), len(enc.Tokens), len(enc.Offsets))
		}
		prevStart := 0
		for i, id := range enc.IDs {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d out of range [0, %d)", id, tok.VocabSize())
			}
			if enc.Tokens[i] != tok.pieces[id] || enc.TypeIDs[i] != 0 {
				t.Fatalf("token %d: %q type %d for id %d", i, enc.Tokens[i], enc.TypeIDs[i], id)
			}
			o := enc.Offsets[i]
			if o[0] < prevStart || o[0] > o[1] || o[1] > len(text) {
				t.Fatalf("offset %d = %v (previous start %d, text %d bytes)", i, o, prevStart, len(text))
			}
			prevStart = o[0]
		}
		full, err := tok.Encode(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		if text != "" && full.Len() == 0 {
			t.Fatalf("Encode(%q) gave no tokens", text)
		}
		wantTrunc := maxTokens > 0 && full.Len() > int(maxTokens)
		if enc.Truncated != wantTrunc || !slices.Equal(enc.IDs, full.IDs[:n]) {
			t.Fatalf("maxTokens %d: %v (truncated %v), full %v", maxTokens, enc.IDs, enc.Truncated, full.IDs)
		}
		// Where x/text inserts no CGJ, the segment-wise NFKC is exactly x/text's NFKC.
		want := norm.NFKC.String(text)
		if strings.Count(want, cgjStr) == strings.Count(text, cgjStr) {
			var got strings.Builder
			for _, seg := range nfkcSegments(text) {
				got.WriteString(string(seg.out))
			}
			if got.String() != want {
				t.Fatalf("NFKC(%+q) = %+q, x/text says %+q", text, got.String(), want)
			}
		}
		// prepare's fast paths agree with the segment-by-segment normalization.
		var sym symbols
		prepare(text, &sym)
		var slow []rune
		if text != "" {
			slow = append(slow, wordStart)
		}
		for _, seg := range nfkcSegments(text) {
			for _, r := range seg.out {
				if r == ' ' {
					r = wordStart
				}
				slow = append(slow, r)
			}
		}
		if string(sym.runes) != string(slow) {
			t.Fatalf("prepare(%+q) = %+q, segments give %+q", text, string(sym.runes), string(slow))
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`[["\ufffd",0],["<s>",0],["</s>",0],["a",0],["b",0],["c",0],["\u2581",-1],["x",-2]]`))
	f.Add([]byte(`[["",0]]`))
	f.Add([]byte(`[["a",1e400]]`))
	f.Add([]byte(`[["<unk>",0],["\u2581ab",-1.5],["ab",-1],["ab",-2]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := Parse(data)
		if err != nil {
			return
		}
		enc, err := tok.Encode("ab x\u00e9", 0)
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		for _, id := range enc.IDs {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d out of range [0, %d)", id, tok.VocabSize())
			}
		}
	})
}
