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

// BenchmarkQuantities measures the number reader on texts with a number in every
// sentence: its time grows linearly with the text (it grew with the square before the
// before* patterns were matched on a window).
func BenchmarkQuantities(b *testing.B) {
	sentence := "Work was busy; I'm 34, I earn  about 3,000 euros and we walked 5 km for 2 years. "
	for _, s := range []struct {
		name      string
		sentences int
	}{{"Small", 1}, {"Med", 8}, {"Large", 64}, {"Huge", 512}} {
		t := newText(strings.Repeat(sentence, s.sentences))
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(quantities(t)) == 0 {
					b.Fatal("no quantities")
				}
			}
		})
	}
}
