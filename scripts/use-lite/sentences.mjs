// Sentence lists for the USE-lite golden files. Kept in one place so the token and vector
// goldens share their edge cases.

// longText is a ~2,400-character paragraph (far more than the model's 128 tokens).
export const longText = [
  "Memory for language agents is not a single store but a set of habits: what to write down, when to",
  "trust it, and when to let it go. In March 2024 the team moved the service from Berlin to Lisbon,",
  "and the agent kept answering questions about the old office for weeks — 37 tickets in total, each",
  "one closed with an apology. The fix was small (a 12-line change to how facts are superseded), but",
  "finding it took longer: logs were noisy, timestamps mixed UTC and CET, and two replicas disagreed",
  "about which record was newer. Lessons learned? First, every fact needs a time; second, a newer",
  "fact must win over an older one unless the user says otherwise; third, deletions are facts too.",
  "We measured recall@5 before and after: 0.62 → 0.91 on the held-out set of 1,250 questions, with",
  "p95 latency staying under 80 ms on a single CPU core. The remaining errors were mostly about",
  "people's names with accents (José, Zoë, Björn, Ana-María), abbreviations like \"approx.\" or",
  "\"e.g.\", and units such as 5 km/h, 3.5 GB, 20°C or 1/2 cup. Some users wrote in several languages",
  "at once — \"c'est la vie\", \"¿qué tal?\", \"danke schön\", 日本語 and 中文 — and a few used emoji",
  "for whole words (🚗 for car, ☕ for coffee, 🎂 for birthday). None of that should surprise an",
  "encoder, yet every one of them changes how text is split into pieces. Long inputs are clipped: the",
  "model only reads the first 128 pieces of each text, so whatever comes after that point, like this",
  "sentence about the weather in Porto (sunny, 24 degrees, light wind from the north-west), never",
  "reaches the network at all. That is fine for short notes and questions, but a summary of a long",
  "meeting must be cut into chunks first, or its ending is simply lost. We also found that repeated",
  "whitespace,\ttabs and\nnew lines behave differently from plain spaces: only the space becomes a word",
  "boundary, everything else is an unknown symbol. Finally, numbers like 3:30, 10:00 and 2:45 pm are",
  "split in surprising ways because one piece in the vocabulary carries a positive score.",
].join(" ");

// zalgo stacks more than 30 combining marks on one letter: ICU (JavaScript) sorts and
// composes the whole run, x/text's stream-safe mode would cut it with a CGJ.
export const zalgoSame = "Z" + "\u0301".repeat(40) + "oo";
export const zalgoMixed =
  "a" + "\u0301\u0316".repeat(18) + "\u0308\u0323" + "e" + "\u0300\u0327\u0304".repeat(12) + "!";

// tokenSentences feed tokenizer/spm/testdata/use_lite_tokens.golden.json.
export const tokenSentences = [
  "",
  " ",
  "a",
  "I",
  "Hello world.",
  "hello world",
  "HELLO WORLD",
  "The quick brown fox jumps over the lazy dog.",
  "MiXeD CaSe WoRdS iN a SeNtEnCe",
  "I can't believe it's not butter!",
  "They'll've gone by then, won't they? Y'all'd better hurry.",
  "Prices rose 3.5% to $1,234.56 in Q3 2023.",
  "It weighs 12kg, is 3.2 m long and goes 100 km/h; 20°C, 1/2 cup, 5GB.",
  "Meet me at 3:30 or 10:00, not 2:45pm.",
  "123456789 0 42 3.14159 1e10 -7 +49 (0)30 1234567",
  "Café naïve résumé façade coöperate",
  "Crème brûlée à la mode, piñata, São Paulo",
  "Straße in München über Äpfel und Öl",
  "e\u0301 versus \u00e9: combining and precomposed",
  "日本語のテキストです。",
  "中文句子，没有空格。",
  "한국어 문장입니다",
  "\u1100\u1161\u11a8 decomposed jamo",
  "Привет, мир! Как дела?",
  "مرحبا بالعالم",
  "नमस्ते दुनिया",
  "I ❤️ emoji 😀🎉👍🏽",
  "👨‍👩‍👧‍👦 family and 🇵🇹 flag",
  "multiple     spaces    between   words",
  "tabs\tand\nnewlines\r\nmixed\u000bin\u000ctext",
  "   leading spaces",
  "trailing spaces   ",
  "  both sides  ",
  "supercalifragilisticexpialidocious antidisestablishmentarianism",
  "xqzjv wqkrt pfffft zzzzzz",
  "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３",
  "ﬁnancial ﬂow ½ x² ™ № ⅷ",
  "non\u00a0breaking\u2003em\u3000ideographic\u2009thin spaces",
  "①②③ ⑴ ㈱ ㍿ ǅ ǈ ǋ",
  "¨ ´ ˜ ¸ spacing diacritics",
  "Ω ohm vs Ω omega; Å angstrom vs Å",
  "....!!!???",
  "“Smart quotes” and ‘apostrophes’ — dashes – too…",
  "email@example.com https://example.org/path?q=1&r=2#frag",
  "#hashtag @mention $TICKER ~tilde `code` |pipe|",
  "\u2581 already has the separator \u2581\u2581",
  "\u0000 control \u0007 chars \u007f and \u200b zero width",
  "replacement \ufffd char",
  "\u201d5 duplicated piece \u201d5",
  "the the the the the",
  zalgoSame,
  zalgoMixed,
  "\u01c5" + "\u0301".repeat(32) + " \u01c4\u01c5\u01c6 \u01f1",
  longText,
];

// vectorSentences feed internal/onnx/tfjs/testdata/use_lite_vectors.golden.json.
export const vectorSentences = [
  "",
  "hello",
  "A man is playing a guitar.",
  "A person plays an acoustic guitar on stage.",
  "The quick brown fox jumps over the lazy dog.",
  "How old are you?",
  "What is your age?",
  "My dog Rex is three years old.",
  "I moved from Berlin to Lisbon last spring.",
  "Where do I live now?",
  "....!!!???",
  "Café naïve résumé façade",
  "日本語のテキストです。",
  "I ❤️ emoji 😀🎉",
  "  leading and trailing spaces  ",
  "tabs\tand\nnewlines",
  "Prices rose 3.5% to $1,234.56 in Q3 2023.",
  "I can't believe it's not butter!",
  "MiXeD CaSe WoRdS",
  "supercalifragilisticexpialidocious",
  "Meet me at 3:30 or 10:00.",
  "the ".repeat(140).trim(),
  longText,
];

// quirkCases run the JS tokenizer on tiny vocabularies built so that one of its rules decides
// the result (tokenizer/spm/testdata/spm_quirks.golden.json). Ids 0-5 are reserved.
const reserved = [["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["x1", 0], ["x2", 0], ["x3", 0]];
const unkLong = [["<unk>", 0], ...reserved.slice(1)];
export const quirkCases = [
  // ▁ab (-1.5) against ▁a + b (-1 + -1): the best total wins.
  { name: "best total", vocab: [...reserved, ["▁", -1], ["▁a", -1], ["b", -1], ["▁ab", -1.5], ["a", -1]], text: "ab" },
  // Equal totals: the arc visited last (the one starting further right) wins.
  { name: "tie goes to later arc", vocab: [...reserved, ["▁", -1], ["▁a", -1], ["b", -1], ["▁ab", -2], ["a", -1]], text: "ab" },
  // best == 0 means "no path yet": an arc always replaces a best of exactly 0, here the
  // better ▁q (0) by ▁ + q (-6).
  { name: "zero best is unset", vocab: [...reserved, ["▁", -1], ["▁q", 0], ["q", -5]], text: "q" },
  // A positive score is allowed and pulls segmentations towards its piece.
  { name: "positive score", vocab: [...reserved, ["▁", -1], [":", -1], ["3", -1], ["0", -1], [":30", 30], ["▁3", -1], ["30", -1]], text: "3:30" },
  // Unknown code points merge into one id 0 per run.
  { name: "unknown runs", vocab: [...reserved, ["▁", -1], ["a", -1]], text: "qqaqq q" },
  // A duplicated piece keeps the last id and score.
  { name: "duplicate piece", vocab: [...reserved, ["▁", -1], ["z", -1], ["z", -3]], text: "z z" },
  // The backward pass steps back by the UTF-16 length of the piece: 😀 is 2 units for one
  // code point, so the walk skips the code point in front of it.
  { name: "utf16 backward step", vocab: [...reserved, ["▁", -1], ["😀", -1], ["b", -1]], text: "ab😀" },
  // The backward pass steps back by the length of piece 0 for an unknown code point.
  { name: "long unknown piece", vocab: [...unkLong, ["▁", -1], ["a", -1]], text: "a qqa" },
  // A position no piece ends at (after "x", which is only the start of "xy") keeps best 0,
  // which makes the arc "yz" from it look cheap; the backward pass then reads the unset
  // position as an unknown.
  { name: "unreachable position", vocab: [...reserved, ["▁", -1], ["xy", -1], ["y", -9], ["yz", -1], ["z", -1]], text: "xyz" },
  // Reserved pieces are never matched.
  { name: "reserved not matched", vocab: [...reserved, ["▁", -1], ["<", -1]], text: "<s>" },
  // Only U+0020 becomes ▁; NFKC runs first, so a no-break space does too.
  { name: "spaces", vocab: [...reserved, ["▁", -1], ["a", -1], ["▁a", -1]], text: " a\u00a0a\ta  " },
];
