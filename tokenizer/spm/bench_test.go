package spm

import (
	"strings"
	"testing"
)

func BenchmarkEncode(b *testing.B) {
	tok := useLite(b)
	var long string
	for _, it := range readGolden(b).Items {
		if len(it.Text) > len(long) {
			long = it.Text
		}
	}
	sizes := []struct {
		name string
		text string
	}{
		{name: "short", text: "Where do I live now?"},
		{name: "medium", text: "I moved from Berlin to Lisbon last spring; the rent is 1,250 € a month, and my café-loving dog Rex (3 years old) likes it."},
		{name: "long", text: long},
	}
	for _, s := range sizes {
		b.Run(s.name, func(b *testing.B) {
			enc, err := tok.Encode(s.text, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(s.text)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if _, err := tok.Encode(s.text, 0); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(n*enc.Len())/b.Elapsed().Seconds(), "tokens/s")
		})
	}
	b.Run("long-x8", func(b *testing.B) {
		text := strings.Repeat(long+" ", 8)
		enc, err := tok.Encode(text, 0)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			if _, err := tok.Encode(text, 0); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(n*enc.Len())/b.Elapsed().Seconds(), "tokens/s")
	})
}
