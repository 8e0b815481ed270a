package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/llm"
)

// SFTConfig configures SFTItems. The zero value gives the default 700-item training set.
type SFTConfig struct {
	// Seed seeds the generator (0: DefaultSFTSeed).
	Seed uint64
	// Items is the number of items (0: DefaultSFTItems).
	Items int
	// Styles are the data phrasing styles of explicit items (nil: DefaultSFTStyles).
	Styles []string
	// ImplicitShare is the share of implicit items, from the data package's implicit
	// families (0: DefaultImplicitShare; negative: none).
	ImplicitShare float64
	// UnrelatedShare is the share of unrelated pairs (0: DefaultUnrelatedShare; negative:
	// none).
	UnrelatedShare float64
	// ConflictRatio is the share of conflicting items (0: DefaultConflictRatio).
	ConflictRatio float64
	// Exclude lists items whose new inputs the set must not contain; nil means the default
	// evaluation set, Set(Config{}).
	Exclude []Item
}

// Validate reports every problem with the configuration at once.
func (c SFTConfig) Validate() error {
	return validateSpec("sft", c.Items, c.Styles, c.ImplicitShare, c.UnrelatedShare, c.ConflictRatio)
}

// SFTItems builds labelled training items like Set does, from another seed, other
// phrasing styles (direct, reported and recall by default) and the data package's implicit
// families, leaving out every new input of cfg.Exclude. Turn them into chat examples with
// WriteSFT or ChatExampleFor.
func SFTItems(cfg SFTConfig) ([]Item, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	exclude := cfg.Exclude
	if exclude == nil {
		var err error
		if exclude, err = Set(Config{}); err != nil {
			return nil, fmt.Errorf("build sft set: default eval set: %w", err)
		}
	}
	s := setSpec{
		seed: cfg.Seed, items: cfg.Items, styles: cfg.Styles, idPrefix: "sft", dataImplicit: true,
		implicit: shareDefault(cfg.ImplicitShare, DefaultImplicitShare), unrelated: shareDefault(cfg.UnrelatedShare, DefaultUnrelatedShare),
		conflict: cfg.ConflictRatio, exclude: map[string]bool{},
	}
	if s.seed == 0 {
		s.seed = DefaultSFTSeed
	}
	if s.items == 0 {
		s.items = DefaultSFTItems
	}
	if s.styles == nil {
		s.styles = DefaultSFTStyles
	}
	if s.conflict == 0 {
		s.conflict = DefaultConflictRatio
	}
	for _, it := range exclude {
		s.exclude[it.Pair.New.Text] = true
	}
	items, err := buildSet(s)
	if err != nil {
		return nil, fmt.Errorf("build sft set: %w", err)
	}
	return items, nil
}

// ChatExample is one supervised example in the OpenAI chat format that SFT trainers read:
// {"messages": [{"role": "system", ...}, {"role": "user", ...}, {"role": "assistant", ...}]}.
type ChatExample struct {
	Messages []llm.Message `json:"messages"`
}

// ChatExampleFor is the example of an item: the audit prompt and, as the assistant turn,
// the gold answer (Target) in the audit format.
func ChatExampleFor(it Item) ChatExample {
	s, v := Target(it)
	return ChatExample{Messages: append(judge.Messages(it.Pair), llm.Message{Role: "assistant", Content: judge.Render(s, v)})}
}

// WriteSFT writes one ChatExample per item as JSON lines.
func WriteSFT(w io.Writer, items []Item) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(ChatExampleFor(it)); err != nil {
			return fmt.Errorf("write sft example %s: %w", it.ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write sft examples: %w", err)
	}
	return nil
}

// Target is the gold answer of an item, written from its labels: think steps that name the
// slot, the old and new values, the conflict type and the action, and the verdict with the
// gold status, type and action, the action's default link, a transition summary for
// conflicts, a clarification question for implicit violations, and a fixed confidence by
// kind of item. Wording varies between a few templates, chosen by the item's ID, so the
// same item always gets the same target.
func Target(it Item) (judge.Steps, judge.Verdict) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(it.ID))
	variant := int(h.Sum32() % 2)
	pick := func(a, b string) string {
		if variant == 0 {
			return a
		}
		return b
	}
	slot, newSlot := slotPhrase(it.OldSlot), slotPhrase(it.NewSlot)
	oldV, newV := it.OldValue, it.NewValue
	g := it.Gold
	v := judge.Verdict{Status: g.Status, ConflictType: g.Type, Action: g.Action, Links: []judge.Link{}}
	if l, ok := judge.DefaultLink(g.Action); ok {
		v.Links = append(v.Links, l)
	}
	var s judge.Steps
	switch g.Status {
	case judge.StatusUnrelated:
		s.Slot = pick(fmt.Sprintf("The old record is about the user's %s; the new input is about their %s.", slot, newSlot),
			fmt.Sprintf("Different slots: the old record concerns the user's %s, the new input their %s.", slot, newSlot))
		s.Comparison = fmt.Sprintf("There is nothing to compare: %s is the %s, and the new input says nothing about it.", oldV, slot)
		s.ConflictType = "none: the two texts are about different slots."
		s.Action = "keep: both records stay as they are."
		v.Confidence = 0.95
	case judge.StatusConsistent:
		s.Slot = sameSlot(pick, slot)
		if it.Implicit {
			s.Comparison = fmt.Sprintf("Old value: %s. The new input does not name the %s, and what it describes fits it.", oldV, slot)
			v.Confidence = 0.8
		} else {
			s.Comparison = fmt.Sprintf("Old value: %s. New value: %s. They agree.", oldV, orDefault(newV, oldV))
			v.Confidence = 0.9
		}
		s.ConflictType = "none: the new input agrees with the old record."
		s.Action = pick("keep: nothing in the memory needs to change.", "keep: the old record still holds, so the memory stays as it is.")
	case judge.StatusConflict:
		s.Slot = sameSlot(pick, slot)
		nv := orDefault(newV, "changed")
		v.TransitionSummary = fmt.Sprintf("%s: %s -> %s", slot, oldV, nv)
		v.Confidence = 0.95
		switch g.Type {
		case judge.TypeTemporalUpdate:
			s.Comparison = fmt.Sprintf("Old value: %s. New value: %s. The new input says the %s changed, so the old value is no longer current.", oldV, nv, slot)
			s.ConflictType = fmt.Sprintf("temporal_update: the %s changed over time.", slot)
		case judge.TypeExplicitNegation:
			s.Comparison = fmt.Sprintf("Old value: %s. New value: %s. The new input denies the old fact.", oldV, nv)
			s.ConflictType = "explicit_negation: the new input states that the old fact is not true."
		case judge.TypeValueDiscrepancy:
			s.Comparison = fmt.Sprintf("Old value: %s. New value: %s. The two values differ.", oldV, nv)
			s.ConflictType = fmt.Sprintf("value_discrepancy: the new input gives another value for the same %s.", slot)
		case judge.TypeScopeMismatch:
			s.Comparison = fmt.Sprintf("Old value: %s. New value: %s. The new input narrows how far the old fact holds.", oldV, nv)
			s.ConflictType = "scope_mismatch: the new input restricts the old fact to a narrower scope."
		case judge.TypeImplicitViolation:
			hint := ""
			if newV != "" {
				hint = fmt.Sprintf(" (it points to %s)", newV)
			}
			s.Comparison = fmt.Sprintf("Old value: %s. The new input never names the %s, but what it describes does not fit %s%s.", oldV, slot, oldV, hint)
			s.ConflictType = "implicit_violation: the contradiction is implied, never stated."
			v.Confidence = 0.7
			v.ClarificationNeeded = true
			v.ClarificationQuestion = fmt.Sprintf("Earlier you told me %s Is that still true?", judge.Quote(strings.TrimSpace(it.Pair.Old.Text)))
		}
		switch g.Action {
		case judge.ActionTransition:
			s.Action = fmt.Sprintf("transition: %s becomes a past state and %s is the current %s.", oldV, nv, slot)
		case judge.ActionSupersede:
			s.Action = fmt.Sprintf("supersede: %s replaces %s.", nv, oldV)
		case judge.ActionScopedException:
			s.Action = "scoped_exception: the old record holds outside the narrower scope the new input states."
		case judge.ActionKeep:
			s.Action = "keep: the evidence is indirect, so the memory stays as it is and the agent asks the user."
		}
	}
	return s, v
}

func sameSlot(pick func(a, b string) string, slot string) string {
	return pick(fmt.Sprintf("Both texts are about the user's %s.", slot),
		fmt.Sprintf("The old record and the new input are about the same slot: the user's %s.", slot))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// slotPhrase names a data slot key in words: "pet.1" → "pet", "num.kids" → "number of
// children", "likes.food" → "taste in food".
func slotPhrase(key string) string {
	head, tail, _ := strings.Cut(key, ".")
	switch head {
	case "home":
		return "home city"
	case "partner":
		return "relationship"
	case "pet":
		return "pet"
	case "hobby":
		return "hobby"
	case "likes":
		if tail == "diet" {
			return "diet"
		}
		return "taste in " + tail
	case "num":
		switch tail {
		case "kids":
			return "number of children"
		case "siblings":
			return "number of siblings"
		case "running":
			return "weekly running distance"
		case "commute":
			return "commute time"
		}
		return tail
	case "":
		return "slot"
	}
	return head
}
