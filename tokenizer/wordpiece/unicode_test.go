package wordpiece

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var unicodeReport = flag.Bool("unicodereport", false, "TestUnicodeClassesMatchHF: report every differing code point")

// TestUnicodeClassesMatchHF checks every Unicode scalar value against
// testdata/hf_unicode.txt.gz, which records what the reference implementation's
// BertNormalizer (bert-base-uncased settings) makes of each character alone and how its
// BertPreTokenizer classes it. This pins the Unicode tables (controls, whitespace, CJK,
// NFD, non-spacing marks, lowercase, punctuation) to Hugging Face's.
func TestUnicodeClassesMatchHF(t *testing.T) {
	tok := loadBERT(t)
	f, err := os.Open(filepath.Join("testdata", "hf_unicode.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var n, scratch normalized
	next := rune(0) // every scalar value must be covered, in order
	mismatches := 0
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		var first, last rune
		var wantNorm, wantClass string
		if _, err := fmt.Sscanf(line, "%x %x %s %s", &first, &last, &wantNorm, &wantClass); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if first == 0xE000 && next == 0xD800 {
			next = 0xE000 // surrogates are not scalar values
		}
		if first != next {
			t.Fatalf("line %q: starts at U+%04X, want U+%04X", line, first, next)
		}
		next = last + 1
		for r := first; r <= last; r++ {
			tok.normalizer.normalize(&n, &scratch, string(r), 0)
			gotNorm := normClass(r, n.runes)
			gotClass := [...]string{preWord: "word", preSpace: "space", prePunct: "punct"}[preTokClass(r)]
			if gotNorm != wantNorm || gotClass != wantClass {
				mismatches++
				if mismatches <= 30 || *unicodeReport {
					t.Errorf("U+%04X: normalised %s, pre-token class %s; Hugging Face: %s, %s", r, gotNorm, gotClass, wantNorm, wantClass)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if next != 0x110000 {
		t.Fatalf("table ends at U+%04X, want U+10FFFF", next-1)
	}
	if mismatches > 0 {
		t.Errorf("%d code points differ from Hugging Face", mismatches)
	}
}

// normClass describes the normalisation of r in the table's terms.
func normClass(r rune, got []rune) string {
	switch {
	case len(got) == 1 && got[0] == r:
		return "same"
	case len(got) == 0:
		return "removed"
	case len(got) == 1 && got[0] == ' ':
		return "space"
	case len(got) == 3 && got[0] == ' ' && got[1] == r && got[2] == ' ':
		return "cjk"
	}
	parts := make([]string, len(got))
	for i, c := range got {
		parts[i] = strconv.FormatInt(int64(c), 16)
	}
	return strings.Join(parts, ",")
}
