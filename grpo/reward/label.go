package reward

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

// ErrNoLabel: a completion came without a gold label (absent, null or empty).
var ErrNoLabel = errors.New("no gold label")

// Label is the gold label a completion is scored against. Its JSON form is a eval.Gold
// object, optionally with the item's values and texts:
//
//	{"status":"conflict","conflict_type":"temporal_update","action":"transition",
//	 "implicit":false,"slot":"home","old_value":"Berlin","new_value":"Lisbon",
//	 "old_text":"I live in Berlin.","new_text":"I moved to Lisbon last month.","id":"eval-0042"}
//
// Only status, conflict_type and action are required; a bare eval.Gold is a valid label.
// The values sharpen the transition-summary term (without them it compares the summary
// with the pair's texts, read from the prompt when old_text and new_text are absent).
// Unknown keys are refused, so that a misspelt key is an error rather than a silently
// weaker reward.
type Label struct {
	eval.Gold
	// Implicit marks items from implicit families, conflicting or not (eval.Item.Implicit).
	Implicit bool   `json:"implicit,omitempty"`
	Slot     string `json:"slot,omitempty"`
	OldValue string `json:"old_value,omitempty"`
	NewValue string `json:"new_value,omitempty"`
	OldText  string `json:"old_text,omitempty"`
	NewText  string `json:"new_text,omitempty"`
	ID       string `json:"id,omitempty"`
}

// LabelFor is the label of a judge item, with its values and texts.
func LabelFor(it eval.Item) Label {
	return Label{
		Gold:     it.Gold,
		Implicit: it.Implicit,
		Slot:     it.OldSlot,
		OldValue: it.OldValue,
		NewValue: it.NewValue,
		OldText:  it.Pair.Old.Text,
		NewText:  it.Pair.New.Text,
		ID:       it.ID,
	}
}

// Present reports whether l carries a gold label.
func (l Label) Present() bool { return l.Status != "" }

// Stratum is the task type of the label, the key of task-stratified advantages: the gold
// status and conflict type ("conflict/temporal_update", "consistent/none"), with
// "/implicit" for implicit items.
func (l Label) Stratum() string {
	s := string(l.Status) + "/" + string(l.Type)
	if l.Implicit {
		s += "/implicit"
	}
	return s
}

// Validate checks the gold part: known status, type and action, a conflict with a type
// other than none and an action the type allows, a consistent or unrelated pair with
// type none.
func (l Label) Validate() error {
	g := l.Gold
	var errs []error
	if !g.Status.Valid() {
		errs = append(errs, fmt.Errorf("status %q is not one of conflict, consistent, unrelated", g.Status))
	}
	if !g.Type.Valid() {
		errs = append(errs, fmt.Errorf("conflict_type %q is not a conflict type", g.Type))
	}
	if !g.Action.Valid() {
		errs = append(errs, fmt.Errorf("action %q is not an action", g.Action))
	}
	if len(errs) == 0 {
		switch {
		case g.Status == judge.StatusConflict && g.Type == judge.TypeNone:
			errs = append(errs, errors.New("a conflict needs a conflict type other than none"))
		case g.Status != judge.StatusConflict && g.Type != judge.TypeNone:
			errs = append(errs, fmt.Errorf("a %s pair has conflict type none, not %s", g.Status, g.Type))
		case !slices.Contains(judge.AllowedActions(g.Type), g.Action):
			errs = append(errs, fmt.Errorf("conflict type %s does not take action %s", g.Type, g.Action))
		}
	}
	return errors.Join(errs...)
}

// ParseLabel decodes a label from JSON: an object as documented on Label, or a JSON string
// holding such an object (how OpenRLHF and verl pass a dataset column of text). null, ""
// and an empty input are ErrNoLabel.
func ParseLabel(data []byte) (Label, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return Label{}, fmt.Errorf("decode label string: %w", err)
		}
		data = bytes.TrimSpace([]byte(s))
	}
	if len(data) == 0 || string(data) == "null" {
		return Label{}, ErrNoLabel
	}
	if data[0] != '{' {
		return Label{}, fmt.Errorf("decode label: want a JSON object of eval.Gold, got %q", judge.Clip(string(data), 40))
	}
	var l Label
	if err := DecodeStrict(bytes.NewReader(data), &l); err != nil {
		return Label{}, fmt.Errorf("decode label: %w", err)
	}
	if !l.Present() {
		return Label{}, fmt.Errorf("decode label: %w (the object has no status)", ErrNoLabel)
	}
	if err := l.Validate(); err != nil {
		return Label{}, fmt.Errorf("invalid label: %w", err)
	}
	return l, nil
}
