// Package tinybert is a small BERT-like encoder with seeded random weights, as an ONNX model and
// as a plain Go forward pass that computes the same function. It stands in for a real
// embedding model where one is not wanted: end-to-end tests of the ONNX Runtime encoder
// (which compare ONNX Runtime with Forward), demos, and benchmarks at a realistic width
// (Bench: 4 layers × 384 hidden, 6 heads, FFN 1536, BERT's 30522-token vocabulary).
//
// The weights are a pure function of the Config: New draws them from a PCG generator seeded
// with Config.Seed, in a fixed order, so the same Config always yields bit-identical weights
// and ONNX bytes. The zero Config is Default, a tiny model (hidden 32, 2 layers, 4 heads).
//
// # Architecture
//
// The model follows BERT's post-LayerNorm encoder, with Hugging Face's tensor names:
//
//	word + token type + position embeddings → LayerNorm
//	per layer: Q, K, V projections → scaled dot-product attention over heads, with an
//	           additive mask on padded keys → output projection → residual + LayerNorm
//	           → dense → GELU (exact, erf form) → dense → residual + LayerNorm
//
// ONNX exposes the signature of Hugging Face feature-extraction exports (nomic-embed, MiniLM):
// inputs input_ids, attention_mask and token_type_ids, int64 [batch, sequence]; output
// last_hidden_state, float32 [batch, sequence, hidden]. The graph uses standard operators at
// opset 17 (Gather, Range, LayerNormalization, MatMul, Reshape with 0 codes, Transpose,
// Softmax, Erf), so any ONNX Runtime build runs it. Position ids are 0…sequence-1 in every row,
// so pad on the right.
//
// The mask adds the lowest float32 to the attention scores of keys whose attention_mask is 0.
// Forward does the same addition in float32, so padded keys get exactly zero weight in both,
// and a sequence's hidden states do not depend on how far it is padded or on the ids at padded
// positions. Forward computes in float64; it agrees with ONNX Runtime on CPU within about 1e-6
// at the default configuration.
package tinybert
