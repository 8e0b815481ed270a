// Regenerates hf.golden, hf_variants.golden, hf_random.golden and hf_unicode.txt.gz from
// the reference implementation: the
// Hugging Face tokenizers library (Rust), through its official Node binding.
//
//   mkdir /tmp/hf && cd /tmp/hf && npm install tokenizers@0.23.2
//   NODE_PATH=/tmp/hf/node_modules node hf_golden.js /path/to/tokenizer.json
//
// run from this directory, with the bert-base-uncased tokenizer.json (the one shipped in
// the Go module github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9, all_minilm_l6_v2/).
// The library reports character offsets; they are converted to byte offsets here.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Tokenizer } = require('tokenizers');

const VERSION = require('tokenizers/package.json').version;

function byteOffsets(text) {
  // byteAt[i] is the UTF-8 byte offset of the i-th Unicode scalar; one extra entry at the end.
  const byteAt = [0];
  let b = 0;
  for (const ch of text) {
    b += Buffer.byteLength(ch, 'utf8');
    byteAt.push(b);
  }
  return byteAt;
}

async function encodeCase(tk, name, text, maxTokens) {
  // Truncated means that the limit dropped tokens: the untruncated encoding is longer.
  tk.disableTruncation();
  const full = await tk.encode(text);
  if (maxTokens > 0) tk.setTruncation(maxTokens);
  const e = await tk.encode(text);
  const byteAt = byteOffsets(text);
  const ids = e.getIds();
  return {
    name,
    text,
    max_tokens: maxTokens,
    ids,
    type_ids: e.getTypeIds(),
    tokens: e.getTokens(),
    offsets: e.getOffsets().map(([s, t]) => [byteAt[s], byteAt[t]]),
    truncated: full.getLength() > e.getLength(),
    decoded: await tk.decode(ids, true),
    decoded_with_special: await tk.decode(ids, false),
  };
}

// Texts that are also encoded with a token limit.
const TRUNCATE = {
  'brown fox jumps over the lazy dog': [2, 3, 5, 9, 10],
  'The quick brown fox jumps over the lazy dog.': [4, 7, 11, 12],
  'Pneumonoultramicroscopicsilicovolcanoconiosis': [3, 5, 8],
  'hello [SEP] world': [3, 4, 5],
  '我爱北京天安门。': [4, 6],
  'café naïve Ångström résumé coöperate': [2, 6, 10],
  '': [2, 5],
};

// variants encodes variants.json's texts with each of its configurations.
async function variants(base, spec) {
  const out = [];
  for (const v of spec.variants) {
    const cfg = Object.assign({}, base, v.patch);
    const tk = Tokenizer.fromString(JSON.stringify(cfg));
    tk.disablePadding();
    for (const [i, text] of spec.texts.entries()) {
      out.push(Object.assign({ variant: v.name }, await encodeCase(tk, `${v.name}/${i}`, text, 0)));
      if (i < 3) out.push(Object.assign({ variant: v.name }, await encodeCase(tk, `${v.name}/${i}/max4`, text, 4)));
    }
  }
  return out;
}

async function golden(tk, corpus) {
  const cases = [];
  for (const [i, text] of corpus.entries()) {
    cases.push(await encodeCase(tk, `corpus/${i}`, text, 0));
    for (const m of TRUNCATE[text] || []) {
      cases.push(await encodeCase(tk, `corpus/${i}/max${m}`, text, m));
    }
  }
  return {
    source: `Hugging Face tokenizers ${VERSION} (Node binding), bert-base-uncased tokenizer.json; regenerate with testdata/hf_golden.js`,
    cases,
  };
}

// randomCases encodes seeded random strings that mix ASCII, controls, many scripts,
// combining marks, CJK, symbols, emoji, private-use and astral characters with special
// tokens and tricky words.
async function randomCases(tk, n) {
  let seed = 20240601;
  const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x80000000; };
  const pools = [
    [0x20, 0x7e], [0x20, 0x7e], [0x20, 0x7e], [0x61, 0x7a], [0x61, 0x7a], [0x41, 0x5a],
    [0x00, 0x1f], [0x7f, 0xff], [0x100, 0x24f], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff],
    [0x590, 0x6ff], [0x900, 0x97f], [0xe00, 0xe7f], [0x1100, 0x11ff], [0x1e00, 0x1eff],
    [0x2000, 0x206f], [0x2070, 0x22ff], [0x3000, 0x30ff], [0x4e00, 0x4fff], [0xac00, 0xad00],
    [0xf900, 0xfaff], [0xfe00, 0xffff], [0x1d100, 0x1d1ff], [0x1f300, 0x1faff], [0x20000, 0x20100],
    [0x10000, 0x10ffff], [0xe000, 0xe0ff],
  ];
  const words = ['the', 'hello', '[SEP]', '[MASK]', '[CLS]', '[PAD]', '[UNK]', "don't", 'café', 'naïve',
    'İ', 'ﬁ', 'Σ', 'ß', '...', '##', '2024', 'x'];
  const out = [];
  tk.disableTruncation();
  for (let i = 0; i < n; i++) {
    let text = '';
    const len = Math.floor(rnd() * 40);
    for (let k = 0; k < len; k++) {
      if (rnd() < 0.15) { text += words[Math.floor(rnd() * words.length)]; continue; }
      if (rnd() < 0.15) { text += ' '; continue; }
      const p = pools[Math.floor(rnd() * pools.length)];
      let cp = p[0] + Math.floor(rnd() * (p[1] - p[0] + 1));
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x41;
      text += String.fromCodePoint(cp);
    }
    const e = await tk.encode(text);
    const byteAt = byteOffsets(text);
    out.push({
      name: `random/${i}`,
      text,
      ids: e.getIds(),
      offsets: e.getOffsets().map(([s, t]) => [byteAt[s], byteAt[t]]),
      decoded: await tk.decode(e.getIds(), true),
    });
  }
  return out;
}

// unicodeTable describes, for every scalar value, what the file's BertNormalizer makes of
// it alone and how BertPreTokenizer classes it between two letters. Runs of code points
// that behave alike share a line: "first last normalised class" where normalised is one
// of same, removed, space, cjk (" c ") or hex code points, and class is word, space or
// punct.
function unicodeTable(tk) {
  const norm = tk.getNormalizer();
  const pre = tk.getPreTokenizer();
  const lines = [];
  let run = null;
  const flush = () => { if (run) lines.push(`${run.first.toString(16)} ${run.last.toString(16)} ${run.key}`); };
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const n = norm.normalizeString(ch);
    let nk;
    if (n === ch) nk = 'same';
    else if (n === '') nk = 'removed';
    else if (n === ' ') nk = 'space';
    else if (n === ' ' + ch + ' ') nk = 'cjk';
    else nk = Array.from(n, (c) => c.codePointAt(0).toString(16)).join(',');
    const splits = pre.preTokenizeString('a' + ch + 'a').map((s) => s[0]);
    let pk;
    if (splits.length === 1) pk = 'word';
    else if (splits.length === 2 && splits[0] === 'a' && splits[1] === 'a') pk = 'space';
    else if (splits.length === 3 && splits[1] === ch) pk = 'punct';
    else throw new Error(`unexpected pre-tokenization of U+${cp.toString(16)}: ${JSON.stringify(splits)}`);
    const key = `${nk} ${pk}`;
    // Only classes without a per-code-point mapping can run together.
    const runnable = nk === 'same' || nk === 'removed' || nk === 'space' || nk === 'cjk';
    if (run && runnable && run.key === key && run.last === cp - 1 - (cp === 0xe000 ? 0x800 : 0)) {
      run.last = cp;
    } else {
      flush();
      run = { first: cp, last: cp, key };
    }
    if (!runnable) { flush(); run = null; }
  }
  flush();
  return `# ${lines.length} runs; Hugging Face tokenizers ${VERSION}; see hf_golden.js\n` + lines.join('\n') + '\n';
}

// oneCasePerLine writes {source, cases} with one case per line, for readable diffs.
function oneCasePerLine(g) {
  return `{"source": ${JSON.stringify(g.source)},\n"cases": [\n` +
    g.cases.map((c) => JSON.stringify(c)).join(',\n') + '\n]}\n';
}

(async () => {
  const path = process.argv[2];
  if (!path) throw new Error('usage: node hf_golden.js tokenizer.json');
  const tk = Tokenizer.fromFile(path);
  tk.disablePadding();
  const corpus = JSON.parse(fs.readFileSync('corpus.json', 'utf8'));
  fs.writeFileSync('hf.golden', oneCasePerLine(await golden(tk, corpus)));
  const base = JSON.parse(fs.readFileSync(path, 'utf8'));
  const spec = JSON.parse(fs.readFileSync('variants.json', 'utf8'));
  fs.writeFileSync('hf_variants.golden', oneCasePerLine({
    source: `Hugging Face tokenizers ${VERSION} (Node binding), variants.json applied to bert-base-uncased; regenerate with testdata/hf_golden.js`,
    cases: await variants(base, spec),
  }));
  fs.writeFileSync('hf_random.golden', oneCasePerLine({
    source: `Hugging Face tokenizers ${VERSION} (Node binding), bert-base-uncased, seeded random strings; regenerate with testdata/hf_golden.js`,
    cases: await randomCases(tk, 500),
  }));
  fs.writeFileSync('hf_unicode.txt.gz', zlib.gzipSync(unicodeTable(tk), { level: 9 }));
})().catch((e) => { console.error(e); process.exit(1); });
