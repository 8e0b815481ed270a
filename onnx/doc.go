// Package onnx runs sentence-embedding backbones through ONNX Runtime.
//
// # Runtime
//
// ONNX Runtime is a shared library loaded at run time (github.com/yalue/onnxruntime_go).
// ResolveLibrary finds it — the --ort-lib flag, else ATMA_ORT_LIB, else the cache where
// scripts/install-onnxruntime.sh puts the CPU build from the onnxruntime-node package — and
// Init loads it once per process. On GPU nodes, point ATMA_ORT_LIB at a CUDA build.
//
// NewSession picks the execution provider. With ProviderAuto (the default) it asks package
// gpu for a supported NVIDIA GPU (H200, H100, A100, or any with compute capability ≥ 6.0); if
// there is one it appends the CUDA provider (NewCUDAProviderOptions → Update{device_id} →
// AppendExecutionProviderCUDA), and on any error — a CPU-only library fails at Update — it
// starts again with fresh session options on the CPU and logs why. ProviderCUDA turns that
// fallback into an error (ErrNoCUDA); ProviderCPU never probes.
//
// # Backbones
//
// A backbone is described by a Manifest (JSON): model and tokenizer files with their sha256,
// which model inputs get input_ids / attention_mask / token_type_ids (or a sparse id
// batch), the output and its kind, pooling (mean over the mask, or CLS), optional layer norm
// before Matryoshka truncation, L2 normalisation, task prefixes and the token limit. The
// manifest for nomic-embed-text-v1.5 ships in manifests/ (its files come from
// scripts/fetch-nomic.sh on a machine that can reach Hugging Face).
//
// # Encoder
//
// Encoder turns texts into vectors: prefix → tokenizer (package tokenizer/wordpiece or
// tokenizer/spm) → padded int64 (or int32) tensors → Run → pooling → layer norm → truncation →
// L2 normalisation. Texts longer than the token limit are truncated (Embedding.Truncated
// says so). Batches group texts of similar length and are bounded in texts and in padded
// tokens, so memory stays bounded whatever the input; a text's vector does not depend on the
// batch it ran in beyond float rounding. Invalid UTF-8 is an error (ErrInvalidText); an empty
// string is a valid text (the special tokens alone); zero texts return zero vectors. At
// load, the model's real inputs and outputs are checked against the manifest and both are
// listed when they differ.
package onnx
