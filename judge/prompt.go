package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	fx "github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/llm"
)

// Record is one side of a pair: a stored memory record or a new input.
type Record struct {
	// ID identifies the record for the caller; it is not shown to the model.
	ID string `json:"id,omitempty"`
	// Text is what the user said.
	Text string `json:"text"`
	// Slot is the slot key when known ("job", "pet.1"); shown to the model when set.
	Slot string `json:"slot,omitempty"`
	// Time is when it was said; shown to the model when set.
	Time time.Time `json:"time,omitzero"`
	// Facts are what an extractor read from the text (package facts); the rule auditor
	// judges a pair whose records share a fact slot by the facts. Not shown to the model.
	Facts []fx.Fact `json:"facts,omitempty"`
}

// Scores are the Sentry gate's scores of a pair (gate.Decision's A, B and Gap).
type Scores struct {
	// A is the topic similarity: are the two about the same slot?
	A float64 `json:"a"`
	// B is the logic similarity: do they agree?
	B float64 `json:"b"`
	// Gap is A − B.
	Gap float64 `json:"gap"`
}

// Pair is what the Judge audits: an old memory record, a new input and, when the pair came
// through the gate, Sentry's scores.
type Pair struct {
	Old Record `json:"old"`
	New Record `json:"new"`
	// Scores is nil when the pair was not scored (evaluation sets built without a gate).
	Scores *Scores `json:"scores,omitempty"`
}

// The four step labels of the think block, in order.
const (
	LabelSlot         = "Slot:"
	LabelComparison   = "Comparison:"
	LabelConflictType = "Conflict type:"
	LabelAction       = "Action:"
)

// Labels lists the four step labels in order.
func Labels() []string {
	return []string{LabelSlot, LabelComparison, LabelConflictType, LabelAction}
}

// Steps are the texts of the four steps of a think block, without their labels.
type Steps struct {
	Slot         string `json:"slot"`
	Comparison   string `json:"comparison"`
	ConflictType string `json:"conflict_type"`
	Action       string `json:"action"`
}

func (s *Steps) ptrs() []*string {
	return []*string{&s.Slot, &s.Comparison, &s.ConflictType, &s.Action}
}

// SystemPrompt is the audit protocol as the model reads it. It is fixed, so that servers
// that cache prompt prefixes reuse it across calls.
const SystemPrompt = `You audit a long-term memory for contradictions. You get an old memory record (something the user said earlier), a new input from the user, and, when available, the scores of the Sentry gate that sent you the pair: a is the topic similarity (are they about the same thing?), b is the logic similarity (do they agree?), and gap = a - b. A high a with a low b or a large gap suggests a conflict, but the scores are hints and can be wrong: decide from the texts.

A slot is one attribute of the user: their job, their home, their partner, one pet, one hobby, one like or dislike, one number such as their age or height.

Decide:
- status: "conflict" if both texts are about the same slot and cannot both be true now; "consistent" if they are about the same slot and agree; "unrelated" if they are about different slots.
- conflict_type, for a conflict:
  - "temporal_update": the value changed over time and the new input says so (moved to another city, changed jobs).
  - "explicit_negation": the new input denies the old fact (broke up, has no dog).
  - "value_discrepancy": the new input states a different number or value for the same thing.
  - "scope_mismatch": the new input narrows or widens the old fact's scope ("only on holiday", "rarely", "except on weekends").
  - "implicit_violation": the new input never states the slot but implies the old fact no longer holds (a steak for a vegetarian, a commute from a flat in another city).
  - "none" for consistent and unrelated pairs.
- action, how to fuse the two records:
  - "transition": the old record was true and is now a past state, the new one is current (usual for temporal_update). Needs a transition_summary and an evolves_from or evolves_to link.
  - "supersede": the new record replaces the old one (usual for explicit_negation and value_discrepancy). Needs a supersedes or superseded_by link.
  - "scoped_exception": the new record narrows the old one, which holds outside that scope (usual for scope_mismatch). Needs a scoped_exception link.
  - "keep": leave the memory as it is. Use it for consistent and unrelated pairs, and for a conflict you cannot settle from the texts, together with a clarification question (usual for implicit_violation).
  - "coexist": both records stay current side by side (a consistent input that adds a compatible detail); it may carry a coexists_with link.
- clarification_needed and clarification_question: whether the agent should ask the user, and the question to ask ("" when none is needed).
- links: typed links between the two records, each {"type": ..., "from": ..., "to": ...} where from and to are "old" or "new": supersedes (new to old), superseded_by (old to new), evolves_from (new to old), evolves_to (old to new), scoped_exception (new to old), coexists_with (either way). Use [] for keep.
- transition_summary: what changed, as "slot: old value -> new value"; "" when nothing changed.
- confidence: how sure you are of the verdict, from 0 to 1.

Answer in exactly this format. First a think block with four steps, each starting on its own line with its label, in this order:
<think>
Slot: which slot each text is about, and whether it is the same one.
Comparison: the old value against the new value.
Conflict type: the conflict type and why.
Action: the fusion action and why.
</think>
Then the verdict as one JSON object with all eight fields, and nothing after it.

Example answer:
<think>
Slot: Both texts are about the user's job.
Comparison: Old value: nurse at Riverside Hospital. New value: pharmacist at Crescent Pharmacy. They cannot both be the current job.
Conflict type: temporal_update: the user left the hospital last month and works at the pharmacy now.
Action: transition: the nursing job becomes a past state and the pharmacy job is current.
</think>
{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"job: nurse at Riverside Hospital -> pharmacist at Crescent Pharmacy","confidence":0.95}`

// UserPrompt renders the pair as the user turn of an audit.
func UserPrompt(p Pair) string {
	var b strings.Builder
	b.WriteString("Old memory record")
	writeMeta(&b, p.Old)
	b.WriteString(":\n")
	b.WriteString(Quote(p.Old.Text))
	b.WriteString("\n\nNew input")
	writeMeta(&b, p.New)
	b.WriteString(":\n")
	b.WriteString(Quote(p.New.Text))
	b.WriteString("\n\n")
	if s := p.Scores; s != nil {
		fmt.Fprintf(&b, "Sentry scores: a = %.3f (topic similarity), b = %.3f (logic similarity), gap = %.3f.\n", s.A, s.B, s.Gap)
	} else {
		b.WriteString("Sentry scores: not available.\n")
	}
	b.WriteString("\nAudit the pair: the think block with the steps Slot, Comparison, Conflict type and Action, then the verdict JSON.")
	return b.String()
}

func writeMeta(b *strings.Builder, r Record) {
	var meta []string
	if r.Slot != "" {
		meta = append(meta, "slot "+r.Slot)
	}
	if !r.Time.IsZero() {
		meta = append(meta, "said "+r.Time.UTC().Format(time.DateOnly))
	}
	if len(meta) > 0 {
		b.WriteString(" (" + strings.Join(meta, ", ") + ")")
	}
}

// Quote writes s as a JSON string, so that quotes and line breaks in user text cannot be
// mistaken for the prompt's own structure. The prompt, the rule auditor's and the SFT
// targets' clarification questions quote user text with it.
func Quote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}

// Messages is the chat of one audit: the system prompt and the user prompt.
func Messages(p Pair) []llm.Message {
	return []llm.Message{{Role: "system", Content: SystemPrompt}, {Role: "user", Content: UserPrompt(p)}}
}

// VerdictSchema is the JSON Schema of the verdict object, for llm.Request.JSONSchema.
// A server that enforces it makes the model write the JSON object alone, without the think
// block, so answers to schema-constrained requests only pass ParseLenient. The enums are
// built from this package's constants; the consistency rules of Verdict.Validate are not
// expressible in the schema and are checked after parsing.
func VerdictSchema() *llm.Schema {
	return &llm.Schema{Name: "judge_verdict", Schema: verdictSchemaJSON(), Strict: true}
}

// maxSchemaText bounds the free-text fields of the verdict schema: a server that
// constrains decoding then always closes the object within the answer's token budget
// (the question and the summary are one sentence each).
const maxSchemaText = 200

func verdictSchemaJSON() json.RawMessage {
	enum := func(vs []string) llm.Object { return llm.Object{{"type", "string"}, {"enum", vs}} }
	typ := func(t string) llm.Object { return llm.Object{{"type", t}} }
	refs := []string{string(RefOld), string(RefNew)}
	// Keys keep their order: servers that constrain decoding generate properties in schema
	// order, and the status should come first.
	schema := llm.Object{
		{"type", "object"},
		{"description", "The verdict of a memory audit of an old record and a new input."},
		{"properties", llm.Object{
			{"status", enum(toStrings(statuses))},
			{"conflict_type", enum(toStrings(conflictTypes))},
			{"action", enum(toStrings(actions))},
			{"clarification_needed", typ("boolean")},
			{"clarification_question", llm.Object{{"type", "string"}, {"maxLength", maxSchemaText}}},
			{"links", llm.Object{
				{"type", "array"},
				{"maxItems", 4},
				{"items", llm.Object{
					{"type", "object"},
					{"properties", llm.Object{{"type", enum(toStrings(linkTypes))}, {"from", enum(refs)}, {"to", enum(refs)}}},
					{"required", []string{"type", "from", "to"}},
					{"additionalProperties", false},
				}},
			}},
			{"transition_summary", llm.Object{{"type", "string"}, {"maxLength", maxSchemaText}}},
			{"confidence", llm.Object{{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
		}},
		{"required", verdictFields()},
		{"additionalProperties", false},
	}
	return schema.Indent()
}

func toStrings[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// verdictFields lists the verdict's JSON fields in format order.
func verdictFields() []string {
	return []string{"status", "conflict_type", "action", "clarification_needed", "clarification_question", "links", "transition_summary", "confidence"}
}

// Render writes an answer in the audit format: the think block with the four steps, then
// the verdict as one line of JSON. Line breaks inside a step become spaces and think tags
// inside one are defused, so that Render of a valid verdict always passes ParseStrict with
// the same verdict; an empty step is written as "-".
func Render(s Steps, v Verdict) string {
	var b strings.Builder
	b.WriteString("<think>\n")
	for i, label := range Labels() {
		b.WriteString(label)
		b.WriteByte(' ')
		b.WriteString(stepText(*s.ptrs()[i]))
		b.WriteByte('\n')
	}
	b.WriteString("</think>\n")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a NaN or infinite confidence fails to encode; write the rest.
		v.Confidence = 0
		buf.Reset()
		_ = enc.Encode(v)
	}
	b.WriteString(strings.TrimSuffix(buf.String(), "\n"))
	return b.String()
}

func stepText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("<think>", "(think)", "</think>", "(/think)").Replace(s)
	if s == "" {
		return "-"
	}
	return s
}
