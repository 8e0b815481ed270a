package wordpiece

import (
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/tokenizer"
)

var update = flag.Bool("update", false, "rewrite testdata/encode.golden from the current output")

// TestPublished checks the bert-base-uncased values published by daulet/tokenizers.
func TestPublished(t *testing.T) {
	tok := loadBERT(t)
	data, err := os.ReadFile(filepath.Join("testdata", "published.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Encode []struct {
			Name      string   `json:"name"`
			Text      string   `json:"text"`
			MaxTokens int      `json:"max_tokens"`
			IDs       []int32  `json:"ids"`
			Tokens    []string `json:"tokens"`
			Offsets   [][2]int `json:"offsets"`
		} `json:"encode"`
		Decode []struct {
			Name        string  `json:"name"`
			IDs         []int32 `json:"ids"`
			SkipSpecial bool    `json:"skip_special"`
			Want        string  `json:"want"`
		} `json:"decode"`
		VocabSize int `json:"vocab_size"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Encode) == 0 || len(g.Decode) == 0 {
		t.Fatal("published.golden has no cases")
	}
	for _, c := range g.Encode {
		t.Run("encode/"+c.Name, func(t *testing.T) {
			got, err := tok.Encode(c.Text, c.MaxTokens)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.IDs, c.IDs) || !slices.Equal(got.Tokens, c.Tokens) || !slices.Equal(got.Offsets, c.Offsets) {
				t.Errorf("Encode(%q, %d) = %v %q %v, want %v %q %v", c.Text, c.MaxTokens,
					got.IDs, got.Tokens, got.Offsets, c.IDs, c.Tokens, c.Offsets)
			}
		})
	}
	for _, c := range g.Decode {
		t.Run("decode/"+c.Name, func(t *testing.T) {
			if got := tok.Decode(c.IDs, c.SkipSpecial); got != c.Want {
				t.Errorf("Decode(%v, %v) = %q, want %q", c.IDs, c.SkipSpecial, got, c.Want)
			}
		})
	}
	if got := tok.VocabSize(); got != g.VocabSize {
		t.Errorf("VocabSize() = %d, want %d", got, g.VocabSize)
	}
}

// goldenCases are the cases of testdata/encode.golden, one or more per kind of input.
var goldenCases = []struct {
	name      string
	text      string
	maxTokens int
}{
	{"accents", "café naïve Ångström résumé coöperate", 0},
	{"accents/uppercase", "CAFÉ NAÏVE ÅNGSTRÖM", 0},
	{"accents/combining", "cafe\u0301 with a combining accent", 0},
	{"accents/turkish", "Türkçe: İstanbul, Iğdır, ılık, ŞEHİR", 0},
	{"cjk", "中文字", 0},
	{"cjk/mixed", "Mixed 中文 and English 文字 text", 0},
	{"cjk/japanese", "日本語のテキストです。カタカナとひらがな。", 0},
	{"hangul", "안녕하세요 세계", 0},
	{"emoji", "emoji 😀 smile", 0},
	{"emoji/zwj", "👨\u200d👩\u200d👧\u200d👦 family", 0},
	{"punctuation/run", "Wait... what?!?!", 0},
	{"punctuation/symbols", "@@##$$%%^^&&**", 0},
	{"punctuation/unicode", "«Bonjour», dit-il. ¿Dónde?", 0},
	{"digits", "The year 2024 had 366 days; 3.14159 and 1,234.56", 0},
	{"contractions", "don't won't I'm you're he's we've they'd", 0},
	{"long/100 chars", strings.Repeat("a", 100), 0},
	{"long/101 chars", strings.Repeat("a", 101), 0},
	{"long/101 chars after NFD", strings.Repeat("é", 101), 0},
	{"control/removed", "bell\x07char null\x00byte soft\u00adhyphen zero\u200bwidth bom\ufeff", 0},
	{"control/whitespace", "tabs\tbetween\twords\nnew\r\nlines\u00a0nbsp\u3000ideographic", 0},
	{"special/literal", "hello [SEP] world [MASK] [CLS]", 0},
	{"special/adjacent", "x[MASK]y[SEP][SEP]", 0},
	{"special/lowercase is text", "[mask] [sep]", 0},
	{"empty", "", 0},
	{"whitespace only", " \t\n\u3000 ", 0},
	{"truncate/2", "brown fox jumps over the lazy dog", 2},
	{"truncate/3", "brown fox jumps over the lazy dog", 3},
	{"truncate/5", "brown fox jumps over the lazy dog", 5},
	{"truncate/exact fit", "brown fox jumps over the lazy dog", 9},
	{"truncate/one short", "brown fox jumps over the lazy dog", 8},
	{"truncate/mid word", "Pneumonoultramicroscopicsilicovolcanoconiosis", 5},
	{"truncate/empty", "", 2},
	{"offsets/multibyte", "Ünïcödé 😀 中 x", 0},
}

type goldenEncoding struct {
	Text      string   `json:"text"`
	MaxTokens int      `json:"max_tokens"`
	IDs       []int32  `json:"ids"`
	TypeIDs   []int32  `json:"type_ids"`
	Tokens    []string `json:"tokens"`
	Offsets   [][2]int `json:"offsets"`
	Truncated bool     `json:"truncated"`
	Decoded   string   `json:"decoded"`
}

// TestEncodeGolden compares Encode with testdata/encode.golden (run with -update to
// rewrite it). The file is a readable record of each kind of input; its values also agree
// with the reference implementation wherever hf.golden has the same input.
func TestEncodeGolden(t *testing.T) {
	tok := loadBERT(t)
	path := filepath.Join("testdata", "encode.golden")
	got := make(map[string]goldenEncoding)
	for _, c := range goldenCases {
		enc, err := tok.Encode(c.text, c.maxTokens)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got[c.name] = toGolden(tok, c.text, c.maxTokens, enc)
	}
	if *update {
		data, err := formatGolden(got)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestEncodeGolden -update to create it)", err)
	}
	var want map[string]goldenEncoding
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			w, ok := want[c.name]
			if !ok {
				t.Fatalf("no golden entry (run with -update)")
			}
			if diff := cmp.Diff(w, got[c.name]); diff != "" {
				t.Errorf("Encode(%q, %d) mismatch (-golden +got):\n%s", c.text, c.maxTokens, diff)
			}
		})
	}
	if len(want) != len(goldenCases) {
		t.Errorf("encode.golden has %d entries, want %d (run with -update)", len(want), len(goldenCases))
	}

	// Cross-check with the reference wherever it encoded the same input.
	hf := make(map[string]hfCase)
	for _, c := range readHFGolden(t, "hf.golden", 200) {
		hf[c.Text+"\x00"+string(rune(c.MaxTokens))] = c
	}
	for name, w := range want {
		h, ok := hf[w.Text+"\x00"+string(rune(w.MaxTokens))]
		if !ok {
			continue
		}
		if !slices.Equal(w.IDs, h.IDs) || !slices.Equal(w.Offsets, h.Offsets) || w.Truncated != h.Truncated {
			t.Errorf("encode.golden %q disagrees with hf.golden %s", name, h.Name)
		}
	}
}

func toGolden(tok *Tokenizer, text string, maxTokens int, enc tokenizer.Encoding) goldenEncoding {
	return goldenEncoding{
		Text:      text,
		MaxTokens: maxTokens,
		IDs:       enc.IDs,
		TypeIDs:   enc.TypeIDs,
		Tokens:    enc.Tokens,
		Offsets:   enc.Offsets,
		Truncated: enc.Truncated,
		Decoded:   tok.Decode(enc.IDs, true),
	}
}

// formatGolden writes one field per line, so that a diff of the file reads well.
func formatGolden(cases map[string]goldenEncoding) ([]byte, error) {
	var b strings.Builder
	b.WriteString("{\n")
	names := slices.Sorted(maps.Keys(cases))
	for i, name := range names {
		c := cases[name]
		fields := []struct {
			key string
			val any
		}{
			{"text", c.Text}, {"max_tokens", c.MaxTokens}, {"ids", c.IDs}, {"type_ids", c.TypeIDs},
			{"tokens", c.Tokens}, {"offsets", c.Offsets}, {"truncated", c.Truncated}, {"decoded", c.Decoded},
		}
		key, err := marshalPlain(name)
		if err != nil {
			return nil, err
		}
		b.WriteString(" " + key + ": {\n")
		for j, f := range fields {
			v, err := marshalPlain(f.val)
			if err != nil {
				return nil, err
			}
			b.WriteString("  \"" + f.key + "\": " + v)
			if j < len(fields)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(" }")
		if i < len(names)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return []byte(b.String()), nil
}

// marshalPlain is json.Marshal without escaping <, > and &.
func marshalPlain(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
