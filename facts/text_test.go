package facts

import (
	"slices"
	"testing"
	"time"
)

func TestSubject(t *testing.T) {
	tests := []struct {
		name, text, self, last string
		want, role             string
	}{
		{"first person", "i just moved to a flat near the docks", "user", "", "user", ""},
		{"speaker's first person", "we adopted a greyhound", "wendel", "", "wendel", ""},
		{"relation", "my cousin works night shifts at the depot", "user", "", "cousin", ""},
		{"relation with a name", "my flatmate oskar is vegan these days", "user", "", "oskar", ""},
		{"capitalised name", "Mirela started at the bakery on Monday", "user", "", "mirela", ""},
		{"a doctor's title and a name, said to be someone", "Dr Mbeki is my advisor from september", "user", "", "dr-mbeki", ""},
		{"a doctor acting on the speaker's state", "Dr Achterberg has added a steroid inhaler", "user", "", "user", ""},
		{"a thing said to be an amount", "Parking is £6.50 a day at the new site", "user", "", "user", ""},
		{"one said to be an age", "Ruby is 7 next week", "user", "", "ruby", ""},
		{"a form of address before a first name", "Tita Baby moved to Quezon City", "user", "", "baby", ""},
		{"a German title and a surname", "Frau Keller has retired", "user", "", "frau-keller", ""},
		{"lower-case name", "kwame moved to glasgow for his phd", "user", "", "kwame", ""},
		{"possessive name", "bilal's car got towed again", "user", "", "bilal", ""},
		{"possessive chain", "dana's brother felix is a chef in rome", "user", "", "felix", ""},
		{"role is the user's", "my boss is a guy called Ferdinand", "user", "", "user", "manager"},
		{"new role", "new landlady is Mrs Achebe from downstairs", "user", "", "user", "landlord"},
		{"pronoun", "she's switched to the night team", "user", "petra", "petra", ""},
		{"pronoun without referent: unresolved, not the speaker", "he said yes", "user", "", "", ""},
		{"described group", "the design team is moving to figma", "user", "", "design-team", ""},
		{"project", "the project got paused until spring", "user", "", "project", ""},
		{"reported speech", "my aunt says dad's back on the night bus", "user", "", "dad", ""},
		{"me and my partner", "me and my wife Ulla rent a cottage in cork", "user", "", "user", ""},
		{"parents", "mum and dad live in a bungalow now", "user", "", "parents", ""},
		{"typo and shouting", "ALSO i finaly got a bike lol", "user", "", "user", ""},
		{"a role of two words", "my squash partner is a guy called Idris", "user", "", "user", "squash-partner"},
		{"a two-word role that is a relation", "my desk buddy moved to the london office", "user", "", "friend", ""},
		{"a time opens the clause", "back in june my cousin moved to the coast", "user", "", "cousin", ""},
		{"a day opens the clause", "on friday Mirela quit the bakery", "user", "", "mirela", ""},
		{"weeks ago", "three weeks ago my aunt got a new job", "user", "", "aunt", ""},
		{"a year opens the clause", "in 2021 we bought the flat", "user", "", "user", ""},
		{"someone places the speaker", "the consultant has moved me onto a lower dose", "user", "", "user", ""},
		{"someone places the speaker, possessive", "priya's signed us up for the tuesday quiz league", "user", "", "user", ""},
		{"placed by a pronoun", "he's put me in charge of the rota", "user", "kofi", "user", ""},
		{"a gift is not a placing", "my uncle got me a bike for christmas", "user", "", "uncle", ""},
		{"the speaker placing another", "i moved him to the back row", "user", "nils", "user", ""},
		{"a new holder of a role", "new flatmate bea moved in today", "user", "", "user", "flatmate"},
		{"a new holder of my role", "my new landlord Ferris starts collecting rent in may", "user", "", "user", "landlord"},
		{"an old holder's own fact", "my flatmate ben plays chess at 1800", "user", "", "ben", ""},
		{"a number written out is no name", "zero regrets about selling the van", "user", "", "user", ""},
		{"a number written out opens the clause", "twenty minutes on the bike to my office now", "user", "", "user", ""},
		{"a number of people", "three of us share the flat on mill road", "user", "", "user", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &people{last: tt.last}
			got, _, role := p.subject(tokenize(tt.text), tt.self)
			if got != tt.want || role != tt.role {
				t.Errorf("subject(%q) = %q role %q, want %q role %q", tt.text, got, role, tt.want, tt.role)
			}
		})
	}
}

func TestEntityIsRemembered(t *testing.T) {
	p := &people{}
	if got, _, _ := p.subject(tokenize("the monthly budget review is on thursdays"), "user"); got != "user" {
		t.Fatalf("no entity head: %q", got)
	}
	if got, _, _ := p.subject(tokenize("weekly design sync is at 4"), "user"); got != "design-sync" {
		t.Fatalf("first mention: %q", got)
	}
	if got, _, _ := p.subject(tokenize("the sync moved to friday"), "user"); got != "design-sync" {
		t.Errorf("the sync: %q, want the design-sync named before", got)
	}
}

func TestSpeakerPrefix(t *testing.T) {
	tests := []struct {
		name, text, speaker, wantText, wantSpeaker string
	}{
		{"prefix", "Wendel: we got a dog", "", "we got a dog", "Wendel"},
		{"matching speaker", "Wendel: we got a dog", "wendel", "we got a dog", "Wendel"},
		{"other speaker", "Ivo: we got a dog", "Wendel", "Ivo: we got a dog", "Wendel"},
		{"not a name", "Update: the flat fell through", "", "Update: the flat fell through", ""},
		{"none", "we got a dog", "", "we got a dog", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, sp := splitSpeaker(tt.text, tt.speaker)
			if text != tt.wantText || sp != tt.wantSpeaker {
				t.Errorf("got %q, %q", text, sp)
			}
		})
	}
}

func TestQuestion(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"how do i descale a kettle?", true},
		{"whats the best bus to the airport?", true},
		{"my knee clicks when i squat, is that bad?", true},
		{"red or green for the hallway?", true},
		{"i got the job??", false},
		{"i'm moving to oslo.", false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			ss := sentences(tt.text)
			got := false
			for _, s := range ss {
				got = got || s.question
			}
			if got != tt.want {
				t.Errorf("question(%q) = %v", tt.text, got)
			}
		})
	}
}

func TestNegatedScopeEventTime(t *testing.T) {
	now := time.Date(2026, 5, 20, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		text    string
		negated bool
		scope   string
		event   string
	}{
		{"we sold the motorbike", true, "", ""},
		{"i don't eat pork anymore", true, "", ""},
		{"tariq and i split up", true, "", ""},
		{"i quit the choir, i'm in a band now", false, "", ""},
		{"i walk to work except on rainy days", false, "except on rainy days", ""},
		{"i only drink wine when i travel", false, "when i travel", ""},
		{"gym on tuesdays", false, "on tuesdays", ""},
		{"my uncle moved into the bungalow on sunday", false, "", ""},
		{"the pool's shut on sunday", false, "on sunday", ""},
		{"back in february i started at the library", false, "", "2026-02"},
		{"since october i've been in leeds", false, "", "2025-10"},
		{"the fee goes up from july", false, "", "2026-07"},
		{"my landlord says rent goes up to 1,450 in june", false, "", "2026-06"},
		{"the new timetable starts in september", false, "", "2026-09"},
		{"we'll be in lisbon in august", false, "", "2026-08"},
		{"we were in lisbon in august", false, "", "2025-08"},
		{"i moved last month", false, "", "2026-04"},
		{"back in early march the scan was clear", false, "", "2026-03"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := negated(tt.text); got != tt.negated {
				t.Errorf("negated = %v", got)
			}
			if got := scope(tt.text); got != tt.scope {
				t.Errorf("scope = %q, want %q", got, tt.scope)
			}
			got := ""
			if e := eventTime(tt.text, now); !e.IsZero() {
				got = e.Format("2006-01")
			}
			if got != tt.event {
				t.Errorf("event time = %q, want %q", got, tt.event)
			}
		})
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		name, attr, text, want string
	}{
		{"money with unit", "price", "the plan is now 18.50 a month", "18.50"},
		{"rent with sign", "rent", "rent went up to £980", "£980"},
		{"not a year", "price", "since 2019 it has cost 45 a month", "45"},
		{"clock", "meeting-time", "retro is at 4:15 on fridays", "4:15"},
		{"am pm", "meeting-time", "the sync moved to 11am", "11am"},
		{"date", "deadline", "the essay is due april 9th", "april 9th"},
		{"days", "schedule", "recycling goes out on mondays", "mondays"},
		{"place after in", "home", "i live in Tbilisi now", "Tbilisi"},
		{"lower-case place", "home", "moved to porto last week", "porto"},
		{"called", "pet", "we got a hamster called Noodle", "Noodle"},
		{"lower-case name", "manager", "my manager is ruth", "ruth"},
		{"phone number", "phone-number", "her number is 07700 900417", "07700 900417"},
		{"email", "email", "my email is kit@example.org now", "kit@example.org"},
		{"address", "address", "we're at 12 mill road", "12 mill road"},
		{"no number", "rent", "rent is a nightmare", ""},
		// The verbs that open a phrase are not its value.
		{"past the verb and particle", "job", "finally got bumped up to lead sound engineer yesterday", "lead sound engineer"},
		{"past a light verb", "course", "she's off to do architecture in the autumn", "architecture"},
		{"a verb with nothing after it", "course", "signing up", ""},
		{"the side supported", "sports-team", "has decided she supports hibs totally to annoy me", "hibs"},
		{"the side supported, capitalised", "sports-team", "we support Crystal Palace, obviously", "Crystal Palace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := attributeByName(tt.attr)
			if !ok {
				t.Fatalf("no attribute %s", tt.attr)
			}
			ts := tokenize(tt.text)
			p := &people{}
			_, rest, role := p.subject(ts, "user")
			if got := value(a, rest, ts, role); got != tt.want {
				t.Errorf("value = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKebabAndSlot(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Mobile Team", "mobile-team"}, {"phone_number", "phone-number"}, {"Tomás", "tomas"}, {"Thảo", "thao"}, {"Nguyễn Đức", "nguyen-duc"}, {"Søren", "soren"}, {"O'Brien", "obrien"}, {"  --x--  ", "x"}, {"mobile-team", "mobile-team"},
	}
	for _, tt := range tests {
		if got := Kebab(tt.in); got != tt.want || Kebab(got) != got {
			t.Errorf("Kebab(%q) = %q, want %q (and stable)", tt.in, got, tt.want)
		}
	}
	if s := (Fact{Subject: "Theo", Attribute: "Hobby"}).Slot(); s != "theo/hobby" {
		t.Errorf("slot %q", s)
	}
}

func TestSingleValued(t *testing.T) {
	for attr, want := range map[string]bool{"home": true, "employer": true, "manager": true, "partner": true, "pet": false, "hobby": false, "language": false, "allergy": false, "subscription": false, "standup-time": true, "research-tool": false, "dog-pets": false} {
		if got := SingleValued(attr); got != want {
			t.Errorf("SingleValued(%q) = %v, want %v", attr, got, want)
		}
	}
}

// A value read by meaning that has the shape of a clause names no thing.
func TestVerbal(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want bool
	}{
		{"canal boat", false},
		{"lead sound engineer", false},
		{"the Ashdown building", false},
		{"wedding venue", false},
		{"McGee's bar", false},
		{"gluten-free", false},
		{"anything", false},
		{"advanced pottery course", false},
		{"Since", true},
		{"Thursday", true},
		{"others", true},
		{"hoping", true},
		{"polished my bike", true},
		{"cleaning it", true},
		{"something I've wanted", true},
		{"haven't started", true},
		{"scooter broke down", true},
		{"van parked", true},
		{"bigger soon", true},
		{"visit", true},
	} {
		if got := verbal(tt.v); got != tt.want {
			t.Errorf("verbal(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestShapeless(t *testing.T) {
	for _, tt := range []struct {
		f     Fact
		cased bool
		want  bool
	}{
		{Fact{Attribute: "project", Value: "polished my bike", Confidence: 0.6}, false, true},
		// Read from the clause's form: its shape was checked by the rule.
		{Fact{Attribute: "project", Value: "polished my bike"}, false, false},
		// An activity is a verb phrase by nature.
		{Fact{Attribute: "hobby", Value: "polishing old bikes", Confidence: 0.6}, false, false},
		// A typed value is read by pattern.
		{Fact{Attribute: "meeting-time", Value: "9:30", Confidence: 0.6}, true, false},
		// In text with capitals, a place in lower case is no place; in lower-case chat it may be.
		{Fact{Attribute: "home", Value: "sofa", Confidence: 0.6}, true, true},
		{Fact{Attribute: "home", Value: "Tromsø", Confidence: 0.6}, true, false},
		{Fact{Attribute: "home", Value: "tromsø", Confidence: 0.6}, false, false},
		{Fact{Attribute: "car", Value: "estate car", Confidence: 0.6}, true, false},
		// A name whose last word ends in -ed is still a name; a clause is not.
		{Fact{Attribute: "sports-team", Value: "Leeds United", Confidence: 0.6}, true, false},
		{Fact{Attribute: "employer", Value: "laptop crashed", Confidence: 0.6}, false, true},
		// Capitals do not make a clause a name.
		{Fact{Attribute: "employer", Value: "Since I", Confidence: 0.6}, true, true},
		{Fact{Attribute: "carer", Value: "It`s Susie", Confidence: 0.6}, true, true},
		{Fact{Attribute: "employer", Value: "After", Confidence: 0.6}, true, true},
	} {
		if got := shapeless(tt.f, tt.cased); got != tt.want {
			t.Errorf("shapeless(%s = %q, cased %t) = %v, want %v", tt.f.Attribute, tt.f.Value, tt.cased, got, tt.want)
		}
	}
}

func TestCased(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"We finally moved. The new place in Tromsø is tiny!", true},
		{"Honestly I think the bakery job suits me.", true},
		{"so... I switched to the night bus", false},
		{"i moved to tromsø last week", false},
		{"Got the keys today. i can't believe it", false},
		{"", false},
	} {
		if got := cased(tt.text); got != tt.want {
			t.Errorf("cased(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// A verb that opens a clause is no name, capital or not.
func TestVerbOpensNoSubject(t *testing.T) {
	var p people
	for _, tt := range []struct{ text, want string }{
		{"Repainting boats is my therapy", "user"},
		{"Excited to see the new flat tomorrow", "user"},
		{"Look at the view from my balcony", "user"},
		{"Ahmed moved to Dundee", "ahmed"},
		{"Odette works at the bakery", "odette"},
	} {
		if subj, _, _ := p.subject(tokenize(tt.text), "user"); subj != tt.want {
			t.Errorf("%q: subject %q, want %q", tt.text, subj, tt.want)
		}
	}
}

// "<name> is my <label>" states the speaker's attribute, with the name as its value.
func TestOwnedAs(t *testing.T) {
	tests := []struct{ text, attr, value string }{
		{"dana is my new manager", "manager", "dana"},
		{"Helga is my GP now", "doctor", "Helga"},
		{"jess is my emergency contact while tom's away", "contact", "jess"},
		{"Greenway Dental is my dentist now", "doctor", "Greenway Dental"},
		{"Marisol is my running partner", "running-partner", "Marisol"},
		{"carol is my study buddy this term", "study-buddy", "carol"},
		{"kombucha is my new favourite", "favourite", "kombucha"},
		{"lando's still my fave", "favourite", "lando"},
		{"valtteri bottas is my guy", "guy", "valtteri bottas"},
		{"ines really is my rock", "", ""},
		{"ella was my manager at the bank", "", ""},
		{"tom is my brother", "", ""},
		{"spurs are my team, always have been", "", ""},
		{"oat milk is my enemy", "", ""},
		{"Dance is my passion", "", ""},
		{"Games are my go-to when I'm stressed", "", ""},
		{"this is my life now", "", ""},
		{"she is my rock", "", ""},
		{"Dr Mbeki is my advisor from september", "supervisor", "Dr Mbeki"},
		{"Priya is our new landlord", "landlord", "Priya"},
	}
	for _, tt := range tests {
		ts := tokenize(tt.text)
		p := &people{last: "ines"}
		subj, rest, role := p.subject(ts, "user")
		a, v := ownedAs(clause{toks: ts, subj: subj, rest: rest, role: role})
		if a != tt.attr || v != tt.value {
			t.Errorf("ownedAs(%q) = %q, %q; want %q, %q", tt.text, a, v, tt.attr, tt.value)
		}
	}
}

// The start of a state: what follows "first week of/at/in" is its value.
func TestBeginning(t *testing.T) {
	tests := []struct{ text, value, prep string }{
		{"first week of law done and the reading list is long", "law", "of"},
		{"day one of the northcode full-stack bootcamp", "northcode full-stack bootcamp", "of"},
		{"first week in glasgow was brutal", "glasgow", "in"},
		{"first day at Oakfield Primary for leo", "Oakfield Primary", "at"},
		{"first semester at uni finished", "uni", "at"},
		{"first time I tried sushi", "", ""},
		{"my first week was a blur", "", ""},
	}
	for _, tt := range tests {
		x, prep := beginning(tokenize(tt.text))
		if join(x) != tt.value || prep != tt.prep {
			t.Errorf("beginning(%q) = %q, %q; want %q, %q", tt.text, join(x), prep, tt.value, tt.prep)
		}
	}
}

// A one-word value of a slot that names no person is no one's name when it opens a
// clause; a person's value still is.
func TestThingIsNoName(t *testing.T) {
	for _, tt := range []struct{ text, want, last string }{
		{"medicine was breaking her", "zara", "zara"}, // her: the one named before, not "medicine"
		{"leeds is massive", "user", "zara"},
		{"dana moved to the london office", "dana", "dana"},
		{"kwame moved to glasgow", "kwame", "kwame"},
	} {
		p := &people{last: "zara"}
		p.knowThings(map[string][]string{"zara/job": {"medicine"}, "user/home": {"leeds"}, "user/manager": {"dana"}})
		if got, _, _ := p.subject(tokenize(tt.text), "user"); got != tt.want {
			t.Errorf("subject(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if p.last != tt.last {
			t.Errorf("%q: the last person named is %q, want %q", tt.text, p.last, tt.last)
		}
	}
}

// Words read as a scope that hold the fact's value are its phrase, not a condition.
func TestScopeHoldsNoValue(t *testing.T) {
	for _, tt := range []struct{ clause, value, want string }{
		{"signing up for the google data analytics certificate instead", "google data analytics certificate", ""},
		{"i only drink wine when i travel", "wine", "when i travel"},
		{"we're doing the tasting menu for the kids", "tasting menu", "for the kids"},
		// "for the" + a purpose is no condition; a time or people it holds for is one.
		{"handed over to Dr Hughes for the dissertation", "Dr Hughes", ""},
		{"renting a car for the summer", "car", "for the summer"},
	} {
		if got := scopeOf(tt.clause, tt.value); got != tt.want {
			t.Errorf("scopeOf(%q, %q) = %q, want %q", tt.clause, tt.value, got, tt.want)
		}
	}
}

// Chat ends a sentence with an emoticon or an emoji as with a full stop; a time's colon
// ends none.
func TestSentenceEnds(t *testing.T) {
	for text, want := range map[string][]string{
		"ben moved out :( new flatmate is chloe":    {"ben moved out", "new flatmate is chloe"},
		"finally moved in :) the flat is tiny":      {"finally moved in", "the flat is tiny"},
		"BOUGHT IT 🥳 typing this on the new laptop": {"BOUGHT IT", "typing this on the new laptop"},
		"it's done ✅ next up the garden":            {"it's done", "next up the garden"},
		"standup moved to 9:30 from monday":         {"standup moved to 9:30 from monday"},
	} {
		var got []string
		for _, s := range sentences(text) {
			got = append(got, s.text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("sentences(%q) = %q, want %q", text, got, want)
		}
	}
}

// A sentence in capitals throughout is read in lower case; an acronym, a word alone and
// a sentence with any lower case keep their capitals.
func TestUnshout(t *testing.T) {
	wantEach(t, "unshout", unshout, map[string]string{
		"POPPY HAS SWITCHED TO ARSENAL. took her to the emirates": "poppy has switched to arsenal. took her to the emirates",
		"I GOT IT!!! senior data engineer from July":              "i got it!!! senior data engineer from July",
		"my GP at the NHS moved me to Dr Chen":                    "my GP at the NHS moved me to Dr Chen",
		"KEYS!!! we own a house":                                  "KEYS!!! we own a house",
		"OK":                                                      "OK",
	})
}

// One value said in the singular and the plural is one value.
func TestSameValuePlural(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"decaf oat cortados", "decaf oat cortado", true},
		{"Mondays", "monday", true},
		{"the Porto flat", "Porto", true},
		{"oat cortado", "flat white", false},
		{"glass", "glas", false},
	} {
		if got := SameValue(tt.a, tt.b); got != tt.want {
			t.Errorf("SameValue(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
