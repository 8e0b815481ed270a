// Package reward is the GRPO reward for the Judge's audit answers. Rewarder.Score(prompt,
// completion, label) is a pure function: the same arguments and configuration give the
// same Score, on any goroutine. It reads the think block with
// judge.ParseThink and the verdict object with judge.ParseVerdict, the two halves of
// judge.ParseStrict taken apart so that the format and the verdict are scored separately
// (a verdict after a faulty think block, or alone, still earns verdict credit), and scores
// nine components, reported one by one next to their weighted sum:
//
//	component     values                     what it measures
//	format        1, 0.5, 0                  a <think> block opening the answer with the four step
//	                                         labels as ParseStrict wants them; valid tags without
//	                                         them; anything else (the paper's values)
//	verdict       0 … 1                      status right 0.5, and type right 0.25; action right
//	                                         (eval.Gold.ActionOK) 0.25; no strict verdict 0
//	implicit      0 or 1                     implicit items only: a violation found as a conflict
//	                                         of type implicit_violation, a look-alike left alone
//	length        0 … 1                      1 from 30 to 220 words, linear to 0 below and at 320
//	cohesion      0 … 1                      1 − 0.25 per issue: text before <think>, a second
//	                                         think tag, no object after </think>, text between,
//	                                         an unclosed object, text after it, other tags
//	conciseness   0 … 1                      the conclusion after </think>: 1 up to 600 bytes,
//	                                         0 at 1600, 0 with no JSON object in it
//	echo          −1 … 0                     shingles of 8 words outside the JSON that repeat the
//	                                         prompt but not the pair's texts: none up to 25 %,
//	                                         −1 from 60 %; −1 for a completion holding the prompt
//	preservation  −1 or 0                    the action destroys an old state the gold action
//	                                         keeps: supersede where history is kept (transition),
//	                                         supersede or transition where the old value still
//	                                         holds outside a scope, anything but keep or coexist
//	                                         where it is still current
//	summary       −0.5 … 1                   conflicts: "slot: old -> new" 0.4, naming the old
//	                                         value 0.3, the new 0.3 (any text for implicit
//	                                         violations, whose new value is implied); a summary
//	                                         on a pair without a conflict −0.5
//
// Weights (default: format 1, verdict 2, implicit 1, length 0.25, cohesion 0.5,
// conciseness 0.25, echo 1, preservation 1, summary 0.5) and every value above live in
// one JSON file, reward.json, embedded as the default (DefaultConfig);
// LoadConfig overlays a file on it and refuses unknown keys. The paper fixes the
// format values; the others are this package's choices, set so that a right answer in
// the format scores 4.5 (5.5 for an implicit violation) and a wrong or destructive one
// far less. Config.Verdict.Parse "lenient" takes the verdict from judge.ParseLenient
// when the strict parse fails, for denser early rewards.
//
// Bad inputs never panic or error: an empty or white-space completion scores 0 and is
// flagged empty; one over Limits.MaxCompletionBytes (64 KiB) is not scanned, scores 0 and
// is flagged too_long; invalid UTF-8 is read with U+FFFD and flagged; a completion that
// contains the prompt gets the full echo penalty; without a label the label terms
// (verdict, implicit, preservation, summary) are 0 and the score is flagged no_label.
// Flags.Failed tells the flags that count as failed inputs.
//
// The reward runs at about 50,000 completions a second on one goroutine for answers of
// the paper's length (BenchmarkReward; figures in docs/benchmarks.md), far above what a
// policy generates: the parse is the judge's, not a faster copy of it.
//
// # Labels
//
// A label is the JSON of a eval.Gold, optionally with the item's values and texts
// (Label): {"status":"conflict","conflict_type":"temporal_update","action":"transition",
// "implicit":false,"slot":"home","old_value":"Berlin","new_value":"Lisbon"}. ParseLabel
// also takes a JSON string holding that object, which is how a dataset's label column
// reaches the reward server from every engine; server.WriteDataset (package grpo/server)
// writes such datasets.
package reward
