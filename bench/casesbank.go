package bench

import (
	"context"
	"slices"
	"strings"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/store"
)

// CaseMemoryTrace is the overlay's final bank entry for one corpus memory, beside what
// the annotations say it should be: the line of traces.jsonl that explains a bank
// failure (which facts were read, which slot the record joined, which links it got).
type CaseMemoryTrace struct {
	System   string `json:"system"`
	Scenario string `json:"scenario"`
	Memory   string `json:"memory"`
	Text     string `json:"text"`
	Kind     string `json:"kind"`
	// Want are the annotated facts ("slot=value", "slot!=value" for is_not); Facts the
	// extractor's, as "group=value".
	Want  []string `json:"want,omitempty"`
	Facts []string `json:"facts,omitempty"`
	Slot  string   `json:"slot,omitempty"`
	// Status is the record's final status; WantStatus the annotated one (active or
	// superseded; empty when the memory's slots end in different states).
	Status     string   `json:"status"`
	WantStatus string   `json:"want_status,omitempty"`
	Links      []string `json:"links,omitempty"`
}

// wantStatuses derives each memory's final status from the annotations: a state
// memory is superseded when, in each of its slots, a later memory supersedes or
// transitions from it or from a restatement it was kept beside; every other memory
// stays active. A memory whose slots end differently gets no want ("").
func wantStatuses(s Scenario) map[string]string {
	// kept joins restatements (keep) into one group: a change of one is a change of all.
	kept := map[string][]string{}
	for _, m := range s.Memories {
		for _, r := range m.Relations {
			if r.Action == judge.ActionKeep {
				kept[m.ID] = append(kept[m.ID], r.To)
				kept[r.To] = append(kept[r.To], m.ID)
			}
		}
	}
	// ended[memory][slot]: the memory's value of slot was replaced.
	ended := map[string]map[string]bool{}
	end := func(id, slot string) {
		if ended[id] == nil {
			ended[id] = map[string]bool{}
		}
		ended[id][slot] = true
	}
	slotsOf := map[string][]string{}
	for _, m := range s.Memories {
		for _, f := range m.Facts {
			slotsOf[m.ID] = append(slotsOf[m.ID], f.Slot)
		}
	}
	for _, m := range s.Memories {
		for _, r := range m.Relations {
			if r.Action != judge.ActionSupersede && r.Action != judge.ActionTransition {
				continue
			}
			// The relation's slot: the ones the two memories share.
			seen := map[string]bool{}
			var walk func(id string)
			walk = func(id string) {
				if seen[id] {
					return
				}
				seen[id] = true
				for _, sl := range slotsOf[id] {
					if slices.Contains(slotsOf[m.ID], sl) {
						end(id, sl)
					}
				}
				for _, k := range kept[id] {
					if k != m.ID {
						walk(k)
					}
				}
			}
			walk(r.To)
		}
	}
	want := map[string]string{}
	for _, m := range s.Memories {
		if m.Kind != KindState {
			want[m.ID] = string(store.StatusActive)
			continue
		}
		n := 0
		for _, sl := range slotsOf[m.ID] {
			if ended[m.ID][sl] {
				n++
			}
		}
		switch {
		case n == 0:
			want[m.ID] = string(store.StatusActive)
		case n == len(slotsOf[m.ID]):
			want[m.ID] = string(store.StatusSuperseded)
		}
	}
	return want
}

// traceBank reads the bank entry of every memory of a replayed scenario and counts
// those whose status is the annotated one in rate.
func traceBank(ctx context.Context, mem memory, system string, s Scenario, rate *Rate) ([]CaseMemoryTrace, error) {
	want := wantStatuses(s)
	out := make([]CaseMemoryTrace, 0, len(s.Memories))
	for _, m := range s.Memories {
		tr := CaseMemoryTrace{System: system, Scenario: s.ID, Memory: m.ID, Text: m.Text, Kind: m.Kind, WantStatus: want[m.ID]}
		for _, f := range m.Facts {
			op := "="
			if f.Polarity == "is_not" {
				op = "!="
			}
			tr.Want = append(tr.Want, f.Slot+op+f.Value)
		}
		r, ok, err := mem.record(ctx, s.ID, s.ID+"/"+m.ID)
		if err != nil {
			return nil, err
		}
		if !ok {
			tr.Status = "missing"
		} else {
			tr.Status, tr.Slot = string(r.Status), r.Slot
			tr.Facts = factStrings(overlay.RecordFacts(r))
			for _, l := range r.Links {
				tr.Links = append(tr.Links, string(l.Type)+" "+strings.TrimPrefix(l.To, s.ID+"/"))
			}
		}
		if m.Kind == KindState && tr.WantStatus != "" {
			rate.Add(tr.Status == tr.WantStatus)
		}
		out = append(out, tr)
	}
	return out, nil
}

// factStrings writes facts as "group=value" ("group!=value" when negated).
func factStrings(fs []facts.Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		op := "="
		if f.Negated {
			op = "!="
		}
		out[i] = f.Group() + op + f.Value
	}
	return out
}
