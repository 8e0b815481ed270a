package onnx

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// useLiteManifest is the use-lite backbone that `make models` installs.
func useLiteManifest(t testing.TB) *Manifest {
	t.Helper()
	m, err := LoadManifest(filepath.Join(testCacheDir(), "backbones", "use-lite", "manifest.json"))
	if err != nil {
		t.Fatalf("the use-lite backbone is not installed (%v); run: make models", err)
	}
	return m
}

type useLiteGolden struct {
	Items []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float32 `json:"vector"`
	} `json:"items"`
}

// TestUseLiteParity runs the converted Universal Sentence Encoder lite through the Encoder
// (our SentencePiece tokenizer, dense inputs, ONNX Runtime) and compares every vector with the
// TensorFlow.js reference computed by scripts/use-lite/vectors.mjs.
func TestUseLiteParity(t *testing.T) {
	initORT(t)
	raw, err := os.ReadFile("../internal/onnx/tfjs/testdata/use_lite_vectors.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden useLiteGolden
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Items) < 20 {
		t.Fatalf("golden file has %d items, want ≥ 20", len(golden.Items))
	}
	m := useLiteManifest(t)
	enc, err := NewEncoder(t.Context(), m, EncoderConfig{Session: SessionConfig{Provider: ProviderCPU}})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Destroy()
	texts := make([]string, len(golden.Items))
	for i, it := range golden.Items {
		texts[i] = it.Text
	}
	check := func(t *testing.T, name string, got [][]float32) {
		worst, minCos := 0.0, 1.0
		for i, it := range golden.Items {
			d := maxAbsDiff(got[i], it.Vector)
			var dot, na, nb float64
			for j := range it.Vector {
				dot += float64(got[i][j]) * float64(it.Vector[j])
				na += float64(got[i][j]) * float64(got[i][j])
				nb += float64(it.Vector[j]) * float64(it.Vector[j])
			}
			cos := dot / math.Sqrt(na*nb)
			if d > 1e-4 || cos < 0.9999 {
				t.Errorf("%s: item %d %.40q: max abs error %.2e, cosine %.6f", name, i, it.Text, d, cos)
			}
			worst, minCos = max(worst, d), min(minCos, cos)
		}
		t.Logf("%s: %d texts, max abs error %.2e, min cosine %.9f", name, len(got), worst, minCos)
	}
	t.Run("one call", func(t *testing.T) {
		got, err := enc.Embed(t.Context(), texts)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "one call", got)
	})
	t.Run("each text alone", func(t *testing.T) {
		got := make([][]float32, len(texts))
		for i := range texts {
			v, err := enc.Embed(t.Context(), texts[i:i+1])
			if err != nil {
				t.Fatal(err)
			}
			got[i] = v[0]
		}
		check(t, "alone", got)
	})
	t.Run("token ids", func(t *testing.T) {
		tok, err := LoadTokenizer(m)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range golden.Items {
			e, err := tok.Encode(it.Text, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(e.IDs) != len(it.IDs) {
				t.Errorf("item %d: %d ids, want %d", i, len(e.IDs), len(it.IDs))
				continue
			}
			for k := range e.IDs {
				if e.IDs[k] != it.IDs[k] {
					t.Errorf("item %d: id %d = %d, want %d", i, k, e.IDs[k], it.IDs[k])
					break
				}
			}
		}
	})
}

// TestUseLiteQuality: paraphrases score above unrelated sentences (not the golden sentences).
func TestUseLiteQuality(t *testing.T) {
	initORT(t)
	enc, err := NewEncoder(t.Context(), useLiteManifest(t), EncoderConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Destroy()
	pairs := [][2]string{
		{"I relocated to Madrid in March.", "I moved to Spain's capital this spring."},
		{"My new job is at a hospital.", "I started working as a nurse."},
		{"We adopted a kitten last week.", "We got a new cat recently."},
		{"I no longer eat meat.", "I became a vegetarian."},
		{"My salary went up to 90k.", "I got a raise and now earn ninety thousand."},
	}
	var texts []string
	for _, p := range pairs {
		texts = append(texts, p[0], p[1])
	}
	v, err := enc.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	cos := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for i := range pairs {
		same := cos(v[2*i], v[2*i+1])
		for j := range pairs {
			if j == i {
				continue
			}
			if other := cos(v[2*i], v[2*j+1]); other >= same {
				t.Errorf("%q: paraphrase %.3f ≤ unrelated %q %.3f", pairs[i][0], same, pairs[j][1], other)
			}
		}
	}
}
