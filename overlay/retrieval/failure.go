package retrieval

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/atma-dev/atma/internal/words"
)

// FailureClass is where a wrong answer went wrong.
type FailureClass string

// Failure classes.
const (
	// FailureNone: the answer holds the gold answer.
	FailureNone FailureClass = "none"
	// FailureBank: no record in the bank holds the gold answer in the requested state.
	FailureBank FailureClass = "bank"
	// FailureRetrieval: the bank holds it, but the packet does not, or not first for
	// the requested state.
	FailureRetrieval FailureClass = "retrieval"
	// FailureQA: the packet holds it, first for its state and rightly labelled, and the
	// answer misses it.
	FailureQA FailureClass = "qa"
)

// FailureCase is one answered query to diagnose.
type FailureCase struct {
	// Gold is the expected answer.
	Gold string
	// Mode is the state the query asks about; "" means Packet.Mode.
	Mode Mode
	// Bank are the user's records in the bank (any order).
	Bank []Candidate
	// Packet is the evidence the answer model read.
	Packet Packet
	// Answer is what it answered.
	Answer string
}

// Diagnosis is the verdict of ClassifyFailure.
type Diagnosis struct {
	Class  FailureClass `json:"class"`
	Reason string       `json:"reason"`
	// BankIDs are the bank records that hold the gold answer in the requested state.
	BankIDs []string `json:"bank_ids,omitempty"`
	// Row is the packet row (from 1) that holds it; 0 when none does.
	Row int `json:"row"`
}

// ClassifyFailure says where an answer went wrong. Texts are compared by words: lower
// case, split at anything but letters and digits, without a few function words ("the",
// "in", "my", …, unless the gold answer has nothing else); a text holds the gold answer
// when it has all its words.
//
// The requested state is the status the mode asks for: active for current queries,
// superseded for historical ones, any status for transition and neutral ones. In
// order:
//  1. none: the answer holds the gold answer;
//  2. bank: no bank record of the requested state holds it (for transition queries the
//     records of one slot may hold it together);
//  3. retrieval: no packet row of the requested state holds it (for transition and
//     neutral queries, the rows together), or, for current and historical queries,
//     another row of that state and of the same slot comes first;
//  4. bank: in a marked packet, the row that holds it carries a label the mode does
//     not accept (current: current memory or transition linked memory; historical:
//     historical memory or transition linked memory): the record was stored without
//     its state, such as an active record without a slot;
//  5. qa: the packet holds it, first for its state and rightly labelled; the answer
//     model missed it.
//
// The error reports a gold answer without words or an unknown mode.
func ClassifyFailure(fc FailureCase) (Diagnosis, error) {
	gold := goldWords(fc.Gold)
	if len(gold) == 0 {
		return Diagnosis{}, errors.New("classify failure: the gold answer has no words")
	}
	if holds(fc.Answer, gold) {
		return Diagnosis{Class: FailureNone, Reason: "the answer holds the gold answer"}, nil
	}
	mode := fc.Mode
	if mode == "" {
		mode = fc.Packet.Mode
	}
	if !mode.Valid() {
		return Diagnosis{}, fmt.Errorf("classify failure: mode %q", mode)
	}
	fits := func(s Status) bool {
		switch mode {
		case ModeCurrent:
			return s == StatusActive
		case ModeHistorical:
			return s == StatusSuperseded
		}
		return true
	}
	state := map[Mode]string{ModeCurrent: "active", ModeHistorical: "superseded", ModeTransition: "any", ModeNeutral: "any"}[mode]

	var bankIDs []string
	var wrongState []string
	for _, r := range fc.Bank {
		if holds(r.Content, gold) {
			if fits(r.Status) {
				bankIDs = append(bankIDs, r.ID)
			} else {
				wrongState = append(wrongState, fmt.Sprintf("%s (%s)", r.ID, r.Status))
			}
		}
	}
	if len(bankIDs) == 0 && mode == ModeTransition {
		bankIDs = slotHolders(fc.Bank, gold)
	}
	d := Diagnosis{BankIDs: bankIDs}
	if len(bankIDs) == 0 {
		d.Class = FailureBank
		d.Reason = "no record in the bank holds the gold answer"
		if state != "any" {
			d.Reason = fmt.Sprintf("no %s record in the bank holds the gold answer", state)
		}
		if len(wrongState) > 0 {
			d.Reason += "; it is stored only as " + strings.Join(wrongState, ", ")
		}
		return d, nil
	}

	rows := fc.Packet.Rows
	if mode == ModeTransition || mode == ModeNeutral {
		var all strings.Builder
		for i, r := range rows {
			all.WriteString(r.Content)
			all.WriteByte(' ')
			if d.Row == 0 && holdsAny(r.Content, gold) {
				d.Row = i + 1
			}
		}
		if !holds(all.String(), gold) {
			d.Class, d.Row = FailureRetrieval, 0
			d.Reason = fmt.Sprintf("the bank holds the gold answer (%s) but the packet does not", strings.Join(bankIDs, ", "))
			return d, nil
		}
		d.Class = FailureQA
		d.Reason = "the packet holds the gold answer; the answer misses it"
		return d, nil
	}

	goldRow := slices.IndexFunc(rows, func(r Row) bool { return fits(r.Status) && holds(r.Content, gold) })
	firstFit := goldRow
	if goldRow >= 0 && rows[goldRow].Slot != "" {
		slot := rows[goldRow].Slot
		firstFit = slices.IndexFunc(rows, func(r Row) bool { return fits(r.Status) && r.Slot == slot })
	}
	switch {
	case goldRow < 0:
		d.Class = FailureRetrieval
		d.Reason = fmt.Sprintf("the bank holds the gold answer as %s (%s) but no %s row of the packet does", state, strings.Join(bankIDs, ", "), state)
		if i := slices.IndexFunc(rows, func(r Row) bool { return holds(r.Content, gold) }); i >= 0 {
			d.Reason += fmt.Sprintf("; row %d holds it as %s", i+1, rows[i].Status)
		}
		return d, nil
	case goldRow != firstFit:
		d.Class, d.Row = FailureRetrieval, goldRow+1
		d.Reason = fmt.Sprintf("row %d holds the gold answer but row %d is the first %s row of slot %s", goldRow+1, firstFit+1, state, rows[goldRow].Slot)
		return d, nil
	}
	d.Row = goldRow + 1
	if fc.Packet.Marked && !acceptedLabel(mode, rows[goldRow].Label) {
		d.Class = FailureBank
		d.Reason = fmt.Sprintf("row %d holds the gold answer but is labelled %s: the record was stored without its state", d.Row, rows[goldRow].Label)
		return d, nil
	}
	d.Class = FailureQA
	d.Reason = fmt.Sprintf("row %d holds the gold answer as the first %s row; the answer misses it", d.Row, state)
	return d, nil
}

func acceptedLabel(m Mode, l Label) bool {
	switch m {
	case ModeCurrent:
		return l == LabelCurrent || l == LabelTransitionLinked
	case ModeHistorical:
		return l == LabelHistorical || l == LabelTransitionLinked
	}
	return true
}

// slotHolders returns the records of the first slot (in bank order) whose records
// together hold the gold words, each contributing at least one.
func slotHolders(bank []Candidate, gold []string) []string {
	var slots []string
	for _, r := range bank {
		if r.Slot != "" && !slices.Contains(slots, r.Slot) {
			slots = append(slots, r.Slot)
		}
	}
	for _, s := range slots {
		var text strings.Builder
		var ids []string
		for _, r := range bank {
			if r.Slot == s && holdsAny(r.Content, gold) {
				text.WriteString(r.Content)
				text.WriteByte(' ')
				ids = append(ids, r.ID)
			}
		}
		if holds(text.String(), gold) {
			return ids
		}
	}
	return nil
}

var functionWords = set("a", "an", "the", "of", "in", "on", "at", "to", "from", "and", "or", "is", "was", "are", "were", "my", "i", "he", "she", "they", "it", "for", "with", "by", "as")

func goldWords(s string) []string {
	all := words.Split(s)
	var content []string
	for _, w := range all {
		if !functionWords[w] {
			content = append(content, w)
		}
	}
	if len(content) == 0 {
		return all
	}
	return content
}

func holds(text string, gold []string) bool {
	have := set(words.Split(text)...)
	for _, w := range gold {
		if !have[w] {
			return false
		}
	}
	return true
}

func holdsAny(text string, gold []string) bool {
	have := set(words.Split(text)...)
	return slices.ContainsFunc(gold, func(w string) bool { return have[w] })
}
