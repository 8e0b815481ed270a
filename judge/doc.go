// Package judge is the Judge of A-TMA: it audits the pairs the Sentry gate routes to it, an
// old memory record and a new input, and says whether they conflict, how, and how the
// memory should fuse them. It holds the audit protocol (prompts, answer format, verdict
// schema), a strict and a lenient parser of answers, a rule-based auditor that needs no
// model, an auditor backed by any OpenAI-compatible endpoint (package llm), an evaluation
// harness with a held-out audit set, and a writer of chat-format SFT data.
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
// ParseVerdict (the verdict object after it); package grpo's reward calls the two apart to
// score the block and the verdict separately. It is the only strict parser of answers:
// 50,000 to 100,000 answers a second on one core (BenchmarkParseStrict), far above any
// policy's output rate, so no faster copy is kept. The JSON is read with
// go-json-experiment/json, which refuses a name given twice, as the overlay's API and
// the retrieval controller's parser do.
//
// ParseLenient is for a model's free text at run time: LLMAuditor parses with it an answer
// that fails ParseStrict (unless LLMConfig.Strict), which is every answer of a server that
// enforces VerdictSchema (the JSON alone, no think block) and many of small models (code
// fences, a remark after the object, "Temporal update"); grpo uses it only when a reward
// configuration asks for lenient verdicts. It takes the last JSON object after the think
// block (or anywhere), in code fences or amid text, matches field names and enum values
// loosely with common synonyms, defaults what is missing and repairs what is
// inconsistent. Both are fuzzed; whatever ParseStrict accepts, ParseLenient accepts with
// the same verdict. Render writes an answer in the format.
//
// # Auditors
//
// An Auditor turns a Pair into a Result: the verdict, the think steps, the raw answer, its
// source ("rule" or the model's name), latency, tokens, and why the strict parse failed or
// why a fallback answered. RuleAuditor decides from the texts — slot and value extraction
// (places, employers, job titles, names, numbers with units), cues of change ("moved",
// "now", "used to", "no longer"), negation, narrower scope ("only", "except", "rarely")
// and implications (a ribeye for a vegetarian, a flat in another city) — and from Sentry's
// scores only when it cannot tell the old record's slot. It is the embedded default when no
// endpoint is configured and the baseline every LLM judge is compared with. LLMAuditor
// asks a model through an llm.Client and falls back to the rule auditor when the endpoint
// is unreachable, errs on the server side, the prompt is too long for the context, or the
// answer cannot be parsed, recording why in Result.Fallback.
//
// # Evaluation and training data
//
// EvalSet builds a held-out audit set with gold labels (status, type, action): 151 items
// by default, like the paper's, drawn from the data package's narrative and casual
// phrasing families and from this package's indirect families of implicit violations
// ("I'm vegetarian" vs "grilled a rare ribeye", "I don't drink alcohol" vs "opened a
// bottle of wine with dinner", "I live in Paris" vs "my commute from my Berlin flat"),
// with consistent look-alikes and unrelated pairs. Evaluate runs several auditors over a
// set and reports accuracy, precision, recall and F1 on conflict, type, action and
// implicit-violation accuracy, accuracy by conflict type, the strict format-valid rate,
// latency percentiles and tokens, as a table (Report.WriteTable) or JSON.
//
// SFTItems builds a training set the same way from another seed, the direct, reported and
// recall families and the data package's own implicit families, leaving out every input of
// the evaluation set; WriteSFT writes it as chat JSONL for SFT trainers, each assistant
// turn a templated answer in the audit format (Target) built from the labels.
//
// All generation is seeded: the same configuration gives the same items, byte for byte.
// RuleAuditor and LLMAuditor are safe for concurrent use.
package judge
