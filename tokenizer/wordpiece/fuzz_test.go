package wordpiece

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzEncode checks the invariants of Encode on arbitrary input: no panic; an error only
// for invalid UTF-8 or a limit below the special tokens; ids in the vocabulary; slices of
// one length; offsets inside the text and non-decreasing; a truncated result is a prefix
// of the full one; and, when no token is unknown or special, the decoded text equals the
// normalised text up to spaces.
func FuzzEncode(f *testing.F) {
	tok := loadBERT(f)
	data, err := os.ReadFile(filepath.Join("testdata", "corpus.json"))
	if err != nil {
		f.Fatal(err)
	}
	var corpus []string
	if err := json.Unmarshal(data, &corpus); err != nil {
		f.Fatal(err)
	}
	for i, s := range corpus {
		f.Add(s, uint8(i%12))
	}
	f.Add("ab\xffcd", uint8(0))
	f.Add("x\U0001D16D\U0001D165y", uint8(0))
	f.Fuzz(func(t *testing.T, text string, limit uint8) {
		maxTokens := int(limit % 16)
		enc, err := tok.Encode(text, maxTokens)
		switch {
		case maxTokens == 1:
			if err == nil {
				t.Fatalf("Encode(%q, 1): no error for a limit below the special tokens", text)
			}
			return
		case !utf8.ValidString(text):
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("Encode(%q): error %v, want ErrInvalidUTF8", text, err)
			}
			return
		case err != nil:
			t.Fatalf("Encode(%q, %d): %v", text, maxTokens, err)
		}
		n := enc.Len()
		if len(enc.TypeIDs) != n || len(enc.Tokens) != n || len(enc.Offsets) != n {
			t.Fatalf("slice lengths %d %d %d %d", n, len(enc.TypeIDs), len(enc.Tokens), len(enc.Offsets))
		}
		if n < 2 || enc.IDs[0] != 101 || enc.IDs[n-1] != 102 {
			t.Fatalf("ids %v do not start with [CLS] and end with [SEP]", enc.IDs)
		}
		if maxTokens > 0 && n > maxTokens {
			t.Fatalf("%d tokens, limit %d", n, maxTokens)
		}
		lastStart := 0
		for i, id := range enc.IDs {
			if id < 0 || int(id) >= tok.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
			if i == 0 || i == n-1 {
				continue
			}
			off := enc.Offsets[i]
			if off[0] < 0 || off[0] > off[1] || off[1] > len(text) {
				t.Fatalf("offsets %v outside text of %d bytes", off, len(text))
			}
			if off[0] < lastStart {
				t.Fatalf("offsets %v decrease (previous start %d)", enc.Offsets, lastStart)
			}
			lastStart = off[0]
		}
		full := enc
		if maxTokens > 0 {
			if full, err = tok.Encode(text, 0); err != nil {
				t.Fatal(err)
			}
			if full.Len() > maxTokens != enc.Truncated {
				t.Fatalf("Truncated = %v with %d tokens untruncated and limit %d", enc.Truncated, full.Len(), maxTokens)
			}
			if !slices.Equal(enc.IDs[:n-1], full.IDs[:n-1]) {
				t.Fatalf("truncated ids %v are not a prefix of %v", enc.IDs, full.IDs)
			}
		}
		if slices.ContainsFunc(full.IDs[1:full.Len()-1], func(id int32) bool { return id == 100 || (id >= 101 && id <= 103) || id == 0 }) {
			return
		}
		var norm, scratch normalized
		tok.normalizer.normalize(&norm, &scratch, text, 0)
		want := dropSpaces(string(norm.runes))
		got := dropSpaces(tok.Decode(full.IDs, true))
		if got != want {
			t.Fatalf("Decode gives %q, normalised text is %q", got, want)
		}
	})
}

func dropSpaces(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
