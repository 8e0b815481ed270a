package gguf

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token types of tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const (
	TokenNormal  int32 = 1
	TokenUnknown int32 = 2
	TokenControl int32 = 3
	TokenByte    int32 = 6
)

// Special token ids of the TinyLlama vocabulary (SentencePiece layout:
// <unk>, <s>, </s>, then the 256 byte tokens, then the ChatML markers).
const (
	UnkID      = 0
	BOSID      = 1
	EOSID      = 2
	ImStartID  = 3 + 256
	ImEndID    = ImStartID + 1
	firstPiece = ImEndID + 1
)

// ChatMLTemplate is the tokenizer.chat_template TinyLlama writes: plain
// ChatML, which llama-server renders with its Jinja engine and also
// recognises by name without it.
const ChatMLTemplate = "{% for message in messages %}" +
	"{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
	"{% endfor %}" +
	"{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"

// spaceMark is SentencePiece's visible space (U+2581), which stands for ' '
// inside pieces.
const spaceMark = "\u2581"

// DefaultWords are the whole-word pieces of the default vocabulary.
var DefaultWords = []string{
	"the", "and", "that", "have", "for", "not", "with", "you", "this", "but",
	"his", "from", "they", "say", "her", "she", "will", "one", "all", "would",
	"there", "their", "what", "out", "about", "who", "get", "which", "when",
	"make", "can", "like", "time", "just", "him", "know", "take", "people",
	"year", "your", "good", "some", "could", "them", "see", "other", "than",
	"then", "now", "look", "only", "come", "its", "over", "think", "also",
	"back", "after", "use", "two", "how", "our", "work", "first", "well",
	"way", "even", "new", "want", "because", "any", "these", "give", "day",
	"most", "hello", "world", "memory", "agent", "state", "Berlin", "Lisbon",
	"dog", "sister", "report", "Friday", "yes", "no",
}

// LlamaConfig sizes the random model. The zero value means the defaults: 64
// wide, 2 blocks, 4 heads sharing 2 key/value heads, feed-forward 128,
// context 2048, DefaultWords, seed 0.
type LlamaConfig struct {
	// Seed drives every random weight; the same config gives the same bytes.
	Seed uint64
	// EmbeddingLength is the model width (llama.embedding_length).
	EmbeddingLength int
	// BlockCount is the number of transformer blocks.
	BlockCount int
	// FeedForwardLength is the SwiGLU hidden width.
	FeedForwardLength int
	// HeadCount and HeadCountKV are the query and key/value head counts
	// (grouped-query attention when HeadCountKV < HeadCount).
	HeadCount   int
	HeadCountKV int
	// ContextLength is the training context written to the file; servers
	// take it as the default and the largest useful context.
	ContextLength int
	// Words are the whole words of the vocabulary besides the 256 byte
	// tokens and the printable ASCII characters; each becomes a piece
	// preceded by a space, with its prefixes so SentencePiece merging can
	// reach it. Nil means DefaultWords.
	Words []string
}

func (c LlamaConfig) withDefaults() LlamaConfig {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.EmbeddingLength, 64)
	def(&c.BlockCount, 2)
	def(&c.FeedForwardLength, 128)
	def(&c.HeadCount, 4)
	def(&c.HeadCountKV, 2)
	def(&c.ContextLength, 2048)
	if c.Words == nil {
		c.Words = DefaultWords
	}
	return c
}

// Validate reports every problem with the configuration at once; zero fields
// stand for their defaults.
func (c LlamaConfig) Validate() error {
	c = c.withDefaults()
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{
		{"EmbeddingLength", c.EmbeddingLength},
		{"BlockCount", c.BlockCount},
		{"FeedForwardLength", c.FeedForwardLength},
		{"HeadCount", c.HeadCount},
		{"HeadCountKV", c.HeadCountKV},
		{"ContextLength", c.ContextLength},
	} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s is %d, want > 0", f.name, f.v))
		}
	}
	if c.HeadCount > 0 && c.EmbeddingLength%c.HeadCount != 0 {
		errs = append(errs, fmt.Errorf("EmbeddingLength %d is not a multiple of HeadCount %d", c.EmbeddingLength, c.HeadCount))
	} else if c.HeadCount > 0 && (c.EmbeddingLength/c.HeadCount)%2 != 0 {
		errs = append(errs, fmt.Errorf("head size %d is odd; rotary embeddings need it even", c.EmbeddingLength/c.HeadCount))
	}
	if c.HeadCountKV > 0 && c.HeadCount%c.HeadCountKV != 0 {
		errs = append(errs, fmt.Errorf("HeadCount %d is not a multiple of HeadCountKV %d", c.HeadCount, c.HeadCountKV))
	}
	for i, w := range c.Words {
		switch {
		case w == "":
			errs = append(errs, fmt.Errorf("Words[%d] is empty", i))
		case !utf8.ValidString(w):
			errs = append(errs, fmt.Errorf("Words[%d] %q is not UTF-8", i, w))
		case strings.IndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			errs = append(errs, fmt.Errorf("Words[%d] %q holds a space or control character", i, w))
		}
	}
	return errors.Join(errs...)
}

// Vocab is a SentencePiece ("llama") vocabulary: pieces, scores and token
// types, index = token id.
type Vocab struct {
	Tokens []string
	Scores []float32
	Types  []int32
}

// LlamaVocab builds the vocabulary TinyLlama writes: <unk>, <s>, </s>, the
// byte tokens <0x00>..<0xFF>, <|im_start|>, <|im_end|>, the space piece, the
// printable ASCII characters, then each word with a leading space piece and
// every prefix of it. Pieces are unique and valid UTF-8 (llama.cpp asserts
// the first; servers fail to encode JSON without the second).
func LlamaVocab(words []string) Vocab {
	var v Vocab
	seen := map[string]bool{}
	add := func(piece string, typ int32, score float32) {
		if seen[piece] {
			return
		}
		seen[piece] = true
		v.Tokens = append(v.Tokens, piece)
		v.Types = append(v.Types, typ)
		v.Scores = append(v.Scores, score)
	}
	add("<unk>", TokenUnknown, 0)
	add("<s>", TokenControl, 0)
	add("</s>", TokenControl, 0)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), TokenByte, 0)
	}
	add("<|im_start|>", TokenControl, 0)
	add("<|im_end|>", TokenControl, 0)
	// Scores fall with the id, as in real SentencePiece vocabularies; longer
	// pieces come later, so merges prefer the shorter, commoner pair first
	// and still reach the whole word.
	add(spaceMark, TokenNormal, -1)
	for c := byte('!'); c <= '~'; c++ {
		add(string(c), TokenNormal, -float32(len(v.Tokens)))
	}
	for _, w := range words {
		piece := spaceMark + w
		for i := len(spaceMark) + 1; i <= len(piece); i++ {
			if !utf8.ValidString(piece[:i]) {
				continue
			}
			add(piece[:i], TokenNormal, -float32(len(v.Tokens)))
		}
	}
	return v
}

// anchor is the constant value of embedding dimension 0. Blocks never write
// to that dimension, so after the final norm it dominates and the output
// matrix can use it as a bias: a large negative weight there keeps a token
// from ever being sampled.
const anchor = 10

// TinyLlama builds a random-weight model of the llama architecture with a
// SentencePiece vocabulary (LlamaVocab) and a ChatML chat template. It is
// meant for exercising servers, not for text: its outputs are random
// printable-ASCII pieces. Control tokens (<|im_end|> included), <unk> and
// byte tokens are never sampled, so every completion is valid UTF-8 and
// runs to its token limit or a stop sequence. Weights are float32 drawn from
// a PCG generator seeded with cfg.Seed.
func TinyLlama(cfg LlamaConfig) (*File, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("tiny llama: %w", err)
	}
	cfg = cfg.withDefaults()
	vocab := LlamaVocab(cfg.Words)
	nVocab := len(vocab.Tokens)
	nEmbd := cfg.EmbeddingLength
	nFF := cfg.FeedForwardLength
	headDim := nEmbd / cfg.HeadCount
	nKV := headDim * cfg.HeadCountKV
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x61746d61)) // "atma"

	f := &File{KV: []KV{
		{"general.architecture", "llama"},
		{"general.name", "atma tiny random llama"},
		{"general.file_type", uint32(0)}, // all F32
		{"llama.context_length", uint32(cfg.ContextLength)},
		{"llama.embedding_length", uint32(nEmbd)},
		{"llama.block_count", uint32(cfg.BlockCount)},
		{"llama.feed_forward_length", uint32(nFF)},
		{"llama.attention.head_count", uint32(cfg.HeadCount)},
		{"llama.attention.head_count_kv", uint32(cfg.HeadCountKV)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(nVocab)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", vocab.Tokens},
		{"tokenizer.ggml.scores", vocab.Scores},
		{"tokenizer.ggml.token_type", vocab.Types},
		{"tokenizer.ggml.bos_token_id", uint32(BOSID)},
		{"tokenizer.ggml.eos_token_id", uint32(ImEndID)},
		{"tokenizer.ggml.unknown_token_id", uint32(UnkID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
		{"tokenizer.ggml.add_space_prefix", false},
		{"tokenizer.chat_template", ChatMLTemplate},
	}}

	normal := func(n int, std float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * std)
		}
		return out
	}
	ones := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	// mat is a matrix from nIn inputs to nOut outputs, scaled so outputs
	// keep unit variance; keepAnchor zeroes the row writing dimension 0.
	mat := func(name string, nIn, nOut int, keepAnchor bool) Tensor {
		data := normal(nIn*nOut, 1/math.Sqrt(float64(nIn)))
		if keepAnchor {
			clear(data[:nIn])
		}
		return Tensor{Name: name, Dims: []uint64{uint64(nIn), uint64(nOut)}, Data: data}
	}

	embd := normal(nEmbd*nVocab, 1)
	for t := range nVocab {
		embd[t*nEmbd] = anchor
	}
	f.Tensors = append(f.Tensors, Tensor{Name: "token_embd.weight", Dims: []uint64{uint64(nEmbd), uint64(nVocab)}, Data: embd})
	for b := range cfg.BlockCount {
		p := fmt.Sprintf("blk.%d.", b)
		f.Tensors = append(f.Tensors,
			Tensor{Name: p + "attn_norm.weight", Dims: []uint64{uint64(nEmbd)}, Data: ones(nEmbd)},
			mat(p+"attn_q.weight", nEmbd, nEmbd, false),
			mat(p+"attn_k.weight", nEmbd, nKV, false),
			mat(p+"attn_v.weight", nEmbd, nKV, false),
			mat(p+"attn_output.weight", nEmbd, nEmbd, true),
			Tensor{Name: p + "ffn_norm.weight", Dims: []uint64{uint64(nEmbd)}, Data: ones(nEmbd)},
			mat(p+"ffn_gate.weight", nEmbd, nFF, false),
			mat(p+"ffn_up.weight", nEmbd, nFF, false),
			mat(p+"ffn_down.weight", nFF, nEmbd, true),
		)
	}
	f.Tensors = append(f.Tensors, Tensor{Name: "output_norm.weight", Dims: []uint64{uint64(nEmbd)}, Data: ones(nEmbd)})
	// Sampleable tokens get random rows with nothing on the anchor; the rest
	// get only a large negative anchor weight, some 40 nats below the others.
	out := make([]float32, nEmbd*nVocab)
	for t := range nVocab {
		row := out[t*nEmbd : (t+1)*nEmbd]
		if vocab.Types[t] != TokenNormal {
			row[0] = -5
			continue
		}
		for i := 1; i < nEmbd; i++ {
			row[i] = float32(rng.NormFloat64() * 0.3)
		}
	}
	f.Tensors = append(f.Tensors, Tensor{Name: "output.weight", Dims: []uint64{uint64(nEmbd), uint64(nVocab)}, Data: out})
	return f, nil
}
