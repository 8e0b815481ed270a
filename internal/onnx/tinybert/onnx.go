package tinybert

import (
	"fmt"
	"math"
	"strconv"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// Names of the model's inputs and output, as in Hugging Face BERT exports.
const (
	InputIDs        = "input_ids"
	AttentionMask   = "attention_mask"
	TokenTypeIDs    = "token_type_ids"
	LastHiddenState = "last_hidden_state"
)

// Opset is the ONNX opset the model imports (LayerNormalization needs 17).
const Opset = 17

// maskValue is added to the attention scores of padded keys: the lowest float32, so that
// float32(score + maskValue) == maskValue and a padded key's softmax weight is exactly zero.
const maskValue = -math.MaxFloat32

// ONNX returns the serialized model. Inputs are input_ids, attention_mask and token_type_ids,
// all int64 [batch, sequence]; the output is last_hidden_state, float32
// [batch, sequence, hidden]. Position ids are 0…sequence-1 in every row, so padding belongs on
// the right.
func (m *Model) ONNX() ([]byte, error) {
	data, err := m.graph().Marshal()
	if err != nil {
		return nil, fmt.Errorf("build tinybert ONNX model: %w", err)
	}
	return data, nil
}

func (m *Model) graph() *graph.Graph {
	c := m.Config
	h, heads := int64(c.Hidden), int64(c.Heads)
	dh := h / heads
	g := graph.New("tinybert")
	g.Producer = "atma tinybert"
	g.ModelDoc = "BERT-like encoder with seeded random weights, for tests and benchmarks"
	for _, kv := range [][2]string{
		{"vocab_size", strconv.Itoa(c.VocabSize)}, {"hidden", strconv.Itoa(c.Hidden)},
		{"layers", strconv.Itoa(c.Layers)}, {"heads", strconv.Itoa(c.Heads)},
		{"intermediate", strconv.Itoa(c.Intermediate)}, {"max_positions", strconv.Itoa(c.MaxPositions)},
		{"type_vocab", strconv.Itoa(c.TypeVocab)}, {"layer_norm_eps", strconv.FormatFloat(float64(c.LayerNormEps), 'g', -1, 32)},
		{"seed", strconv.FormatInt(c.Seed, 10)},
	} {
		g.Metadata(kv[0], kv[1])
	}
	g.Opset("", Opset)
	batch, seq := graph.Sym("batch"), graph.Sym("sequence")
	ids := g.Input(InputIDs, graph.Int64, batch, seq)
	mask := g.Input(AttentionMask, graph.Int64, batch, seq)
	types := g.Input(TokenTypeIDs, graph.Int64, batch, seq)

	norm := func(prefix, x string, n LayerNorm, out string) string {
		gamma := g.InitFloat32(prefix+".weight", []int64{h}, n.Gamma)
		beta := g.InitFloat32(prefix+".bias", []int64{h}, n.Beta)
		if out == "" {
			out = g.Unique(prefix + ".output")
		}
		return g.Node(graph.Node{Op: "LayerNormalization", Inputs: []string{x, gamma, beta}, Outputs: []string{out},
			Attrs: []graph.Attr{graph.AttrInt("axis", -1), graph.AttrFloat("epsilon", c.LayerNormEps)}})[0]
	}
	linear := func(prefix, x string, l Linear) string {
		w := g.InitFloat32(prefix+".weight", []int64{int64(l.In), int64(l.Out)}, l.Weight)
		b := g.InitFloat32(prefix+".bias", []int64{int64(l.Out)}, l.Bias)
		return g.Op("Add", g.Op("MatMul", x, w), b)
	}
	gather := func(table, idx string) string {
		return g.OpWith("Gather", []string{table, idx}, graph.AttrInt("axis", 0))
	}

	// Embeddings: word + token type + position (0…S-1), then LayerNorm.
	word := gather(g.InitFloat32("embeddings.word_embeddings.weight", []int64{int64(c.VocabSize), h}, m.WordEmbeddings), ids)
	typ := gather(g.InitFloat32("embeddings.token_type_embeddings.weight", []int64{int64(c.TypeVocab), h}, m.TypeEmbeddings), types)
	seqLen := gather(g.Op("Shape", ids), g.ScalarInt64(1))
	posIDs := g.Op("Range", g.ScalarInt64(0), seqLen, g.ScalarInt64(1))
	pos := gather(g.InitFloat32("embeddings.position_embeddings.weight", []int64{int64(c.MaxPositions), h}, m.PositionEmbeddings), posIDs)
	x := norm("embeddings.LayerNorm", g.Op("Add", g.Op("Add", word, typ), pos), m.EmbeddingNorm, "")

	// Additive mask [B, 1, 1, S]: 0 where attention_mask is 1, maskValue where it is 0.
	maskF := g.OpWith("Cast", []string{mask}, graph.AttrInt("to", int64(graph.Float32)))
	maskF = g.Op("Unsqueeze", maskF, g.Int64s(1, 2))
	maskAdd := g.Op("Mul", g.Op("Sub", g.ScalarFloat32(1), maskF), g.ScalarFloat32(maskValue))

	headShape := g.Int64s(0, 0, heads, dh) // 0 copies batch and sequence from the input
	splitHeads := func(t string, perm ...int64) string {
		return g.OpWith("Transpose", []string{g.Op("Reshape", t, headShape)}, graph.AttrInts("perm", perm...))
	}
	scale := g.ScalarFloat32(float32(math.Sqrt(float64(dh))))
	for i, l := range m.Layers {
		p := "encoder.layer." + strconv.Itoa(i)
		q := splitHeads(linear(p+".attention.self.query", x, l.Query), 0, 2, 1, 3) // [B, h, S, dh]
		k := splitHeads(linear(p+".attention.self.key", x, l.Key), 0, 2, 3, 1)     // [B, h, dh, S]
		v := splitHeads(linear(p+".attention.self.value", x, l.Value), 0, 2, 1, 3) // [B, h, S, dh]
		scores := g.Op("Add", g.Op("Div", g.Op("MatMul", q, k), scale), maskAdd)
		probs := g.OpWith("Softmax", []string{scores}, graph.AttrInt("axis", -1))
		ctx := g.OpWith("Transpose", []string{g.Op("MatMul", probs, v)}, graph.AttrInts("perm", 0, 2, 1, 3))
		ctx = g.Op("Reshape", ctx, g.Int64s(0, 0, h))
		attn := linear(p+".attention.output.dense", ctx, l.AttentionOutput)
		x1 := norm(p+".attention.output.LayerNorm", g.Op("Add", attn, x), l.AttentionNorm, "")

		// GELU, exact erf form: x · 0.5 · (1 + erf(x / √2)).
		inter := linear(p+".intermediate.dense", x1, l.Intermediate)
		erf := g.Op("Erf", g.Op("Div", inter, g.ScalarFloat32(math.Sqrt2)))
		gelu := g.Op("Mul", g.Op("Mul", inter, g.ScalarFloat32(0.5)), g.Op("Add", erf, g.ScalarFloat32(1)))
		out := linear(p+".output.dense", gelu, l.Output)
		name := ""
		if i == len(m.Layers)-1 {
			name = LastHiddenState
		}
		x = norm(p+".output.LayerNorm", g.Op("Add", out, x1), l.OutputNorm, name)
	}
	if len(m.Layers) == 0 { // only a hand-built Model can have no layers
		g.Node(graph.Node{Op: "Identity", Inputs: []string{x}, Outputs: []string{LastHiddenState}})
	}
	g.Output(LastHiddenState, graph.Float32, batch, seq, graph.Fixed(h))
	return g
}
