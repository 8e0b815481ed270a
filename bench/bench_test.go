package bench

import (
	"fmt"
	"testing"
)

func BenchmarkBuildLTP(b *testing.B) {
	convs := loadFixture(b)
	for _, units := range []int{10, 20, 40} {
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			for b.Loop() {
				if _, err := BuildLTP(convs, LTPConfig{Profiles: 3, Units: units}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTokenF1(b *testing.B) {
	for _, tc := range []struct{ name, pred, gold string }{
		{"short", "A lopsided bowl", "a lopsided bowl"},
		{"sentence", "She went to the LGBTQ support group on the seventh of May", "7 May 2023"},
		{"paragraph", "Caroline said she had been researching adoption agencies and counseling certifications, and that she was planning to visit her friends in Sweden during the summer holidays after the pride parade", "researching adoption agencies"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				TokenF1(tc.pred, tc.gold)
			}
		})
	}
}

// BenchmarkRunLTP replays and scores the fixture with the bag-of-words embedder: the
// overlay's own cost (host search, gate-off routing to the rule Judge, commits) and the
// metrics, without a backbone.
func BenchmarkRunLTP(b *testing.B) {
	convs := loadFixture(b)
	for _, units := range []int{7, 14, 28} {
		l, err := BuildLTP(convs, LTPConfig{Profiles: 1, Units: units})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("units=%d", units), func(b *testing.B) {
			for b.Loop() {
				if _, err := RunLTP(b.Context(), l, Env{Embedder: &hashEmbedder{}, Logger: discard}, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
