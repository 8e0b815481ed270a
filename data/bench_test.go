package data

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var benchSizes = []struct {
	name string
	cfg  GenConfig
}{
	{"Small", GenConfig{Profiles: 5, Interactions: 100}},
	{"Med", GenConfig{}}, // the paper's size
	{"Large", GenConfig{Profiles: 500, Interactions: 10000}},
}

func BenchmarkGenerate(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Generate(s.cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrepare is what training does before its first step: pairs and splits.
func BenchmarkPrepare(b *testing.B) {
	for _, s := range benchSizes {
		d, err := Generate(s.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				pairs, err := BuildPairs(d, rand.New(rand.NewPCG(1, 0)))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Split(pairs, SplitConfig{}); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", s.name, err))
				}
			}
		})
	}
}
