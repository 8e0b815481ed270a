package facts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// newTestOffline returns an offline extractor on a fake embedder, whose bag-of-words
// similarities run lower than a real backbone's: hence the lower MinScore.
func newTestOffline(t *testing.T, emb Embedder) *Offline {
	t.Helper()
	o, err := NewOffline(emb, Config{MinScore: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOfflineExtract(t *testing.T) {
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      Input
		subject string // "" means no fact
		attr    string // checked when set
		value   string // checked when set
		negated bool
		why     string // a substring of Why when no fact
	}{
		{"first person home", Input{Text: "i live in Tbilisi now, flat near the river"}, "user", "home", "Tbilisi", false, ""},
		{"lower-case chat", Input{Text: "moved to porto last week, still living out of boxes"}, "user", "home", "porto", false, ""},
		{"speaker prefix", Input{Text: "Wendel: we have a dog called Pretzel"}, "wendel", "pet", "Pretzel", false, ""},
		{"third party", Input{Text: "my flatmate oskar lives in Bergen now"}, "oskar", "home", "Bergen", false, ""},
		{"negation", Input{Text: "i sold my car, the old Polo"}, "user", "car", "", true, ""},
		{"question", Input{Text: "how much rent is normal in Leeds?"}, "", "", "", false, "question"},
		{"empty", Input{Text: "   "}, "", "", "", false, "no text"},
		{"rent", Input{Text: "rent is 950 a month now"}, "user", "rent", "950", false, ""},
		{"time in a job", Input{Text: "first week as a baker at the sourdough place done, my feet hurt"}, "user", "job", "baker", false, ""},
		// Text written in lower case names the place of a move in lower case too.
		{"lower-case move", Input{Text: "mum moved into elmwood court care home on saturday"}, "mum", "home", "elmwood court care home", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Time = now
			res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{tt.in})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Source != SourceOffline {
				t.Errorf("source %q", r.Source)
			}
			if tt.subject == "" {
				if len(r.Facts) > 0 || !strings.Contains(r.Why, tt.why) {
					t.Errorf("facts %+v why %q, want none and why with %q", r.Facts, r.Why, tt.why)
				}
				return
			}
			for _, f := range r.Facts {
				if f.Confidence < 0 || f.Confidence > 1 {
					t.Errorf("fact %+v: confidence outside [0, 1]", f)
				}
			}
			for _, f := range r.Facts {
				if f.Subject == tt.subject && (tt.attr == "" || f.Attribute == tt.attr) && (tt.value == "" || f.Value == tt.value) && f.Negated == tt.negated {
					return
				}
			}
			t.Errorf("facts %+v (why %q), want %s/%s = %q negated %v", r.Facts, r.Why, tt.subject, tt.attr, tt.value, tt.negated)
		})
	}
}

func TestOfflineOneBatchedCall(t *testing.T) {
	emb := &bagEmbedder{}
	o := newTestOffline(t, emb)
	in := []Input{{Text: "my sister Ilse lives in Ghent"}, {Text: "she moved to Antwerp in the spring"}, {Text: "lovely weather today"}}
	res, err := o.Extract(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if emb.calls != 1 || len(res) != 3 {
		t.Fatalf("%d embed calls, %d results; want 1 call and 3 results", emb.calls, len(res))
	}
	// The pronoun of the second memory resolves to the sister named in the first.
	if len(res[1].Facts) == 0 || res[1].Facts[0].Subject != "ilse" {
		t.Errorf("second memory: %+v, want a fact about ilse", res[1].Facts)
	}
	if _, err := o.Extract(t.Context(), in[:1]); err != nil || emb.calls != 2 {
		t.Errorf("second call: %v, %d embed calls (prototypes are embedded once)", err, emb.calls)
	}
}

func TestOfflineReusesGivenSlots(t *testing.T) {
	o := newTestOffline(t, &bagEmbedder{})
	// "dojo" is no attribute of the table; the slot key's words are in the memory.
	res, err := o.Extract(t.Context(), []Input{{Text: "my karate dojo is Kaizen now", Slots: []string{"user/karate-dojo"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Facts) == 0 || res[0].Facts[0].Attribute != "karate-dojo" || res[0].Facts[0].Value != "Kaizen" {
		t.Errorf("facts %+v, want the given slot user/karate-dojo reused", res[0].Facts)
	}
}

func TestOfflineErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, err := newTestOffline(t, &bagEmbedder{err: boom}).Extract(t.Context(), []Input{{Text: "i live in Oslo"}}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "embed") {
		t.Errorf("embed failure: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := newTestOffline(t, &bagEmbedder{}).Extract(ctx, []Input{{Text: "i live in Oslo"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := NewOffline(nil, Config{}); err == nil {
		t.Error("nil embedder accepted")
	}
	err := Config{MinScore: 2, CueBonus: -1, Margin: 3}.Validate()
	for _, w := range []string{"min score", "cue bonus", "margin"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("validate: %v, want %q", err, w)
		}
	}
}

func BenchmarkOfflineExtract(b *testing.B) {
	emb := &bagEmbedder{}
	o, err := NewOffline(emb, Config{})
	if err != nil {
		b.Fatal(err)
	}
	in := []Input{{Text: "my manager is Dana, she's great"}, {Text: "rent went up to 1,200 from march"}, {Text: "we sold the car, i bike everywhere now"}, {Text: "rainy again lol"}}
	for b.Loop() {
		if _, err := o.Extract(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// A lower-case verb after a relation word is not the relation's name.
func TestRelationFollowedByVerb(t *testing.T) {
	var p people
	for _, tt := range []struct{ text, want string }{
		{"my uncle packed up and moved", "uncle"},
		{"my aunt rehomed the hamster", "aunt"},
		{"my brother joris started a new job", "joris"},
		{"my sister Agnes moved out", "agnes"},
	} {
		subj, _, _ := p.subject(tokenize(tt.text), "user")
		if subj != tt.want {
			t.Errorf("%q: subject %q, want %q", tt.text, subj, tt.want)
		}
	}
}

// Classes of clauses whose attribute is decided by form (rules.go), on the fake
// embedder: the rule, not the embedding, decides.
func TestOfflineRuleClasses(t *testing.T) {
	type want struct {
		slot, value string
		negated     bool
		scope       string
	}
	tests := []struct {
		text string
		want []want
	}{
		// A relation word that names the subject does not decide the attribute.
		{"My housemate Ingrid works as a welder at Dockside Metals.", []want{{"ingrid/job", "welder", false, ""}}},
		{"My coworker Femi has a job as a crane operator at Portside Freight.", []want{{"femi/job", "crane operator", false, ""}}},
		{"My uncle is a tram conductor at Metrolink North.", []want{{"uncle/job", "tram conductor", false, ""}}},
		{"My cousin quit Baxter Foods; she is a sous chef at Olive Row now.", []want{{"cousin/job", "sous chef", false, ""}}},
		{"My grandad is settled in Harrogate and likes the quiet.", []want{{"grandad/home", "Harrogate", false, ""}}},
		{"My niece relocated from Perth to Hobart.", []want{{"niece/home", "Hobart", false, ""}}},
		{"My brother Ansel split up with Corinne; he is with Beatrix now.", []want{{"ansel/partner", "Beatrix", false, ""}}},
		{"Now I am seeing Octavia.", []want{{"user/partner", "Octavia", false, ""}}},
		{"My dad gave away Pip the rabbit and adopted a gerbil named Nutmeg.", []want{{"dad/pet", "Pip", true, ""}, {"dad/pet", "Nutmeg", false, ""}}},
		{"Pretzel went to live with my aunt, so my flatmate Ruth got a kitten called Sable.", []want{{"ruth/pet", "Sable", false, ""}, {"ruth/pet", "Pretzel", true, ""}}},
		{"My sister only plays squash on bank holidays now.", []want{{"", "squash", false, "on bank holidays"}}},
		// Pets named in apposition, some with names that are common words, and their
		// losses; a sentence adverb is no subject (sentences written for this test).
		{"We adopted a dog, Rex.", []want{{"user/pet", "Rex", false, ""}}},
		{"We adopted a second cat, Pixel.", []want{{"user/pet", "Pixel", false, ""}}},
		{"I have two cats, Tom and Jerry.", []want{{"user/pet", "Tom", false, ""}, {"user/pet", "Jerry", false, ""}}},
		{"Our cat Luna passed away.", []want{{"user/pet", "Luna", true, ""}}},
		{"Sadly our dog Rex died.", []want{{"user/pet", "Rex", true, ""}}},
		{"Unfortunately we had to give our dog Max away.", []want{{"user/pet", "Max", true, ""}}},
		{"My neighbour's parrot, Kiwi, talks all day.", []want{{"neighbour/pet", "Kiwi", false, ""}}},
		// Activities done, taken up, or watched (sentences written for this test).
		{"I love playing tennis.", []want{{"", "tennis", false, ""}}}, // the attribute by meaning (a fake embedder here)
		{"I took up the piano last month.", []want{{"user/hobby", "piano", false, ""}}},
		{"I'm really into photography these days.", []want{{"user/hobby", "photography", false, ""}}},
		// An employer by the job taken there (brands may be common words).
		{"I got a new job at Spotify.", []want{{"user/employer", "Spotify", false, ""}}},
		{"My brother started at the BBC.", []want{{"brother/employer", "BBC", false, ""}}},
		{"I joined Quillpoint as a data analyst.", []want{{"user/employer", "Quillpoint", false, ""}}},
		// A diet told by a food taken up again or given up.
		{"I started eating meat again.", []want{{"user/diet", "eats meat", false, ""}}},
		{"I stopped eating fish.", []want{{"user/diet", "no fish", false, ""}}},
		// Ages and counts written out.
		{"I'm 34 years old.", []want{{"user/age", "34", false, ""}}},
		{"We have three children now.", []want{{"user/kids", "3", false, ""}}},
		// Job titles that are named like other attributes.
		{"I work as a teacher.", []want{{"user/job", "teacher", false, ""}}},
		{"I work as a manager at Calder Mills.", []want{{"user/job", "manager", false, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text}})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool {
					return (w.slot == "" || f.Slot() == w.slot) && f.Value == w.value && f.Negated == w.negated && f.Scope == w.scope
				}) {
					t.Errorf("facts %+v (why %q), want %+v", res[0].Facts, res[0].Why, w)
				}
			}
			for _, f := range res[0].Facts {
				if f.Subject == "pretzel" || f.Subject == "pip" {
					t.Errorf("a pet's name is a subject: %+v", f)
				}
			}
		})
	}
}

func TestActivityAndScope(t *testing.T) {
	for _, tt := range []struct{ rest, want string }{
		{"loves to do pilates and does it every day", "pilates"},
		{"only does pilates on sunny mornings now", "pilates"},
		{"paints landscapes every weekend", ""},
		{"still likes to paint landscapes", "paint landscapes"},
		{"only eats dumplings once a month", "dumplings"},
	} {
		if got := activity(tokenize(tt.rest)); got != tt.want {
			t.Errorf("activity(%q) = %q, want %q", tt.rest, got, tt.want)
		}
	}
	for _, tt := range []struct{ text, want string }{
		{"he only plays darts when the pub is quiet now", "when the pub is quiet"},
		{"she only bakes bread twice a month these days", "twice a month"},
		{"he bakes bread three times a week", ""},
	} {
		if got := scope(tt.text); got != tt.want {
			t.Errorf("scope(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestThirdPersonVerbIsNoName(t *testing.T) {
	var p people
	for _, tt := range []struct{ text, want string }{
		{"my aunt earns 40,000 a year", "aunt"},
		{"my friend marcus works at the depot", "marcus"},
	} {
		if subj, _, _ := p.subject(tokenize(tt.text), "user"); subj != tt.want {
			t.Errorf("%q: subject %q, want %q", tt.text, subj, tt.want)
		}
	}
}

// recordingEmbedder remembers every text it embeds.
type recordingEmbedder struct {
	bagEmbedder
	texts []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.texts = append(r.texts, texts...)
	return r.bagEmbedder.Embed(ctx, texts)
}

// A memory whose vector the caller gives is not embedded again, and gives the same
// facts as when the extractor embeds it itself.
func TestOfflineUsesGivenVector(t *testing.T) {
	text := "I moved to Ghent in the spring."
	plain := &recordingEmbedder{}
	x, err := NewOffline(plain, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := x.Extract(t.Context(), []Input{{Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	vec, _ := (&bagEmbedder{}).Embed(t.Context(), []string{text})
	given := &recordingEmbedder{}
	y, err := NewOffline(given, Config{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := y.Extract(t.Context(), []Input{{Text: text, Vector: vec[0]}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(given.texts, text) || !slices.Contains(plain.texts, text) {
		t.Errorf("the given memory was embedded again (%d texts; without a vector %d)", len(given.texts), len(plain.texts))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("facts with the vector %+v, without %+v", got, want)
	}
}

func TestEmptyValue(t *testing.T) {
	for v, want := range map[string]bool{
		"It's": true, "Really": true, "Been": true, "things happening": true, "so great": true, "Here's": true, "working": true,
		"Porto": false, "yoga": false, "climbing": false, "40": false, "help people": false, "the Porto flat": false, "Harbour & Finch": false, "": true,
	} {
		if got := emptyValue(v); got != want {
			t.Errorf("emptyValue(%q) = %v, want %v", v, got, want)
		}
	}
}

// A value that only names an attribute is no value.
func TestNamesAttribute(t *testing.T) {
	for _, tt := range []struct {
		f    Fact
		want bool
	}{
		{Fact{Attribute: "job", Value: "job"}, true},
		{Fact{Attribute: "drink", Value: "my drinks"}, true},
		{Fact{Attribute: "phone-number", Value: "number"}, true},
		{Fact{Attribute: "job", Value: "baker"}, false},
		{Fact{Attribute: "drink", Value: "drink coffee"}, false},
		// Another attribute's name is no value either: "My job: pharmacist" read as an
		// employer "job".
		{Fact{Attribute: "employer", Value: "job"}, true},
		{Fact{Attribute: "employer", Value: "the job"}, true},
		{Fact{Attribute: "employer", Value: "job centre"}, false},
		// A job title named like another attribute is a job's value, and only a job's.
		{Fact{Attribute: "job", Value: "teacher"}, false},
		{Fact{Attribute: "job", Value: "a doctor"}, false},
		{Fact{Attribute: "employer", Value: "manager"}, true},
	} {
		if got := namesAttribute(tt.f); got != tt.want {
			t.Errorf("namesAttribute(%s = %q) = %v, want %v", tt.f.Attribute, tt.f.Value, got, tt.want)
		}
	}
}

// Facts read from a clause's form are certain; facts read by meaning carry their
// attribute score, so that the overlay can leave doubtful ones out of version groups.
func TestOfflineConfidence(t *testing.T) {
	res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{
		{Text: "we have a dog called Pretzel"},
		{Text: "rent is 950 a month now"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Facts) == 0 || res[0].Facts[0].Confidence != 0 || !res[0].Facts[0].Certain(1) {
		t.Errorf("named pet (a form rule): %+v, want confidence 0 (certain)", res[0].Facts)
	}
	if len(res[1].Facts) == 0 || res[1].Facts[0].Confidence <= 0 || res[1].Facts[0].Confidence > 1 {
		t.Errorf("rent (by meaning): %+v, want a confidence in (0, 1]", res[1].Facts)
	}
}

// Pronouns and possessives of people named before: sentences written for this test.
func TestPronounsAndPossessives(t *testing.T) {
	tests := []struct {
		last, text, want string
	}{
		{"grandad", "the clinic moved him to the thursday slot", "grandad"},
		{"kasia", "best way to reach her is the office line now", "kasia"},
		{"", "they finally bumped ollie's salary to 41k", "ollie"},
		{"", "update on dad's knee: the surgery is booked for may", "dad"},
		{"", "nadia's landlord says she can stay until august", "nadia"},
		{"kasia", "I told her my new number", "user"},             // first person: the user's clause
		{"", "the clinic moved him to the thursday slot", "user"}, // nobody named before
	}
	for _, tt := range tests {
		p := people{last: tt.last}
		if subj, _, _ := p.subject(tokenize(tt.text), "user"); subj != tt.want {
			t.Errorf("last %q, %q: subject %q, want %q", tt.last, tt.text, subj, tt.want)
		}
	}
}

// Whom a memory's pronouns mean carries to the next memory, within a call and, through
// Input.Referent, across calls.
func TestReferentCarries(t *testing.T) {
	x := newTestOffline(t, &bagEmbedder{})
	res, err := x.Extract(t.Context(), []Input{
		{Text: "my brother tomek moved to Gdansk"},
		{Text: "his rent there is 2,100 a month"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Referent != "tomek" || res[1].Referent != "tomek" {
		t.Errorf("referents %q, %q, want tomek twice", res[0].Referent, res[1].Referent)
	}
	res, err = x.Extract(t.Context(), []Input{{Text: "he pays 2,300 a month for rent now", Referent: res[1].Referent}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Facts) == 0 || res[0].Facts[0].Subject != "tomek" {
		t.Errorf("next call: facts %+v, want tomek's (the referent given)", res[0].Facts)
	}
}

// After a verb of starting or stopping, the value is its object, so that starting and
// stopping the same thing land in one version group (sentences written for this test).
func TestValueAfterChangeVerb(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"trying magnesium tablets before bed", "magnesium tablets"},
		{"stopped the magnesium, no difference at all", "magnesium"},
		{"cancelled audible, never had time to listen", "audible"},
	} {
		toks := tokenize(tt.text)
		if got := value(attribute{name: "supplement", kind: kindThing}, toks, toks, ""); got != tt.want {
			t.Errorf("%q: value %q, want %q", tt.text, got, tt.want)
		}
	}
	// "quit my job": the object only names the attribute; the clause's words stand.
	toks := tokenize("quit my job at the bakery")
	if got := value(attribute{name: "job", kind: kindThing}, toks, toks, ""); got == "job" {
		t.Errorf("quit my job: value %q names only the attribute", got)
	}
}

// Forms written for this test: a couple named as "A and B have been together", and a
// person (not a pet) who moved.
func TestPartnersPeopleAndScopedActivities(t *testing.T) {
	x := newTestOffline(t, &bagEmbedder{})
	res, err := x.Extract(t.Context(), []Input{
		{Text: "My uncle and Henrike have been together for years."},
		{Text: "My flatmate Rosa moved to Leeds last month."},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool { return f.Slot() == "uncle/partner" && f.Value == "Henrike" && !f.Negated }) {
		t.Errorf("couple: facts %+v (why %q), want uncle/partner = Henrike", res[0].Facts, res[0].Why)
	}
	for _, f := range res[1].Facts {
		if f.Attribute == "pet" {
			t.Errorf("a person's move read as a pet's: %+v", f)
		}
	}
}

// A pet given up by name alone ("no longer has Ziggy") is read when the subject is known
// to have pets — earlier in the call, or from the slots given — or the memory names a kind
// of pet (sentences written for this test).
func TestPetGivenUpByName(t *testing.T) {
	x := newTestOffline(t, &bagEmbedder{})
	gone := func(r Result) bool {
		return slices.ContainsFunc(r.Facts, func(f Fact) bool { return f.Attribute == "pet" && f.Value == "Ziggy" && f.Negated })
	}
	res, err := x.Extract(t.Context(), []Input{{Text: "My nephew has a gecko called Ziggy."}, {Text: "My nephew no longer has Ziggy."}})
	if err != nil {
		t.Fatal(err)
	}
	if !gone(res[1]) {
		t.Errorf("same call: facts %+v, want Ziggy given up", res[1].Facts)
	}
	res, err = x.Extract(t.Context(), []Input{{Text: "My nephew no longer has Ziggy.", Slots: []string{"nephew/pet"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !gone(res[0]) {
		t.Errorf("slots given: facts %+v, want Ziggy given up", res[0].Facts)
	}
	res, err = x.Extract(t.Context(), []Input{{Text: "My nephew no longer has Ziggy; now he has a parrot called Mango."}, {Text: "My nephew no longer has Ziggy."}})
	if err != nil {
		t.Fatal(err)
	}
	if !gone(res[0]) {
		t.Errorf("a memory about pets: facts %+v, want Ziggy given up", res[0].Facts)
	}
	if res, err = x.Extract(t.Context(), []Input{{Text: "My nephew no longer has Ziggy."}}); err != nil || gone(res[0]) {
		t.Errorf("no pets known: %+v %v, want no pet read from a bare name", res[0].Facts, err)
	}
}

// A time frame before the subject is no subject (sentences written for this test).
func TestTimeFrameBeforeSubject(t *testing.T) {
	var p people
	for _, tt := range []struct{ text, want string }{
		{"these days my cousin only swims on fridays", "cousin"},
		{"nowadays my brother cycles to work", "brother"},
		{"this year my aunt teaches piano", "aunt"},
	} {
		if subj, _, _ := p.subject(tokenize(tt.text), "user"); subj != tt.want {
			t.Errorf("%q: subject %q, want %q", tt.text, subj, tt.want)
		}
	}
}

func TestLikeFramed(t *testing.T) {
	for _, tt := range []struct {
		rest string
		want bool
	}{
		{"really loves to go bouldering on weekends", true},
		{"still enjoys baking sourdough", true},
		{"went bouldering yesterday", false},
		{"is a baker at the corner shop", false},
	} {
		if got := likeFramed(tokenize(tt.rest)); got != tt.want {
			t.Errorf("likeFramed(%q) = %v, want %v", tt.rest, got, tt.want)
		}
	}
}

// A pronoun that refers to nobody named before leaves its clause without a subject: no
// fact, and Why says so; a reported speaker is the referent when there is no other
// (sentences written for this test).
func TestUnresolvedPronoun(t *testing.T) {
	x := newTestOffline(t, &bagEmbedder{})
	res, err := x.Extract(t.Context(), []Input{{Text: "he moved to Gdansk last month"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Facts) != 0 || !strings.Contains(res[0].Why, `subject not resolved: "he"`) {
		t.Errorf("facts %+v why %q, want none and the unresolved pronoun named", res[0].Facts, res[0].Why)
	}
	var p people
	if subj, _, _ := p.subject(tokenize("kasia said she'd book the train"), "user"); subj != "kasia" {
		t.Errorf("reported speech: subject %q, want kasia", subj)
	}
	p = people{last: "dad"}
	if subj, _, _ := p.subject(tokenize("mum says he's off sugar now"), "user"); subj != "dad" {
		t.Errorf("reported speech about the one named before: subject %q, want dad", subj)
	}
}

// aliasEmbedder embeds each text that contains a key as the text the key maps to, and
// the others as bagEmbedder does.
type aliasEmbedder struct {
	bagEmbedder
	alias map[string]string
}

func (a *aliasEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	mapped := slices.Clone(texts)
	for i, t := range texts {
		for k, v := range a.alias {
			if strings.Contains(t, k) {
				mapped[i] = v
			}
		}
	}
	return a.bagEmbedder.Embed(ctx, mapped)
}

// A clause that reads as an exercise and states an activity after "only" has the
// activity as its value, though no value phrase opens after the subject.
func TestActivityIsTheValue(t *testing.T) {
	emb := &aliasEmbedder{alias: map[string]string{"swims laps": "I go swimming three times a week"}}
	res, err := newTestOffline(t, emb).Extract(t.Context(), []Input{{Text: "my sister only swims laps when friends visit"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool {
		return f.Slot() == "sister/exercise" && f.Value == "swim laps" && f.Scope == "when friends visit"
	}) {
		t.Errorf("facts %+v (why %q), want sister/exercise = swim laps, when friends visit", res[0].Facts, res[0].Why)
	}
}

// Labelled statements are read by their label, written here for the class: a label of
// the table's attribute or one of its plain names, a possessor, when-words before the
// colon, and headings that name no attribute.
func TestOfflineLabelledStatements(t *testing.T) {
	tests := []struct {
		text, subject, attr, value string
	}{
		{"My job: translator at Bluewater Clinic.", "user", "job", "translator"},
		{"Occupation: data analyst at Starling Press", "user", "job", "data analyst"},
		{"my job these days: plumber at Kestrel Labs", "user", "job", "plumber"},
		{"Home: a flat in Richmond.", "user", "home", "Richmond"},
		{"current city: Lisbon", "user", "home", "Lisbon"},
		{"My drink: cortado.", "user", "drink", "cortado"},
		{"Theo's hobby these days: bouldering.", "theo", "hobby", "bouldering"},
		{"new favourite rider: marco bezzecchi. sorry lando, it's over", "user", "favourite-rider", "marco bezzecchi"},
		{"My manager: Dana Whitfield.", "user", "manager", "Dana Whitfield"},
		// A role's word as the label: who holds the speaker's role.
		{"advisor: Prof. Lindqvist", "user", "supervisor", "Prof Lindqvist"},
		{"cleaner: Ilona, every other thursday", "user", "cleaner", "Ilona"},
		// Named for a role with "as".
		{"tom's away for six months, so I've put jess down as my emergency contact", "user", "contact", "jess"},
		{"we listed Aunt Mo as next of kin on the forms", "user", "contact", "Aunt Mo"},
		// A heading that names no attribute leaves the clause after it as it is.
		{"Big change: I relocated to Richmond.", "user", "home", "Richmond"},
	}
	for _, tt := range tests {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool {
			return f.Subject == tt.subject && f.Attribute == tt.attr && f.Value == tt.value && f.Confidence == 0
		}) {
			t.Errorf("%q: facts %+v, want %s/%s = %q read by form", tt.text, res[0].Facts, tt.subject, tt.attr, tt.value)
		}
	}
	// After the colon, a clause is no value.
	for _, text := range []string{"My job: it's killing me.", "Job hunting: three interviews this week."} {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res[0].Facts {
			if f.Confidence == 0 && f.Attribute == "job" {
				t.Errorf("%q: fact %+v read by form, want none", text, f)
			}
		}
	}
}

// A team is what someone is on or moved to, not a home.
func TestOfflineTeams(t *testing.T) {
	tests := []struct{ text, subject, value string }{
		{"farah got moved to the ml team, i miss her terrible jokes already", "farah", "ml team"},
		{"my desk buddy Farah is on the platform team", "farah", "platform team"},
		{"I transferred into the payments squad last week", "user", "payments squad"},
		{"Joris joined the data engineering team", "joris", "data engineering team"},
	}
	for _, tt := range tests {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool { return f.Subject == tt.subject && f.Attribute == "team" && f.Value == tt.value }) {
			t.Errorf("%q: facts %+v, want %s/team = %q", tt.text, res[0].Facts, tt.subject, tt.value)
		}
	}
}

// A bare entity head ("sync") is the entity of an existing slot with that head, named in
// an earlier call ("weekly product sync is on thursdays").
func TestOfflineEntityFromGivenSlots(t *testing.T) {
	res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: "sync moved to 3pm so the Berlin people can join", Slots: []string{"user/home", "product-sync/meeting-time"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Facts) == 0 || res[0].Facts[0].Subject != "product-sync" {
		t.Errorf("facts %+v, want a fact about product-sync", res[0].Facts)
	}
}

// A capitalised word that opens a noun phrase is no one's name.
func TestOfflineNounOpeningIsNoSubject(t *testing.T) {
	for _, tt := range []struct{ text, notSubject string }{
		{"Mental health's a priority, so take care of yourself.", "mental"},
		{"Dance classes are the best way to unwind after work.", "dance"},
		{"Pottery class was so much fun today.", "pottery"},
		{"Board games make every family dinner better.", "board"},
		{"Hi Audrey! Been a while since I heard from you.", "hi"},
	} {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text, Speaker: "Caroline"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res[0].Facts {
			if f.Subject == tt.notSubject {
				t.Errorf("%q: fact %+v about %q", tt.text, f, tt.notSubject)
			}
		}
	}
	// Names with their verbs stay subjects.
	for _, tt := range []struct{ text, subject string }{
		{"Theo only does yoga on rainy Sundays now", "theo"},
		{"Ravi bought a flat in Leeds", "ravi"},
		{"Marta lives in Ghent these days", "marta"},
	} {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res[0].Facts, func(f Fact) bool { return f.Subject == tt.subject }) {
			t.Errorf("%q: facts %+v, want one about %s", tt.text, res[0].Facts, tt.subject)
		}
	}
}

// A bracketed aside describes; it states no fact of the speaker.
func TestOfflineAsidesStateNothing(t *testing.T) {
	res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: "Nate: Already doing that, thanks! [shares an image: a photo of a laptop computer on a desk]"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res[0].Facts {
		if strings.Contains(f.Value, "desk") || strings.Contains(f.Value, "laptop") || strings.Contains(f.Value, "photo") {
			t.Errorf("fact %+v read from the aside", f)
		}
	}
}

// A value made of abstract words is no state, however the clause scores.
func TestAbstractValue(t *testing.T) {
	for v, want := range map[string]bool{"work": true, "a lot of progress": true, "opportunities": true, "big breakthrough": true, "business plan": false, "dance studio": false, "senior data engineer": false, "Sennheiser": false} {
		if got := abstractValue(v); got != want {
			t.Errorf("abstractValue(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{"car shop": true, "car mod workshop": true, "estate car": false, "Toyota Yaris": false, "car 2": false} {
		if got := mentionsAttribute(Fact{Attribute: "car", Value: v}); got != want {
			t.Errorf("mentionsAttribute(car = %q) = %v, want %v", v, got, want)
		}
	}
	if !shapeless(Fact{Attribute: "project", Value: "progress", Confidence: 0.6}, true) {
		t.Error("project = progress read by meaning has a shape")
	}
	if shapeless(Fact{Attribute: "project", Value: "progress", Confidence: 0}, true) {
		t.Error("a fact read by form is never shapeless")
	}
}

// A change told by a slot's own value: the value returned to, or another in the place of
// the one the memory names.
func TestOfflineValueMentions(t *testing.T) {
	values := map[string][]string{"user/trip-destination": {"whistler"}, "farah/team": {"ml team", "platform team"}, "user/contact": {"jess", "tom"},
		"user/drink": {"hot chocolate"}, "user/phone": {"iphone"}, "user/phone-plan": {"vodafone"}, "user/university": {"edinburgh"},
		"user/standup-time": {"9:30"}, "user/statin": {"atorvastatin"}}
	tests := []struct {
		text, slot, value string // slot "" means no fact read by form in any of values' slots
	}{
		{"bea says whistler is totally sold out for our weekend, so we're doing banff instead", "user/trip-destination", "banff"},
		{"farah's back on platform!! the reorg was a mess", "farah/team", "platform team"},
		{"so we're back on whistler!!", "user/trip-destination", "whistler"},
		{"tom's back from canada, switched my emergency contact back to him", "user/contact", "tom"},
		// The value that takes the place is the one before "instead", not the one given up.
		{"I stopped drinking hot chocolate and now order kombucha instead.", "user/drink", "kombucha"},
		{"sold the iphone, using an old nokia instead", "user/phone", "old nokia"},
		// So is the one switched to, when the memory names the slot's value.
		{"switched from vodafone to giffgaff, 12 a month now", "user/phone-plan", "giffgaff"},
		{"so... I switched to glasgow. withdrew from edinburgh", "user/university", "glasgow"},
		// Someone else moves the time of the user's thing, or switches the user to another.
		{"raj moved standup to 10, says 9:30 is brutal for the folks in new york", "user/standup-time", "10"},
		{"gp switched me to rosuvastatin, the atorvastatin was giving me cramps", "user/statin", "rosuvastatin"},
		// Someone else's switch of their own is not the user's; a time moves only to a time.
		{"my sister switched from vodafone to ee", "", ""},
		{"raj moved to leeds, says 9:30 standups are too early for him", "", ""},
		// A change as a noun switches nothing.
		{"road trip along the edinburgh coast, such a nice change to my regular life", "", ""},
		// A switch of a value the memory does not name ties it to no slot.
		{"switched my bank to monzo", "", ""},
		// The old value is not named: "instead" alone says nothing of which slot.
		{"we're doing banff instead", "", ""},
		// Another subject's clause is not about the user's slot.
		{"bea says whistler is sold out, she's doing yoga instead", "", ""},
	}
	for _, tt := range tests {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text, Values: values, Slots: []string{"user/trip-destination", "farah/team"}}})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, f := range res[0].Facts {
			if _, in := values[f.Slot()]; in && f.Confidence == 0 && !f.Negated {
				got = f.Slot() + "=" + f.Value
			}
		}
		if want := strings.TrimSuffix(tt.slot+"="+tt.value, "="); got != want {
			t.Errorf("%q: fact by form %q, want %q (facts %+v)", tt.text, got, want, res[0].Facts)
		}
	}
	// Within one call, a value stated by an earlier input counts too.
	res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: "my desk buddy Farah is on the platform team"}, {Text: "farah got moved to the ml team"}, {Text: "farah's back on platform!!"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res[2].Facts, func(f Fact) bool { return f.Slot() == "farah/team" && f.Value == "platform team" }) {
		t.Errorf("third memory: facts %+v, want farah/team = platform team", res[2].Facts)
	}
}

// formCase is a memory, the values of the user's slots it is read with, and the facts
// of those slots it states by form: slot=value, or slot=!value for a denied one.
type formCase struct {
	text   string
	values map[string][]string
	want   []string
}

// checkFormFacts reads each case's memory with its values and compares the facts of
// those slots read by form (confidence 0), in sorted order.
func checkFormFacts(t *testing.T, tests []formCase) {
	t.Helper()
	for _, tt := range tests {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text, Values: tt.values}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res[0].Facts {
			if _, in := tt.values[f.Slot()]; in && f.Confidence == 0 {
				v := f.Value
				if f.Negated {
					v = "!" + v
				}
				got = append(got, f.Slot()+"="+v)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: facts by form %q, want %q (all %+v)", tt.text, got, tt.want, res[0].Facts)
		}
	}
}

// "<new> not <old>", where old is a value of an existing slot, corrects that slot.
func TestOfflineCorrectionByValue(t *testing.T) {
	tests := []formCase{
		{"correction on mum's room btw, it's 21 not 12. I always flip it", map[string][]string{"mum/room": {"room 12"}}, []string{"mum/room=21"}},
		{"wait, marcus had it wrong. the email says tuesdays at 5:15, not thursdays", map[string][]string{"boys/swim-day": {"thursdays"}}, []string{"boys/swim-day=tuesdays"}},
		{"sorry, I meant backgammon, not chess", map[string][]string{"user/hobby": {"chess"}}, []string{"user/hobby=!chess", "user/hobby=backgammon"}},
		// The old value ends with its clause; a number corrects a number with its unit.
		{"sorry i meant 40, not 14. 14 would be going backwards lol", map[string][]string{"user/running-distance": {"14 km"}}, []string{"user/running-distance=40 km"}},
		// "not" before no known value corrects nothing.
		{"I'm not sure about the new room yet", map[string][]string{"mum/room": {"room 12"}}, nil},
	}
	checkFormFacts(t, tests)
}

// A value of a slot that leaves, told by its own name, ends the slot's value: a person's
// role in the speaker's life, whoever the slot's subject is. A trip, an object and a
// habit are no leaving.
func TestOfflineValueLeaves(t *testing.T) {
	tests := []formCase{
		{"carol's dropped out, her job got too much. so no study buddy for me for now", map[string][]string{"user/study-buddy": {"Carol"}}, []string{"user/study-buddy=!Carol"}},
		{"grace won't be coming anymore, the home has its own staff", map[string][]string{"mum/carer": {"Grace"}}, []string{"mum/carer=!Grace"}},
		{"Tariq moved out on sunday, the flat is so quiet", map[string][]string{"user/flatmate": {"Tariq"}}, []string{"user/flatmate=!Tariq"}},
		{"so Dr Mensah retired, we get whoever the practice sends now", map[string][]string{"user/doctor": {"Dr Mensah"}}, []string{"user/doctor=!Dr Mensah"}},
		{"ugh, Lena quit last week and nobody told me", map[string][]string{"user/manager": {"Lena"}}, []string{"user/manager=!Lena"}},
		{"Lena left for Oslo on friday, back on the 12th", map[string][]string{"user/manager": {"Lena"}}, nil},
		{"Tariq left his bike in the hallway again", map[string][]string{"user/flatmate": {"Tariq"}}, nil},
		{"Lena quit smoking, fair play to her", map[string][]string{"user/manager": {"Lena"}}, nil},
		{"has anyone seen Tariq? he left", map[string][]string{"user/flatmate": {"Tariq"}}, nil},
		// A new value beside it: another value of a multi-valued attribute leaves the
		// denial; a single-valued attribute's new value replaces the old one by itself.
		{"ben moved out :( new flatmate is chloe, she does crosswords", map[string][]string{"user/flatmate": {"Ben"}}, []string{"user/flatmate=!Ben"}},
		{"carol dropped out, my new study buddy is Dan", map[string][]string{"user/study-buddy": {"Carol"}}, []string{"user/study-buddy=Dan"}},
		// A partnership ends without the partner named (sentences written for this test).
		{"My girlfriend and I broke up.", map[string][]string{"user/partner": {"Sarah"}}, []string{"user/partner=!Sarah"}},
		{"I'm single now.", map[string][]string{"user/partner": {"Sarah"}}, []string{"user/partner=!Sarah"}},
		{"Tom and I split up last week.", map[string][]string{"user/partner": {"Tom"}}, []string{"user/partner=!Tom"}},
		{"my sister and Ed got divorced", map[string][]string{"sister/partner": {"Ed"}, "user/partner": {"Sarah"}}, []string{"sister/partner=!Ed"}},
		{"the band I like broke up", map[string][]string{"sister/partner": {"Ed"}}, nil},
	}
	checkFormFacts(t, tests)
}

// One past event told by meaning states nothing of how things stand; a change told as an
// event, and a habit on a weekday, do.
func TestEpisodeIsNoState(t *testing.T) {
	for clause, want := range map[string]bool{
		"last weekend I went to a folk festival in Cork":    true,
		"yesterday we tried a ramen place near the station": true,
		"two weeks ago I visited my uncle's farm":           true,
		"on Saturday I watched the derby at a pub":          true,
		"I organised the chess meetup last week":            true,
		"last month I drove up the coast for fun":           true,
		"we hiked the whole ridge last year":                true,
		"I moved to Omaha last month":                       false,
		"I started at Kestrel Labs last week":               false,
		"we adopted a greyhound two weeks ago":              false,
		"on Saturdays I swim at the lido":                   false,
		"I drink oat lattes every morning":                  false,
		"she is dating Genevieve now, they met on Friday":   false,
		"this morning I quit the bakery":                    false,
	} {
		if got := episode(clause); got != want {
			t.Errorf("episode(%q) = %v, want %v", clause, got, want)
		}
	}
}

// An aside is left out of what is read, also of whether the text writes names with
// capitals: "[shares an image: a photo of …]" after cased sentences does not make a
// lower-case place a name.
func TestAsideLeavesCasingAlone(t *testing.T) {
	for _, tt := range []struct {
		text, home string
	}{
		{"mum moved into elmwood court care home on saturday", "elmwood court care home"},
		{"Mum moved into elmwood court care home on Saturday.", ""},
		{"Mum moved into elmwood court care home on Saturday. [shares an image: a photo of a garden]", ""},
		{"mum moved into elmwood court care home on saturday [shares an image: a photo of a garden]", "elmwood court care home"},
	} {
		res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{{Text: tt.text}})
		if err != nil {
			t.Fatal(err)
		}
		home := ""
		for _, f := range res[0].Facts {
			if f.Attribute == "home" && f.Confidence == 0 {
				home = f.Value
			}
		}
		if home != tt.home {
			t.Errorf("%q: home by form %q, want %q (facts %+v)", tt.text, home, tt.home, res[0].Facts)
		}
	}
}

// A fact read by meaning from a message of more than 30 words is less certain, unless
// its value is an amount.
func TestLongMessageDiscount(t *testing.T) {
	for _, tt := range []struct {
		n     int
		value string
		want  float64
	}{{longMessage, "coconut milk", 0.6}, {longMessage + 1, "coconut milk", 0.48}, {longMessage + 1, "Nationwide", 0.48}, {longMessage + 1, "£230.25", 0.6}} {
		if got := discounted(0.6, tt.n, tt.value); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%q in a message of %d words: confidence %.3f, want %.3f", tt.value, tt.n, got, tt.want)
		}
	}
}

// Attributes of the table whose values are places, names, amounts, times, dates or days
// of different kinds are distinct; things, organisations and open attributes are not.
func TestDistinctKinds(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"home", "running-distance", true},
		{"partner", "home", true},
		{"home", "trip-destination", false}, // both places
		{"course", "home", false},           // a thing is read loosely
		{"employer", "home", false},         // so is an organisation
		{"study-buddy", "home", false},      // outside the table
	} {
		if got := DistinctKinds(tt.a, tt.b); got != tt.want {
			t.Errorf("DistinctKinds(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// A fact read by meaning in the speaker's name belongs to the one third party named in
// the memory who has the attribute, unless the speaker has it too.
func TestOwnersByAttribute(t *testing.T) {
	mem := func(text string) prepared { return prepared{self: "user", clauses: []clause{{text: text}}} }
	school := Fact{Subject: "user", Attribute: "school", Value: "oakfield primary", Confidence: 0.6}
	tests := []struct {
		name  string
		text  string
		slots []string
		fact  Fact
		want  string
	}{
		{"the one named holder", "first day at oakfield primary for leo", []string{"leo/school", "user/home"}, school, "leo"},
		{"a holder not named", "first day at oakfield primary", []string{"leo/school"}, school, "user"},
		{"the speaker holds it too", "first day at oakfield primary for leo", []string{"leo/school", "user/school"}, school, "user"},
		{"two holders named", "oakfield primary for leo and nora", []string{"leo/school", "nora/school"}, school, "user"},
		{"a holder addressed", "thanks leo! first day at oakfield primary went well", []string{"leo/school"}, school, "user"},
		{"a holder addressed in a clause of its own", "Dave: Thanks, Calvin! first day at oakfield primary went well", []string{"calvin/school"}, school, "user"},
		{"a fact read by form stays", "first day at oakfield primary for leo", []string{"leo/school"}, Fact{Subject: "user", Attribute: "school", Value: "oakfield"}, "user"},
		{"a described party by its words", "the mobile team moved to the atlas project", []string{"mobile-team/project"},
			Fact{Subject: "user", Attribute: "project", Value: "atlas", Confidence: 0.6}, "mobile-team"},
	}
	for _, tt := range tests {
		got := ownersByAttribute(Input{Text: tt.text, Slots: tt.slots}, mem(tt.text), []Fact{tt.fact}, nil)
		if got[0].Subject != tt.want {
			t.Errorf("%s: subject %q, want %q", tt.name, got[0].Subject, tt.want)
		}
	}
}
