package facts

import (
	"context"
	"hash/fnv"
	"strings"
	"unicode"
)

// bagEmbedder is a fake backbone: each word lights one of 256 dimensions, so texts that
// share words are similar. Its vectors mean nothing beyond that.
type bagEmbedder struct {
	calls int
	err   error
}

func (b *bagEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	b.calls++
	if b.err != nil {
		return nil, b.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 256)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%256]++
		}
		v[255] += 0.1 // no zero vectors
		out[i] = v
	}
	return out, nil
}
