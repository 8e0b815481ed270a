package overlay

import (
	"strings"
	"testing"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
)

// A bank written without facts gets them, and its old states stop being current, on both
// stores; a second run changes nothing, and new memories then join the fact groups.
func TestReindex(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I live in Berlin.":             {fact("user", "home", "Berlin")},
		"The weather was lovely today.": nil,
		"I moved to Lisbon last month.": {fact("user", "home", "Lisbon")},
		"I'm in Porto now, new flat!":   {fact("user", "home", "Porto")},
	}}
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			st, h := open(t)
			// Written before facts: no fact, so nothing compares the two homes.
			old, err := New(Config{Store: st, Host: h, Embedder: overlaytest.BagEmbedder{}, Facts: &mapExtractor{}})
			if err != nil {
				t.Fatal(err)
			}
			trs, err := old.Add(ctx, "ana", []Input{
				{Content: "I live in Berlin.", EventTime: at(1)},
				{Content: "The weather was lovely today.", EventTime: at(2)},
				{Content: "I moved to Lisbon last month.", EventTime: at(3)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(t, old, "ana", trs); got["I live in Berlin."] != store.StatusActive {
				t.Fatalf("before reindex: %v, want the old home still current (the bug it fixes)", got)
			}
			o, err := New(Config{Store: st, Host: h, Embedder: overlaytest.BagEmbedder{}, Facts: x})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := o.Reindex(ctx, "ana")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Records != 3 || rep.Read != 3 || rep.WithFacts != 2 || rep.Moved != 2 || strings.Join(rep.Slots, ",") != "user/home" {
				t.Errorf("report %+v", rep)
			}
			got := statuses(t, o, "ana", trs)
			want := map[string]store.Status{"I live in Berlin.": store.StatusSuperseded, "The weather was lovely today.": store.StatusActive, "I moved to Lisbon last month.": store.StatusActive}
			for text, s := range want {
				if got[text] != s {
					t.Errorf("%q: %s, want %s", text, got[text], s)
				}
			}
			if v, err := o.Check(ctx, "ana"); err != nil || len(v) != 0 {
				t.Errorf("invariants: %v %v", v, err)
			}
			if again, err := o.Reindex(ctx, "ana"); err != nil || again.Read != 1 || again.WithFacts != 0 || len(again.Slots) != 0 {
				t.Errorf("second run: %+v %v, want only the fact-less memory read and nothing changed", again, err)
			}
			more, err := o.Add(ctx, "ana", []Input{{Content: "I'm in Porto now, new flat!", EventTime: at(9)}})
			if err != nil {
				t.Fatal(err)
			}
			trs = append(trs, more...)
			if got := statuses(t, o, "ana", trs); got["I moved to Lisbon last month."] != store.StatusSuperseded || got["I'm in Porto now, new flat!"] != store.StatusActive {
				t.Errorf("after a new move: %v", got)
			}
		})
	}
	o := newTestOverlay(t, nil)
	if _, err := o.Reindex(t.Context(), "ana"); err == nil || !strings.Contains(err.Error(), "no fact extractor") {
		t.Errorf("facts off: %v, want an error saying so", err)
	}
}
