// Package safetensors reads and writes the safetensors format: an 8-byte little-endian header
// length N, N bytes of JSON header {name: {"dtype", "shape", "data_offsets": [begin, end)}, …,
// "__metadata__": {string: string}}, then the tensors' raw little-endian bytes, offsets
// relative to the end of the header.
//
// It is the one codec behind the Sentry files: package sentry/gate reads checkpoints with it
// for inference, package sentry writes checkpoints and optimizer state with it. It is a
// separate package so that reading and writing share one implementation while the gate stays
// free of the training stack; it imports only the standard library. No maintained Go module
// for the format exists among the project's dependencies, and it is small, so it is
// implemented here.
//
// Decode checks the whole file (header bounds, known dtypes, shapes that match their byte
// ranges, no gaps, overlaps or trailing bytes) and returns an error saying why a file is not
// well formed; what the tensors and metadata must hold is the caller's business. Encode
// writes tensors in name order and pads the header with spaces so the data starts 8-byte
// aligned, as the reference writer does.
package safetensors
