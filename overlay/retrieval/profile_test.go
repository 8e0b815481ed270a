package retrieval

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProfileQuery(t *testing.T) {
	const (
		cur   = ModeCurrent
		hist  = ModeHistorical
		trans = ModeTransition
		neut  = ModeNeutral
	)
	tests := []struct {
		query     string
		mode      Mode
		confident bool
		has       []string // hints that must be there
		hasNot    []string // hint prefixes that must not be there
	}{
		// The phrasings.
		{"where do I live now?", cur, true, []string{"current:now"}, nil},
		{"where did I live before?", hist, true, []string{"historical:before"}, nil},
		{"where did I use to work?", hist, true, []string{"historical:use to"}, nil},
		{"what was my previous job?", hist, true, []string{"historical:previous"}, nil},
		{"how has my diet changed?", trans, true, []string{"change:how has my diet changed"}, nil},
		{"when did I move to Lisbon?", trans, true, []string{"change:when did i move"}, nil},
		{"do I still have a dog?", cur, true, []string{"current:still"}, nil},
		{"what's my current salary?", cur, true, []string{"current:current"}, nil},
		{"what did I say about my cat last year?", hist, true, []string{"historical:last year"}, nil},
		{"tell me about my hobbies", neut, false, nil, []string{"historical:", "current:", "change:"}},
		{"my former colleague still lives in Paris — where do I live?", cur, false,
			[]string{"guard:person former colleague", "guard:context still", "current:do i"}, []string{"historical:"}},

		// Present state.
		{"Where do I live?", cur, false, []string{"current:do i"}, nil},
		{"What is my job?", cur, false, nil, nil},
		{"What's my latest weight?", cur, true, []string{"current:latest"}, nil},
		{"What are my hobbies these days?", cur, true, []string{"current:these days"}, nil},
		{"Am I still vegetarian?", cur, true, nil, nil},
		{"Is my gym membership still active?", cur, true, nil, nil},
		{"Do I currently have a car?", cur, true, []string{"current:currently"}, nil},
		{"Where do I live nowadays?", cur, true, []string{"current:nowadays"}, nil},
		{"At the moment, what's my job?", cur, true, []string{"current:at the moment"}, nil},
		{"WHERE DO I LIVE NOW???", cur, true, nil, nil},
		{"where’s my current office?", cur, true, []string{"current:where's my"}, nil},
		{"What's my new address?", cur, false, []string{"current:my new"}, nil},
		{"Who is my partner?", cur, false, nil, nil},
		{"What are my hobbies?", cur, false, nil, nil},

		// Past state.
		{"Where did I live?", hist, false, []string{"historical:did i live"}, nil},
		{"What was my job in 2019?", hist, true, []string{"historical:in 2019"}, nil},
		{"Where did I live back then?", hist, true, []string{"historical:back then"}, nil},
		{"What car did I drive when I was a student?", hist, true, []string{"historical:when i was"}, nil},
		{"What did I eat as a kid?", hist, true, []string{"historical:as a kid"}, nil},
		{"What was my first car?", hist, false, []string{"historical:my first"}, nil},
		{"What did I do for a living originally?", hist, true, nil, nil},
		{"What was my address at the time?", hist, true, []string{"historical:at the time"}, nil},
		{"Where did I work two years ago?", hist, true, []string{"historical:ago"}, nil},
		{"What were my hobbies growing up?", hist, true, nil, nil},
		{"In those days, where did I work?", hist, true, []string{"historical:in those days"}, nil},
		{"Remind me what my job was before.", hist, true, nil, nil},
		{"What was my partner's name before we broke up?", hist, true, nil, nil},
		{"Did I ever live in Berlin?", hist, false, []string{"historical:did i ever live"}, nil},
		{"Who was my former boss?", hist, false, []string{"guard:person former boss"}, nil},
		{"Where did I live before I moved to Lisbon?", hist, true, []string{"guard:anchor moved to", "anchor:lisbon"}, []string{"change:"}},
		{"Before I moved, where did I live?", hist, true, []string{"historical:before"}, nil},
		// A "when …" clause dates the state asked about; its change word asks for no change.
		{"Who was my boss when I started in September?", hist, false, []string{"historical:was my", "guard:anchor started"}, []string{"change:"}},
		{"What was the rent when I first moved in?", hist, false, []string{"guard:anchor moved in", "earliest:first"}, []string{"change:"}},
		{"When we switched banks, what was my overdraft?", hist, false, []string{"guard:anchor switched"}, []string{"change:"}},
		{"Which gym did I start at?", hist, false, []string{"earliest:which gym did i start at"}, []string{"change:"}},
		{"Who was the coach Dad hired in the spring?", hist, false, []string{"historical:who was the"}, nil},
		{"Which bakery did we order the cake from?", hist, false, []string{"historical:which bakery did we order"}, nil},
		{"Which hotel did we end up booking?", neut, false, []string{"guard:outcome end"}, []string{"historical:"}},
		{"What was her landlord's name?", hist, false, []string{"historical:what was her"}, nil},

		// Change and both states.
		{"What is my job now, and what was it before?", trans, true, nil, nil},
		{"Where did I live before and where do I live now?", trans, true, nil, nil},
		{"What did I earn last year compared to now?", trans, true, []string{"change:compared to"}, nil},
		{"How has my job evolved over the years?", trans, true, []string{"change:over the years"}, nil},
		{"What changed in my diet?", trans, true, []string{"change:what changed"}, nil},
		{"When did I switch to decaf?", trans, true, nil, nil},
		{"How did my commute change when I moved to Leeds?", trans, true, []string{"guard:anchor moved to"}, nil},
		{"Since when do I live in Lisbon?", trans, true, []string{"change:since when"}, []string{"change:since\x00"}},
		{"How long have I lived in Lisbon?", trans, false, []string{"change:how long have"}, []string{"historical:"}},
		{"When did I start working at Google?", trans, true, nil, nil},
		{"When did I quit smoking?", trans, true, nil, nil},
		{"Did I switch from coffee to tea?", trans, true, []string{"change:switch from coffee to tea"}, nil},
		{"Have I changed jobs?", trans, true, nil, nil},
		{"What's my job history?", trans, true, []string{"change:job history"}, nil},
		{"Did I become a vegan?", trans, true, nil, nil},
		{"Which city did I relocate to?", trans, true, nil, nil},
		{"What was my salary in 2021 and what is it now?", trans, true, nil, nil},
		{"What's the difference between my old job and my new one?", trans, false, []string{"historical:my old job"}, nil},
		{"I moved from Berlin to Lisbon — when was that?", trans, false, []string{"change:moved from berlin to lisbon"}, []string{"guard:context"}},

		// Negation.
		{"I don't live in Berlin anymore", cur, true, []string{"current:anymore"}, []string{"historical:", "change:"}},
		{"I no longer work at Google.", cur, true, []string{"current:no longer"}, nil},
		{"Which job is not the current one?", hist, true, []string{"historical:not current"}, []string{"current:"}},
		{"What was my job, not the current one?", hist, true, nil, []string{"current:"}},
		{"Am I not currently employed?", cur, true, nil, []string{"historical:"}},
		{"Don't call me before 9", neut, false, []string{"guard:time before 9"}, []string{"historical:"}},
		{"Not before I moved.", trans, false, []string{"guard:negated before"}, []string{"historical:"}},
		{"I never go to bed before midnight, do I?", cur, false, []string{"guard:time before midnight"}, []string{"historical:"}},

		// Context clauses.
		{"I used to live in Berlin. Where do I live now?", cur, true, []string{"guard:context used to"}, []string{"historical:"}},
		{"I moved to Lisbon last year, where do I live?", cur, false, []string{"guard:context last year"}, []string{"historical:", "change:"}},
		{"Where does my former colleague live now?", cur, true, []string{"guard:person former colleague"}, []string{"historical:"}},
		{"Is my old friend Tom still in Berlin?", cur, true, []string{"guard:person my old friend"}, []string{"historical:"}},

		// Scope.
		{"Do I only eat meat on weekends?", cur, false, []string{"scope:on weekends"}, nil},
		{"What do I drink at work?", cur, false, []string{"scope:at work"}, nil},
		{"Do I eat fish except on Fridays?", cur, false, []string{"scope:except on fridays"}, []string{"scope:on fridays"}},
		{"What do I eat when travelling?", cur, false, []string{"scope:when travelling"}, nil},
		{"I go to the gym once a week, do I still?", cur, true, []string{"scope:once a week"}, []string{"historical:"}},
		{"Do I play my Switch only on weekends?", cur, false, []string{"scope:only on weekends", "guard:noun my switch"}, []string{"change:"}},

		// Times, routes, nouns and other look-alikes.
		{"Do I work from 9 to 5?", cur, false, []string{"guard:time from 9 to 5"}, []string{"change:"}},
		{"How do I get from home to work?", cur, false, []string{"guard:route from home to work"}, []string{"change:"}},
		{"Where will I live in 2030?", neut, false, []string{"guard:future in 2030"}, nil},
		{"What's my first name?", cur, false, nil, []string{"historical:"}},
		{"How old is my dog?", cur, false, nil, []string{"historical:"}},
		{"What did I tell you about New York?", neut, false, nil, []string{"current:"}},
		{"What's the name of my cat?", neut, false, nil, nil},
		{"Summarize our conversation", neut, false, nil, nil},
		{"What shift do I work?", cur, false, []string{"guard:noun what shift"}, []string{"change:"}},
		{"What do I think about climate change?", cur, false, []string{"guard:noun climate change"}, []string{"change:"}},
		{"I was so moved by the film, what was it called?", hist, false, []string{"guard:feeling so moved"}, []string{"change:"}},
		{"I'm used to the cold, where do I live?", cur, false, []string{"guard:adjective i'm used to"}, []string{"historical:"}},
		{"Did I once live in Rome?", hist, false, []string{"historical:once"}, nil},
		{"What did I have for dinner before the concert?", hist, true, []string{"historical:before"}, nil},
		{"", neut, false, nil, nil},
		{"???", neut, false, nil, nil},
	}
	if len(tests) < 60 {
		t.Fatalf("only %d phrasings; the issue asks for at least 60", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := ProfileQuery(tt.query)
			if p.Mode != tt.mode || p.Confident != tt.confident {
				t.Errorf("mode %s confident %t, want %s %t (counts %+v, hints %q)", p.Mode, p.Confident, tt.mode, tt.confident, p.Counts, p.Hints)
			}
			for _, h := range tt.has {
				if !slices.Contains(p.Hints, h) {
					t.Errorf("hint %q missing from %q", h, p.Hints)
				}
			}
			for _, pre := range tt.hasNot {
				exact := strings.TrimSuffix(pre, "\x00")
				for _, h := range p.Hints {
					if (exact != pre && h == exact) || (exact == pre && strings.HasPrefix(h, pre)) {
						t.Errorf("unexpected hint %q in %q", h, p.Hints)
					}
				}
			}
			checkProfileInvariants(t, p)
		})
	}
}

// checkProfileInvariants holds for every profile: one hint per count, the decision rule
// of ProfileQuery, and a JSON round trip.
func checkProfileInvariants(t *testing.T, p Profile) {
	t.Helper()
	var n [numKinds]int
	for _, h := range p.Hints {
		kind, text, ok := strings.Cut(h, ":")
		if !ok || text == "" {
			t.Errorf("hint %q is not kind:text", h)
		}
		switch kind {
		case "historical":
			n[kindHistorical]++
		case "current":
			n[kindCurrent]++
		case "change":
			n[kindChange]++
		case "scope", "guard", "anchor", "earliest", "period":
		default:
			t.Errorf("hint %q has an unknown kind", h)
		}
	}
	if got := (Counts{Historical: n[kindHistorical], Current: n[kindCurrent], Change: n[kindChange]}); got != p.Counts {
		t.Errorf("counts %+v, hints give %+v", p.Counts, got)
	}
	h, c, x := p.Counts.Historical, p.Counts.Current, p.Counts.Change
	var want Mode
	switch {
	case x > 0 && x >= h && x >= c, h > 0 && c > 0:
		want = ModeTransition
	case h > 0:
		want = ModeHistorical
	case c > 0:
		want = ModeCurrent
	case p.Earliest:
		want = ModeHistorical
	default:
		want = ModeNeutral
	}
	if p.Mode != want {
		t.Errorf("mode %s, the counts %+v give %s", p.Mode, p.Counts, want)
	}
	if p.Mode == ModeNeutral && p.Confident {
		t.Error("a neutral profile is confident")
	}
	if p.Unsure() != (p.Mode == ModeNeutral || !p.Confident) {
		t.Error("Unsure disagrees with mode and confidence")
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("marshal profile: %v", err)
	}
	var back Profile
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("unmarshal profile: %v", err)
	}
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

func TestProfileJSON(t *testing.T) {
	b, err := json.Marshal(ProfileQuery("where did I live before?"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mode":"historical","counts":{"historical":2,"current":0,"change":0},"hints":["historical:did i live","historical:before"],"confident":true}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, err = json.Marshal(ProfileQuery("tell me about my hobbies"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mode":"neutral","counts":{"historical":0,"current":0,"change":0},"hints":[],"confident":false}`; string(b) != want {
		t.Errorf("neutral profile: got %s, want %s (hints must be [], not null)", b, want)
	}
}

func TestProfileDeterministic(t *testing.T) {
	q := "My former colleague still lives in Paris, but where did I live before I moved to Lisbon, and what changed since?"
	first := ProfileQuery(q)
	for range 20 {
		if diff := cmp.Diff(first, ProfileQuery(q)); diff != "" {
			t.Fatalf("profiles differ (-first +again):\n%s", diff)
		}
	}
}

func TestProfileLongQuery(t *testing.T) {
	// A pasted document is cut at maxQueryBytes, even in the middle of a rune.
	q := "x" + strings.Repeat("é", maxQueryBytes) + " where do I live now?"
	p := ProfileQuery(q)
	if p.Mode != ModeNeutral {
		t.Errorf("cues past the first %d bytes counted: %+v", maxQueryBytes, p)
	}
	checkProfileInvariants(t, p)
}

func TestModeValid(t *testing.T) {
	for _, m := range Modes {
		if !m.Valid() {
			t.Errorf("%q is not valid", m)
		}
	}
	for _, m := range []Mode{"", "Current", "past"} {
		if m.Valid() {
			t.Errorf("%q is valid", m)
		}
	}
}

func TestProfileOrder(t *testing.T) {
	tests := []struct {
		query    string
		mode     Mode
		anchor   []string
		earliest bool
	}{
		{"what did I drink before I switched to cortado?", ModeHistorical, []string{"cortado"}, false},
		{"What was my job right before I became a carpenter?", ModeHistorical, []string{"carpenter"}, false},
		{"where did I live before I moved to Lisbon?", ModeHistorical, []string{"lisbon"}, false},
		{"what camera did i have before i upgraded?", ModeHistorical, []string{"upgraded"}, false},
		{"before the promotion, what was my title?", ModeHistorical, []string{"promotion"}, false},
		{"where did I live before?", ModeHistorical, nil, false},
		{"where did I live before and where do I live now?", ModeTransition, nil, false},
		{"what did I eat before noon?", ModeHistorical, nil, false},
		{"how did my diet change before the diagnosis?", ModeTransition, []string{"diagnosis"}, false},
		{"What was my first job?", ModeHistorical, nil, true},
		{"who was my very first boss?", ModeHistorical, nil, true},
		{"what was the original deadline for the grant?", ModeHistorical, nil, true},
		{"which hotel did i book first?", ModeHistorical, nil, true},
		{"where were we originally going to land?", ModeHistorical, nil, true},
		{"what day were the lessons when we first signed up?", ModeHistorical, nil, true},
		{"where were we going to go when the first place sold out?", ModeHistorical, nil, false},
		{"what's my first name?", ModeCurrent, nil, false},
		{"where did I do first aid training?", ModeHistorical, nil, false},
		{"who was my boss on the first of july?", ModeHistorical, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := ProfileQuery(tt.query)
			if p.Mode != tt.mode {
				t.Errorf("mode %s, want %s (hints %q)", p.Mode, tt.mode, p.Hints)
			}
			if diff := cmp.Diff(tt.anchor, p.Anchor); diff != "" {
				t.Errorf("anchor (-want +got):\n%s", diff)
			}
			if p.Earliest != tt.earliest {
				t.Errorf("earliest %t, want %t (hints %q)", p.Earliest, tt.earliest, p.Hints)
			}
			if p.Anchor != nil && !slices.Contains(p.Hints, "anchor:"+strings.Join(p.Anchor, " ")) {
				t.Errorf("hints %q lack the anchor", p.Hints)
			}
		})
	}
}

func TestProfilePeriod(t *testing.T) {
	for q, want := range map[string]string{
		"what was I playing in april?":                      "april",
		"who was my main client back in june?":              "june",
		"what was my thing over the summer, exercise-wise?": "summer",
		"who was i going out with last autumn":              "autumn",
		"which gym did I use in the fall?":                  "autumn",
		"what was my rent in sept?":                         "september",
		"what dose was i on over winter before the switch":  "winter",
		"may I ask where I lived before?":                   "",
		"this may sound odd, but where did I live before?":  "",
		"what was I doing back in may?":                     "may",
		"this may sound odd, but what did I drink in june?": "june",
		"where do I live now?":                              "",
		"what did I have for lunch in the office?":          "",
	} {
		p := ProfileQuery(q)
		if p.Period != want {
			t.Errorf("%q: period %q, want %q", q, p.Period, want)
		}
		if want != "" && !slices.Contains(p.Hints, "period:"+want) {
			t.Errorf("%q: hints %q lack the period", q, p.Hints)
		}
	}
}

// periodEnd reads a month or a season in the latest year it began before the newest
// record.
func TestPeriodEnd(t *testing.T) {
	for _, tt := range []struct {
		period, ref, want string
	}{
		{"april", "2025-09-10", "2025-05-01"},
		{"april", "2026-02-01", "2025-05-01"},
		{"september", "2025-09-10", "2025-10-01"},
		{"summer", "2025-09-10", "2025-09-01"},
		{"winter", "2025-01-15", "2025-03-01"},
		{"winter", "2025-06-15", "2025-03-01"},
		{"winter", "2025-12-20", "2026-03-01"},
	} {
		end, ok := periodEnd(tt.period, day(tt.ref))
		if !ok || !end.Equal(day(tt.want)) {
			t.Errorf("%s read on %s: %v %t, want %s", tt.period, tt.ref, end, ok, tt.want)
		}
	}
	if _, ok := periodEnd("", day("2025-01-01")); ok {
		t.Error("no period has an end")
	}
}

func TestHostQuery(t *testing.T) {
	for q, want := range map[string]string{
		"Where do I live now?":                      "Where do I live?",
		"which course am I on these days?":          "which course am I on?",
		"What did I used to drink?":                 "What did I drink?",
		"Do I still have the Golf?":                 "Do I have the Golf?",
		"Where did I live before I moved to Porto?": "Where did I live before I moved to Porto?",
		"now?":      "now?",
		"still now": "still now",
	} {
		if got := HostQuery(q); got != want {
			t.Errorf("HostQuery(%q) = %q, want %q", q, got, want)
		}
	}
}
