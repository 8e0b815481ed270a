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
//  4. Commit, in one store transaction: supersede (old → superseded with valid_until,
//     new → active, reciprocal links, a shared single-valued slot), transition (the same
//     plus a transition record that evolves from the old state to the new one), coexist,
//     scoped exception, or keep. An implicit violation the Judge wants clarified leaves
//     the old record current and stores the new one as unknown, with the question.
//     History is never deleted; the store refuses a commit that breaks an invariant, and
//     then nothing of the ingest is written.
//
// Every ingest leaves an IngestTrace: the candidates with their seed ranks, gate scores,
// verdicts (and which auditor gave them, and why a fallback happened) and the commit.
package overlay
