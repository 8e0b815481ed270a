package judge

import (
	"strings"
	"testing"
)

// answerOfSize is a valid answer whose think steps hold about words words each.
func answerOfSize(words int) string {
	step := strings.TrimSpace(strings.Repeat("the user moved from Berlin to Lisbon ", words/7+1))
	return Render(Steps{step, step, "temporal_update: " + step, "transition: " + step}, baseVerdict)
}

var sizes = []struct {
	name  string
	words int
}{{"Small", 20}, {"Med", 200}, {"Large", 2000}}

func BenchmarkParseStrict(b *testing.B) {
	for _, s := range sizes {
		text := answerOfSize(s.words)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ParseStrict(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseLenient(b *testing.B) {
	for _, s := range sizes {
		// The lenient path proper: a fenced answer that ParseStrict refuses.
		text := strings.Replace(answerOfSize(s.words), "</think>\n", "</think>\n```json\n", 1) + "\n```"
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ParseLenient(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
