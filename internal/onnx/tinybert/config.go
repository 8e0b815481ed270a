package tinybert

import (
	"errors"
	"fmt"
	"math"
)

// Config describes the encoder. The zero value of every field means its default (see
// Default); the weights are a pure function of the resolved Config.
type Config struct {
	// VocabSize is the number of token ids (default 30522, BERT's WordPiece vocabulary).
	VocabSize int
	// Hidden is the width of the hidden states (default 32).
	Hidden int
	// Layers is the number of transformer layers (default 2).
	Layers int
	// Heads is the number of attention heads; it must divide Hidden (default 4).
	Heads int
	// Intermediate is the width of the feed-forward layer (default 64).
	Intermediate int
	// MaxPositions is the longest sequence the position embeddings cover (default 512).
	MaxPositions int
	// TypeVocab is the number of token type ids (default 2).
	TypeVocab int
	// LayerNormEps is the epsilon of every LayerNorm (default 1e-12, as in BERT).
	LayerNormEps float32
	// Seed seeds the weights; 0 is a seed like any other.
	Seed int64
}

// Default is the configuration the zero Config resolves to: a tiny model for tests.
var Default = Config{
	VocabSize:    30522,
	Hidden:       32,
	Layers:       2,
	Heads:        4,
	Intermediate: 64,
	MaxPositions: 512,
	TypeVocab:    2,
	LayerNormEps: 1e-12,
}

// Bench is a realistically wide configuration (MiniLM-sized: 4 layers × 384 hidden, 6 heads,
// FFN 1536) for benchmarks.
var Bench = Config{
	VocabSize:    30522,
	Hidden:       384,
	Layers:       4,
	Heads:        6,
	Intermediate: 1536,
	MaxPositions: 512,
	TypeVocab:    2,
	LayerNormEps: 1e-12,
}

// withDefaults replaces every zero field by its default.
func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.VocabSize, Default.VocabSize)
	def(&c.Hidden, Default.Hidden)
	def(&c.Layers, Default.Layers)
	def(&c.Heads, Default.Heads)
	def(&c.Intermediate, Default.Intermediate)
	def(&c.MaxPositions, Default.MaxPositions)
	def(&c.TypeVocab, Default.TypeVocab)
	if c.LayerNormEps == 0 {
		c.LayerNormEps = Default.LayerNormEps
	}
	return c
}

// maxDim bounds every size so that weight counts stay far from overflowing an int and
// tensors stay within ONNX's 2 GiB protobuf limit.
const maxDim = 1 << 20

// Validate reports every problem of c, after zero fields take their defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{
		{"vocab size", c.VocabSize}, {"hidden", c.Hidden}, {"layers", c.Layers}, {"heads", c.Heads},
		{"intermediate", c.Intermediate}, {"max positions", c.MaxPositions}, {"type vocab", c.TypeVocab},
	} {
		if f.v < 0 || f.v > maxDim {
			errs = append(errs, fmt.Errorf("%s %d is outside [1, %d]", f.name, f.v, maxDim))
		}
	}
	if c.Heads > 0 && c.Hidden > 0 && c.Hidden%c.Heads != 0 {
		errs = append(errs, fmt.Errorf("hidden %d is not a multiple of heads %d", c.Hidden, c.Heads))
	}
	if e := float64(c.LayerNormEps); e < 0 || math.IsNaN(e) || math.IsInf(e, 0) {
		errs = append(errs, fmt.Errorf("layer norm epsilon %v is not a finite positive number", c.LayerNormEps))
	}
	weights := int64(c.VocabSize+c.MaxPositions+c.TypeVocab)*int64(c.Hidden) +
		int64(c.Layers)*(4*int64(c.Hidden)*int64(c.Hidden)+2*int64(c.Hidden)*int64(c.Intermediate))
	if len(errs) == 0 && weights*4 > 1<<31-1<<24 {
		errs = append(errs, fmt.Errorf("%d weights do not fit a 2 GiB ONNX model", weights))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid tinybert config: %w", err)
	}
	return nil
}
