package onnx

import (
	"fmt"
	"strings"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/onnx/tinybert"
	"github.com/atma-dev/atma/tokenizer"
)

// benchEncoder is the synthetic encoder of realistic width (4 layers × 384, 6 heads,
// 128 tokens) both Encoder benchmarks use.
func benchEncoder(b *testing.B, batch int) *Encoder {
	initORT(b)
	m, _ := tinyBackbone(b, tinybert.Config{Hidden: 384, Layers: 4, Heads: 6, Intermediate: 1536, Seed: 1})
	m.MaxTokens = 128
	enc, err := NewEncoder(b.Context(), m, EncoderConfig{Task: "none", BatchSize: batch, Session: SessionConfig{Provider: ProviderCPU}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { enc.Destroy() })
	return enc
}

// embedSizes runs Embed on 1, 32 and 128 texts made by text, reporting texts/s as unit.
func embedSizes(b *testing.B, enc *Encoder, name, unit string, text func(i int) string) {
	for _, n := range []int{1, 32, 128} {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = text(i)
		}
		b.Run(fmt.Sprintf("%s=%d", name, n), func(b *testing.B) {
			for b.Loop() {
				if _, err := enc.Embed(b.Context(), texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), unit)
		})
	}
}

// BenchmarkEncoderOverhead measures the Go side of the Encoder (tokenize + pack + pool)
// against the ONNX Runtime Run it wraps, on a synthetic encoder of realistic width (4 layers
// × 384, 6 heads) at batch 32 × 128 tokens. It reports both times per batch and the Go side
// as a percentage of Run (goal ≤ 5 %).
func BenchmarkEncoderOverhead(b *testing.B) {
	enc := benchEncoder(b, 32)
	var err error
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = strings.Repeat(fmt.Sprintf("Memory %d says the user moved to another city and changed jobs. ", i), 12)
	}
	var goSide, runSide time.Duration
	for b.Loop() {
		t0 := time.Now()
		encs := make([]tokenizer.Encoding, len(texts))
		for i, s := range texts {
			if encs[i], err = enc.tok.Encode(s, enc.maxTokens); err != nil {
				b.Fatal(err)
			}
		}
		inputs, seq, err := enc.pack(encs)
		if err != nil || seq != 128 {
			b.Fatalf("pack: seq %d, %v", seq, err)
		}
		t1 := time.Now()
		outputs := []ort.Value{nil}
		if err := enc.sess.Run(inputs, outputs); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		out := outputs[0].(*ort.Tensor[float32])
		if _, err := enc.pool(out.GetData(), out.GetShape(), encs); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		destroyAll(inputs)
		out.Destroy()
		goSide += t1.Sub(t0) + t3.Sub(t2)
		runSide += t2.Sub(t1)
	}
	b.ReportMetric(float64(goSide.Microseconds())/float64(b.N), "go-µs/batch")
	b.ReportMetric(float64(runSide.Microseconds())/float64(b.N), "ort-µs/batch")
	b.ReportMetric(100*float64(goSide)/float64(runSide), "overhead-%")
}

// BenchmarkEncode is the whole Encode call on the same realistic-width model, in size
// families of texts per call.
func BenchmarkEncode(b *testing.B) {
	enc := benchEncoder(b, 0)
	embedSizes(b, enc, "texts", "texts/s", func(i int) string {
		return fmt.Sprintf("Sentence %d: I used to live in Berlin, but now I live in Lisbon with my cat.", i)
	})
}

// BenchmarkUseLite is the embedded default backbone through the whole Encoder (SentencePiece
// tokenizer, dense inputs, ONNX Runtime), at batch 1, 32 and 128 texts per call.
func BenchmarkUseLite(b *testing.B) {
	initORT(b)
	enc, err := NewEncoder(b.Context(), useLiteManifest(b), EncoderConfig{BatchSize: 128, Session: SessionConfig{Provider: ProviderCPU}})
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Destroy()
	embedSizes(b, enc, "batch", "sentences/s", func(i int) string {
		return fmt.Sprintf("Memory %d: I used to live in Berlin, but I moved to Lisbon and now work as a nurse.", i)
	})
}

// BenchmarkUseLiteMixed embeds texts of 3 to 35 words, as memories come, where planning
// batches by length (planBatches) matters: all in one call, each text is padded to the
// longest.
func BenchmarkUseLiteMixed(b *testing.B) {
	initORT(b)
	enc, err := NewEncoder(b.Context(), useLiteManifest(b), EncoderConfig{BatchSize: 128, Session: SessionConfig{Provider: ProviderCPU}})
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Destroy()
	words := strings.Fields("I used to live in Berlin but moved to Lisbon where I now work as a nurse at the city hospital and my sister visits every second weekend with her two dogs and a cat")
	embedSizes(b, enc, "batch", "sentences/s", func(i int) string {
		return strings.Join(words[:3+(i*7)%(len(words)-3)], " ")
	})
}
