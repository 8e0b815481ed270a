// Package words is the one word splitter of the texts atma compares word by word: package
// retrieval (the failure analysis — does a packet hold the gold answer? — and the words of
// a query's "before …" anchor), package bench (answer and gold-value matching) and
// package facts (the words of a value, for its shape). Split
// lower-cases a text and cuts it at anything but letters and digits.
//
// The rule auditor (judge/rule) splits its own way: it keeps apostrophes ("don't",
// "ada's"), which its cues and stems read.
package words
