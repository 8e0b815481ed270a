// Package gatetest holds helpers for testing code built on the Sentry gate (package
// sentry/gate) and its training (package sentry). It is for tests only.
//
// RandomHeads and RandomPairHeads make small seeded heads with random weights and, unlike
// gate.NewHeads, non-zero biases, so every parameter matters to a forward pass and gets a
// gradient in training tests; the same seed gives the same heads. RandomVec makes seeded
// standard normal embeddings.
package gatetest
