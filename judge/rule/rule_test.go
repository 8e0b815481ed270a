package rule

import (
	"context"
	"testing"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

func TestRuleAuditorHandWritten(t *testing.T) {
	type want struct {
		s judge.Status
		t judge.ConflictType
	}
	conflict := func(t judge.ConflictType) want { return want{judge.StatusConflict, t} }
	cons := want{judge.StatusConsistent, judge.TypeNone}
	unrel := want{judge.StatusUnrelated, judge.TypeNone}
	tests := []struct {
		name     string
		old, new string
		want     want
	}{
		// temporal updates
		{"job change", "I work as an accountant at Deloitte.", "I quit Deloitte in May and joined Google as a product manager.", conflict(judge.TypeTemporalUpdate)},
		{"moved city", "I live in Paris.", "We moved to Montreal last spring.", conflict(judge.TypeTemporalUpdate)},
		{"used to live", "My apartment is in Boston.", "I used to live in Boston, but now I'm in Denver.", conflict(judge.TypeTemporalUpdate)},
		{"no longer works there", "I'm a teacher at Lincoln Elementary.", "I don't work at Lincoln Elementary anymore.", conflict(judge.TypeTemporalUpdate)},
		{"filler does not hide a move", "I live in Oslo.", "Sorry, long day. Still unpacking in my new flat in Bergen. Not that it matters.", conflict(judge.TypeTemporalUpdate)},
		// explicit negations
		{"divorce", "I'm married to Carlos, my husband.", "Carlos and I got divorced this year.", conflict(judge.TypeExplicitNegation)},
		{"no cat", "I have a cat named Whiskers.", "I don't have a cat.", conflict(judge.TypeExplicitNegation)},
		{"pet died", "I have a dog called Max.", "Max passed away in March and the house is so quiet.", conflict(judge.TypeExplicitNegation)},
		// value discrepancies
		{"age", "I'm 29 years old.", "Actually I'm 31.", conflict(judge.TypeValueDiscrepancy)},
		{"children in words", "I have three kids.", "We have 4 children.", conflict(judge.TypeValueDiscrepancy)},
		{"commute", "My commute takes 40 minutes.", "It takes me about twenty minutes to get to the office now.", conflict(judge.TypeValueDiscrepancy)},
		// scope mismatches
		{"hobby only in summer", "I play tennis every weekend.", "These days I only play tennis in the summer.", conflict(judge.TypeScopeMismatch)},
		{"like only when", "I love spicy food.", "I only like spicy food when I cook it myself.", conflict(judge.TypeScopeMismatch)},
		{"barely", "I go swimming three times a week.", "I barely go swimming now, maybe twice a year.", conflict(judge.TypeScopeMismatch)},
		// implicit violations
		{"bacon for a vegetarian", "I'm vegetarian.", "Had a bacon cheeseburger for lunch.", conflict(judge.TypeImplicitViolation)},
		{"wine for a teetotaller", "I don't drink alcohol.", "Opened a bottle of wine with dinner.", conflict(judge.TypeImplicitViolation)},
		{"flat in another city", "I live in Paris.", "Stuck in traffic on my commute from my Berlin flat.", conflict(judge.TypeImplicitViolation)},
		{"first date in a relationship", "I'm in a relationship with Sam.", "Went on a first date with someone from a dating app.", conflict(judge.TypeImplicitViolation)},
		{"cheese for a vegan", "I've been vegan for years.", "Nothing beats a cheese board on a Friday, so I ate half of it.", conflict(judge.TypeImplicitViolation)},
		{"no-pets lease with an idiom", "I have a rabbit called Bun.", "The new landlord says pets are not allowed here, no problem for me.", conflict(judge.TypeImplicitViolation)},
		// consistent look-alikes
		{"same city", "I live in Paris.", "Paris is lovely in the spring, glad I live here.", cons},
		{"fitting dish", "I'm vegetarian.", "Cooked a lentil curry for dinner.", cons},
		{"oat milk for a vegan", "I'm vegan.", "Grabbed an oat milk latte on the way in.", cons},
		{"alcohol-free beer", "I don't drink alcohol.", "Ordered an alcohol-free beer at the bar.", cons},
		{"pet still there", "I have a cat named Whiskers.", "Whiskers knocked a glass off the table again.", cons},
		{"same age", "I'm 29 years old.", "Like I said, I'm 29.", cons},
		{"height in metres and centimetres", "I'm 1.75 m tall.", "I'm 175 cm tall.", cons},
		{"salary in thousands", "I earn €60,000 a year.", "My salary is 60k a year.", cons},
		{"never leaving", "I live in Lisbon.", "I'll never leave Lisbon, it's perfect.", cons},
		{"the only one who loves it", "I love jazz.", "I'm the only one in my family who loves jazz.", cons},
		{"same employer", "I'm a nurse at St Mary's Hospital.", "Another night shift at St Mary's Hospital, still love it.", cons},
		// unrelated pairs
		{"job vs dog", "I work as an accountant at Deloitte.", "My dog Rex loves the beach.", unrel},
		{"age vs move", "I'm 29 years old.", "I moved to Lisbon last year.", unrel},
		{"jazz vs tennis", "I love jazz.", "I play tennis every weekend.", unrel},
		{"diet vs height", "I'm vegetarian.", "I'm 180 cm tall.", unrel},
		{"partner vs hobby", "My wife is called Ana.", "I go running every single weekend.", unrel},
	}
	r := &Auditor{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Audit(t.Context(), judge.Pair{Old: judge.Record{Text: tt.old}, New: judge.Record{Text: tt.new}})
			if err != nil {
				t.Fatal(err)
			}
			v := res.Verdict
			if v.Status != tt.want.s || v.ConflictType != tt.want.t {
				t.Errorf("verdict %s/%s, want %s/%s\nsteps: %+v", v.Status, v.ConflictType, tt.want.s, tt.want.t, res.Steps)
			}
			checkRuleResult(t, res)
		})
	}
}

// checkRuleResult checks what every rule verdict must satisfy.
func checkRuleResult(t *testing.T, res judge.Result) {
	t.Helper()
	if err := res.Verdict.Validate(); err != nil {
		t.Errorf("invalid verdict: %v", err)
	}
	a, err := judge.ParseStrict(res.Raw)
	if err != nil {
		t.Fatalf("Raw fails ParseStrict: %v\n%s", err, res.Raw)
	}
	if a.Verdict.Status != res.Verdict.Status || a.Verdict.Action != res.Verdict.Action {
		t.Errorf("Raw says %+v, Verdict %+v", a.Verdict, res.Verdict)
	}
	if res.Source != judge.SourceRule || res.Tokens != 0 || res.Fallback != "" || res.ParseError != "" {
		t.Errorf("bookkeeping: source %q, tokens %d, fallback %q, parse error %q", res.Source, res.Tokens, res.Fallback, res.ParseError)
	}
	if v := res.Verdict; v.ConflictType == judge.TypeImplicitViolation && (!v.ClarificationNeeded || v.Action != judge.ActionKeep) {
		t.Errorf("an implicit violation should keep and ask: %+v", v)
	}
	if v := res.Verdict; v.Status == judge.StatusConflict && v.Action != judge.DefaultAction(v.ConflictType) {
		t.Errorf("action %s, want the default %s", v.Action, judge.DefaultAction(v.ConflictType))
	}
}

func TestRuleAuditorScores(t *testing.T) {
	// Nothing in these texts is a cue; only the scores can decide.
	old, new := "Blorp is fizzy.", "Zorp glimmers."
	tests := []struct {
		name   string
		scores *judge.Scores
		want   judge.Status
		typ    judge.ConflictType
	}{
		{"no scores", nil, judge.StatusUnrelated, judge.TypeNone},
		{"low topic similarity", &judge.Scores{A: 0.3, B: 0.1, Gap: 0.2}, judge.StatusUnrelated, judge.TypeNone},
		{"same topic, disagreeing", &judge.Scores{A: 0.9, B: 0.1, Gap: 0.8}, judge.StatusConflict, judge.TypeImplicitViolation},
		{"same topic, agreeing", &judge.Scores{A: 0.9, B: 0.8, Gap: 0.1}, judge.StatusConsistent, judge.TypeNone},
	}
	r, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Audit(t.Context(), judge.Pair{Old: judge.Record{Text: old}, New: judge.Record{Text: new}, Scores: tt.scores})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict.Status != tt.want || res.Verdict.ConflictType != tt.typ {
				t.Errorf("verdict %s/%s, want %s/%s", res.Verdict.Status, res.Verdict.ConflictType, tt.want, tt.typ)
			}
			checkRuleResult(t, res)
		})
	}
	t.Run("texts outweigh scores", func(t *testing.T) {
		res, err := r.Audit(t.Context(), judge.Pair{Old: judge.Record{Text: "I live in Paris."}, New: judge.Record{Text: "We moved to Rome."}, Scores: &judge.Scores{A: 0.9, B: 0.95}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict.ConflictType != judge.TypeTemporalUpdate {
			t.Errorf("type %s, want temporal_update despite agreeing scores", res.Verdict.ConflictType)
		}
	})
}

func TestRuleAuditorSlotHint(t *testing.T) {
	// "Blue Harbor" could be anything; the slot key says it is a workplace.
	p := judge.Pair{Old: judge.Record{Text: "Blue Harbor, in the kitchen, since 2019.", Slot: "job"}, New: judge.Record{Text: "Started at Green Valley as a sous-chef last week."}}
	res, err := (&Auditor{}).Audit(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.ConflictType != judge.TypeTemporalUpdate {
		t.Errorf("verdict %+v, want a temporal update of the job", res.Verdict)
	}
	checkRuleResult(t, res)
}

func TestRuleAuditorContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (&Auditor{}).Audit(ctx, judge.Pair{Old: judge.Record{Text: "a"}, New: judge.Record{Text: "b"}}); err == nil {
		t.Error("Audit ignored a cancelled context")
	}
}

func TestRuleConfigValidate(t *testing.T) {
	nan := 0.0
	nan /= nan
	if _, err := New(Config{TauTop: nan}); err == nil {
		t.Error("New accepted a NaN threshold")
	}
}

// TestRuleAuditorEvalSetVerdictsValid runs the rule auditor over the default evaluation
// set: every verdict valid and in the format, whatever it decides.
func TestRuleAuditorEvalSetVerdictsValid(t *testing.T) {
	items, err := eval.Set(eval.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Auditor{}
	for _, it := range items {
		res, err := r.Audit(t.Context(), it.Pair)
		if err != nil {
			t.Fatal(err)
		}
		checkRuleResult(t, res)
	}
}

// TestRuleAuditorBaseline guards the baseline against regressions: floors well under what
// it scores on the default evaluation set (see the package report), so that wording
// changes in the data generator do not break it, while a broken rule does.
func TestRuleAuditorBaseline(t *testing.T) {
	items, err := eval.Set(eval.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := eval.Run(t.Context(), []judge.NamedAuditor{{Name: "rule", Auditor: &Auditor{}}}, items, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Auditors[0]
	for _, c := range []struct {
		name       string
		got, floor float64
	}{
		{"accuracy", a.Accuracy, 0.8}, {"F1", a.F1, 0.8}, {"type accuracy", a.TypeAccuracy, 0.75},
		{"implicit accuracy", a.ImplicitAccuracy, 0.6}, {"format valid", a.FormatValid, 1},
	} {
		if c.got < c.floor {
			t.Errorf("%s %.3f is under the floor %.2f", c.name, c.got, c.floor)
		}
	}
}

// TestRuleAuditorKnownSlotOverrulesScores: every routed pair has a high topic score, so a
// pair the rules can read as unrelated stays unrelated whatever the scores say.
func TestRuleAuditorKnownSlotOverrulesScores(t *testing.T) {
	res, err := (&Auditor{}).Audit(t.Context(), judge.Pair{
		Old:    judge.Record{Text: "I work as an accountant at Deloitte."},
		New:    judge.Record{Text: "My dog Rex loves the beach."},
		Scores: &judge.Scores{A: 0.9, B: 0.1, Gap: 0.8},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status != judge.StatusUnrelated {
		t.Errorf("status %s, want unrelated", res.Verdict.Status)
	}
}
