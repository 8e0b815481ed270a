// Package grpotest holds the fixtures the tests of package grpo and its sub-packages share:
// three audit items written out (so that the tests do not depend on judge/eval's
// generator) and completions of the kind a policy writes for them, right, wrong and
// malformed.
package grpotest

import (
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

// Fixture items.
var (
	ItemJob = eval.Item{
		ID: "t-job",
		Pair: judge.Pair{
			Old: judge.Record{Text: "I'm a physiotherapist; I've been at Harbor Health Clinic for 3 years."},
			New: judge.Record{Text: "Cleared out my desk at Harbor Health Clinic a few weeks ago, and on Monday I start as a data analyst at Kestrel Software."},
		},
		Gold:    eval.Gold{Status: judge.StatusConflict, Type: judge.TypeTemporalUpdate, Action: judge.ActionTransition},
		OldSlot: "job", NewSlot: "job",
		OldValue: "physiotherapist at Harbor Health Clinic", NewValue: "data analyst at Kestrel Software",
	}
	ItemDiet = eval.Item{
		ID: "t-diet",
		Pair: judge.Pair{
			Old: judge.Record{Text: "I've been vegetarian for ten years."},
			New: judge.Record{Text: "Grilled a rare ribeye for dinner last night, best meal all week."},
		},
		Gold:     eval.Gold{Status: judge.StatusConflict, Type: judge.TypeImplicitViolation, Action: judge.ActionKeep},
		Implicit: true, OldSlot: "diet", NewSlot: "diet", OldValue: "vegetarian",
	}
	ItemHobby = eval.Item{
		ID: "t-hobby",
		Pair: judge.Pair{
			Old: judge.Record{Text: "Bird watching whenever I have a free evening keeps me sane."},
			New: judge.Record{Text: "can't wait to go bird watching this weekend!!"},
		},
		Gold:    eval.Gold{Status: judge.StatusConsistent, Type: judge.TypeNone, Action: judge.ActionKeep},
		OldSlot: "hobby.1", NewSlot: "hobby.1", OldValue: "bird watching", NewValue: "bird watching",
	}
)

// Completions of the kind a policy writes.
const (
	// JobGood follows the format exactly and gets everything right.
	JobGood = `<think>
Slot: Both texts are about the user's job.
Comparison: Old value: physiotherapist at Harbor Health Clinic. New value: data analyst at Kestrel Software. The user cleared out their desk, so the clinic job has ended.
Conflict type: temporal_update: the job changed over time and the new input says so.
Action: transition: the physiotherapy job becomes a past state and the analyst job is current.
</think>
{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"job: physiotherapist at Harbor Health Clinic -> data analyst at Kestrel Software","confidence":0.93}`

	// JobSupersede gets status and type right and destroys the history a transition keeps.
	JobSupersede = `<think>
Slot: Both texts are about the user's job.
Comparison: Old value: physiotherapist. New value: data analyst at Kestrel Software.
Conflict type: temporal_update: they changed jobs.
Action: supersede: the new job replaces the old one.
</think>
{"status":"conflict","conflict_type":"temporal_update","action":"supersede","clarification_needed":false,"clarification_question":"","links":[{"type":"supersedes","from":"new","to":"old"}],"transition_summary":"job: physiotherapist -> data analyst","confidence":0.8}`

	// JobNoComparison skips a step label.
	JobNoComparison = `<think>
Slot: Both texts are about the user's job.
The old job was at Harbor Health Clinic and the new one is at Kestrel Software.
Conflict type: temporal_update: the job changed.
Action: transition: the old job becomes history.
</think>
{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"job: physiotherapist at Harbor Health Clinic -> data analyst at Kestrel Software","confidence":0.9}`

	// JobFenced wraps the verdict in a code fence, which only the lenient parser reads.
	JobFenced = "<think>\nSlot: Both texts are about the user's job.\nComparison: Old value: physiotherapist at Harbor Health Clinic. New value: data analyst at Kestrel Software.\nConflict type: temporal_update: the job changed.\nAction: transition: the clinic job becomes a past state.\n</think>\n```json\n" +
		`{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"job: physiotherapist at Harbor Health Clinic -> data analyst at Kestrel Software","confidence":0.9}` +
		"\n```"

	// JobTruncated was cut at the token limit inside the think block.
	JobTruncated = `<think>
Slot: Both texts are about the user's job.
Comparison: Old value: physiotherapist at Harbor Health Clinic. New value: data analyst at Kestrel Software. The user says they cleared out their desk a few weeks ago and that on Monday they start`

	// JobWrong calls the pair consistent.
	JobWrong = `<think>
Slot: Both texts mention Harbor Health Clinic.
Comparison: The user still talks about the clinic, so nothing changed.
Conflict type: none: the texts agree.
Action: keep: the memory stays as it is.
</think>
{"status":"consistent","conflict_type":"none","action":"keep","clarification_needed":false,"clarification_question":"","links":[],"transition_summary":"","confidence":0.6}`

	// DietGood finds the implicit violation and asks.
	DietGood = `<think>
Slot: Both texts are about the user's diet.
Comparison: Old value: vegetarian. The new input never names the diet, but a rare ribeye is meat.
Conflict type: implicit_violation: eating steak implies the user no longer keeps a vegetarian diet.
Action: keep: the evidence is indirect, so keep the record and ask the user.
</think>
{"status":"conflict","conflict_type":"implicit_violation","action":"keep","clarification_needed":true,"clarification_question":"You told me you are vegetarian. Is that still true?","links":[],"transition_summary":"diet: vegetarian -> eats meat","confidence":0.7}`

	// DietMissed sees no conflict.
	DietMissed = `<think>
Slot: The old record is about the user's diet; the new input is about dinner.
Comparison: There is nothing to compare.
Conflict type: none: different slots.
Action: keep: both records stay as they are.
</think>
{"status":"unrelated","conflict_type":"none","action":"keep","clarification_needed":false,"clarification_question":"","links":[],"transition_summary":"","confidence":0.8}`

	// HobbyTransition invents a change on a consistent pair, with a summary.
	HobbyTransition = `<think>
Slot: Both texts are about the user's hobby.
Comparison: Old value: bird watching in the evening. New value: bird watching at the weekend.
Conflict type: temporal_update: the time changed.
Action: transition: the evening habit becomes a past state.
</think>
{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"hobby: evenings -> weekends","confidence":0.55}`

	// HobbyChatty is right, followed by a remark after the verdict.
	HobbyChatty = `<think>
Slot: Both texts are about the user's hobby.
Comparison: Old value: bird watching. New value: bird watching. They agree.
Conflict type: none: the new input agrees with the old record.
Action: keep: nothing in the memory needs to change.
</think>
{"status":"consistent","conflict_type":"none","action":"keep","clarification_needed":false,"clarification_question":"","links":[],"transition_summary":"","confidence":0.9}
I hope this helps! Let me know if you want me to audit another pair.`
)
