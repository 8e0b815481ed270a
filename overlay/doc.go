// Package overlay is the A-TMA state overlay on a host memory: the bank level (records with
// statuses and typed links, checked by Sentry and the Judge as they arrive) and the
// retrieval and QA levels built on it.
//
// # The commit path
//
// Add ingests new memories for one user, one after another (writes of a user are
// serialised; different users proceed in parallel). For each memory:
//
//  1. Candidates: the host's seed hits for the new text (hybrid dense + BM25, fused by
//     reciprocal rank) plus the records linked to them — never a scan of the bank.
//     Superseded records are history and are not audited again.
//  2. Sentry: the gate scores each (candidate, new) pair from the heads' projections:
//     a = topic similarity, b = logic similarity, gap = a − b; the pair is routed when
//     a > τ_top ∧ (b < τ_log ∨ gap > τ_gap), with the checkpoint's thresholds. Without
//     heads (the "gate off" ablation) every candidate is routed.
//  3. Judge: routed pairs only. The configured auditor is the LLM judge when an endpoint
//     is configured — it falls back to the rule auditor on errors and garbage, and says
//     why — or the rule auditor.
//  4. Commit, in one store transaction. One pure planner (planCommit) turns the new
//     record, its candidates, their version groups and the verdicts into a plan — slot
//     moves, links, transition records, the slots to reconcile — and applyPlan writes
//     it; nothing else decides a supersession. The plan: supersede (old → superseded with valid_until,
//     new → active, reciprocal links, a shared single-valued slot), transition (the same
//     plus a transition record that evolves from the old state to the new one), coexist,
//     scoped exception, or keep. Links (scoped exceptions, coexistence) are applied
//     first, so the slot reconciliation of a supersession keeps what the Judge joined
//     to the new memory current. An implicit violation the Judge wants clarified leaves
//     the old record current and stores the new one as unknown, with the question.
//     History is never deleted; the store refuses a commit that breaks an invariant, and
//     then nothing of the ingest is written. The host's copies of the new memory and of
//     the transition records are written in the same transaction (see below).
//
// # The host memory in the commit
//
// How the host memory takes part in a commit is declared when the overlay is built,
// never found out from the values it is given. Config.Host is a TxHost, a participant
// of the store's transactions: its AddIn writes the ingest's host memories in the
// transaction that commits their records (store.Tx), and the apply it returns, called
// after the commit, makes them searchable. A bank's host (OpenBank, OpenPostgresBank:
// host.SQL on the store's database) is one, and so is host.InMemory; a wrapper of
// either stays one by embedding it, and a wrapper that drops AddIn is a host.Host that
// Config.Host does not take. host.SQL refuses a transaction of a store on another
// database rather than write in it. Config.SeparateHost, in place of Host, declares a
// host that lives elsewhere (another database, a Mem0 or Zep adapter) and cannot join
// the transaction: it gets the new memory before the commit, loses it again when the
// commit fails (a search hit without a record is skipped meanwhile), and gets the
// transition records after the commit. Both go through one commit, commitWithHost.
//
// # Version groups by fact
//
// With Config.Facts (package facts: the offline extractor on the backbone by default in
// the CLI, an LLM when an endpoint is configured), each memory's facts are read in the
// embedding goroutine, a chunk at a time, shown the user's recent slot keys. A memory
// that states facts joins the version group of one of them (the first whose group a
// candidate already has, else the first): "<subject>/<attribute>" for a single-valued
// attribute ("user/home", "mobile-team/project"), and "<subject>/<attribute>/<value>"
// for each value of a multi-valued one ("user/pet/miso", "theo/hobby/yoga"), whose
// values have histories of their own (facts.Fact.Group, facts.SingleValued). It takes
// the fact's event time when the text states one ("back in March"), except that a state
// that still holds is not dated before a version of its group said earlier without a
// time: "I live in Paris." and later "we moved to Lyon last month" leave Lyon current
// (saidSince; a state told as ended, "back in 2020 I lived in Nantes", keeps its date).
// Only facts at least
// as confident as Config.FactMin count (facts.Fact.Confidence; the offline extractor's
// facts read by meaning score below it when they are chat that resembles a state):
// a memory with none is stored as one that states no fact. Whom a memory's pronouns
// refer to carries from one extraction chunk to the next (facts.Input.Referent). Then:
//
//   - the slot's current members are candidates whether the host found them or not
//     (read by key, never a scan), and are audited without the gate;
//   - a memory that states no fact (small talk, an event, a question) audits nothing
//     and is never audited: it stays a plain host memory;
//   - facts of different subjects are never compared; another slot of the same
//     subject goes through the gate to an LLM Judge (which may merge the two groups),
//     while the rule auditor, a judge over facts, leaves it alone;
//   - after the Judge's links the group's time line decides (store.Reconcile): its
//     newest version is current ("gave Miso away" is the newest of Miso's), and so are
//     the versions just before it that state its value (a restatement changes
//     nothing: "still 40 minutes" leaves "sorry, I meant 40" current; the record's
//     store.MetaValue), a scoped exception holds within its scope, and a version
//     reported late stays history behind a newer one. The
//     final statuses do not depend on the order the memories arrive in
//     (TestVersionGroupsArrivalOrder);
//   - a denial of an earlier version's value ("sold the dell" after "old dell xps" and
//     then "macbook pro") ends that version only: the planner reads the denial's group
//     and links the denial coexisting with the current version, which stays current
//     (planner.pastDenial, TestDenialOfAnEarlierValue). A denial of the current value,
//     or of one no version states ("I don't drink coffee anymore" after "flat white"),
//     is left to the time line;
//   - a fact read from the form that names its attribute in other words than a
//     single-valued slot of the same subject among the candidates ("insurance-provider"
//     and "travel-insurance": one head word, facts.SharesTopic) joins that slot when the
//     user has none of its own (adoptSlots; a fact read by meaning joins one by the
//     Sentry topic projection instead);
//   - an amount under an attribute the user has no slot of joins the one candidate of
//     its subject, holding an amount in a slot that may hold one (facts.HoldsAmounts),
//     whose memory names the attribute in its own words: "putting the rent up to 1240"
//     joins "rent paid. 1150 a month" (read as a price) (namedIn, TestAmountNamedIn);
//     the price of a service the memory names ("wifi is virgin, £30 a month":
//     broadband-price, facts.PricesService) keeps its own slot;
//   - a denial that names a value an earlier candidate stated while the extractor read
//     no fact from it ("so me and Tomás broke up" after "been seeing someone called
//     Tomás"), or only facts by meaning of other slots and values ("bex left?? new
//     manager is tariq" after "team lead is bex, shes sound, brings biscuits", read as a
//     diet), gives the oldest such candidate that fact, stored with it in the commit,
//     and so ends it (namedVersions; another subject's value needs that subject named;
//     none when a candidate of the denial's group holds the value, and a candidate
//     whose facts were read by form keeps its group). The new memory then joins that
//     group, whatever else it states ("no more Japan. The flights in April are crazy
//     expensive" ends the plan, not a flight).
//
// A bank written before facts (or with them off) is regrouped by Reindex: records
// without facts get them, and those in no slot or a "slot:<id>" group join their fact's
// group, whose time line then settles statuses.
//
// The trace shows the facts, who read them and why there were none, the slot, and why
// a candidate was not compared. An extractor that fails stores the memories without
// facts and says why; nothing is lost.
//
// Every ingest leaves an IngestTrace: the candidates with their seed ranks, gate scores,
// verdicts (and which auditor gave them, and why a fallback happened) and the commit.
// Add keeps them a chunk at a time, beside the commits.
//
// # Embedding beside the commits
//
// Add embeds its memories in chunks of Config.EmbedChunk (4) and commits a chunk while
// the next one is embedded, so the backbone and the commit path (SQLite, the gate, the
// Judge) run on different cores. With Config.Facts, a chunk's facts are read once the
// chunk before it is committed: the extractor is then shown every slot committed before
// the chunk however the two are timed, and the same memories always give the same bank. The overlay brings the parallelism, across the chunks
// of an Add and across the requests of a server, so the backbone should not bring its
// own: `atma overlay` runs ONNX Runtime with one intra-op thread a run that does not
// spin between runs (onnx.SessionConfig{IntraOpThreads: 1, NoSpin: true}). With a thread
// pool per run, two runs at once, or a run beside a commit, wait on each other's
// threads.
//
// # Costs
//
// What ingests and queries cost — memories a second, the share of the backbone, the
// seeds, the Judge and the commit, the bank's size on disk, and a user whose slots
// gather thousands of versions — is measured by BenchmarkIngest and
// BenchmarkIngestConcurrent and kept, with the commands that measured it, in
// docs/benchmarks.md ("Ingest"). A commit reconciles, merges and checks whole version
// groups; at most twice Config.Candidates candidates are audited a memory, which keeps
// the Judge's share bounded, and a stale seed's slot is read for its current members
// only.
package overlay
