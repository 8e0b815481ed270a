package facts

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// extract runs the offline extractor on the fake embedder over one call's inputs.
func extract(t *testing.T, in []Input) []Result {
	t.Helper()
	res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// wantOwnLabel checks ownLabel on one sentence ("" attr: no label).
func wantOwnLabel(t *testing.T, text string, isCased bool, attr, value string) {
	t.Helper()
	ts := tokenize(text)
	if a, v := ownLabel(clause{toks: ts, text: join(ts)}, isCased); a != attr || v != value {
		t.Errorf("ownLabel(%q) = %s=%q, want %s=%q", text, a, v, attr, value)
	}
}

// wantFacts extracts one text on its own and checks that each of want is among its
// facts, or, with a "-" prefix, is not.
func wantFacts(t *testing.T, text string, want []string) {
	t.Helper()
	got := factKeys(extract(t, []Input{{Text: text}})[0].Facts)
	for _, w := range want {
		if not, ok := strings.CutPrefix(w, "-"); ok {
			if slices.Contains(got, not) {
				t.Errorf("%q: facts %v, want no %s", text, got, not)
			}
		} else if !slices.Contains(got, w) {
			t.Errorf("%q: facts %v, want %s", text, got, w)
		}
	}
}

// wantEach checks that f, named name in errors, maps each case's input to its output.
func wantEach(t *testing.T, name string, f func(string) string, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		if got := f(in); got != want {
			t.Errorf("%s(%q) = %q, want %q", name, in, got, want)
		}
	}
}

// sentenceCase is a sentence and the facts it must yield ("-" first: must not; wantFacts).
type sentenceCase struct {
	text string
	want []string
}

// wantSentences checks each case with wantFacts.
func wantSentences(t *testing.T, cases []sentenceCase) {
	t.Helper()
	for _, c := range cases {
		wantFacts(t, c.text, c.want)
	}
}

// factKeys renders facts as "subject/attribute=value" (with "!=" when negated).
func factKeys(fs []Fact) []string {
	var out []string
	for _, f := range fs {
		op := "="
		if f.Negated {
			op = "!="
		}
		out = append(out, fmt.Sprintf("%s/%s%s%s", f.Subject, f.Attribute, op, f.Value))
	}
	return out
}

// Schedules written for the purpose (none is a corpus sentence): the event names the
// slot, the day and the clock time are its two attributes, and the wordings of one event
// share them.
func TestOfflineSchedules(t *testing.T) {
	tests := []struct {
		text string
		want []string // each must be among the facts
	}{
		{"my pilates class is on mondays at 6pm", []string{"user/pilates-day=mondays", "user/pilates-time=6pm"}},
		// A note's event and its time with no verb, said as a habit; days said first.
		{"choir 7:30 every thursday in the church hall", []string{"user/choir-time=7:30"}},
		{"wednesdays choir is 8pm till the concert", []string{"user/choir-time=8pm"}},
		{"pilates moved to wednesdays, same time", []string{"user/pilates-day=wednesdays"}},
		{"choir practice is thursday evenings", []string{"user/choir-day=thursday"}},
		{"choir's on tuesdays from next term", []string{"user/choir-day=tuesdays"}},
		{"the council moved recycling to fridays", []string{"user/recycle-day=fridays"}},
		{"recycling goes out on saturdays", []string{"user/recycle-day=saturdays"}},
		{"team standup is 9:15 every morning", []string{"user/standup-time=9:15"}},
		{"raj moved standup to 10, says 9:30 is brutal", []string{"user/standup-time=10"}},
		{"bin day is friday now", []string{"user/bin-day=friday"}},
		{"leo's pickup is 3:15", []string{"leo/pickup-time=3:15"}},
		{"the kids' swimming is saturday mornings at 9", []string{"kids/swim-day=saturday", "kids/swim-time=9"}},
		{"my husband says the swimming is at 11 from next week", []string{"user/swim-time=11"}},
	}
	for _, tt := range tests {
		res := extract(t, []Input{{Text: tt.text}})
		got := factKeys(res[0].Facts)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: facts %v, want %s", tt.text, got, w)
			}
		}
	}
}

// Days and times that are no event's schedule: a person's doings, a state of the table,
// a one-off event, a pronoun.
func TestOfflineNoSchedule(t *testing.T) {
	for _, text := range []string{
		"rent goes up to 1,450 in june",
		"fire alarm went off at 11 and we all stood outside",
		"leo gets out at 3:10 on fridays",
		"raj is actually pretty decent, 1:1s every other tuesday",
		"they're back on saturdays",
		"my phone is dead by like 3pm every day",
		"we moved offices over the weekend",
		"mum moved into the care home on saturday",
		"dates are locked: feb 13 to 16",
	} {
		res := extract(t, []Input{{Text: text}})
		for _, f := range res[0].Facts {
			if f.Confidence == 0 && scheduleAttr(f.Attribute) {
				t.Errorf("%q: schedule fact %s read by form, want none", text, factKeys([]Fact{f}))
			}
		}
	}
}

// An event said without its owner is the one who has it: the only third party with that
// slot, or the one the memory names.
func TestOfflineScheduleOwner(t *testing.T) {
	res := extract(t, []Input{
		{Text: "the kids' swimming is saturday mornings at 9"},
		{Text: "swimming got moved to sunday at 10"},
	})
	if got := factKeys(res[1].Facts); !slices.Contains(got, "kids/swim-day=sunday") || !slices.Contains(got, "kids/swim-time=10") {
		t.Errorf("facts %v, want the kids' swim day and time", got)
	}
	// An event that is a described group has its own day and time.
	res = extract(t, []Input{{Text: "sync moved to 3pm so the Berlin people can join", Slots: []string{"product-sync/time"}}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "product-sync/time=3pm") {
		t.Errorf("facts %v, want product-sync/time=3pm", got)
	}
}

// Every weekday is a day, its short forms too: "wednesday" and "saturday" are no
// "wed"+"day" and "sat"+"day".
func TestScheduleValues(t *testing.T) {
	for _, tt := range []struct{ text, day, clock string }{
		{"on wednesdays at 6pm", "wednesdays", "6pm"},
		{"saturday mornings at 9", "saturday", "9"},
		{"mon tue thu", "mon tue thu", ""},
		{"tues and thurs", "tues and thurs", ""},
		{"the sun is out at noon", "", "noon"},
		{"over the weekend", "", ""},
		{"up to 1,450", "", ""},
	} {
		day, clock := scheduleValues(tt.text)
		if !strings.EqualFold(day, tt.day) || clock != tt.clock {
			t.Errorf("scheduleValues(%q) = %q, %q, want %q, %q", tt.text, day, clock, tt.day, tt.clock)
		}
	}
}

// "my <label> is <value>" with a label outside the table is a slot of its own, and a
// favourite is one of its kind. Sentences written for the purpose.
func TestOfflineOwnLabels(t *testing.T) {
	tests := []struct{ text, want string }{
		{"my bank is barclays", "user/bank=barclays"},
		{"my bank's monzo these days", "user/bank=monzo"},
		{"my vet is dr sharma", "user/vet=dr sharma"},
		{"my hairdresser is called kim", "user/hairdresser=kim"},
		{"Our accountant is Priya Shah.", "user/accountant=Priya Shah"},
		{"my favourite band is radiohead", "user/favourite-band=radiohead"},
		{"my favourite food these days is sushi", "user/favourite-food=sushi"},
		{"lando norris is my favourite driver", "user/favourite-driver=lando norris"},
		{"ferrari's my favourite team now", "user/favourite-team=ferrari"},
	}
	for _, tt := range tests {
		res := extract(t, []Input{{Text: tt.text}})
		if got := factKeys(res[0].Facts); !slices.Contains(got, tt.want) {
			t.Errorf("%q: facts %v, want %s", tt.text, got, tt.want)
		}
	}
	// Parts of the body or of life, evaluations, verbs and prepositions name no slot.
	for _, text := range []string{"my back is killing me", "My bank is useless.", "my plan is to move to leeds next year",
		"my vet is honestly lovely", "my badge photo is horrendous", "My pup Toby is German Shepherd.", "my cat luna is a menace", "our broadband is with sky", "my guess is tuesday"} {
		res := extract(t, []Input{{Text: text}})
		ts := skipFillers(tokenize(text))
		if a, v := ownLabel(clause{toks: ts, text: join(ts)}, cased(text)); a != "" {
			t.Errorf("%q: ownLabel = %s=%q, want none (facts %v)", text, a, v, factKeys(res[0].Facts))
		}
	}
}

// A thing given up names the denied value, not whom it went to; a change names an
// earlier value by its head word. Sentences written for the purpose.
func TestOfflinePartedWith(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"gave the old iphone to my mum", "iphone"},
		{"sold the dell on ebay for 200", "dell"},
		{"traded the focus in for a used toyota yaris", "focus"},
		{"donated my old bike to the kids next door", "bike"},
		{"gave him a lift to the station", ""},
		{"sold out in minutes", ""},
	} {
		if got := partedWith(tokenize(tt.text)); got != tt.want {
			t.Errorf("partedWith(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	res := extract(t, []Input{
		{Text: "I drive a 2015 ford focus"},
		{Text: "traded the focus in for a used toyota yaris"},
	})
	if got := factKeys(res[1].Facts); !slices.Contains(got, "user/car=toyota yaris") && !slices.Contains(got, "user/car=used toyota yaris") {
		t.Errorf("facts %v, want the yaris as the car", got)
	}
	for _, tt := range []struct{ value, want string }{{"2015 ford focus", "focus"}, {"old dell xps", "xps"}, {"Leeds", ""}, {"iphone 13", "iphone"}} {
		if got := valueHead(tt.value); got != tt.want {
			t.Errorf("valueHead(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}

// A workplace named by what it is, in text of any case: "at the library" after work or a
// job. Sentences written for the purpose.
func TestOfflineWorkplaceByKind(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"I work nights at the warehouse", "warehouse"},
		{"got a day job at the library now", "library"},
		{"she works part-time at the garden centre", "garden centre"},
		{"I'm at work at the moment", ""},
		{"Joris joined the data engineering team", ""},
		{"started at the gym last week", ""},
		{"ellie got a job at channel 4, starts in june", "channel 4"},
		{"he works at tesco now", "tesco"},
		{"i work at home on fridays", ""},
	} {
		if got := employerName(tokenize(tt.text), cased(tt.text)); got != tt.want {
			t.Errorf("employerName(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// Someone else changes a thing of the speaker's, or of the one named before; a plan's
// month is when the planned thing happens; a language is read by its name; one of
// several values switched for another ends. Sentences written for the purpose.
func TestOfflineChangesByOthersPlansLanguages(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	res := extract(t, []Input{
		{Text: "landlord put the rent up to 1,750 from march. gutted", Time: now},
		{Text: "gp upped my sertraline to 100mg", Time: now},
		{Text: "my dad takes metformin 500mg", Time: now},
		{Text: "the doctor doubled his metformin to 1000mg", Time: now},
		{Text: "we're going to crete in july for our anniversary", Time: now},
		{Text: "I'm learning french on duolingo, 200 day streak", Time: now},
		{Text: "dropped french, switched to german for work", Time: now},
	})
	// The fake embedder picks attributes loosely: the subjects and values are the form's.
	for i, want := range []string{"user/", "user/", "dad/", "dad/", "", "user/language=french", "user/language!=french"} {
		got := factKeys(res[i].Facts)
		if want != "" && !slices.ContainsFunc(got, func(k string) bool { return k == want || strings.HasSuffix(want, "/") && strings.HasPrefix(k, want) }) {
			t.Errorf("input %d: facts %v, want %s", i, got, want)
		}
	}
	if got := factKeys(res[0].Facts); !slices.ContainsFunc(got, func(k string) bool { return strings.HasSuffix(k, "=1,750") }) {
		t.Errorf("facts %v, want the rent of 1,750", got)
	}
	for _, f := range res[4].Facts {
		if f.Attribute == "trip-destination" && !f.EventTime.IsZero() {
			t.Errorf("a plan's month as its event time: %+v", f)
		}
	}
	if got := factKeys(res[6].Facts); !slices.Contains(got, "user/language=german") {
		t.Errorf("facts %v, want german", got)
	}
}

// More classes of sentences written for the purpose: a thing given up by name, a pet gone
// to live elsewhere, a compound subject, a home bought, a thing stolen, a generic event
// word for the one event known.
func TestOfflineEndsAndCompounds(t *testing.T) {
	res := extract(t, []Input{
		{Text: "stopped the 5:2, it was making me miserable", Slots: []string{"user/diet"}, Values: map[string][]string{"user/diet": {"5:2 diet"}}},
		{Text: "bramble's gone to live with my parents on their farm", Slots: []string{"user/pet"}, Values: map[string][]string{"user/pet": {"bramble"}}},
		{Text: "chloe and her girlfriend just bought a place in hove!"},
		{Text: "someone nicked my bike from outside the station", Slots: []string{"user/bike"}, Values: map[string][]string{"user/bike": {"trek domane"}}},
		{Text: "training's moved to wednesdays at 6:30", Slots: []string{"son/football-day", "son/football-time"}},
	})
	for i, want := range []string{"user/diet!=5:2 diet", "user/pet!=bramble", "chloe/home=hove", "user/bike!=trek domane", "son/football-day=wednesdays"} {
		if got := factKeys(res[i].Facts); !slices.Contains(got, want) {
			t.Errorf("input %d: facts %v, want %s", i, got, want)
		}
	}
}

// Jobs told by their title's last word and ended without their name, a drug taken off
// and its name beside its dose, one day that is no schedule, "left" that leaves nothing.
// Sentences written for the purpose.
func TestOfflineJobsDrugsAndFalseFriends(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"I'm a secondary school maths teacher", "secondary school maths teacher"},
		{"my dad's still working as a taxi driver at 68", "taxi driver"},
		{"I've left teaching, I'm retraining as a software developer", "software developer"},
	} {
		var got string
		for _, c := range clauses(sentences(tt.text)[0].text) {
			if v := jobTitle(c); v != "" {
				got = v
			}
		}
		if not, ok := strings.CutPrefix(tt.want, "-"); ok {
			if got == not {
				t.Errorf("%q: read %q, want none", tt.text, got)
			}
		} else if tt.want != "" && got != tt.want {
			t.Errorf("jobTitle(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	res := extract(t, []Input{
		{Text: "dad's finally retired! no more night shifts", Slots: []string{"dad/job"}, Values: map[string][]string{"dad/job": {"taxi driver"}}},
		{Text: "Last day at Halden is Friday."},
		{Text: "did something to my knee, left knee is swollen", Slots: []string{"user/injury"}, Values: map[string][]string{"user/injury": {"knee"}}},
	})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "dad/job!=taxi driver") {
		t.Errorf("facts %v, want dad/job!=taxi driver", got)
	}
	for _, f := range res[1].Facts {
		if scheduleAttr(f.Attribute) {
			t.Errorf("one day read as a schedule: %v", factKeys([]Fact{f}))
		}
	}
	if got := factKeys(res[2].Facts); slices.Contains(got, "user/injury!=knee") {
		t.Errorf("facts %v: a left knee is no knee left", got)
	}
	if v := stoppedValue(tokenize("I feel like I just can't stop writing now"), []string{"writing"}); v != "" {
		t.Errorf("\"can't stop writing\" gives up %q", v)
	}
	if m := doseOfRe.FindStringSubmatch("I'm on 40mg of omeprazole for the reflux"); m == nil || m[1] != "omeprazole" {
		t.Errorf("doseOfRe: %v, want omeprazole", m)
	}
	if !negated("Consultant has taken me off omeprazole completely") {
		t.Error("taken off a drug is no denial")
	}
	// A compound subject is its first person, unless the second is the speaker's own.
	for _, tt := range []struct{ text, first string }{
		{"chloe and her girlfriend just bought a place in hove", "chloe and her girlfriend just bought a place in hove"},
		{"Cornelius and my mom are not together anymore", "Cornelius"},
	} {
		if got := join(clauses(tt.text)[0]); got != tt.first {
			t.Errorf("first clause of %q = %q, want %q", tt.text, got, tt.first)
		}
	}
}

// A relation's role ("my brother's girlfriend"), a plural thing ("my running shoes
// are"), a role's appointments, a pet gone missing; a kind of thing the table has (a
// camera is a device) is no label of its own. Sentences written for the purpose.
func TestOfflineRolesPluralsAppointments(t *testing.T) {
	var ppl people
	if subj, _, role := ppl.subject(tokenize("my brother's girlfriend is called Jade"), "user"); subj != "brother" || role != "partner" {
		t.Errorf("subject %q role %q, want brother, partner", subj, role)
	}
	for _, tt := range []struct{ text, attr, value string }{
		{"my running shoes are the nike pegasus", "running-shoes", "nike pegasus"},
		{"my camera is a fuji x-t3", "", ""},
		{"my lunch breaks are gonna be chaos", "", ""},
	} {
		wantOwnLabel(t, tt.text, false, tt.attr, tt.value)
	}
	res := extract(t, []Input{
		{Text: "my physio appointments are wednesdays at 10"},
		{Text: "Tofu went missing last week and hasn't come back", Slots: []string{"user/pet"}, Values: map[string][]string{"user/pet": {"Tofu", "Miso"}}},
	})
	for i, want := range []string{"user/physio-day=wednesdays", "user/pet!=Tofu"} {
		if got := factKeys(res[i].Facts); !slices.Contains(got, want) {
			t.Errorf("input %d: facts %v, want %s", i, got, want)
		}
	}
}

// The last set of sentences written for the purpose: a possessive before a schedule, a
// favourite of two words, a provider after "with", a label the table names, a home's
// keys, a generic start time for the one event known.
func TestOfflineLastSet(t *testing.T) {
	for _, tt := range []struct{ text, attr, value string }{
		{"my kid's school starts at 8:45", "", ""},
		{"my bank's monzo these days", "bank", "monzo"},
		{"my favourite tv show is Succession", "favourite-show", "Succession"},
		{"my mortgage is with Nationwide", "mortgage", "Nationwide"},
		{"my team lead is Marcus", "manager", "Marcus"},
	} {
		wantOwnLabel(t, tt.text, cased(tt.text), tt.attr, tt.value)
	}
	if v := homePlace(tokenize("I've just got the keys to my own flat in Bath!"), false); v != "Bath" {
		t.Errorf("homePlace = %q, want Bath", v)
	}
	res := extract(t, []Input{
		{Text: "my kid's school starts at 8:45"},
		{Text: "the school's changed the start time to 8:30 from january"},
	})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "kid/school-time=8:45") {
		t.Errorf("facts %v, want kid/school-time=8:45", got)
	}
	if got := factKeys(res[1].Facts); !slices.Contains(got, "kid/school-time=8:30") {
		t.Errorf("facts %v, want kid/school-time=8:30", got)
	}
}

// A role's holder doing something, an age after a copula, a course by its kind of
// qualification, a household service's provider, someone placed by the speaker.
// Sentences written for the purpose (none is a corpus sentence); each input is
// extracted on its own, and each want must be among its facts ("-" prefix: must not be).
func TestOfflineHoldersAgesCoursesProviders(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"my husband works at Tesco", []string{"partner/employer=Tesco", "-user/partner=Tesco"}},
		{"my husband's started a new job at Sainsbury's", []string{"partner/employer=Sainsbury's"}},
		{"my manager is Dana", []string{"user/manager=Dana"}},
		{"my landlord is a guy called Derek", []string{"user/landlord=Derek"}},
		{"my wife is a nurse", []string{"partner/job=nurse"}},
		{"my son is 6", []string{"son/age=6"}},
		{"my son's 7 now", []string{"son/age=7"}},
		{"my son just turned 7", []string{"son/age=7"}},
		{"liam is 9", []string{"liam/age=9"}},
		{"I'm doing a part time MA in history at Birkbeck", []string{"user/course=MA in history"}},
		{"decided to drop out of the MA, it was too much alongside work", []string{"user/course!=MA"}},
		{"my sister started a masters in nursing", []string{"sister/course=masters in nursing"}},
		{"finished my degree!", []string{"user/course!=degree"}},
		{"so no study buddy for me for now", []string{"-user/course=buddy"}},
		{"Studying opening moves and analysing your games are great ways to improve.", []string{"-user/course=opening moves"}},
		{"we use octopus for electricity", []string{"user/energy-supplier=octopus"}},
		{"we've switched electricity to EDF", []string{"user/energy-supplier=EDF"}},
		{"my energy is with british gas", []string{"user/energy-supplier=british gas"}},
		{"moved broadband over to BT", []string{"user/broadband=BT"}},
		{"we get our internet from Sky", []string{"user/broadband=Sky"}},
		{"we moved Ava to Oakfield primary after half term", []string{"-user/school=Ava"}},
	})
	for _, text := range []string{"the internet is down again", "the wifi is so slow", "it's 6"} {
		for _, f := range extract(t, []Input{{Text: text}})[0].Facts {
			if f.Attribute == "broadband" || f.Attribute == "age" {
				t.Errorf("%q: fact %v, want none of a provider or an age", text, factKeys([]Fact{f}))
			}
		}
	}
	ts := tokenize("we moved Ava to Oakfield primary after half term")
	if subj, _, _ := (&people{}).subject(ts, "user"); subj != "ava" {
		t.Errorf("subject = %q, want ava", subj)
	}
}

// How often an activity is done, a regular service's clock time, where the shopping is
// done, a third party living with the speaker, a best friend by name, a drug come off,
// a job title by its ending or its modifier. Sentences written for the purpose.
func TestOfflineRoutinesAndTitles(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"I run 3 times a week", []string{"user/run-frequency=3 times a week"}},
		{"I've dropped to running once a week with the new baby", []string{"user/run-frequency=1 time a week"}},
		{"I swim every morning before work", []string{"user/swim-frequency=every morning"}},
		{"My grandma runs 10 km every morning.", []string{"-grandma/run-frequency=every morning"}},
		{"I love to do yoga and do it four times a week", []string{"-user/yoga-frequency=4 times a week"}},
		{"I take the 8:10 train", []string{"user/train-time=8:10"}},
		{"I've been getting the 7:40 train since the timetable changed", []string{"user/train-time=7:40"}},
		{"we shop at Aldi mostly", []string{"user/supermarket=Aldi"}},
		{"we've started doing the big shop at Lidl instead", []string{"user/supermarket=Lidl"}},
		{"my nan lives with us", []string{"grandma/home=the speaker's household"}},
		{"I live with my girlfriend", []string{"-user/home=the speaker's household"}},
		{"my best friend is Jess", []string{"user/best-friend=Jess"}},
		{"my best mate Tom moved to Leeds", []string{"tom/home=Leeds"}},
		{"I'm a freelance illustrator", []string{"user/job=freelance illustrator"}},
		{"my aunt is a cardiologist", []string{"aunt/job=cardiologist"}},
	})
	if v := stoppedValue(tokenize("came off the pill last month"), []string{"pill"}); v != "pill" {
		t.Errorf("stoppedValue = %q, want pill", v)
	}
}

// A named tool used and moved from, a bank, a card closed, a role's holder who left one
// job for another. Sentences written for the purpose.
func TestOfflineToolsBanksAndLeaving(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"my team uses Jira", []string{"user/tool=Jira"}},
		{"we use Notion for planning", []string{"user/tool=Notion"}},
		{"I bank with Barclays", []string{"user/bank=Barclays"}},
		{"moved my current account to Starling", []string{"user/bank=Starling"}},
		{"switched banks to Monzo last year", []string{"user/bank=Monzo"}},
		{"she works for Google", []string{"-user/employer=Google"}},
		{"my wife's left teaching and works for the council now", []string{"partner/employer=council"}},
	})
	res := extract(t, []Input{
		{Text: "my team uses Jira"},
		{Text: "we've moved everything from Jira to Linear"},
	})
	if got := factKeys(res[1].Facts); !slices.Contains(got, "user/tool!=Jira") || !slices.Contains(got, "user/tool=Linear") {
		t.Errorf("facts %v, want Jira given up for Linear", got)
	}
	if v := stoppedValue(tokenize("closed the Monzo card"), []string{"Monzo"}); v != "Monzo" {
		t.Errorf("stoppedValue = %q, want Monzo", v)
	}
	if v := switchValue(tokenize("raj moved standup to 10")); v != "10" {
		t.Errorf("switchValue = %q, want 10 (a reschedule)", v)
	}
}

// A dislike is the opposite polarity of a liking, a new role's holder named after the
// clause, a span said done is no value. Sentences written for the purpose.
func TestOfflineDislikesAppositionsSpans(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"I hate olives", []string{"user/food!=olives"}},
		{"I can't stand olives", []string{"user/food!=olives"}},
		{"I love sushi", []string{"user/food=sushi"}},
		{"my new flatmate moved in today, Olu", []string{"user/flatmate=Olu"}},
		{"new boss started monday, Raj Patel, he came over from payments", []string{"user/manager=Raj Patel"}},
		{"first week done! my manager is Dana Whitfield", []string{"user/manager=Dana Whitfield", "-user/employer=first week done"}},
		{"my partner's vegetarian", []string{"partner/diet=vegetarian", "-user/diet=vegetarian"}},
	})
	for _, v := range []string{"first week done", "exams over"} {
		if !verbal(v) {
			t.Errorf("verbal(%q) = false, want true", v)
		}
	}
}

// Ages turned, school years, bedtimes, a home told by the dwelling one is in, a job
// jumped to, a neighbour's pet and its loss, a pet's kind inside a place name, a plan's
// month ahead. Sentences written for the purpose.
func TestOfflineLifeEventsAndNames(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"gran turned 90 on sunday, we had cake", []string{"grandma/age=90"}},
		{"my son's in year 4", []string{"son/school-year=year 4"}},
		{"the kids go to bed at 7", []string{"kids/bedtime-time=7"}},
		{"trying to be in bed by 10 now", []string{"user/bedtime-time=10"}},
		{"Nina: moving day done, I'm in a place in Brixton now. so many boxes", []string{"nina/home=Brixton"}},
		{"Sam's jumped ship to PwC, same job more money", []string{"sam/employer=PwC"}},
		{"our neighbour Pat has a cat called Smudge", []string{"pat/pet=Smudge", "-user/pet=Smudge"}},
		{"Pat's cat Smudge went missing last week", []string{"pat/pet!=Smudge"}},
		{"I work in the Canary Wharf office", []string{"-user/pet=Wharf"}},
	})
	res := extract(t, []Input{{Text: "we've got a hamster called Nibbles"}, {Text: "RIP Nibbles, the kids are devastated"}})
	if got := factKeys(res[1].Facts); !slices.Contains(got, "user/pet!=Nibbles") {
		t.Errorf("facts %v, want Nibbles gone", got)
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	if et := eventTime("handed in my notice at Sky, starting at the BBC in May", now); et.Year() != 2027 {
		t.Errorf("event time %v, want May 2027 (a job ahead)", et)
	}
}

// A car by its make, a home by its dwelling or by whom one moves in with, a place after
// whom one lives with, a wake-up time, a partner dumped, a denial that keeps the new
// value read beside it. Sentences written for the purpose.
func TestOfflineCarsHomesMornings(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"we've got an old VW Polo, does the job", []string{"user/car=VW Polo"}},
		{"mum's car is a little fiat 500", []string{"mum/car=fiat 500"}},
		{"dad swapped the Volvo for a Tesla", []string{"dad/car=Tesla"}},
		{"I have a mini fridge", []string{"-user/car=mini fridge"}},
		{"my sister's living with her boyfriend in Bath", []string{"sister/home=Bath"}},
		{"we live in a 2 bed flat", []string{"user/home=2 bed flat"}},
		{"we're in a 3 bed semi now, finally a garden", []string{"user/home=3 bed semi"}},
		{"I'm moving in with Sam next month", []string{"user/home=with Sam"}},
		{"I normally get up at 6:30", []string{"user/wake-time=6:30"}},
		{"with the new job I'm up at 5:45", []string{"user/wake-time=5:45"}},
	})
	res := extract(t, []Input{{Text: "my daughter's boyfriend is called Kyle"}, {Text: "daughter's dumped Kyle, thank god"}})
	if got := factKeys(res[1].Facts); !slices.Contains(got, "daughter/partner!=Kyle") {
		t.Errorf("facts %v, want Kyle given up", got)
	}
}

// A line of work, a birthday by its ordinal, a book being read and the next one, a
// mortgage by its provider, stepping down from a role. Sentences written for the
// purpose.
func TestOfflineWorkBooksMortgages(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"my partner Ollie works in finance", []string{"ollie/job=finance"}},
		{"it's my 33rd birthday today!", []string{"user/age=33"}},
		{"I'm reading Dune at the minute", []string{"user/book=Dune"}},
		{"finished Dune, on to Project Hail Mary", []string{"user/book!=Dune", "user/book=Project Hail Mary"}},
		{`Just finished "A Dance with Dragons" and it was great`, []string{`-user/book!="A Dance`}},
		{"we're with Nationwide for the mortgage", []string{"user/mortgage=Nationwide"}},
		{"remortgaged with Halifax, better rate", []string{"user/mortgage=Halifax"}},
		{"I work in London", []string{"-user/job=london"}},
	})
	if !negated("stepped down as PTA treasurer") {
		t.Error("stepping down is no denial")
	}
}

// An insurance of its kind, grandchildren and eldest children as relations, a holder
// retired, an ordinal that counts a floor. Sentences written for the purpose.
func TestOfflineInsuranceRelationsOrdinals(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"we're with Admiral for car insurance", []string{"user/car-insurance=Admiral"}},
		{"switched the car insurance to Aviva", []string{"user/car-insurance=Aviva"}},
		{"our home insurance is with Direct Line", []string{"user/home-insurance=Direct Line"}},
		{"my grandson is 3", []string{"grandson/age=3"}},
	})
	res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: "Dr Lewis retired, I'm under Dr Shah now", Values: map[string][]string{"user/doctor": {"Dr Lewis"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := factKeys(res[0].Facts); !slices.Contains(got, "user/doctor!=Dr Lewis") {
		t.Errorf("Dr Lewis retired: facts %v, want user/doctor!=Dr Lewis", got)
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	if et := eventTime("my office is on the 3rd floor", now); !et.IsZero() {
		t.Errorf("event time %v, want none (a floor)", et)
	}
	if et := eventTime("the boiler man is coming on the 20th", now); et.IsZero() {
		t.Error("no event time for a day of the month")
	}
	if et := eventTime("moved in on the 20th, we're on the 3rd floor", now); et.Day() != 20 {
		t.Errorf("event time %v, want the 20th (the floor after it is no date)", et)
	}
}

// A home rented or bought whose place is not read goes on to the clause's next words
// without running past their end: "renting a flat in the centre" panicked (the clause
// shortened under the loop that read it).
func TestHomePlaceRentedWithoutPlace(t *testing.T) {
	for _, text := range []string{"we're renting a flat in the centre of town", "I'm renting a room in a shared house"} {
		if v := homePlace(tokenize(text), true); v != "" {
			t.Errorf("homePlace(%q) = %q, want none", text, v)
		}
	}
}

// A verb phrase is no value (written for the purpose): a team named only after a verb
// ("to have a supportive team"), a gerund with its reflexive object, a phrasal verb's
// particle left at the front. And forms read since: an email address, a bank, a bare label.
func TestOfflineVerbPhrasesEmailsBanks(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"it must feel amazing to have a supportive team like that", []string{"-user/team=have a supportive team"}},
		{"i moved onto the data engineering team last week", []string{"user/team=data engineering team"}},
		{"priya joined the payments squad", []string{"priya/team=payments squad"}},
		// Emails, banks and a thing of the speaker's said without "my".
		{"if you need me use jo.k@proton.me from now on", []string{"user/email=jo.k@proton.me"}},
		{"my brother's email is tom.b@fastmail.com", []string{"brother/email=tom.b@fastmail.com"}},
		{"main bank is monzo, love the pots", []string{"user/bank=monzo"}},
		{"flatmate chris banks with starling", []string{"chris/bank=starling"}},
		{"moved my salary over to chase last week", []string{"user/bank=chase"}},
		{"payday is the 28th at the new place", []string{"user/payday=28th"}},
		{"bedtime is 8 for the twins now", []string{"user/bedtime=8"}},
		{"traffic is awful today", []string{"-user/traffic=awful"}},
		{"maths exam is on june 3rd, terrified", []string{"user/maths-exam=june 3rd"}},
		{"from september my manager will be sofia", []string{"user/manager=sofia"}},
		{"my neighbour jan has a parrot called kiwi", []string{"jan/pet=kiwi"}},
		// Roles of their own: a supervisor (whatever the holder's title), a babysitter, a cleaner.
		{"my supervisor's Dr Okafor, a bit scary", []string{"user/supervisor=Dr Okafor", "-user/doctor=Dr Okafor"}},
		{"our cleaner is Ana, every other friday", []string{"user/cleaner=Ana"}},
		// In text with capitals a lower-case word after a relation is no name.
		{"My GP surgery is Hillside Medical Centre.", []string{"-surgery/job=Hillside Medical Centre"}},
		{"My brother Joris lives in Rotterdam.", []string{"joris/home=Rotterdam"}},
		{"my nanny is called Rosa", []string{"user/babysitter=Rosa"}},
		{"my sister may move to bristol", []string{"-may/home=bristol"}},
		// Medicines by their names' stems, each with its own dose; one given up ends.
		{"the gp's put me on lisinopril 10mg for my bp", []string{"user/medication=lisinopril", "user/lisinopril-dose=10mg"}},
		{"they've swapped me off the citalopram onto sertraline 50mg", []string{"user/medication!=citalopram", "user/medication=sertraline", "user/sertraline-dose=50mg"}},
		{"my dad takes 40 mg of simvastatin", []string{"dad/medication=simvastatin", "dad/simvastatin-dose=40 mg"}},
		{"I no longer take omeprazole", []string{"user/medication!=omeprazole"}},
		{"it's amoxicillin not penicillin, the pharmacist checked", []string{"user/medication!=penicillin"}},
		// Diets named, partners being seen.
		{"Been vegetarian since January and I don't miss meat", []string{"user/diet=vegetarian"}},
		{"my coworker dev is fully vegan", []string{"dev/diet=vegan"}},
		{"i'm not veggie anymore", []string{"user/diet!=vegetarian"}},
		{"we had vegan cheese at the party", []string{"-user/diet=vegan"}},
		{"Thanks! It's dairy-free and so easy.", []string{"-user/diet=dairy-free"}},
		{"check the labels to make sure they're dairy-free", []string{"-user/diet=dairy-free"}},
		{"so I've been seeing this guy Jonas for a bit", []string{"user/partner=Jonas"}},
		{"for the record i'm allergic to penicillin", []string{"user/allergy=penicillin", "-user/medication=penicillin"}},
		{"and of course my sister has now moved to york", []string{"sister/home=york"}},
		{"the cholesterol results were fine", []string{"-user/medication=cholesterol"}},
	})
	// An amount said without its attribute's unit is none of it.
	for _, tt := range []struct {
		attr, text, want string
	}{
		{"sleep", "booked 4 nights near the station", ""},
		{"sleep", "only managed 5 hours last night", "5 hours"},
		{"dose", "nurse says bump it up to 20", ""},
		{"dose", "they doubled it to 200 mg", "200 mg"},
		{"commute", "got the tram pass, 62 a month", ""},
	} {
		a, _ := attributeByName(tt.attr)
		ts := tokenize(tt.text)
		if got := value(a, ts, ts, ""); got != tt.want {
			t.Errorf("%s of %q = %q, want %q", tt.attr, tt.text, got, tt.want)
		}
	}
	// An open slot's value has the kind its name says; a bare number names no team.
	for _, tt := range []struct {
		attr string
		want valueKind
	}{{"standup-time", kindTime}, {"bin-day", kindDay}, {"exam-date", kindDate}, {"lantus-dose", kindNumber}, {"gym", kindThing}} {
		if got := openAttribute(tt.attr).kind; got != tt.want {
			t.Errorf("openAttribute(%q).kind = %v, want %v", tt.attr, got, tt.want)
		}
	}
	if !shapeless(Fact{Attribute: "sports-team", Value: "11", Confidence: 0.6}, false) {
		t.Error("sports-team = 11 has a shape, want none")
	}
	for _, v := range []string{"treating myself", "out different flavors", "off the grid"} {
		if !verbal(v) {
			t.Errorf("verbal(%q) = false, want true", v)
		}
	}
	for _, v := range []string{"oat flat white", "payments squad", "outdoor climbing"} {
		if verbal(v) {
			t.Errorf("verbal(%q) = true, want false", v)
		}
	}
}

// An exception whose attribute is not named takes the one slot whose value has its kind
// (written for the purpose): a day after "except on …", a date after "except in …"; two
// slots of that kind leave it unread. A correction told by such a value is read alike.
func TestOfflineScopedException(t *testing.T) {
	for _, tt := range []struct {
		values map[string][]string
		text   string
		want   string // "" : no exception read
	}{
		{map[string][]string{"user/bin-day": {"mondays"}}, "except on bank holiday weeks it's tuesday, found out the hard way", "user/bin-day=tuesday (except bank holiday weeks)"},
		{map[string][]string{"user/payday": {"the 25th"}, "user/home": {"Leeds"}}, "except in december, they pay us on the 18th", "user/payday=the 18th (except december)"},
		{map[string][]string{"user/gym-day": {"mondays"}, "user/bin-day": {"fridays"}}, "except in august when it's wednesdays", ""},
		{map[string][]string{"user/work-location": {"remote"}}, "remote except tuesdays", ""},
		// A change told by a value of the slot's kind alone.
		{map[string][]string{"user/bin-day": {"Tuesday"}}, "council changed the rounds, ours go out thursdays from now on", "user/bin-day=thursdays"},
		{map[string][]string{"user/bin-day": {"Tuesday"}}, "the bins went out on thursday, what a mess", ""},
		// A cue of correction that does not open the message corrects nothing.
		{map[string][]string{"user/bin-day": {"Tuesday"}}, "rough week, sorry to hear, see you thursday", "-user/bin-day=thursday"},
		// A holder who leaves, a thing sold: the slot's value ends.
		{map[string][]string{"user/manager": {"Bev"}}, "Bev's left the company, no idea who's next", "user/manager!=Bev"},
		{map[string][]string{"user/car": {"Ford Focus"}}, "sold the focus! no car now", "user/car!=Ford Focus"},
		// A person let go by name ends the role they held (read as a denial).
		{map[string][]string{"sister/babysitter": {"rosa"}}, "sister let rosa go last week", "sister/babysitter!=rosa"},
		// A correction told by a value of the slot's kind, without naming the slot.
		{map[string][]string{"user/driving-test": {"may 3rd"}}, "nope, just checked the letter, it's may 13th. i mixed them up", "user/driving-test=may 13th"},
	} {
		res := extract(t, []Input{{Text: tt.text, Values: tt.values}})
		got := ""
		for _, f := range res[0].Facts {
			if f.Scope != "" && strings.HasPrefix(f.Scope, "except") && !f.Negated {
				got = fmt.Sprintf("%s/%s=%s (%s)", f.Subject, f.Attribute, f.Value, f.Scope)
			} else if f.Scope == "" && tt.values[f.Subject+"/"+f.Attribute] != nil {
				got = factKeys([]Fact{f})[0]
			}
		}
		if tt.want == "" && slices.ContainsFunc(res[0].Facts, func(f Fact) bool { return typedKind(f.Value) == daysRe && f.Scope != "" }) {
			t.Errorf("%q: facts %v, want no exception read", tt.text, factKeys(res[0].Facts))
		}
		if not, ok := strings.CutPrefix(tt.want, "-"); ok {
			if got == not {
				t.Errorf("%q: read %q, want none", tt.text, got)
			}
		} else if tt.want != "" && got != tt.want {
			t.Errorf("%q: exception %q, want %q (facts %v)", tt.text, got, tt.want, factKeys(res[0].Facts))
		}
	}
}

func TestOfflineCouplesLabelsHousemates(t *testing.T) {
	wantSentences(t, []sentenceCase{
		// The speaker and someone named as a couple, beginning or ending.
		{"me and my boyfriend marco are doing the whole cook together thing now", []string{"user/partner=marco"}},
		{"marco and i broke up last week. mutual-ish", []string{"user/partner!=marco"}},
		{"soooo me and Farah have been seeing each other about 2 months now", []string{"user/partner=Farah"}},
		{"finally broke up with Tom on saturday", []string{"user/partner!=Tom"}},
		{"me and Sam went to the cinema last night", []string{"-user/partner=Sam"}},
		{"me and my girlfriend priya rent a terraced house in leeds", []string{"-priya/home=leeds"}},
		// Seeing someone about care is no date.
		{"marek's gone on leave, so i'm seeing Sunita at the same clinic for now", []string{"user/doctor=Sunita", "-user/partner=Sunita"}},
		{"started seeing a new therapist called Jo", []string{"user/doctor=Jo"}},
		// A label of the speaker's own before a colon and an amount.
		{"savings goal: £6,000 by december for a house deposit", []string{"user/savings-goal=£6,000"}},
		{"update: 3 more days of this", []string{"-user/update=3"}},
		{"dinner: risotto again", []string{"-user/dinner=risotto again"}},
		// People the speaker lives with, named; "w" and "w/" are "with".
		{"I live with Ben and Jo in a house in Walthamstow", []string{"user/flatmate=Ben", "user/flatmate=Jo"}},
		{"living w Ben in the walthamstow house", []string{"user/flatmate=Ben", "-user/landlord=Ben"}},
		{"she's moved in with her boyfriend", []string{"-user/flatmate=boyfriend"}},
		{"flatmates are hugo and priti, we've lived together three years now", []string{"user/flatmate=hugo", "user/flatmate=priti"}},
		{"living with two cats and a very loud parrot", []string{"-user/flatmate=two"}},
		// A role of a named person's.
		{"alfie's teacher is mrs patel, she's brilliant", []string{"alfie/teacher=mrs patel"}},
	})
	// A name the slots know, or one named before, takes its possessive without the
	// apostrophe.
	res := extract(t, []Input{{Text: "alfies teacher is mrs patel", Slots: []string{"alfie/school"}}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "alfie/teacher=mrs patel") {
		t.Errorf("alfies teacher: facts %v, want alfie/teacher=mrs patel", got)
	}
	res = extract(t, []Input{{Text: "Alfie started at St Mary's today"}, {Text: "alfies teacher is mrs patel"}})
	if got := factKeys(res[1].Facts); !slices.Contains(got, "alfie/teacher=mrs patel") {
		t.Errorf("alfies teacher after Alfie: facts %v, want alfie/teacher=mrs patel", got)
	}
	if got := possessives("jos is here and alfies teacher", map[string]bool{"alfie": true, "user": true}); got != "jos is here and alfie's teacher" {
		t.Errorf("possessives: %q", got)
	}
	wantEach(t, "shorthand", shorthand, map[string]string{"living w ben": "living with ben", "a flat w/ my flatmate": "a flat with my flatmate", "w/out sugar": "w/out sugar", "grade w": "grade w",
		"sis still out in naperville": "sister still out in naperville", "r u ok": "are you ok", "nvm jen didnt switch": "never mind jen didnt switch",
		"new # 773-555-0192": "new number 773-555-0192", "kara (wife) doing keto": "my wife kara doing keto", "boss (rick) is diamond": "my boss rick is diamond",
		"lily (12) loves it": "lily (12) loves it", "the bus (again) was late": "the bus (again) was late", "coffee place = the dunkin": "coffee place: the dunkin",
		"bros before": "bros before", "thru the door": "through the door",
		// "rn" is "now": a value read up to it takes no "right" ("sim only w giffgaff rn").
		"sim only w smarty rn": "sim only with smarty now", "HR confirmed it": "HR confirmed it", "2 hr drive": "2 hour drive", "an hr late": "an hour late",
		"£12 per hr": "£12 per hour", "a 1hr drive": "a 1hr drive", "hr says no": "hr says no",
		// Texting's "n" is "and", and "w" is "with" before a number too, unless a number
		// stands before it (watts).
		"my tag is zebrafin n my pin is new": "my tag is zebrafin and my pin is new", "a house w 4 others": "a house with 4 others",
		"a 60 w bulb": "a 60 w bulb", "n/a": "n/a", "row N": "row N", "u n me": "you and me"})
	wantSentences(t, []sentenceCase{
		{"my gamertag is zebrafin n i play on weekends", []string{"user/gamertag=zebrafin"}},
	})
}

func TestOfflineDosesCommutesExpiries(t *testing.T) {
	wantSentences(t, []sentenceCase{
		// A dose "of the" medicine, and a dose in a clause of its own.
		{"saw the gp, going up to 100mg of the sertraline from monday", []string{"user/sertraline-dose=100mg"}},
		{"started sertraline today, 50mg. kinda nervous", []string{"user/medication=sertraline", "user/sertraline-dose=50mg"}},
		{"started sertraline today and mum takes 20mg of citalopram", []string{"-user/sertraline-dose=20mg"}},
		// How someone gets to work.
		{"my wife Cerys gets the bus to the hospital", []string{"cerys/commute-mode=bus"}},
		{"i cycle to work now", []string{"user/commute-mode=bike"}},
		{"switched to driving into the office since the strikes", []string{"user/commute-mode=drive"}},
		{"by car to work these days, the buses are hopeless", []string{"user/commute-mode=drive"}},
		{"walked to the shop for milk", []string{"-user/commute-mode=walk"}},
		// When a document or an agreement runs out.
		{"just realised my passport runs out in feb 2026, need to renew", []string{"user/passport-expiry=feb 2026"}},
		{"our tenancy ends on 30 june", []string{"user/tenancy-expiry=30 june"}},
		// An activity taken up is a hobby or exercise, never a food.
		{"Lou's got super into sourdough", []string{"lou/hobby=sourdough", "-lou/food=sourdough"}},
		// Activities after a label, -ing words included.
		{"hobbies rn: bouldering twice a week and crosswords", []string{"user/hobby=bouldering", "user/hobby=crosswords"}},
		// A drink ordered.
		{"my order is always an oat flat white", []string{"user/drink=oat flat white"}},
		{"my amazon order is stuck in customs", []string{"-user/drink=stuck in customs"}},
	})
	// An activity given up by "is off" or "no more", named by its earlier value.
	for _, text := range []string{"physio says nothing for 3 months so bouldering is off for now", "no more bouldering for a while"} {
		res := extract(t, []Input{{Text: text, Values: map[string][]string{"user/hobby": {"bouldering"}}, Slots: []string{"user/hobby"}}})
		if got := factKeys(res[0].Facts); !slices.Contains(got, "user/hobby!=bouldering") {
			t.Errorf("%q: facts %v, want user/hobby!=bouldering", text, got)
		}
	}
	// A dose read for a medicine the memory does not name gives way to the one it names.
	if got := factKeys(loneDose(prepared{clauses: []clause{{text: "the GP's added amlodipine for my blood pressure"}, {text: "5mg at night"}}}, []Fact{
		{Subject: "user", Attribute: "levothyroxine-dose", Value: "5mg", Confidence: 0.6}, {Subject: "user", Attribute: "medication", Value: "amlodipine"},
	})); !slices.Equal(got, []string{"user/medication=amlodipine", "user/amlodipine-dose=5mg"}) {
		t.Errorf("loneDose: %v", got)
	}
	if got := eventStem("recycling"); got != "recycle" {
		t.Errorf("eventStem(recycling) = %q", got)
	}
}

func TestOfflineWorkDaysAppositionsEndings(t *testing.T) {
	wantSentences(t, []sentenceCase{
		// Working days and how many a week.
		{"i work mondays to thursdays now", []string{"user/work-days=mondays to thursdays"}},
		{"i'm doing 4 days a week from september", []string{"user/work-days=4 days a week"}},
		{"David has moved to a Monday to Friday contract", []string{"david/work-days=Monday to Friday"}},
		{"i worked monday night shift", []string{"-user/work-days=monday"}},
		{"i go to the gym on 3 days a week", []string{"-user/work-days=3 days a week"}},
		// A relation and its name set off by commas: one clause about the named person.
		{"My husband, David, works Tuesday to Saturday at the garden centre", []string{"david/work-days=Tuesday to Saturday", "-user/work-days=Tuesday to Saturday"}},
		{"my sister, Ana, moved to Leeds", []string{"ana/home=Leeds"}},
		// A person described before their name; a bedtime said with "bed at".
		{"our vet is a lady called dr hughes", []string{"user/vet=dr hughes"}},
		{"i'm a night owl, bed at 1am usually", []string{"user/bedtime-time=1am"}},
	})
	// Words that begin like a day ("month", "friend", "wedding") are no day.
	for _, text := range []string{"about £105 a month", "my friend came over", "the wedding was lovely", "a sunny saturated sunday"} {
		if m := daysRe.FindString(text); m != "" && m != "sunday" {
			t.Errorf("daysRe found %q in %q", m, text)
		}
	}
	// The slot named by its attribute ends, whatever value it holds: "sold the car".
	for _, text := range []string{"sold the car last week, cycling everywhere now", "got rid of the car"} {
		res := extract(t, []Input{{Text: text, Values: map[string][]string{"user/car": {"2015 fiesta"}}, Slots: []string{"user/car"}}})
		if got := factKeys(res[0].Facts); !slices.Contains(got, "user/car!=2015 fiesta") {
			t.Errorf("%q: facts %v, want user/car!=2015 fiesta", text, got)
		}
	}
}

func TestOfflineAmountsMoved(t *testing.T) {
	wantSentences(t, []sentenceCase{
		// An amount said to go up or down to a new one, by its label; someone's verb
		// puts the speaker's amount there.
		{"from June my take-home goes up to £2,710", []string{"user/take-home=£2,710"}},
		{"my salary went up to 48k", []string{"user/rate=48k"}},
		{"my dad's rent went up to 900", []string{"dad/rent=900"}},
		{"landlord's putting the rent up to £1,140 from October", []string{"user/rent=£1,140"}},
		{"with the extra money I'm bumping the savings goal up to £8,000", []string{"user/savings-goal=£8,000"}},
		{"they've bumped my lantus up to 20 units", []string{"user/lantus-dose=20 units"}},
		{"diabetes nurse says bump the lantus up to 20 since my mornings are all in the 9s", []string{"user/lantus-dose=20"}},
		{"the school's changed the start time to 8:30 from january", []string{"-user/start-time=8"}},
		// An open label before a clock time; a hyphenated thing is no name.
		{"bedtime: 11pm", []string{"user/bedtime=11pm"}},
		{"wake up: 6:30 on weekdays", []string{"user/wake-time=6:30"}},
		{"Take-home is about £2,450 a month", []string{"-take-home/price=£2,450"}},
		// Subscriptions by brand, several in a clause, one given up; an employer is none.
		{"we've got netflix and crunchyroll at home", []string{"user/subscription=netflix", "user/subscription=crunchyroll"}},
		{"finally cancelled netflix, never watch it", []string{"user/subscription!=netflix"}},
		{"caved and switched to Apple Music", []string{"user/subscription=Apple Music"}},
		{"I got a new job at Spotify", []string{"-user/subscription=Spotify"}},
		// A number moved to another network; a bedtime at midnight.
		{"moved my number over to giffgaff, a tenner a month", []string{"user/phone-plan=giffgaff"}},
		{"asleep around midnight most nights", []string{"user/bedtime-time=midnight"}},
		{"revised the deposit target down to £4,500, the rent rise ate too much", []string{"user/deposit-target=£4,500"}},
		{"TSH came high again so doctor has increased the Thyronorm to 75 mcg", []string{"user/thyronorm=75 mcg"}},
		// A list of subscriptions after a label; one cut with the speaker left out.
		{"Streaming right now: Netflix, Hulu, Spotify family plan. Feels like a lot.", []string{"user/subscription=Netflix", "user/subscription=Hulu", "user/subscription=Spotify"}},
		{"Cut Netflix too. Price hike was the last straw.", []string{"user/subscription!=Netflix"}},
		// A family member named the way families do; an activity taken up after "has".
		{"Our Derek has taken up bowls at the club on Abbey Lane", []string{"derek/hobby=bowls"}},
		// A named animal said to be the speaker's pet, by kind or breed.
		{"Mittens is my old cat, and Rufus is a beagle who thinks he runs the house", []string{"user/pet=Mittens", "user/pet=Rufus"}},
		{"Tom is a lab technician", []string{"-user/pet=Tom"}},
		// A title and a surname are one subject.
		{"my neighbour Mrs Osei takes her cat Pepper to Riverside too", []string{"mrs-osei/pet=Pepper"}},
		{"Mrs Osei moved to Leeds", []string{"mrs-osei/home=Leeds"}},
		// A reader whose value only names its attribute leaves the clause to the next.
		{"my brother Cian has moved to Galway for a job at the university", []string{"cian/home=Galway"}},
	})
}

func TestOfflineCoversAppositionsFragments(t *testing.T) {
	wantSentences(t, []sentenceCase{
		// A role and its holder's name set off by a comma, for the speaker or another.
		{"my sister anika has a new boyfriend, Rory. met him at her birthday drinks", []string{"anika/partner=Rory"}},
		{"we've got a cleaner now, rosa, absolute legend", []string{"user/cleaner=rosa"}},
		{"anika has a boyfriend now, finally", []string{"-anika/partner=boyfriend"}},
		// A clause without a subject of its own goes on with the one before; one who
		// tells the speaker something tells of themselves.
		{"mum told me she's on sertraline too, has been for years, 150mg", []string{"mum/sertraline-dose=150mg", "-user/sertraline-dose=150mg"}},
		{"my brother is on metformin now, 500mg twice a day", []string{"brother/metformin-dose=500mg"}},
		{"Streaming right now: Netflix, Hulu, Spotify family plan.", []string{"user/subscription=Spotify"}},
		// A name in lower case before adverbs and its verb is a subject.
		{"marcus only ever drinks a black americano", []string{"-user/drink=black americano", "-user/job=black americano"}},
		// A "when" clause in the past tells when, not a condition.
		{"jess went vegetarian too when we moved in together", []string{"jess/diet=vegetarian"}},
		// Back to a job; a job given up is none.
		{"the bakery closed down. back to being a barista at the harbour cafe", []string{"user/job=barista"}},
		{"I quit being a lab technician; now I work as a plumber at Kestrel Labs.", []string{"user/job=plumber", "-user/job=lab technician"}},
		// Who holds the speaker's role, said on the way.
		{"my boyfriend tom loves climbing", []string{"user/partner=tom"}},
		// A bare label with a capitalised value, or a number after "on".
		{"boiler cover is with Homeserve now", []string{"user/boiler-cover=Homeserve"}},
		{"hilton status is Gold now, finally", []string{"user/loyalty-status=Gold"}}, // a scheme's tier (TestLoyaltyTier)
		{"thermostat's on 19 in our house", []string{"-thermostat/thermostat=19"}},
		{"main credit card is the amex gold", []string{"user/credit-card=amex gold"}},
		// A topic marker is no value.
		{"ok so hobby-wise I mostly do bouldering these days", []string{"-user/hobby=hobby-wise"}},
		// Supplements are medicines with doses; a number the dose states is no rate.
		{"gp says my vitamin d is low. I'm on 1000 IU a day now", []string{"user/vitamin-d-dose=1000 IU", "-user/rate=1000", "-user/dose=1000"}},
		{"The weather is Nice today", []string{"-user/weather=Nice"}},
		// Texting's short forms and a relation in brackets beside a name.
		{"mgr is denise, kinda micromanage-y", []string{"user/manager=denise"}},
		{"dana (gf) is a nurse at the clinic, nights mostly", []string{"dana/job=nurse", "user/partner=dana", "-user/job=nurse"}},
		{"bro (jake) got a new van yesterday", []string{"-user/car=new van"}},
		{"bestie marcus works as a nurse now", []string{"marcus/job=nurse", "-friend/job=nurse"}},
		{"cousin ruth moved to leeds last month", []string{"ruth/home=leeds"}},
		// A note's label and its amount with no verb; not a name, an amount or an adverb.
		{"401k contrib 6%, employer matches up to 4", []string{"user/401k-contribution=6%", "-user/employer-matches=4"}},
		{"car loan $412/mo, 8 pmts left", []string{"user/car-loan=$412/mo"}},
		{"BP 142/90 at the gp this morning", []string{"user/bp=142/90"}},
		{"labs back, a1c 6.4", []string{"user/a1c=6.4"}},
		{"raise came thru!! 92k -> 98.5k", []string{"-user/92k=98.5k"}},
		{"My IELTS result came out, overall 6.5 but writing is 5.5", []string{"-user/overall=6.5"}},
		{"Annoyingly the nursery fees went up again, another £140", []string{"-user/another=£140", "-annoyingly/another=£140"}},
		// A title and its employer in one clause; a role taken at a place; working for
		// oneself; a relationship's status where no partner is named.
		{"I've been a senior designer at Canva for three years now", []string{"user/job=senior designer", "user/employer=Canva"}},
		{"my brother is a chef at the ivy", []string{"brother/job=chef", "brother/employer=ivy"}},
		{"I'm a teacher at the local school", []string{"user/job=teacher"}},
		{"he started an ops role at Virgin Australia this week", []string{"-user/employer=Virgin Australia"}},
		{"Priya took a position with the NHS last month", []string{"priya/employer=NHS"}},
		{"I went freelance in march", []string{"user/employer=freelance"}},
		{"so we are engaged now, my hands were shaking", []string{"user/relationship-status=engaged"}},
		{"me and tom got engaged", []string{"user/partner=tom", "-user/relationship-status=engaged"}},
		{"is it weird to be single at 40", []string{"-user/relationship-status=single"}},
		// Time spent on a thing by the week; a dropped apostrophe before "with" of a
		// thing the table knows, not of people.
		{"doing about 12 hours of study a week, mostly in the evenings", []string{"user/study=12 hours"}},
		{"broadbands with virgin, 500 meg, and its still rubbish upstairs", []string{"user/broadband=virgin"}},
		// Where a traveller is now; a plan called off by its name, and what it turned to.
		{"Made it to Banff! The lakes are so blue they look photoshopped", []string{"user/location=Banff"}},
		{"we rolled into Moab yesterday and it's 104 degrees", []string{"user/location=Moab"}},
		{"made it to work on time for once", []string{"-user/location=work"}},
		{"Right so, Bray is off. The bank came back with a number", []string{"user/plan!=Bray"}},
		{"Glacier's off — there's a wildfire. So we're heading for Banff instead", []string{"user/plan!=Glacier", "user/plan=Banff"}},
		{"charlotte move is OFF, team stays in philly", []string{"user/plan!=charlotte"}},
		{"mike's southwest got cancelled so he's on UA 587 w me now", []string{"-user/plan!=southwest", "-user/partner!=mike's southwest"}},
		{"the heating's off again, freezing", []string{"-user/plan!=heating"}},
		// A title's full stop ends no sentence; a leader is a manager; a time before the
		// subject; a thing's own name before its kind, and a date after "on".
		{"My leader is Mr. Zhang, very strict but fair", []string{"user/manager=Mr Zhang"}},
		{"from today I'm freelance", []string{"user/employer=freelance"}},
		{"the ÖSD B1 exam is on 14 May, I am nervous already", []string{"user/exam=14 May"}},
		{"Our neighbour Franco is with A2A and he complains", []string{"-franco/partner=A2A"}},
		// A part of the day before the subject scopes the fact and leaves the subject to
		// read; a diet done.
		{"From this week I am doing low-carb. No more white rice in the night", []string{"user/diet=low-carb"}},
		{"now I go swimming three mornings a week", []string{"user/exercise=swimming"}},
		// A name with "'s" and a participle opens a clause of its own; a title given.
		{"typical, i finally get to bath and dan's gone and moved to cardiff for a new job", []string{"dan/home=cardiff", "-user/home=cardiff"}},
		{"lauren got made supervisor at primark!! so proud of her", []string{"lauren/job=supervisor"}},
		// A thing named after "is the" at a sentence's start ("Hotel" has its capital from
		// the sentence).
		{"Hotel is the Memmo Alfama, we splurged a bit", []string{"user/hotel=Memmo Alfama"}},
		{"Hotel is the best part", []string{"-user/hotel=best part"}},
		// A generic head after a word with no cue of the table names its own thing.
		{"Our security company is ADT, armed response is usually quick", []string{"user/security-company=ADT", "-user/employer=ADT"}},
		// A bank or a school by a name that says it is one; diets by name; an -ing clause
		// goes on with the one before unless the speaker speaks of themselves.
		{"sister switched to EQ Bank, she says Simplii's rates tanked", []string{"sister/bank=EQ Bank"}},
		{"Leo starts at Lincoln Elementary tomorrow, he's so nervous", []string{"leo/school=Lincoln Elementary"}},
		{"I've been banting since January, 6kg down", []string{"user/diet=banting"}},
		{"kara quit keto, doing weight watchers now", []string{"-user/diet=weight-watchers"}},
		// An email read by meaning has an address; a password is one word with a digit or
		// a sign.
		{"ugh i misread the email, the deadline is march 16", []string{"-user/email=misread the email", "-user/password=misread the email"}},
		// A flight by its number, in capitals as printed.
		{"flight UA 1423 ORD-DEN 7:05am", []string{"user/flight=UA 1423"}},
		{"united moved me to UA 587 at 9:40. fine i guess", []string{"user/flight=UA 587"}},
		{"i'm on A2 level in german now", []string{"-user/flight=A2"}},
		// A subjectless clause opening with a verb of the third person goes on with the
		// one before; an everyday account's bank; one opened.
		{"Tama traded the Hilux in for a Ranger, reckons the Ford is way comfier on long drives", []string{"-user/car=Ford", "-user/car=Ranger"}},
		{"hey! my chequing account is with TD, have been since uni", []string{"user/bank=TD"}},
		{"my main accounts still with lloyds, been with them since i was 16 lol", []string{"user/bank=lloyds"}},
		{"so I opened a Tangerine account and moved my pay over", []string{"user/bank=Tangerine"}},
		// "=" after a label; a place's name before its street.
		{"gym = planet fitness on ashland, $15/mo", []string{"user/gym=planet fitness"}},
		// An amount moved in a note, without "my" or "the".
		{"bumping 401k to 10% starting next check", []string{"user/401k=10%"}},
		{"401k back to 6%, need the cash for the wedding", []string{"user/401k=6%"}},
		{"rent up to $1900 from june, ugh", []string{"user/rent=$1900"}},
		// A label of two plain nouns names its thing for any value after the colon; one
		// the table has a word for, or the news's source, does not.
		{"dissertation topic: cycle lane uptake in post-industrial towns. sexy stuff", []string{"user/dissertation-topic=cycle lane uptake"}},
		{"hair colour: pink, fading fast", []string{"user/hair-colour=pink"}},
		{"council letter: recycling moves to tuesdays from may", []string{"-user/council-letter=moves"}},
		{"wifi provider: Plusnet", []string{"-user/wifi-provider=Plusnet"}},
		// A label and that its thing was settled; a day's date after a label.
		{"EXAM DATE IS SET: june 4!! mum already has it on the fridge", []string{"user/exam-date=june 4"}},
		{"essay topic locked in: tidal energy in estuaries", []string{"user/essay-topic=tidal energy"}},
		{"dinner: march", []string{"-user/dinner=march"}},
		// A service and its verb in one word, with its provider after "with".
		{"pension's with Nest through work", []string{"user/pension=Nest"}},
		{"energy's with Octopus I think", []string{"user/energy-supplier=Octopus"}},
		{"we're mortgaged with Nationwide, fixed till march", []string{"user/mortgage=Nationwide"}},
		{"he asks why the wifi's fast now", []string{"-user/broadband=fast"}},
	})
	// A question asked without its question mark states nothing; "which means …" and
	// "what a …" are no questions.
	for text, asks := range map[string]bool{
		"what's a good pudding to bring to a dinner party that isn't trifle":   true,
		"is it bad that i give the cats a tiny bit of butter sometimes":        true,
		"how do i ask for a raise without sounding entitled":                   true,
		"which means i had to change my flight to june 11":                     false,
		"what a week, finally moved into the new flat in Leeds":                false,
		"is mint mobile actually good or is it a scam, $15 a month seems fake": true,
		"is the hulu disney bundle cheaper than just hulu by itself":           true,
		"should be £128 a month from june":                                     false,
	} {
		if got := askedPlainly(skipFillers(tokenize(text))); got != asks {
			t.Errorf("askedPlainly(%q) = %v, want %v", text, got, asks)
		}
	}
	if res := extract(t, []Input{{Text: "my boyfriend tom loves climbing"}}); len(res[0].Facts) < 2 || res[0].Facts[0].Subject != "tom" {
		t.Errorf("the memory's own fact first, who holds the role after: %v", factKeys(res[0].Facts))
	}
	if res := extract(t, []Input{{Text: "marcus only ever drinks a black americano"}}); !slices.ContainsFunc(res[0].Facts, func(f Fact) bool { return f.Subject == "marcus" }) {
		t.Errorf("marcus's drink: facts %v, want marcus's", factKeys(res[0].Facts))
	}
	for _, text := range []string{"jess went vegetarian too when we moved in together", "i was vegan when i was at uni"} {
		res := extract(t, []Input{{Text: text}})
		for _, f := range res[0].Facts {
			if f.Scope != "" {
				t.Errorf("%q: %s has scope %q; a past when-clause is no condition", text, f.Group(), f.Scope)
			}
		}
	}
	if res := extract(t, []Input{{Text: "i only drink coffee when i'm at work"}}); !slices.ContainsFunc(res[0].Facts, func(f Fact) bool { return f.Scope != "" }) {
		t.Errorf("a present when-clause lost its scope: %v", factKeys(res[0].Facts))
	}
	// One who leaves a role and one who takes it over; a lone dose of the subject's one
	// medicine.
	for _, tt := range []struct {
		text, slot, old, want string
	}{
		{"abena's off on a 6 month secondment from april, Marcus is covering as my manager", "user/manager", "Abena", "user/manager=Marcus"},
		{"Okafor's off on sabbatical from april, Dr Lindqvist is taking me on", "user/supervisor", "Dr Okafor", "user/supervisor=Dr Lindqvist"},
		{"dr shah is retiring so they've handed me over to a woman called Dr Bello", "user/doctor", "dr shah", "user/doctor=Dr Bello"},
		{"abena's off on maternity leave from may", "user/manager", "Abena", "user/manager!=Abena"},
		{"Steve's retired!! so it's Warmworks' new guy Paddy who'll look after the boiler now", "user/boiler-guy", "Steve", "user/boiler-guy=Paddy"},
		{"reorg news: Marta's gone over to platform, and Ben Adeyemi is our lead now too", "user/manager", "Marta", "user/manager=Ben Adeyemi"},
		{"the gp bumped my dose up to 100mg", "user/sertraline-dose", "50mg", "user/sertraline-dose=100mg"},
		{"sorry I said 1000 the other day - checked the box properly and it's 2000 IU", "user/vitamin-d-dose", "1000 IU", "user/vitamin-d-dose=2000 IU"},
		{"mum is the one on 1000 IU, her tub lives at ours", "user/vitamin-d-dose", "2000 IU", "-user/vitamin-d-dose=1000 IU"},
		// A switch ends the value it names, or the same kind of service; a return ends
		// the newer one.
		{"the cetirizine's been making me drowsy, pharmacist said try fexofenadine so ive switched", "user/medication", "cetirizine", "user/medication!=cetirizine"},
		{"moved to Apple Music, got it free for 6 months with the new phone", "user/subscription", "Spotify", "user/subscription!=Spotify"},
		{"got the mri back on the 20th: torn meniscus, left knee", "user/injury", "knee", "-user/injury!=knee"},
		{"switched gyms, still doing yoga and pilates", "user/hobby", "pilates", "-user/hobby!=pilates"},
		{"since I'm lactose intolerant I'm trying out dairy-free options like coconut or almond milk instead", "user/intolerance", "lactose intolerant", "-user/intolerance!=lactose intolerant"},
		{"I also enjoy aerial yoga, it's a great way to switch off and focus on my body", "user/exercise", "aerial yoga", "-user/exercise!=aerial yoga"},
		{"anika and rory are done. she says she's fine", "anika/partner", "Rory", "anika/partner!=Rory"},
		// A correction denies the old value it names when the slot does not hold it (the
		// memory that said it had no fact read); a slot's own value is corrected as before.
		{"wait no, my manager is denise not karen", "user/manager", "Sue", "user/manager!=karen"},
		{"sorry i meant 40, not 14. 14 would be going backwards lol", "user/running-distance", "14 km", "-user/running-distance!=14"},
		{"the title kicks in on the 1st of august, not july", "user/start-date", "may", "-user/start-date!=july"},
		{"my manager is denise, not sure for how long", "user/manager", "Sue", "-user/manager!=sure"},
		// A cleft's value is the new one; a value denied is not also stated.
		{"correction - it's youtube music that came w the phone, not apple music", "user/subscription", "apple music", "user/subscription!=apple music"},
		{"correction - it's youtube music that came w the phone, not apple music", "user/subscription", "apple music", "-user/subscription=apple music"},
		// "i told you X (for the Y), it's Z": the slot its label names, or the one that
		// holds X.
		{"oh i told you sky for the broadband, its actually bt, sky was the one we nearly went with", "user/broadband", "sky", "user/broadband=bt"},
		{"oh i told you sky for the broadband, its actually bt", "user/broadband", "sky", "user/broadband!=sky"},
		{"omg i told you the 25th, its the 26th, i misread the email", "user/flight-date", "25th", "user/flight-date=26th"},
		{"i told you it was fine, it's not", "user/mood", "fine", "-user/mood!=fine"},
		{"wait no i told you the rent was 1150, its £1250, forgot we pay extra", "user/rent", "£1150", "user/rent=£1250"},
		{"oops I told you One NZ before but I actually went with Skinny", "user/phone", "One NZ", "user/phone=Skinny"},
		// Of two values of one slot, the one it holds is named on the way.
		{"moved from leeds to york last week", "user/home", "leeds", "-user/home=leeds"},
		// One who goes on leave, named by the first name, and who covers from a team.
		{"Rachel's going on maternity leave, Tom from platform is covering for her until she's back", "user/manager", "Rachel Kim", "user/manager=Tom"},
		{"Mrs. Okafor is on medical leave, Mr. Brandt is subbing for the rest of the semester", "leo/teacher", "Mrs Okafor", "leo/teacher=Mr. Brandt"},
		{"Priya's handed in her notice. Until they hire someone, Gareth from the platform team is covering as my manager", "user/manager", "Priya", "user/manager=Gareth"},
		// An amount moved without its thing takes the one slot whose value has its unit.
		{"bumped to 5x/wk for the half in may", "user/run", "3x/wk", "user/run=5x/wk"},
		{"PT says back to 3x/wk for a month. ugh", "user/run", "5x/wk", "user/run=3x/wk"},
		{"ally dropped to 3.9%. annoying", "user/savings-rate", "4.4%", "user/savings-rate=3.9%"},
		{"cut to 4.0%, staying put tho", "user/run", "3x/wk", "-user/run=4.0%"},
	} {
		res := extract(t, []Input{{Text: tt.text, Values: map[string][]string{tt.slot: {tt.old}}, Slots: []string{tt.slot}}})
		key, not := strings.CutPrefix(tt.want, "-")
		if got := factKeys(res[0].Facts); slices.Contains(got, key) == not {
			t.Errorf("%q after %s=%s: facts %v, want %s", tt.text, tt.slot, tt.old, got, tt.want)
		}
	}
}

// TestScopeOfPartOfDay checks that a part of the day scopes a fact without taking the
// rest of its clause.
func TestScopeOfPartOfDay(t *testing.T) {
	wantEach(t, "scope", scope, map[string]string{
		"in the morning now he drinks cappuccino instead of chimarrão": "in the morning",
		"at weekends we go to the allotment":                           "at weekends",
		"he drinks cappuccino now":                                     "",
		// A habit's days before the event they narrow; one week apart, said as such.
		"fridays swim club is 7:30 because of the gala":   "on fridays",
		"recycling goes out saturday for that week only":  "for that week only",
		"Labour Day week the lessons move to 5":           "Labour Day week",
		"they moved me up to the B2 group from this week": "",
	})
	// A day said before the event, with no day of its own, is the time's condition.
	res := extract(t, []Input{{Text: "also on Mondays standup moves to 10:00 because of the all-hands", Values: map[string][]string{"user/standup-time": {"9:30"}}, Slots: []string{"user/standup-time"}}})
	if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool {
		return f.Attribute == "standup-time" && f.Value == "10:00" && f.Scope == "on Mondays"
	}) {
		t.Errorf("facts %+v, want standup-time=10:00 on Mondays", res[0].Facts)
	}
	var ppl people
	ts := tokenize("in the morning now he drinks cappuccino")
	ppl.last = "thiago"
	if subj, _, _ := ppl.subject(ts, "user"); subj != "thiago" {
		t.Errorf("subject after a part of the day: %q, want thiago", subj)
	}
}

// TestKnownPersons checks that a person a slot holds, named after a clause's subject, is
// whom a pronoun means next, and that the last session with them ends their service.
func TestKnownPersons(t *testing.T) {
	values := map[string][]string{"user/therapist": {"Dana Whitfield"}, "jess/job": {"nurse"}}
	res := extract(t, []Input{{Text: "had my last session with Dana today, she's relocating to Portland", Values: values, Slots: []string{"user/therapist", "jess/job"}, Referent: "jess"}})
	got := factKeys(res[0].Facts)
	for _, want := range []string{"user/therapist!=Dana Whitfield", "dana/home=Portland"} {
		if !slices.Contains(got, want) {
			t.Errorf("facts %v, want %s", got, want)
		}
	}
	if slices.Contains(got, "jess/home=Portland") {
		t.Errorf("facts %v: she is Dana, not jess", got)
	}
	// A person named in the subject with another is no referent of "she": the subject is.
	res = extract(t, []Input{{Text: "My mom and Ignacio split up; she is with Leopold now.", Values: map[string][]string{"mum/partner": {"Ignacio"}}, Slots: []string{"mum/partner"}}})
	if got := factKeys(res[0].Facts); slices.Contains(got, "ignacio/partner=Leopold") {
		t.Errorf("facts %v: she is mum", got)
	}
	// Only a person's first name stands for them: "So much has gone on" ends no "much fun
	// swimming".
	res = extract(t, []Input{{Text: "So much has gone on, both good and bad.", Values: map[string][]string{"max/exercise/much-fun-swimming": {"much fun swimming"}}, Slots: []string{"max/exercise/much-fun-swimming"}}})
	if got := factKeys(res[0].Facts); len(got) > 0 {
		t.Errorf("facts %v, want none", got)
	}
	res = extract(t, []Input{{Text: "had my last session with Priya today", Values: values, Slots: []string{"user/therapist"}}})
	if got := factKeys(res[0].Facts); slices.ContainsFunc(got, func(k string) bool { return strings.Contains(k, "!=") }) {
		t.Errorf("facts %v: nobody the slots hold is named", got)
	}
}

// TestShapelessAddresses checks the shapes of an email and a password read by meaning.
func TestShapelessAddresses(t *testing.T) {
	for _, tt := range []struct {
		attr, value string
		junk        bool
	}{
		{"email", "misread the email", true},
		{"email", "sam@example.com", false},
		{"password", "lloyds", true},
		{"password", "conf 88213", true},
		{"password", "BlueFox99", false},
	} {
		if got := shapeless(Fact{Subject: "user", Attribute: tt.attr, Value: tt.value, Confidence: 0.6}, false); got != tt.junk {
			t.Errorf("shapeless(%s=%q) = %v, want %v", tt.attr, tt.value, got, tt.junk)
		}
	}
}

// A state ended by its name (ended.go), in sentences written for the purpose: the name
// the ending gives, with the common words around it left out, and no name where the
// ending is denied, is someone else's act on the way, or ends a meal.
func TestEndedNames(t *testing.T) {
	cases := map[string][]string{
		"finally cancelled the Audible sub, never listened to it":         {"Audible"},
		"had to stop seeing Amadi, the practice closed":                   {"Amadi"},
		"sorry, its C1 not B2, misread the letter":                        {"B2"},
		"lidl dropped the price to 1.49":                                  nil,
		"Wren: Big Thief has been dethroned":                              {"Big Thief"},
		"spin is dead to me, rowing now":                                  {"spin"},
		"the Ritz cancelled on us, overbooked":                            {"Ritz"},
		"my brother joris is over in rotterdam":                           nil,
		"my physio Anouk is off on maternity leave":                       {"physio Anouk"},
		"the basil plant didn't make it":                                  {"basil plant"},
		"we're doing Crete instead of Sicily this year":                   {"Sicily"},
		"no more Headspace for me, the app was useless":                   {"Headspace"},
		"switched my savings from Chase to Ally":                          {"Chase"},
		"Marguerite retired!! so the bakery has a new owner":              {"Marguerite"},
		"the Corsa was written off in the crash":                          {"Corsa"},
		"sorry, the 14th was the other option, we went with the 21st":     {"14th"},
		"okafor sold the whole building, new landlord next month":         {"okafor"},
		"unsubscribed from Duolingo Max":                                  {"Duolingo Max"},
		"julien's left the Pharmacie Centrale":                            {"Pharmacie Centrale"},
		"Tariq moved out on sunday, the flat is so quiet":                 {"Tariq"},
		"bea dropped out, work thing that week":                           {"bea"},
		"marguerite handed it over to her deputy":                         {"marguerite"},
		"sorry i said thursday before, it's friday":                       {"thursday"},
		"turns out the venue is not actually Hopetoun House, it's Dundas": {"Hopetoun House"},
		"I'm not giving up my gym membership":                             nil,
		"leo left his lunchbox at school again":                           nil,
		"finished the wine last night":                                    nil,
		"we left for Porto on friday":                                     nil,
		"it hasn't stopped raining all week":                              nil,
		"cancelled the meeting, nobody had anything":                      nil,
		// Session 25's forms: notice given, a job packed in, a thing written off or
		// cancelled by an imperative, given up on, gone, gone bust or into
		// administration, closed, withdrawn, finished up, shifted from, a goodbye.
		"Tunde gave his notice at Brightwater yesterday":            {"Brightwater"},
		"mam packed in the Tesco job, her back couldn't take it":    {"Tesco job"},
		"Nkechi wrote off the Yaris on the ring road, she's fine":   {"Yaris"},
		"cancel Lisbon, the strike's on that week":                  {"Lisbon"},
		"we've given up on Harlow Dental, three cancellations":      {"Harlow Dental"},
		"the Passat is gone, sold it to a lad from Ennis":           {"Passat"},
		"Fernhill Stores has gone into administration":              {"Fernhill Stores"},
		"the bakery on Quay Street went bust":                       {"Quay Street"},
		"Greggs closed down last week":                              {"Greggs"},
		"the Marlow Road flat has been withdrawn":                   {"Marlow Road flat"},
		"Ottilie finished up on friday, her last shift was a blast": {"Ottilie"},
		"shifted from Airtel to Jio last month":                     {"Airtel"},
		"new bank card came, so goodbye Santander":                  {"Santander"},
		"Kofi went on paternity leave, Ama covers the desk":         {"Kofi"},
		"the Wednesday ceramics class is cancelled for the term":    {"Wednesday ceramics class"},
		"Dr Ruiz stopped prescribing the Zomig, we're on Maxalt":    {"Zomig"},
		"shes gone back to her mams for the weekend":                nil,
		"Marek's gone and bought another bike":                      nil,
		"she finished up the report at midnight":                    nil,
		"Monzo is gone as well, closed it on friday":                {"Monzo"},
		"way too much karaoke, my voice is gone":                    nil,
	}
	for text, want := range cases {
		p := prepareForTest(t, text)
		var got []string
		for _, e := range endedNames(p) {
			got = append(got, e.value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("endedNames(%q) = %q, want %q", text, got, want)
		}
	}
	// The ended name is a denied fact: of the memory's one other fact's slot, the state
	// that replaces it, or else of its own "named" group.
	wantFacts(t, "bex left?? new manager is tariq", []string{"user/manager!=bex"})
	// A denial the meaning read keeps its attribute, certain now.
	fs := extract(t, []Input{{Text: "no more Headspace for me"}})[0].Facts
	if !slices.ContainsFunc(fs, func(f Fact) bool { return f.Negated && f.Value == "Headspace" && f.Confidence == 0 }) {
		t.Errorf("no more Headspace for me: facts %v, want a certain denial of Headspace", factKeys(fs))
	}
	wantFacts(t, "Lukas: dropped the BahnCard", []string{"lukas/named!=BahnCard"})
}

// prepareForTest splits text into clauses with their subjects, as Extract does before
// it reads them.
func prepareForTest(t *testing.T, text string) prepared {
	t.Helper()
	p := prepared{self: "user", corrects: correctingRe.MatchString(text)}
	var ppl people
	for _, s := range sentences(shorthand(unshout(text))) {
		for _, c := range clauses(s.text) {
			cl := clause{toks: c, text: join(c)}
			cl.subj, cl.rest, cl.role = ppl.subject(c, "user")
			p.clauses = append(p.clauses, cl)
		}
	}
	return p
}

// How long a document holds, said apart from its name, and a document that runs out
// in a bare year; a document is nobody's name. Sentences written for the purpose.
func TestDocumentValidity(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"got the new driving licence in the post, valid until 2034", []string{"user/licence-expiry=2034"}},
		{"visa came through!! good til march 2027", []string{"user/visa-expiry=march 2027"}},
		{"my railcard expires in 2026", []string{"user/railcard-expiry=2026"}},
		{"passport runs out in october", []string{"user/passport-expiry=october"}},
		{"the cheese is good til friday", []string{"-user/cheese-expiry=friday"}},
	})
	// Two documents leave it unread.
	if _, ok := validUntil("passport and visa both renewed, valid till 2030", "user"); ok {
		t.Error("two documents read as one validity")
	}
}

// A role described and placed in time before its holder's name, set off by a comma.
// Sentences written for the purpose.
func TestRoleDescribedBeforeName(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"I have also a private tutor online, Frau Keller", []string{"user/teacher=Frau Keller"}},
		{"we got a new cleaner on fridays, Rosa", []string{"user/cleaner=Rosa"}},
		{"I have a maths tutor again, Mr Okoro", []string{"user/teacher=Mr Okoro"}},
		{"I went to a lovely café online, Bean There", []string{"-user/teacher=Bean There"}},
	})
}

// A thing the speaker switched from one provider to another, named with "my".
// Sentences written for the purpose.
func TestSwitchedOwnThing(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"transferred my pension from Aviva to Nest last spring", []string{"user/pension=Nest"}},
		{"moved my savings account from ING to Bunq", []string{"user/bank=Bunq"}},
		{"moved my current acct to nationwide", []string{"user/bank=nationwide"}},
		{"Ade: putting 5% into my 401k, HR says that's the match", []string{"ade/401k=5%"}},
		{"paying 200 a month into the ISA", []string{"user/isa=200 a month"}},
		{"Kit: Omar still owes me £40 from the festival", []string{"omar/owes-kit=£40"}},
		{"Kit: Omar owes me nothing now, we're square", []string{"omar/owes-kit=0"}},
		{"I owe mum 120 for the flights", []string{"user/owes-mum=120"}},
		{"please call me Jo, only my dad says Joanna", []string{"user/preferred-name=Jo"}},
		{"I'd rather go by Robin from now on", []string{"user/preferred-name=Robin"}},
		{"call me when you land", []string{"-user/preferred-name=when"}},
		{"You might as well call me Marjorie now", []string{"user/preferred-name=Marjorie"}},
		{"I should like it if you call me Dr. Okonjo in letters", []string{"user/preferred-name=Dr Okonjo"}},
		{"you call me when you're back", []string{"-user/preferred-name=when"}},
		// A greeting asked as a question asks nothing.
		{"How do you do. Please call me Mrs. Achterberg.", []string{"user/preferred-name=Mrs Achterberg"}},
		{"hey, how are you? we moved to Galway last week", []string{"user/home=Galway"}},
		{"Ines: sharing a flat in Poblenou with two cyclists", []string{"ines/home=Poblenou"}},
		{"changed my mind from yes to no", []string{"-user/mind=no"}},
		{"tap moved my flight to may 10", []string{"-user/flight=10"}},
	})
}

// "the commute", "the rent": a thing each speaker has one of, said with "the"; a name
// before the role set off by commas; labels that name their thing plainly.
func TestOwnThingsNamedPlainly(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"The rent is going up to 1,300 in May", []string{"user/rent=1,300"}},
		{"the commute's about 40 minutes these days", []string{"user/commute=40 minutes"}},
		{"the commute to the lake was lovely", []string{"-user/commute=lake"}},
		{"Aaron, my landlord, finally fixed the boiler", []string{"user/landlord=Aaron"}},
		{"Delia, my new boss, starts on Monday", []string{"user/manager=Delia"}},
		{"Sam, my brother's friend, is coming over", []string{"-user/friend=Sam"}},
		{"hotel booked: the Grand Budapest, 3 nights", []string{"user/lodging=Grand Budapest"}},
		{"heating timer: 7am and 6pm", []string{"user/heating-timer=7am"}},
		{"running shoes: Brooks Ghost", []string{"user/running-shoes=Brooks Ghost"}},
		{"fav podcast rn is Desert Island Discs", []string{"user/favourite-podcast=Desert Island Discs"}},
		{"Hugo got headhunted by Stripe", []string{"hugo/employer=Stripe"}},
		{"they've moved again, from Croydon to Bromley", []string{"user/home=Bromley"}},
		{"Maya: aaand Idris is back with Noor", []string{"idris/partner=Noor", "-aaand/partner=Noor"}},
		{"Finished Middlemarch at last, on Oskar's advice", []string{"user/named!=Middlemarch", "-oskar/named!=Middlemarch"}},
		{"Tom: Ava and Reuben called off the engagement, she's fine", []string{"ava/partner!=Reuben"}},
	})
	if got := daysRe.FindString("everyone's in Monday to Thursday now"); got != "Monday to Thursday" {
		t.Errorf("days %q, want a range: Monday to Thursday", got)
	}
	if sc := scope("Mr Brandt is covering for the rest of the semester"); sc != "" {
		t.Errorf("scope %q: for the rest of a term is from now on, no condition", sc)
	}
	if !newsOf("gym update") || newsOf("the Guardian") {
		t.Error(`"gym update" is a chat opener's label, "the Guardian" a value`)
	}
	if !SameValue("the 11th", "March 11") || SameValue("the 11th", "March 12") {
		t.Error(`"the 11th" and "March 11" are one date, "March 12" another`)
	}
}

// "not" after the one it denies, or opening the clause, denies; "not giving up" keeps.
func TestNotDenies(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"I'm not allergic to amoxicillin after all", []string{"user/allergy!=amoxicillin"}},
		{"my son is allergic to sesame, we found out at nursery", []string{"son/allergy=sesame", "-son/allergy=allergic"}},
		{"results: NOT allergic to amoxicillin", []string{"user/allergy!=amoxicillin"}},
		{"not giving up my oat latte, ever", []string{"-user/drink!=oat latte"}},
		// In a correction, what the speaker reports having said is the value corrected.
		{"hang on, I told you the rent went to £1,300 — misread it, it's £1,280", []string{"user/rent!=£1,300"}},
		{"Sorry I told you wrong: the commute is still 40 minutes", []string{"-user/commute!=40 minutes"}},
	})
	for text, want := range map[string]bool{"wait i said 40 min before": true, "I told you the 14th": true, "I told you wrong": false, "i said wrong": false, "they said 40": false} {
		if got := saysWhatWasSaid(tokenize(text)); got != want {
			t.Errorf("saysWhatWasSaid(%q) = %v, want %v", text, got, want)
		}
	}
	if !mentionsAttribute(Fact{Attribute: "flights", Value: "waste those flights"}) {
		t.Error(`"waste those flights" read as a value of flights`)
	}
}

// A loyalty scheme's tier is one slot of its holder, whatever the scheme; a card, a medal
// or jewellery in gold is none (written for the purpose).
func TestLoyaltyTier(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"finally platinum on marriott bonvoy, the suite upgrades begin", []string{"user/loyalty-status=Platinum"}},
		{"Hilton knocked me down to Silver, I barely travelled", []string{"user/loyalty-status=Silver"}},
		{"made Emirates Gold this week after all the Dubai runs", []string{"user/loyalty-status=Gold"}},
		{"my brother Sami is diamond with Delta, gets upgraded every time", []string{"sami/loyalty-status=Diamond"}},
		{"not gold on BA anymore, dropped a tier", []string{"user/loyalty-status!=Gold"}},
		{"she won gold at the county championships", []string{"-user/loyalty-status=Gold"}},
		{"my gold earrings went missing at the gym", []string{"-user/loyalty-status=Gold"}},
		{"got approved for an Amex Gold, points galore", []string{"-user/loyalty-status=Gold"}},
	})
}

// A value said to have ended is taken up again by name: "back on X", "resubscribed to
// X", shown as an ended value (Input.Ended) or told by an earlier input of the call.
func TestReturnToEndedValue(t *testing.T) {
	ended := map[string][]string{"user/subscription/headspace": {"Headspace"}}
	for _, text := range []string{"back on Headspace, the free app wasn't cutting it", "resubscribed to Headspace this morning", "rejoined Headspace after the sale"} {
		res := extract(t, []Input{{Text: text, Slots: []string{"user/subscription"}, Ended: ended}})
		if got := factKeys(res[0].Facts); !slices.Contains(got, "user/subscription=Headspace") {
			t.Errorf("%q: facts %v, want user/subscription=Headspace", text, got)
		}
	}
	res := extract(t, []Input{{Text: "cancelled Duolingo Plus, not worth it"}, {Text: "back on Duolingo Plus, the streak called"}})
	first, second := factKeys(res[0].Facts), factKeys(res[1].Facts)
	if len(first) == 0 || !strings.Contains(first[0], "!=Duolingo Plus") || !slices.Contains(second, strings.Replace(first[0], "!=", "=", 1)) {
		t.Errorf("facts %v then %v, want the ended value's slot taken up again", first, second)
	}
	if got := factKeys(extract(t, []Input{{Text: "back on Headspace, the free app wasn't cutting it"}})[0].Facts); slices.Contains(got, "user/subscription=Headspace") {
		t.Errorf("no ended value known: facts %v", got)
	}
}

// Who does which chore: each doer's chore, several of one doer joined; the bins' day or
// a kitchen one is in is no chore (written for the purpose).
func TestChores(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"new rota: I'm on ironing and Priya does the dishes", []string{"user/chore=ironing", "priya/chore=dishes"}},
		{"Marek is doing the bathroom this month, poor guy", []string{"marek/chore=bathroom"}},
		{"recycling is my job now and mopping is Dana's", []string{"user/chore=recycling", "dana/chore=mopping"}},
		{"swapped again: I do the kitchen + floors, Tom has the bathroom", []string{"user/chore=kitchen and floors", "tom/chore=bathroom"}},
		{"the bins go out on Thursday night", []string{"-user/chore=bins"}},
		{"I'm in the kitchen baking bread all afternoon", []string{"-user/chore=kitchen"}},
	})
}

// Units written out are their short forms ("100 milligrams" is 100mg), a move may say
// two particles ("dropping back down to 50 milligrams"), and a setting verb says where a
// thing of the speaker's is set (written for the purpose).
func TestSpelledUnitsAndSettings(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"the consultant is putting me up to 20 milligrams of the citalopram", []string{"user/citalopram-dose=20 milligrams"}},
		{"thermostat sits at 18 overnight now", []string{"user/thermostat=18"}},
		{"overdraft is at 450 after the car repair", []string{"user/overdraft=450"}},
		{"Priya is at 450 followers already", []string{"-user/priya=450"}},
	})
	res := extract(t, []Input{{Text: "we're dropping back down to 10 milligrams next week", Values: map[string][]string{"user/citalopram-dose": {"20mg"}}}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "user/citalopram-dose=10 milligrams") {
		t.Errorf("facts %v, want user/citalopram-dose=10 milligrams (the unit of 20mg, spelled out)", got)
	}
	if unitOf("100 milligrams") != unitOf("100mg") {
		t.Error("milligrams and mg are one unit")
	}
}

// Politeness and "note that" open a clause without being its subject (written for the
// purpose).
func TestPolitenessIsNoSubject(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"Please note that my cousin Irena has moved to Brno", []string{"irena/home=Brno", "-please/home=Brno"}},
		{"Kindly remember that I am living in Ghent now", []string{"user/home=Ghent", "-kindly/home=Ghent"}},
		{"For your information, my brother Omar works at Siemens now", []string{"omar/employer=Siemens"}},
	})
}

// A language level on the CEFR scale and a work shift are slots of their holder; an exam
// passed, a visa's class, a night out are none (written for the purpose).
func TestLevelsAndShifts(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"my teacher says I'm a solid C1 in French now", []string{"user/language-level=C1"}},
		{"Marta started the A2.2 course at the Goethe-Institut", []string{"marta/language-level=A2.2"}},
		{"the tutor moved me up to B2 after the mock", []string{"user/language-level=B2"}},
		{"passed the B1 exam last month", []string{"-user/language-level=B1"}},
		{"my B1/B2 visa runs out in August", []string{"-user/language-level=B1"}},
		{"they've put me on earlies for the whole of March", []string{"user/shift=earlies"}},
		{"Amara works nights at the care home", []string{"amara/shift=nights"}},
		{"Joe switched to day shifts, finally a normal sleep", []string{"joe/shift=days"}},
		{"with Ravi on lates I cook for one most evenings", []string{"ravi/shift=lates", "-user/shift=lates"}},
		{"we go on nights out every friday", []string{"-user/shift=nights"}},
		{"I work days like this one from home", []string{"-user/shift=days"}},
	})
}

// A week or season apart and a day's part are conditions; a bare hour moved by someone
// fits a slot of times, never one of names (written for the purpose).
func TestWeeksApartAndBareHours(t *testing.T) {
	wantEach(t, "scope", scope, map[string]string{
		"easter week the gym opens at 10 instead":           "easter week",
		"sunday evenings tho = pizza, no exceptions":        "sunday evenings",
		"over the holidays the cleaner comes on wednesdays": "over the holidays",
		"I moved to Hull on friday morning":                 "",
	})
	res := extract(t, []Input{{Text: "Priya moved the retro to 3 😩", Values: map[string][]string{"user/manager": {"Priya"}, "user/retro-time": {"2pm"}}}})
	if got := factKeys(res[0].Facts); slices.Contains(got, "user/manager=3") {
		t.Errorf("facts %v: an hour is no manager", got)
	}
	if !kindFits([]string{"9:30"}, "10") || kindFits([]string{"Priya"}, "10") {
		t.Error("a bare hour fits clock times, not names")
	}
}

// A value of a kind said of someone else is none of the speaker's slots of that kind
// (written for the purpose).
func TestValueOfKindSaidOfAnother(t *testing.T) {
	vals := map[string][]string{"user/bin-day": {"Monday"}}
	res := extract(t, []Input{{Text: "Omar's rota changed so he does Wednesdays now", Values: vals}})
	if got := factKeys(res[0].Facts); slices.Contains(got, "user/bin-day=Wednesdays") {
		t.Errorf("facts %v: Omar's day is not the bins'", got)
	}
	res = extract(t, []Input{{Text: "council changed the rounds, ours go out wednesdays from now on", Values: vals}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "user/bin-day=wednesdays") {
		t.Errorf("facts %v, want user/bin-day=wednesdays", got)
	}
}

// A bank known by its name is the bank of whoever is with it or moves to it; a word that
// is also a bank's name is one only with a capital (written for the purpose).
func TestKnownBanks(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"been with Santander since uni, the app is fine", []string{"user/bank=Santander"}},
		{"my pay goes into nationwide now", []string{"user/bank=nationwide"}},
		{"Lena moved to Revolut as well", []string{"lena/bank=Revolut"}},
		{"my salary account is at Rabobank", []string{"user/bank=Rabobank"}},
		{"I need to chase the landlord about the boiler", []string{"-user/bank=the landlord"}},
		{"I've been with Tom since we were nineteen", []string{"-user/bank=Tom"}},
		{"Big change: I relocated to Halifax.", []string{"user/home=Halifax", "-user/bank=Halifax"}},
		{"moved my current account over to Halifax", []string{"user/bank=Halifax"}},
	})
}

// When a document runs out, in more words; a month is a value though "may" is a verb; a
// slot of dates takes no ticket by meaning; of two slots of dates, a changed date joins
// the one the text names (written for the purpose).
func TestExpiriesAndDatedSlots(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"My passport expires in May, so I need to sort it", []string{"user/passport-expiry=May"}},
		{"my residence permit is expiring in March 2027", []string{"user/permit-expiry=March 2027"}},
		{"the new visa came, it is valid for five years, until April 2031", []string{"user/visa-expiry=April 2031"}},
		{"renewed the passport and it expires 2036 now", []string{"user/passport-expiry=2036"}},
		{"you may want to book early", []string{"-user/passport-expiry=May"}},
	})
	res := extract(t, []Input{{Text: "passport expires in June 2027, need to renew"}, {Text: "switched to the Deutschlandticket, 58 a month"}})
	for _, k := range factKeys(res[1].Facts) {
		if strings.HasPrefix(k, "user/passport-expiry") {
			t.Errorf("facts %v: a ticket is no expiry date", factKeys(res[1].Facts))
		}
	}
	vals := map[string][]string{"user/flight": {"3 October"}, "user/passport-expiry": {"9 December"}}
	res = extract(t, []Input{{Text: "the airline has changed the flight, now it departs on 2 October", Values: vals}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "user/flight=2 October") {
		t.Errorf("facts %v, want user/flight=2 October (the slot the text names)", got)
	}
}

// A message's "<thing> update:" label names the speaker's slot whose kind of value it
// holds (written for the purpose).
func TestNewsLabelNamesSlot(t *testing.T) {
	vals := map[string][]string{"user/swim": {"7am"}}
	res := extract(t, []Input{{Text: "swim update: early mornings are over. I go at 6pm now", Values: vals}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "user/swim=6pm") {
		t.Errorf("facts %v, want user/swim=6pm", got)
	}
	res = extract(t, []Input{{Text: "work update: the new office opens at 6pm on fridays", Values: vals}})
	if got := factKeys(res[0].Facts); slices.Contains(got, "user/swim=6pm") {
		t.Errorf("facts %v: the label names no swim", got)
	}
}

// How often and on which day one who serves the household comes is one slot of the
// role's (written for the purpose).
func TestVisits(t *testing.T) {
	res := extract(t, []Input{
		{Text: "our dog walker Sam comes every other tuesday, the dog adores him"},
		{Text: "Sam's coming every tuesday now, weekly, since I'm back in the office"},
		{Text: "Sam can't do tuesdays anymore so he's moving us to wednesdays"},
		{Text: "my cousin comes every sunday for lunch"},
		{Text: "Mum's carer, Irene, visits on Mondays and Fridays."},
	})
	want := [][]string{{"user/dog-walker-visits=fortnightly tuesday"}, {"user/dog-walker-visits=weekly tuesday"}, {"user/dog-walker-visits=wednesday"}, nil, {"mum/carer-visits=monday and friday"}}
	for i, w := range want {
		got := factKeys(res[i].Facts)
		for _, k := range w {
			if !slices.Contains(got, k) {
				t.Errorf("input %d: facts %v, want %s", i, got, k)
			}
		}
		if w == nil && slices.ContainsFunc(got, func(k string) bool { return strings.Contains(k, "-visits") }) {
			t.Errorf("input %d: facts %v, want no visits (a cousin serves nobody)", i, got)
		}
	}
}

// A clause that only asks the assistant to keep a note is about nothing (written for the
// purpose).
func TestMemoryCommandsAreNoFacts(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"update your notes: I'm on sertraline 100mg now", []string{"user/sertraline-dose=100mg", "-user/job=notes", "-user/landlord=notes"}},
		{"Note to self: the gas meter reading is due on Friday", []string{"-note/allergy=self"}},
		{"add to my profile: lives in Tucson", []string{"user/home=Tucson", "-user/food=profile"}},
	})
	for _, text := range []string{"Note to self", "update your notes", "pls log this", "add this to my profile", "heads up"} {
		if !memoryCommandRe.MatchString(text) {
			t.Errorf("%q is a memory command", text)
		}
	}
	if memoryCommandRe.MatchString("note to self the boiler is fixed") {
		t.Error("a note's content is no command")
	}
}

// An amount someone puts "me" on is the speaker's slot of its unit (written for the
// purpose).
func TestAmountPutOnMe(t *testing.T) {
	res := extract(t, []Input{{Text: "Dr Shah wants me back on 25mg from Monday", Values: map[string][]string{"user/quetiapine-dose": {"50mg"}}}})
	if got := factKeys(res[0].Facts); !slices.Contains(got, "user/quetiapine-dose=25mg") {
		t.Errorf("facts %v, want user/quetiapine-dose=25mg", got)
	}
}

// A psychiatrist, psychologist, counsellor or neurologist is one's doctor, as a GP or a
// therapist is (written for the purpose).
func TestMoreDoctors(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"Psychiatrist is Dr. Mensah at the Elm Street clinic", []string{"user/doctor=Dr Mensah", "-psychiatrist/doctor=Dr Mensah"}},
		{"my new counsellor is called Bridget", []string{"user/doctor=Bridget"}},
	})
}

// "X isn't in A, it's B" corrects a value the slot holds with the one the next clause
// opens with (written for the purpose).
func TestIsntItsCorrection(t *testing.T) {
	vals := map[string][]string{"omar/home": {"Bolton"}}
	for _, text := range []string{"Correction: Omar isn't in Bolton at all, it's Bury.", "sorry, Omar isn't in Bolton, he's in Bury"} {
		res := extract(t, []Input{{Text: text, Values: vals}})
		if got := factKeys(res[0].Facts); !slices.Contains(got, "omar/home=Bury") {
			t.Errorf("%q: facts %v, want omar/home=Bury", text, got)
		}
	}
	res := extract(t, []Input{{Text: "the shop isn't open today, it's a bank holiday", Values: vals}})
	if got := factKeys(res[0].Facts); slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, "omar/home") }) {
		t.Errorf("facts %v: no value of Omar's home is named", got)
	}
}

// One who serves someone acts on that one's state: "my dad's cardiologist put the
// bisoprolol up" is dad's dose, "the gp upped the lansoprazole" the speaker's; HR in
// capitals is the department, and what it confirms is read like what it says (written
// for the purpose).
func TestServedOwnersAndReports(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"my dad's cardiologist put the bisoprolol up to 5mg", []string{"dad/bisoprolol-dose=5mg", "-user/bisoprolol-dose=5mg"}},
		{"the gp upped the lansoprazole to 30mg", []string{"user/lansoprazole-dose=30mg"}},
		{"the airline confirmed my flight is now 4 October", []string{"user/flight=4 October"}},
	})
	// Whose fact, whatever the attribute read by meaning.
	for _, tt := range []struct{ text, key string }{
		{"HR confirmed my new title is Principal Engineer", "user/=Principal Engineer"},
		{"the commute is 2 hr each way now", "user/=2 hour"},
	} {
		subj, val, _ := strings.Cut(tt.key, "/=")
		got := factKeys(extract(t, []Input{{Text: tt.text}})[0].Facts)
		if !slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, subj+"/") && strings.HasSuffix(k, "="+val) }) {
			t.Errorf("%q: facts %v, want %s's fact %q", tt.text, got, subj, val)
		}
	}
}

// Session 25's forms of other Englishes, in sentences written for the purpose: a
// currency or a unit before an amount is nobody ("KSh 18,000"), an exclamation of chat or
// of another English opens a clause without being its subject, a name's accents fold to
// one key, one who serves the speaker changes the speaker's bare attribute, an amount
// that opens a clause is the one's who pays in the clause before, and "shifted" is a
// move.
func TestOtherEnglishes(t *testing.T) {
	wantSentences(t, []sentenceCase{
		{"we're shifting to Pune next month, finally", []string{"user/home=Pune"}},
		{"Gran moved into her Oakhaven flat on Friday", []string{"grandma/home=Oakhaven"}},
		{"Commission is 9% on renewals", []string{"user/commission=9%"}},
		{"Shifted the standup to Thursday", []string{"-user/home=Thursday"}},
		{"Moved into a bedsitter in Kasarani, KSh 11,500 a month", []string{"-ksh/rent=11,500"}},
		{"Rs 2,400 for the new maid every month", []string{"-rs/rent=2,400"}},
		{"Aiyo my insurance renewal went up to 1,380", []string{"-aiyo/insurance=1,380"}},
		{"Walao the gym membership is 89.90 now", []string{"-walao/gym-membership=89.90"}},
		{"Bảo moved to Hanoi in March", []string{"bao/home=Hanoi"}},
	})
	// An amount that opens a clause is the one's who pays in the clause before.
	for _, tt := range []struct {
		before, text string
		paid         bool
	}{
		{"my cousin Wanjiru rents in Kilimani", "KSh 22,000 for a bedsitter", true},
		{"Daycare for Milo at Little Acorns", "$138 a day, 3 days a week", false},
		{"she pays for the gym", "I think it's £30", false},
	} {
		if got := paidAmount(tokenize(tt.text), tokenize(tt.before)); got != tt.paid {
			t.Errorf("paidAmount(%q after %q) = %v, want %v", tt.text, tt.before, got, tt.paid)
		}
	}
	for text, acts := range map[string]bool{
		"Landlady has raised rent to 42,000 from January": true,
		"landlord put the rent up to 1,750":               true,
		"mum moved house in the spring":                   false,
	} {
		if got := actsOnOwn(tokenize(text)) > 0; got != acts {
			t.Errorf("actsOnOwn(%q) = %v, want %v", text, got, acts)
		}
	}
}

// An amount the meaning read beside the one service a memory names is that service's
// price (servicePrice), and no other amount slot takes it (PricesService).
func TestServicePrice(t *testing.T) {
	provider := Fact{Subject: "user", Attribute: "broadband", Value: "Hyperoptic"}
	amount := func(attr string) Fact { return Fact{Subject: "user", Attribute: attr, Value: "£28", Confidence: 0.7} }
	for _, tt := range []struct {
		text string
		fs   []Fact
		want string
	}{
		{"internet's hyperoptic now, £28 a month", []Fact{provider, amount("rent")}, "broadband-price"},
		{"internet's hyperoptic now, £28 a month", []Fact{provider, amount("bill")}, "broadband-price"},
		{"rent is £28 a night lol and the internet's hyperoptic", []Fact{provider, amount("rent")}, "rent"},
		{"hyperoptic for internet and octopus for gas, £28 a month", []Fact{provider, {Subject: "user", Attribute: "energy-supplier", Value: "Octopus"}, amount("price")}, "price"},
		{"my sister's on hyperoptic, I pay £28 for mine", []Fact{{Subject: "sister", Attribute: "broadband", Value: "Hyperoptic"}, amount("price")}, "price"},
		{"Crunchyroll is £28 a year", []Fact{{Subject: "user", Attribute: "subscription", Value: "Crunchyroll"}, amount("price")}, "crunchyroll-price"},
	} {
		fs := servicePrice(tt.fs, tt.text)
		if got := fs[len(fs)-1].Attribute; got != tt.want {
			t.Errorf("%q: the amount's attribute is %q, want %q", tt.text, got, tt.want)
		}
		if got := PricesService(fs[len(fs)-1], fs); got != (tt.want != tt.fs[len(tt.fs)-1].Attribute) {
			t.Errorf("%q: PricesService = %v", tt.text, got)
		}
	}
}

// A medicine given up ends its own dose slot's last dose; another medicine's dose stays.
func TestEndedDoses(t *testing.T) {
	values := map[string][]string{"user/amlodipine": {"amlodipine"}, "user/amlodipine-dose": {"10mg", "5mg"}, "user/ramipril-dose": {"2.5mg"}}
	res := extract(t, []Input{{Text: "the gp has taken me off the amlodipine, ankles were like balloons", Values: values, Slots: []string{"user/medication", "user/amlodipine-dose", "user/ramipril-dose"}}})
	got := factKeys(res[0].Facts)
	if !slices.Contains(got, "user/amlodipine-dose!=10mg") || slices.ContainsFunc(got, func(k string) bool { return strings.HasPrefix(k, "user/ramipril-dose") }) {
		t.Errorf("facts %v, want user/amlodipine-dose!=10mg and nothing of the ramipril", got)
	}
}

// A household service's slot is named by the service, whatever word the memory calls it
// by; an amount under the service's word keeps its label.
func TestServiceAttributes(t *testing.T) {
	fs := serviceAttributes([]Fact{
		{Subject: "user", Attribute: "electricity", Value: "Flogas"},
		{Subject: "user", Attribute: "wifi-price", Value: "£27"},
		{Subject: "user", Attribute: "gas", Value: "£40 a month"},
		{Subject: "user", Attribute: "mortgage", Value: "Halifax"},
	})
	if got, want := factKeys(fs), []string{"user/energy-supplier=Flogas", "user/broadband-price=£27", "user/gas=£40 a month", "user/mortgage=Halifax"}; !slices.Equal(got, want) {
		t.Errorf("serviceAttributes = %v, want %v", got, want)
	}
}
