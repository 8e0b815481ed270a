package facts

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/atma-dev/atma/internal/words"
)

var (
	moneyRe   = regexp.MustCompile(`(?i)(?:[£$€]\s?)?\d[\d,]*(?:\.\d+)?(?:\s?(?:k\b|mg\b|km\b|kg\b|gb\b|tb\b|hours?\b|hrs?\b|minutes?\b|mins?\b|%|euros?\b|quid\b|pounds?\b|dollars?\b))?`)
	perRe     = regexp.MustCompile(`(?i)^\s*(?:a|an|per|each|every)\s+(?:month|year|week|day|night|hour)|^\s*(?:mg|km|hours?|minutes?|mins?)`)
	phoneRe   = regexp.MustCompile(`\+?\d{3,5}(?:[ -]\d{3,6}){1,3}`)
	clockRe   = regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}\s?(?:am|pm)?|\b\d{1,2}\s?(?:am|pm)\b|\bnoon\b|\bmidnight\b`)
	emailRe   = regexp.MustCompile(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)
	monthName = `(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	dateRe    = regexp.MustCompile(`(?i)\b` + monthName + `\s+\d{1,2}(?:st|nd|rd|th)?\b(?:\s+to\s+\d{1,2})?|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthName + `\b|\bthe\s+\d{1,2}(?:st|nd|rd|th)\b|\b` + monthName + `\b`)
	dayName   = `(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?|weekends?|weekdays?)`
	daysRe    = regexp.MustCompile(`(?i)\b` + dayName + `(?:(?:\s*,\s*|\s+and\s+|\s+|\s+to\s+|\s*[-–]\s*)(?:` + dayName + `))*\b`)
	addressRe = regexp.MustCompile(`(?i)\b(?:flat\s+\d+[a-z]?,?\s+)?\d+[a-z]?\s+(?:[a-z]+\s+){1,2}(?:street|road|lane|avenue|close|drive|way|court|place|view|square|crescent|terrace|gardens|st|rd|ave)\b`)
	yearRe    = regexp.MustCompile(`^(?:19|20)\d\d$`)
)

// stopValue words end a value phrase.
var stopValue = map[string]bool{
	"ngl": true, "imo": true, "lmao": true, "lmfao": true, "istg": true,
	"for": true, "with": true, "and": true, "but": true, "because": true, "since": true, "now": true, "today": true, "yesterday": true,
	"last": true, "next": true, "this": true, "tonight": true, "too": true, "as": true, "well": true, "lol": true, "which": true, "where": true,
	"that": true, "so": true, "after": true, "before": true, "until": true, "till": true, "by": true, "is": true, "are": true, "was": true,
	"from": true, "every": true, "each": true, "again": true, "already": true, "though": true, "anymore": true, "any": true, "though,": true,
	"btw": true, "tbh": true, "honestly": true, "either": true, "instead": true, "if": true, "when": true, "while": true, "like": true, "though.": true,
	"who": true, "he": true, "she": true, "they": true, "we": true, "i": true, "it": true, "its": true, "it's": true, "not": true, "only": true, "except": true,
	"on": true, "at": true, "in": true, "to": true, "into": true, "near": true, "of": true, "or": true, "about": true, "just": true, "still": true, "thank": true,
	"his": true, "her": true, "my": true, "our": true, "their": true, "the": false, "a": false, "starting": true, "during": true, "per": true, "officially": true,
}

// leadValue words are dropped at the start of a value.
var leadValue = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "new": true, "some": true, "his": true, "her": true, "their": true, "your": true, "called": true, "named": true, "now": true, "just": true, "really": true, "so": true, "officially": true, "also": true, "still": true, "back": true, "up": true, "actually": true, "like": true, "basically": true, "about": true, "around": true, "at": true, "on": true, "used": true, "old": false}

// phrase takes a value phrase from ts: up to four words, dropping leading articles and
// stopping at a stop word or a clause boundary.
func phrase(ts []token) string {
	for len(ts) > 0 && leadValue[ts[0].low] {
		ts = ts[1:]
	}
	var out []token
	for _, t := range ts {
		if stopValue[t.low] || len(out) >= 4 {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	return join(out)
}

// doseOfRe is a dose followed by its drug: "40mg of omeprazole", "500 mg of metformin".
var doseOfRe = regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:mg|mcg|ml|g)\s+of\s+([a-z][a-z-]+)`)

// languages are the names of languages people learn and speak, by which a language
// value is read wherever it stands in the clause.
var languages = wordSet(`english french spanish german italian portuguese dutch swedish norwegian danish finnish
	icelandic polish czech slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian croatian
	arabic hebrew persian farsi urdu hindi bengali punjabi tamil telugu marathi gujarati japanese korean chinese
	mandarin cantonese vietnamese thai indonesian malay tagalog swahili welsh irish gaelic latin esperanto catalan
	basque galician yoruba igbo hausa amharic somali zulu afrikaans`)

// anchors are words after which a value usually follows.
var anchors = map[string]bool{
	"is": true, "'s": true, "am": true, "i'm": true, "im": true, "are": true, "as": true, "went": true, "been": true, "become": true, "became": true,
	"to": true, "on": true, "into": true, "called": true, "named": true, "drink": true, "drinks": true, "eat": true, "eats": true, "play": true,
	"plays": true, "playing": true, "doing": true, "studying": true, "study": true, "study:": true, "up": true, "joined": true, "bought": true, "got": true,
	"for": false, "with": true, "at": true, "in": true, "switched": true, "takes": true, "take": true, "support": true, "supports": true, "watch": true,
	"drive": true, "drives": true, "driving": true, "love": true, "loves": true, "like": true, "likes": true, "hate": true, "stand": true, "of": true,
	"prefer": true, "using": true, "use": true, "through": true, "now": true, "adopted": true, "booked": true, "picked": true, "started": true,
	// Verbs of starting and stopping: the value is what follows ("stopped the melatonin",
	// "trying melatonin", "cancelled google one"); the change itself is the fact's polarity.
	"trying": true, "tried": true, "stopped": true, "quit": true, "cancelled": true, "canceled": true, "dropped": true, "ditched": true,
	"sold": true, "rehomed": true, "off": true, "nicked": true, "stole": true, "pinched": true, "began": true, "taking": true, "took": true, "upgraded": true, "downgraded": true, "swapped": true,
}

// value picks the value of attr from the clause tokens ts (the words after the
// subject; all holds the whole clause for patterns that span it).
func value(attr attribute, ts, all []token, role string) string {
	text := join(all)
	if attr.name == "medication" {
		// "I'm on 40mg of omeprazole": the drug, not its dose (an attribute of its own).
		if m := doseOfRe.FindStringSubmatch(text); m != nil {
			return m[1]
		}
	}
	if attr.name == "allergy" || attr.name == "intolerance" {
		// "I am NOT allergic to shellfish": what follows "allergic to", not "allergic".
		for i, t := range ts[:max(len(ts)-1, 0)] {
			if (strings.HasPrefix(t.low, "allergic") || strings.HasPrefix(t.low, "intolerant")) && ts[i+1].low == "to" {
				if v := thingPhrase(skipDeterminers(ts[i+2:])); v != "" {
					return v
				}
			}
		}
	}
	if attr.name == "language" {
		// "learning french on duolingo": the language, not the app.
		for _, t := range ts {
			if languages[strings.TrimSuffix(t.low, "'s")] {
				return t.orig
			}
		}
	}
	switch attr.kind {
	case kindNumber:
		if attr.units != nil && !attr.units.MatchString(text) {
			return "" // "4 nights in kyoto" is no sleep: the amount is said with its unit
		}
		if attr.name == "phone-number" {
			if m := phoneRe.FindString(text); m != "" {
				return m
			}
		}
		if attr.name == "age" && !ageRe.MatchString(text) {
			// "sorry i meant 40, not 14" is no age: an age is said as one.
			return ""
		}
		if v := number(text); v != "" {
			return v
		}
		if attr.name == "kids" {
			// A count written out counts things only where the attribute is a count
			// ("two kids"); "two trams" is no commute.
			if v := countWord(text); v != "" {
				return v
			}
		}
	case kindTime:
		if m := clockRe.FindString(text); m != "" {
			return strings.TrimSpace(m)
		}
	case kindDate:
		if m := dateRe.FindString(text); m != "" {
			return m
		}
	case kindDay:
		if m := daysRe.FindString(text); m != "" {
			return m
		}
	case kindPlace:
		if m := addressRe.FindString(text); m != "" {
			return m
		}
		if v := after(ts, []string{"in", "to", "into", "at", "on", "near", "from"}, true); v != "" {
			return v
		}
	case kindPerson:
		if v := named(ts); v != "" {
			return v
		}
	case kindOrg:
		if attr.name == "sports-team" {
			// "she supports spurs purely to wind me up": the side follows the verb.
			if v := after(ts, []string{"supports", "support", "supporting", "supported"}, true); v != "" {
				return nameRun(tokenize(v))
			}
		}
		if v := named(ts); v != "" {
			return v
		}
		if v := after(ts, []string{"at", "for", "with", "to", "joined", "on", "through", "in", "into"}, true); v != "" {
			return v
		}
	}
	if attr.name == "email" {
		if m := emailRe.FindString(text); m != "" {
			return m
		}
	}
	switch attr.kind {
	case kindNumber, kindTime, kindDate, kindDay:
		// A typed value that is not in the clause is not there: no phrase stands in.
		return ""
	}
	if v := capitalised(ts); v != "" {
		return v
	}
	if attr.kind == kindPerson || attr.kind == kindOrg || attr.kind == kindPlace {
		if v := after(ts, []string{"in", "to", "into", "at", "with", "for", "is", "'s", "called", "named"}, false); v != "" {
			if r, _ := utf8.DecodeRuneInString(v); attr.kind == kindPerson && unicode.IsDigit(r) {
				return "" // "my dose is 50mg": an amount is nobody
			}
			return v
		}
	}
	for i, t := range ts {
		if anchors[t.low] || strings.HasSuffix(t.low, "'s") && i == 0 {
			// "quit my job": what follows the verb only names the attribute, and the
			// clause's own words say more.
			if v := thingPhrase(ts[i+1:]); v != "" && !namesAttribute(Fact{Attribute: attr.name, Value: v}) {
				return v
			}
		}
	}
	return thingPhrase(ts)
}

// thingPhrase is phrase past the verbs that open ts: "do medicine" → "medicine", "got
// bumped to senior backend developer" → "senior backend developer"; a verb with nothing
// after it gives "" ("signing up").
func thingPhrase(ts []token) string {
	for range 3 {
		for len(ts) > 0 && leadValue[ts[0].low] {
			ts = ts[1:]
		}
		if len(ts) < 2 || !verbForm(ts[0].low) {
			break
		}
		ts = ts[1:]
		for len(ts) > 0 && particles[ts[0].low] {
			ts = ts[1:]
		}
		if len(ts) == 0 {
			return ""
		}
	}
	return phrase(ts)
}

// verbForm reports a word that opens a verb phrase: an everyday verb, an auxiliary, or
// a past or -ing form ("bumped", "signing") that names no thing.
func verbForm(w string) bool {
	switch {
	case verbWords[w], auxiliaries[w]:
		return true
	case len(w) >= 5 && strings.HasSuffix(w, "ed"):
		return true
	case len(w) >= 5 && strings.HasSuffix(w, "ing") && !ingNouns[w]:
		return true
	}
	return false
}

var (
	auxiliaries = wordSet(`have has had be been being do does did can could will would should may might must gonna wanna`)
	// particles follow a verb before its object: "bumped to", "signing up for".
	particles = wordSet(`to for up into as on off out over with`)
)

// The units an amount of an attribute is said with (attribute.units): hours of sleep, a
// dose, minutes of commute, a distance run, a height.
var (
	sleepUnits    = regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:hours?|hrs?|h)\b`)
	doseUnits     = regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml|g|milligrams?|micrograms?|units?|iu|puffs?|tablets?|pills?|drops?)\b`)
	commuteUnits  = regexp.MustCompile(`(?i)\b\d+\s?(?:-\s?)?(?:min|mins|minutes?|hours?|hrs?|h)\b`)
	distanceUnits = regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:k|km|kms|kilometres?|kilometers?|miles?|mi)\b`)
	heightUnits   = regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:cm|m|foot|feet|ft|inch|inches|in)\b|\b(?:five|six|four) (?:foot|feet)\b`)
)

// countRe is a small number written out before the things it counts: "two kids",
// "three children", "four cats". Units of time, distance and money are no things
// counted ("three weeks off", "five miles").
var countRe = regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+([a-z]+s|children|people|men|women|geese|mice)\b`)

var countUnits = wordSet(`seconds minutes mins hours hrs days nights mornings evenings weekends weeks months years times miles
	kilometres kilometers kms metres meters steps laps sets reps pounds quid euros dollars bucks pence cents grand goes ways`)

// counts are countRe's numbers, each at its value.
var counts = strings.Fields("zero one two three four five six seven eight nine ten eleven twelve")

// countWord returns the number a count written out says, in digits ("two kids" → "2").
func countWord(text string) string {
	for _, m := range countRe.FindAllStringSubmatch(text, -1) {
		if !countUnits[strings.ToLower(m[2])] {
			return strconv.Itoa(slices.Index(counts, strings.ToLower(m[1])))
		}
	}
	return ""
}

// ageRe is how an age is said: "34 years old", "turned 40", "aged 9", "I'm 34" ("it's
// 21 not 12" is no age).
var ageRe = regexp.MustCompile(`(?i)\b(?:years? old|turn(?:ed|s|ing)|birthday|aged?)\b|(?:\bi'm|\bim|\bi am)\s+\d{1,3}\b`)

// number picks the amount of a clause: one with a unit or a period ("25 a month") over
// one with a currency sign over a bare one; never a year, a clock time or a date's day.
func number(text string) string {
	best, bestRank := "", -1
	for _, ix := range moneyRe.FindAllStringIndex(text, -1) {
		m := strings.TrimSpace(text[ix[0]:ix[1]])
		if ix[0] > 0 && (text[ix[0]-1] == ':' || isAlnum(text[ix[0]-1])) {
			continue
		}
		if ix[1] < len(text) && (text[ix[1]] == ':' || isAlpha(text[ix[1]]) && !strings.ContainsAny(m, " ")) {
			// "3pm", "1st", "x-t3", "200gb" with no space are times, ordinals or names.
			if !strings.HasSuffix(strings.ToLower(text[ix[1]:min(len(text), ix[1]+2)]), "k") && !strings.HasPrefix(strings.ToLower(text[ix[1]:]), "k ") {
				continue
			}
		}
		if yearRe.MatchString(m) {
			continue
		}
		rank := 0
		switch {
		case perRe.MatchString(text[ix[1]:]) || strings.ContainsAny(m, " %"):
			rank = 3
		case strings.ContainsAny(m, "£$€"):
			rank = 2
		case strings.ContainsAny(m, ".,"):
			rank = 1
		}
		if rank > bestRank {
			best, bestRank = m, rank
		}
	}
	return best
}

func isAlnum(b byte) bool { return isAlpha(b) || b >= '0' && b <= '9' }
func isAlpha(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// after returns the phrase after the first of preps, preferring a capitalised one when
// capsFirst is set.
func after(ts []token, preps []string, capsFirst bool) string {
	var first string
	for i, t := range ts {
		for _, p := range preps {
			if t.low != p || i+1 >= len(ts) {
				continue
			}
			v := phrase(ts[i+1:])
			if v == "" || isMonthOrDay(strings.ToLower(strings.Fields(v)[0])) {
				continue
			}
			if capsFirst && isCapitalised(tokenize(v)[0]) {
				return v
			}
			if first == "" {
				first = v
			}
		}
	}
	return first
}

// describedRe is a person described before their name: "a lady called dr hughes", "this
// guy named Omar".
var describedRe = regexp.MustCompile(`(?i)^(?:an? |this |some )?(?:` + strings.Join(strings.Fields(personWords), "|") + `) (?:called|named) (\S.*)$`)

// describedName returns the name of a person described before it (describedRe), or v.
func describedName(v string) string {
	if m := describedRe.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return v
}

// named returns a name: after "called" or "named", a capitalised run, or a lower-case
// word that looks like a name.
func named(ts []token) string {
	for i, t := range ts {
		if (t.low == "called" || t.low == "named") && i+1 < len(ts) {
			return nameRun(ts[i+1:])
		}
	}
	if v := capitalised(ts); v != "" {
		return v
	}
	for i := range ts {
		if isNameAfterRelation(ts, i) && !anchors[ts[i].low] && !stopValue[ts[i].low] && !leadValue[ts[i].low] && len(ts[i].low) > 2 && !verbish(ts[i].low) {
			if i > 0 && (ts[i-1].low == "is" || ts[i-1].low == "'s" || ts[i-1].low == "to" || ts[i-1].low == "with" || ts[i-1].low == "by" || honorifics[ts[i-1].low] || relations[ts[i-1].low] != "") {
				return nameRun(ts[i-min(i, titleLen(ts, i)):])
			}
		}
	}
	return ""
}

func titleLen(ts []token, i int) int {
	if i > 0 && honorifics[ts[i-1].low] {
		return 1
	}
	return 0
}

func verbish(w string) bool {
	return strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed") || subjectVerbs[w]
}

// nameRun takes up to three words of a name.
func nameRun(ts []token) string {
	var out []token
	for _, t := range ts {
		if len(out) >= 3 || stopValue[t.low] || common[t.low] && len(out) > 0 || len(out) > 0 && lowerAdverb(t) {
			break
		}
		out = append(out, t)
		if t.end {
			break
		}
	}
	return join(out)
}

// lowerAdverb reports a lower-case adverb in -ly ("purely", "totally"), which ends a
// name: "spurs purely to wind me up".
func lowerAdverb(t token) bool {
	return len(t.low) >= 6 && strings.HasSuffix(t.low, "ly") && t.low == t.orig
}

// capitalised returns the first run of capitalised words that is not the clause's first
// word and not "I".
func capitalised(ts []token) string {
	for i := 0; i < len(ts); i++ {
		if !isCapitalised(ts[i]) || ts[i].low == "i" || ts[i].low == "i'm" || firstPerson[ts[i].low] || isMonthOrDay(ts[i].low) && !isCapitalisedWord(ts[i]) {
			continue
		}
		if strings.ToUpper(ts[i].orig) == ts[i].orig && len(ts[i].orig) > 4 {
			continue // shouting: "KEYS!!!"
		}
		j := i
		for j < len(ts) && j-i < 4 && (isCapitalised(ts[j]) || ts[j].low == "&" || ts[j].low == "du" || ts[j].low == "de" || isDigitStart(ts[j].low) && j > i) {
			j++
			if ts[j-1].end {
				break
			}
		}
		return join(ts[i:j])
	}
	return ""
}

func isCapitalisedWord(t token) bool { return isCapitalised(t) }

var (
	negationRe = regexp.MustCompile(`(?i)\b(?:no longer|not any ?more|any ?more|any longer|no more|sold|quit|quitting|stopped|cancell?ed|gave up|given up|got rid of|split up|broke up|broken up|called off the (?:engagement|wedding)|called (?:it|the engagement|the wedding) off|broke off the engagement|dumped|stepped down|step down|retired|moved out|dropped out|ditched|rehomed?|ended|withdrew|deleted|done with|won't be|isn't|is not|not actually|never was|lost my|handed (?:\w+ ){0,4}back|left the|'s left|has left|i left|stolen|nicked|stole|written off|wrote off|(?:taken|took|taking) (?:me|him|her|us|them) off|(?:came|come|coming) off)\b|(?:\b(?:i'm|im|i am|we're|we are|am|are|was|were)|^\W*)\s*not\b`)
	// keptOnRe denies an ending: "i'm not giving up my flat white", "never quitting".
	keptOnRe = regexp.MustCompile(`(?i)\b(?:not|never|won't|wont|can't|cant)\s+(?:be\s+)?(?:giving up|give up|quitting|quit|stopping|stop|cancell?ing|cancel|dropping|ditching|leaving|changing)\b`)
	// changeRe marks a clause that names the new value of a change ("quit the cafe,
	// now a baker"): the cue of negation then belongs to the old value.
	changeRe = regexp.MustCompile(`(?i)\b(?:now|instead|switched to|new|started|moved to|moved into|into (?:a|an|the|my|our) (?:new )?(?:flat|house|place|home|apartment|room)|back on|back to)\b`)
	scopeRe  = regexp.MustCompile(`(?i)\b(?:except(?: on| in| for| when| during)?|only (?:when|on|in|if|during|for)|unless|during|until|till|for (?:anyone|new)\b [a-z]+(?: [a-z]+)?|for the (?:summer|winter|spring|autumn|holidays|weekend|week|month|year|term|time being|kids|children|twins|boys|girls|family|baby|dog|dogs|cat|cats|guests|team|next [a-z]+(?: [a-z]+)?)\b|after \d{1,2}\s?(?:am|pm)?|when (?:i|we|friends)\b)[^,.;!?]*|\b(?:in the (?:mornings?|afternoons?|evenings?)|at (?:night|weekends|the weekend)|on (?:weekends|weekdays|work days|workdays|` + dayName + `)` +
		// A week or season apart, or a day's part: "christmas week the bins go on saturday",
		// "saturday mornings tho = iced mocha", "over the summer".
		`|(?:christmas|easter|bank holiday|bank hol|half[- ]term|holiday|[a-z]+ day) weeks?|(?:for|just) (?:that|this|the one) week(?: only)?|(?:that|this|the one) week only|over (?:the )?(?:christmas|easter|summer|winter|holidays)|(?:mon|tues|wednes|thurs|fri|satur|sun)days? (?:mornings?|afternoons?|evenings?|nights?))\b`)
	eventRe = regexp.MustCompile(`(?i)\b(?:back in|since|from|as of|starting(?: in| on| from)?|in)\s+(?:early\s+|late\s+|mid\s+)?(?:the\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(` + monthName + `)\b(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?|\b(last (?:month|week|year))\b|\bon the (\d{1,2})(?:st|nd|rd|th)\b`)
)

// leadingDaysRe is a habit's days said before the event they narrow: "mondays standup is
// 10:00", "fridays swim club is 7:30".
var leadingDaysRe = regexp.MustCompile(`(?i)^(` + oneDay + `s) (?:[a-z]+(?:'s)? ){1,2}(?:is|are|moves?|starts?|goes|runs)\b`)

// oneDay is a day's name in the singular: "on Friday" is one day, "on Fridays" a habit.
const oneDay = `(?:mon|tues|wednes|thurs|fri|satur|sun)day`

var (
	// episodeTimeRe is a time of one past event: "yesterday", "last weekend", "last
	// month", "two weeks ago", "this morning", "on Friday".
	episodeTimeRe = regexp.MustCompile(`(?i)\b(?:yesterday|last (?:night|week|weekend|month|year|summer|winter|spring|fall|autumn|` + oneDay + `)|(?:\d+|a|an|one|two|three|four|five|six|a few|few|couple of) (?:days?|weeks?|months?|years?) ago|this (?:morning|afternoon)|on ` + oneDay + `)\b`)
	// stateChangeRe is a verb whose event is itself a change of state: moving, joining,
	// starting, leaving, buying, adopting, marrying, a diagnosis or an injury, getting a
	// new one.
	stateChangeRe = regexp.MustCompile(`(?i)\b(?:mov(?:ed|ing)|relocat\w*|join(?:ed|ing)|start(?:ed|ing)|began|switch(?:ed|ing)|became|become|got (?:a |an |my )?(?:new|job|promot\w*|hired|married|engaged|divorced)|hired|promoted|adopt\w*|bought|sold|quit|left|resign\w*|retired|enrolled|signed up|took up|taken up|picked up|got into|married|engaged|broke up|split up|dating|diagnos\w*|prescribed|broke (?:my|his|her|their)|tore|sprained|injur\w*|pregnant|gave birth|now|instead|anymore|no longer)\b`)
)

// episode reports a clause that tells one past event ("yesterday I went out with my
// friends", "I organized the programming seminar last week") without a verb of change:
// what happened once says nothing of how things stand, so a value read from it by
// meaning is no state. A change told as an event ("I moved to Omaha last month",
// "started at Kestrel last week") is not an episode.
func episode(clause string) bool {
	return episodeTimeRe.MatchString(clause) && !stateChangeRe.MatchString(clause)
}

// negated reports whether a clause says its value no longer holds.
func negated(clause string) bool {
	if !negationRe.MatchString(clause) || keptOnRe.MatchString(clause) {
		return false
	}
	return !changeRe.MatchString(clause) || strings.Contains(strings.ToLower(clause), "anymore") || strings.Contains(strings.ToLower(clause), "no more")
}

// scope returns the condition a clause states, if any.
func scope(clause string) string {
	if s := onlyScope(clause); s != "" {
		return s
	}
	if m := leadingDaysRe.FindStringSubmatch(clause); m != nil {
		return "on " + m[1] // "mondays standup is 10:00": on mondays
	}
	m := scopeRe.FindString(clause)
	if oneDayRe.MatchString(m) && stateChangeRe.MatchString(clause) {
		// "mum moved into a care home on saturday": the day of the change, no condition.
		return ""
	}
	if pastWhen(m) {
		// "jess went vegetarian when we moved in together": when it happened, no condition.
		return ""
	}
	return strings.TrimSpace(trailingNow.ReplaceAllString(strings.TrimSpace(m), ""))
}

// pastWhen reports a "when" clause told in the past ("when we moved in together", "when
// I was at uni"): the time of a change, where a condition is told in the present ("when
// I'm at work").
func pastWhen(sc string) bool {
	ws := strings.Fields(strings.ToLower(sc))
	if len(ws) < 3 || ws[0] != "when" {
		return false
	}
	v := ws[2]
	if (v == "first" || v == "just" || v == "finally" || v == "all") && len(ws) > 3 {
		v = ws[3]
	}
	return pastVerbs[v] || v == "was" || v == "were" || v == "had" || v == "did" || strings.HasSuffix(v, "ed") && !presentEd[v]
}

// presentEd are present forms that end as a past does.
var presentEd = wordSet(`need needs feed speed bleed seed breed proceed succeed exceed`)

// scopeOf is the scope of a clause's fact of value v: none when the words read as a
// scope hold the value itself ("signing up for the google data analytics certificate
// instead": the course, not a condition).
func scopeOf(clause, v string) string {
	sc := scope(clause)
	if sc != "" && v != "" && strings.Contains(strings.ToLower(sc), strings.ToLower(v)) {
		return ""
	}
	return sc
}

// oneDayRe is a scope that is one day: "on saturday" (not "on saturdays", "except on
// saturday").
var oneDayRe = regexp.MustCompile(`(?i)^on ` + oneDay + `\b`)

var months = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// futureRe is a clause that tells what is to come: its month is the next one of that
// name ("rent goes up to 1,450 in june", "the new timetable starts in september").
var futureRe = regexp.MustCompile(`(?i)\b(?:will|going to|gonna|goes (?:up|down)|go (?:up|down)|is due|are due|starts|kicks in|from next|(?:am|'m|is|'s|are|'re) (?:starting|joining|moving|leaving|flying|heading|going into)|starting (?:at|with|on))\b|\w'll\b`)

// eventTime resolves "back in March", "since april", "from the 1st of july", "last
// month", "on the 20th" against now. Past cues take the latest such date not after now;
// "from" and "starting" may point forward.
// ordinalNoun, right after "on the 3rd", says the ordinal counts a thing, not a day:
// "the 3rd floor".
var ordinalNoun = regexp.MustCompile(`(?i)^\s+(?:floor|row|storey|story|platform|attempt|try|time|round|lap|go|level|page|step)\b`)

func eventTime(clause string, now time.Time) time.Time {
	at := eventRe.FindStringSubmatchIndex(clause)
	if at == nil {
		return time.Time{}
	}
	m := make([]string, len(at)/2)
	for i := range m {
		if at[2*i] >= 0 {
			m[i] = clause[at[2*i]:at[2*i+1]]
		}
	}
	if now.IsZero() {
		now = time.Now().UTC()
	}
	y, mo, _ := now.Date()
	loc := now.Location()
	switch {
	case m[4] != "":
		switch strings.ToLower(m[4]) {
		case "last month":
			return time.Date(y, mo-1, 1, 0, 0, 0, 0, loc)
		case "last week":
			d := now.AddDate(0, 0, -7)
			return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
		default:
			return time.Date(y-1, 1, 1, 0, 0, 0, 0, loc)
		}
	case m[5] != "":
		if ordinalNoun.MatchString(clause[at[1]:]) {
			return time.Time{} // "on the 3rd floor", "on the 2nd attempt": no date
		}
		day, _ := strconv.Atoi(m[5])
		t := time.Date(y, mo, day, 0, 0, 0, 0, loc)
		if t.After(now) {
			t = t.AddDate(0, -1, 0)
		}
		return t
	}
	month := months[strings.ToLower(m[2])[:3]]
	day := 1
	if m[1] != "" {
		day, _ = strconv.Atoi(m[1])
	} else if m[3] != "" {
		day, _ = strconv.Atoi(m[3])
	}
	t := time.Date(y, month, day, 0, 0, 0, 0, loc)
	forward := strings.HasPrefix(strings.ToLower(m[0]), "from") || strings.HasPrefix(strings.ToLower(m[0]), "starting") || futureRe.MatchString(clause)
	if forward {
		if t.Before(time.Date(y, mo, 1, 0, 0, 0, 0, loc).AddDate(0, -2, 0)) {
			t = t.AddDate(1, 0, 0)
		}
	} else if t.After(now) {
		t = t.AddDate(-1, 0, 0)
	}
	return t
}

// emptyWords carry no value on their own: function words, pronouns, auxiliaries, chat
// fillers, everyday verbs and evaluative adjectives. A value made only of them (or of
// contractions) is no value: "It's", "Really", "Been", "things happening", "so great".
// everydayVerbs are verb forms too common to carry a value: empty words, and verbWords.
const everydayVerbs = `looking working doing going getting trying thinking feeling making having giving taking helping seeing saying
	telling talking happening happened happen felt feel feels went got get gets made make makes took take takes gave give
	gives came come comes`

var emptyWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
	this that these those there here what which who whom whose how why when where the a an and or but so to of in on at for with from by as
	is are was were be been being am have has had do does did done can could would should will shall may might must not no yes
	very really just still also even only ever never always too quite pretty lot lots much many more most some any all both each every
	thing things stuff way ways totally super definitely absolutely actually basically literally honestly maybe probably perhaps sure ok okay
	yeah yep yup wow lol haha hey hi hello thanks thank please well anyway
	` + everydayVerbs + `
	great good nice amazing awesome cool fun tough hard proud happy glad busy important passionate excited lucky grateful fine bad sad
	real true big little best better worse worst same different whole other another own
	out up off over away back down about around through into onto upon across along towards toward within without
	positive negative successful lucky enough right wrong interesting incredible special huge crazy wild perfect
	bits pieces tears stitches shock
	myself yourself himself herself ourselves themselves`) {
		m[w] = true
	}
	return m
}()

// namedMonth reports a value that is a month's or a day's name with its capital: "May"
// is the month, "may" the verb.
func namedMonth(v string) bool {
	t := strings.TrimSpace(v)
	return t != "" && unicode.IsUpper([]rune(t)[0]) && isMonthOrDay(strings.ToLower(t))
}

// emptyValue reports a value with no content word (see emptyWords).
func emptyValue(v string) bool {
	if namedMonth(v) {
		return false // "May", the month, not the verb
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	}) {
		if stem := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"); stem != w && !emptyWords[stem] && !strings.ContainsAny(stem, "'’") {
			// A name's possessive, as in shop names ("Sainsbury's", "McDonald's"); a
			// contraction's stem is empty ("it's", "that's").
			return false
		}
		if strings.ContainsAny(w, "'’") || emptyWords[w] {
			continue
		}
		return false
	}
	return true
}

// namesAttribute reports a value that only names its own attribute or another of the
// table ("My job: …" read as job = "job" or employer = "job", "it's my drink now" as
// drink = "drink"). A job title is a job's value even when another attribute is named
// after the job ("I work as a teacher", "I'm a doctor": the attributes teacher and
// doctor are someone's teacher or doctor).
func namesAttribute(f Fact) bool {
	if namedMonth(f.Value) {
		return false // "May", the month
	}
	attr := strings.Fields(strings.ReplaceAll(Kebab(f.Attribute), "-", " "))
	job := Kebab(f.Attribute) == "job"
	for _, w := range words.Split(f.Value) {
		if job && jobWords[w] {
			return false
		}
		if roles[w] != "" && roles[w] == Kebab(f.Attribute) {
			continue // "anika has a boyfriend now": the partner's role, not a partner
		}
		if _, other := attributeByName(strings.TrimSuffix(w, "s")); !emptyWords[w] && !slices.Contains(attr, w) && !slices.Contains(attr, strings.TrimSuffix(w, "s")) && !other {
			return false
		}
	}
	return true
}

// SameValue reports whether two values name the same thing: the words of one contain the
// other's ("Porto" and "the Porto flat", "40" and "40 minutes").
func SameValue(a, b string) bool {
	wa, wb := valueWords(a), valueWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	contains := func(big, small []string) bool {
		for _, w := range small {
			if !slices.ContainsFunc(big, func(x string) bool { return x == w || singular(x) == singular(w) }) {
				return false
			}
		}
		return true
	}
	return contains(wa, wb) || contains(wb, wa)
}

// singular folds a plural's "s": "cortados" and "cortado", "mondays" and "monday" are one
// value ("glass" and "bus" keep theirs).
func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return w[:len(w)-1]
	}
	return w
}

// ValueKey is a value in the form two statements of the same value share: its words
// in lower case without articles or possessives ("the Porto flat" → "porto flat",
// "Ghent" → "ghent", "7.5 hours" → "7 5 hours").
func ValueKey(v string) string { return strings.Join(valueWords(v), " ") }

func valueWords(s string) []string {
	var out []string
	for _, w := range words.Split(s) {
		switch w {
		case "a", "an", "the", "my", "our", "his", "her", "their":
			continue
		}
		if n := strings.TrimRight(w, "stndrh"); n != w && n != "" && strings.Trim(n, "0123456789") == "" {
			w = n // "the 11th" is the 11 of "April 11"
		}
		out = append(out, w)
	}
	return out
}

// verbal reports a value that reads as a clause or a verb phrase rather than as the
// thing an attribute holds: "organized an online comp", "take them hiking", "writing
// all", "Since", "Friday" (for a course), "others", "something I've wanted", "cars can
// be tricky", "clearer soon", "prius broke down", "tow truck parked". A fact read by
// meaning from chat takes whatever words follow its subject; these are the shapes of
// such words that name no home, employer, project or car (typed values — numbers,
// times, dates, days — are read by pattern and never come here).
func verbal(v string) bool {
	ws := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && r != '-'
	})
	if len(ws) == 0 {
		return false
	}
	w0 := ws[0]
	objectNext := len(ws) == 1 || verbObjects[ws[1]]
	switch {
	case verbalOpeners[w0] || isMonthOrDay(w0) || verbWords[w0] || auxiliaries[w0]:
		return true
	case len(ws) > 1 && (len(w0) >= 5 && strings.HasSuffix(w0, "ly") || leadAdverbs[w0]) && verbal(strings.Join(ws[1:], " ")):
		return true // "currently working", "further enhance"
	case len(w0) >= 5 && strings.HasSuffix(w0, "ed") && objectNext:
		return true // "decided", "organized an online comp"
	case len(w0) >= 5 && strings.HasSuffix(w0, "ing") && !ingNouns[w0] && objectNext:
		return true // "loving", "writing all", "take them" after "getting"
	case len(ws) >= 2 && len(ws[len(ws)-1]) >= 5 && strings.HasSuffix(ws[len(ws)-1], "ed"):
		return true // "laptop crashed", "tow truck parked"
	case len(ws) >= 2 && (ws[len(ws)-1] == "done" || ws[len(ws)-1] == "over" || ws[len(ws)-1] == "sorted"):
		return true // "first week done", "exams over"
	}
	for _, w := range ws {
		if clauseWords[w] || contraction(w) {
			return true
		}
	}
	for _, w := range ws[1:] {
		if finiteVerbs[w] || subjectVerbs[w] {
			return true
		}
	}
	return false
}

// contraction reports a pronoun or verb contraction ("i've", "haven't", "won't"); a
// possessive ("mcgee's") is none.
func contraction(w string) bool {
	w = apostrophes.Replace(w)
	i := strings.IndexByte(w, '\'')
	if i >= 0 && w[i:] == "'s" && isContracted[w[:i]] {
		return true // "it's", "that's": "is", not a possessive
	}
	return i >= 0 && w[i:] != "'s" && w[i:] != "'"
}

// apostrophes writes the typographic and the backtick apostrophe as "'".
var apostrophes = strings.NewReplacer("’", "'", "`", "'")

// isContracted are the words whose "'s" is always "is" or "has".
var isContracted = wordSet(`it that there here what who he she`)

var (
	// verbalOpeners open no value: times, discourse words, quantifiers, and the particles
	// left of a phrasal verb ("trying out different flavors": "out different flavors").
	verbalOpeners = wordSet(`since after before when while whenever last next yesterday today tomorrow tonight soon recently lately finally eventually once
		others other few several something someone anyone everyone somewhere anywhere
		choice half one ones all both each either neither such than then because though although unless whether let
		like am is are was were out off down away`)
	// verbWords are everyday verb forms; opening a value, they make it a clause.
	verbWords = wordSet(everydayVerbs + ` keep keeps kept know knew knows want wants wanted need needs needed hope hopes love loves
		appreciate appreciates support supports reach explore visit check find found saw see sees says said told
		sounds sound seems seem looks look let remind reminds thought guess wish imagine miss
		gain share stick save enhance improve learn grow build achieve pursue continue finish try use spend enjoy relax
		unwind focus stay follow order orders eat eats buy buys`)
	// leadAdverbs open a verb phrase as -ly adverbs do: "further enhance", "still going".
	leadAdverbs = wordSet(`further still just also even really already never always`)
	// finiteVerbs inside a value make it a clause ("city living makes", "the trip sounds
	// fun"); unlike verbWords, none of them is also a noun.
	finiteVerbs = wordSet(`makes gets went got made took takes gave gives came comes knows knew wants wanted needs needed
		hopes loves sounds seems looks reminds thought said says told saw found felt feels kept keeps`)
	// verbObjects follow a verb, not a noun: "decided to", "writing all", "driving me",
	// "treating myself".
	verbObjects = wordSet(`a an the my our his her their your some me them him us it this that all off up out down more to into forward
		myself yourself himself herself itself ourselves themselves`)
	// clauseWords inside a value make it a clause: pronouns, modals, adverbs of time.
	clauseWords = wordSet(`i me you him them us it we they she he can could will would should might must gonna wanna
		soon often sometimes usually lately always never really`)
	// ingNouns end in -ing and name things.
	ingNouns = wordSet(`wedding building ring king thing spring evening morning clothing housing sibling painting meeting ceiling
		string wing swing pudding darling sterling bedding railing dwelling lodging stuffing icing frosting filling landing
		offspring shopping parking camping anything everything nothing`)
)

func wordSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// junk reports a fact whose value carries no content word, only names its attribute,
// or has no shape of its attribute's kind of value: Extract drops it.
func junk(f Fact, cased bool) bool {
	return emptyValue(f.Value) || namesAttribute(f) || shapeless(f, cased) || newsOf(f.Value) || f.Confidence > 0 && possessiveOnly(f.Value)
}

// possessiveOnly reports a value that is one word owning nothing said ("Ines's" of
// "photos at Ines's wedding"); only the meaning reads such a value (the form reads
// "a new job at Sainsbury's").
func possessiveOnly(v string) bool {
	v = strings.TrimSpace(v)
	return !strings.Contains(v, " ") && (strings.HasSuffix(v, "'s") || strings.HasSuffix(v, "’s"))
}

// newsOf reports a value that is a chat opener's label ("gym update", "brother news"):
// it names what the message is about, not a state.
func newsOf(v string) bool {
	ws := words.Split(v)
	return len(ws) > 0 && newsWords[ws[len(ws)-1]]
}

var newsWords = wordSet(`update updates news recap rant confession psa`)

// shapeless reports a fact read by meaning whose value has the wrong shape for its
// attribute: a clause (see verbal) where the attribute wants a thing, a place, an
// organisation or a name; or, in text that writes names with capitals (cased), a
// place, organisation or name in lower case ("home = bench", "office = couch").
func shapeless(f Fact, cased bool) bool {
	if f.Confidence == 0 || activityAttrs[Kebab(f.Attribute)] || scheduleAttr(f.Attribute) {
		return false
	}
	a, ok := attributeByName(f.Attribute)
	if !ok {
		a.kind = kindThing
	}
	switch a.kind {
	case kindPlace, kindOrg, kindPerson:
		if r, _ := utf8.DecodeRuneInString(f.Value); cased && unicode.IsLower(r) {
			return true
		}
		if strings.TrimLeft(f.Value, "0123456789.,:") == "" {
			return true // "has hers at 11": a bare number names no place, team or person
		}
		if properName(f.Value) {
			return false // "Leeds United", "Crowded House": a name, not "laptop crashed"
		}
	case kindThing:
		if abstractValue(f.Value) || mentionsAttribute(f) || evaluations[strings.ToLower(strings.TrimSpace(f.Value))] {
			return true
		}
		switch Kebab(f.Attribute) {
		case "email":
			return !strings.Contains(f.Value, "@") // "i misread the email": no address
		case "password":
			// "the wifi password is BlueFox99": one word with a digit or a sign, not
			// "lloyds" or "misread the email".
			return strings.ContainsAny(f.Value, " ") || !strings.ContainsFunc(f.Value, func(r rune) bool { return !unicode.IsLetter(r) })
		}
	default:
		return false
	}
	return verbal(f.Value)
}

// properName reports a value of two or more words that all start with a capital.
func properName(v string) bool {
	ws := strings.Fields(v)
	for _, w := range ws {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) {
			return false
		}
		if lw := strings.ToLower(w); lw == "i" || verbalOpeners[lw] || stopValue[lw] || pronouns[lw] || contraction(lw) {
			return false // "Since I", "It's Susie": a clause in capitals
		}
	}
	return len(ws) >= 2
}

// abstractWords name no state of their own: a job, a project or a device is never "work",
// "progress", "skills" or "opportunities" ("I'm putting in a lot of work on my business"
// states no project = work).
var abstractWords = wordSet(`work works job jobs progress problem problems skill skills opportunity opportunities week weeks day days
	month months year years time times ready career industry experience experiences plan plans idea ideas goal goals passion purpose
	journey success support help advice encouragement motivation inspiration chance chances step steps part side kind sort lot bit
	challenge challenges obstacle obstacles effort efforts dream dreams future life moment moments news update updates stuff progress
	breakthrough difference impact world people family friends`)

// mentionsAttribute reports a value in which its own attribute's name modifies another
// word: a car is not "car shop" or "car mod workshop", a job not "job training" — such a
// phrase names what the clause is about, not the state. As the last word the name is the
// value's head, and the value a kind of it: "estate car", "side project"; before a
// number it is the value's name: "room 12"; after "those", "that", … it points back at
// the thing: "waste those flights".
func mentionsAttribute(f Fact) bool {
	attr := strings.Split(Kebab(f.Attribute), "-")
	for i, a := range attr {
		attr[i] = strings.TrimSuffix(a, "s")
	}
	ws := words.Split(f.Value)
	for i, w := range ws {
		w = strings.TrimSuffix(w, "s")
		if len(w) > 2 && slices.Contains(attr, w) && (i < len(ws)-1 && !isDigitStart(ws[i+1]) || i > 0 && pointsBack[ws[i-1]]) {
			// "waste those flights" of the flights: the thing pointed back at, no value.
			return true
		}
	}
	return false
}

// amountUnit names what an amount measures, by its unit: "percent" (4%), "money"
// (£450, $85 an hour, 300 euro), "dose" (50mg), "duration" (55 min), "distance"
// (5 km), "clock" (7:15, 6am); "" when the value says no unit. Two amounts of different
// units in one slot measure different things ("$70 an hour" and "4%" are no versions of
// one rate).
func amountUnit(v string) string {
	if !strings.ContainsFunc(v, unicode.IsDigit) {
		return ""
	}
	for _, u := range amountUnits {
		if u.re.MatchString(v) {
			return u.name
		}
	}
	return ""
}

// OtherUnits reports two amounts said with units of different kinds (amountUnit).
func OtherUnits(a, b string) bool {
	ua := amountUnit(a)
	if ua == "" {
		return false
	}
	ub := amountUnit(b)
	return ub != "" && ua != ub
}

var amountUnits = []struct {
	name string
	re   *regexp.Regexp
}{
	{"percent", regexp.MustCompile(`(?i)\d\s?(?:%|percent\b|per cent\b)`)},
	{"money", regexp.MustCompile(`(?i)[£$€¥₹]\s?\d|\d\s?(?:euros?|dollars?|pounds?|quid|bucks|eur|usd|gbp|lakhs?|lpa)\b`)},
	{"dose", doseUnits},
	{"clock", clockRe},
	{"duration", commuteUnits},
	// distanceUnits without its "k": "24k" is as often a salary as a run.
	{"distance", regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s?(?:km|kms|kilometres?|kilometers?|miles?|mi)\b`)},
}

// pointsBack are the words that point at a thing already spoken of.
var pointsBack = wordSet(`those these that this same`)

// abstractValue reports a value made only of abstract and empty words.
func abstractValue(v string) bool {
	ws := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' })
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !abstractWords[w] && !emptyWords[w] {
			return false
		}
	}
	return true
}

// cased reports text whose writer uses capitals: every sentence starts with a capital
// and the pronoun "I", when there, is one. In such text a name in lower case is no
// name; in text written in lower case ("so... I switched to glasgow") it may be.
func cased(text string) bool {
	lower := 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		if strings.SplitN(strings.ReplaceAll(w, "’", "'"), "'", 2)[0] == "i" {
			lower++
		}
	}
	if lower > 0 {
		return false
	}
	starts := 0
	for _, s := range sentenceStart.FindAllString(text, -1) {
		r, _ := utf8.DecodeLastRuneInString(s)
		if unicode.IsLower(r) {
			return false
		}
		starts++
	}
	return starts > 0
}

// sentenceStart matches the first letter of each sentence.
var sentenceStart = regexp.MustCompile(`(?:^|[.!?]\s+)[^\pL]*\pL`)
