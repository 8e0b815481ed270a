//go:build integration

package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/internal/llamatest"
)

// wordEmbedder is a backbone stand-in for the offline fallback: one dimension a letter.
type wordEmbedder struct{}

func (wordEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 27)
		for _, r := range strings.ToLower(t) {
			if r >= 'a' && r <= 'z' {
				v[r-'a']++
			}
		}
		v[26] = 1
		out[i] = v
	}
	return out, nil
}

// The LLM fact extractor's plumbing against the real server: the schema-constrained
// request is accepted and answered, every answer is either parsed into facts with
// well-formed slot keys or handed to the offline fallback with the reason — never an
// error. The tiny model's weights are random, so what it extracts means nothing.
func TestFactsExtractorOnLlamaServer(t *testing.T) {
	// One slot with the model's whole context: the extraction prompt is about 1,600
	// tokens of the tiny model's byte-level vocabulary.
	s := llamatest.StartWith(t, 1, llamatest.CtxSize)
	c := newClient(t, s.URL, llamatest.ModelAlias, 0)
	off, err := facts.NewOffline(wordEmbedder{}, facts.Config{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := facts.NewLLM(c, off, facts.LLMConfig{Name: llamatest.ModelAlias, MaxTokens: 96})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	in := []facts.Input{
		{Text: "I moved to Porto last month.", Time: at},
		{Text: "my sister started at the bakery on Elm Road", Time: at, Slots: []string{"user/home"}},
	}
	start := time.Now()
	res, err := x.Extract(t.Context(), in)
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	if len(res) != len(in) {
		t.Fatalf("%d results for %d inputs", len(res), len(in))
	}
	answered := 0
	for i, r := range res {
		switch r.Source {
		case llamatest.ModelAlias:
			answered++
		case facts.SourceOffline:
			if r.Why == "" {
				t.Errorf("input %d: the fallback answered without saying why", i)
			}
		default:
			t.Errorf("input %d: source %q", i, r.Source)
		}
		for _, f := range r.Facts {
			if f.Slot() != facts.Kebab(f.Subject)+"/"+facts.Kebab(f.Attribute) || f.Subject == "" || f.Attribute == "" {
				t.Errorf("input %d: fact %+v has no well-formed slot key", i, f)
			}
		}
		t.Logf("input %d: source %s, %d facts, why %q", i, r.Source, len(r.Facts), r.Why)
	}
	// The prompt fits the slot: the model's schema-constrained JSON must have parsed.
	if answered == 0 {
		t.Error("no input was answered by the model: the request or the parse is broken")
	}
	t.Logf("two extractions in %v", time.Since(start).Round(time.Millisecond))
}
