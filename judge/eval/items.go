package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/atma-dev/atma/judge"
)

// maxItemLine bounds one line of an item file.
const maxItemLine = 1 << 20

// WriteItems writes items as JSON lines, one Item per line.
func WriteItems(w io.Writer, items []Item) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return fmt.Errorf("write item %s: %w", it.ID, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write items: %w", err)
	}
	return nil
}

// ReadItems reads items written by WriteItems (or by hand): one JSON object per line,
// blank lines skipped, unknown fields refused. Every item needs an ID (unique), an old and
// a new text, and a gold label whose status, type and action are valid and consistent
// (conflict with a type other than none, an action the type allows). All problems are
// reported at once, each with its line number.
func ReadItems(r io.Reader) ([]Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxItemLine)
	var items []Item
	var errs []error
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var it Item
		if err := dec.Decode(&it); err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", line, err))
			continue
		}
		if dec.More() {
			errs = append(errs, fmt.Errorf("line %d: more than one JSON value", line))
			continue
		}
		for _, p := range checkItem(it) {
			errs = append(errs, fmt.Errorf("line %d: %s", line, p))
		}
		if prev, dup := seen[it.ID]; dup && it.ID != "" {
			errs = append(errs, fmt.Errorf("line %d: id %q already used on line %d", line, it.ID, prev))
		}
		seen[it.ID] = line
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("read items: %w", err)
	}
	return items, nil
}

func checkItem(it Item) []string {
	var probs []string
	if strings.TrimSpace(it.ID) == "" {
		probs = append(probs, "id is empty")
	}
	if strings.TrimSpace(it.Pair.Old.Text) == "" {
		probs = append(probs, "pair.old.text is empty")
	}
	if strings.TrimSpace(it.Pair.New.Text) == "" {
		probs = append(probs, "pair.new.text is empty")
	}
	g := it.Gold
	switch {
	case !g.Status.Valid():
		probs = append(probs, fmt.Sprintf("gold.status %q is not one of %s", g.Status, list(judge.Statuses())))
	case !g.Type.Valid():
		probs = append(probs, fmt.Sprintf("gold.conflict_type %q is not one of %s", g.Type, list(judge.ConflictTypes())))
	case !g.Action.Valid():
		probs = append(probs, fmt.Sprintf("gold.action %q is not one of %s", g.Action, list(judge.Actions())))
	case (g.Status == judge.StatusConflict) == (g.Type == judge.TypeNone):
		probs = append(probs, fmt.Sprintf("gold.conflict_type %s does not fit status %s", g.Type, g.Status))
	case !g.actionAllowed():
		probs = append(probs, fmt.Sprintf("gold.action %s does not fit a %s %s pair", g.Action, g.Type, g.Status))
	}
	return probs
}

func (g Gold) actionAllowed() bool { return slices.Contains(judge.AllowedActions(g.Type), g.Action) }

// list writes enum values as "a, b or c".
func list[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
