package onnx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/gpu"
	"github.com/atma-dev/atma/internal/onnx/tinybert"
	"github.com/atma-dev/atma/tokenizer/wordpiece"
)

// tinyBackbone writes a tiny random BERT-like model with the nomic signature and returns its
// manifest (mean pooling, normalised) and the model for the Go reference forward pass.
func tinyBackbone(t testing.TB, cfg tinybert.Config) (*Manifest, *tinybert.Model) {
	t.Helper()
	model, err := tinybert.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := model.ONNX()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	m := &Manifest{
		ID:        "tiny",
		Dir:       dir,
		Model:     File{Path: "model.onnx"},
		Tokenizer: TokenizerSpec{Kind: TokenizerWordPiece, File: File{Path: bertTokenizerPath(t)}},
		Inputs: []Input{
			{Name: "input_ids", Role: RoleInputIDs},
			{Name: "attention_mask", Role: RoleAttentionMask},
			{Name: "token_type_ids", Role: RoleTokenTypeIDs},
		},
		Output:    Output{Name: "last_hidden_state", Kind: OutputTokens},
		Pooling:   PoolMean,
		Dimension: model.Config.Hidden,
		Normalize: true,
		Prefixes:  map[string]string{"query": "search_query: "},
		MaxTokens: 64,
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m, model
}

// reference embeds one text with the plain Go forward pass.
func reference(t testing.TB, m *Manifest, model *tinybert.Model, tok *wordpiece.Tokenizer, text string, maxTokens, dim int) []float32 {
	t.Helper()
	enc, err := tok.Encode(text, maxTokens)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, enc.Len())
	mask := make([]int64, enc.Len())
	types := make([]int64, enc.Len())
	for i := range ids {
		ids[i], mask[i] = int64(enc.IDs[i]), 1
	}
	hidden := model.Forward([][]int64{ids}, [][]int64{mask}, [][]int64{types})[0]
	pooled := make([]float32, m.Dimension)
	for j := range pooled {
		var s float64
		if m.Pooling == PoolCLS {
			s = float64(hidden[0][j])
		} else {
			for k := range hidden {
				s += float64(hidden[k][j])
			}
			s /= float64(len(hidden))
		}
		pooled[j] = float32(s)
	}
	return finish(pooled, m, dim)
}

func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

var encoderTexts = []string{
	"I moved from Berlin to Lisbon last spring.",
	"Where do I live now?",
	"",
	"My dog Rex is three years old; he loves the beach!",
	"Ångström café naïve — 東京 🙂",
	strings.Repeat("A very long sentence about memory and state. ", 30),
	"ok",
}

func TestEncoderMatchesGoForward(t *testing.T) {
	initORT(t)
	tok, err := wordpiece.Load(bertTokenizerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, pooling := range []string{PoolMean, PoolCLS} {
		for _, ln := range []bool{false, true} {
			name := pooling
			if ln {
				name += "+layernorm"
			}
			t.Run(name, func(t *testing.T) {
				m, model := tinyBackbone(t, tinybert.Config{Seed: 3})
				m.Pooling, m.LayerNorm, m.LayerNormEps = pooling, ln, 1e-5
				enc, err := NewEncoder(ctx, m, EncoderConfig{Task: "none", BatchSize: 3, Session: SessionConfig{Provider: ProviderCPU}})
				if err != nil {
					t.Fatal(err)
				}
				defer enc.Destroy()
				got, err := enc.Encode(ctx, encoderTexts, "")
				if err != nil {
					t.Fatal(err)
				}
				for i, text := range encoderTexts {
					want := reference(t, m, model, tok, text, m.MaxTokens, m.Dimension)
					if d := maxAbsDiff(got[i].Vector, want); d > 1e-5 {
						t.Errorf("text %d: max abs diff %.2e from the Go forward pass", i, d)
					}
				}
				if !got[5].Truncated || got[5].Tokens != m.MaxTokens {
					t.Errorf("long text: tokens %d truncated %v, want %d true", got[5].Tokens, got[5].Truncated, m.MaxTokens)
				}
				if got[1].Truncated {
					t.Error("short text marked truncated")
				}
			})
		}
	}
}

func TestEncoderOptions(t *testing.T) {
	initORT(t)
	ctx := t.Context()
	tok, err := wordpiece.Load(bertTokenizerPath(t))
	if err != nil {
		t.Fatal(err)
	}
	m, model := tinyBackbone(t, tinybert.Config{Seed: 5})
	m.MatryoshkaDims = []int{8}
	m.LayerNorm, m.LayerNormEps = true, 1e-5

	t.Run("task prefix and matryoshka", func(t *testing.T) {
		enc, err := NewEncoder(ctx, m, EncoderConfig{Task: "query", Dimension: 8, MaxTokens: 16})
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Destroy()
		got, err := enc.Embed(ctx, []string{"where do I work?"})
		if err != nil {
			t.Fatal(err)
		}
		want := reference(t, m, model, tok, "search_query: where do I work?", 16, 8)
		if len(got[0]) != 8 || maxAbsDiff(got[0], want) > 1e-5 {
			t.Errorf("got %v, want %v", got[0], want)
		}
		var n float64
		for _, v := range got[0] {
			n += float64(v) * float64(v)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("norm² %v, want 1", n)
		}
		if _, err := enc.Encode(ctx, []string{"x"}, "clustering"); err == nil {
			t.Error("unknown task accepted")
		}
	})
	t.Run("bad config lists every problem", func(t *testing.T) {
		_, err := NewEncoder(ctx, m, EncoderConfig{Task: "nope", Dimension: 7, MaxTokens: 1000, BatchSize: -1})
		if err == nil {
			t.Fatal("no error")
		}
		for _, w := range []string{`task "nope"`, "7-d", "max tokens 1000", "batch size -1"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	})
	t.Run("bad input", func(t *testing.T) {
		enc, err := NewEncoder(ctx, m, EncoderConfig{})
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Destroy()
		if _, err := enc.Embed(ctx, []string{"fine", "bad \xff byte"}); !errors.Is(err, ErrInvalidText) || !strings.Contains(err.Error(), "text 1") {
			t.Errorf("invalid UTF-8: %v", err)
		}
		got, err := enc.Embed(ctx, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("zero texts: %v, %v", got, err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := enc.Embed(cctx, []string{"a"}); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled context: %v", err)
		}
	})
}

// TestEncoderBatchInvariance: a text's vector does not depend on the other texts in its call.
func TestEncoderBatchInvariance(t *testing.T) {
	initORT(t)
	ctx := t.Context()
	m, _ := tinyBackbone(t, tinybert.Config{Seed: 11})
	enc, err := NewEncoder(ctx, m, EncoderConfig{Task: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Destroy()
	all, err := enc.Embed(ctx, encoderTexts)
	if err != nil {
		t.Fatal(err)
	}
	// Other batches, one ONNX Runtime thread that does not spin (as the overlay runs it).
	small, err := NewEncoder(ctx, m, EncoderConfig{Task: "none", BatchSize: 2, MaxBatchTokens: 40,
		Session: SessionConfig{IntraOpThreads: 1, NoSpin: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Destroy()
	reversed := make([]string, len(encoderTexts))
	for i, s := range encoderTexts {
		reversed[len(reversed)-1-i] = s
	}
	rev, err := small.Embed(ctx, reversed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range encoderTexts {
		alone, err := enc.Embed(ctx, []string{encoderTexts[i]})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(all[i], alone[0]); d > 1e-6 {
			t.Errorf("text %d: batched vs alone differ by %.2e", i, d)
		}
		if d := maxAbsDiff(all[i], rev[len(rev)-1-i]); d > 1e-6 {
			t.Errorf("text %d: other batch composition differs by %.2e", i, d)
		}
	}
}

func TestEncoderManifestMismatch(t *testing.T) {
	initORT(t)
	ctx := t.Context()
	m, _ := tinyBackbone(t, tinybert.Config{Seed: 1})
	m.Output.Name = "pooler_output"
	m.Inputs = m.Inputs[:2]
	_, err := NewEncoder(ctx, m, EncoderConfig{})
	if err == nil {
		t.Fatal("mismatched manifest accepted")
	}
	for _, w := range []string{`output "pooler_output" is missing`, `model input "token_type_ids" is not in the manifest`, "manifest: inputs", "model:    inputs", "last_hidden_state"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q:\n%v", w, err)
		}
	}
	m2, _ := tinyBackbone(t, tinybert.Config{Seed: 1})
	m2.Dimension = 99
	if _, err := NewEncoder(ctx, m2, EncoderConfig{}); err == nil || !strings.Contains(err.Error(), "manifest says 99") {
		t.Errorf("wrong dimension: %v", err)
	}
	m3, _ := tinyBackbone(t, tinybert.Config{Seed: 1})
	m3.Model.Path = "missing.onnx"
	if _, err := NewEncoder(ctx, m3, EncoderConfig{}); err == nil || !strings.Contains(err.Error(), "missing.onnx") {
		t.Errorf("missing model: %v", err)
	}
}

// cudaHere reports whether sessions can run on CUDA here, and why not: the real probe
// finds a supported GPU and the library has CUDA's provider, which ONNX Runtime loads
// from the library's own directory (libonnxruntime_providers_cuda.so). Neither is asked
// of the session code under test.
func cudaHere(t *testing.T) (bool, string) {
	t.Helper()
	rep, err := gpu.Probe(t.Context())
	if _, ok := rep.PreferCUDA(); !ok {
		return false, fmt.Sprintf("no supported GPU (%s, %v)", rep.Reason, err)
	}
	provider := filepath.Join(filepath.Dir(testLibrary(t)), "libonnxruntime_providers_cuda.so")
	if _, err := os.Stat(provider); err != nil {
		return false, fmt.Sprintf("a GPU, but a CPU-only ONNX Runtime (%v)", err)
	}
	return true, ""
}

// TestProviderSelection: auto uses CUDA where the probe finds a GPU and the library has
// CUDA, else falls back to the CPU and logs why; cuda required is an error where CUDA
// cannot run; no GPU means the CPU.
func TestProviderSelection(t *testing.T) {
	initORT(t)
	ctx := t.Context()
	m, _ := tinyBackbone(t, tinybert.Config{Seed: 1})
	cuda, why := cudaHere(t)
	t.Logf("CUDA here: %v %s", cuda, why)
	h200 := func(context.Context) (gpu.Report, error) {
		return gpu.Report{Available: true, Driver: "560.35", CUDA: "12.6", Devices: []gpu.Device{{Index: 0, Name: "NVIDIA H200", Class: gpu.ClassH200, ComputeMajor: 9, ComputeMinor: 0, MemoryTotal: 141 << 30, MemoryFree: 140 << 30}}}, nil
	}
	t.Run("auto with a GPU reported", func(t *testing.T) {
		var logs bytes.Buffer
		enc, err := NewEncoder(ctx, m, EncoderConfig{Session: SessionConfig{Probe: h200, Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Destroy()
		switch {
		case cuda && enc.Provider() != "cuda:0":
			t.Errorf("provider %q, want cuda:0 (logs %s)", enc.Provider(), logs.String())
		case !cuda && enc.Provider() != "cpu":
			t.Errorf("provider %q, want cpu: %s", enc.Provider(), why)
		case !cuda && !strings.Contains(logs.String(), "CUDA provider failed"):
			t.Errorf("fallback not logged: %s", logs.String())
		}
	})
	t.Run("cuda required", func(t *testing.T) {
		enc, err := NewEncoder(ctx, m, EncoderConfig{Session: SessionConfig{Provider: ProviderCUDA}})
		if cuda {
			if err != nil {
				t.Fatalf("CUDA required: %v", err)
			}
			defer enc.Destroy()
			if enc.Provider() != "cuda:0" {
				t.Errorf("provider %q, want cuda:0", enc.Provider())
			}
			return
		}
		if !errors.Is(err, ErrNoCUDA) {
			t.Errorf("error %v, want ErrNoCUDA (%s)", err, why)
		}
	})
	t.Run("no GPU", func(t *testing.T) {
		var logs bytes.Buffer
		none := func(context.Context) (gpu.Report, error) { return gpu.Report{Reason: "no NVIDIA driver"}, nil }
		enc, err := NewEncoder(ctx, m, EncoderConfig{Session: SessionConfig{Probe: none, Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Destroy()
		if enc.Provider() != "cpu" || !strings.Contains(logs.String(), "no NVIDIA driver") {
			t.Errorf("provider %q, logs %s", enc.Provider(), logs.String())
		}
	})
}
