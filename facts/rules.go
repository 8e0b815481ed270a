package facts

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Rules for clause classes whose attribute is decided by form rather than meaning:
// a job title ("works as a nurse at …"), a home ("lives in Savannah", "relocated from
// Reno to Denver"), a partner ("is with Clementine now"), pets by name ("rehomed Clover
// the hamster and adopted a parrot named Sprocket"). Each returns "" when its form is not
// there, and the embedding match decides.

// workAs are words after which "as" introduces a job title.
var workAs = map[string]bool{"work": true, "works": true, "working": true, "worked": true, "job": true, "position": true, "role": true, "career": true, "post": true, "employed": true, "hired": true, "started": true, "starts": true, "trained": true, "retrained": true, "retraining": true, "training": true, "qualified": true,
	// A span of time spent in a job: "first week as a baker at the sourdough place", "ten
	// years as a nurse".
	"week": true, "weeks": true, "day": true, "days": true, "month": true, "months": true, "year": true, "years": true, "shift": true, "stint": true}

// beVerbs introduce a predicate noun: "is a bus driver at …".
var beVerbs = map[string]bool{"is": true, "am": true, "are": true, "was": true, "'s": true, "i'm": true, "im": true, "he's": true, "she's": true, "hes": true, "shes": true, "became": true, "becomes": true, "become": true, "now": true, "they're": true}

// titleStops end a job title.
var titleStops = map[string]bool{"at": true, "for": true, "with": true, "in": true, "on": true, "and": true, "but": true, "now": true, "since": true, "from": true, "there": true, "these": true, "again": true, "instead": true, "who": true, "which": true, "because": true, "so": true, "of": false}

// jobTitle returns the job title a clause states: "works as a nurse", "has a job as a
// librarian", "is a bus driver at Brightline Transit", "she's a translator at Starling
// Press now".
func jobTitle(ts []token) string {
	for i := 1; i < len(ts); i++ {
		t := ts[i]
		if t.low == "as" && workAs[ts[i-1].low] {
			if v := title(ts[i+1:]); v != "" {
				return v
			}
		}
	}
	for i := 1; i+1 < len(ts); i++ {
		// "lauren got made supervisor at primark", "she's been made head of year": a title
		// given (not "made redundant").
		if ts[i].low != "made" || ts[i-1].low != "got" && ts[i-1].low != "been" && ts[i-1].low != "was" && ts[i-1].low != "just" {
			continue
		}
		if v := title(ts[i+1:]); v != "" {
			if ws := strings.Fields(strings.ToLower(v)); jobHead(ws[len(ws)-1]) || jobWords[ws[len(ws)-1]] || ws[0] == "head" || ws[len(ws)-1] == "partner" || ws[len(ws)-1] == "lead" {
				return v
			}
		}
	}
	// A predicate noun: "is a bus driver at Brightline Transit" (a title at a named place),
	// else "I'm a secondary school maths teacher", "he's a taxi driver" (a title whose last
	// word is a job's).
	headed := ""
	for i := 0; i < len(ts); i++ {
		if !beVerbs[ts[i].low] && !strings.HasSuffix(ts[i].low, "'s") && (ts[i].low != "being" || i == 0 || ts[i-1].low != "to") && !haveBeen(ts, i) {
			continue // "back to being a barista" too; not "I quit being a nurse"
		}
		j := i + 1
		for j < len(ts) && (ts[j].low == "now" || ts[j].low == "also" || ts[j].low == "still" || ts[j].low == "currently" || ts[j].low == "qualified") {
			j++
		}
		if j >= len(ts) || ts[j].low != "a" && ts[j].low != "an" {
			continue
		}
		v := title(ts[j:])
		if v == "" {
			continue
		}
		if k := j + 1 + len(strings.Fields(v)); k+1 < len(ts) && (ts[k].low == "at" || ts[k].low == "for") &&
			(isCapitalised(ts[k+1]) || ts[k+1].low == "the" && k+2 < len(ts) && isCapitalised(ts[k+2])) {
			return v
		}
		if ws := strings.Fields(strings.ToLower(v)); headed == "" && (jobHead(ws[len(ws)-1]) || len(ws) > 1 && jobModifiers[ws[0]]) {
			headed = v
		}
	}
	return headed
}

// timeOnRe is time spent on a thing by the week or day: "doing about 12 hours of study a
// week", "2 hrs of piano a day" — the thing's amount (study = 12 hours), as "upped my
// study to 15 hours" says it.
var timeOnRe = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?\s?(?:hours?|hrs?|minutes|mins))\s+(?:of\s+)?([a-z][a-z-]+)\s+(?:a|per|each|every)\s+(?:day|week|night|month|weekday)\b`)

// timeOn returns the attribute and the amount of timeOnRe, or "".
func timeOn(text string) (attr, value string) {
	m := timeOnRe.FindStringSubmatch(text)
	if m == nil || verbForm(strings.ToLower(m[2])) && !ingNouns[strings.ToLower(m[2])] || emptyWords[strings.ToLower(m[2])] {
		return "", ""
	}
	return Kebab(m[2]), m[1]
}

// planOffRe is a plan called off by its name: "Bray is off", "Glacier's off — there's a
// wildfire", "lisbon's off", "charlotte move is OFF", "the Leeds job has been cancelled".
var planOffRe = regexp.MustCompile(`(?i)(?:^|[.!?;,:—–-]\s*|\b(?:so|right|ok|okay|well)\s+)(?:the\s+)?([\p{L}][\p{L}'-]*(?:\s+[\p{L}][\p{L}'-]*){0,2}?)(?:'s|’s|\s+is|\s+has been|\s+was|\s+got)\s+(?:now\s+|officially\s+|definitely\s+|completely\s+|all\s+)?(?:off|cancell?ed|called off|scrapped)\b(?:\s*(?:[,.!—–-]|$|\s+(?:then|now|for now|completely)\b))`)

// insteadRe is what a plan turned to: "we've rebooked porto instead", "heading for Banff
// instead".
var insteadRe = regexp.MustCompile(`(?i)\b(?:rebooked|booked|heading (?:for|to)|headed (?:for|to)|going to|off to|doing|chose|picked|went for|going for)\s+((?:the\s+)?[\p{L}'-]+(?:\s+[\p{L}'-]+){0,2}?)\s+instead\b`)

// planWords name a plan, not what it is of: "charlotte move", "lisbon trip".
var planWords = wordSet(`move trip plan plans holiday booking offer deal idea thing visit relocation transfer job`)

// planOff reads a plan called off (planOffRe) as a denial of its value: of the slot the
// user has that holds it (values), else of the speaker's plan — whose memory, when no
// fact was read from it, is the version the denial ends (the overlay's namedVersions).
// What the plan turned to instead (insteadRe) is the plan's new value. Nil when no plan
// is called off, or when what is off is a thing of the day ("the heating's off").
func planOff(text string, fs []Fact, values map[string][]string) []Fact {
	m := planOffRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	ws := strings.Fields(m[1])
	for len(ws) > 1 && planWords[strings.ToLower(ws[len(ws)-1])] {
		ws = ws[:len(ws)-1]
	}
	subj, attr := "user", "plan"
	if owner, ok := strings.CutSuffix(strings.ToLower(ws[0]), "'s"); ok && len(ws) > 1 {
		// "mike's southwest got cancelled": mike's plan.
		if owner = Kebab(owner); relations[owner] != "" {
			owner = relations[owner]
		}
		subj, ws = owner, ws[1:]
	}
	v := strings.Join(ws, " ")
	if w := strings.ToLower(ws[0]); !valueLike(v) || pronouns[w] || firstPerson[w] || offThings[w] || common[w] && len(ws) == 1 || strings.Contains(v, "'") {
		return nil
	}
	if key := slotHolding(values, subj, v); key != "" {
		subj, attr, _ = strings.Cut(key, "/")
	}
	if slices.ContainsFunc(fs, func(f Fact) bool { return f.Negated && SameValue(f.Value, v) }) {
		return nil
	}
	out := []Fact{{Subject: subj, Attribute: attr, Value: v, Negated: true}}
	if n := insteadRe.FindStringSubmatch(text); n != nil && !SameValue(n[1], v) && valueLike(n[1]) {
		out = append(out, Fact{Subject: subj, Attribute: attr, Value: strings.TrimPrefix(n[1], "the ")})
	}
	return out
}

// offThings are switched off, not called off: "the heating's off", "work's off today".
var offThings = wordSet(`heating light lights power tv telly wifi internet water gas electric electricity oven alarm phone
	music radio engine air aircon ac work school day today tomorrow weekend shift`)

// arrivedRe is where a traveller is now, said on arriving or from the road: "made it to
// Banff!", "we rolled into Moab yesterday", "checking in from Flagstaff", "parked up
// outside Bozeman" — a place's capitalised name (in lower-case chat a place cannot be
// told from other words).
var arrivedRe = regexp.MustCompile(`\b(?i:made it to|arrived in|arrived at|rolled into|landed in|checking in from|greetings from|hello from|parked up (?:outside|in|near|at)|pulled into)\s+((?:the\s+)?\p{Lu}[\p{L}'-]+(?:\s+\p{Lu}[\p{L}'-]+){0,2})`)

// flightRe is a flight by its number, after "flight", or after "on" or "to" as one is
// put on it: "flight UA 1423 ORD-DEN 7:05am", "united moved me to UA 587", "he's on UA
// 587 w me now". The airline's code is in capitals, as it is printed.
var flightRe = regexp.MustCompile(`\b(?i:flight(?:\s+(?:is|number|no|num))?|on|to|onto)\s+([A-Z][A-Z0-9]\s?\d{2,4})\b`)

// lastSessionRe is the end of a service told by its last session: "had my last session
// with Dana today", "final appointment with Lindiwe on friday".
var lastSessionRe = regexp.MustCompile(`(?i)\b(?:my|our|the)\s+(?:last|final)\s+(?:session|appointment|lesson|class|visit|treatment|meeting)s?\s+with\s+(?:dr\.?\s+|mr\.?\s+|mrs\.?\s+|ms\.?\s+)?([\p{L}'-]+)`)

// lastSession returns the slot and value of a person the user's slots hold whose last
// session the text tells (lastSessionRe), as a denial; ok false when none.
func lastSession(text string, ppl *people) (Fact, bool) {
	m := lastSessionRe.FindStringSubmatch(text)
	if m == nil {
		return Fact{}, false
	}
	ref, ok := ppl.persons[strings.ToLower(m[1])]
	if !ok {
		return Fact{}, false
	}
	subj, attr, _ := strings.Cut(ref.key, "/")
	return Fact{Subject: subj, Attribute: attr, Value: ref.value, Negated: true}, true
}

// relationshipRe is a relationship's status said of someone: "we are engaged now", "I'm
// single again", "they got married in june".
var relationshipRe = regexp.MustCompile(`(?i)\b(?:we are|we're|were|i'm|im|i am|we got|i got|got|is|are|she's|he's|they're|now|officially|finally|happily)\s+(?:now\s+|officially\s+|finally\s+|happily\s+|just\s+)?(engaged|married|single|divorced|separated|widowed)\b`)

// ownAccountRe says someone works for themselves: "from today I'm freelance", "she's gone
// self-employed", "went freelance in march" — no employer's name, the employer slot's
// value all the same, so that it ends the one before and a later one ends it.
var ownAccountRe = regexp.MustCompile(`(?i)\b(?:i'm|im|i am|i've gone|ive gone|gone|going|went|go|now|is|she's|he's|they're|am)\s+(?:now\s+|officially\s+|fully\s+|properly\s+)?(freelance|self[- ]employed)\b`)

// roleNouns name a job's place in an organisation; takeVerbs take or start one.
var (
	roleNouns = wordSet(`role position post gig contract placement internship job`)
	takeVerbs = wordSet(`started starting start took taking take got getting get accepted accepting landed landing new offered`)
)

// haveBeen reports "been" at ts[i] after "have" ("I've been a senior designer at Canva
// for three years"): a state that still holds; not "had been".
func haveBeen(ts []token, i int) bool {
	if ts[i].low != "been" {
		return false
	}
	if i == 0 {
		return true // the clause's subject was read off: "[I've] been a nurse for years"
	}
	w := ts[i-1].low
	return strings.HasSuffix(w, "'ve") || w == "ive" || w == "have" || w == "has" || strings.HasSuffix(w, "'s") || w == "hes" || w == "shes"
}

// titleAt returns a job title and the employer after it when a clause states both: "is
// a bus driver at Brightline Transit", "I've been a senior designer at Canva", "she's a
// nurse at St James's" (a capitalised name, or any name in lower-case chat after "at").
func titleAt(ts []token, cased bool) (job, employer string) {
	v := jobTitle(ts)
	if v == "" {
		return "", ""
	}
	n := len(strings.Fields(v))
	for i := 0; i+n < len(ts); i++ {
		if !strings.EqualFold(join(ts[i:i+n]), v) {
			continue
		}
		k := i + n
		if k+1 >= len(ts) || ts[k].low != "at" && ts[k].low != "for" {
			return v, ""
		}
		k++
		if ts[k].low == "the" && k+1 < len(ts) {
			k++
		}
		if !isCapitalised(ts[k]) && (cased || notName(ts[k].low) || !isWord(ts[k].low)) {
			return v, ""
		}
		return v, nameRun(ts[k:])
	}
	return v, ""
}

// jobHeads end a job title: "maths teacher", "taxi driver", "software developer".
var jobHeads = wordSet(`teacher nurse doctor engineer developer designer manager accountant lawyer solicitor barrister
	chef cook driver electrician plumber builder carpenter joiner mechanic pharmacist dentist vet paramedic midwife
	firefighter officer consultant analyst scientist researcher lecturer professor architect journalist editor writer
	photographer artist musician baker barista waiter waitress bartender cleaner receptionist administrator secretary
	clerk cashier technician programmer librarian therapist counsellor counselor psychologist surveyor agent translator
	interpreter pilot caretaker gardener hairdresser beautician postman postwoman courier farmer optician radiographer
	physiotherapist physio carer worker instructor trainer tutor coach surgeon radiologist paralegal auditor actuary
	economist statistician recruiter planner buyer controller director executive supervisor assistant`)

// jobHead reports a word that ends a job title: one of jobHeads, or a word with an
// ending of trades and professions ("illustrator", "cardiologist", "optician",
// "videographer", "locksmith").
func jobHead(w string) bool {
	if jobHeads[w] {
		return true
	}
	for _, suf := range []string{"ologist", "ician", "grapher", "iatrist", "ator", "smith", "wright", "monger"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return true
		}
	}
	return false
}

// jobModifiers open a job title whatever its last word: "a freelance illustrator", "a
// trainee solicitor", "a self-employed roofer".
var jobModifiers = wordSet(`freelance freelancer self-employed trainee junior senior locum apprentice`)

// beginning returns the words of what a clause tells the start of: "first week of law
// done" → law, "first day at Oakfield Primary for leo" → Oakfield Primary, "day one of
// the northcode full-stack bootcamp" → northcode full-stack bootcamp, "first week in
// glasgow was brutal" → glasgow; nil when the clause does not open so. "First week as a
// baker" is a job title's (jobTitle). The preposition before the value is returned too.
func beginning(ts []token) ([]token, string) {
	i := 0
	switch {
	case len(ts) > 3 && (ts[0].low == "first" || ts[0].low == "1st") && beginSpans[ts[1].low] && beginPreps[ts[2].low]:
		i = 3
	case len(ts) > 3 && ts[0].low == "day" && ts[1].low == "one" && beginPreps[ts[2].low]:
		i = 3
	default:
		return nil, ""
	}
	prep := ts[i-1].low
	if i < len(ts) && (ts[i].low == "the" || ts[i].low == "my" || ts[i].low == "our" || ts[i].low == "a") {
		i++
	}
	j := i
	for j < len(ts) && j-i < 4 && isWord(strings.Trim(ts[j].low, "-")) && !beginStops[ts[j].low] && !titleStops[ts[j].low] {
		j++
		if ts[j-1].end {
			break
		}
	}
	if j == i {
		return nil, ""
	}
	return ts[i:j], prep
}

var (
	beginSpans = wordSet(`week day month term semester night shift lesson class session`)
	beginPreps = wordSet(`of at in on`)
	// beginStops end the value of beginning: "first week of law done and …".
	beginStops = wordSet(`done over finished complete completed was is went has had and but so today tonight yesterday`)
)

// title takes a job title: up to four words after an article, up to a preposition.
func title(ts []token) string {
	if len(ts) > 0 && (ts[0].low == "a" || ts[0].low == "an" || ts[0].low == "the") {
		ts = ts[1:]
	}
	var out []token
	for _, t := range ts {
		if titleStops[t.low] || stopValue[t.low] || len(out) >= 4 || !isWord(t.low) {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	if len(out) == 0 || len(out) == 1 && common[out[0].low] && !jobWords[out[0].low] {
		return ""
	}
	return join(out)
}

// jobWords are common words that are still job titles.
var jobWords = map[string]bool{"nurse": true, "teacher": true, "tutor": true, "coach": true, "doctor": true, "physio": true, "manager": true, "carer": true, "recruiter": true}

// homeVerbs say where someone lives; moveVerbs that they moved there.
var (
	homeVerbs = map[string]bool{"live": true, "lives": true, "living": true, "lived": true, "settled": true, "based": true, "relocated": true, "relocating": true, "relocate": true, "resettled": true}
	moveVerbs = map[string]bool{"moved": true, "moving": true, "move": true, "moves": true, "shifted": true, "shifting": true} // "shifted to Pune": moved, in Indian English
)

// boughtHome returns, when ts[i] buys or rents a home ("bought a place", "rented a flat",
// "got a house", "sharing a flat in Poblenou"), the index of the word after the home's
// noun; else 0.
func boughtHome(ts []token, i int) int {
	switch ts[i].low {
	case "bought", "buy", "buying", "rent", "renting", "rented", "got", "share", "sharing", "shares":
	default:
		return 0
	}
	j := i + 1
	if j+2 < len(ts) && ts[j].low == "the" && ts[j+1].low == "keys" && ts[j+2].low == "to" {
		j += 3 // "got the keys to my own flat in Bath"
	}

	for j < len(ts) && (leadValue[ts[j].low] || ts[j].low == "own" || ts[j].low == "little" || ts[j].low == "two" || ts[j].low == "bed" || ts[j].low == "bedroom") {
		j++
	}
	if j+1 < len(ts) && homeNouns[ts[j].low] && ts[j+1].low == "in" {
		return j + 1
	}
	return 0
}

// homeNouns are dwellings: a home bought or rented ("bought a place in hove"), one lived
// in ("we're in a new flat in Leith"), one described ("a 3 bed semi").
var homeNouns = wordSet(`place house flat apartment home cottage bungalow terrace semi maisonette condo flatshare
	houseshare studio room bedsit detached townhouse`)

// homePlace returns the place a clause says someone lives or moved to: "lives in
// Savannah", "is settled in Richmond", "relocated from Reno to Denver" (the destination).
func homePlace(all []token, lower bool) string {
	for i, t := range all {
		ts := all // this reading's words; the loop goes on over all of them
		home, move := homeVerbs[t.low], moveVerbs[t.low]
		if bought := boughtHome(all, i); bought > 0 {
			// "just bought a place in hove", "we've bought a house in reze": the place.
			home, ts = true, slices.Concat(all[:i+1], all[bought:])
		}
		if !home && !move {
			continue
		}
		j := i + 1
		for j < len(ts) && (ts[j].low == "back" || ts[j].low == "over" || ts[j].low == "out" || ts[j].low == "away" || ts[j].low == "down" || ts[j].low == "up" || ts[j].low == "permanently" || ts[j].low == "again") {
			j++
		}
		if home && j+2 < len(ts) && ts[j].low == "with" {
			// "living with her boyfriend in Bath": the place after whom one lives with.
			for k := j + 1; k < min(len(ts), j+5); k++ {
				if ts[k].low == "in" {
					j = k
					break
				}
			}
		}
		if j < len(ts) && ts[j].low == "from" {
			// "from Reno to Denver": the destination.
			for k := j + 1; k < min(len(ts), j+6); k++ {
				if ts[k].low == "to" {
					j = k
					break
				}
			}
		}
		if j+1 >= len(ts) || ts[j].low != "in" && ts[j].low != "to" && ts[j].low != "into" {
			continue
		}
		if move && ts[j].low == "in" && ts[j+1].low == "with" && j+2 < len(ts) {
			// "moved back in with mum and dad", "I'm moving in with Sam": the home is
			// theirs.
			if v := phrase(ts[j+2:]); v != "" && !emptyValue(v) {
				return "with " + v
			}
		}
		k := j + 1
		for k < len(ts) && determiners[ts[k].low] {
			k++
		}
		if d := dwellingPhrase(ts[k:]); d != "" && home {
			return d // "we live in a 2 bed flat"
		}
		if k < len(ts) && k > j+1 && isCapitalised(ts[k]) && !isMonthOrDay(ts[k].low) {
			// "Dad moved into his Summerset villa", "we moved into the Old Rectory": a
			// named place after a determiner.
			if v := placeRun(ts[k:]); v != "" {
				return v
			}
		}
		n := ts[j+1]
		if leadValue[n.low] || common[n.low] || isMonthOrDay(n.low) || !isWord(n.low) || pronouns[n.low] || firstPerson[n.low] {
			continue
		}
		if !home && !isCapitalised(n) && !lower {
			continue
		}
		if lower && !isCapitalised(n) {
			// Text written in lower case names places in lower case too: "mum moved into
			// elmwood court care home on saturday".
			if v := lowerPlace(ts[j+1:]); v != "" {
				return v
			}
			continue
		}
		if v := placeRun(ts[j+1:]); v != "" {
			return v
		}
	}
	return ""
}

// livingIn reads a home told by the dwelling one is in: "I'm in a place in Brixton
// now", "we're in a new flat in Leith" (a copula, "in", a dwelling, "in", the place).
func livingIn(ts []token, lower bool) string {
	for i := 0; i+4 < len(ts); i++ {
		if !beVerbs[ts[i].low] && ts[i].low != "we're" && ts[i].low != "'m" && ts[i].low != "'re" {
			continue
		}
		j := i + 1
		if ts[j].low == "now" || ts[j].low == "finally" {
			j++
		}
		if j >= len(ts) || ts[j].low != "in" {
			continue
		}
		j++
		for j < len(ts) && (determiners[ts[j].low] || ts[j].low == "little" || ts[j].low == "tiny" || ts[j].low == "shared") {
			j++
		}
		if d := dwellingPhrase(ts[j:]); d != "" && (j+len(strings.Fields(d)) >= len(ts) || ts[j+len(strings.Fields(d))].low != "in") {
			// "we're in a 3 bed semi now": the dwelling itself, when no place follows.
			return d
		}
		if j+2 < len(ts) && homeNouns[ts[j].low] && ts[j+1].low == "in" {
			n := ts[j+2]
			switch {
			case isCapitalised(n):
				return placeRun(ts[j+2:])
			case lower && isWord(n.low) && !common[n.low]:
				return lowerPlace(ts[j+2:])
			}
		}
	}
	return ""
}

// dwellingPhrase reads a dwelling described by its size or kind at the start of ts:
// "3 bed semi", "2 bed flat", "two-bedroom terrace" (a number of bedrooms, then a
// dwelling), else "".
func dwellingPhrase(ts []token) string {
	if len(ts) < 2 || !isDigitStart(ts[0].low) && !numberWords[strings.Split(ts[0].low, "-")[0]] {
		return ""
	}
	i := 1 // past "two-bedroom", or past "3" and then "bed"
	if !strings.Contains(ts[0].low, "-") && (ts[i].low == "bed" || ts[i].low == "bedroom" || ts[i].low == "bedroomed" || ts[i].low == "br") {
		i++
	}
	for i < len(ts) && (ts[i].low == "terraced" || ts[i].low == "detached" || ts[i].low == "new" || ts[i].low == "new-build") {
		i++
	}
	if i < len(ts) && homeNouns[strings.Trim(ts[i].low, ",.!")] {
		return strings.Trim(join(ts[:i+1]), " ,.!")
	}
	return ""
}

// lowerPlace takes a place name written in lower case: up to four words, up to a stop
// word, a time word or a clause boundary.
func lowerPlace(ts []token) string {
	var out []token
	for _, t := range ts {
		if len(out) >= 4 || stopValue[t.low] || isMonthOrDay(t.low) || fillers[t.low] || !isWord(t.low) || len(out) > 0 && common[t.low] && !placeHeads[t.low] {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	if len(out) == 0 || common[out[0].low] {
		return ""
	}
	return join(out)
}

// placeHeads end place names that are otherwise common words: "elmwood court care home".
var placeHeads = wordSet(`home house flat court street road lane avenue close park centre center hall`)

// placeRun takes a place name: a run of capitalised words, or one lower-case word.
func placeRun(ts []token) string {
	var out []token
	for _, t := range ts {
		if len(out) >= 3 || stopValue[t.low] || common[t.low] || len(out) > 0 && !isCapitalised(t) {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	return join(out)
}

// workWords make joining an organisation a job: "joined Kestrel as a tester".
var workWords = map[string]bool{"as": true, "team": true, "staff": true, "role": true, "position": true, "job": true, "company": true, "firm": true, "engineer": true, "developer": true, "analyst": true, "manager": true}

// employerName returns the organisation a clause says someone took a job at: "got a new
// job at Spotify", "started at Kestrel", "joined Quillpoint as a tester", "hired by the
// BBC" — a name written with capitals (apposedName), in text that writes names so
// (cased) — or works or has a job at, named by what it is, in any text: "I work nights
// at the warehouse", "got a day job at the library" (not "at the moment"; "started at
// the gym" may be a habit, and is read by meaning).
func employerName(ts []token, cased bool) string {
	for i, t := range ts {
		k, byName := 0, false
		switch {
		case workVerbs[t.low]:
			// "I work nights at the warehouse", "works part-time at the library".
			j := i + 1
			for j < len(ts) && workShifts[ts[j].low] {
				j++
			}
			if j+1 >= len(ts) || ts[j].low != "at" && ts[j].low != "for" {
				continue // "works at the library", "works for the council"
			}
			k = j + 1
		case t.low == "job" && i+1 < len(ts) && (ts[i+1].low == "at" || ts[i+1].low == "with"):
			k = i + 2
		case roleNouns[t.low] && i > 0 && i+2 < len(ts) && (ts[i+1].low == "at" || ts[i+1].low == "with") && slices.ContainsFunc(ts[max(0, i-4):i], func(w token) bool { return takeVerbs[w.low] }):
			// "started an ops role at Virgin Australia", "took a position with the NHS".
			k = i + 2
		case (t.low == "started" || t.low == "starting" || t.low == "start") && i+1 < len(ts) && (ts[i+1].low == "at" || ts[i+1].low == "with"):
			k, byName = i+2, true
		case (t.low == "joined" || t.low == "joining") && slices.ContainsFunc(ts[i+1:], func(w token) bool { return workWords[w.low] }):
			// "joined Quillpoint as a data analyst"; "joined Strava" is no job, and "joined
			// the data engineering team" a team.
			k, byName = i+1, true
		case t.low == "ship" && i > 0 && (ts[i-1].low == "jumped" || ts[i-1].low == "jumping") && i+1 < len(ts) && ts[i+1].low == "to":
			k, byName = i+2, true // "jumped ship to PwC"
		case (t.low == "hired" || t.low == "employed" || t.low == "poached" || t.low == "headhunted" || t.low == "recruited") && i+1 < len(ts) && ts[i+1].low == "by":
			k, byName = i+2, true // "got poached by PwC"
		default:
			continue
		}
		the := k < len(ts) && ts[k].low == "the"
		if the {
			k++
		}
		// A workplace named by what it is, in any text ("a job at the library", "works at
		// the harbour cafe"), or in lower-case text, which writes an organisation in lower
		// case too ("ellie got a job at channel 4", "works at tesco"; not "work at home",
		// "at night").
		if k < len(ts) && !byName {
			w := ts[k]
			plain := isWord(w.low) && !isCapitalised(w) && !stopValue[w.low] && !whenNouns[w.low] && !timeNouns[w.low]
			lowerOrg := !the && !cased && !emptyWords[w.low] && !verbish(w.low) && !workplaceStops[w.low]
			if plain && (the || lowerOrg) {
				if v := phrase(ts[k:]); v != "" && !emptyValue(v) && !abstractValue(v) {
					return v
				}
			}
		}
		if k < len(ts) && apposedName(ts[k]) {
			// A brand may be a common word ("Spotify", "Apple"): its capital says it,
			// also in text otherwise written in lower case ("my husband's started a
			// new job at Sainsbury's").
			return nameAt(ts[k:])
		}
	}
	return ""
}

// nameAt returns the name that opens ts, whose first word is one (apposedName): the
// run of its words placeRun reads, else that word alone.
func nameAt(ts []token) string { return cmp.Or(placeRun(ts), ts[0].orig) }

// workVerbs say where someone works; workShifts may stand between them and "at".
var (
	workVerbs  = wordSet(`work works working worked`)
	workShifts = wordSet(`nights days weekends evenings mornings shifts part-time full-time parttime fulltime there still now also mostly`)
)

// workplaceStops after "work at" name no workplace: "work at home", "work at night".
var workplaceStops = wordSet(`home night nights`)

// whenNouns after "at the" tell when, not where: "at the moment", "at the weekend".
var whenNouns = wordSet(`moment minute weekend weekends end start beginning same time mo min`)

// careRe marks a clause about care, where "seeing" someone is an appointment, not a
// date: "seeing Sunita at the same clinic", "I'm seeing Dr Ruiz for my back".
var careRe = regexp.MustCompile(`(?i)\b(?:clinic|physio\w*|doctors?|dr|gp|surgery|therap\w+|counsell?or|counselling|dentist|specialist|consultant|osteo\w*|chiro\w*|appointments?|sessions?|hospital|nurse|psychiatrist|psychologist|for my (?:back|knee|shoulder|ankle|neck|hip|wrist|foot|leg|arm|anxiety|depression|skin|teeth))\b`)

// careName returns whom a clause about care says the speaker is seeing: "so i'm seeing
// Sunita at the same clinic for now", "started seeing a new therapist called Jo".
func careName(ts []token) string {
	if !careRe.MatchString(join(ts)) {
		return ""
	}
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].low != "seeing" {
			continue
		}
		k := i + 1
		for k < len(ts) && k < i+5 && !isCapitalised(ts[k]) && (ts[k].low == "a" || ts[k].low == "new" || careRe.MatchString(ts[k].low) || ts[k].low == "called" || ts[k].low == "named") {
			k++
		}
		if k < len(ts) && ts[k].low == "dr" && k+1 < len(ts) {
			k++
		}
		if k < len(ts) && isCapitalised(ts[k]) && !isMonthOrDay(ts[k].low) && !notName(ts[k].low) {
			return nameRun(ts[k : k+1])
		}
	}
	return ""
}

// commuteRe reads how someone travels to work, school or the like: "gets the bus to
// the hospital", "I cycle to work now", "takes the train into the office".
var commuteRe = regexp.MustCompile(`(?i)\b(?:(?:get|gets|getting|got|take|takes|taking|took|catch|catches|catching|ride|rides|riding|on) (?:the |a )?(bus|buses|train|trains|tube|tram|metro|subway|ferry|overground)|(cycle|cycles|cycling|cycled|bike|bikes|biking|walk|walks|walking|drive|drives|driving|run|runs|running|scoot|scooter)|by (bus|train|tube|tram|bike|car|metro))\s+(?:in\s+)?(?:to|into)\s+(?:work|the office|office|school|uni|university|college|campus|the hospital|the station|the lab)\b`)

// commuteModes are the canonical values of commuteRe's words. Driving is "drive", not
// "car", which would name the car attribute (namesAttribute).
var commuteModes = map[string]string{"buses": "bus", "trains": "train", "cycle": "bike", "cycles": "bike", "cycling": "bike", "cycled": "bike", "bikes": "bike", "biking": "bike",
	"walks": "walk", "walking": "walk", "drives": "drive", "driving": "drive", "car": "drive", "runs": "run", "running": "run", "scoot": "scooter"}

// commuteMode returns how a clause says its subject commutes (commuteRe), or "".
func commuteMode(text string) string {
	m := commuteRe.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	v := strings.ToLower(cmp.Or(m[1], m[2], m[3]))
	return cmp.Or(commuteModes[v], v)
}

// expiryRe reads when a document or an agreement runs out: "my passport runs out in
// feb 2026", "the lease ends on 30 june", "visa expires in january".
var expiryRe = regexp.MustCompile(`(?i)\b(passport|visa|contract|lease|tenancy|membership|licen[cs]e|insurance|warranty|railcard|permit|mot|tariff)\s+(?:(?:is |'s )?(?:runs? out|running out|expires?|expiring|ends|ending|is up|finishes|lapses)|(?:is |'s )?(?:valid|good) (?:till|til|until|to))\s+(?:in |on |at the end of |end of )?((?:` + monthName + `)(?:\s+\d{4}|\s+\d{1,2}(?:st|nd|rd|th)?)?|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:` + monthName + `)(?:\s+\d{4})?|20\d\d)\b`)

// validRe reads how long a document holds, said apart from its name: "new passport
// came!! good til 2036", "picked up the new passport, valid till 2035", "the new one
// came today and it expires 2036".
var validRe = regexp.MustCompile(`(?i)\b(?:(?:valid|good)(?:\s+for\s+[\w ]{1,20}?)?,?\s+(?:till|til|until|to|thru|through)|(?:it|which|that)\s+(?:expires|runs out)(?:\s+in|\s+on)?)\s+((?:(?:` + monthName + `)\s+)?\d{4}|(?:` + monthName + `)(?:\s+\d{1,2}(?:st|nd|rd|th)?)?)\b`)

// documentRe names a document that runs out.
var documentRe = regexp.MustCompile(`(?i)\b(passport|visa|licen[cs]e|railcard|permit|id card|residence card|green card|blue card)\b`)

// validUntil is the expiry fact of the one document a memory's text names with how long
// it is valid, in self's name ("Lukas: picked up the new passport, valid till 2035": the
// speaker's passport-expiry = 2035); false without both, or with two documents.
func validUntil(text, self string) (Fact, bool) {
	v := validRe.FindStringSubmatch(text)
	docs := documentRe.FindAllString(text, -1)
	if v == nil || len(docs) == 0 || slices.ContainsFunc(docs, func(d string) bool { return !strings.EqualFold(d, docs[0]) }) {
		return Fact{}, false
	}
	return Fact{Subject: self, Attribute: Kebab(docs[0]) + "-expiry", Value: v[1]}, true
}

// expiry returns the attribute ("passport-expiry") and the date a clause says a
// document or agreement runs out on, or "".
func expiry(text string) (string, string) {
	m := expiryRe.FindStringSubmatch(text)
	if m == nil {
		return "", ""
	}
	return Kebab(m[1]) + "-expiry", m[2]
}

// workDaysRe reads which days or how many a week someone works: "i work mondays to
// thursdays now", "doing 4 days a week from september", "she works tue-fri".
var workDaysRe = regexp.MustCompile(`(?i)\b(?:work|works|working)\s+(?:only\s+|just\s+)?(` + dayRange + `)\b|\b(?:work|works|working|doing|down to|up to)\s+((?:\d|one|two|three|four|five|six)(?:\.5)?\s+days\s+a\s+week)\b|\b(?:to|on) an?\s+(` + dayRange + `|(?:\d|one|two|three|four|five|six)[- ]day(?:s a week)?)\s+(?:contract|pattern|rota|schedule|week)\b`)

// dayRange is a weekday, or a run or range of them: "mondays to thursdays", "tue-fri".
const dayRange = `(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*(?:\s*(?:-|to|through|till|until|and|,|&)\s*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)*`

// workDays returns the working days a clause states (workDaysRe), or "".
func workDays(text string) string {
	m := workDaysRe.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return cmp.Or(m[1], m[2], m[3])
}

// amountMoveRe is an amount said to rise or fall to a new one: "my take-home goes up to
// £2,710", "the rent went up to 1100", "our council tax is going down to £140";
// amountPutRe one put there by a verb (of changingVerbs): "bumping the savings goal up to
// £8,000".
var (
	amountPutRe  = regexp.MustCompile(`(?i)\b([a-z]+)\s+(my|our|the|his|her|)\s*` + amountLabelRe + `\s+(?:(?:up|down|back)\s+)?to\s+` + amountRe)
	amountMoveRe = regexp.MustCompile(`(?i)(?:^|\b)(?:my|our|the)\s+` + amountLabelRe + `\s+(?:goes|went|is going|'s going|has gone|have gone|has been put|is being put|got put|gets put|will go|going|jumps|jumped|is|'s)\s+(?:up|down)\s+to\s+` + amountRe +
		// a note's "401k back to 6%", "rent up to $1900 from june"
		`|^\s*(?:(?:my|our|the)\s+)?(\d*[a-z][a-z0-9-]*)\s+(?:is\s+|'s\s+|now\s+)?(?:back|up|down)\s+to\s+` + amountRe)
)

// amountLabelRe and amountRe are the label and the amount of amountMoveRe and amountPutRe.
const (
	amountLabelRe = `((?:\d+[a-z][a-z0-9-]*|[a-z][a-z0-9-]*)(?:\s+[a-z][a-z-]*)??)` // one word unless two are needed: "the lantus up to 20"; "401k"
	amountRe      = `([£$€]?\s?\d[\d,.]*(?:%|(?:k|\s?(?:mg|mcg|ml|units?|iu|hours?|hrs|minutes|mins|km|miles))?\b))`
)

// amountMove returns the attribute and the new amount of amountMoveRe or amountPutRe,
// or "", and whether one of changingVerbs put the speaker's amount there: "landlord's
// putting the rent up to £1,140", "doctor has increased the Thyronorm to 75 mcg" — the
// rule of actsOnOwn, for a verb anywhere in the clause ("his" or "her" leave the owner
// to the clause).
func amountMove(text string) (attr, value string, put bool) {
	// A clock time is no amount: "changed the start time to 8:30".
	clock := func(end int) bool { return clockRe.MatchString(text[max(0, end-2):min(len(text), end+4)]) }
	if m := amountMoveRe.FindStringSubmatchIndex(text); m != nil && !clock(m[1]) {
		if m[2] < 0 {
			m = m[4:] // the note's form: its label and amount are the third and fourth groups
		}
		attr, value = amountLabel(text[m[2]:m[3]], text[m[4]:m[5]])
		return attr, value, false
	}
	for _, m := range amountPutRe.FindAllStringSubmatchIndex(text, -1) {
		if changingVerbs[strings.ToLower(text[m[2]:m[3]])] && !clock(m[1]) {
			attr, value = amountLabel(text[m[6]:m[7]], text[m[8]:m[9]])
			p := strings.ToLower(text[m[4]:m[5]])
			return attr, value, attr != "" && p != "his" && p != "her"
		}
	}
	return "", "", false
}

// amountLabel names the attribute of an amount by its label: a label of the table, an
// attribute whose cue the label is ("salary": rate), or the label itself.
func amountLabel(label, amount string) (string, string) {
	label = strings.ToLower(label)
	for _, w := range strings.Fields(label) {
		if verbForm(w) || pronouns[w] || stopValue[w] || evaluations[w] {
			return "", ""
		}
	}
	if a := labelNames[label]; a != "" {
		return a, amount
	}
	if drugRe.MatchString(label) {
		return Kebab(label) + doseSuffix, amount // "bumped my lantus up to 20"
	}
	// "salary" is a cue of rate: the attribute an amount of it is read into by
	// meaning. A label of two words names its own thing ("savings goal" is no monthly
	// budget), and a word that cues two attributes decides nothing.
	var cued []string
	for _, a := range attributeCues[label] {
		if a.kind == kindNumber {
			cued = append(cued, a.name)
		}
	}
	if len(cued) == 1 {
		return cued[0], amount
	}
	return Kebab(label), amount
}

// streamingRe names a streaming or media subscription by its brand.
var streamingRe = regexp.MustCompile(`(?i)\b(?:netflix|spotify(?: premium)?|disney\+?|disney plus|crunchyroll|apple music|apple tv\+?|amazon prime|prime video|hbo(?: max)?|now tv|youtube premium|youtube music|audible|deezer|tidal|paramount\+?|paramount plus|britbox|mubi|dazn|peacock|hulu|kindle unlimited|xbox game pass|game pass|playstation plus|ps plus)\b`)

// switchCueRe says one thing replaces another: "switched", "moved to", "going back to"
// (not "switch off", "switch sides", nor "instead", which replaces many things).
var switchCueRe = regexp.MustCompile(`(?i)\b(?:switched|swapped|(?:switching|swapping) (?:to|over)|moved (?:over )?to|changed to|converted to)\b|` + backCue)

// backCue says a value returns: "going back to spotify", "went back on the pill" (not
// "got the mri back on the 20th").
const backCue = `\b(?:going|went|gone|go|moved|switched|changed|i'm|im) back (?:to|on)\b`

var backCueRe = regexp.MustCompile(`(?i)` + backCue)

// musicServices are one kind of subscription: a new one replaces the other.
var musicServices = regexp.MustCompile(`(?i)^(?:spotify(?: premium)?|apple music|youtube music|tidal|deezer|amazon music)$`)

// switchedAway reads what a switch ends among several values of an attribute: "the
// cetirizine's been making me drowsy, pharmacist said try fexofenadine so ive switched"
// ends the cetirizine the memory names; "moved to Apple Music" ends the other music
// service (the speaker's known values, values). The new value is one the attribute does
// not hold yet, or, told as a return ("going back to spotify"), not its newest; what it
// ends is named in the memory or is the same kind of service. A positive fact of an
// ended value read beside the switch goes.
func switchedAway(p prepared, fs []Fact, values map[string][]string) []Fact {
	text := p.text()
	if !switchCueRe.MatchString(text) {
		return fs
	}
	words := p.words()
	var ended []Fact
	for _, f := range fs {
		if f.Negated || SingleValued(f.Attribute) {
			continue
		}
		vals := values[f.Subject+"/"+Kebab(f.Attribute)]
		held := slices.IndexFunc(vals, func(v string) bool { return SameValue(v, f.Value) })
		if held == 0 || held > 0 && !backCueRe.MatchString(text) {
			continue
		}
		for _, v := range vals {
			music := musicServices.MatchString(strings.TrimSpace(v)) && musicServices.MatchString(strings.TrimSpace(f.Value))
			e := Fact{Subject: f.Subject, Attribute: f.Attribute, Value: v, Negated: true, EventTime: f.EventTime}
			if SameValue(v, f.Value) || !music && !mentions(words, v) || slices.ContainsFunc(ended, func(x Fact) bool { return x.Group() == e.Group() }) {
				continue
			}
			ended = append(ended, e)
		}
	}
	if len(ended) == 0 {
		return fs
	}
	fs = slices.DeleteFunc(fs, func(f Fact) bool {
		return !f.Negated && slices.ContainsFunc(ended, func(e Fact) bool { return e.Group() == f.Group() })
	})
	return append(fs, ended...)
}

// streamingStop gives a subscription up: "cancelled netflix", "dropped spotify".
var streamingStop = regexp.MustCompile(`(?i)\b(?:cancell?ed|cancel|cancelling|cut|cutting|dropped|drop|ditched|ditch|quit|stopped|unsubscribed(?: from)?|got rid of|no longer (?:have|pay for|use)|don'?t (?:have|pay for) .{0,12}any ?more)\s+(?:my\s+|the\s+|our\s+)?$`)

// streamingFacts reads the subscriptions a clause of the speaker's names by brand — had,
// paid for, switched to, or given up ("cancelled netflix"): one fact each, since a
// subscription is one of several.
func streamingFacts(c clause, self string, base Fact) []Fact {
	if !speakersSubscription(c, self) {
		return nil
	}
	var out []Fact
	for _, ix := range streamingRe.FindAllStringIndex(c.text, 4) {
		name := c.text[ix[0]:ix[1]]
		if before := strings.Fields(strings.ToLower(c.text[:ix[0]])); len(before) > 0 && (before[len(before)-1] == "at" || before[len(before)-1] == "joined" || before[len(before)-1] == "for" && len(before) > 1 && strings.HasPrefix(before[len(before)-2], "work")) {
			continue // "a new job at Spotify", "works for netflix": an employer
		}
		f := base
		f.Subject, f.Attribute, f.Value, f.Negated, f.Scope = self, "subscription", name, streamingStop.MatchString(c.text[max(0, ix[0]-40):ix[0]]), ""
		out = append(out, f)
	}
	return out
}

// speakersSubscription reports a clause whose subscriptions are the speaker's: its
// subject is the speaker or "we"; it is only a brand, one of a list ("Streaming right
// now: Netflix, Hulu, Spotify", whose clause "Hulu" reads as a name's); or a verb of
// giving up opens it with the speaker left out ("Cut Netflix too").
func speakersSubscription(c clause, self string) bool {
	switch {
	case c.subj == self || slices.ContainsFunc(c.toks, func(t token) bool { return t.low == "we" || t.low == "we've" || t.low == "we're" }):
		return true
	case len(c.toks) <= 4 && c.subj != "" && Kebab(streamingRe.FindString(c.text)) == c.subj:
		return true
	}
	return len(c.toks) > 0 && streamingStop.MatchString(c.toks[0].low+" ")
}

// portRe moves a phone number to another network: "moved my number over to giffgaff",
// "ported my number to Three".
var portRe = regexp.MustCompile(`(?i)\b(?:moved|moving|ported|porting|switched|switching|took|taken|transferred)\s+(?:my|our|his|her)\s+number\s+(?:over\s+)?(?:to|across to)\s+([a-z0-9][\w&+-]*(?:\s+mobile)?)`)

// drinkRe names a drink: "an oat flat white", "iced americano", "green tea".
var drinkRe = regexp.MustCompile(`(?i)\b(?:coffee|tea|latte|lattes|flat white|americano|cappuccino|espresso|mocha|macchiato|cortado|matcha|chai|decaf|hot chocolate|smoothie|juice|beer|lager|wine|cider|cocktail|kombucha)\b`)

// coupleEnd and coupleOn say that two people stopped or started being a couple:
// "marco and i broke up", "me and Farah have been seeing each other".
var (
	coupleEnd = regexp.MustCompile(`(?i)\b(?:broke up|broken up|split up|split|separated|divorced|called it (?:off|quits|a day)|calling it (?:quits|a day)|finished|over)\b`)
	coupleOn  = regexp.MustCompile(`(?i)\b(?:seeing each other|dating|got engaged|engaged|got married|married|a couple|an item|back together|together now|got together|officially together|(?:are|r|is|back) back on|back on again|on again)\b`)
)

// partnerWord reports a word a partner is introduced by ("me and my boyfriend marco"): a
// relation or a label that names the partner.
func partnerWord(w string) bool { return relations[w] == "partner" || labelNames[w] == "partner" }

// couple is what coupleName reads of two people.
type couple int

const (
	coupleNone  couple = iota
	coupleBegan        // "me and Farah have been seeing each other"
	coupleEnded        // "marco and i broke up", "broke up with Tom"
	coupleNamed        // "me and my boyfriend marco are doing …": only the relation says it
)

// coupleName reads the speaker and someone named as a couple, beginning, ending, or
// named by the relation alone. The clause's own subject's breakup ("broke up with Tom",
// "my uncle broke up with Lysander") is read with own false. cased says the text writes
// names with capitals.
func coupleName(ts []token, cased bool) (name string, how couple, own bool) {
	ts = skipFillers(ts)
	isName := func(i int) bool {
		if i >= len(ts) || !isNameToken(ts, i) || partnerWord(ts[i].low) {
			return false
		}
		return isCapitalised(ts[i]) || !cased && !verbish(ts[i].low)
	}
	at := -1
	byRelation := false
	if len(ts) > 3 && !isNameToken(ts, 0) && (ts[1].low == "me" || ts[1].low == "i") {
		ts = ts[1:] // "soooo me and Farah …"
	}
	switch {
	case len(ts) > 2 && (ts[0].low == "me" || ts[0].low == "i") && ts[1].low == "and":
		at = 2
		if (ts[2].low == "my" || ts[2].low == "our") && len(ts) > 4 && partnerWord(ts[3].low) {
			at, byRelation = 4, true
		}
	case len(ts) > 2 && ts[1].low == "and" && (ts[2].low == "i" || ts[2].low == "me"):
		at = 0
	}
	if at >= 0 && isName(at) {
		rest := join(ts[at+1:])
		switch {
		case coupleEnd.MatchString(rest):
			return nameRun(ts[at : at+1]), coupleEnded, true
		case coupleOn.MatchString(rest):
			return nameRun(ts[at : at+1]), coupleBegan, true
		case byRelation:
			return nameRun(ts[at : at+1]), coupleNamed, true
		}
		return "", coupleNone, false
	}
	for i := 0; i+2 < len(ts); i++ {
		if ts[i+1].low == "up" && (ts[i].low == "broke" || ts[i].low == "split") && i+3 < len(ts) && ts[i+2].low == "with" && isName(i+3) {
			return nameRun(ts[i+3 : i+4]), coupleEnded, false
		}
	}
	return "", coupleNone, false
}

// partnerName returns the partner a clause names: "is with Clementine now", "now I am
// seeing Marguerite", "is dating Ambrose", "got engaged to Rosalind". Seeing someone in
// a clause about care is careName's.
func partnerName(ts []token) string {
	care := careRe.MatchString(join(ts))
	// "my dad and Leopold have been together for a while", "I and Sam got married".
	if len(ts) > 2 && ts[0].low == "and" && isCapitalised(ts[1]) && !notName(ts[1].low) {
		for _, t := range ts[2:min(len(ts), 8)] {
			if t.low == "together" || t.low == "married" || t.low == "engaged" || t.low == "engagement" || t.low == "dating" || t.low == "couple" {
				return nameRun(ts[1:2])
			}
		}
	}
	for i := 0; i+1 < len(ts); i++ {
		w := ts[i].low
		n := ts[i+1]
		switch {
		case w == "seeing" && !care || w == "dating" || w == "marrying" || w == "married" && i+1 < len(ts) && n.low != "to" || w == "engaged" && n.low == "to" || w == "married" && n.low == "to":
			if n.low == "to" && i+2 < len(ts) {
				n = ts[i+2]
			}
			if k := i + 1; (w == "seeing" || w == "dating") && k+2 < len(ts) && (ts[k].low == "this" || ts[k].low == "a") && personNouns[ts[k+1].low] {
				n = ts[k+2] // "been seeing this guy Jonas", "dating a girl called Mira"
				if (n.low == "called" || n.low == "named") && k+3 < len(ts) {
					n = ts[k+3]
				}
			}
			if isCapitalised(n) && !isMonthOrDay(n.low) && !notName(n.low) && n.low != "dr" {
				return nameRun([]token{n})
			}
		case w == "with" && i > 0 && (beVerbs[ts[i-1].low] || ts[i-1].low == "together" || ts[i-1].low == "back"):
			if isCapitalised(n) && isWord(n.low) && !isMonthOrDay(n.low) && !notName(n.low) && (i+2 >= len(ts) || ts[i+2].low == "now" || ts[i+2].end || ts[i+1].end || stopValue[ts[i+2].low]) {
				return nameRun([]token{n})
			}
		}
	}
	return ""
}

// petWords name kinds of pets.
var petWords = map[string]bool{"dog": true, "cat": true, "puppy": true, "kitten": true, "rabbit": true, "bunny": true, "hamster": true, "parrot": true, "budgie": true,
	"tortoise": true, "turtle": true, "ferret": true, "pig": true, "gecko": true, "lizard": true, "snake": true, "fish": true, "goldfish": true, "chinchilla": true,
	"horse": true, "pony": true, "bird": true, "mouse": true, "rat": true, "hedgehog": true, "pet": true, "gerbil": true, "canary": true, "iguana": true, "terrier": true, "spaniel": true, "retriever": true}

// petLoss says a pet is no longer the owner's: "rehomed Clover", "gave away", "no
// longer has".
var petLoss = regexp.MustCompile(`(?i)\b(?:rehom(?:ed|e|ing)|gave (?:away|up)|given (?:away|up)|(?:give|gave|given|giving) (?:\S+ ){1,4}away|no longer (?:has|have|own|owns)|doesn'?t have|don'?t have|lost|got rid of|sold|passed away|put down|went missing|gone missing|died|\brip\b)\b`)

// petGone is a clause whose subject, a pet's name, has left: "Marble went to live with a
// neighbor", "Biscuit passed away".
var petGone = regexp.MustCompile(`(?i)^(?:went|has gone|had to go|was rehomed|got rehomed|is living|lives now|now lives|moved) (?:to live |away |back )?(?:with|to)\b|^(?:passed away|died|ran away|was put down|is gone|got adopted|was adopted|went missing|has gone missing|is missing)\b`)

// isPetWord reports a kind of pet, in the singular or the plural ("cats").
func isPetWord(w string) bool {
	return petWords[w] || len(w) > 3 && petWords[strings.TrimSuffix(w, "s")] || breeds[w]
}

// breeds name a kind of dog or cat, which names a pet as well as "dog" does.
var breeds = wordSet(`beagle labrador lab collie poodle pug dachshund greyhound whippet husky corgi cockapoo cavapoo
	schnauzer bulldog chihuahua labradoodle spaniel terrier retriever alsatian lurcher staffie staffy shepherd tabby
	siamese persian ragdoll bengal moggy`)

// petIsRe says a named animal is the speaker's: "Mittens is my old cat", "Rufus is a
// beagle", "Rufus is our dog".
var petIsRe = regexp.MustCompile(`^(\p{Lu}[\p{L}'-]+)\s+(?:is|'s)\s+(?:(my|our)\s+|an?\s+)(?:old\s+|new\s+|little\s+|big\s+|rescue\s+|young\s+|elderly\s+|ginger\s+|black\s+|grey\s+)*([a-z]+)\b`)

// petIs returns the pet a clause names by petIsRe, or "".
func petIs(ts []token) string {
	m := petIsRe.FindStringSubmatch(join(ts))
	if m == nil || !isPetWord(strings.ToLower(m[3])) || notName(strings.ToLower(m[1])) {
		return ""
	}
	return m[1]
}

// apposedName reports a capitalised word that can be a name where the words around it
// say a name follows ("our cat Pixel", "a job at Spotify"): such names are often common
// words, so only function words, pronouns, relations, numbers, months and days are not.
func apposedName(t token) bool {
	w := t.low
	return isCapitalised(t) && isWord(w) && !stopValue[w] && !fillers[w] && !pronouns[w] && !firstPerson[w] && relations[w] == "" && !numberWords[w] && !isMonthOrDay(w)
}

// nameThenRole returns the speaker's role that a clause of its own gives the name
// before it: "Gustavo, my manager, is the best boss I've had" (the manager). The role
// clause is "my" and the role, with at most a lead word ("my new manager"), nothing
// more: "Tom, my brother's friend" names no role of the speaker's.
func nameThenRole(c, next []token, cased bool) string {
	next = skipFillers(next)
	if !cased || !apposedNames(c, cased) || len(next) < 2 || len(next) > 3 || next[0].low != "my" && next[0].low != "our" {
		return ""
	}
	if len(next) == 3 && !labelLeads[next[1].low] {
		return ""
	}
	return roles[next[len(next)-1].low]
}

// roleApposition returns the role a clause gives a holder whose name follows as a
// clause of its own, and whether the role is the speaker's: "new boss started monday,
// Raj Patel", "my new flatmate moved in today, Olu" (the speaker's manager, flatmate);
// a clause that ends with the role, "we've got a cleaner now, rosa" (the speaker's),
// "anika has a new boyfriend, Rory" (the clause's subject's); else "". In text without
// capitals the name is one word that is no common one.
func roleApposition(c, next []token, cased bool) (role string, own bool) {
	c = skipFillers(c)
	i := 0
	if len(c) > 0 && (c[0].low == "my" || c[0].low == "our") {
		i++
	}
	if !apposedNames(next, cased) {
		return "", false
	}
	if i+1 < len(c) && c[i].low == "new" && roles[c[i+1].low] != "" {
		return roles[c[i+1].low], true
	}
	// A clause that ends with "a (new) <role> (now|too)": who has it is the clause's
	// subject, the speaker when the clause opens in the first person. The role may be
	// described ("a private tutor", "a maths tutor") and its time or place said after it
	// ("online", "on Wednesdays").
	j := len(c) - 1
	for j > 0 && (c[j].low == "now" || c[j].low == "too" || c[j].low == "online" || c[j].low == "again") {
		j--
	}
	if j >= 3 && roles[c[j].low] == "" && (c[j-1].low == "on" || c[j-1].low == "at" || c[j-1].low == "in" || c[j-1].low == "every") {
		j -= 2 // "a maths tutor on Wednesdays"
	}
	if j < 2 || roles[c[j].low] == "" {
		return "", false
	}
	k := j - 1
	if c[k].low == "new" {
		k--
	}
	for n := 0; n < 2 && k >= 1 && !determiners[c[k].low] && roles[c[k].low] == "" && !firstPerson[c[k].low] && !verbForm(c[k].low); n++ {
		k-- // "a private tutor", "a maths tutor"
	}
	if k >= 1 && (c[k].low == "my" || c[k].low == "our") {
		return roles[c[j].low], true // "first meeting with my new supervisor, prof lindqvist"
	}
	if k < 1 || c[k].low != "a" && c[k].low != "an" {
		return "", false
	}
	return roles[c[j].low], firstPerson[c[0].low] || c[0].low == "we've" || c[0].low == "i've"
}

// apposedNames reports a clause that is a name and nothing else — in text without
// capitals one word that is no common one — or a person described by their name: "a guy
// called Rahul from the risk team".
func apposedNames(ts []token, cased bool) bool {
	if len(ts) > 3 && describedRe.MatchString(join(ts)) || len(ts) == 2 && honorifics[strings.TrimSuffix(ts[0].low, ".")] && isWord(ts[1].low) {
		return true // "a guy called Rahul from the risk team", "prof lindqvist"
	}
	if len(ts) == 0 || len(ts) > 3 {
		return false
	}
	for _, t := range ts {
		if !apposedName(t) && (cased || len(ts) > 1 || common[t.low] || !isWord(t.low) || relations[t.low] != "" || fillers[t.low]) {
			return false
		}
	}
	return true
}

// petApposition reports a clause that ends with a kind of pet followed by one made only
// of names ("We adopted a dog, Rex", "two cats, Tom and Jerry"): one clause, the names
// the pets'.
func petApposition(c, next []token) bool {
	if len(c) == 0 || len(next) == 0 || len(next) > 5 || !isPetWord(c[len(c)-1].low) {
		return false
	}
	names := 0
	for _, t := range next {
		switch {
		case t.low == "and":
		case apposedName(t):
			names++
		default:
			return false
		}
	}
	return names > 0
}

// petName is a named pet of a clause.
type petName struct {
	name    string
	negated bool
}

// petNames returns the pets a clause names, each with whether it says the pet is gone:
// "a parrot named Sprocket", "Clover the hamster", "no longer has Kiwi".
func petNames(ts []token) []petName {
	var out []petName
	add := func(i int) {
		name := nameRun(ts[i : i+1])
		if name == "" {
			return
		}
		for _, p := range out {
			if strings.EqualFold(p.name, name) {
				return
			}
		}
		lo := 0
		for k := i - 1; k >= 0; k-- {
			// The pet's own verb phrase: back to the last "and" or clause boundary.
			if ts[k].low == "and" || ts[k].low == "but" || ts[k].low == "now" || ts[k].end {
				lo = k + 1
				break
			}
		}
		// "had to give our dog Max away": the loss may close after the name.
		neg := petLoss.MatchString(join(ts[lo:min(len(ts), i+2)])) || i+1 < len(ts) && petGone.MatchString(join(ts[i+1:]))
		out = append(out, petName{name: name, negated: neg})
	}
	for i, t := range ts {
		if isPetWord(t.low) && (!isCapitalised(t) || i == 0) {
			// "our cat Luna", "a dog, Rex", "two cats, Tom and Jerry": names in apposition.
			// A pet's kind in capitals inside a sentence is part of a name: "the Canary
			// Wharf office".
			for j := i + 1; j < len(ts) && apposedName(ts[j]); j++ {
				add(j)
				if j+2 < len(ts) && ts[j+1].low == "and" {
					j++
				}
			}
		}
		switch {
		case (t.low == "named" || t.low == "called") && i+1 < len(ts) && i > 0 && (petWords[ts[i-1].low] || i > 1 && petWords[ts[i-2].low]):
			add(i + 1)
		case isCapitalised(t) && i+2 < len(ts) && ts[i+1].low == "the" && petWords[ts[i+2].low] && !notName(t.low):
			add(i)
		case isCapitalised(t) && i > 0 && !notName(t.low) && petLoss.MatchString(join(ts[max(0, i-3):i])) && !isMonthOrDay(t.low):
			add(i)
		}
	}
	return out
}

// hasNamedPet reports whether a clause names a kind of pet with a name: "a ferret named
// Truffle", "our cat Luna".
func hasNamedPet(ts []token) bool {
	for i, t := range ts {
		if (t.low == "named" || t.low == "called") && i+1 < len(ts) && i > 0 && (petWords[ts[i-1].low] || i > 1 && petWords[ts[i-2].low]) {
			return true
		}
		if i+1 < len(ts) && isPetWord(t.low) && (!isCapitalised(t) || i == 0) && apposedName(ts[i+1]) {
			return true // "our cat Luna", "a dog, Rex"
		}
	}
	return false
}

// lightVerbs carry no meaning of their own in an activity: "do yoga" is yoga.
var lightVerbs = map[string]bool{"do": true, "go": true, "play": true, "practice": true, "practise": true, "make": true, "eat": true, "drink": true, "watch": true, "listen": true, "have": true, "take": true, "try": true}

// skipAdverbs returns the index of the first word of rest past the activity adverbs.
func skipAdverbs(rest []token) int {
	i := 0
	for i < len(rest) && activityAdverbs[rest[i].low] {
		i++
	}
	return i
}

// activityAdverbs come between the subject and an activity's verb.
var activityAdverbs = map[string]bool{"only": true, "still": true, "really": true, "also": true, "usually": true, "now": true, "sometimes": true, "mostly": true, "just": true, "always": true, "regularly": true, "occasionally": true, "rarely": true, "often": true, "absolutely": true, "actually": true, "totally": true}

// likeVerbs take an activity: "loves to do yoga", "enjoys swimming".
var likeVerbs = map[string]bool{"love": true, "loves": true, "like": true, "likes": true, "enjoy": true, "enjoys": true, "adore": true, "adores": true, "prefer": true, "prefers": true, "started": true, "starts": true}

// activityObject returns the object of an activity that opens ts: up to three words,
// to the first stop word (activityStops, or one of more) or clause boundary.
func activityObject(ts []token, more map[string]bool) []token {
	var obj []token
	for _, t := range ts {
		if len(obj) == 3 || activityStops[t.low] || more[t.low] || stopValue[t.low] || isDigitStart(t.low) || !isWord(t.low) {
			break
		}
		obj = append(obj, t)
		if t.end {
			break
		}
	}
	return obj
}

// takenUp returns how many words open ts with taking an activity up ("took up", "have
// taken up", "picked up", "got into", "into"), else 0.
func takenUp(ts []token) int {
	if len(ts) > 1 && (ts[0].low == "has" || ts[0].low == "have" || ts[0].low == "had" || ts[0].low == "just") {
		if n := takenUp(ts[1:]); n > 0 {
			return n + 1 // "has taken up bowls"
		}
	}
	switch {
	case len(ts) > 1 && (ts[0].low == "took" || ts[0].low == "taken" || ts[0].low == "take" || ts[0].low == "taking" || ts[0].low == "picked") && ts[1].low == "up":
		return 2
	case len(ts) > 1 && (ts[0].low == "got" || ts[0].low == "getting" || ts[0].low == "gotten") && ts[1].low == "into":
		return 2
	case len(ts) > 2 && (ts[0].low == "got" || ts[0].low == "getting" || ts[0].low == "gotten") && intensifiers[ts[1].low] && ts[2].low == "into":
		return 3 // "got super into sourdough"
	case len(ts) > 0 && ts[0].low == "into":
		return 1
	}
	return 0
}

// intensifiers stand between "got" and "into": "got really into pottery".
var intensifiers = wordSet(`really super so very well properly massively seriously totally big hugely weirdly`)

// episodeWords end an activity taken up: "took up the piano last month".
var episodeWords = map[string]bool{"last": true, "this": true, "yesterday": true, "recently": true, "lately": true, "again": true, "too": true, "as": true, "for": true, "because": true, "so": true}

// activityStops end an activity's object.
var activityStops = map[string]bool{"every": true, "once": true, "twice": true, "times": true, "on": true, "when": true, "in": true, "and": true, "but": true, "now": true, "these": true, "at": true, "with": true, "during": true, "most": true, "each": true, "a": true, "whenever": true, "if": true, "after": true, "before": true, "three": true, "four": true, "two": true, "five": true, "several": true, "daily": true, "weekly": true, "nightly": true, "anymore": true}

// activity returns the activity a clause about a hobby or a liking states, in a form
// that does not depend on the verb's person or on a light verb: "loves to do yoga" and
// "only does yoga on rainy Sundays" are both "yoga"; "paints watercolors" and "paint
// watercolors" are "paint watercolors". rest is the clause after its subject; "" when the
// clause has no such form.
func activity(rest []token) string {
	i := skipAdverbs(rest)
	framed := i > 0
	if i < len(rest) && likeVerbs[rest[i].low] {
		framed = true
		i++
		if i < len(rest) && rest[i].low == "to" {
			i++
		}
	} else if n := takenUp(rest[i:]); n > 0 {
		// "took up the piano", "got into climbing", "really into photography": what
		// follows is the activity.
		framed = true
		i += n
		for i < len(rest) && (rest[i].low == "the" || rest[i].low == "some") {
			i++
		}
		if i < len(rest) && !lightVerbs[baseVerb(rest[i].low)] {
			return join(activityObject(rest[i:], episodeWords))
		}
	}
	if i >= len(rest) || !framed && !lightVerbs[baseVerb(rest[i].low)] {
		return ""
	}
	verb := rest[i]
	if !isWord(verb.low) || isCapitalised(verb) && i > 0 || stopValue[verb.low] || common[verb.low] && !lightVerbs[baseVerb(verb.low)] && !strings.HasSuffix(verb.low, "ing") {
		return ""
	}
	j := i + 1
	if baseVerb(verb.low) == "listen" && j < len(rest) && rest[j].low == "to" {
		j++
	}
	for j < len(rest) && (rest[j].low == "the" || rest[j].low == "some") {
		j++
	}
	obj := activityObject(rest[min(j, len(rest)):], nil)
	switch v := baseVerb(verb.low); {
	case len(obj) == 0 && strings.HasSuffix(verb.low, "ing"):
		return verb.orig
	case len(obj) == 0:
		return ""
	case lightVerbs[v]:
		return join(obj)
	default:
		return v + " " + join(obj)
	}
}

// baseVerb turns a third-person verb into its base form: "does" → "do", "watches" → "watch",
// "dances" → "dance". It is no stemmer (bench has the Porter stemmer the LoCoMo scorer
// uses, which makes "does" "doe"): the verb lists are of base forms.
func baseVerb(w string) string {
	if stem, ok := strings.CutSuffix(w, "ing"); ok && len(stem) > 1 {
		// "playing tennis" is tennis, as "play tennis" is: a light verb's gerund.
		for _, b := range []string{stem, stem + "e", stem[:len(stem)-1]} {
			if lightVerbs[b] {
				return b
			}
		}
	}
	switch {
	case w == "does":
		return "do"
	case w == "goes":
		return "go"
	case w == "has":
		return "have"
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// freqRe is a frequency: "once a month", "twice a year", "four times a week".
var freqRe = regexp.MustCompile(`(?i)\b(?:once|twice|(?:\w+|\d+) times|a few times|every (?:other|few|couple of)?\s*\w+)\s*(?:a|an|per|each)?\s*(?:day|week|fortnight|month|year|weekend)s?\b`)

// onlyScopeRe is the condition after "only": "only does yoga on rainy Sundays now",
// "only plays chess when friends visit", "but only twice a year".
var onlyScopeRe = regexp.MustCompile(`(?i)\bonly\b(?:\s+[a-z'-]+){0,4}?\s+((?:on|in|at|during|when|whenever|if|after|before|over|around)\s+[^,.;!?]*|(?:once|twice|(?:\w+|\d+) times|a few times)\s+(?:a|an|per|each)\s+(?:day|week|fortnight|month|year)s?\b)`)

// trailingNow are words that end a scope without being part of it.
var trailingNow = regexp.MustCompile(`(?i)(?:\s+(?:now|these days|nowadays|anymore|at the moment|lately|though|tbh|lol|honestly))+\s*$`)

// onlyScope returns the condition an "only" states, if any.
func onlyScope(clause string) string {
	m := onlyScopeRe.FindStringSubmatch(clause)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(trailingNow.ReplaceAllString(strings.TrimSpace(m[1]), ""))
}

// Labelled statements: "My job: translator at Bluewater Clinic", "current city: Lisbon",
// "new favourite rider: marco bezzecchi", "Theo's hobby these days: bouldering". The words
// before the colon name the attribute and the words after it are the value, read by the
// attribute's kind. A heading that names no attribute ("Big change: I relocated…",
// "Update: …") is no label, and what follows its colon is a clause of its own.

// labelNames are the words of a label that name an attribute, where they are not the
// attribute's own name in the table.
var labelNames = map[string]string{
	"occupation": "job", "profession": "job", "job title": "job", "title": "job", "role": "job", "position": "job", "current role": "job",
	"company": "employer", "workplace": "employer", "work place": "employer",
	"city": "home", "town": "home", "home city": "home", "home town": "home", "base": "home", "location": "home", "neighbourhood": "home", "neighborhood": "home",
	"go-to drink": "drink", "coffee order": "drink", "coffee": "drink", "beverage": "drink", "usual": "drink",
	"pastime": "hobby", "hobbies": "hobby", "workout": "exercise", "sport": "exercise", "training": "exercise",
	"boss": "manager", "line manager": "manager", "team lead": "manager", "team leader": "manager", "supervisor": "manager", "gf": "partner", "bf": "partner", "girlfriend": "partner", "boyfriend": "partner",
	"flat": "home", "apartment": "home", "house": "home", "mobile": "phone", "network": "phone-plan", "uni": "university",
	"major": "course", "degree": "course", "doctor": "doctor", "gp": "doctor", "physio": "doctor",
	"emergency contact": "contact", "next of kin": "contact", "emergency": "contact",
}

// asVerbs name someone for a role with "as": "put jess down as my emergency contact",
// "listed my sister as next of kin".
var asVerbs = wordSet(`put putting listed list named name added add set registered`)

// asLabel reads "<verb> X (down) as (my) <label>": the label's attribute and X.
func asLabel(ts []token) (attr, value string) {
	for i := 1; i+1 < len(ts); i++ {
		if ts[i].low != "as" {
			continue
		}
		j := i + 1
		for j < len(ts) && labelLeads[ts[j].low] {
			j++
		}
		a, _ := labelAt(ts, j)
		if a == "" {
			continue
		}
		for v := i - 1; v >= 0; v-- {
			if asVerbs[ts[v].low] {
				x := ts[v+1 : i]
				if len(x) > 0 && x[len(x)-1].low == "down" {
					x = x[:len(x)-1]
				}
				if n := nameRun(x); n != "" && !pronouns[strings.ToLower(n)] && !firstPerson[strings.ToLower(n)] {
					return a, n
				}
				break
			}
		}
	}
	return "", ""
}

// labelAt returns the attribute named by the longest label of up to three words at
// ts[j:] ("next of kin", "emergency contact", "manager"), and where it ends; "" when none.
func labelAt(ts []token, j int) (string, int) {
	for end := min(len(ts), j+3); end > j; end-- {
		name := strings.Join(lows(ts[j:end]), " ")
		if a := labelNames[name]; a != "" {
			return a, end
		}
		if _, ok := attributeByName(Kebab(name)); ok {
			return Kebab(name), end
		}
	}
	return "", j
}

// ownedAs reads "<name> is (still, now, …) my <label>": the speaker's attribute the
// label names, with the name as its value ("dana is my new manager", "Greenway Dental is
// my dentist now", "lando's still my fave"). A label outside the table is an attribute
// of its own when it names a person ("carol is my study buddy this term": study-buddy);
// "my favourite <thing>" is the favourite. Not read: "was my …" (a past
// state), "oat milk is my enemy" (no name), "tom is my brother" (a relation, no state)
// and "spurs are my team" (a side supported or a team worked in).
func ownedAs(c clause) (attr, value string) {
	ft := skipFillers(c.toks)
	n := len(ft) - len(c.rest)
	if n < 1 || n > 3 || len(c.rest) < 2 {
		return "", ""
	}
	// A lower-case name of two words: the subject is its first ("lando norris is my guy").
	for k := 0; k < 2 && len(c.rest) > 2 && c.rest[0].low != "is" && c.rest[0].low != "are" && isWord(c.rest[0].low) &&
		!verbish(c.rest[0].low) && !stopValue[c.rest[0].low] && !ownedAdverbs[c.rest[0].low] && !strings.HasSuffix(ft[n-1].low, "'s"); k++ {
		c.rest = c.rest[1:]
		n++
	}
	lead, rest := ft[:n], c.rest
	i := 0
	switch {
	case rest[0].low == "is" || rest[0].low == "are":
		i = 1
	case !strings.HasSuffix(lead[n-1].low, "'s"): // "lando's still my …": "'s" is "is"
		return "", ""
	}
	for i < len(rest) && ownedAdverbs[rest[i].low] {
		i++
	}
	if i >= len(rest) || rest[i].low != "my" && rest[i].low != "our" {
		return "", "" // "dana is my new manager", "Priya is our new landlord"
	}
	j := i + 1
	for j < len(rest) && labelLeads[rest[j].low] {
		j++
	}
	name := make([]token, n)
	copy(name, lead)
	if last := &name[n-1]; strings.HasSuffix(last.low, "'s") {
		last.orig, last.low = last.orig[:len(last.orig)-2], last.low[:len(last.low)-2]
	}
	if !isNameToken(ft, 0) && !(honorifics[ft[0].low] && n > 1 && isNameToken(ft, 1)) {
		return "", "" // "Dr. Mbeki is my advisor": a title and a name
	}
	if relations[name[0].low] != "" {
		return "", ""
	}
	for _, t := range name {
		if !isWord(t.low) || pronouns[t.low] || firstPerson[t.low] {
			return "", ""
		}
	}
	value = join(name)
	if j < len(rest) && (rest[j].low == "favourite" || rest[j].low == "favorite" || rest[j].low == "fave") {
		return favouriteOf(rest[j+1:]), value
	}
	if a, _ := labelAt(rest, j); a == "team" {
		return "", "" // "spurs are my team": a side supported, or the team worked in?
	} else if a != "" {
		return a, value
	}
	if j < len(rest) && roles[rest[j].low] != "" {
		return roles[rest[j].low], value // "Greenway Dental is my dentist"
	}
	if j < len(rest) && relations[rest[j].low] != "" {
		return "", "" // "tom is my brother": who he is, no state
	}
	// An attribute of its own: one or two plain words, then the clause ends or goes on
	// with when it holds.
	end := j
	ends := func(w string) bool { return labelTails[w] || stopValue[w] || fillers[w] }
	for end < len(rest) && end-j < 2 && isWord(rest[end].low) && !ends(rest[end].low) {
		end++
	}
	if end == j || end < len(rest) && !ends(rest[end].low) && !rest[end-1].end {
		return "", ""
	}
	// Only a person's place in the speaker's life: "study buddy", "running partner",
	// "guy". "Dance is my passion", "Games are my go-to" name no one, and such slots
	// gather whatever later turns say of passions.
	if head := rest[end-1].low; !(end-j == 2 && relations[head] != "" || personNouns[head]) {
		return "", ""
	}
	return Kebab(join(rest[j:end])), value
}

// settingVerbs say where a thing is set, as "is" does: "stays on 19".
var settingVerbs = wordSet(`stays stay sits lives remains`)

// ownLabel reads "my <label> is <value>" where the label is an attribute of its own: no
// attribute of the table (read by meaning), no relation or role (a subject), but a thing
// the speaker has one of — an open slot: "my bank is monzo" (bank), "our vet's the
// practice on mill lane" (vet), "my hairdresser is called kim" (hairdresser). A
// favourite names its kind: "my favourite band is radiohead" is favourite-band, beside
// favourite-food. Not read: a part of the body or of life ("my back is killing me", "my
// plan is to move"), a value that is a verb, an evaluation ("my bank is useless") or a
// preposition's object ("our broadband is with sky", read by meaning). Without "my", a
// word that is a noun by its form with a number, day or date: "payday is the 25th".
func ownLabel(c clause, cased bool) (attr, value string) {
	ts := skipFillers(c.toks)
	if len(ts) < 3 {
		return "", ""
	}
	j := 1
	// bare: a thing of the speaker's said without "my" ("payday is the 25th"), read when
	// its word is a noun by its form (nounShaped) and its value a number, day or date.
	// Any other thing said without "my" needs "on" or "at" and a day, date or clock time
	// (dated): "stats exam is on june 12", "the party's on saturday".
	// "main credit card is …", "current obsession: …": a lead that says the thing is the
	// speaker's, as "my" does.
	fav := ts[0].low == "fave" || ts[0].low == "favourite" || ts[0].low == "favorite"
	bare := ts[0].low != "my" && ts[0].low != "our" && !ownLeads[ts[0].low]
	if fav {
		j = 0 // "fave takeaway is the indian": the favourite's kind names it
	}
	dated := false
	if bare {
		j = 0
		if ts[0].low == "the" {
			j = 1
		}
		if !nounShaped(strings.TrimSuffix(ts[j].low, "'s")) {
			dated = true
			if common[ts[j].low] && attributeCue(ts[j].low) && !(j+1 < len(ts) && petServices[ts[j+1].low]) && !namedAfterIs(ts[j+1:]) || pronouns[ts[j].low] || verbForm(ts[j].low) {
				return "", ""
			}
		}
	}
	for j < len(ts) && labelLeads[ts[j].low] {
		j++
	}
	var label []string
	next, tail := -1, false // tail: past "these days", "now", … between label and verb
	for k := j; k < len(ts) && k < j+5; k++ {
		w := ts[k].low
		if len(label) > 0 && (w == "is" || w == "are" && strings.HasSuffix(label[len(label)-1], "s")) {
			// "my bank is …"; a plural thing with "are": "my running shoes are …".
			next = k + 1
			break
		}
		if len(label) > 0 && settingVerbs[w] && k+2 < len(ts) && (ts[k+1].low == "on" || ts[k+1].low == "at") && isNumber(ts[k+2].low) {
			// "thermostat stays on 19", "heating lives at 20 now": a setting, as "is on".
			next = k + 1
			break
		}
		if labelTails[w] && len(label) > 0 {
			tail = true
			continue
		}
		if strings.HasSuffix(w, "'s") && !tail {
			if k+1 < len(ts) && !copulaNext(ts[k+1]) && !leadValue[ts[k+1].low] && !isCapitalised(ts[k+1]) && !ownedAdverbs[ts[k+1].low] &&
				slices.ContainsFunc(ts[k+2:min(len(ts), k+4)], func(t token) bool {
					return t.low == "is" || t.low == "are" || t.low == "was" || t.low == "has" || scheduleVerbs[t.low] || verbish(t.low)
				}) {
				return "", "" // "my kid's school starts at 8:45": a possessive, not "is"
			}
			label = append(label, strings.TrimSuffix(w, "'s"))
			next = k + 1
			break
		}
		// A sentence's first word has its capital from the sentence: "Hotel is the …".
		sentenceCase := k == 0 && isCapitalised(ts[k]) && (common[w] || attributeCue(w) || nounShaped(w))
		if dated && len(label) == 0 && k+1 < len(ts) && !ts[k].end && (isCapitalised(ts[k]) && !sentenceCase || !isWord(w)) && !pronouns[w] && !firstPerson[w] {
			continue // "the ÖSD B1 exam is on 14 May": the thing's own name, then its kind
		}
		if (isPetWord(w) || w == "pup") && len(label) == 0 && k+1 < len(ts) && petServices[ts[k+1].low] {
			label = append(label, w) // "dog walker is ashley": a service of the pet's
			continue
		}
		if tail || !isWord(w) || stopValue[w] || ts[k].end || len(label) == 3 || isCapitalised(ts[k]) && !sentenceCase || isPetWord(w) || w == "pup" {
			// "My pup Toby is …", "my cat luna is …": a pet and its name, no label.
			return "", ""
		}
		label = append(label, w)
	}
	if next < 0 || len(label) == 0 {
		return "", ""
	}
	if fav := label[0]; fav == "favourite" || fav == "favorite" || fav == "fave" {
		if len(label) < 2 || len(label) > 3 {
			return "", ""
		}
		attr = "favourite-" + Kebab(label[len(label)-1]) // "favourite tv show" is favourite-show
	} else if name := strings.Join(label, " "); labelNames[name] != "" {
		if len(label) != 2 {
			return "", "" // one word of labelNames ("boss", "city") is read by meaning
		}
		attr = labelNames[name] // "my team lead is Marcus": the manager
	} else {
		if len(label) > 2 || roles[label[len(label)-1]] != "" || relations[label[len(label)-1]] != "" {
			return "", ""
		}
		if _, known := attributeByName(Kebab(name)); known {
			return "", ""
		}
		// "trash pickup is tues": a bare label whose value is a day names its own thing
		// even with a word the table has an attribute for.
		dayValue := dated && daysRe.MatchString(ts0(ts[next:])) && strings.HasPrefix(strings.ToLower(join(ts[next:])), strings.ToLower(daysRe.FindString(join(ts[next:]))))
		for _, w := range label {
			// "our security company is ADT": a generic head after a word the table has no
			// cue for names its own thing ("energy provider" is the energy supplier's).
			ownKind := len(label) == 2 && w == label[1] && genericWords[w] && !attributeCue(label[0])
			if openLabelStops[w] || abstractWords[w] || emptyWords[w] || isMonthOrDay(w) || attributeCue(w) && !dayValue && !(len(label) == 2 && petServices[label[1]]) && !(bare && namedAfterIs(ts[next-1:])) && !ownKind {
				// A kind of thing the table has an attribute for ("my camera is …": a
				// device) is read by meaning, into that attribute's group.
				return "", ""
			}
		}
		attr = Kebab(name)
	}
	rest := ts[next:]
	served := false // a person who serves, named in lower case (below)
	if dated {
		for len(rest) > 0 && ownedAdverbs[rest[0].low] {
			rest = rest[1:]
		}
		if len(rest) >= 2 && (rest[0].low == "on" || rest[0].low == "at") {
			if isNumber(rest[1].low) && datedPrefix(join(rest[1:])) == "" {
				return attr, rest[1].orig // "thermostat is on 19"
			}
			tail := join(rest[1:])
			v := strings.TrimSpace(cmp.Or(dateRe.FindString(tail), daysRe.FindString(tail), clockRe.FindString(tail)))
			if low, lv := strings.ToLower(tail), strings.ToLower(v); v == "" || !strings.HasPrefix(low, lv) && !strings.HasPrefix(low, "the "+lv) {
				return "", "" // the day, date or time opens what follows "on" or "at"
			}
			return attr, v
		}
		if tail := join(rest); len(rest) > 0 {
			// "trash pickup is tues", "bin day's thursday now": a day itself.
			if v := daysRe.FindString(tail); v != "" && strings.HasPrefix(strings.ToLower(tail), strings.ToLower(v)) {
				return attr, v
			}
		}
		// Else a name, capitalised after the verb ("hilton status is Gold"), maybe after
		// "with" or "on" ("boiler cover is with Homeserve").
		k := 0
		if len(rest) > 1 && (rest[0].low == "with" || rest[0].low == "on") {
			k = 1
		}
		if len(rest) > k+1 && rest[k].low == "the" && isCapitalised(rest[k+1]) {
			k++ // "Hotel is the Memmo Alfama"
		}
		// In lower-case chat, a person who serves ("dog walker is ashley") is named
		// without a capital: one word, no word of judgement.
		served = !cased && len(label) > 0 && (petServices[label[len(label)-1]] || jobWords[label[len(label)-1]] || jobHead(label[len(label)-1])) &&
			len(rest) > k && isWord(rest[k].low) && !evaluations[rest[k].low] && !common[rest[k].low] && !judging(rest[k].low) && (rest[k].end || k+1 == len(rest) || labelTails[rest[k+1].low] || stopValue[rest[k+1].low])
		if len(rest) == 0 || !isCapitalised(rest[k]) && !served || rest[k].low == "i" || pronouns[rest[k].low] || stopValue[rest[k].low] {
			return "", ""
		}
		rest = rest[k:]
	}
	for len(rest) > 0 && ownedAdverbs[rest[0].low] || len(rest) > 0 && (rest[0].low == "called" || rest[0].low == "named" || rest[0].low == "currently") {
		rest = rest[1:]
	}
	if len(rest) > 1 && rest[0].low == "with" && (isCapitalised(rest[1]) || !cased) {
		rest = rest[1:] // "my mortgage is with Nationwide": its provider
	}
	if len(rest) == 0 {
		return "", ""
	}
	w0 := rest[0].low
	if stopValue[w0] || verbish(w0) || evaluations[w0] || notValues[w0] {
		return "", ""
	}
	article := w0 == "a" || w0 == "an" || w0 == "the"
	if k := slices.IndexFunc(rest, func(t token) bool { return labelTails[t.low] }); k >= 0 {
		rest = rest[:k] // "monzo these days"
	}
	value = phrase(rest)
	if value == "" || emptyValue(value) || abstractValue(value) || verbal(value) {
		return "", ""
	}
	vs := strings.Fields(strings.ToLower(value))
	if evaluations[vs[0]] || verbish(vs[0]) && !article || len(vs) == 1 && !article && judging(vs[0]) {
		return "", ""
	}
	if r, _ := utf8.DecodeRuneInString(value); cased && !article && unicode.IsLower(r) && !unicode.IsDigit(r) {
		return "", "" // "My bank is useless": in text with capitals a name has them
	}
	if first, _ := utf8.DecodeRuneInString(value); bare && typedKind(value) == nil && !strings.ContainsAny(value, "0123456789") && !(dated && unicode.IsUpper(first)) && !served {
		return "", ""
	}
	return attr, value
}

// namedAfterIs reports "is (the) <Name>" at ts's start: "Hotel is the Memmo Alfama" names
// the hotel, which a word of the table's alone would leave to meaning.
func namedAfterIs(ts []token) bool {
	if len(ts) < 2 || ts[0].low != "is" && ts[0].low != "'s" {
		return false
	}
	k := 1
	if ts[k].low == "the" && len(ts) > 2 {
		k++
	}
	return isCapitalised(ts[k]) && !pronouns[ts[k].low] && ts[k].low != "i"
}

// ownLeads open a thing of the speaker's said without "my": "main credit card is …".
var ownLeads = wordSet(`main current usual regular daily everyday present fave favourite favorite`)

// petServices are the people and things a pet has: "dog walker", "cat sitter", "dog food".
var petServices = wordSet(`walker walkers sitter sitters groomer groomers vet trainer food insurance daycare kennel kennels minder`)

// notValues open no value after "my … is": a degree ("very", "pretty"), a negation, a
// verb ahead ("gonna", "going").
var notValues = wordSet(`not very pretty quite getting being gonna gotta going`)

// attributeCue reports a word that is one of the attribute table's cues: "camera" (a
// device), "car", "rent".
func attributeCue(w string) bool { return len(attributeCues[w]) > 0 }

// attributeCues are the attributes of the table by their cues, gathered once.
var attributeCues = func() map[string][]attribute {
	m := map[string][]attribute{}
	for _, a := range attributes {
		for _, c := range a.cues {
			m[c] = append(m[c], a)
		}
	}
	return m
}()

// judging reports a word shaped like an adjective that judges ("horrendous",
// "hopeless", "terrible", "fantastic"): one such word after "my … is" is no value.
func judging(w string) bool {
	for _, suf := range []string{"ous", "ful", "less", "ible", "able", "ive", "ic", "ish", "est"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf)+2 {
			return true
		}
	}
	return false
}

// openLabelStops are labels of "my … is" that name no slot: parts of the body and of
// life, and turns of phrase ("my bad", "my guess is").
var openLabelStops = wordSet(`back knee knees head feet foot leg legs arm arms shoulder neck hand hands brain heart stomach eyes eye
	skin hair face mind body throat chest tooth teeth ankle wrist hip hips bad god gosh guess point question issue excuse fault
	turn mistake luck mood energy voice fave favourite favorite whole first last only main biggest best worst advice answer
	reason hope wish worry fear concern bet vote pleasure treat house flat place room`)

// evaluations judge rather than name: "my bank is useless", "my vet is lovely".
var evaluations = wordSet(`great good bad awful terrible amazing lovely nice fine ok okay useless rubbish brilliant
	fantastic horrible shit crap weird strange annoying boring expensive cheap busy closed open broken dead gone full empty
	late early slow fast tiny huge massive small big better worse best worst new old same different down up out off over
	done sorted ready sick ill tired sore mine yours ours always never mess nightmare disaster joke dump pain wreck tip
	shambles valid invalid expired due`)

// favouriteOf names the attribute of a favourite by its kind, the one plain word after
// "favourite" when there is one (ts): "favourite driver" is favourite-driver, so that a
// favourite band and a favourite food are two slots; "lando's still my fave" is
// favourite.
func favouriteOf(ts []token) string {
	if len(ts) == 0 || !isWord(ts[0].low) || stopValue[ts[0].low] || labelTails[ts[0].low] || fillers[ts[0].low] {
		return "favourite"
	}
	if len(ts) > 1 && isWord(ts[1].low) && !stopValue[ts[1].low] && !labelTails[ts[1].low] && !fillers[ts[1].low] && !ts[0].end && !ts[0].colon {
		return "favourite-" + Kebab(ts[1].low) // "favourite tv show": its last word
	}
	return "favourite-" + Kebab(ts[0].low)
}

// personWords are nouns for a person, not a relation: they end a label of ownedAs that
// names a person ("my go-to guy is …"), stand between "seeing this" and a partner's
// name, and before a name described ("a lady called dr hughes": describedName).
const personWords = `guy girl man woman lad bloke person lady chap fella fellow gentleman`

var personNouns = wordSet(personWords)

// ownedAdverbs may stand between "is" and "my" in ownedAs.
var ownedAdverbs = wordSet(`still now officially definitely basically also again always forever`)

// labelLeads open a label without naming the attribute: "my current job:", "new city:".
var labelLeads = wordSet(`my our his her their current new usual latest present main daily everyday morning actual real official`)

// labelTails close a label with when it holds: "my job these days:", "home now:".
var labelTails = wordSet(`now currently nowadays lately atm rn days these right`)

// labelAttr returns the attribute a label clause names and whether the label is the
// speaker's own (no possessor other than my/our), or "" when ts is no label: at most six
// words ending in a colon, naming an attribute of the table or one of labelNames. A
// "favourite <thing>:" label names the favourite attribute.
func labelAttr(ts []token) (attr string, own bool) {
	ts, own, _, ok := labelWords(ts)
	if !ok {
		return "", false
	}
	for _, t := range ts {
		if !isWord(t.low) {
			return "", false
		}
	}
	name := strings.Join(lows(ts), " ")
	switch {
	case labelNames[name] != "":
		return labelNames[name], own
	case ts[0].low == "favourite" || ts[0].low == "favorite":
		return favouriteOf(ts[1:]), own
	}
	if _, ok := attributeByName(Kebab(name)); ok {
		return Kebab(name), own
	}
	if r := roles[name]; r != "" {
		return r, own // "advisor: Prof. Halvorsen", "cleaner: Marta": who holds the speaker's role
	}
	if cued := attributeCues[name]; len(ts) == 1 && len(cued) == 1 {
		return cued[0].name, own // "hotel sorted:", "hotel:": a word that cues one attribute names it
	}
	return "", false
}

// openLabelAttr is labelAttr for a label of one or two plain nouns that names no
// attribute of the table ("savings goal:", "bedtime:"): a thing of the speaker's. A label
// of one word is read only when an amount, a number or a clock time follows the colon
// (next, the clause after it), so that "dinner: risotto" or "mood: tired" state nothing;
// a label of two nouns names its thing plainly enough for any value ("dissertation
// topic: cycle lane uptake", "window cleaner: Jamal"). Chat openers ("update:", "fun
// fact:"), verbs, pronouns, judgements and people ("my sister:") are no label.
func openLabelAttr(ts, next []token) (attr string, own bool) {
	// "main card: chase sapphire preferred", "current show: severance": a word that
	// says the thing is the speaker's one names it plainly enough, as two nouns do.
	// "hotel sorted: …", "flights done: …": a thing said to be settled is named as
	// plainly.
	led := slices.ContainsFunc(skipFillers(ts), func(t token) bool { return ownLeads[t.low] || t.low == "my" || t.low == "new" })
	ts, own, settled, ok := labelWords(ts)
	led = led || settled
	if !ok || len(next) == 0 {
		return "", false
	}
	typed := isDigitStart(strings.TrimLeft(next[0].low, "£$€~")) || datedStart(next)
	if !typed && len(ts) != 2 && !(len(ts) == 1 && led) {
		return "", false
	}
	modified := false
	for i, t := range ts {
		w := t.low
		// "BA status:": an acronym in capitals is a word of the label; "heating timer:":
		// a word in -ing before the noun it names the kind of.
		acronym := len(w) == 2 && isWord(w) && t.orig == strings.ToUpper(t.orig)
		ingMod := i+1 < len(ts) && strings.HasSuffix(w, "ing") && !verbWords[w]
		modified = modified || ingMod && verbForm(w)
		if len(w) < 3 && !acronym || !isWord(w) || stopValue[w] || chatLabels[w] || verbForm(w) && !ingMod || pronouns[w] || evaluations[w] || fillers[w] || isMonthOrDay(w) ||
			!typed && (relations[w] != "" || roles[w] != "" || attributeCue(w)) {
			// A kind of thing the table has an attribute for ("wifi provider: …": the
			// broadband) is read by meaning, into that attribute's group.
			return "", false
		}
	}
	if modified {
		return Kebab(join(ts)), own
	}
	attr, _ = amountLabel(strings.Join(lows(ts), " "), "")
	return attr, own
}

// labelledAmount reads a note's label and its amount said with no verb between them —
// "401k contrib 6%", "car loan $412/mo, 8 pmts left", "BP 142/90 at the dr today", "a1c
// 6.4" — as the label's attribute (amountLabel) and the amount. The label is one to three
// plain nouns opening the clause (no verb, person, pronoun, day or number word); the
// amount follows at once and is money, a percentage, a number with its unit or per-period,
// or a reading like 142/90. "" when the clause has no such shape.
func labelledAmount(ts []token) (attr, value string) {
	ts = skipFillers(ts)
	if len(ts) > 0 && (ts[0].low == "my" || ts[0].low == "our") {
		ts = ts[1:]
	}
	n := 0
	for n < len(ts) && n < 3 && !ts[n].end && !ts[n].colon && (amountLabelWord(ts[n].low) || n+1 < len(ts) && amountLabelWord(ts[n+1].low) && strings.ContainsFunc(ts[n].low, unicode.IsLetter) && isDigitStart(ts[n].low)) {
		n++ // "401k contrib 6%": an amount's shape names the thing when a word follows
	}
	if n == 0 || n == len(ts) {
		return "", ""
	}
	if n == 1 && nameLike(ts[0]) {
		return "", "" // "jake 40 pics": a name, no label
	}
	v := noteAmountRe.FindString(join(ts[n:]))
	if v == "" || !strings.HasPrefix(strings.ToLower(join(ts[n:])), strings.ToLower(v)) {
		return "", ""
	}
	return amountLabel(join(ts[:n]), strings.TrimSpace(v))
}

// noteAmountRe is an amount as notes write it: money, a percentage, a number with its unit
// or per-period ("$412/mo", "3x/wk", "15 km"), a reading ("142/90"), a decimal.
var noteAmountRe = regexp.MustCompile(`(?i)^(?:[£$€]\s?\d[\d,]*(?:\.\d+)?k?(?:/\p{L}+)?|\d{2,3}/\d{2,3}\b|\d[\d,]*(?:\.\d+)?(?:\s?` + noteUnit + `)|\d+\.\d+\b)`)

// noteUnit is the unit of an amount as notes write it (noteAmountRe, unitMoveRe): a
// percentage, thousands, times or an amount per a period ("3x/wk", "/mo"), a dose, a
// weight, a distance, a rate, a time.
const noteUnit = `(?:%|k\b|x/\p{L}+|x\b|/\p{L}+|mg\b|mcg\b|milligrams?\b|micrograms?\b|ml\b|kg\b|lbs?\b|km\b|mi\b|miles\b|iu\b|bpm\b|hours?\b|hrs?\b|minutes\b|mins?\b)`

// amountLabelWord reports a word that may stand in a note's label: a plain noun or a
// word of letters and digits ("401k", "a1c"), never a verb, pronoun, person, day, month,
// number word or a word of chat.
func amountLabelWord(w string) bool {
	if len(w) < 2 || strings.HasSuffix(w, "'s") || !strings.ContainsFunc(w, unicode.IsLetter) || noteAmountRe.MatchString(w) ||
		len(w) > 4 && strings.HasSuffix(w, "ly") || amountLabelStops[w] {
		return false // "92k -> 98.5k", "annoyingly another £140", "overall 6.5"
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' {
			return false
		}
	}
	return !(verbForm(w) || pronouns[w] || firstPerson[w] || stopValue[w] || fillers[w] || evaluations[w] || isMonthOrDay(w) ||
		numberWords[w] || relations[w] != "" || chatLabels[w] || leadValue[w] || subjectVerbs[w] || w == "the" || w == "a" || w == "an")
}

// amountLabelStops go before an amount without naming what it measures.
var amountLabelStops = wordSet(`another other each every per only overall total about around nearly almost roughly over under
	up down from to at by for with of in on off like just than then now still also extra more less least most same`)

// nameLike reports a token that reads as a person's name: capitalised, not an acronym
// ("BP", "HYSA").
func nameLike(t token) bool { return isCapitalised(t) && t.orig != strings.ToUpper(t.orig) }

// datedStart reports words that open with a day's date ("oct 4", "the 12th", "4 june";
// not a month alone).
func datedStart(ts []token) bool { return datedPrefix(join(ts)) != "" }

// datedPrefix is the date text opens with, or "".
func datedPrefix(text string) string {
	if loc := dateRe.FindStringIndex(text); loc != nil && loc[0] == 0 && strings.ContainsAny(text[:loc[1]], "0123456789") {
		return text[:loc[1]]
	}
	return ""
}

// labelSettled say a label's thing was settled or changed: "venue booked:", "date set:",
// "wedding date moved:".
var labelSettled = wordSet(`booked set confirmed sorted decided chosen picked locked finalised finalized fixed official agreed
	moved changed updated done landed`)

// chatLabels open a colon in chat without naming anything of the speaker's: "update:",
// "fun fact:", "note to self:", and what brought news ("council letter:").
var chatLabels = wordSet(`update updates news note notes psa fyi reminder question questions edit ps btw ok okay so lol
	ugh anyway context story tldr rant confession warning verdict summary plan plans thing things problem issue moral tip
	tips fact facts take spoiler today tonight yesterday tomorrow morning evening week weekend day night lesson result
	results list reason reasons point rule rules step steps status mood vibe vibes highlight highlights part
	agenda recap progress score total damage cost bill receipt letter letters email emails text texts message messages notice
	announcement memo headline headlines plot twist shocker bombshell drama goss gossip brag vent`)

// labelWords returns the one or two words that name a label — at most six words ending
// in a colon, past a possessor ("mum's"), labelLeads ("my current") and labelTails
// ("now") — and whether the label is the speaker's own (no possessor other than my/our).
func labelWords(ts []token) (words []token, own, settled, ok bool) {
	ts = skipFillers(ts)
	if len(ts) == 0 || len(ts) > 6 || !ts[len(ts)-1].colon {
		return nil, false, false, false
	}
	own = true
	if w := ts[0].low; strings.HasSuffix(w, "'s") && len(ts) > 1 {
		own = false
		ts = ts[1:]
	}
	for len(ts) > 0 && labelLeads[ts[0].low] {
		if ts[0].low == "his" || ts[0].low == "her" || ts[0].low == "their" {
			own = false
		}
		ts = ts[1:]
	}
	for len(ts) > 1 && labelTails[ts[len(ts)-1].low] {
		ts = ts[:len(ts)-1]
	}
	// "thesis topic locked in:", "WEDDING DATE IS SET:", "kyoto hotel booked:": the thing
	// and that it was settled or changed.
	if n := len(ts); n > 2 && ts[n-1].low == "in" && ts[n-2].low == "locked" {
		ts = ts[:n-1]
	}
	if n := len(ts); n > 1 && labelSettled[ts[n-1].low] {
		ts, settled = ts[:n-1], true
		if n := len(ts); n > 1 && (ts[n-1].low == "is" || ts[n-1].low == "are" || ts[n-1].low == "now") {
			ts = ts[:n-1]
		}
	}
	return ts, own, settled, len(ts) > 0 && len(ts) <= 2
}

// ts0 is the first word of ts, or "".
func ts0(ts []token) string {
	if len(ts) == 0 {
		return ""
	}
	return ts[0].low
}

// labelActivities reads the activities after the colon of a hobby or exercise label,
// -ing words included, each up to its frequency or the next "and": "hobbies rn:
// bouldering twice a week and crosswords" → bouldering, crosswords. Nil for other
// labels, or when the words after the colon open with a verb phrase ("trying to …").
func labelActivities(attr string, ts []token) []string {
	if attr != "hobby" && attr != "exercise" {
		return nil
	}
	var out []string
	for len(ts) > 0 && len(out) < 4 {
		for len(ts) > 0 && (ts[0].low == "and" || ts[0].low == "&" || ts[0].low == "plus") {
			ts = ts[1:]
		}
		if len(ts) == 0 || auxiliaries[ts[0].low] || pronouns[ts[0].low] || firstPerson[ts[0].low] || ts[0].low == "trying" || ts[0].low == "to" {
			break
		}
		obj := activityObject(ts, episodeWords)
		if len(obj) == 0 {
			break
		}
		out = append(out, join(obj))
		// Past the activity's frequency to the next "and".
		k := len(obj)
		for k < len(ts) && ts[k].low != "and" && !ts[k-1].end {
			k++
		}
		ts = ts[k:]
	}
	return out
}

// labelValue reads the value of a labelled statement from the words after the colon:
// a job title, a place, a name, or a thing phrase past opening verbs, by the attribute's
// kind; "" when none has the kind's shape.
func labelValue(attr string, ts []token) string {
	for len(ts) > 0 && leadValue[ts[0].low] && ts[0].low != "at" && ts[0].low != "on" {
		ts = ts[1:]
	}
	// A verb or a pronoun after the colon opens a clause, no value ("my job: it's killing
	// me"); an -ing word may be an activity ("hobby: bouldering").
	if w := ts0(ts); w == "" || verbWords[w] || auxiliaries[w] || pronouns[w] || firstPerson[w] || w == "it" || w == "it's" || w == "its" || w == "that" || w == "this" {
		return ""
	}
	a, known := attributeByName(attr)
	if attr == "job" {
		return title(ts)
	}
	if !known {
		if text := join(ts); isDigitStart(strings.TrimLeft(ts[0].low, "£$€~")) {
			// An open label's typed value: "bedtime: 11pm", "savings goal: £6,000".
			return cmp.Or(clockRe.FindString(text), moneyRe.FindString(text), datedPrefix(text))
		} else if datedStart(ts) {
			return datedPrefix(text) // "wedding date: oct 4"
		}
		return thingPhrase(ts)
	}
	switch a.kind {
	case kindPlace:
		if isCapitalised(ts[0]) {
			return placeRun(ts)
		}
		return value(a, ts, ts, "")
	case kindPerson, kindOrg:
		if isCapitalised(ts[0]) {
			return nameRun(ts)
		}
		if a.kind == kindOrg && !leadValue[ts[0].low] {
			if v := thingPhrase(ts); v != "" && !common[strings.ToLower(v)] && !numberWords[strings.ToLower(v)] {
				return v // "gym: planet fitness on ashland": the name, not its street
			}
		}
		if v := value(a, ts, ts, ""); v != "" {
			return v
		}
		return nameRun(ts)
	case kindThing:
		return thingPhrase(ts)
	}
	return value(a, ts, ts, "")
}

// teamHeads end the name of a team.
var teamHeads = wordSet(`team squad department dept crew unit`)

// teamName returns the team a clause says someone is on or moved to: "got moved to the
// ml team", "she's on the platform team", "transferred into the payments squad". The team
// is a "team" fact of the clause's subject, never a home. A verb inside the phrase makes it
// a clause: "to have a supportive team" names no team.
func teamName(ts []token) string {
	for i, t := range ts {
		if t.low != "to" && t.low != "onto" && t.low != "on" && t.low != "into" && t.low != "joined" {
			continue
		}
		if v := teamAt(ts, i+1); v != "" {
			return v
		}
	}
	return ""
}

// teamAt reads the team phrase at ts[j] ("the platform team"), else "". A verb inside
// the phrase makes it a clause.
func teamAt(ts []token, j int) string {
	if j < len(ts) && (ts[j].low == "the" || ts[j].low == "a" || ts[j].low == "their" || ts[j].low == "our") {
		j++
	}
	for k := j; k < min(len(ts), j+4); k++ {
		if teamHeads[ts[k].low] && k > j {
			return join(ts[j : k+1])
		}
		if !isWord(ts[k].low) || stopValue[ts[k].low] || auxiliaries[ts[k].low] || verbWords[ts[k].low] || ts[k].end {
			break
		}
	}
	return ""
}

// Changes told by a slot's value: a memory names a value of one of its subject's
// existing slots (Input.Values) and says, in a clause of that subject, that the value
// is taken up again ("so we're back on whistler", "farah's back on platform") or that
// another takes its place ("whistler is sold out, so we're doing banff instead"). The
// slot is the one whose value it names; the attribute needs no word of its own.

// backTo reads "back on/in/to/at X" and "back to being a X", or a verb of taking X up
// again ("resubscribed to X", "rejoined X"): the phrase X.
var backTo = regexp.MustCompile(`(?i)(?:\bback (?:on|in|to|at|with|into)|\bre-?(?:subscribed|joined|activated|enrolled|registered|signed)(?: up)?(?: to| with| for| on| at| in)?)(?: being)?(?: the| a| an| my| our)? ([\p{L}\d][\p{L}\d'&-]*(?: [\p{L}\d][\p{L}\d'&-]*){0,3})`)

// knownValues returns the values the extractor knows of the user's slots, by key
// ("<subject>/<attribute>"), newest first: those the call's earlier inputs stated (known)
// before those the input is shown (Input.Values).
func knownValues(in Input, known []slotSeen) map[string][]string {
	return slotValues(in.Values, known, func(s slotSeen) []string { return s.values })
}

// knownEnded returns the values the extractor knows to have ended, as knownValues
// does the values (Input.Ended, slotSeen.ended).
func knownEnded(in Input, known []slotSeen) map[string][]string {
	return slotValues(in.Ended, known, func(s slotSeen) []string { return s.ended })
}

// slotValues merges given values by slot key with those of the call's earlier inputs
// (of), newest first; a multi-valued attribute's group key ("rosa/subscription/ynab")
// counts as its attribute's.
func slotValues(given map[string][]string, known []slotSeen, of func(slotSeen) []string) map[string][]string {
	values := map[string][]string{}
	for k, vs := range given {
		if subj, attr, ok := strings.Cut(k, "/"); ok {
			attr, _, _ = strings.Cut(attr, "/")
			k = Kebab(subj) + "/" + Kebab(attr)
			values[k] = append(values[k], vs...)
		}
	}
	for _, s := range known {
		if k := s.subject + "/" + Kebab(s.attribute); len(of(s)) > 0 {
			values[k] = append(slices.Clone(of(s)), values[k]...)
		}
	}
	return values
}

// valueMentions returns the facts of clauses that tell a change of an existing slot by
// its values — those of Input.Values and those the call's earlier inputs stated (known)
// — for the slots no other fact of the memory read by form.
func valueMentions(in Input, p prepared, have []Fact, values, ended map[string][]string) []Fact {
	if len(values) == 0 && len(ended) == 0 {
		return nil
	}
	words := p.words()
	var out []Fact
	keys := slices.Sorted(maps.Keys(values))
	byKind, hasByKind := valueOfKind(in, p, have, keys, values)
	if hasByKind {
		out = append(out, byKind)
	}
	for k := range ended {
		if _, ok := values[k]; !ok {
			keys = append(keys, k) // a slot whose every known value ended may be taken up again
		}
	}
	slices.Sort(keys)
	for _, key := range keys {
		subj, attr, ok := strings.Cut(key, "/")
		if !ok || slices.ContainsFunc(have, func(f Fact) bool { return f.Subject == subj && Kebab(f.Attribute) == attr && f.Confidence == 0 }) ||
			hasByKind && key == byKind.Subject+"/"+byKind.Attribute {
			continue
		}
		if unnamedDose(attr, in.Text, words) {
			continue // "switched me to rosuvastatin 5 mg": that one's dose, not atorvastatin's
		}
		vals := values[key]
		from := len(out) // this slot's facts start here
		if f, ok := partnerEnded(subj, attr, vals, p, in); ok {
			out = append(out, f)
			continue
		}
		if fs := correction(subj, attr, vals, p, in); len(fs) > 0 {
			out = append(out, fs...)
			continue
		}
		// "back on platform" names the value it returns to; "banff instead" needs the
		// old value named elsewhere in the memory.
		named := slices.ContainsFunc(vals, func(v string) bool { return mentions(words, v) || switchesFrom(p, v) })
		// fresh: a value the slot does not hold yet, of the kind its values are ("moved to
		// 10am" is no new manager after Fiona).
		fresh := func(v string) bool {
			return v != "" && !slices.ContainsFunc(vals, func(x string) bool { return SameValue(x, v) }) && kindFits(vals, v)
		}
		for _, c := range p.clauses {
			f := Fact{Subject: subj, Attribute: attr, EventTime: eventTime(c.text, in.Time)}
			if c.subj != subj {
				// Someone else may move the time of a thing of the subject's ("raj moved
				// standup to 10"), or switch the speaker to another ("the gp switched me to
				// rosuvastatin"); the verb of switching may precede the clause's rest.
				if v := switchValue(c.toks); named && fresh(v) && (whenValue.MatchString(v) || subj == "user" && objectOfSwitch(c.toks)) {
					f.Value = v
					out = append(out, f)
					break
				}
				continue
			}
			if m := backTo.FindStringSubmatch(c.text); m != nil {
				back := m[1]
				if w := strings.ToLower(strings.Fields(back)[0]); objectPronouns[w] || w == "them" {
					// "tom's back from canada, switched my emergency contact back to him".
					back = p.referent
				}
				was := slices.Concat(vals, ended[key])
				if i := slices.IndexFunc(was, func(v string) bool { return back != "" && (SameValue(v, back) || SameValue(v, phrase(tokenize(back)))) }); i >= 0 {
					f.Value = was[i]
					out = append(out, f)
					break
				}
			}
			if v := insteadValue(c.rest); named && fresh(v) {
				f.Value = v
				out = append(out, f)
				break
			}
			if (attr == "job" || attr == "employer") && c.subj == subj && jobEnded.MatchString(c.text) && len(vals) > 0 &&
				!slices.ContainsFunc(have, func(g Fact) bool { return g.Subject == subj && Kebab(g.Attribute) == attr && !g.Negated }) {
				// "dad's finally retired", "I've been made redundant": the job ends, told
				// without its name.
				f.Value, f.Negated = vals[0], true
				out = append(out, f)
				break
			}
			if subj == p.self && SingleValued(attr) && negated(c.text) && namesOwn(c.toks, attr) && len(vals) > 0 {
				// "someone nicked my bike", "lost my phone on the bus": the slot named by
				// its attribute ends, whatever value it holds.
				f.Value, f.Negated = vals[0], true
				out = append(out, f)
				break
			}
			if v := stoppedValue(c.toks, vals); v != "" {
				// "stopped the 5:2" of "5:2 diet", "cancelled riverford": the value named
				// as what is given up ends (read by form, it replaces a denial the meaning
				// read, whose confidence may be too low for a version group).
				f.Value, f.Negated = v, true
				out = append(out, f)
				continue // a later clause may name what replaces it
			}
			if v := switchValue(c.toks); named && fresh(v) {
				f.Value = v
				out = append(out, f)
				if !SingleValued(attr) && (slices.ContainsFunc(c.toks, func(t token) bool { return switchVerbs[t.low] }) || movedFrom(c.toks)) {
					// One of several values switched for another ("dropped french, switched
					// to german"; not "bumped icloud up to 2tb"): the one named ends.
					for _, old := range vals {
						if mentions(words, old) || switchesFrom(p, old) {
							g := f
							g.Value, g.Negated = old, true
							out = append(out, g)
						}
					}
				}
				break
			}
		}
		if SingleValued(attr) && slices.ContainsFunc(out[from:], func(f Fact) bool { return !f.Negated }) {
			// "sold the iphone, using an old nokia instead": the new value replaces the old
			// one; no denial is needed beside it. (A slot with a fact read by form in the
			// memory is skipped above.)
			out = append(out[:from], slices.DeleteFunc(out[from:], func(f Fact) bool { return f.Negated })...)
		}
		out = append(out, leftValues(subj, attr, vals, p, in, have)...)
	}
	return out
}

// exceptRe opens a scoped exception and captures its condition: "except on bank holiday
// weeks it's tuesday", "except in december, they pay us on the 18th", "apart from
// fridays when it's 8".
var exceptRe = regexp.MustCompile(`(?i)\b(?:except|apart from|other than)(?:\s+(?:on|in|for|during|when|at|over))?\s+([^,.;!?]+?)(?:\s+(?:it'?s|it is|it'll be|they|we|i|you|that's|then|when)\b|\s*[,.;!?:]|$)`)

// valueOfKind reads a value whose attribute the memory does not name. An exception:
// "except on bank holiday weeks it's tuesday" after "bin day's mondays now". The value
// after the condition takes the speaker's one slot of its kind (slotOfKind), under the
// condition as its scope, so that it is an exception of that slot and no new version
// of it. A month in the condition is when the exception holds, not when it was said: no
// event time. Without an exception, a correction told the same way ("nope, checked the
// portal, it's june 14th" after "stats exam is on june 12") is a new value of that slot,
// and so is a change said with no fact read by form ("ours go out thursdays from now on").
func valueOfKind(in Input, p prepared, have []Fact, keys []string, values map[string][]string) (Fact, bool) {
	text := in.Text
	if m := exceptRe.FindStringSubmatchIndex(text); m != nil {
		f, ok := slotOfKind(p, have, keys, values, text[m[3]:])
		f.Scope = "except " + strings.TrimSpace(text[m[2]:m[3]])
		return f, ok
	}
	if m := CorrectionCue.FindStringIndex(text); m != nil && openingRe.MatchString(text[:m[0]]) {
		f, ok := slotOfKind(p, have, keys, values, text[m[1]:])
		f.EventTime = eventTime(text, in.Time)
		return f, ok
	}
	if m := newsLabelRe.FindStringSubmatchIndex(text); m != nil {
		// "gym update: mornings are dead to me. I go at 9pm now" after "gym at 6am": the
		// label names the speaker's slot, whose kind of value the message holds.
		key := p.self + "/" + Kebab(text[m[2]:m[3]])
		if vals := values[key]; len(vals) > 0 && typedKind(vals[0]) != nil {
			if v := strings.TrimSpace(typedKind(vals[0]).FindString(text[m[1]:])); v != "" && !SameValue(v, vals[0]) {
				return Fact{Subject: p.self, Attribute: Kebab(text[m[2]:m[3]]), Value: v, EventTime: eventTime(text, in.Time)}, true
			}
		}
	}
	if kindChangeRe.MatchString(text) && !slices.ContainsFunc(have, func(f Fact) bool { return f.Confidence == 0 }) {
		// "council changed the rounds, ours go out thursdays from now on" after "bin day
		// is tuesday": a change told by a value of the slot's kind alone.
		f, ok := slotOfKind(p, have, keys, values, text)
		f.EventTime = eventTime(text, in.Time)
		return f, ok
	}
	if m := unitMoveRe.FindStringSubmatch(text); m != nil {
		// "bumped to 5x/wk for the half" after "goal: run 3x/wk", "ally dropped to 3.9%":
		// an amount moved, whose unit says whose slot it is.
		f, ok := slotOfUnit(p, have, keys, values, strings.TrimSpace(m[1]))
		f.EventTime = eventTime(text, in.Time)
		return f, ok
	}
	return Fact{}, false
}

// unitMoveRe is an amount a value moves to, said without its thing: "bumped to 5x/wk",
// "back to 3x/wk for a month", "cut to 4.0%", "dropped to 3.9%", "wants me back on
// 50mg".
var unitMoveRe = regexp.MustCompile(`(?i)(?:\b(?:bumped|bump|bumping|upped|up|down|dropped|drop|dropping|cut|cuts|cutting|back|raised|lowered|increased|reduced|went|going|gone|moved)\s+(?:(?:it|up|down|back)\s+){0,2}to|\bme\s+(?:back\s+)?(?:on|onto|to))\s+([£$€]?\d[\d,.]*\s?` + noteUnit + `(?:/\p{L}+)?)`)

// unitOf is the shape of an amount's unit — what is left without its digits, as the
// amount is written: "3x/wk" → "x/wk", "$1,850/mo" → "$/mo", "4.2%" → "%", "10 mg" → "mg";
// "" for a bare number, whose unit is not said.
func unitOf(v string) string {
	u := strings.ToLower(strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) || r == '.' || r == ',' || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, v))
	return cmp.Or(spelledUnits[u], u)
}

// spelledUnits are units written out, by their short form's: "100 milligrams" is 100mg.
var spelledUnits = map[string]string{"milligram": "mg", "milligrams": "mg", "microgram": "mcg", "micrograms": "mcg"}

// slotOfUnit returns amount v as a fact of the one speaker's slot whose newest value has
// v's unit (unitOf), else nothing: two such slots, or a fact of that unit read by form in
// the memory, leave it unread.
func slotOfUnit(p prepared, have []Fact, keys []string, values map[string][]string, v string) (Fact, bool) {
	u := unitOf(v)
	if u == "" || slices.ContainsFunc(have, func(f Fact) bool { return f.Confidence == 0 && unitOf(f.Value) == u }) {
		return Fact{}, false
	}
	var found Fact
	for _, key := range keys {
		subj, attr, _ := strings.Cut(key, "/")
		vals := values[key]
		if subj != p.self || len(vals) == 0 || unitOf(vals[0]) != u || SameValue(vals[0], v) {
			continue
		}
		if found.Attribute != "" {
			return Fact{}, false
		}
		found = Fact{Subject: subj, Attribute: attr, Value: v}
	}
	return found, found.Attribute != ""
}

// kindChangeRe says a state changes without naming it: "from now on", "changed the
// rounds", "moved to", "rescheduled".
var kindChangeRe = regexp.MustCompile(`(?i)\b(?:changed|moved|switched|rescheduled|pushed back|brought forward|now on|going forward|redone|redid|reorganised|reorganized|from next (?:week|month))\b`)

// newsLabelRe is a message's opening label of news about one thing: "gym update:",
// "Mateo: school run news -".
var newsLabelRe = regexp.MustCompile(`^\W*(?:[\p{L}]+:\s*)?((?i:[a-z]+(?: [a-z]+)?)) (?i:update|news)\s*[:\-–—]`)

// openingRe is what may stand before a cue that opens a message: punctuation and a
// speaker's "Name: " ("Jonas: nope, it's june 14th"; not "…, sorry to hear that").
var openingRe = regexp.MustCompile(`^\W*(?:[\p{L}]+:\s*)?\W*$`)

// CorrectionCue marks a text that corrects what was said rather than reporting a change:
// "sorry, I meant 40", "wait no, the 16th", "typo: …", "nope, it's june 14th", "i mixed
// them up". The rule auditor reads it too (judge/rule).
var CorrectionCue = regexp.MustCompile(`(?i)\b(sorry|i meant|meant to say|correction|typo|my mistake|my bad|i misspoke|misspoke|wait,? no|no wait|oops|i got that wrong|not \w+,? (?:but|it'?s)|nope|scratch that|mixed (?:them|it|those) up|got (?:it|that|the \w+) wrong)\b`)

// slotOfKind returns the first value in text of the kind of one of the speaker's slots'
// newest value — a day, a clock time, a date — as a fact of that slot. Two slots of the
// kind with a value in text, or a value of the kind read by form in the memory, leave
// it unread: whose it is, is not said.
func slotOfKind(p prepared, have []Fact, keys []string, values map[string][]string, text string) (Fact, bool) {
	var found []Fact
	for _, key := range keys {
		subj, attr, _ := strings.Cut(key, "/")
		vals := values[key]
		if subj != p.self || len(vals) == 0 {
			continue
		}
		kind := typedKind(vals[0])
		if kind == nil {
			continue
		}
		v := kind.FindString(text)
		if v == "" || slices.ContainsFunc(have, func(f Fact) bool { return f.Confidence == 0 && kind.MatchString(f.Value) }) || saidOfAnother(p, v) {
			continue
		}
		found = append(found, Fact{Subject: subj, Attribute: attr, Value: strings.TrimSpace(v)})
	}
	if len(found) > 1 {
		// Two slots of the kind: the one the text names ("KLM has changed the flight: now
		// it departs on 2 October" with a flight date and a passport's expiry), else none.
		words := spacedWords(text)
		found = slices.DeleteFunc(found, func(f Fact) bool {
			return !slices.ContainsFunc(strings.Split(f.Attribute, "-"), func(w string) bool { return len(w) > 2 && !genericWords[w] && mentions(words, w) })
		})
	}
	if len(found) != 1 {
		return Fact{}, false
	}
	return found[0], true
}

// saidOfAnother reports a value said in a clause about someone else, he or she ("Samira's
// timetable changed so she does Tuesdays now"): none of the speaker's slots.
func saidOfAnother(p prepared, v string) bool {
	for _, c := range p.clauses {
		if !strings.Contains(strings.ToLower(c.text), strings.ToLower(strings.TrimSpace(v))) {
			continue
		}
		ts := skipFillers(c.toks)
		return len(ts) > 0 && pronouns[ts[0].low]
	}
	return false
}

// dayOfMonthRe is a day of the month said alone: "25th", "the 18th".
var dayOfMonthRe = regexp.MustCompile(`(?i)\b(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b`)

// kindFits reports whether v is of the kind of one of vals: a clock time, a day, a date or
// a day of the month (typedKind), or of none of those kinds.
func kindFits(vals []string, v string) bool {
	k := typedKind(v)
	if k == nil && isDigitStart(v) {
		// "hannah moved standup to 10": an hour or an amount, which fits a slot of clock
		// times or amounts, never one of names (the manager Hannah).
		return len(vals) == 0 || slices.ContainsFunc(vals, func(x string) bool { return typedKind(x) == clockRe || isDigitStart(x) })
	}
	return len(vals) == 0 || slices.ContainsFunc(vals, func(x string) bool { return typedKind(x) == k })
}

// typedKind returns the pattern of a value's kind — a clock time, a day, a date, a day of
// the month — or nil for a value of no such kind.
func typedKind(v string) *regexp.Regexp {
	for _, re := range []*regexp.Regexp{clockRe, daysRe, dateRe, dayOfMonthRe} {
		if m := re.FindString(v); m != "" && len(m) >= len(strings.TrimSpace(v))-4 {
			return re
		}
	}
	return nil
}

// dietAgainRe and dietStopRe tell a diet by a kind of food taken up again or given up:
// "started eating meat again", "back on fish", "eat meat now"; "stopped eating meat",
// "gave up dairy", "no longer eat fish".
var (
	dietFoods   = `(?:meat|fish|dairy|eggs|animal products|gluten|sugar|alcohol)`
	dietFoodRe  = regexp.MustCompile(`(?i)` + dietFoods)
	dietAgainRe = regexp.MustCompile(`(?i)\b(?:(?:started|start|starting|began) (?:eating|to eat|drinking|to drink) ` + dietFoods + `(?: again)?|(?:eating|eat|eats|drinking|drink|drinks) ` + dietFoods + ` (?:again|now)|back on ` + dietFoods + `)\b`)
	dietStopRe  = regexp.MustCompile(`(?i)\b(?:(?:stopped|stop|quit|gave up|given up|cut out) (?:eating |drinking )?` + dietFoods + `|no longer (?:eat|eating|drink|drinking) ` + dietFoods + `|(?:don't|do not|dont) (?:eat|drink) ` + dietFoods + ` any ?more)\b`)
)

// dietWordRe is a diet named after a verb of being or becoming: "been vegetarian since
// january", "is fully vegan", "pescatarian now i guess", "gone keto", "trying vegan for
// a month"; not a dish ("vegan cheese", "a vegetarian restaurant").
var dietWordRe = regexp.MustCompile(`(?i)\b(?:been|am|'m|im|is|'s|are|'re|went|gone|going|go|now|become|became|turned|stay|staying|still|trying|try|doing|do|does|started|starting)\s+(?:not\s+|no\s+longer\s+)?(?:fully\s+|strictly\s+|mostly\s+|a\s+|full\s+|the\s+)?(vegetarian|veggie|vegan|pescatarian|pescetarian|keto|paleo|plant[- ]based|gluten[- ]free|dairy[- ]free|flexitarian|low[- ]carb|low[- ]fat|low[- ]sugar|carnivore|whole30|intermittent fasting|5:2|banting|portion control|calorie counting|slimming world|weight watchers|dukan)(?:$|\s*[,.!?;:)]|\s+(?:now|since|for|again|and|but|these|at|too|nowadays|lol|i|from|anymore|any more)\b)`)

// thingPronouns stand for things (or, "they", for the things just named): a diet said of
// one is no one's.
var thingPronouns = wordSet(`it its that this these those which they they're`)

// dietWord reads a diet named by dietWordRe, in one spelling ("veggie" is vegetarian).
func dietWord(clause string) string {
	ix := dietWordRe.FindStringSubmatchIndex(clause)
	if ix == nil {
		return ""
	}
	if before := strings.Fields(strings.ToLower(clause[:ix[0]])); len(before) > 0 && thingPronouns[strings.Trim(before[len(before)-1], ",.!?")] {
		return "" // "it's dairy-free", "make sure they're dairy-free": a thing's, no one's diet
	}
	switch d := strings.ToLower(strings.ReplaceAll(clause[ix[2]:ix[3]], " ", "-")); d {
	case "veggie":
		return "vegetarian"
	case "pescetarian":
		return "pescatarian"
	default:
		return d
	}
}

// dietChange reads a diet from a food taken up again ("eats meat") or given up ("no
// meat"), so that it meets the diet said before ("I'm vegetarian") in one version group.
func dietChange(clause string) (string, bool) {
	for _, d := range []struct {
		re   *regexp.Regexp
		diet string
	}{{dietStopRe, "no "}, {dietAgainRe, "eats "}} {
		if m := d.re.FindString(clause); m != "" {
			return d.diet + strings.ToLower(dietFoodRe.FindString(m)), true
		}
	}
	return "", false
}

// breakupRe says a couple is no more: "we broke up", "Tom and I split up", "I'm single
// now", "got divorced".
var breakupRe = regexp.MustCompile(`(?i)\b(?:broke up|broken up|break up|breaking up|split up|splitting up|separated|divorced|divorcing|ended things|dumped (?:me|him|her)|(?:i'm|im|i am) single|single (?:again|now)|no longer together|not together any ?more)\b|\band [\p{L}'-]+ (?:are|'re|r) (?:done|over|finished|through)(?: for good| now)?$`)

// partnerEnded reads the end of a subject's partnership whose partner the memory need
// not name: "My girlfriend and I broke up", "I'm single now", "Tom and I split up"
// end the current partner (vals' last) of the speaker; another subject's ends when the
// memory names that subject ("my sister and Ed split up").
func partnerEnded(subj, attr string, vals []string, p prepared, in Input) (Fact, bool) {
	if attr != "partner" || len(vals) == 0 {
		return Fact{}, false
	}
	if !slices.ContainsFunc(p.clauses, func(c clause) bool { return breakupRe.MatchString(c.text) }) {
		return Fact{}, false
	}
	words := p.words()
	// The speaker's own has "I", "me" or "we" in it ("my sister and Ed got divorced" is
	// not); another's names that subject.
	who := mentions(words, strings.ReplaceAll(subj, "-", " "))
	if subj == p.self {
		who = slices.ContainsFunc(strings.Fields(words), func(w string) bool { return firstPerson[w] })
	}
	if !who {
		return Fact{}, false
	}
	var at time.Time // the memory's first stated time, in whichever clause
	for _, c := range p.clauses {
		if at = eventTime(c.text, in.Time); !at.IsZero() {
			break
		}
	}
	return Fact{Subject: subj, Attribute: attr, Value: vals[len(vals)-1], Negated: true, EventTime: at}, true
}

// ownersByAttribute gives a fact read by meaning in the speaker's name to the one third
// party the memory names who has that attribute, when the speaker has none: "first day
// at oakfield primary for leo" after "leo started year 2 at hillside primary" is leo's
// school, not the speaker's. The speaker's own slot of the attribute, or two such
// parties named, leave the fact as it is.
func ownersByAttribute(in Input, p prepared, fs []Fact, known []slotSeen) []Fact {
	holders := map[string][]string{} // attribute → subjects with a slot of it
	add := func(subj, attr string) {
		subj, attr = Kebab(subj), Kebab(attr)
		if !slices.Contains(holders[attr], subj) {
			holders[attr] = append(holders[attr], subj)
		}
	}
	for _, k := range in.Slots {
		if subj, attr, ok := strings.Cut(k, "/"); ok {
			attr, _, _ = strings.Cut(attr, "/") // a multi-valued group's value
			add(subj, attr)
		}
	}
	for _, s := range known {
		add(s.subject, s.attribute)
	}
	if len(holders) == 0 {
		return fs
	}
	text := p.words()
	for i, f := range fs {
		attr := Kebab(f.Attribute)
		if f.Subject != p.self || f.Confidence == 0 && !f.defaultOwner || slices.Contains(holders[attr], Kebab(p.self)) {
			continue
		}
		var named []string
		for _, subj := range holders[attr] {
			name := strings.ReplaceAll(subj, "-", " ")
			if subj != "user" && strings.Contains(text, " "+name+" ") && !addressed(in.Text, name) {
				named = append(named, subj)
			}
		}
		if len(named) == 0 && f.defaultOwner && len(holders[attr]) == 1 && holders[attr][0] != "user" {
			// An event's day or time said without its owner ("swimming got moved to
			// sunday" after "the kids' swimming is on saturdays"): the one who has it.
			named = holders[attr]
		}
		if len(named) == 1 {
			fs[i].Subject = named[0]
		}
	}
	return fs
}

// vocative is a name the speaker addresses, not one it speaks of: "Thanks, Sam!", "hey
// calvin", "Congrats Nate".
var vocative = regexp.MustCompile(`(?i)\b(?:hey|hi|hiya|hello|thanks|thank you|thx|congrats|congratulations|cheers|yo|dear|sorry|aw+|oh|wow|haha)[,!]?\s+([\p{L}-]+)\b`)

// addressed reports whether text addresses name rather than speaking of it.
func addressed(text, name string) bool {
	for _, m := range vocative.FindAllStringSubmatch(text, -1) {
		if strings.EqualFold(m[1], name) {
			return true
		}
	}
	return false
}

// leaving is a verb phrase of someone going out of the speaker's life or out of a role,
// opening a clause's words after its subject: "dropped out", "won't be coming anymore",
// "moved out". "left", "quit" and "gone" take no object ("left her keys", "quit
// smoking") and go nowhere ("left for Paris", "has gone to Spain"): they end the clause
// or a time follows.
var leaving = regexp.MustCompile(`(?i)^(?:(?:has|had|have|is|was|'s|’s|s|just|finally|now|already)\s+)*(?:(?:` +
	`(?:dropped|drops|dropping) out|(?:moved|moves|moving) out|resigned|retired|stepped down|passed away|died|` +
	`(?:gone|went|goes|moved|has moved) (?:off )?to live (?:with|on|at|in)|(?:got|was|been) (?:stolen|nicked|rehomed|adopted)|(?:went|gone|is|has gone) missing|ran away|` +
	`stopped coming|(?:won't|won’t|will not|isn't|isn’t|is not|not) (?:be )?coming(?: any ?more| back)?|broke up with (?:me|us)|dumped (?:me|us)|` +
	`(?:handed|handing|hands) in (?:her|his|their) notice)\b` +
	`|(?:left|leaves|leaving|quit|quits|quitting|gone)(?:$|,|\s+(?:us|me|(?:her|his|their) job|town|for good|the (?:company|firm|team|practice|surgery|school|business|agency|club|band)|(?:yesterday|today|tonight|last|this|on|in|after)\b))` +
	`|(?:gone|going|went|off|away|is|'s|now) on (?:(?:a|an|\d+|one|two|three|four|five|six|twelve)[- ](?:\w+[- ]){0,2})?(?:sabbatical|leave|secondment|maternity leave|paternity leave|mat leave|sick leave|medical leave|parental leave|compassionate leave)` +
	`|(?:retiring|off sick|signed off|moving on|moving away|moving abroad|(?:gone|went|moved) over to|(?:moved|switched|changed) teams))`)

// leftValues reads the end of a slot's value told by the value's own name: "carol's
// dropped out" of a study buddy Carol, "grace won't be coming anymore" of mum's carer
// Grace: a clause opens with a value of the slot subj/attr (a name, or a thing the
// slot holds), and its verb is one of leaving. The slot's value is then denied, unless
// the memory's other facts (have) state the slot anew: any value of a single-valued
// attribute (its new value replaces the old one), the same value of a multi-valued one
// ("ben moved out :( new flatmate is chloe" denies ben beside chloe).
func leftValues(subj, attr string, vals []string, p prepared, in Input, have []Fact) []Fact {
	restated := func(v string) bool {
		// Read by form: a value read by meaning ("Warmworks" of "Steve's retired!! so it's
		// Warmworks' new guy Paddy") may be a guess.
		return slices.ContainsFunc(have, func(f Fact) bool {
			return f.Subject == subj && Kebab(f.Attribute) == attr && !f.Negated && f.Confidence == 0 && !junk(f, p.cased) && (SingleValued(attr) || SameValue(f.Value, v))
		})
	}
	var out []Fact
	for _, c := range p.clauses {
		lead := skipFillers(c.toks)
		for _, v := range vals {
			if restated(v) {
				continue
			}
			said := v // "okafor's off on sabbatical" of "Dr Okafor"
			if t, name, ok := strings.Cut(v, " "); ok && honorifics[strings.ToLower(t)] && !strings.EqualFold(lead[0].low, t) {
				said = name
			} else if ok && personSlot(attr) && unicode.IsUpper([]rune(t)[0]) && strings.EqualFold(strings.TrimSuffix(lead[0].low, "'s"), t) && (len(lead) < 2 || !strings.EqualFold(lead[1].orig, name)) {
				said = t // "Rachel's going on maternity leave" of "Rachel Kim": the first name
			}
			n := len(tokenize(said))
			if n == 0 || n >= len(lead) {
				continue
			}
			last := strings.TrimSuffix(strings.TrimSuffix(lead[n-1].low, "'s"), "’s")
			if Kebab(join(lead[:n-1])+" "+last) != Kebab(said) || lead[n-1].end {
				continue
			}
			var rest strings.Builder
			for i, t := range lead[n:] {
				if i > 0 {
					rest.WriteByte(' ')
				}
				rest.WriteString(t.orig)
				if t.end {
					rest.WriteByte(',') // "ana left, and …": the clause of leaving ends there
				}
			}
			if !leaving.MatchString(rest.String()) {
				continue
			}
			at := eventTime(c.text, in.Time)
			if by := coverName(in.Text, p.cased); by != "" && SingleValued(attr) && !SameValue(by, v) && !SameValue(by, said) {
				// "abena's off on secondment, Marcus is covering as my manager": the one
				// who takes the place over is the slot's value.
				out = append(out, Fact{Subject: subj, Attribute: attr, Value: by, EventTime: at})
				break
			}
			out = append(out, Fact{Subject: subj, Attribute: attr, Value: v, Negated: true, EventTime: at})
			break
		}
	}
	return out
}

// personSlot reports an attribute whose values are people: a person attribute of the
// table, or a role ("manager", "therapist" read as doctor).
func personSlot(attr string) bool {
	a, known := attributeByName(Kebab(attr))
	return known && a.kind == kindPerson || roles[attr] != "" // holderRoles are roles too
}

// titlePat, personPat and namePat are a title before a name (honorifics), a person's
// noun (personWords) and a name maybe titled, as patterns.
var (
	titlePat  = `(?:(?i:` + strings.Join(slices.Sorted(maps.Keys(honorifics)), "|") + `)\.?\s+)?`
	personPat = `(?:` + strings.Join(strings.Fields(personWords), "|") + `|one)`
	namePat   = titlePat + `[\p{L}][\p{L}'-]*`
)

var (
	// coverRe is a person who takes another's place over: "Marcus is covering", "Dr
	// Lindqvist is taking me on", "a woman called dawn is stepping in".
	coverRe = regexp.MustCompile(`(?:\b(?:called|named)\s+|\b)(` + namePat + `)(?i:\s+from\s+(?:the\s+)?[\p{L}-]+(?:\s+team)?)?\s+(?:is\s+|'s\s+|has\s+|will\s+be\s+)?(?i:covering|standing in|stepping in|filling in|subbing|substituting|taking over|taken over|took over|takes over|taking me on|taken me on|took me on|taking us on|stepping up)\b`)
	// handedRe is a person one is handed over to: "handed over to a woman called dawn",
	// "they've moved me to Dr Shah".
	handedRe = regexp.MustCompile(`(?i)\b(?:handed|passed|moved|switched|transferred|put)\s+(?:me\s+|us\s+|him\s+|her\s+|them\s+)?(?:over\s+|across\s+)?to\s+(?:(?:a|an|this|another)\s+(?:new\s+)?` + personPat + `\s+(?:called|named)\s+)?(` + namePat + `)`)
	// newOneRe is a new holder named after "new guy", "new woman": "it's Warmworks' new
	// guy Paddy who'll look after the boiler".
	newOneRe = regexp.MustCompile(`(?i)\bnew\s+` + personPat + `\s+(?:called\s+|named\s+|is\s+)?(` + namePat + `)`)
	// roleNowRe is a holder named as the speaker's role (a word of roles, or "lead"):
	// "Ben Adeyemi is our lead now".
	roleNowRe = regexp.MustCompile(`(` + titlePat + `\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)?)\s+(?:is|'s)\s+(?i:(?:now\s+)?(?:our|my)\s+(?:new\s+)?(?:team\s+)?(?:lead|` + strings.Join(slices.Sorted(maps.Keys(roles)), "|") + `))\b`)
)

// coverName returns the person a text says takes someone's place over, if any: a name
// (capitalised in text with capitals), not a pronoun or a common word.
func coverName(text string, cased bool) string {
	for _, re := range []*regexp.Regexp{coverRe, handedRe, newOneRe, roleNowRe} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			name := m[1]
			ws := strings.Fields(name)
			w := strings.ToLower(ws[len(ws)-1])
			if pronouns[w] || firstPerson[w] || common[w] || stopValue[w] || thingPronouns[w] || w == "someone" || w == "somebody" || w == "they" {
				continue
			}
			if r, _ := utf8.DecodeRuneInString(ws[len(ws)-1]); cased && !unicode.IsUpper(r) {
				continue
			}
			return name
		}
	}
	return ""
}

// correctionStops end, reading backwards, the new value of "<new> not <old>": "it's 21
// not 12", "the email says tuesdays at 5:15, not thursdays".
var correctionStops = wordSet(`is are was were be 's it's its it says said say means mean meant thought think`)

// notPair is one "<new> not <old>" of a memory: at is the index of "not" in the
// memory's words, k where the new value's words start, ends where each word's clause ends.
type notPair struct {
	old, nv string
	at, k   int
}

// nots are a memory's "<new> not <old>" pairs (notPairs) with the memory's words and
// where each word's clause ends, read once when the memory is prepared.
type nots struct {
	pairs []notPair
	words []token
	ends  []int // ends[i]: where the clause of words[i] ends
}

// notPairs reads each "not" of a memory's clauses as a correction's two values: the old
// one after it, up to its clause's end ("40, not 14. 14 would be …"); the new one before
// it, back to a verb of saying or being, a person, or an earlier clause's boundary (the
// comma just before "not" belongs to the new value: "5:15, not thursdays"), or a cleft's
// value ("it's youtube music that came w the phone, not apple music").
func notPairs(clauses []clause) nots {
	var n nots
	for _, c := range clauses {
		n.words = append(n.words, c.toks...)
		for range c.toks {
			n.ends = append(n.ends, len(n.words))
		}
	}
	ts := n.words
	for i := 0; i+1 < len(ts); i++ {
		if isnt[ts[i].low] {
			// "Gemma isn't in Harrogate at all, it's Knaresborough": the old value after
			// it (past a preposition), the new one opening the next clause.
			j := i + 1
			if j < len(ts) && placePreps[ts[j].low] {
				j++
			}
			e := n.ends[i+1]
			old := phrase(ts[j:e])
			old = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(old, " at all"), " anymore"))
			at := e // past the words that open the new value ("it's", "she's in")
			for at < len(ts) && isntOpeners[ts[at].low] {
				at++
			}
			if at > e && old != "" && at < len(ts) {
				if nv := phrase(ts[at:n.ends[at]]); nv != "" {
					n.pairs = append(n.pairs, notPair{old: old, nv: nv, at: i, k: i})
				}
			}
			continue
		}
		if ts[i].low != "not" {
			continue
		}
		k := i
		for k > 0 && i-k < 4 && !correctionStops[ts[k-1].low] && !firstPerson[ts[k-1].low] && (k == i || !ts[k-1].end) {
			k--
		}
		nv := phrase(ts[k:i])
		if cl := cleftValue(ts[:i]); cl != "" {
			nv = cl
		}
		n.pairs = append(n.pairs, notPair{old: phrase(ts[i+1 : n.ends[i+1]]), nv: nv, at: i, k: k})
	}
	return n
}

// isnt are the denials whose new value follows in the next clause ("isn't in Harrogate,
// it's Knaresborough").
var isnt = wordSet(`isn't isnt wasn't wasnt aren't arent`)

// isntOpeners open the clause of the new value after a denial (isnt): "it's
// Knaresborough", "she's in Bury".
var isntOpeners = wordSet(`it it's its is she's he's they're in`)

// correction reads "<new> not <old>" where old is a value of the slot (vals): the slot's
// value is new — for a multi-valued attribute also old, denied, since each value is its
// own version group. It is a correction whoever the clause's grammatical subject is: the
// value it names says which slot it corrects.
func correction(subj, attr string, vals []string, p prepared, in Input) []Fact {
	ts := p.nots.words
	for _, np := range p.nots.pairs {
		old, nv := np.old, np.nv
		j := slices.IndexFunc(vals, func(v string) bool { return old != "" && SameValue(v, old) })
		if np.at == 0 || j < 0 {
			continue
		}
		if nv == "" || SameValue(nv, vals[j]) || emptyValue(nv) {
			continue
		}
		if n, unit, ok := strings.Cut(vals[j], " "); ok && isNumber(nv) && isNumber(n) && isNumber(old) {
			nv += " " + unit // "40, not 14" of "14 km": 40 km
		}
		at := eventTime(join(ts), in.Time)
		out := []Fact{{Subject: subj, Attribute: attr, Value: nv, EventTime: at}}
		if !SingleValued(attr) {
			out = append(out, Fact{Subject: subj, Attribute: attr, Value: vals[j], Negated: true, EventTime: at})
		}
		return out
	}
	return nil
}

// correctedAway reads the old value of a correction that fs already read the new value
// of, when the old one is no value of the slot the extractor was shown: "wait no its
// thursdays not tuesdays" (schedule = thursdays) denies tuesdays, "her favourite is not
// salmon, it is tamago" denies salmon — each a denied fact of the new value's slot, so
// that the memory that said the old value, which no fact was read from, is the version
// the correction ends (the overlay's namedVersions). Nothing when the memory has no
// positive fact whose value the correction names, or when what follows "not" reads as
// no value ("not sure", "not a fan").
func correctedAway(p prepared, fs []Fact, values map[string][]string) []Fact {
	ts, ends := p.nots.words, p.nots.ends
	var out []Fact
	for _, np := range p.nots.pairs {
		old, nv, i, k := np.old, np.nv, np.at, np.k
		if !valueLike(old) {
			continue
		}
		// Without a new value before "not", the one after it in the next clause ("not
		// salmon, it is tamago").
		if e := ends[i+1]; (nv == "" || k > 0 && ts[k-1].low == "is" && i-k == 0) && e+1 < len(ts) {
			after := ts[e:]
			for len(after) > 0 && (after[0].low == "it" || after[0].low == "it's" || after[0].low == "its" || after[0].low == "is" || after[0].low == "but") {
				after = after[1:]
			}
			if len(after) < len(ts[e:]) {
				nv = phrase(after)
			}
		}
		if nv == "" || SameValue(nv, old) || isDigitStart(nv) != isDigitStart(old) {
			continue // "kicks in on the 1st of august, not july": not one value for another
		}
		for _, f := range fs {
			if f.Negated || f.Scope != "" || !SameValue(f.Value, nv) {
				continue
			}
			if slices.ContainsFunc(fs, func(g Fact) bool { return g.Negated && g.Slot() == f.Slot() && SameValue(g.Value, old) }) ||
				SingleValued(f.Attribute) && slices.ContainsFunc(values[f.Subject+"/"+Kebab(f.Attribute)], func(v string) bool {
					n, _, _ := strings.Cut(v, " ")
					return SameValue(v, old) || SameValue(n, old)
				}) {
				// Denied already, or the single-valued slot's own value, which the new one
				// replaces ("40, not 14" of 14 km).
				break
			}
			out = append(out, Fact{Subject: f.Subject, Attribute: f.Attribute, Value: old, Negated: true, EventTime: f.EventTime, Confidence: f.Confidence})
			break
		}
	}
	return out
}

// toldYouRe is a correction of what the speaker said before, old then new: "oh i told you
// sky for the broadband, its actually bt", "i said 1150 for the rent, it's £1250", "i told
// you thursday, it's friday".
var toldYouRe = regexp.MustCompile(`(?i)\b(?:i told you|told you|i said|i put|i wrote)\s+(?:it was\s+|that\s+)?([\w£$€.:/'-]+(?:\s+[\w£$€.:/'-]+){0,2}?)(?:\s+(?:for|was)\s+(?:the|my|our)\s+([a-z]+(?:\s+[a-z]+)?))?(?:\s+before)?\s*,?\s+(?:but\s+)?(?:it'?s|it is|its|(?:i\s+)?(?:actually\s+|really\s+)?(?:went with|chose|picked|got|signed up with|am on|'m on|am with|'m with))\s+(?:actually\s+|really\s+)?([\w£$€.:/'-]+(?:\s+[\w£$€.:/'-]+){0,2}?)\s*(?:[,.!;]|$|\s+(?:not|and|but|sorry|my|lol))`)

// toldLabelFirstRe is toldYouRe's form with the label before the old value: "i told you
// the rent was 1150".
var toldLabelFirstRe = regexp.MustCompile(`(?i)\b((?:i )?told you|i said)\s+(?:the|my|our)\s+([a-z]+(?:\s+[a-z]+)?)\s+(?:was|is)\s+([\w£$€.:/'-]+)`)

// toldYou reads toldYouRe for a slot: the one its "for the …" names (an attribute of the
// table, of labelNames, or its own), else the slot among values that holds the old value;
// the new value and the old one denied. Nil when fs already reads the new value's slot or
// no slot is found.
func toldYou(text string, fs []Fact, values map[string][]string) []Fact {
	// "i told you the rent was 1150, its £1250": the label first, said as "1150 for the rent".
	text = toldLabelFirstRe.ReplaceAllString(text, "${1} ${3} for the ${2}")
	m := toldYouRe.FindStringSubmatch(text)
	if m == nil {
		return nil
	}
	bare := func(v string) string {
		v = strings.TrimSpace(v)
		for _, a := range []string{"the ", "a ", "an "} {
			if len(v) > len(a) && strings.EqualFold(v[:len(a)], a) {
				return v[len(a):]
			}
		}
		return v
	}
	oldV, label, newV := bare(m[1]), strings.ToLower(m[2]), bare(m[3])
	if !valueLike(oldV) || !valueLike(newV) || SameValue(oldV, newV) {
		return nil
	}
	subj, attr := "user", ""
	switch {
	case labelNames[label] != "":
		attr = labelNames[label]
	case label != "":
		if _, ok := attributeByName(Kebab(label)); ok {
			attr = Kebab(label)
		} else if a, _ := amountLabel(label, ""); a != "" {
			attr = a
		}
	default:
		if key := slotHolding(values, "", oldV); key != "" {
			subj, attr, _ = strings.Cut(key, "/")
		}
	}
	if attr == "" || slices.ContainsFunc(fs, func(f Fact) bool { return f.Subject == subj && Kebab(f.Attribute) == attr && SameValue(f.Value, newV) }) {
		return nil
	}
	return []Fact{{Subject: subj, Attribute: attr, Value: newV}, {Subject: subj, Attribute: attr, Value: oldV, Negated: true}}
}

// slotHolding returns the key of the first slot, in key order, among values whose values
// include v, of subj's slots ("" for anyone's); "" when none does.
func slotHolding(values map[string][]string, subj, v string) string {
	for _, key := range slices.Sorted(maps.Keys(values)) {
		if s, _, _ := strings.Cut(key, "/"); (subj == "" || s == subj) && slices.ContainsFunc(values[key], func(x string) bool { return SameValue(x, v) }) {
			return key
		}
	}
	return ""
}

// leaveHeldValue drops, of two values a memory states for one single-valued slot, the
// one the slot holds now (values: the slot's known values, newest first) when the other
// is new to it: "omg i told you the 25th, its the 26th", "moved from leeds to york" —
// the memory tells the new value, and names the old one on the way.
func leaveHeldValue(fs []Fact, values map[string][]string) []Fact {
	return slices.DeleteFunc(slices.Clone(fs), func(f Fact) bool {
		vals := values[f.Subject+"/"+Kebab(f.Attribute)]
		if f.Negated || f.Scope != "" || !SingleValued(f.Attribute) || len(vals) == 0 || !SameValue(vals[0], f.Value) {
			return false
		}
		return slices.ContainsFunc(fs, func(g Fact) bool {
			return !g.Negated && g.Scope == "" && g.Slot() == f.Slot() && !SameValue(g.Value, f.Value) &&
				!slices.ContainsFunc(vals, func(v string) bool { return SameValue(v, g.Value) })
		})
	})
}

// cleftValue is the value a cleft sentence puts first in ts, the words before a "not":
// "it's youtube music that came w the phone," → youtube music; "" when there is none.
func cleftValue(ts []token) string {
	for i := len(ts) - 2; i >= 0; i-- {
		if w := ts[i].low; w != "it's" && w != "its" && (w != "is" || i == 0 || ts[i-1].low != "it") {
			continue
		}
		for j := i + 2; j < len(ts) && j < i+6; j++ {
			if ts[j].low == "that" || ts[j].low == "who" || ts[j].low == "which" {
				if v := phrase(ts[i+1 : j]); v != "" && valueLike(v) {
					return v
				}
				return ""
			}
		}
		return ""
	}
	return ""
}

// valueLike reports a phrase after "not" that may be a value: not empty, not a word that
// judges or hedges ("not sure", "not bad", "not really"), not a verb phrase ("not
// going"), not an article alone.
func valueLike(v string) bool {
	ws := strings.Fields(strings.ToLower(v))
	if len(ws) == 0 || emptyValue(v) {
		return false
	}
	w := ws[0]
	return !(evaluations[w] || fillers[w] || verbForm(w) || pronouns[w] || firstPerson[w] || hedges[w] || judging(w))
}

// hedges follow "not" in chat without naming a value ("not sure", "not really", "not a
// fan", "not that bad", "not exactly"), with the words that open a degree or an article.
var hedges = wordSet(`sure really anymore any entirely fully totally likely bothered fussed keen ready happy allowed able interested
	convinced worried fan big huge great good bad well cheap ideal gonna going
	a an the that too so as much many even yet only just exactly quite`)

// isNumber reports whether s is a number such as 40, 1,450 or 8.99.
func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.,") == "" && isDigitStart(s)
}

// mentions reports whether words — lower-case words, each between spaces, the text
// padded with one — hold every content word of value. Words under three letters count
// only as digits of a value of three digits or more ("9:30", "1,450"; not "12").
func mentions(words, value string) bool {
	ws := valueWords(value)
	if len(ws) == 0 {
		return false
	}
	digits := 0
	for _, r := range value {
		if unicode.IsDigit(r) {
			digits++
		}
	}
	for _, w := range ws {
		short := len(w) < 3 && !(digits >= 3 && isDigitStart(w))
		if short || !strings.Contains(words, " "+w+" ") {
			return false
		}
	}
	return true
}

// partVerbs give a thing up to someone or somewhere: "gave the old iphone to my mum",
// "sold the dell on ebay", "traded the focus in for a yaris".
var partVerbs = wordSet(`sold sell selling gave give giving given donated donate handed passed lent traded trading`)

// partedWith returns the thing a clause gives up with one of partVerbs, its object up to
// "to", "on", "in", "for", "away", "at" or "back": "gave the old iphone to my mum" →
// iphone. "" when the clause has no such form, or gives a person or a pronoun ("gave
// him a lift").
func partedWith(ts []token) string {
	for i, t := range ts {
		if t.low == "rid" && i+2 < len(ts) && ts[i+1].low == "of" {
			// "got rid of the car, cycling everywhere now": the thing itself.
			j := i + 2
			for j < len(ts) && (leadValue[ts[j].low] || ts[j].low == "old") {
				j++
			}
			if obj := activityObject(ts[j:], episodeWords); len(obj) > 0 && !slices.ContainsFunc(obj, func(o token) bool {
				return pronouns[o.low] || objectPronouns[o.low] || o.low == "it" || o.low == "them"
			}) {
				return join(obj)
			}
			return ""
		}
		if !partVerbs[t.low] {
			continue
		}
		j := i + 1
		for j < len(ts) && (leadValue[ts[j].low] || ts[j].low == "old" || ts[j].low == "his" || ts[j].low == "her") {
			j++
		}
		if j < len(ts) && (ts[j].low == "out" || ts[j].low == "up" || stopValue[ts[j].low]) {
			return "" // "sold out", "gave up": no thing given
		}
		for k := j; k < len(ts) && k <= j+3; k++ {
			switch ts[k].low {
			case "to", "on", "in", "for", "away", "at", "back", "off":
				if k == j {
					return ""
				}
				obj := ts[j:k]
				for _, o := range obj {
					if pronouns[o.low] || objectPronouns[o.low] || o.low == "me" || o.low == "us" || o.low == "them" || o.low == "it" || relations[o.low] != "" || !isWord(o.low) && !isDigitStart(o.low) {
						return ""
					}
				}
				return join(obj)
			}
			if ts[k].end {
				break
			}
		}
		return ""
	}
	return ""
}

// valueHead is the head of a value of two or more words: its last word that is no
// number and no short or empty word ("focus" of "2015 ford focus", "iphone" of "iphone
// 13"); "" for a value of one word.
func valueHead(value string) string {
	ws := valueWords(value)
	if len(ws) < 2 {
		return ""
	}
	for k := len(ws) - 1; k >= 0; k-- {
		if w := ws[k]; !isDigitStart(w) && len(w) >= 3 && !emptyWords[w] {
			return w
		}
	}
	return ""
}

// switchesFrom reports a memory whose verb of switching or of giving up takes the value
// by its head as its object: "traded the focus in for a yaris" of "2015 ford focus",
// "swapped my iphone for a pixel" of "iphone 13". A head named elsewhere in the memory
// ("the bar opening got pushed" of "own bar") ties nothing to the slot.
func switchesFrom(p prepared, value string) bool {
	head := valueHead(value)
	if head == "" {
		return false
	}
	for _, c := range p.clauses {
		for i, t := range c.toks {
			if !switchVerbs[t.low] && !partVerbs[t.low] {
				continue
			}
			j := i + 1
			for j < len(c.toks) && (leadValue[c.toks[j].low] || c.toks[j].low == "old") {
				j++
			}
			if j < len(c.toks) && c.toks[j].low == head {
				return true
			}
		}
	}
	return false
}

// jobEnded says a job ended without naming it: "retired", "made redundant", "laid off",
// "lost my job", "left teaching".
var jobEnded = regexp.MustCompile(`(?i)\b(?:retired|retiring|made redundant|laid off|lost (?:my|his|her|their) job|(?:quit|left) (?:my|his|her|their) job|got (?:fired|sacked)|handed in (?:my|his|her|their) notice|left \w+ing)\b`)

// namesOwn reports a clause that names the speaker's attribute attr as a thing of theirs:
// "my bike", "our car", "my phone", "the car".
func namesOwn(ts []token, attr string) bool {
	ws := strings.Split(attr, "-")
	for i := 0; i+len(ws) < len(ts); i++ {
		if ts[i].low != "my" && ts[i].low != "our" && ts[i].low != "the" {
			continue // "lost my phone", "sold the car"
		}
		if Kebab(join(ts[i+1:i+1+len(ws)])) == attr {
			return true
		}
	}
	return false
}

// stopVerbs give a thing up: "stopped the 5:2", "cancelled riverford", "gave up on
// guitar".
var stopVerbs = wordSet(`stopped stop stopping quit quitting cancelled canceled cancelling ditched dropped binned scrapped left leaving closed closing dumped dumping
	fired sacked sold selling rehomed`)

// stoppedValue returns the value of vals a clause gives up by name with one of stopVerbs
// (or "gave up", "given up (on)", "came off", "let … go"): its first word or its head right after the verb
// ("stopped the 5:2" of "5:2 diet"); "" when none.
func stoppedValue(ts []token, vals []string) string {
	for i, t := range ts {
		// "bouldering is off for now", "climbing's off": the value before "is off".
		if t.low == "off" && i > 0 {
			k := -1
			switch {
			case i >= 2 && (ts[i-1].low == "is" || ts[i-1].low == "are"):
				k = i - 2
			case strings.HasSuffix(ts[i-1].low, "'s"):
				k = i - 1
			}
			if v := valueNamedBy(ts, k, vals); v != "" {
				return v
			}
		}
		j := i + 1
		switch {
		case t.low == "more" && i > 0 && ts[i-1].low == "no":
			// "no more bouldering for a while"
		case i > 0 && keepsOn[ts[i-1].low]:
			continue // "can't stop writing": it goes on
		case (t.low == "left" || t.low == "leaving") && i+1 < len(ts) && !leadValue[ts[i+1].low] && !isCapitalised(ts[i+1]):
			continue // "left knee", "left early": a determiner or a name says a thing left
		case stopVerbs[t.low]:
		case (t.low == "let" || t.low == "lets") && slices.ContainsFunc(ts[j:min(len(ts), j+4)], func(u token) bool { return u.low == "go" }):
			// "sister let rosa go": the nanny's job ends.
		case comeOff[t.low] && j < len(ts) && ts[j].low == "off":
			j++ // "came off the pill", "coming off the sertraline"
		case (t.low == "packed" || t.low == "pack" || t.low == "packing" || t.low == "jacked" || t.low == "chucked") && j < len(ts) && ts[j].low == "in":
			j++ // "i've packed in bouldering"
		case (t.low == "gave" || t.low == "given" || t.low == "giving") && j < len(ts) && ts[j].low == "up":
			j++
			if j < len(ts) && ts[j].low == "on" {
				j++
			}
		default:
			continue
		}
		for j < len(ts) && (leadValue[ts[j].low] || ts[j].low == "old") {
			j++
		}
		return valueNamedBy(ts, j, vals)
	}
	return ""
}

// valueNamedBy returns the value of vals the word ts[k] names — the value's first word
// or its head ("5:2" of "5:2 diet", "focus" of "ford focus") — or "" (also for k out of
// ts).
func valueNamedBy(ts []token, k int, vals []string) string {
	if k < 0 || k >= len(ts) {
		return ""
	}
	tw := valueWords(strings.TrimSuffix(ts[k].low, "'s")) // "5:2" is 5, 2
	if len(tw) == 0 || len(tw) == 1 && len(tw[0]) < 2 {
		return ""
	}
	for _, v := range vals {
		ws := valueWords(v)
		if len(ws) >= len(tw) && slices.Equal(ws[:len(tw)], tw) || len(tw) == 1 && valueHead(v) == tw[0] {
			return v
		}
	}
	return ""
}

// comeOff before "off" gives up what one was on: "came off the pill".
var comeOff = wordSet(`came come coming comes got getting gets`)

// keepsOn before a verb of stopping says the thing goes on: "can't stop writing", "never
// quit".
var keepsOn = wordSet(`can't cant cannot couldn't couldnt won't wont never don't dont didn't didnt not`)

// switchVerbs change one thing for another: "switched (from A) to B", "swapped A for B",
// "replaced A with B". Only the forms that are no nouns: "a nice change to my regular
// life" switches nothing. ("moved to" is a home's, read by form elsewhere.)
var switchVerbs = wordSet(`switched switching swapped swapping changed changing transferred transferring replaced
	replacing traded trading migrated migrating`)

// rescheduleVerbs move a time: "raj moved standup to 10", "the opening got pushed to
// august". Their value must be a time, a date or a day; "moved to Lisbon" is a home's.
var rescheduleVerbs = wordSet(`moved moving pushed pushing shifted shifting bumped postponed rescheduled brought`)

var whenValue = regexp.MustCompile(`(?i)^(?:\d|` + monthName + `\b|` + dayName + `\b)`)

// objectOfSwitch reports a verb of switching whose object is the speaker: "switched me
// to", "moved us to".
func objectOfSwitch(rest []token) bool {
	for i, t := range rest[:max(len(rest)-1, 0)] {
		if (switchVerbs[t.low] || rescheduleVerbs[t.low]) && (rest[i+1].low == "me" || rest[i+1].low == "us") {
			return true
		}
	}
	return false
}

// switchValue reads the thing a clause switches to: the phrase after "to" (or "for",
// "with" after swapping, trading or replacing) within a few words of a verb of
// switching — "switched from vodafone to giffgaff", "gp switched me to rosuvastatin",
// "so... I switched to glasgow". valueMentions takes it only when the memory names a
// value of the slot, so the verb alone ties it to no slot.
func switchValue(rest []token) string {
	for i, t := range rest {
		reschedule := rescheduleVerbs[t.low]
		if !switchVerbs[t.low] && !reschedule {
			continue
		}
		for j := i + 1; j < min(len(rest), i+7); j++ {
			w := rest[j].low
			if w == "from" {
				// "moved everything from Jira to Linear": a thing moved from one to
				// another is switched, whatever its kind.
				reschedule = false
			}
			if w == "to" || !reschedule && (w == "for" || w == "with") && !strings.HasPrefix(t.low, "switch") && !strings.HasPrefix(t.low, "chang") {
				v := thingPhrase(rest[j+1:])
				if v == "" || emptyValue(v) || abstractValue(v) || reschedule && !whenValue.MatchString(v) {
					return ""
				}
				return v
			}
			if rest[j].end {
				break
			}
		}
	}
	return ""
}

// paidInto reads "<putting> N into my <thing>": the thing's attribute (one or two plain
// words) and the amount N, with its period when one follows ("putting 5% into my 401k",
// "paying 200 a month into the ISA", "we put 300 euro on the savings every month").
func paidInto(rest []token) (attr, value string) {
	for i := 0; i+4 < len(rest); i++ {
		if !paidVerbs[rest[i].low] || !amountStart(rest[i+1].low) {
			continue
		}
		j := i + 2
		for j < len(rest) && j < i+6 && !intoWords[rest[j].low] && !rest[j-1].end {
			j++
		}
		if j+2 >= len(rest) || !intoWords[rest[j].low] || rest[j+1].low != "my" && rest[j+1].low != "our" && rest[j+1].low != "the" {
			return "", ""
		}
		end := j + 2
		for end < len(rest) && end-(j+2) < 2 && alnum(rest[end].low) && !stopValue[rest[end].low] && !fillers[rest[end].low] && !rest[end-1].end {
			end++ // "pension", "401k", "isa"
		}
		if a := ownThing(rest[j+2 : end]); a != "" {
			return a, join(rest[i+1 : j])
		}
		return "", ""
	}
	return "", ""
}

var (
	paidVerbs = wordSet(`put putting puts pay paying pays save saving saves contribute contributing contributes stick sticking pop popping chuck chucking`)
	intoWords = wordSet(`into in to towards on`)
)

// calledRe reads the name the speaker asks to be called by: "you can call me Alex",
// "I'd like to go by Sasha", not "nobody calls me Alexandra".
var calledRe = regexp.MustCompile(`(?i)(?:^|\b(?:can|please|pls|just|to|and|or|rather|now|will|gonna|you|well|should)\b|,)\s*(?:call me|go by)\s+((?:(?:mr|mrs|ms|dr|prof)\.?\s+)?[\p{L}][\p{L}'-]+)`)

// owed reads a debt between the speaker and another: "Femi still owes me $500" (femi's
// owes-<speaker>, $500), "he owes me nothing now" (0), "I owe dad 300" (the speaker's
// owes-dad). The other is named, a relation, or the clause's subject; "" when the clause
// states no amount owed.
func owed(c clause, self string) (subject, attr, value string) {
	ts := c.rest
	for i := 0; i+2 < len(ts); i++ {
		if w := ts[i].low; w != "owes" && w != "owe" {
			continue
		}
		obj := ts[i+1].low
		switch {
		case obj == "me" || obj == "us":
			if c.subj == self || c.subj == "" {
				return "", "", ""
			}
			subject, attr = c.subj, "owes-"+Kebab(self)
		case c.subj == self && relations[obj] != "" && roles[obj] == "":
			subject, attr = self, "owes-"+relations[obj]
		case c.subj == self && isCapitalised(ts[i+1]) && isWord(obj) && !notName(obj):
			subject, attr = self, "owes-"+Kebab(obj)
		default:
			return "", "", ""
		}
		for _, t := range ts[i+2 : min(len(ts), i+5)] {
			switch v := strings.TrimLeft(t.low, "£$€"); {
			case v == "nothing" || v == "zero" || v == "nada":
				return subject, attr, "0"
			case isDigitStart(v):
				return subject, attr, t.orig
			}
		}
		return "", "", ""
	}
	return "", "", ""
}

// ownThing is the attribute of a thing of the speaker's named in one or two plain words
// ("pension", "401k", "savings account"): no pronoun, verb, relation, abstract or empty
// word, and no word under three letters but a number; "" when it names none.
func ownThing(words []token) string {
	if len(words) == 0 || len(words) > 2 {
		return ""
	}
	for _, t := range words {
		if w := t.low; len(w) < 3 && !isDigitStart(w) || verbForm(w) || pronouns[w] || abstractWords[w] || emptyWords[w] || relations[w] != "" {
			return ""
		}
	}
	return Kebab(join(words))
}

// switchedOwn reads "<switched> my <thing> from A to B" (or "… to B from A"): the
// attribute the thing names (a label of the table, a word that cues one attribute, or a
// thing of its own of one or two plain nouns) and B. "moved my current account from
// Barclays to Monzo" is the bank; "switched our energy from British Gas to Octopus",
// the energy supplier.
func switchedOwn(rest []token) (attr, value string) {
	for i := 0; i+4 < len(rest); i++ {
		if !movesTo(rest[i].low) || rest[i+1].low != "my" && rest[i+1].low != "our" {
			continue
		}
		j := i + 2
		for j < len(rest) && labelLeads[rest[j].low] {
			j++
		}
		end := j
		for end < len(rest) && end-j < 3 && rest[end].low != "from" && rest[end].low != "to" && !rest[end].end {
			end++
		}
		if end == j || end >= len(rest) || rest[end].low != "from" && rest[end].low != "to" {
			return "", ""
		}
		to := slices.IndexFunc(rest[end:], func(t token) bool { return t.low == "to" })
		if to < 0 || rest[end].low == "from" && !slices.ContainsFunc(rest[end+1:end+to], func(t token) bool { return isWord(t.low) }) {
			return "", ""
		}
		value = thingPhrase(rest[end+to+1:])
		if value == "" || emptyValue(value) || abstractValue(value) {
			return "", ""
		}
		thing := slices.Clone(rest[j:end]) // read as a label: "<thing>:"
		thing[len(thing)-1].colon = true
		if a, _ := labelAttr(thing); a != "" {
			if at, ok := attributeByName(a); ok && (at.kind == kindDate || at.kind == kindTime || at.kind == kindDay) {
				return "", "" // "moved my flight to may 10": a time moved, read as one
			}
			return a, value
		}
		words, _, _, _ := labelWords(thing)
		if n := len(words); n > 0 && strings.TrimSuffix(words[n-1].low, "s") == "account" && (n == 1 || accountKinds[words[n-2].low]) {
			return "bank", value // "moved my current account from …"
		}
		if a := ownThing(words); a != "" && !slices.ContainsFunc(words, func(t token) bool { return !isWord(t.low) || stopValue[t.low] }) {
			return a, value
		}
		return "", ""
	}
	return "", ""
}

// movesTo reports a verb that moves a service or an account to another provider:
// switchVerbs and rescheduleVerbs, and the base forms "switch", "change", "move".
func movesTo(w string) bool {
	return switchVerbs[w] || rescheduleVerbs[w] || w == "switch" || w == "change" || w == "move"
}

// movedFrom reports a clause that moves something from one thing to another: "moved
// everything from Jira to Linear", "migrated from dropbox to google drive".
func movedFrom(ts []token) bool {
	for i, t := range ts {
		if !rescheduleVerbs[t.low] && !switchVerbs[t.low] && t.low != "went" {
			continue
		}
		from := slices.IndexFunc(ts[i+1:min(len(ts), i+5)], func(t token) bool { return t.low == "from" })
		if from >= 0 && slices.ContainsFunc(ts[i+1+from:], func(t token) bool { return t.low == "to" }) {
			return true
		}
	}
	return false
}

// insteadValue reads "<verb> X instead" (not "instead of"): the thing phrase X, the
// one that ends at "instead" — "stopped drinking hot chocolate and now order kombucha
// instead" takes kombucha, not the thing it gave up.
func insteadValue(rest []token) string {
	for i, t := range rest {
		if t.low != "instead" || i == 0 || i+1 < len(rest) && rest[i+1].low == "of" {
			continue
		}
		// The longest span before "instead" whose phrase still ends there.
		v := ""
		for j := i - 1; j >= 0; j-- {
			p := thingPhrase(rest[j:i])
			if p == "" || !strings.HasSuffix(strings.ToLower(p), rest[i-1].low) {
				break
			}
			v = p
		}
		if v == "" || emptyValue(v) || abstractValue(v) {
			return ""
		}
		return v
	}
	return ""
}

// studyFact reads a course of study from its verb and its kind of qualification: "I'm
// doing a part time MA in history at Birkbeck" (course = "MA in history"), "she started
// a PhD in chemistry", "studying law at Leeds" (course = "law"), "decided to drop out of
// the MA" and "finished my degree" (course "MA" / "degree", negated: the study has
// ended). The qualification stays in the value so that a later "the MA" names the same
// course (SameValue). ok is false when the clause says no course.
//
// ts is the clause after its subject; bare says no subject stood before it, where an
// -ing verb first is a gerund subject ("Studying opening moves … is a great way"), no
// course.
func studyFact(ts []token, bare bool) (value string, negated, ok bool) {
	for i := 0; i < len(ts); i++ {
		w := ts[i].low
		verb, ending := studyVerbs[w], studyEnds[w]
		if !verb && !ending || i == 0 && bare && strings.HasSuffix(w, "ing") {
			continue
		}
		j := i + 1
		if w == "drop" || w == "dropped" || w == "dropping" || w == "signed" || w == "sign" {
			// "drop out of", "signed up for"
			for j < len(ts) && (ts[j].low == "out" || ts[j].low == "of" || ts[j].low == "up" || ts[j].low == "for") {
				j++
			}
		}
		for j < len(ts) && (ts[j].low == "on" || ts[j].low == "in" || ts[j].low == "onto" || ts[j].low == "into") && w == "enrolled" {
			j++
		}
		start := j
		for j < len(ts) && (determiners[ts[j].low] || studyModifiers[ts[j].low]) {
			j++
		}
		if j < len(ts) && degreeWords[strings.TrimSuffix(ts[j].low, "'s")] {
			deg := ts[j].orig
			k := j + 1
			if k+1 < len(ts) && (ts[k].low == "in" || ts[k].low == "of") {
				if field := studyField(ts[k+1:]); field != "" {
					return deg + " in " + field, ending, true
				}
			}
			return deg, ending, true
		}
		if (w == "studying" || w == "studies" || w == "studied" || w == "study" && i > 0 && (firstPerson[ts[i-1].low] || ts[i-1].low == "to")) && j == start {
			// "studying law at Leeds", "she studies medicine": the field itself.
			if field := studyField(ts[j:]); field != "" {
				return field, false, true
			}
		}
	}
	return "", false, false
}

// studyField reads a field of study up to a preposition or the clause's end, at most
// three words: "history at Birkbeck" → "history"; "for my exams", "hard" → "".
func studyField(ts []token) string {
	var out []token
	for _, t := range ts {
		if studyFieldStops[t.low] || stopValue[t.low] || len(out) == 3 {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	if len(out) == 0 || emptyValue(join(out)) || abstractValue(join(out)) {
		return ""
	}
	return strings.Trim(join(out), " ,.!")
}

var (
	// studyVerbs begin or hold a course; studyEnds end one.
	studyVerbs = wordSet(`doing do does studying study studies studied taking take takes started starting start began begin
		beginning enrolled enrolling signed sign switched switching transferred accepted got`)
	studyEnds = wordSet(`drop dropped dropping quit quitting left leaving finished finishing completed complete
		graduated deferred deferring`)
	studyModifiers = wordSet(`part-time full-time part full time online evening distance first second final year
		postgraduate undergraduate undergrad grad graduate research taught one-year two-year`)
	// degreeWords name a qualification or a course of study.
	degreeWords = wordSet(`degree masters master's ma msc ba bsc phd dphil mba llm llb pgce mphil diploma
		apprenticeship doctorate btec nvq hnd foundation bootcamp course a-levels alevels gcses`)
	studyFieldStops = wordSet(`at in for with from because but and so since while hard this next last today
		tonight now again every on`)
)

// serviceProvider reads who provides a household service, by the service's slot: "we use
// octopus for electricity", "switched electricity to EDF", "our broadband is with Sky",
// "we get our internet from BT" (attr "energy-supplier", "broadband" …, value the
// provider). Each service is a slot of its own, so a new broadband provider never
// replaces the energy supplier.
func serviceProvider(ts []token) (attr, value string) {
	for s, t := range ts {
		a := serviceWords[t.low]
		// "energy's with Octopus": the service and its verb in one word.
		contracted := false
		if stem, ok := strings.CutSuffix(t.low, "'s"); a == "" && ok && s+1 < len(ts) && (ts[s+1].low == "with" || ts[s+1].low == "through") {
			a, contracted = serviceWords[stem], true // not "the wifi's fast now"
		}
		if a == "" {
			continue
		}
		if t.low == "insurance" && s > 0 && insuranceKinds[ts[s-1].low] {
			a = ts[s-1].low + "-insurance"
		}
		e := s + 1
		for e < len(ts) && (providerNouns[ts[e].low] || serviceWords[ts[e].low] != "" || ts[e].low == "and") {
			e++ // "energy supplier", "gas and electric"
		}
		// After the service: "… is with octopus", "… to EDF", "… over to BT".
		j := e
		for j < len(ts) && (ts[j].low == "is" || ts[j].low == "'s" || ts[j].low == "are" || ts[j].low == "now" || ts[j].low == "over" || ts[j].low == "still") {
			j++
		}
		if (t.low == "remortgaged" || t.low == "remortgage" || t.low == "mortgaged") && e < len(ts) && (ts[e].low == "with" || ts[e].low == "to") {
			if v := providerName(ts[e+1:]); v != "" {
				return a, v // "remortgaged with Halifax"
			}
		}
		switchedBefore := slices.ContainsFunc(ts[max(0, s-3):s], func(t token) bool { return movesTo(t.low) })
		copula := j > e && ts[e].low != "over" && ts[e].low != "now" || contracted
		if j < len(ts) && (ts[j].low == "to" && switchedBefore || (ts[j].low == "with" || ts[j].low == "from" || ts[j].low == "through") && copula) {
			j++
		}
		if (copula || switchedBefore) && (j > e || contracted) {
			if v := providerName(ts[j:]); v != "" {
				return a, v
			}
		}
		// Before the service: "use octopus for electricity", "we're with Octopus for gas".
		k := s - 1
		for k >= 0 && (ts[k].low == "our" || ts[k].low == "my" || ts[k].low == "the" || t.low == "insurance" && insuranceKinds[ts[k].low]) {
			k--
		}
		if k >= 1 && ts[k].low == "for" {
			for i := k - 1; i >= 0 && i >= k-4; i-- {
				if w := ts[i].low; w == "use" || w == "using" || w == "with" || w == "through" || w == "on" {
					if v := providerName(ts[i+1 : k]); v != "" {
						return a, v
					}
					break
				}
			}
		}
		// "get our internet from BT"
		if k >= 0 && (ts[k].low == "get" || ts[k].low == "gets" || ts[k].low == "getting") && e < len(ts) && (ts[e].low == "from" || ts[e].low == "through" || ts[e].low == "with") {
			if v := providerName(ts[e+1:]); v != "" {
				return a, v
			}
		}
	}
	return "", ""
}

// providerName is a provider's name at the start of ts: up to three words, stopping at
// a word that is no name's ("way cheaper", "now", "for").
func providerName(ts []token) string {
	for len(ts) > 0 && (ts[0].low == "the" || ts[0].low == "a") {
		ts = ts[1:]
	}
	var out []token
	for _, t := range ts {
		if stopValue[t.low] || emptyWords[t.low] || activityAdverbs[t.low] || providerNouns[t.low] || !isWord(t.low) && !isCapitalised(t) || len(out) == 3 {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Trim(join(out), " ,.!")
}

var (
	// serviceWords name a household service and the slot of its provider.
	serviceWords = map[string]string{
		"electricity": "energy-supplier", "electric": "energy-supplier", "energy": "energy-supplier", "gas": "energy-supplier",
		"broadband": "broadband", "internet": "broadband", "wifi": "broadband", "fibre": "broadband", "fiber": "broadband",
		"mortgage": "mortgage", "remortgaged": "mortgage", "remortgage": "mortgage", "mortgaged": "mortgage", "insurance": "insurance-provider",
		"pension": "pension",
	}
	// insuranceKinds name an insurance of its own: "car insurance" is car-insurance.
	insuranceKinds = wordSet(`car home house contents pet travel health life van bike phone`)
	// providerNouns may follow a service's name: "energy supplier", "broadband provider".
	providerNouns = wordSet(`supplier suppliers provider providers company deal tariff contract plan`)
)

// frequencyFact reads how often the subject does an activity, as the slot
// "<activity>-frequency": "I run 3 times a week" (run-frequency = "3 times a week"),
// "dropped to running once a week", "I go to the gym twice a week", "swim every
// morning". The activity is the nearest activity word before the frequency; a clause
// without one ("we see my parents once a month") says none.
func frequencyFact(rest []token) (attr, value string) {
	low := strings.ToLower(join(rest))
	m := frequencyRe.FindStringIndex(low)
	if m == nil || strings.ContainsAny(low[:m[0]]+low[m[1]:], "0123456789") {
		// "runs 10 km every morning": an amount said with its period is the amount's
		// fact, the period its unit.
		return "", ""
	}
	freq := frequencyWords.Replace(strings.TrimSpace(low[m[0]:m[1]]))
	before := tokenize(low[:m[0]])
	for i := len(before) - 1; i >= 0 && i >= len(before)-4; i-- {
		w := strings.Trim(before[i].low, ",.!")
		gerund := strings.HasSuffix(w, "ing") && len(w) > 5 && !emptyWords[w] && !lightVerbs[baseVerb(strings.TrimSuffix(w, "ing"))] && !frequencyNonActivities[w] &&
			(i == 0 || !determiners[before[i-1].low] && (!placePreps[before[i-1].low] || before[i-1].low == "to")) // "in the building" is a place
		if sportWords[w] || gerund {
			return activityKey(w) + "-frequency", freq
		}
		if lightVerbs[baseVerb(w)] && i+1 < len(before) {
			// "plays piano every evening": the light verb's object.
			if o := strings.Trim(before[i+1].low, ",.!"); isWord(o) && !emptyWords[o] {
				return activityKey(o) + "-frequency", freq
			}
		}
	}
	return "", ""
}

// activityKey is an activity word's key in its slot: a sport's base form ("runs", "ran"
// → run; "tennis" stays), else eventStem's ("running" → run, "swimming" → swim).
func activityKey(w string) string {
	switch {
	case w == "ran":
		return "run"
	case sportWords[w]:
		if b := strings.TrimSuffix(w, "s"); b != w && sportWords[b] {
			return b
		}
		return w
	}
	return eventStem(w)
}

var (
	// frequencyRe is how often: "3 times a week", "once a fortnight", "twice weekly",
	// "every morning", "daily".
	frequencyRe = regexp.MustCompile(`\b(?:(?:once|twice|(?:\d+|two|three|four|five|six|seven|a couple of|a few) times)\s+(?:a|per|each|every)\s+(?:week|month|fortnight|day)|(?:once|twice|(?:\d+|two|three|four|five) times) weekly|every (?:day|morning|evening|night|weekday|weekend|other day)|daily)\b`)
	// frequencyWords write a count in digits, so that "once a week" and "1 times a week"
	// are one value and a value has a content word.
	frequencyWords = strings.NewReplacer("once", "1 time", "twice", "2 times", "a couple of times", "2 times", "two times", "2 times",
		"three times", "3 times", "four times", "4 times", "five times", "5 times", "six times", "6 times", "seven times", "7 times")
	// sportWords are activities said without -ing.
	sportWords = wordSet(`run runs ran swim swims cycle cycles climb climbs walk walks row rows train trains gym yoga pilates
		football tennis netball squash badminton golf boxing crossfit spin parkrun hockey rugby cricket basketball volleyball
		surf surfs skate skates dance dances`)
	// frequencyNonActivities end in -ing but do nothing: "I'm going", "getting", "nothing".
	frequencyNonActivities = wordSet(`going getting doing nothing something everything anything morning evening
		thing during seeing meeting having being`)
)

// transportTime reads the clock time of a regular service the subject takes: "I take the
// 8:10 train", "getting the 7:40 now", "the 6.15 bus gets me in on time" (the slot
// "<service>-time").
func transportTime(rest []token) (attr, value string) {
	for i := 0; i+1 < len(rest); i++ {
		if !clockRe.MatchString(rest[i].low) || !transportNouns[strings.Trim(rest[i+1].low, ",.!")] {
			continue
		}
		if m := clockRe.FindString(rest[i].low); strings.TrimSpace(m) == rest[i].low {
			return strings.Trim(rest[i+1].low, ",.!") + "-time", rest[i].low
		}
	}
	return "", ""
}

var transportNouns = wordSet(`train bus tram ferry coach tube boat shuttle`)

// bedtime reads when the subject goes to bed: "the kids go to bed at 7", "trying to be
// in bed by 10 now", "lights out at 9:30" (the slot "bedtime-time", as "bedtime is
// 7:30" reads by the schedule's form).
func bedtime(rest []token) string { return captured(bedtimeRe, rest) }

// wakeTime reads when the subject gets up: "I normally get up at 6:30", "with the new
// job I'm up at 5:45", "alarm's set for 6" (the slot "wake-time").
func wakeTime(rest []token) string { return captured(wakeRe, rest) }

// captured returns what re's first group captures in the words ts, in lower case and
// trimmed, or "".
func captured(re *regexp.Regexp, ts []token) string { return group1(re, strings.ToLower(join(ts))) }

// group1 returns what re's first group captures in s, trimmed, or "".
func group1(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

var wakeRe = regexp.MustCompile(`\b(?:get(?:s|ting)? up|wake(?:s)? up|waking up|(?:i'm|im|am|'m|is|'s|are|'re) up|alarm(?:'s| is)? set for|alarm goes off)\s+(?:at|around|by|for)?\s*(\d{1,2}(?::\d{2})?\s?(?:am|pm)?)\b`)

var bedtimeRe = regexp.MustCompile(`\b(?:go(?:es)? to bed|going to bed|in bed|asleep|lights out|bed)\s+(?:at|by|around|before)\s+(\d{1,2}(?::\d{2})?\s?(?:am|pm)?|midnight)\b`)

// shopAt reads where the subject does the shopping: "we shop at Aldi mostly", "doing
// the big shop at Lidl now", "get our groceries from Tesco" (the slot "supermarket").
func shopAt(rest []token) string {
	for i, t := range rest {
		if !shopWords[t.low] || i+2 >= len(rest) {
			continue
		}
		if p := rest[i+1].low; p == "at" || p == "from" || p == "in" && isCapitalised(rest[i+2]) {
			if v := providerName(rest[i+2:]); v != "" && !whenNouns[strings.ToLower(v)] && !timeNouns[strings.ToLower(v)] {
				return v
			}
		}
	}
	return ""
}

var shopWords = wordSet(`shop shops shopping groceries grocery food`)

// shareRe says that the subject lives with others: "living with", "share a flat with",
// "flatmates are".
var shareRe = regexp.MustCompile(`(?i)\b(?:(?:liv(?:e|es|ing)|share (?:a|the) (?:flat|house|place)|sharing (?:a|the) (?:flat|house|place)|flatshar(?:e|ing)|house ?shar(?:e|ing)) with|(?:flat|house|room) ?mates (?:are|r))\b`)

// housemates returns the people a clause says its subject lives with, by name: "living
// with ben and jo", "I share a flat with Omar and Priya", "flatmates are hugo and priti". A relation ("with my
// parents", "with my boyfriend") or a pet names no flatmate.
func housemates(ts []token, cased bool) []string {
	text := join(ts)
	loc := shareRe.FindStringIndex(text)
	if loc == nil {
		return nil
	}
	// The word after the match: join puts one space between words.
	at := strings.Count(text[:loc[1]], " ") + 1
	var names []string
	for i := at; i < len(ts) && len(names) < 4; {
		if !isNameAfterRelation(ts, i) || relations[ts[i].low] != "" || isPetWord(ts[i].low) || !isCapitalised(ts[i]) && (cased || verbish(ts[i].low)) {
			break
		}
		names = append(names, ts[i].orig)
		if ts[i].end || i+2 >= len(ts) || ts[i+1].low != "and" {
			break
		}
		i += 2
	}
	return names
}

// livesWithUs reports a third party who lives in the speaker's home: "my nan lives with
// us", "his mum's living with me now". (The speaker's own "I live with Tom" names a
// flatmate or a partner, no home.)
func livesWithUs(rest []token) bool {
	for i := 0; i+1 < len(rest); i++ {
		if homeVerbs[rest[i].low] && rest[i+1].low == "with" && i+2 < len(rest) && (rest[i+2].low == "us" || rest[i+2].low == "me") {
			return true
		}
	}
	return false
}

// toolUsed reads a named tool, app or service the subject uses: "my team uses Jira",
// "we use Notion for planning", "using Figma now" — a capitalised name right after the
// verb (a lower-case word after "use" is rarely a product: "use the car").
func toolUsed(rest []token) string {
	for i, t := range rest {
		if (t.low != "use" && t.low != "uses" && t.low != "using") || i+1 >= len(rest) {
			continue
		}
		if i > 0 && (rest[i-1].low == "no" || rest[i-1].low == "of" || rest[i-1].low == "the") {
			continue // "no use", "the use of"
		}
		j := i + 1
		if rest[j].low == "a" || rest[j].low == "an" {
			j++
		}
		if j < len(rest) && apposedName(rest[j]) {
			return nameAt(rest[j:])
		}
	}
	return ""
}

// namedBankRe is a bank by a name that says it is one, after a verb of joining or moving
// to it: "sister switched to EQ Bank", "banks with Metro Bank now".
var namedBankRe = regexp.MustCompile(`\b(?i:to|with|at|joined|into)\s+((?:the\s+)?\p{Lu}[\p{L}&]*(?:\s+\p{Lu}[\p{L}&]*)?\s+(?:Bank|Building Society|Credit Union))\b`)

// namedSchoolRe is a school by a name that says it is one, after a verb of starting or
// moving to it: "Leo starts at Lincoln Elementary tomorrow", "moving to Oakfield Primary".
var namedSchoolRe = regexp.MustCompile(`\b(?i:starts at|started at|starting at|start at|moving to|moved to|goes to|go to|going to|switching to|switched to|got into|got a place at|a place at)\s+((?:the\s+)?\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)?\s+(?:Elementary|Primary|High|Middle|Academy|Secondary|Grammar|Nursery|Preschool|Montessori|Junior|Infants|School))\b`)

// accountKinds are the kinds of an everyday bank account: "my chequing account is with
// TD", "my main accounts still with lloyds".

var accountKinds = wordSet(`current bank savings chequing checking main everyday day-to-day salary giro`)

// bankWith reads the subject's bank: "I bank with Barclays", "my current account is
// with Nationwide", "moved my current account to Starling", "switched banks to Monzo",
// "main bank is monzo", "moved my salary over to starling".
func bankWith(rest []token) string {
	for i, t := range rest {
		j := -1
		switch {
		case (t.low == "bank" || t.low == "banks") && i+1 < len(rest) && (rest[i+1].low == "with" || rest[i+1].low == "at"):
			j = i + 2 // "bank with Barclays", "chris banks with starling"
		case t.low == "bank" && i+1 < len(rest) && (rest[i+1].low == "is" || rest[i+1].low == "'s") && (i == 0 || rest[i-1].low == "main" || rest[i-1].low == "my"):
			j = i + 2 // "main bank is monzo"
		case (t.low == "account" || t.low == "accounts") && i > 2 && (rest[i-2].low == "a" || rest[i-2].low == "an") && (rest[i-3].low == "opened" || rest[i-3].low == "open" || rest[i-3].low == "opening") && isCapitalised(rest[i-1]):
			// "opened a Tangerine account and moved my pay over"
			return providerName(rest[i-1 : i])
		case (strings.TrimSuffix(strings.TrimSuffix(t.low, "'s"), "s") == "account" && i > 0 && accountKinds[rest[i-1].low]) || t.low == "salary" && slices.ContainsFunc(rest[:i], func(u token) bool { return movesTo(u.low) }):
			k := i + 1
			for k < len(rest) && (rest[k].low == "is" || rest[k].low == "'s" || rest[k].low == "now" || rest[k].low == "over" || rest[k].low == "still") {
				k++
			}
			if k < len(rest) && (rest[k].low == "with" || rest[k].low == "at" || rest[k].low == "to") {
				j = k + 1
			}
		case t.low == "banks" && i > 0 && movesTo(rest[i-1].low) && i+1 < len(rest) && rest[i+1].low == "to":
			j = i + 2 // "switched banks to Monzo"
		case (t.low == "with" || t.low == "w" || t.low == "into" || t.low == "to") && i+1 < len(rest):
			// A bank known by its name: "been with Barclays since I was sixteen", "salary
			// goes into barclays", "shona moved to Monzo too".
			if n := knownBank(rest[i+1:]); n != "" && (t.low == "with" || t.low == "w" || !bankPlaces[strings.ToLower(n)] || slices.ContainsFunc(rest, func(u token) bool { return bankContext[u.low] })) {
				return n // "relocated to Halifax" is a move, "moved my account to Halifax" a bank
			}
		}
		if j >= 0 && j < len(rest) {
			if v := providerName(rest[j:]); v != "" {
				return v
			}
		}
	}
	return ""
}

// bankNames are banks known by name alone, in lower case, by their first word (the rest
// of a longer name after a space): a bank's name need not say "bank".
var bankNames = map[string][]string{
	"barclays": {""}, "monzo": {""}, "starling": {""}, "nationwide": {""}, "hsbc": {""}, "lloyds": {""}, "natwest": {""},
	"santander": {""}, "halifax": {""}, "tsb": {""}, "revolut": {""}, "first": {"direct"}, "metro": {"bank"}, "virgin": {"money"},
	"chase": {""}, "n26": {""}, "ing": {""}, "sparkasse": {""}, "commerzbank": {""}, "deutsche": {"bank"}, "bbva": {""},
	"caixabank": {""}, "rabobank": {""}, "abn": {"amro"}, "bunq": {""}, "wells": {"fargo"}, "citibank": {""}, "capital": {"one"},
	"schwab": {""}, "scotiabank": {""}, "tangerine": {""}, "nubank": {""}, "kbc": {""}, "bnp": {"paribas"}, "unicredit": {""},
	"pko": {""}, "mbank": {""}, "openbank": {""}, "dkb": {""}, "comdirect": {""}, "postbank": {""}, "volksbank": {""},
	"raiffeisen": {""}, "nordea": {""}, "danske": {"bank"}, "handelsbanken": {""}, "swedbank": {""}, "aib": {""},
	"hdfc": {""}, "icici": {""}, "kotak": {""}, "dbs": {""}, "ocbc": {""}, "uob": {""}, "maybank": {""}, "commbank": {""},
	"westpac": {""}, "anz": {""}, "kiwibank": {""}, "cahoot": {""}, "chime": {""}, "ally": {"bank"}, "wise": {""},
}

// bankPlaces are banks' names that are places too: after "to" a bank only in words of
// banking (bankContext).
var (
	bankPlaces  = wordSet(`halifax santander`)
	bankContext = wordSet(`bank banks banking account accounts salary savings current switched switch card cards isa mortgage pay`)
)

// knownBank returns the bank ts opens with (bankNames), as written; "chase", "wise" and
// "ing", words too, only with a capital.
func knownBank(ts []token) string {
	if len(ts) == 0 {
		return ""
	}
	if ts[0].low == "the" && len(ts) > 1 {
		ts = ts[1:]
	}
	rests, ok := bankNames[ts[0].low]
	if !ok || (ts[0].low == "chase" || ts[0].low == "wise" || ts[0].low == "ing") && !isCapitalised(ts[0]) {
		return ""
	}
	for _, r := range rests {
		if r == "" {
			return ts[0].orig
		}
		if len(ts) > 1 && ts[1].low == r {
			return ts[0].orig + " " + ts[1].orig
		}
	}
	return ""
}

// carOwned reads a car by its make: "we've got an old VW Polo", "she drives a little
// fiat 500", "leased a Kia Niro" — a verb of having or getting, then the make and what
// follows it (the model), at most three words.
func carOwned(rest []token) string {
	for i, t := range rest {
		j := i + 1
		switch {
		case carVerbs[t.low]:
		case switchVerbs[t.low] || t.low == "upgraded" || t.low == "upgrading":
			// "upgraded the fiat to a honda jazz", "swapped the Volvo for a Tesla": the
			// car after "to" or "for".
			k := slices.IndexFunc(rest[j:min(len(rest), j+5)], func(t token) bool { return t.low == "to" || t.low == "for" })
			if k < 0 {
				continue
			}
			j += k + 1
		case (t.low == "car" || t.low == "car's") && j < len(rest) && (rest[j].low == "is" || t.low == "car's"):
			if t.low == "car" {
				j++ // "mum's car is a little fiat 500"
			}
		default:
			continue
		}
		for j < len(rest) && (determiners[rest[j].low] || carModifiers[rest[j].low]) {
			j++
		}
		if j < len(rest) && carMakes[strings.Trim(rest[j].low, ",.!")] && (isCapitalised(rest[j]) || !commonMakes[rest[j].low]) {
			var out []token
			for _, m := range rest[j:] {
				if len(out) == 3 || stopValue[m.low] || emptyWords[m.low] || timeNouns[m.low] {
					break
				}
				out = append(out, m)
				if m.end {
					break
				}
			}
			return strings.Trim(join(out), " ,.!")
		}
	}
	return ""
}

var (
	// commonMakes are makes that are words too ("a mini fridge"): only in capitals.
	commonMakes  = wordSet(`mini seat smart jeep`)
	carVerbs     = wordSet(`got get gets have has had drive drives driving bought buy leased lease leasing own owns picked`)
	carModifiers = wordSet(`old new little second-hand secondhand used tiny trusty red blue black white silver grey green electric hybrid`)
	// carMakes are makes of car people name their cars by.
	carMakes = wordSet(`vw volkswagen ford toyota honda nissan kia hyundai vauxhall opel fiat renault peugeot citroen
		skoda seat audi bmw mercedes merc volvo mazda mini tesla jaguar landrover suzuki subaru mitsubishi dacia
		lexus porsche alfa polestar byd mg cupra jeep chevy chevrolet dodge saab smart`)
)

// workIn reads a line of work: "Ollie works in finance", "I work in marketing" (the job
// slot: a job title later replaces it).
func workIn(ts []token) string {
	for i := 0; i+2 < len(ts); i++ {
		if workVerbs[ts[i].low] && ts[i+1].low == "in" && workFields[strings.Trim(ts[i+2].low, ",.!")] {
			return strings.Trim(ts[i+2].low, ",.!")
		}
	}
	return ""
}

var workFields = wordSet(`finance marketing retail hr it tech sales construction hospitality healthcare education law
	insurance banking consulting accounting advertising publishing media logistics manufacturing engineering pharma
	research recruitment admin software fashion property catering pr comms events nursing social care`)

// readingBook reads the book the subject is reading: "I'm reading Dune at the minute"
// (book = Dune), "finished Dune, on to Project Hail Mary" (Dune ended), "started
// Piranesi" after a book. A title is capitalised.
func readingBook(ts []token) (value string, negated bool) {
	for i := 0; i+1 < len(ts); i++ {
		w := ts[i].low
		if w != "reading" && w != "finished" && w != "started" && w != "on" && w != "abandoned" {
			continue
		}
		j := i + 1
		if w == "on" && ts[j].low != "to" {
			continue
		}
		if w == "on" || w == "finished" && ts[j].low == "reading" {
			j++
		}
		for j < len(ts) && (ts[j].low == "the" && i > 0) {
			j++
		}
		if j < len(ts) && apposedName(ts[j]) {
			// The title: its capitalised words ("Project Hail Mary", "The Midnight
			// Library").
			k := j + 1
			for k < len(ts) && k < j+6 && (isCapitalised(ts[k]) || ts[k].low == "of" || ts[k].low == "the") && !ts[k-1].end {
				k++
			}
			title := strings.Trim(join(ts[j:k]), " ,.!")
			if w != "reading" && k < len(ts) && !ts[k-1].end {
				// "finished Dune, on to …": after finishing or starting, the title is the
				// whole object; "finished "A Dance with Dragons" and …" cut short is none.
				continue
			}
			if w == "started" || w == "on" {
				if i > 0 && ts[i-1].low != "just" && ts[i-1].low != "i" && ts[i-1].low != "i've" && ts[i-1].low != "," && !ts[i-1].end && w == "started" {
					continue
				}
			}
			return title, w == "finished" || w == "abandoned"
		}
	}
	return "", false
}

// drugRe is a medicine by its generic name — the endings of the international
// nonproprietary names' stems (amlodipine, ramipril, atorvastatin, omeprazole, sertraline,
// citalopram, prednisolone, …) — or by one of the common names that have no such ending.
var drugRe = regexp.MustCompile(`(?i)\b(?:[a-z]{3,}(?:dipine|apine|azepine|pril|sartan|statin|olol|azole|cillin|mycin|cycline|floxacin|tidine|formin|gliptin|gliflozin|oxetine|opram|traline|triptan|zepam|zolam|profen|fenac|olone|isone|lukast|tropium|xaban|gatran|parin|farin|semide|thiazide|setron|dronate|thyroxine|adone|tadine|glutide|zepatide)|paracetamol|aspirin|insulin|lantus|levemir|tresiba|novorapid|humalog|codeine|morphine|tramadol|naproxen|melatonin|warfarin|ventolin|salbutamol|amitriptyline|gabapentin|pregabalin|lithium|ritalin|methylphenidate|prozac|zoloft|wegovy|ozempic|mounjaro|finasteride|minoxidil|the pill|` +
	`vitamin (?:d3?|b12|c)|folic acid|omega[- ]3|magnesium|iron tablets|cetirizine|hydroxyzine|fexofenadine|clenil|fostair|symbicort|seretide|qvar)\b`)

// allergyRe before a medicine makes it an allergy.
var allergyRe = regexp.MustCompile(`(?i)\b(?:allergic|allergy|allergies|reaction)\b`)

// drugConfidence is the confidence of a medicine read by its name.
const drugConfidence = 0.9

// loneDose gives the one medicine a memory names the one dose it states in a clause
// of its own: "started sertraline today, 50mg" (drugFacts reads a dose beside the name
// only). Two medicines, or two doses, leave it unread. A dose read for a medicine the
// memory does not name is dropped first.
func loneDose(p prepared, fs []Fact) []Fact {
	text, words := p.text(), p.words()
	// A dose of a medicine the memory does not name, beside one it does ("the GP's added
	// amlodipine, 5mg at night" after levothyroxine 50mcg), is the named one's.
	fs = slices.DeleteFunc(fs, func(f Fact) bool { return unnamedDose(f.Attribute, text, words) })
	var med *Fact
	for i, f := range fs {
		switch {
		case strings.HasSuffix(f.Attribute, doseSuffix):
			return fs
		case f.Attribute == "medication" && !f.Negated && drugRe.MatchString(f.Value):
			// (A medicine named by its stem: "allergic", read by meaning, takes no dose.)
			if med != nil {
				return fs
			}
			med = &fs[i]
		}
	}
	if med == nil {
		return fs
	}
	ds := doseUnits.FindAllString(text, 2)
	if len(ds) != 1 {
		return fs
	}
	d := *med
	d.Attribute, d.Value = Kebab(med.Value)+doseSuffix, ds[0]
	return append(fs, d)
}

// oneDose gives a dose told without its medicine ("the gp bumped me up to 100mg", "it's
// 2000 IU") to the subject's one medicine with a dose slot (values' keys), when the
// subject has one: a fact read as a bare dose, or the one dose the text states when the
// memory names no medicine and no fact of that slot.
func oneDose(p prepared, fs []Fact, values map[string][]string) []Fact {
	only := func(subj string) string {
		var attr string
		for k := range values {
			s, a, _ := strings.Cut(k, "/")
			if s != subj || !strings.HasSuffix(a, doseSuffix) || a == "dose" {
				continue
			}
			if attr != "" && attr != a {
				return ""
			}
			attr = a
		}
		return attr
	}
	told := false
	for i, f := range fs {
		if a := only(f.Subject); Kebab(f.Attribute) == "dose" && a != "" {
			fs[i].Attribute = a
		}
		told = told || strings.HasSuffix(fs[i].Attribute, doseSuffix) || fs[i].Attribute == "medication"
	}
	if text := p.text(); told || drugRe.MatchString(text) || len(doseUnits.FindAllString(text, 2)) != 1 {
		return fs
	}
	for _, c := range p.clauses {
		// The clause that states the dose says whose: "mum is the one on 1000 IU".
		if d := doseUnits.FindString(c.text); d != "" {
			if a := only(c.subj); a != "" {
				fs = append(fs, Fact{Subject: c.subj, Attribute: a, Value: d})
			}
			break
		}
	}
	return fs
}

// unnamedDose reports a medicine's dose slot (attr) whose medicine a text that names a
// medicine does not name (words: the text's words, as prepared.words gives them): "the
// GP's added amlodipine, 5mg" says no levothyroxine dose.
func unnamedDose(attr, text, words string) bool {
	drug, isDose := strings.CutSuffix(attr, doseSuffix)
	return isDose && drugRe.MatchString(text) && !mentions(words, drug)
}

// reportingVerbs report what someone else (never the speaker) confirmed or announced,
// read like "says": "HR confirmed my new title is Senior Analyst".
var reportingVerbs = wordSet(`confirmed confirms announced announces`)

// tellingVerbs tell the speaker something: "mum told me", "she texted me" (a subject's
// reported speech, people.subject; no act on the speaker's own, drugFacts).
var tellingVerbs = wordSet(`told tells texted messaged`)

// actsOnMe reports words where someone acts on the speaker ("me"), but for telling them
// something: "the gp put me on sertraline", "Chiara moved me up to B1", "they've moved me
// onto nights"; not "mum told me she's on sertraline". The state is the speaker's.
func actsOnMe(ts []token) bool {
	for i, t := range ts {
		if t.low == "me" && (i == 0 || !tellingVerbs[ts[i-1].low]) {
			return true
		}
	}
	return false
}

// drugFacts reads the medicines a clause names: each a "medication" fact (several at
// once), negated when given up ("came off the amlodipine onto ramipril 2.5mg": the one
// ends, the other starts), with its dose beside it as a fact of its own slot per
// medicine ("amlodipine-dose"), so that one medicine's dose never replaces another's.
// The speaker's when the clause puts "me" on it ("the gp's put me on …").
func drugFacts(c clause, self string, base Fact) []Fact {
	var out []Fact
	text := c.text
	subj := c.subj
	if self != "" && actsOnMe(c.toks) {
		subj = self // "the gp put me on sertraline"; not "mum told me she's on sertraline"
	}
	for _, ix := range drugRe.FindAllStringIndex(text, -1) {
		name := strings.ToLower(text[ix[0]:ix[1]])
		before := strings.Fields(strings.ToLower(text[max(0, ix[0]-30):ix[0]]))
		neg := false
		for k := len(before) - 1; k >= max(0, len(before)-3); k-- {
			// Given up: "stopped the statin", "swapped me off the amlodipine", "no longer on
			// lantus", "amoxicillin not penicillin".
			if stopVerbs[before[k]] || before[k] == "off" || before[k] == "longer" || before[k] == "not" {
				neg = true
			}
			if before[k] == "onto" || before[k] == "on" && k > 0 && before[k-1] != "longer" || before[k] == "to" {
				break // "off the amlodipine onto ramipril": ramipril starts
			}
		}
		// Certain enough for a version group, yet not read by form (Confidence 0): a
		// switch told by the slot's values ("switched me to rosuvastatin, the
		// atorvastatin was giving me cramps", valueMentions) still ends the old one.
		f := base
		f.Subject, f.Attribute, f.Value, f.Negated, f.Scope, f.Confidence = subj, "medication", name, neg || base.Negated && len(out) == 0, "", drugConfidence
		allergy := allergyRe.MatchString(text[:ix[0]])
		if allergy {
			f.Attribute = "allergy" // "i'm allergic to penicillin": no medicine taken
		}
		out = append(out, f)
		if f.Negated || allergy {
			continue
		}
		dose := ""
		if m := doseUnits.FindStringIndex(text[ix[1]:min(len(text), ix[1]+12)]); m != nil && m[0] <= 2 {
			dose = text[ix[1]+m[0] : ix[1]+m[1]] // "ramipril 2.5mg"
		} else if ms := doseUnits.FindAllStringIndex(text[:ix[0]], -1); len(ms) > 0 {
			switch m := ms[len(ms)-1]; strings.Join(strings.Fields(strings.ToLower(text[m[1]:ix[0]])), " ") {
			case "of", "of the", "of my", "of his", "of her", "of their", "of your":
				dose = text[m[0]:m[1]] // "10 units of lantus", "100mg of the sertraline"
			}
		}
		if dose != "" {
			d := f
			d.Attribute, d.Value = Kebab(name)+doseSuffix, dose
			out = append(out, d)
		}
	}
	return out
}

// endedDoses ends the dose of each medicine a fact of fs gives up ("she's stopping the
// atorvastatin"): the medicine's own dose slot (values: knownValues) holds its last dose
// no longer, so that "the atorvastatin goes up to 40mg" is history once the medicine is.
func endedDoses(fs []Fact, values map[string][]string) []Fact {
	var out []Fact
	for _, f := range fs {
		if !f.Negated || f.Attribute != "medication" {
			continue
		}
		d := f
		d.Attribute = Kebab(f.Value) + doseSuffix
		vals := values[d.Slot()]
		same := func(g Fact) bool { return g.Slot() == d.Slot() }
		if len(vals) == 0 || slices.ContainsFunc(fs, same) || slices.ContainsFunc(out, same) {
			continue
		}
		d.Value = vals[0]
		out = append(out, d)
	}
	return out
}

// A loyalty scheme's tier: "FINALLY silver on ba exec club", "Skyward knocked me down to
// Silver", "made Flying Blue Silver this week", "Dele is Platinum again", "delta gold
// medallion this yr". The tier is one state of its holder whatever the scheme (most
// people chase one), so every scheme's tier is one slot, loyalty-status.
var (
	tierWords = wordSet(`bronze silver gold platinum diamond titanium`)
	// loyaltyRe: words of a scheme around the tier in its clause.
	loyaltyRe = regexp.MustCompile(`(?i)\b(?:status|tier|club|lounges?|miles|avios|points|medallion|skywards?|flying blue|exec(?:utive)?|upgrad\w*|downgrad\w*|frequent flyer|elite|qualifying|scheme|loyalty|member(?:ship)?|bonvoy|honors|flights?|flew|flying|airline|trips)\b`)
	// tierLeads: a word before the tier (past the scheme's name) that says someone holds
	// it or moved to it.
	tierLeads = wordSet(`hit made reached earned kept keep regained got to is am im i'm still now again finally not`)
	// tierNouns: a thing after the tier word that makes it a material or an award.
	tierNouns = wordSet(`card cards medal medals ring rings star stars chain necklace coast mine rush standard fish foil plated tooth crown earrings earring watch jewellery jewelry leaf paint glitter bar bars plan package award`)
)

// loyaltyTier reads a tier said of the clause's subject (or of the speaker, whom a
// scheme moved: "BA downgraded me to Blue"), in title case; the clause's negation is
// the fact's ("not gold anymore").
func loyaltyTier(c clause, self string) (subj, tier string) {
	ts := c.toks
	for i, t := range ts {
		blue := t.low == "blue" && i > 0 && ts[i-1].low == "to" && loyaltyRe.MatchString(c.text)
		if !tierWords[t.low] && !blue {
			continue
		}
		if i+1 < len(ts) && tierNouns[ts[i+1].low] {
			return "", "" // "gold medal", "an amex gold card"
		}
		j := i - 1
		for j >= 0 && isCapitalised(ts[j]) && !tierLeads[ts[j].low] || j >= 0 && (ts[j].low == "on" || ts[j].low == "ba" || ts[j].low == "exec") && j < i-1 {
			j-- // the scheme's name before the tier: "made Flying Blue Silver"
		}
		lead := j >= 0 && tierLeads[ts[j].low] && !(j > 0 && (ts[j-1].low == "amex" || ts[j-1].low == "card"))
		if j >= 0 && (ts[j].low == "amex" || ts[j].low == "a" || ts[j].low == "an" || ts[j].low == "the" || ts[j].low == "of") {
			return "", "" // "an Amex Gold", "the gold one"
		}
		if !lead && !loyaltyRe.MatchString(c.text) {
			return "", ""
		}
		subj = c.subj
		if actsOnMe(ts[:i]) {
			subj = self // "Skyward knocked me down to Silver"
		}
		if ft := skipFillers(ts); len(ft) > 1 && c.subj == Kebab(ft[0].low) && (ft[1].low == "status" || ft[1].low == "tier") {
			subj = self // "hilton status is Gold": the scheme names the speaker's tier
		}
		if subj == "" {
			return "", ""
		}
		return subj, strings.ToUpper(t.low[:1]) + t.low[1:]
	}
	return "", ""
}
