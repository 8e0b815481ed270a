package wordpiece

import (
	"slices"
	"strings"
	"testing"
)

// TestHandVerified holds cases derived by hand from the bert-base-uncased vocabulary
// (ids looked up in the file's model.vocab) and the algorithm, independently of any
// implementation. Offsets are counted in UTF-8 bytes of the input.
func TestHandVerified(t *testing.T) {
	tok := loadBERT(t)
	cases := []struct {
		name      string
		text      string
		maxTokens int
		ids       []int32
		offsets   [][2]int // of the text's tokens, without [CLS] and [SEP]
		truncated bool
	}{
		{
			// Lowercase and strip accents: NFD then drop Mn gives "cafe naive angstrom".
			// cafe=7668, naive=15743; "angstrom" is not in the vocabulary and neither are
			// angstr, angst, angs, so the longest prefix is ang=17076, then ##strom=15687.
			// é, ï and Å are two bytes each.
			name:    "accents",
			text:    "café naïve Ångström",
			ids:     []int32{101, 7668, 15743, 17076, 15687, 102},
			offsets: [][2]int{{0, 5}, {6, 12}, {13, 17}, {17, 23}},
		},
		{
			// Each CJK ideograph becomes its own word: 中=1746, 文=1861; 字 is not in the
			// vocabulary (nor ##字), so it is [UNK]=100. Three bytes each.
			name:    "cjk",
			text:    "中文字",
			ids:     []int32{101, 1746, 1861, 100, 102},
			offsets: [][2]int{{0, 3}, {3, 6}, {6, 9}},
		},
		{
			// x=1060, y=1061; the emoji (4 bytes) has no vocabulary entry: [UNK].
			name:    "emoji",
			text:    "x 😀 y",
			ids:     []int32{101, 1060, 100, 1061, 102},
			offsets: [][2]int{{0, 1}, {2, 6}, {7, 8}},
		},
		{
			// Every punctuation character is its own word: wait=3524, ?=1029, !=999, .=1012.
			name:    "punctuation run",
			text:    "Wait?!.",
			ids:     []int32{101, 3524, 1029, 999, 1012, 102},
			offsets: [][2]int{{0, 4}, {4, 5}, {5, 6}, {6, 7}},
		},
		{
			// "2024" is not in the vocabulary; its longest prefix 202=16798, then ##4=2549.
			name:    "digits",
			text:    "2024",
			ids:     []int32{101, 16798, 2549, 102},
			offsets: [][2]int{{0, 3}, {3, 4}},
		},
		{
			// The apostrophe is punctuation: don=2123, '=1005, t=1056.
			name:    "contraction",
			text:    "don't",
			ids:     []int32{101, 2123, 1005, 1056, 102},
			offsets: [][2]int{{0, 3}, {3, 4}, {4, 5}},
		},
		{
			// A word of more than max_input_chars_per_word (100) characters is one [UNK].
			name:    "101 characters",
			text:    strings.Repeat("a", 101),
			ids:     []int32{101, 100, 102},
			offsets: [][2]int{{0, 101}},
		},
		{
			// clean_text removes BEL (Cc), giving "bellchar": bell=4330 is the longest
			// prefix (bellchar, bellcha, bellch, bellc are absent), then ##char is absent,
			// ##cha=7507, ##r=2099. The removed byte sits between "bell" and "cha".
			name:    "control character",
			text:    "bell\x07char",
			ids:     []int32{101, 4330, 7507, 2099, 102},
			offsets: [][2]int{{0, 4}, {5, 8}, {8, 9}},
		},
		{
			// Tab and newline are whitespace: a=1037, b=1038, c=1039.
			name:    "tabs and newlines",
			text:    "a\tb\nc",
			ids:     []int32{101, 1037, 1038, 1039, 102},
			offsets: [][2]int{{0, 1}, {2, 3}, {4, 5}},
		},
		{
			// The literal [SEP] is the special token 102, with its real offsets;
			// hello=7592, world=2088.
			name:    "literal special token",
			text:    "hello [SEP] world",
			ids:     []int32{101, 7592, 102, 2088, 102},
			offsets: [][2]int{{0, 5}, {6, 11}, {12, 17}},
		},
		{
			name: "empty",
			text: "",
			ids:  []int32{101, 102},
		},
		{
			name: "whitespace only",
			text: "  \t ",
			ids:  []int32{101, 102},
		},
		{
			// brown=2829; room for one text token between [CLS] and [SEP].
			name:      "truncation",
			text:      "brown fox jumps over the lazy dog",
			maxTokens: 3,
			ids:       []int32{101, 2829, 102},
			offsets:   [][2]int{{0, 5}},
			truncated: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := tok.Encode(c.text, c.maxTokens)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.IDs, c.ids) {
				t.Errorf("Encode(%q) ids = %v, want %v", c.text, got.IDs, c.ids)
			}
			wantOffsets := append(append([][2]int{{0, 0}}, c.offsets...), [2]int{0, 0})
			if !slices.Equal(got.Offsets, wantOffsets) {
				t.Errorf("Encode(%q) offsets = %v, want %v", c.text, got.Offsets, wantOffsets)
			}
			if got.Truncated != c.truncated {
				t.Errorf("Encode(%q) truncated = %v, want %v", c.text, got.Truncated, c.truncated)
			}
			for i, id := range got.IDs {
				if got.TypeIDs[i] != 0 {
					t.Errorf("type id %d = %d, want 0", i, got.TypeIDs[i])
				}
				if want, _ := tok.idToken(id); id != 100 && got.Tokens[i] != want {
					t.Errorf("token %d = %q, want the vocabulary entry %q", i, got.Tokens[i], want)
				}
			}
		})
	}
}
