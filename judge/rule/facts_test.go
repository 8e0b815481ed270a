package rule

import (
	"strings"
	"testing"

	fx "github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
)

func TestDecideFacts(t *testing.T) {
	home := func(v string) fx.Fact { return fx.Fact{Subject: "user", Attribute: "home", Value: v} }
	pet := func(v string, neg bool) fx.Fact {
		return fx.Fact{Subject: "user", Attribute: "pet", Value: v, Negated: neg}
	}
	tests := []struct {
		name     string
		old, new fx.Fact
		text     string
		status   judge.Status
		ctype    judge.ConflictType
		action   judge.Action
		summary  string
	}{
		{"another home", home("Lisbon"), home("Porto"), "the movers came, first night in porto", judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition, "home: Lisbon -> Porto"},
		{"a restatement", home("Porto"), home("the Porto flat"), "still loving the porto flat", judge.StatusConsistent, judge.TypeNone, judge.ActionKeep, ""},
		{"a correction", fx.Fact{Subject: "user", Attribute: "commute-minutes", Value: "14"}, fx.Fact{Subject: "user", Attribute: "commute-minutes", Value: "40"},
			"sorry, I meant 40, not 14", judge.StatusConflict, judge.TypeValueDiscrepancy, judge.ActionSupersede, "commute-minutes: 14 -> 40"},
		{"a second pet", pet("Miso", false), pet("Biscuit", false), "and a puppy too", judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist, ""},
		{"a pet given away", pet("Miso", false), pet("Miso", true), "we had to rehome miso", judge.StatusConflict, judge.TypeExplicitNegation, judge.ActionSupersede, "pet: Miso -> no Miso"},
		{"another pet denied", pet("Biscuit", false), pet("Miso", true), "we had to rehome miso", judge.StatusConsistent, judge.TypeNone, judge.ActionKeep, ""},
		{"taken up again", fx.Fact{Subject: "user", Attribute: "subscription", Value: "Netflix", Negated: true}, fx.Fact{Subject: "user", Attribute: "subscription", Value: "Netflix"},
			"caved and resubscribed to netflix", judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition, "subscription: Netflix -> Netflix"},
		{"a scope", fx.Fact{Subject: "user", Attribute: "standup-time", Value: "9:30"}, fx.Fact{Subject: "user", Attribute: "standup-time", Value: "11", Scope: "on fridays"},
			"on fridays standup is at 11", judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionScopedException, "standup-time: 9:30 -> 11"},
		// The same activity under a narrower scope from now on changes the rule itself;
		// without a word of the present it is an exception beside the rule.
		{"narrowed from now on", fx.Fact{Subject: "marta", Attribute: "hobby", Value: "bake bread"}, fx.Fact{Subject: "marta", Attribute: "hobby", Value: "bake bread", Scope: "at christmas"},
			"marta only bakes bread at christmas these days", judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionSupersede, "marta's hobby: bake bread -> bake bread"},
		{"still, but narrowed", fx.Fact{Subject: "user", Attribute: "exercise", Value: "row"}, fx.Fact{Subject: "user", Attribute: "exercise", Value: "row", Scope: "when the river is calm"},
			"I still row, but only when the river is calm", judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionSupersede, "exercise: row -> row"},
		// A scope said in passing, with no word that narrows, changes no rule.
		{"a scope in passing", fx.Fact{Subject: "nate", Attribute: "hobby", Value: "video games"}, fx.Fact{Subject: "nate", Attribute: "hobby", Value: "video games", Scope: "when I need to unwind"},
			"playing video games still helps me when I need to unwind", judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionScopedException, "nate's hobby: video games -> video games"},
		{"an exception of the same value", fx.Fact{Subject: "user", Attribute: "exercise", Value: "row"}, fx.Fact{Subject: "user", Attribute: "exercise", Value: "row", Scope: "on holiday"},
			"on holiday I row only at dawn", judge.StatusConflict, judge.TypeScopeMismatch, judge.ActionScopedException, "exercise: row -> row"},
		{"the old value named as wrong", fx.Fact{Subject: "user", Attribute: "rent", Value: "£1025"}, fx.Fact{Subject: "user", Attribute: "rent", Value: "£1000"},
			"graham backed down, it's £1000 not 1025", judge.StatusConflict, judge.TypeValueDiscrepancy, judge.ActionSupersede, "rent: £1025 -> £1000"},
		// The rule said again after its exception stands beside it.
		{"the rule beside its exception", fx.Fact{Subject: "user", Attribute: "payday", Value: "the 18th", Scope: "except december"}, fx.Fact{Subject: "user", Attribute: "payday", Value: "25th"},
			"new contract, payday is still the 25th", judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist, ""},
		// One slot's name, two things measured: a day rate in money, a pension in percent.
		{"amounts of different units", fx.Fact{Subject: "user", Attribute: "rate", Value: "£450"}, fx.Fact{Subject: "user", Attribute: "rate", Value: "5%"},
			"upped the pension to 5%", judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist, ""},
		{"amounts of one unit", fx.Fact{Subject: "user", Attribute: "rate", Value: "£450"}, fx.Fact{Subject: "user", Attribute: "rate", Value: "£500"},
			"day rate's £500 from june", judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition, "rate: £450 -> £500"},
		{"someone else's", fx.Fact{Subject: "sister", Attribute: "home", Value: "Leeds"}, fx.Fact{Subject: "sister", Attribute: "home", Value: "York"},
			"my sister moved to york", judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition, "sister's home: Leeds -> York"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := judge.Pair{Old: judge.Record{Text: "old", Facts: []fx.Fact{tt.old}}, New: judge.Record{Text: tt.text, Facts: []fx.Fact{tt.new}}}
			res, err := (&Auditor{}).Audit(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			v := res.Verdict
			if v.Status != tt.status || v.ConflictType != tt.ctype || v.Action != tt.action || v.TransitionSummary != tt.summary {
				t.Errorf("verdict %s/%s/%s %q, want %s/%s/%s %q", v.Status, v.ConflictType, v.Action, v.TransitionSummary, tt.status, tt.ctype, tt.action, tt.summary)
			}
			if err := v.Validate(); err != nil {
				t.Errorf("invalid verdict: %v", err)
			}
			if _, err := judge.ParseStrict(res.Raw); err != nil {
				t.Errorf("the rendering does not parse: %v\n%s", err, res.Raw)
			}
			if !strings.Contains(res.Steps.Slot, tt.new.Slot()) {
				t.Errorf("steps do not name the slot: %+v", res.Steps)
			}
		})
	}
	// A restatement by the facts that the sentence denies or narrows: the sentence wins.
	rex := fx.Fact{Subject: "user", Attribute: "pet", Value: "Rex"}
	for text, want := range map[string]judge.ConflictType{
		"I gave Rex to my sister, so I don't have a dog anymore.": judge.TypeExplicitNegation,
		"I still walk Rex every morning.":                         judge.TypeNone,
	} {
		_, v := (&Auditor{}).Decide(judge.Pair{Old: judge.Record{Text: "I have a dog named Rex.", Facts: []fx.Fact{rex}}, New: judge.Record{Text: text, Facts: []fx.Fact{rex}}})
		if v.ConflictType != want {
			t.Errorf("%q: %s/%s, want %s", text, v.Status, v.ConflictType, want)
		}
	}
	// Shared words and a negation somewhere in one text do not deny what the facts read
	// as the same value: the slot is not one the sentence rules know.
	dish := fx.Fact{Subject: "user", Attribute: "food", Value: "ramen"}
	for old, text := range map[string]string{
		"that ramen place near the station looks amazing":             "ramen is the best! don't knock it till you've tried it",
		"can't believe how good the ramen was, no regrets at all":     "the ramen was great again, now I want dessert",
		"we're keeping dinner simple tonight, just ramen and a salad": "yeah the ramen was lovely, but check out the cake I had after",
	} {
		_, v := (&Auditor{}).Decide(judge.Pair{Old: judge.Record{Text: old, Facts: []fx.Fact{dish}}, New: judge.Record{Text: text, Facts: []fx.Fact{dish}}})
		if v.Status != judge.StatusConsistent {
			t.Errorf("%q after %q: %s/%s, want a restatement", text, old, v.Status, v.ConflictType)
		}
	}
	// Facts of different slots leave the pair to the sentence rules.
	p := judge.Pair{Old: judge.Record{Text: "I live in Berlin.", Facts: []fx.Fact{home("Berlin")}}, New: judge.Record{Text: "I moved to Lisbon last month.", Facts: []fx.Fact{{Subject: "sister", Attribute: "home", Value: "Lisbon"}}}}
	_, v := (&Auditor{}).Decide(p)
	_, sentence := (&Auditor{}).Decide(judge.Pair{Old: judge.Record{Text: p.Old.Text}, New: judge.Record{Text: p.New.Text}})
	if v.Status != sentence.Status || v.Action != sentence.Action {
		t.Errorf("no shared slot: %+v, want the sentence rules' %+v", v, sentence)
	}
}

// A memory that ends the old value and names the next one is a change to the next one,
// whichever of its facts comes first.
func TestSharedSlotPrefersTheNextValue(t *testing.T) {
	doc := func(v string, neg bool) fx.Fact {
		return fx.Fact{Subject: "user", Attribute: "doctor", Value: v, Negated: neg}
	}
	for _, new := range [][]fx.Fact{{doc("Marek", true), doc("Sunita", false)}, {doc("Sunita", false), doc("Marek", true)}} {
		p := judge.Pair{Old: judge.Record{Text: "my physio is Marek", Facts: []fx.Fact{doc("Marek", false)}},
			New: judge.Record{Text: "marek's gone on leave, so i'm seeing Sunita now", Facts: new}}
		_, v := (&Auditor{}).Decide(p)
		if v.Action != judge.ActionTransition || v.TransitionSummary != "doctor: Marek -> Sunita" {
			t.Errorf("facts %v: %s %q, want transition doctor: Marek -> Sunita", new, v.Action, v.TransitionSummary)
		}
	}
}
