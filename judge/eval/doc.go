// Package eval holds the Judge's evaluation and training data.
//
// Set builds a held-out audit set with gold labels (status, type, action): 151 items by
// default, like the paper's, drawn from the data package's narrative and casual phrasing
// families and from this package's indirect families of implicit violations ("I'm
// vegetarian" vs "grilled a rare ribeye", "I don't drink alcohol" vs "opened a bottle of
// wine with dinner", "I live in Paris" vs "my commute from my Berlin flat"), with
// consistent look-alikes and unrelated pairs. Run runs several auditors over a set and
// reports accuracy, precision, recall and F1 on conflict, type, action and
// implicit-violation accuracy, accuracy by conflict type, the strict format-valid rate
// (judge.ParseStrict), latency percentiles and tokens, as a table (Report.WriteTable) or
// JSON. WriteItems and ReadItems store sets as JSON lines.
//
// SFTItems builds a training set the same way from another seed, the direct, reported and
// recall families and the data package's own implicit families, leaving out every input of
// the evaluation set; WriteSFT writes it as chat JSONL for SFT trainers, each assistant
// turn a templated answer in the audit format (Target) built from the labels.
//
// All generation is seeded: the same configuration gives the same items, byte for byte.
package eval
