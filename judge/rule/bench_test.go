package rule

import (
	"strings"
	"testing"

	"github.com/atma-dev/atma/judge"
)

func BenchmarkRuleAudit(b *testing.B) {
	filler := "Work was busy and the weather was grey. "
	for _, s := range []struct {
		name      string
		sentences int
	}{{"Small", 1}, {"Med", 8}, {"Large", 64}} {
		p := judge.Pair{
			Old: judge.Record{Text: "I live in Berlin."},
			New: judge.Record{Text: strings.Repeat(filler, s.sentences-1) + "I moved to Lisbon last month."},
		}
		r := &Auditor{}
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := r.Audit(b.Context(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChangeCue measures the cue the overlay looks for in every pair the gate
// passes with a high topic score, so once per such candidate of an ingest.
func BenchmarkChangeCue(b *testing.B) {
	filler := "Work was busy and the weather was grey. "
	for _, s := range []struct {
		name      string
		sentences int
	}{{"Small", 1}, {"Med", 8}, {"Large", 64}} {
		before := "My commute is 25 minutes by bike."
		after := strings.Repeat(filler, s.sentences-1) + "My commute is about 25 minutes, still by bike."
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if cue := ChangeCue(before, after); cue != "" {
					b.Fatalf("cue %q in a pair that changes nothing", cue)
				}
			}
		})
	}
}
