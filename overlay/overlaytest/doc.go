// Package overlaytest holds helpers for testing code built on the overlay. It is for
// tests only: nothing in it is fit to embed real memories.
//
// BagEmbedder is a deterministic bag-of-words embedder: texts that share words get
// close vectors, and the same text always the same vector, so retrieval and
// supersession can be tested without a model. It stands in for the ONNX backbone that
// the overlay uses in production.
//
// The package imports nothing of the overlay, so the overlay's own internal tests
// can use it without an import cycle.
package overlaytest
