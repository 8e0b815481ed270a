package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/llm"
)

func TestSFTDefault(t *testing.T) {
	items, err := SFTItems(SFTConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != DefaultSFTItems {
		t.Fatalf("%d items, want %d", len(items), DefaultSFTItems)
	}
	eval, err := Set(Config{})
	if err != nil {
		t.Fatal(err)
	}
	evalTexts, evalFams := map[string]bool{}, map[string]bool{}
	for _, it := range eval {
		evalTexts[it.Pair.New.Text] = true
		evalFams[it.Family] = true
	}
	implicit := 0
	for _, it := range items {
		if evalTexts[it.Pair.New.Text] {
			t.Errorf("item %s repeats an evaluation input: %q", it.ID, it.Pair.New.Text)
		}
		if evalFams[it.Family] {
			t.Errorf("item %s comes from %s, a family of the evaluation set", it.ID, it.Family)
		}
		if it.Implicit {
			implicit++
			if styleOf(it.Family) != data.StyleImplicit {
				t.Errorf("implicit item %s comes from %s", it.ID, it.Family)
			}
		}
	}
	if implicit != 140 {
		t.Errorf("%d implicit items, want 140", implicit)
	}
}

func TestWriteSFT(t *testing.T) {
	items, err := SFTItems(SFTConfig{Items: 120, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSFT(&buf, items); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	n := 0
	for ; sc.Scan(); n++ {
		var line map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d is not JSON: %v", n+1, err)
		}
		if len(line) != 1 || line["messages"] == nil {
			t.Fatalf("line %d has keys other than messages: %s", n+1, sc.Bytes()[:80])
		}
		var msgs []llm.Message
		if err := json.Unmarshal(line["messages"], &msgs); err != nil {
			t.Fatal(err)
		}
		it := items[n]
		if len(msgs) != 3 || msgs[0].Role != "system" || msgs[1].Role != "user" || msgs[2].Role != "assistant" {
			t.Fatalf("line %d: roles %+v", n+1, msgs)
		}
		if msgs[0].Content != judge.SystemPrompt || msgs[1].Content != judge.UserPrompt(it.Pair) {
			t.Errorf("line %d: the prompt is not the audit prompt", n+1)
		}
		a, err := judge.ParseStrict(msgs[2].Content)
		if err != nil {
			t.Fatalf("line %d: the target fails ParseStrict: %v\n%s", n+1, err, msgs[2].Content)
		}
		g := it.Gold
		if a.Verdict.Status != g.Status || a.Verdict.ConflictType != g.Type || a.Verdict.Action != g.Action {
			t.Errorf("line %d: target %s/%s/%s, gold %+v", n+1, a.Verdict.Status, a.Verdict.ConflictType, a.Verdict.Action, g)
		}
		slot := slotPhrase(it.OldSlot)
		if !strings.Contains(a.Steps.Slot, slot) || !strings.Contains(a.Steps.Comparison, it.OldValue) ||
			!strings.Contains(a.Steps.ConflictType, string(g.Type)) || !strings.HasPrefix(a.Steps.Action, string(g.Action)) {
			t.Errorf("line %d: the think steps miss the slot %q, old value %q, type or action:\n%+v", n+1, slot, it.OldValue, a.Steps)
		}
		if g.Status == judge.StatusConflict && it.NewValue != "" && !strings.Contains(a.Steps.Comparison, it.NewValue) {
			t.Errorf("line %d: the comparison misses the new value %q: %s", n+1, it.NewValue, a.Steps.Comparison)
		}
	}
	if n != len(items) {
		t.Errorf("%d lines, want %d", n, len(items))
	}

	again, err := SFTItems(SFTConfig{Items: 120, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var buf2 bytes.Buffer
	if err := WriteSFT(&buf2, again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Error("the same configuration wrote different bytes")
	}
}

func TestSFTExclude(t *testing.T) {
	first, err := SFTItems(SFTConfig{Items: 50, Exclude: []Item{}})
	if err != nil {
		t.Fatal(err)
	}
	drop := first[:10]
	second, err := SFTItems(SFTConfig{Items: 50, Exclude: drop})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range second {
		if slices.ContainsFunc(drop, func(d Item) bool { return d.Pair.New.Text == it.Pair.New.Text }) {
			t.Errorf("item %s has an excluded input", it.ID)
		}
	}
}

func TestSlotPhrase(t *testing.T) {
	for in, want := range map[string]string{
		"job": "job", "home": "home city", "partner": "relationship", "pet.2": "pet", "hobby.1": "hobby",
		"likes.diet": "diet", "likes.music": "taste in music", "num.kids": "number of children", "num.age": "age", "": "slot",
	} {
		if got := slotPhrase(in); got != want {
			t.Errorf("slotPhrase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSFTConfigValidate(t *testing.T) {
	if _, err := SFTItems(SFTConfig{Items: -5, Styles: []string{"implicit"}}); err == nil ||
		!strings.Contains(err.Error(), "items -5") || !strings.Contains(err.Error(), `style "implicit"`) {
		t.Errorf("error = %v", err)
	}
}
