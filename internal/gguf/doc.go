// Package gguf writes GGUF v3 files, and with TinyLlama a tiny random-weight
// llama model, so that integration tests can start a real llama.cpp
// llama-server without any pretrained model: none can be downloaded where the
// tests run. It is test infrastructure only; nothing in the product reads or
// writes GGUF.
//
// # Use
//
//	f, err := gguf.TinyLlama(gguf.LlamaConfig{Seed: 1})
//	...
//	out, _ := os.Create(filepath.Join(t.TempDir(), "model.gguf"))
//	_, err = f.WriteTo(out)
//
// The default model is 64 wide with 2 blocks, 4 query heads over 2 key/value
// heads and a vocabulary of some 600 SentencePiece pieces; the file is about
// 0.6 MB and a CPU server generates hundreds of tokens a second with it.
//
// # Format
//
// A File is written as the GGUF v3 specification in ggml's docs lays it out:
// the magic, version 3, tensor and metadata counts, the metadata entries
// (every scalar type, strings, and arrays of them), the tensor infos (name,
// dimensions with ne[0] first, type, offset), zero padding to 32 bytes, then
// each tensor's little-endian data padded to 32 bytes. Only F32 tensors are
// written; quantisation is of no use to a random model.
//
// # The model
//
// TinyLlama writes every key llama.cpp's llama loader reads for the
// architecture and a SentencePiece ("llama") tokenizer: the 256 byte tokens,
// the printable ASCII characters and a list of words with their prefixes.
// The vocabulary has no duplicate piece (llama.cpp asserts that) and no piece
// that is not UTF-8 (servers fail to encode such text as JSON). The chat
// template is plain ChatML, with <|im_end|> as end of generation.
//
// A random model samples anything it has a row for, including byte tokens
// that are halves of UTF-8 sequences and the end-of-generation token. To keep
// completions well-formed and of a predictable length, embedding dimension 0
// is a constant that no block writes to, and the output matrix puts a large
// negative weight there for every token that is not a normal text piece:
// such tokens sit some 40 nats below the rest and are never sampled. So a
// completion is always printable ASCII and always runs to max_tokens or to a
// stop sequence.
//
// # Why hand-written
//
// No maintained Go library writes GGUF. gpustack/gguf-parser-go (the one in
// wide use) only parses. Ollama has a writer inside its own module
// (fs/ggml), which would pull all of Ollama into the module graph for some
// two hundred lines. github.com/zerfoo/ztensor/gguf is a young writer inside
// a larger tensor module with no importers. The format is small and fixed,
// and the tests here read what is written back.
package gguf
