// Package rule is the rule auditor: a judge.Auditor that needs no model. It decides from
// the texts — slot and value extraction (places, employers, job titles, names, numbers with
// units), cues of change ("moved", "now", "used to", "no longer"), negation, narrower scope
// ("only", "except", "rarely") and implications (a ribeye for a vegetarian, a flat in
// another city) — and from Sentry's scores only when it cannot tell the old record's slot.
// When both records carry facts of one slot (judge.Record.Facts, from package facts), the
// facts decide. It is the embedded default when no endpoint is configured, the fallback of
// llmauditor.Auditor and the baseline every LLM judge is compared with.
//
// ChangeCue exposes the auditor's lexicon to the overlay: a sign that a new text changes,
// denies or narrows an old one, which routes a pair to the Judge that an embedding gate
// passes.
//
// Auditor is safe for concurrent use.
package rule
