// Package retrieval is the query side of A-TMA: it profiles a question for the state it
// asks about, builds the evidence pool from the host's hits and the bank's typed links,
// ranks it by state fit, optionally lets a bounded LLM controller choose from it, and
// turns the result into labelled evidence and a prompt for the answer model. A failure
// classifier says afterwards whether a wrong answer was the bank's, retrieval's or the
// answer model's fault. Everything here is model-free, deterministic and free of I/O;
// the overlay package wires it to the store, the host and the LLM client.
//
// # Records
//
// Retrieval works on Candidate, a small view of a bank record: id, content, slot,
// status (active, superseded, transition, unknown), event time and typed links
// (supersedes, superseded_by, evolves_from, evolves_to, scoped_exception,
// coexists_with), plus how it entered the pool. The bank is read through Graph (Get
// and Neighbours); MapGraph is an in-memory Graph.
//
// # Profiler
//
// ProfileQuery reads a question by rules and returns a Profile: the mode (current,
// historical, transition, neutral), the counts of historical, current and change cues,
// the cues themselves and whether the mode is confident. Change wins when its cues are
// at least as many as each of the others, or when both historical and current cues
// appear; otherwise the larger count, else neutral. Guards handle negation ("I don't
// live in Berlin anymore" is a current statement, "not before" is no history), scope
// ("only on weekends", "at work"), people ("my former colleague"), times ("before
// noon", "from 9 to 5"), context clauses ("my former colleague still lives in Paris
// — where do I live?" counts only the question) and anchors (the change in "before I
// switched to cortado" is the later state the question is measured from, not what it
// asks). See ProfileQuery for the rules.
//
//	p := retrieval.ProfileQuery("where did I live before?")
//	// p.Mode == ModeHistorical, p.Confident, p.Hints == ["historical:did i live" "historical:before"]
//
// # Evidence pool
//
// BuildPool takes the host's hits (seeds) in their order, adds relation hops by the
// profile's View (newer states of stale seeds unless the query is historical, older
// states unless it is current, linked transition records always) and neighbour hops
// (scoped exceptions, coexisting records, semantic neighbours), drops repeats, and
// pre-ranks them in the paper's stable order (OrderAnchored): the seeds keep the host's
// order, and state only adds records next to the seed they come from — a superseded
// seed's live successor directly before it (unless the query asks for the past or the
// change), a newer scoped exception of an active seed directly before it for a current
// query ("only on rainy Sundays now" before "four times a week"), an active seed's older
// states directly before it for a historical or a change query (old, change, new), a
// seed's transition record directly before it for a change query, and, for a
// historical query that names a later state ("what did I drink before I switched to
// cortado?") or asks for the first ("my first job"), the state of the seed's slot it
// asks for before all of these (the profile's Anchor and Earliest; TEM's key entity in
// the first row, before latest 0.833 → 0.983, historical 0.492 → 0.958); the other hops stand
// directly after it only for a change query or a profile that leans to no state
// (neutral), else after all seeds — and the semantic hops come last. A profile that
// leans to one state on weak cues ("what am I driving?") still follows both directions,
// so a stale seed's live successor still stands before it, but the old states of its
// active seeds wait until the host's hits are in (View.adjacent). (Placing the
// after-hops next to their seed for every query, as before, lost LTP evidence support
// 0.950 → 0.930 against the host's 0.939: a current question's packet filled with the
// transition records and old states of seeds it did not ask about.) Nothing unrelated is re-sorted by state, so the
// host's evidence is never lost: every seed of the host's top K is in the packet, or
// the packet is full of better seeds and the states placed next to them. The packet
// takes the first K (5 by default). OrderTierFirst, the order before it (state fit first
// by StateTier, then seed rank, with room made for both states when the profile is
// unsure or the query is about a change), stays for the ablation table.
//
// # Retrieve controller
//
// An LLM may choose the evidence instead, within bounds: ControllerMessages shows it at
// most 10 pre-ranked candidates (content cut to 220 runes, in a JSON block the prompt
// declares to be data), ControllerSchema constrains its output, ParseController checks
// it strictly, and Apply uses it by mode: off, shadow (checked and logged, never
// applied) or online (applied only when every check passes; prose, a repeated id, an
// id outside the candidates shown or more than 3 selections keep the pre-rank, and the
// status says why). The caller sends it with MaxTokens ControllerMaxTokens (320) and
// Temperature ControllerTemperature (0). Pool.Select then gives the packet's rows.
//
// # Labelled evidence
//
// BuildPacket labels each row by a priority rule (PacketOptions.Labels; LabelsState by
// default): transition memory, historical memory, current memory (every active row, a
// successor row, a row that supersedes another), transition linked memory, retrieved
// memory, in that order, with its time. This is the paper's rule with the state labels
// before the link to a change, on purpose, so that both sides of a recorded change say
// which one holds now — except for a question about a change, which asks for both
// sides and gets the paper's order; LabelsPaper is the paper's exact order and LabelsSlot the rule
// before (current only with a slot), both for the ablation table. Packet.Text is the
// rendering an agent can paste and Packet.Messages the chat for the answer model, whose
// system prompt makes the answer follow the requested state: current queries answer from
// current memory (the later date holding where current memories disagree, as they do
// when the bank missed a change), historical ones from historical memory, transition
// queries describe the change old → new with its dates. A packet for a past state or a
// change whose first row is part of no recorded change, or for the present none of
// whose rows is, knows no state of what the question asks (Packet.NoState): it goes
// unlabelled, as the host's own packet, so that labels calling the host's evidence
// "current" never steer the answer away from an earlier state found among the rows,
// and a historical one is told that no change was recorded and answers from the dated
// records (PacketOptions.KeepLabels labels it all the same, the "keep-labels"
// ablation). PacketOptions.Unmarked drops the
// labels of every packet (the "unmarked" ablation).
//
// # Packet order
//
// The pool's pre-rank is the paper's, state placed beside the host's hits. The packet
// then orders its rows for the state asked, unless a controller chose the order
// (PacketOptions.KeepOrder, also the "keep-order" ablation):
//   - for the present, a current row moves directly above the first older current row
//     it shares a content word with (two current records of one thing with no change
//     recorded between them: the bank missed it, and the later one holds); nothing else
//     moves, and no row is re-sorted by its state;
//   - for a past state, when the packet knows no state, by date: when the query names a
//     month or a season ("in april", "over the summer"; Profile.Period), the rows
//     before it ended latest first; else oldest first, or, when the query names a later
//     state ("before the rando took it") that a row holds, the rows before that one
//     nearest first. The host ranks the state that holds now first
//     as often as an earlier one, and without a recorded change the dates are the
//     evidence left.
//
// Both are measured against the rows as given (`atma bench cases --ablation
// keep-order`); the word test is crude, and a later record of something else that
// shares a word can move above the one asked for. Putting current rows first and
// historical ones last as well lowered stale leakage a little more, but re-sorted
// unrelated records by state, which the pre-rank must not (docs/benchmarks.md,
// session 24).
//
// # Failure classes
//
// ClassifyFailure compares a gold answer with the bank, the packet and the answer:
// bank (never stored in the requested state), retrieval (stored, but not in the packet
// or not first for its state) or qa (in the packet, rightly labelled, and missed).
//
// # Use
//
//	p := retrieval.ProfileQuery(query)
//	pool, err := retrieval.BuildPool(ctx, graph, p, seeds, retrieval.Config{})
//	rows := pool.Top
//	if useController {
//		t := retrieval.ControllerTemperature
//		resp, err := client.Chat(ctx, llm.Request{Messages: retrieval.ControllerMessages(query, p, pool.Ranked),
//			MaxTokens: retrieval.ControllerMaxTokens, Temperature: &t, JSONSchema: retrieval.ControllerSchema()})
//		// on success, with reply the text of resp's first choice:
//		final, _, st := retrieval.ApplyText(pool.Ranked, reply, retrieval.ControllerOnline)
//		rows = pool.Select(final, st)
//	}
//	pk := retrieval.BuildPacket(query, p, rows, retrieval.PacketOptions{})
//	resp, err := client.Chat(ctx, llm.Request{Messages: pk.Messages()})
//
// Profiles, pools, controller statuses, packets and diagnoses are plain data with JSON
// tags, for the trace. Every function is safe for concurrent use.
package retrieval
