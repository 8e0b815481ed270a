package wordpiece

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchText joins corpus sentences (prose, punctuation, numbers, accents, CJK, emoji)
// until it has at least words words.
func benchText(b *testing.B, words int) string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus.json"))
	if err != nil {
		b.Fatal(err)
	}
	var corpus []string
	if err := json.Unmarshal(data, &corpus); err != nil {
		b.Fatal(err)
	}
	var parts []string
	n := 0
	for i := 0; n < words; i++ {
		s := corpus[i%len(corpus)]
		parts = append(parts, s)
		n += len(strings.Fields(s))
	}
	return strings.Join(parts, " ")
}

// BenchmarkEncode reports tokens per second for texts of about 10, 100 and 1000 words.
func BenchmarkEncode(b *testing.B) {
	tok := loadBERT(b)
	for _, size := range []struct {
		name  string
		words int
	}{{"short", 10}, {"medium", 100}, {"long", 1000}} {
		text := benchText(b, size.words)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			tokens := 0
			for b.Loop() {
				enc, err := tok.Encode(text, 0)
				if err != nil {
					b.Fatal(err)
				}
				tokens += enc.Len()
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
