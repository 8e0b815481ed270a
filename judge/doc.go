// Package judge is the Judge's protocol. The Judge audits the pairs the Sentry gate routes
// to it, an old memory record and a new input, and says whether they conflict, how, and how
// the memory should fuse them. This package holds what every auditor and every consumer of
// verdicts shares: the prompts, the answer format, the verdict and its rules (Verdict,
// Validate), the strict and the lenient parser of answers, the errors, and the Auditor
// interface. Its sub-packages do one job each:
//
//	judge/rule        the rule auditor (rule.Auditor), its lexicon and fact rules, and
//	                  rule.ChangeCue, the lexical change cue the overlay routes pairs by
//	judge/llmauditor  the auditor behind an OpenAI-compatible endpoint (llmauditor.Auditor),
//	                  falling back to the rule auditor
//	judge/eval        the held-out audit set (eval.Set), the evaluation of auditors on it
//	                  (eval.Run), item files and the SFT data generator (eval.SFTItems)
//
// The GRPO reward that trains a Judge model (package grpo/reward) reads answers with
// ParseThink and ParseVerdict.
//
// # Audit protocol
//
// The model gets SystemPrompt and UserPrompt(pair) (Messages builds both turns). The user
// prompt shows the old record, the new input and Sentry's scores: a, the topic similarity,
// b, the logic similarity, and gap = a − b; the record's slot and date when known. An
// answer is a think block with four steps, each starting its own line with a fixed label
// in this order — "Slot:" (which slot each text fills), "Comparison:" (old value against
// new), "Conflict type:" and "Action:" — then the verdict, one JSON object:
//
//	<think>
//	Slot: Both texts are about the user's home city.
//	Comparison: Old value: Berlin. New value: Lisbon. The user says they moved, so Berlin is no longer current.
//	Conflict type: temporal_update: the home changed over time.
//	Action: transition: Berlin becomes a past state and Lisbon is the current home.
//	</think>
//	{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"home city: Berlin -> Lisbon","confidence":0.92}
//
// Verdict fields, all required:
//
//	field                   type      values
//	status                  string    conflict, consistent, unrelated
//	conflict_type           string    temporal_update, explicit_negation, value_discrepancy,
//	                                  scope_mismatch, implicit_violation, none
//	action                  string    supersede, transition, coexist, scoped_exception, keep
//	clarification_needed    boolean   ask the user before acting
//	clarification_question  string    the question; "" when none is needed
//	links                   array     {"type", "from", "to"}: type supersedes, superseded_by,
//	                                  evolves_from, evolves_to, scoped_exception, coexists_with;
//	                                  from and to "old" or "new"
//	transition_summary      string    "slot: old value -> new value"; "" when nothing changed
//	confidence              number    0 to 1
//
// The fields must agree (Verdict.Validate):
//
//   - consistent and unrelated pairs have conflict_type none and action keep or coexist;
//   - a conflict has a conflict type other than none and an action its type allows:
//     temporal_update → transition or supersede; explicit_negation and value_discrepancy →
//     supersede; scope_mismatch → scoped_exception or supersede; implicit_violation → keep,
//     supersede, transition or scoped_exception; any conflict may keep the memory as it is
//     only with a clarification question (DefaultAction gives the usual action of a type);
//   - clarification_needed holds exactly when there is a question;
//   - a transition has a transition summary;
//   - links fit the action — supersede needs supersedes or superseded_by, transition
//     evolves_from or evolves_to, scoped_exception a scoped_exception link, coexist may
//     carry coexists_with, keep carries none — and go the way their type says
//     (supersedes, evolves_from and scoped_exception from new to old; superseded_by and
//     evolves_to from old to new), with no record linked to itself and no repeats.
//
// VerdictSchema is the verdict's JSON Schema for llm.Request.JSONSchema. A server that
// enforces it makes the model write the JSON alone, without the think block.
//
// # Parsers
//
// ParseStrict is for rewards and metrics: exactly the format above, every field present,
// no other field, enums spelled as listed, the rules above. Its errors are *ParseError
// values that unwrap to sentinels naming the kind of problem (ErrNoThink, ErrMissingStep,
// ErrStepOrder, ErrExtraText, ErrMultipleJSON, ErrMissingField, ErrInvalidEnum,
// ErrInconsistent, …) and say where and what. It is ParseThink (the think block) then
// ParseVerdict (the verdict object after it); package grpo/reward calls the two apart to
// score the block and the verdict separately. It is the only strict parser of answers:
// 50,000 to 100,000 answers a second on one core (BenchmarkParseStrict), far above any
// policy's output rate, so no faster copy is kept. The JSON is read with
// go-json-experiment/json, which refuses a name given twice, as the overlay's API and
// the retrieval controller's parser do.
//
// ParseLenient is for a model's free text at run time: llmauditor.Auditor parses with it
// an answer that fails ParseStrict (unless its Config.Strict), which is every answer of a
// server that enforces VerdictSchema (the JSON alone, no think block) and many of small
// models (code fences, a remark after the object, "Temporal update"); grpo/reward uses it
// only when a reward configuration asks for lenient verdicts. It takes the last JSON object
// after the think block (or anywhere), in code fences or amid text, matches field names
// and enum values loosely with common synonyms, defaults what is missing and repairs what
// is inconsistent. Both are fuzzed; whatever ParseStrict accepts, ParseLenient accepts
// with the same verdict. Render writes an answer in the format.
//
// # Auditors
//
// An Auditor turns a Pair into a Result: the verdict, the think steps, the raw answer, its
// source (SourceRule or the model's name), latency, tokens, and why the strict parse
// failed or why a fallback answered. rule.Auditor and llmauditor.Auditor implement it.
package judge
