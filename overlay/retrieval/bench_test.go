package retrieval

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func BenchmarkProfile(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"Short", "where do I live now?"},
		{"Med", "My former colleague still lives in Paris, but where did I live before I moved to Lisbon, and what changed since?"},
		{"Large", strings.Repeat("I used to work at the hospital on weekends, and I moved from Berlin to Lisbon last year. ", 40) + "Where do I live now?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.q)))
			for b.Loop() {
				ProfileQuery(bc.q)
			}
		})
	}
}

// chainBank returns n/3 version chains old (superseded) → transition → new (active).
func chainBank(n int) []Candidate {
	var out []Candidate
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; len(out) < n; i++ {
		o, tr, nw := fmt.Sprintf("o%d", i), fmt.Sprintf("t%d", i), fmt.Sprintf("n%d", i)
		slot := fmt.Sprintf("user.slot%d", i)
		out = append(out,
			Candidate{ID: o, Content: "the old value of " + slot, Slot: slot, Status: StatusSuperseded, EventTime: t0,
				Links: links("superseded_by", nw, "evolves_to", tr)},
			Candidate{ID: tr, Content: "the value of " + slot + " changed", Slot: slot, Status: StatusTransition, EventTime: t0.AddDate(0, 1, 0),
				Links: links("evolves_from", o, "evolves_to", nw)},
			Candidate{ID: nw, Content: "the new value of " + slot, Slot: slot, Status: StatusActive, EventTime: t0.AddDate(0, 2, 0),
				Links: links("supersedes", o, "evolves_from", tr)},
		)
	}
	return out[:n]
}

func BenchmarkBuildPool(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		recs := chainBank(3 * n)
		g := NewMapGraph(recs, nil)
		var sd []Candidate
		for i := range n {
			sd = append(sd, recs[3*i]) // the stale versions
		}
		b.Run(fmt.Sprintf("Seeds%d", n), func(b *testing.B) {
			cfg := Config{MaxPool: 4 * n}
			for b.Loop() {
				if _, err := BuildPool(b.Context(), g, currentUnsure, sd, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBuildPacket(b *testing.B) {
	p := ProfileQuery("where do I live now?")
	for _, n := range []int{5, 50, 500} {
		rows := chainBank(n)
		b.Run(fmt.Sprintf("Rows%d", n), func(b *testing.B) {
			for b.Loop() {
				pk := BuildPacket("where do I live now?", p, rows, PacketOptions{})
				_ = pk.Messages()
			}
		})
	}
}
