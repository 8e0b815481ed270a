package words

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"no letters or digits", " ,.!? $ ", nil},
		{"lower-cased", "Where do I LIVE now?", []string{"where", "do", "i", "live", "now"}},
		{"numbers split at punctuation", "$62,000 a year", []string{"62", "000", "a", "year"}},
		{"apostrophes and hyphens split", "Ada's part-time job", []string{"ada", "s", "part", "time", "job"}},
		{"letters beyond ASCII", "Café in São Paulo", []string{"café", "in", "são", "paulo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Split(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
