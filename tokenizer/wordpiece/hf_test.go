package wordpiece

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// hfCase is one encoding produced by the reference implementation (testdata/hf_golden.js).
type hfCase struct {
	Variant            string   `json:"variant"`
	Name               string   `json:"name"`
	Text               string   `json:"text"`
	MaxTokens          int      `json:"max_tokens"`
	IDs                []int32  `json:"ids"`
	TypeIDs            []int32  `json:"type_ids"`
	Tokens             []string `json:"tokens"`
	Offsets            [][2]int `json:"offsets"`
	Truncated          bool     `json:"truncated"`
	Decoded            string   `json:"decoded"`
	DecodedWithSpecial string   `json:"decoded_with_special"`
}

func readHFGolden(t *testing.T, name string, atLeast int) []hfCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Source string   `json:"source"`
		Cases  []hfCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < atLeast {
		t.Fatalf("%s has %d cases, want at least %d", name, len(g.Cases), atLeast)
	}
	return g.Cases
}

// TestMatchesHuggingFace compares every field of Encode and Decode with the output of the
// Hugging Face tokenizers library on the corpus in testdata/corpus.json.
func TestMatchesHuggingFace(t *testing.T) {
	tok := loadBERT(t)
	for _, c := range readHFGolden(t, "hf.golden", 200) {
		t.Run(c.Name, func(t *testing.T) { checkHFCase(t, tok, c) })
	}
}

// TestRandomMatchHuggingFace compares ids, offsets and decoding with the reference on 500
// seeded random strings (mixed scripts, marks, controls, symbols, special tokens).
func TestRandomMatchHuggingFace(t *testing.T) {
	tok := loadBERT(t)
	data, err := os.ReadFile(filepath.Join("testdata", "hf_random.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []hfCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 500 {
		t.Fatalf("hf_random.golden has %d cases, want 500", len(g.Cases))
	}
	for _, c := range g.Cases {
		got, err := tok.Encode(c.Text, 0)
		if err != nil {
			t.Errorf("%s: Encode(%q): %v", c.Name, c.Text, err)
			continue
		}
		if !slices.Equal(got.IDs, c.IDs) || !slices.Equal(got.Offsets, c.Offsets) {
			t.Errorf("%s: Encode(%q)\n got %v %v\nwant %v %v", c.Name, c.Text, got.IDs, got.Offsets, c.IDs, c.Offsets)
		}
		if d := tok.Decode(c.IDs, true); d != c.Decoded {
			t.Errorf("%s: Decode(%v, true) = %q, want %q", c.Name, c.IDs, d, c.Decoded)
		}
	}
}

// TestVariantsMatchHuggingFace does the same for the configurations in
// testdata/variants.json: other normaliser settings, no normaliser or pre-tokeniser,
// BertProcessing, other templates, no decoder, and added tokens with the lstrip, rstrip,
// single_word and normalized flags.
func TestVariantsMatchHuggingFace(t *testing.T) {
	base, err := os.ReadFile(bertPath(t))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join("testdata", "variants.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs struct {
		Variants []struct {
			Name  string                     `json:"name"`
			Patch map[string]json.RawMessage `json:"patch"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(spec, &vs); err != nil {
		t.Fatal(err)
	}
	tokenizers := make(map[string]*Tokenizer)
	for _, v := range vs.Variants {
		tok, err := Parse(patchJSON(t, base, v.Patch))
		if err != nil {
			t.Fatalf("variant %s: %v", v.Name, err)
		}
		tokenizers[v.Name] = tok
	}
	cases := readHFGolden(t, "hf_variants.golden", 100)
	seen := make(map[string]bool)
	for _, c := range cases {
		tok, ok := tokenizers[c.Variant]
		if !ok {
			t.Fatalf("case %s: unknown variant %q", c.Name, c.Variant)
		}
		seen[c.Variant] = true
		t.Run(c.Name, func(t *testing.T) { checkHFCase(t, tok, c) })
	}
	if len(seen) != len(tokenizers) {
		t.Errorf("hf_variants.golden covers %d of the %d variants", len(seen), len(tokenizers))
	}
}

// patchJSON replaces top-level sections of a tokenizer.json.
func patchJSON(t *testing.T, base []byte, patch map[string]json.RawMessage) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(base, &doc); err != nil {
		t.Fatal(err)
	}
	maps.Copy(doc, patch)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func checkHFCase(t *testing.T, tok *Tokenizer, c hfCase) {
	t.Helper()
	got, err := tok.Encode(c.Text, c.MaxTokens)
	if err != nil {
		t.Fatalf("Encode(%q, %d): %v", c.Text, c.MaxTokens, err)
	}
	if !slices.Equal(got.IDs, c.IDs) {
		t.Errorf("Encode(%q, %d) ids\n got %v\nwant %v", c.Text, c.MaxTokens, got.IDs, c.IDs)
	}
	if !slices.Equal(got.Tokens, c.Tokens) {
		t.Errorf("Encode(%q, %d) tokens\n got %q\nwant %q", c.Text, c.MaxTokens, got.Tokens, c.Tokens)
	}
	if !slices.Equal(got.TypeIDs, c.TypeIDs) {
		t.Errorf("Encode(%q, %d) type ids\n got %v\nwant %v", c.Text, c.MaxTokens, got.TypeIDs, c.TypeIDs)
	}
	if !slices.Equal(got.Offsets, c.Offsets) {
		t.Errorf("Encode(%q, %d) offsets\n got %v\nwant %v", c.Text, c.MaxTokens, got.Offsets, c.Offsets)
	}
	if got.Truncated != c.Truncated {
		t.Errorf("Encode(%q, %d) truncated = %v, want %v", c.Text, c.MaxTokens, got.Truncated, c.Truncated)
	}
	if d := tok.Decode(c.IDs, true); d != c.Decoded {
		t.Errorf("Decode(%v, true) = %q, want %q", c.IDs, d, c.Decoded)
	}
	if d := tok.Decode(c.IDs, false); d != c.DecodedWithSpecial {
		t.Errorf("Decode(%v, false) = %q, want %q", c.IDs, d, c.DecodedWithSpecial)
	}
}
