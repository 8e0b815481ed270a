// Package bench holds the benchmarks that compare the host memory alone with the host
// plus the A-TMA overlay: an LTP-style benchmark built from LoCoMo-format conversations
// with the paper's validators and metrics, the LoCoMo QA evaluation, TEM-style state
// updates, and the component ablations. Everything that needs no LLM is measured without
// one; answer metrics need an OpenAI-compatible endpoint and read "n/a" otherwise. A
// hand-written corpus of state changes (RunCases) is the yardstick nobody tuned to.
// `atma bench ltp|locomo|tem|cases` (internal/cli) runs them; docs/benchmarks.md has the
// commands and this machine's numbers.
//
// # LoCoMo data
//
// LoadLoCoMo reads the LoCoMo JSON format: samples with two speakers' dated sessions and
// QA items with gold evidence turns ("D3:12"). Sessions are put in time order; sessions
// without turns are left out. What a benchmark can work around is reported as a Problem
// and skipped — a date that does not parse, a malformed evidence reference ("D", "D8:6;
// D9:17") or one that names no turn — never fatal. A turn becomes the memory
// "Speaker: text" (Env.NoSpeaker drops the speaker), with a shared image's caption.
//
// # LTP-style benchmark (seed 000)
//
// BuildLTP binds profile i to conversation i and gives it 40 mutable slot instances
// (units) dealt over the seven categories of package data — job, location, relationship,
// pets, hobbies, likes/dislikes, numerical — each with its category's update type:
// temporal update (job, location: "My sister left Mercy General and now works as a
// pharmacist at …"), explicit negation (relationship, pets: "My uncle rehomed Clover the
// hamster and adopted a parrot …"), scope mismatch (hobbies, likes: "My aunt only plays
// chess when friends visit now.") and value discrepancy (numbers: "My commute to work
// takes 55 minutes now."). Units are about the user and the people they talk about (a
// sister, a roommate, …), one person per unit and category, with values from the
// package's own lists. Each unit's cue1 states the old value and cue2 the current one,
// both as the user's turns; the two probes ask for the old value (fact recall, "What pet
// did Ada's uncle have before?") and the current one (conflict-aware, "What pet does
// Ada's uncle have now?"): 10 × 40 × 2 = 800 probes.
//
// The replay is the conversation's turns in time order with each cue1 inserted at a
// random point between the 0.12 and 0.42 quantiles of the time line and each cue2
// between 0.58 and 0.88 (so always after its cue1), a moment after the turn it follows;
// the original tail after the last cue is kept. LTP.Validate runs the paper's
// validators: profile count, unique ids, coverage per profile, two probes per unit, gold
// consistency, cue1 before cue2 (and inside the windows), target state labels and
// leakage between the two views (cue1 never states the current value, no question
// states a value). BuildLTP refuses a benchmark that fails them.
//
// # Systems and metrics
//
// RunLTP replays each profile (one user each) into two systems on the same replay: the
// host alone (its hybrid dense + BM25 search, top-k hits as an unmarked packet, no
// statuses) and the overlay on the same kind of host (the commit path with the Sentry
// gate and the Judge, state-aware retrieval, labelled packets). Every text is embedded
// once and shared by all systems. Metrics, one case per unit or probe:
//
//   - bank coexist: both states' memories are stored;
//   - bank role: the bank says which state is which through statuses or links — cue1
//     superseded by cue2 (or in one slot's version group) with cue2 active, or a scoped
//     exception between them with cue2 active. Timestamp order alone is not credited,
//     so the host alone scores 0;
//   - evidence support: the packet holds the requested state's memory (or the unit's
//     transition record naming the gold value);
//   - requested state first: of the unit's two state memories, the requested one comes
//     first in the packet;
//   - stale leakage (conflict-aware probes): the old state's memory is in the packet
//     labelled current, or ranked above the current one (or without it);
//   - future-state intrusion (fact-recall probes): the current state's memory is ranked
//     above the old one (or without it);
//   - with an LLM endpoint, QA accuracy (the answer holds the gold value's words), its
//     conflict and fact splits, and a judge score (an LLM grader's CORRECT/WRONG).
//
// Memories are identified by the benchmark's event ids, never by their text, since a
// current-state cue often names the old value too. The report also sorts the
// overlay's supersede and transition commits into intended ones (a unit's cue1 → cue2)
// and collateral ones, breaks the metrics down by category, and counts memories the
// overlay refused (a commit that would break an invariant; the replay goes on without
// them). WriteLTPTables prints the paper's Table 2 layout and the packet metrics,
// PlotLTP a bar chart, and each probe's packet goes to a JSONL trace.
//
// Ablations (ParseAblations) run the same replay with the Sentry gate off (every
// candidate pair audited), the Judge off (verdicts not committed), QA labels off, and the
// retrieve controller off, shadow or online (these two need an endpoint and are skipped
// without one); variants that differ only at query time share one replay.
// WriteAblationTable prints the paper's Table 5 layout with the share of candidate pairs
// routed to the Judge and the ingest and query times.
//
// # LoCoMo
//
// RunLoCoMo ingests each conversation into both systems and asks its QA: LLM-free, the
// packet's evidence hit rate and recall against the gold evidence turns per category;
// with an endpoint, F1 (TokenF1, MultiAnswerF1 for multi-hop) and BLEU-1 per category
// with the official normalisation (NormalizeAnswer, NLTK's Porter stemmer, category 3
// gold trimmed at ';', category 5 asked as a choice with "Not mentioned in the
// conversation" and scored 1 when the answer says so).
//
// # TEM-style state updates (seed 001)
//
// GenerateTEM writes personas whose residence, occupation and drink preference change
// several times across sessions among small talk; each attribute has a current-state
// question, one for the state immediately before the latest change, and two for earlier
// states, each answered by a key entity. RunTEM scores the key-entity hit rate of the
// packets — anywhere, in the first row, and in the row the packet presents as the
// answer (the first row labelled with the requested state in a labelled packet) — for
// the overlay, the same packets unmarked, and an overwrite memory that keeps only the
// latest version of each attribute; and of the answers with an endpoint.
//
// # The hand-written state-change corpus
//
// The generated benchmarks above were scored by rules written while reading their own
// templates. The corpus in testdata/cases (embedded; DefaultCorpus) was written by hand,
// sentence by sentence, and no template or generator produced any of it: scenarios in
// eight domains of a user's memories as people write them in chat — pronouns, typos,
// indirect phrasing, reported speech, several subjects, small talk and one-off events,
// restatements, multi-valued facts, scoped exceptions, reversals, corrections and
// out-of-order reports — each annotated with the facts it states (slot
// "<subject>/<attribute>", value, polarity, scope, event time) and its relation to the
// earlier memories of its slots (status, conflict type, action), and probes (current,
// historical, change, neutral) with gold and stale values and the memories that state
// them. testdata/cases/README.md is the format; case.schema.json the JSON Schema of a
// line. ReadCorpus reports every problem at once as file:line: field: message
// (*data.LoadError), including a gold value that no memory of its scenario holds, and
// TestDefaultCorpus runs the validator in `make test`.
//
// Scenarios are split dev / test by hand, about half each and both in every domain. Tune
// on dev; score test once, when an issue is finished, and say so in the note.
//
// RunCases replays each scenario (one user) into the host alone and into the host with
// the overlay and asks its probes after the last memory:
//
//   - bank accuracy (the overlay only): current — some gold memory is active and no
//     stale memory is; historical — every gold memory is superseded; change — the last
//     gold memory is active and the earlier ones superseded; neutral — no gold memory is
//     superseded or a transition (a memory that states no state is never replaced);
//   - requested state first: the row the packet presents for the requested state holds
//     a gold value — the first row holding a gold or stale value among the rows labelled
//     current, historical, or transition / transition linked for a change probe (among
//     all rows of an unmarked packet, or for a neutral probe);
//   - gold in packet: some row holds a gold value (a change probe: every one);
//   - stale leakage: a row holding only stale values ranks above the first gold row (or
//     there is none), or, for a current probe, a row labelled current holds only stale
//     values.
//
// Beside the probe metrics, memory status is the share of state memories whose final
// status is the one the annotations imply (wantStatuses: superseded when each slot of
// the memory was replaced by a later supersede or transition — of it or of a
// restatement kept beside it — else active); the trace has one line per memory of the
// overlay's replay (CaseMemoryTrace: annotated facts, extracted facts, slot, status,
// links), which is where a bank failure is read. RunLoCoMo's trace likewise has one
// line per supersede or transition commit (LoCoMoCommit), with both turns and their
// facts: LoCoMo annotates no state changes, so these are the commits to read. RunLTP's
// has one line per unit and overlay replay (LTPUnitTrace: both cues' facts, slots and
// statuses, and whether the bank's role was credited).
//
// Values are matched by their words (holdsKey). Corpus.Pairs derives the Sentry and
// Judge pairs from the annotations — each relation, and for each state memory its
// latest earlier memory of another slot, of the same attribute of another subject, and
// that states nothing — and RunCases scores the gate (same-slot AUC of a,
// conflict-vs-consistent AUC of the gap, recall and routing at the checkpoint's
// thresholds) and the Judge (verdict, type and action accuracy) on them.
//
// EvalFacts (`atma bench facts`) scores a fact extractor (package facts) against the
// corpus's annotations: whether a memory states a fact (precision, recall, F1), its
// subjects, values, polarity, scope and event time, and the slot grouping of a
// scenario's state memories (pairs that share a slot by the extractor against pairs that
// share one by the annotation; attribute names are open, so groupings are compared, not
// names). With Env.Facts the overlay's version groups follow facts, and RunCases shows
// the Judge each pair's facts as the overlay does; the facts-off ablation runs without,
// and fact-min-off lets facts of any confidence make version groups.
//
// # Determinism and concurrency
//
// Builders and generators are seeded (math/rand/v2 PCG streams per profile) and give the
// same benchmark for the same configuration. Runs are deterministic up to the overlay's
// record ids, which carry random bits: where the host's fusion ties two hits, their
// order can change between runs, and with it a few commits (about 1% of them on LTP).
// Each run works sequentially and wraps Env.Embedder in a cache of its own.
package bench
