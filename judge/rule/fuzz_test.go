package rule

import (
	"testing"

	"github.com/atma-dev/atma/judge"
)

// FuzzRuleAuditor checks that the rule auditor never panics on any text and always
// answers with a valid verdict in the audit format.
func FuzzRuleAuditor(f *testing.F) {
	f.Add("I live in Paris.", "We moved to Berlin last week.")
	f.Add("I'm 1.75 m tall.", "I'm 175 cm tall, not 1.80 m.")
	f.Add("I'm vegan.", "Grabbed an oat milk latte.")
	f.Add("My job? A nurse at the city council.", "guess who's the new GP at St. Mary's? me!")
	f.Add("", "\xff\xfe")
	r := &Auditor{}
	f.Fuzz(func(t *testing.T, old, new string) {
		res, err := r.Audit(t.Context(), judge.Pair{Old: judge.Record{Text: old}, New: judge.Record{Text: new}, Scores: &judge.Scores{A: 0.7, B: 0.2, Gap: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Verdict.Validate(); err != nil {
			t.Fatalf("invalid verdict: %v", err)
		}
		if _, err := judge.ParseStrict(res.Raw); err != nil {
			t.Fatalf("Raw fails ParseStrict: %v\n%s", err, res.Raw)
		}
	})
}
