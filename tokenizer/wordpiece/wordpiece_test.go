package wordpiece

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tinyJSON is a minimal BERT-style tokenizer.json for tests that need their own settings;
// patch replaces top-level sections.
func tinyJSON(t *testing.T, patch map[string]any) []byte {
	t.Helper()
	doc := map[string]any{
		"added_tokens": []any{
			map[string]any{"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
			map[string]any{"id": 1, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
			map[string]any{"id": 2, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
			map[string]any{"id": 3, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
		},
		"normalizer":     map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "BertProcessing", "sep": []any{"[SEP]", 3}, "cls": []any{"[CLS]", 2}},
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
			"vocab": map[string]int{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "un": 4, "##aff": 5, "##able": 6, "hi": 7, ".": 8},
		},
	}
	for k, v := range patch {
		doc[k] = v
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestTinyTokenizer(t *testing.T) {
	tok, err := Parse(tinyJSON(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tok.Encode("Unaffable hi. xyz", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []int32{2, 4, 5, 6, 7, 8, 1, 3}
	wantTokens := []string{"[CLS]", "un", "##aff", "##able", "hi", ".", "[UNK]", "[SEP]"}
	wantOffsets := [][2]int{{0, 0}, {0, 2}, {2, 5}, {5, 9}, {10, 12}, {12, 13}, {14, 17}, {0, 0}}
	if !slices.Equal(got.IDs, wantIDs) || !slices.Equal(got.Tokens, wantTokens) || !slices.Equal(got.Offsets, wantOffsets) {
		t.Errorf("Encode = %v %q %v, want %v %q %v", got.IDs, got.Tokens, got.Offsets, wantIDs, wantTokens, wantOffsets)
	}
	if d := tok.Decode(got.IDs, true); d != "unaffable hi." {
		t.Errorf("Decode = %q, want %q", d, "unaffable hi.")
	}
	if n := tok.VocabSize(); n != 9 {
		t.Errorf("VocabSize = %d, want 9", n)
	}
}

func TestEncodeErrors(t *testing.T) {
	tok := loadBERT(t)
	cases := []struct {
		name      string
		text      string
		maxTokens int
		invalid   bool   // want ErrInvalidUTF8
		contains  string // in the message
	}{
		{name: "invalid byte", text: "ab\xffcd", invalid: true, contains: "at byte 2"},
		{name: "cut rune at end", text: "中\xe6\x96", invalid: true, contains: "at byte 3"},
		{name: "surrogate half", text: "x\xed\xa0\x80", invalid: true, contains: "at byte 1"},
		{name: "negative limit", text: "hello", maxTokens: -1, contains: "negative maxTokens"},
		{name: "limit below specials", text: "hello", maxTokens: 1, contains: "no room for the 2 special tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tok.Encode(c.text, c.maxTokens)
			if err == nil {
				t.Fatalf("Encode(%q, %d): no error", c.text, c.maxTokens)
			}
			if got := errors.Is(err, ErrInvalidUTF8); got != c.invalid {
				t.Errorf("errors.Is(%v, ErrInvalidUTF8) = %v, want %v", err, got, c.invalid)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not contain %q", err, c.contains)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name  string
		data  []byte
		wants []string // substrings of the error
	}{
		{"not json", []byte("{"), []string{"parse tokenizer.json"}},
		{"no model", tinyJSON(t, map[string]any{"model": nil}), []string{"model: missing"}},
		{"bpe model", tinyJSON(t, map[string]any{"model": map[string]any{"type": "BPE", "vocab": map[string]int{"a": 0}}}),
			[]string{`unsupported model type "BPE"`}},
		{"unigram model", tinyJSON(t, map[string]any{"model": map[string]any{"type": "Unigram", "vocab": []any{}}}),
			[]string{`unsupported model type "Unigram"`}},
		{"unk missing", tinyJSON(t, map[string]any{"model": map[string]any{"type": "WordPiece", "unk_token": "<unk>", "vocab": map[string]int{"a": 0}}}),
			[]string{`unk_token "<unk>" is not in the vocabulary`}},
		{"empty vocab", tinyJSON(t, map[string]any{"model": map[string]any{"type": "WordPiece", "vocab": map[string]int{}}}),
			[]string{"empty vocabulary"}},
		{"negative id", tinyJSON(t, map[string]any{"model": map[string]any{"type": "WordPiece", "vocab": map[string]int{"[UNK]": 0, "a": -3}}}),
			[]string{"negative id -3"}},
		{"several sections at once", tinyJSON(t, map[string]any{
			"normalizer":     map[string]any{"type": "NFC"},
			"pre_tokenizer":  map[string]any{"type": "Whitespace"},
			"post_processor": map[string]any{"type": "RobertaProcessing"},
			"decoder":        map[string]any{"type": "ByteLevel"},
		}), []string{`normalizer type "NFC"`, `pre-tokenizer type "Whitespace"`, `post-processor type "RobertaProcessing"`, `decoder type "ByteLevel"`}},
		{"template without sequence", tinyJSON(t, map[string]any{"post_processor": map[string]any{
			"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}}},
			"special_tokens": map[string]any{"[CLS]": map[string]any{"id": "[CLS]", "ids": []int{2}, "tokens": []string{"[CLS]"}}},
		}}), []string{"single template has 0 sequence pieces"}},
		{"template unknown special", tinyJSON(t, map[string]any{"post_processor": map[string]any{
			"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
			"special_tokens": map[string]any{},
		}}), []string{`special token "<s>" missing from special_tokens`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.data)
			if err == nil {
				t.Fatal("Parse: no error")
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseOptionalSections(t *testing.T) {
	cases := []struct {
		name  string
		patch map[string]any
		text  string
		ids   []int32
	}{
		// An old file without a model type is recognised as WordPiece by its fields.
		{"untyped model", map[string]any{"model": map[string]any{"unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": map[string]int{"[UNK]": 0, "hi": 1}}, "post_processor": nil},
			"hi", []int32{1}},
		{"no post-processor", map[string]any{"post_processor": nil}, "hi", []int32{7}},
		{"empty continuation prefix", map[string]any{"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]",
			"continuing_subword_prefix": "", "vocab": map[string]int{"[UNK]": 1, "un": 4, "aff": 5, "able": 6}}, "post_processor": nil},
			"unaffable", []int32{4, 5, 6}},
		{"no normalizer", map[string]any{"normalizer": nil}, "HI hi", []int32{2, 1, 7, 3}},
		{"max chars 2", map[string]any{"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 2, "vocab": map[string]int{"[UNK]": 1, "hi": 7, "h": 9, "##i": 10, "##ii": 11}}, "post_processor": nil},
			"hi hii", []int32{7, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, err := Parse(tinyJSON(t, c.patch))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tok.Encode(c.text, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.IDs, c.ids) {
				t.Errorf("Encode(%q) = %v, want %v", c.text, got.IDs, c.ids)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "missing.json"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want an error wrapping os.ErrNotExist", err)
	}
}

func TestPadID(t *testing.T) {
	cases := []struct {
		name  string
		patch map[string]any
		want  int32
	}{
		{"from pad_id", map[string]any{"padding": map[string]any{"pad_id": 5, "pad_token": "[PAD]"}}, 5},
		{"from pad_token", map[string]any{"padding": map[string]any{"pad_token": "hi"}}, 7},
		{"from [PAD]", map[string]any{"padding": nil, "added_tokens": []any{}}, 0},
		{"none", map[string]any{"padding": nil, "added_tokens": []any{}, "model": map[string]any{"type": "WordPiece",
			"unk_token": "[UNK]", "vocab": map[string]int{"[UNK]": 3, "hi": 4}}, "post_processor": nil}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, err := Parse(tinyJSON(t, c.patch))
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.PadID(); got != c.want {
				t.Errorf("PadID() = %d, want %d", got, c.want)
			}
		})
	}
	if got := loadBERT(t).PadID(); got != 0 {
		t.Errorf("bert-base-uncased PadID() = %d, want 0", got)
	}
}

func TestDecodeSkipsUnknownIDs(t *testing.T) {
	tok := loadBERT(t)
	got := tok.Decode([]int32{-1, 7592, 1 << 30, 2088, 30522}, false)
	if got != "hello world" {
		t.Errorf("Decode = %q, want %q", got, "hello world")
	}
}

// TestConcurrentEncode encodes the corpus from many goroutines at once; every result must
// equal the sequential one (run with -race to check the sharing).
func TestConcurrentEncode(t *testing.T) {
	tok := loadBERT(t)
	cases := readHFGolden(t, "hf.golden", 200)
	want := make([][]int32, len(cases))
	for i, c := range cases {
		enc, err := tok.Encode(c.Text, c.MaxTokens)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = enc.IDs
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range cases {
				i := (k + g*31) % len(cases)
				enc, err := tok.Encode(cases[i].Text, cases[i].MaxTokens)
				if err != nil || !slices.Equal(enc.IDs, want[i]) {
					errs <- fmt.Errorf("goroutine %d, case %s: %v %v", g, cases[i].Name, enc.IDs, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
