//go:build sugarme

package wordpiece

// Run with: go test -tags sugarme -run TestSugarmeAgreement -v ./tokenizer/wordpiece/
//
// This measures how often github.com/sugarme/tokenizer, a pure-Go port of Hugging Face
// tokenizers, agrees with the reference on the corpus of hf.golden; the figures are quoted
// in doc.go. It is behind a build tag to keep that module out of the default test build.

import (
	"fmt"
	"slices"
	"testing"

	sugar "github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// Figures quoted in doc.go; the test fails if they change.
const (
	sugarmeCases        = 204
	sugarmeIDsDiffer    = 40
	sugarmeOffsetDiffer = 30
	sugarmeFailures     = 0
)

func TestSugarmeAgreement(t *testing.T) {
	path := bertPath(t)
	tk, err := pretrained.FromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	ours := loadBERT(t)
	var cases, idsDiffer, offsetsDiffer, failures, oursDiffer int
	for _, c := range readHFGolden(t, "hf.golden", 200) {
		if c.MaxTokens != 0 {
			continue
		}
		cases++
		if enc, err := ours.Encode(c.Text, 0); err != nil || !slices.Equal(enc.IDs, c.IDs) {
			oursDiffer++
		}
		ids, offsets, err := sugarmeEncode(tk, c.Text)
		if err != nil {
			failures++
			t.Logf("%s %q: sugarme failed: %v", c.Name, c.Text, err)
			continue
		}
		if !slices.Equal(ids, c.IDs) {
			idsDiffer++
			t.Logf("%s %q: ids\n sugarme %v\n     hf %v", c.Name, c.Text, ids, c.IDs)
		} else if !slices.Equal(offsets, c.Offsets) {
			offsetsDiffer++
			t.Logf("%s %q: offsets\n sugarme %v\n     hf %v", c.Name, c.Text, offsets, c.Offsets)
		}
	}
	t.Logf("%d texts: sugarme ids differ on %d, offsets (ids equal) on %d, failures %d; this package differs on %d",
		cases, idsDiffer, offsetsDiffer, failures, oursDiffer)
	if oursDiffer != 0 {
		t.Errorf("this package differs from the reference on %d texts", oursDiffer)
	}
	if cases != sugarmeCases || idsDiffer != sugarmeIDsDiffer || offsetsDiffer != sugarmeOffsetDiffer || failures != sugarmeFailures {
		t.Errorf("figures changed: %d/%d/%d/%d, doc.go quotes %d/%d/%d/%d", cases, idsDiffer, offsetsDiffer, failures,
			sugarmeCases, sugarmeIDsDiffer, sugarmeOffsetDiffer, sugarmeFailures)
	}
}

// sugarmeEncode encodes text with special tokens, turning a panic into an error.
func sugarmeEncode(tk *sugar.Tokenizer, text string) (ids []int32, offsets [][2]int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	enc, err := tk.EncodeSingle(text, true)
	if err != nil {
		return nil, nil, err
	}
	for i, id := range enc.Ids {
		ids = append(ids, int32(id))
		o := enc.Offsets[i]
		offsets = append(offsets, [2]int{o[0], o[1]})
	}
	return ids, offsets, nil
}
