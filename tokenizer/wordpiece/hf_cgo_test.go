//go:build hftokenizers

package wordpiece

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHFTokenizerAgrees runs the Hugging Face library itself next to the pure-Go
// Tokenizer on the corpus of hf.golden (build tag hftokenizers, with libtokenizers.a).
func TestHFTokenizerAgrees(t *testing.T) {
	ours := loadBERT(t)
	theirs, err := LoadHF(bertPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := theirs.Close(); err != nil {
			t.Error(err)
		}
	})
	for _, c := range readHFGolden(t, "hf.golden", 200) {
		if strings.IndexByte(c.Text, 0) >= 0 {
			continue // cannot cross the C interface
		}
		t.Run(c.Name, func(t *testing.T) {
			want, err := theirs.Encode(c.Text, c.MaxTokens)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ours.Encode(c.Text, c.MaxTokens)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Encode(%q, %d) (-hf +ours):\n%s", c.Text, c.MaxTokens, diff)
			}
		})
	}
}
