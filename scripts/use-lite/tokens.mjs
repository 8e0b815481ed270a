// Writes the token-id goldens of the Go tokenizer (tokenizer/spm), from the JS Tokenizer of
// @energetic-ai/embeddings:
//   tokenizer/spm/testdata/use_lite_tokens.golden.json  tokenSentences on the USE-lite vocabulary
//   tokenizer/spm/testdata/spm_quirks.golden.json       quirkCases on tiny vocabularies
// (lists in sentences.mjs). The Go tests compare every id list exactly.
//
// Usage: node scripts/use-lite/tokens.mjs [--out=DIR]   (after scripts/use-lite/deps.sh)
import { join } from "node:path";
import { arg, loadTokenizer, modelDir, repoRoot, require, sha256, versions, writeGolden } from "./lib.mjs";
import { quirkCases, tokenSentences } from "./sentences.mjs";

const outDir = arg("out", join(repoRoot, "tokenizer", "spm", "testdata"));
const generator = "node scripts/use-lite/tokens.mjs";

const tokenizer = loadTokenizer();
const items = tokenSentences.map((text) => ({ text, ids: tokenizer.encode(text) }));
const tokensPath = join(outDir, "use_lite_tokens.golden.json");
writeGolden(tokensPath, {
  generator,
  vocab_sha256: sha256(join(modelDir, "vocab.json")),
  versions: versions(),
  items,
});
console.log(`wrote ${items.length} token lists to ${tokensPath}`);

const { EmbeddingsModel } = require("@energetic-ai/embeddings");
const quirks = quirkCases.map(({ name, vocab, text }) => ({
  name,
  text,
  vocab,
  ids: new EmbeddingsModel({ vocabulary: vocab, model: null }).tokenizer.encode(text),
}));
const quirksPath = join(outDir, "spm_quirks.golden.json");
writeGolden(quirksPath, { generator, versions: versions(), items: quirks });
console.log(`wrote ${quirks.length} quirk cases to ${quirksPath}`);
