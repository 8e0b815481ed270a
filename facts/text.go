package facts

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// token is one word of a clause: its text as written (outer punctuation trimmed) and
// its lower-case form with curly apostrophes straightened.
type token struct {
	orig, low string
	// end says a clause-internal boundary (a comma, a colon, a dash) follows the word;
	// colon that it is a colon.
	end, colon bool
}

func tokenize(s string) []token {
	var out []token
	for _, f := range strings.Fields(s) {
		o := strings.TrimFunc(f, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '£' && r != '$' && r != '€' && r != '@' && r != '&' && r != '%'
		})
		if o == "" {
			if f == "&" || f == "-" || f == "—" {
				if n := len(out); n > 0 && f != "&" {
					out[n-1].end = true
				}
			}
			continue
		}
		low := strings.ToLower(strings.ReplaceAll(o, "’", "'"))
		t := token{orig: o, low: low}
		last := f[len(f)-1]
		t.end = last == ',' || last == ':' || last == ';' || last == ')'
		t.colon = last == ':'
		out = append(out, t)
	}
	return out
}

func lows(ts []token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.low
	}
	return out
}

func join(ts []token) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.orig
	}
	return strings.Join(out, " ")
}

// speakerPrefix is a "Name: " or "First Last: " prefix.
var speakerPrefix = regexp.MustCompile(`^([\p{Lu}][\p{L}'-]+(?: [\p{Lu}][\p{L}'-]+)?):\s+`)

// notSpeakers are words people put before a colon that are not names.
var notSpeakers = map[string]bool{"update": true, "note": true, "edit": true, "ps": true, "correction": true, "reminder": true, "todo": true, "question": true, "fyi": true, "btw": true, "ok": true, "okay": true, "also": true, "news": true, "plot twist": true, "good news": true, "bad news": true, "new rule": true}

// labelOf reports whether a prefix is a label ("Home: a flat in Richmond"), not a name.
func labelOf(prefix string) bool {
	attr, _ := labelAttr(tokenize(prefix + ":"))
	return attr != ""
}

// splitSpeaker strips a "Name: " prefix and says whose it is. A prefix that names
// someone other than a given speaker is left in the text.
func splitSpeaker(text, speaker string) (string, string) {
	m := speakerPrefix.FindStringSubmatch(text)
	if m == nil || notSpeakers[strings.ToLower(m[1])] || labelOf(m[1]) {
		return text, speaker
	}
	if speaker != "" && !strings.EqualFold(m[1], speaker) {
		return text, speaker
	}
	return text[len(m[0]):], m[1]
}

// greetingRe is a greeting asked as a question, which asks nothing: "How do you do.",
// "hi, how are you?", "how's it going".
var greetingRe = regexp.MustCompile(`(?i)^(?:(?:hi|hello|hey|hiya|morning|evening|good (?:morning|afternoon|evening))[ ,!]+)?(?:how do you do|how are (?:you|things)(?: doing| today)?|how(?:'s| is) it going|how have you been|what'?s up)\W*$`)

// sentenceEnd splits at sentence punctuation followed by a space, and at line breaks.
var sentenceEnd = regexp.MustCompile(`[.!?;]+(?:\s+|$)|\n+|\s+[-–—]\s+|\s*\.\.\.\s*|\s*[\x{1F300}-\x{1FAFF}\x{2600}-\x{27BF}]+\x{FE0F}?\s*|\s+[:;=]-?[()DPp/|]+(?:\s+|$)`)

type sentence struct {
	text     string
	question bool
}

func sentences(text string) []sentence {
	var out []sentence
	idx := sentenceEnd.FindAllStringIndex(text, -1)
	start := 0
	add := func(s, punct string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		ts := skipFillers(tokenize(s)) // once, for both readings of a question
		asks := strings.Contains(punct, "?") && isQuestion(ts) || askedPlainly(ts)
		out = append(out, sentence{text: s, question: asks && !greetingRe.MatchString(s)})
	}
	for _, ix := range idx {
		add(text[start:ix[0]], text[ix[0]:ix[1]])
		start = ix[1]
	}
	add(text[start:], "")
	return out
}

// questionStarts are the words a question starts with.
var questionStarts = map[string]bool{
	"how": true, "what": true, "whats": true, "what's": true, "which": true, "where": true, "when": true, "who": true, "why": true,
	"is": true, "are": true, "do": true, "does": true, "did": true, "can": true, "could": true, "should": true, "would": true, "will": true,
	"any": true, "anyone": true, "shall": true, "has": true, "have": true, "was": true, "whos": true, "who's": true, "wheres": true, "hows": true,
	"isnt": true, "isn't": true, "am": true, "was it": true, "ideas": true, "tips": true, "recommendations": true, "thoughts": true,
}

// askedPlainly reports a question written without its question mark by how its words
// (ts, fillers skipped) open: "what's a good pudding to bring …", "how do i ask for a
// raise", "is it bad that i …", "should we …", "is monzo any good or …" (not "what a
// day", "how cool is that").
func askedPlainly(ts []token) bool {
	if len(ts) < 3 || ts[0].end {
		return false
	}
	w, n := ts[0].low, ts[1].low
	switch w {
	case "what's", "whats":
		return true
	case "what", "which":
		// Not "which means i had to …".
		return n == "is" || n == "are" || n == "should" || n == "do" || n == "does" || n == "can" || n == "would" || n == "one"
	case "how":
		return n == "do" || n == "does" || n == "can" || n == "should" || n == "would" || n == "long" || n == "often" || n == "many"
	case "should", "can", "could", "would", "do", "does", "is", "are":
		if firstPerson[n] || n == "you" || n == "it" || n == "there" || n == "anyone" || n == "he" || n == "she" || n == "they" {
			return true
		}
		// "is mint mobile actually good or is it a scam", "is the bundle cheaper than
		// hulu by itself": a choice or a comparison asked about a thing (not "should be
		// £128 a month", "do miss the canteen").
		return w != "do" && n != "not" && n != "be" && slices.ContainsFunc(ts[2:], func(t token) bool { return t.low == "or" || t.low == "than" || t.low == "worth" })
	}
	return false
}

// isQuestion reports whether a sentence that ended with a question mark asks something
// (rather than being a surprised statement: "allergic to kiwi too??"), by its words (ts,
// fillers skipped).
func isQuestion(ts []token) bool {
	if len(ts) == 0 {
		return false
	}
	if questionStarts[ts[0].low] {
		return true
	}
	for i := 1; i < len(ts); i++ {
		if ts[i-1].end && questionStarts[ts[i].low] && i+1 < len(ts) && (ts[i+1].low == "that" || ts[i+1].low == "it" || ts[i+1].low == "i" || ts[i+1].low == "there" || ts[i+1].low == "this") {
			return true
		}
	}
	// "home kit or away kit?" "tea or coffee?" asks for a choice.
	return slices.Contains(lows(ts), "or") && len(ts) <= 12
}

// clauseSplit splits a sentence at commas and conjunctions that start a new statement.
func clauses(s string) [][]token {
	ts := tokenize(s)
	var out [][]token
	start := 0
	for i := range ts {
		if i == start {
			continue
		}
		cut := false
		prev := ts[i-1]
		switch {
		case prev.end && ts[i].low == "from" && slices.ContainsFunc(ts[start:i], func(t token) bool { return movesTo(t.low) }) &&
			slices.ContainsFunc(ts[i+1:min(len(ts), i+6)], func(t token) bool { return t.low == "to" }):
			// "have moved again, from Brixton to Peckham": where from and to, one clause.
		case prev.end && !isDigitStart(ts[i].low):
			cut = true
		case prev.colon && i-start <= 2 && !labelActs(ts[start:i]):
			cut = true // "bedtime: 11pm" is a label and its value; "wake up: 6:30" is read whole
		case (ts[i].low == "but" || ts[i].low == "so" || ts[i].low == "and" || ts[i].low == "then" || ts[i].low == "because" || ts[i].low == "cos" || ts[i].low == "since" && i+1 < len(ts) && startsStatement(ts[i+1:])) &&
			i+1 < len(ts) && startsStatement(ts[i+1:]):
			cut = true
		}
		if cut && ts[i].low == "and" && i-start == 1 && isWord(ts[start].low) && !fillers[ts[start].low] && !firstPerson[ts[start].low] && !verbish(ts[start].low) &&
			i+1 < len(ts) && ts[i+1].low != "my" && ts[i+1].low != "our" {
			// "chloe and her girlfriend just bought a place": one subject of two, the first
			// ("Cornelius and my mom are not together" is still my mom's).
			cut = false
		}
		if cut && ts[i].low == "and" && i-start == 1 && (ts[start].low == "me" || ts[start].low == "i") && !prev.end {
			// "me and my boyfriend marco are …", "me and Farah have been seeing each
			// other": the speaker and another, one subject.
			cut = false
		}
		if cut {
			out = append(out, ts[start:i])
			start = i
		}
	}
	if start < len(ts) {
		out = append(out, ts[start:])
	}
	return apposed(out)
}

// labelActs reports a short label before a colon that says an act, not a thing: a verb
// or a particle ("wake up:"). In "heating timer:" the word in -ing names the timer's kind.
func labelActs(ts []token) bool {
	for k, t := range ts {
		if particles[t.low] || verbForm(t.low) && !(k == 0 && len(ts) == 2 && strings.HasSuffix(t.low, "ing")) {
			return true
		}
	}
	return false
}

// apposed joins a relation and the name set off by commas after it into the clause that
// follows: "My husband, David, works Tuesday to Saturday" is one clause about David.
func apposed(cs [][]token) [][]token {
	for i := 0; i+2 < len(cs); i++ {
		rel, name := cs[i], cs[i+1]
		if len(rel) != 2 || rel[0].low != "my" && rel[0].low != "our" || relations[strings.TrimSuffix(rel[1].low, ",")] == "" ||
			len(name) != 1 || !isCapitalised(name[0]) || notName(name[0].low) {
			continue
		}
		merged := slices.Concat(rel, name, cs[i+2])
		for k := range merged[:3] {
			merged[k].end = false
		}
		cs = slices.Concat(cs[:i], [][]token{merged}, cs[i+3:])
	}
	return cs
}

// withSlashRe and withRe are chat's "w/" and "w" for "with": "a flat w/ my flatmate
// priya", "living w ben and jo".
var (
	withSlashRe = regexp.MustCompile(`(?i)(^|\s)w/\s+`)
	withRe      = regexp.MustCompile(`(?i)(^|[^\d\s]\s+)w(\s+[\p{L}\d])`)
)

// topicWiseRe is chat's topic marker: "hobby-wise I mostly do bouldering", "piano wise
// I'm working towards grade 3".
var topicWiseRe = regexp.MustCompile(`(?i)(^|[\s:,.!])[\p{L}]+[- ]wise,?\s+`)

// chatWords are texting's short forms of the words the readers look for: "sis still out
// in naperville", "mgr is denise", "nvm jen didnt switch", "new # 773-555-0192".
// elongatedRe finds a word with a letter three times or more in a row; drawnOut are
// the chat words people draw out so.
var (
	elongatedRe = regexp.MustCompile(`(?i)\b[a-z]*(?:aaa|nnn|ddd|sss|ooo|kkk|hhh|eee|yyy|www|ggg|lll|mmm)[a-z]*\b`)
	drawnOut    = wordSet(`and so ok oh no yes yeah yep wow ugh omg lol hey hi yay soon too`)
)

var chatWords = map[string]string{
	"sis": "sister", "bro": "brother", "mgr": "manager", "gf": "girlfriend", "bf": "boyfriend",
	"hubby": "husband", "bestie": "friend", "bff": "friend", "roomie": "roommate",
	"coworkers": "colleagues", "dept": "department", "fav": "fave", "acct": "account", "dd": "direct debit",
	"contrib": "contribution", "pmt": "payment", "pmts": "payments", "addr": "address",
	"appt": "appointment", "bday": "birthday", "yr": "year", "yrs": "years",
	"bc": "because", "b/c": "because", "cuz": "because", "thru": "through", "tho": "though",
	"rn": "now", "atm": "at the moment", "nvm": "never mind", "u": "you", "ur": "your",
	"r": "are", "pls": "please", "plz": "please", "abt": "about", "w/o": "without", "#": "number",
}

// hourRe is "hr" counted as an hour: "2 hr", "an hr", "per hr" (not "HR confirmed my
// new title", the department; "1hr" written as one word is left as it is).
var hourRe = regexp.MustCompile(`(?i)(\d|\b(?:an?|per|one|half|an extra|each|every))(\s+)hr\b`)

// andRe is texting's "n" for "and", which ends a value ("my discord is frogbyte n my
// number's …"); in lower case only, as a capital N is an initial or a row's letter.
var andRe = regexp.MustCompile(`(^|[\s(,.!;:])n([\s),.!;:?]|$)`)

// equalsLabelRe is a note's "=" after a label of words: "coffee place = the dunkin".
var equalsLabelRe = regexp.MustCompile(`(\p{L})\s*=\s+`)

// droppedApostropheRe is texting's "is" or "has" without its apostrophe after a thing's
// noun, where a plural cannot stand: "instructors called bev", "standups at 9:15", "my
// accounts still with lloyds", "rents gone up" (after "my", "the" or at a clause's start).
var droppedApostropheRe = regexp.MustCompile(`(?i)(^|[,.!;:]\s*|\b(?:my|our|the|his|her|their)\s+)(\p{L}{3,}[^s\W'])s(\s+(?:gone|been|called|set|due|booked|still\s+(?:with|at|on|in)\b|(?:at|on)\s+\d|(?:with|through)\s))`)

// honorificDotRe is a title's full stop: "Mr. Zhang", "Dr. Okafor", "St. James's".
var honorificDotRe = regexp.MustCompile(`\b(Mr|Mrs|Ms|Mx|Dr|Prof|St|Mt|Jr|Sr|mr|mrs|ms|dr|prof)\.\s+`)

// chatWordRe finds a short form of chatWords standing as a word of its own.
var chatWordRe = func() *regexp.Regexp {
	var alts []string
	for w := range chatWords {
		alts = append(alts, regexp.QuoteMeta(w))
	}
	slices.SortFunc(alts, func(a, b string) int { return len(b) - len(a) })
	return regexp.MustCompile(`(?i)(^|[\s(,.!;:])(` + strings.Join(alts, "|") + `)([\s),.!;:?]|$)`)
}()

// roleAsideRe is a name with the relation that names it in brackets, or the other way
// round: "dana (gf) is a nurse", "boss (rick) is diamond" — said as "girlfriend dana",
// "boss rick", the forms the subject reader knows.
var roleAsideRe = func() *regexp.Regexp {
	var alts []string
	for w := range relations {
		alts = append(alts, w)
	}
	slices.Sort(alts)
	rel := strings.Join(alts, "|")
	return regexp.MustCompile(`(?i)\b(?:(\p{L}+)\s*\(\s*(?:my\s+)?(` + rel + `)\s*\)|(` + rel + `)\s*\(\s*(\p{L}+)\s*\))`)
}()

// asideStops are words in brackets beside a relation that name nobody.
var asideStops = wordSet(`my the a an her his their our your me him them it this that one two again too also lol`)

// shorthand spells out chat abbreviations the readers look for as words (chatWords, a
// role in brackets), and leaves out a topic marker, which is no value ("hobby-wise").
func shorthand(text string) string {
	text = elongatedRe.ReplaceAllStringFunc(text, func(w string) string {
		// "aaand", "sooo", "okkk": a chat word drawn out is the word.
		var b strings.Builder
		for i, r := range w {
			if i == 0 || r != rune(w[i-1]) {
				b.WriteRune(r)
			}
		}
		if drawnOut[strings.ToLower(b.String())] {
			return b.String()
		}
		return w
	})
	text = topicWiseRe.ReplaceAllString(text, "${1}")
	text = honorificDotRe.ReplaceAllString(text, "${1} ") // "Mr. Zhang" is one name, no sentence's end
	text = withRe.ReplaceAllString(withSlashRe.ReplaceAllString(text, "${1}with "), "${1}with${2}")
	text = equalsLabelRe.ReplaceAllString(text, "${1}: ") // "gym = planet fitness": a label
	text = replaceSubmatches(droppedApostropheRe, text, func(sub []string) string {
		if relations[strings.ToLower(sub[2]+"s")] != "" || relations[strings.ToLower(sub[2])] != "" && len(sub[1]) == 0 {
			return sub[0] // "parents been great": a plural of people
		}
		if v := strings.ToLower(strings.TrimSpace(sub[3])); (strings.HasPrefix(v, "with") || strings.HasPrefix(v, "through")) && !attributeCue(strings.ToLower(sub[2])) {
			return sub[0] // "my friends with kids"; "broadbands with virgin" is the broadband's
		}
		return sub[1] + sub[2] + "'s" + sub[3]
	})
	text = hourRe.ReplaceAllString(text, "${1}${2}hour")
	for range 2 { // twice: "n n" shares a space
		text = andRe.ReplaceAllString(text, "${1}and${2}")
	}
	for range 2 { // twice: matches that share a space ("r u") are found in turn
		text = replaceSubmatches(chatWordRe, text, func(sub []string) string {
			return sub[1] + chatWords[strings.ToLower(sub[2])] + sub[3]
		})
	}
	return replaceSubmatches(roleAsideRe, text, func(sub []string) string {
		name, rel := sub[1], sub[2] // "dana (gf)"
		if name == "" {
			name, rel = sub[4], sub[3] // "boss (rick)"
		}
		if relations[strings.ToLower(name)] != "" || asideStops[strings.ToLower(name)] {
			return sub[0]
		}
		return "my " + rel + " " + name
	})
}

// replaceSubmatches is regexp's ReplaceAllStringFunc given each match's submatches
// (sub[0] the match), so that a replacement is not matched a second time to read them.
func replaceSubmatches(re *regexp.Regexp, text string, repl func(sub []string) string) string {
	matches := re.FindAllStringSubmatchIndex(text, -1)
	if len(matches) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, ix := range matches {
		sub := make([]string, len(ix)/2)
		for i := range sub {
			if ix[2*i] >= 0 {
				sub[i] = text[ix[2*i]:ix[2*i+1]]
			}
		}
		b.WriteString(text[last:ix[0]])
		b.WriteString(repl(sub))
		last = ix[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// possessives restores the apostrophe chat leaves out after a name known as a subject
// (named: the subjects of the user's slots and the people named before): "alfies
// teacher is mrs patel" is alfie's teacher. Only such names are touched ("jos" with no
// jo known stays).
func possessives(text string, named map[string]bool) string {
	return possessiveRe.ReplaceAllStringFunc(text, func(m string) string {
		end := strings.IndexFunc(m, unicode.IsSpace) - 1 // the "s"
		if subj := strings.ToLower(m[:end]); len(subj) < 3 || subj == "user" || relations[subj] != "" || !named[subj] {
			return m
		}
		return m[:end] + "'" + m[end:]
	})
}

// possessiveRe is a word ending in "s" before another word: a name's possessive when
// the name is known (possessives).
var possessiveRe = regexp.MustCompile(`\b\p{L}+s\s+\p{L}`)

// unshout lower-cases each sentence of text written in capitals throughout ("POPPY HAS
// SWITCHED TO ARSENAL" says "poppy has switched to arsenal"): its capitals mark no names.
func unshout(text string) string {
	var b strings.Builder
	start := 0
	for _, ix := range append(sentenceEnd.FindAllStringIndex(text, -1), []int{len(text), len(text)}) {
		s := text[start:ix[0]]
		if shouted(s) {
			s = strings.ToLower(s)
		}
		b.WriteString(s)
		b.WriteString(text[ix[0]:ix[1]])
		start = ix[1]
	}
	return b.String()
}

// shouted reports a sentence written in capitals throughout, two words or more.
func shouted(s string) bool {
	letters, words := 0, 0
	for _, w := range strings.Fields(s) {
		has := false
		for _, r := range w {
			if unicode.IsLower(r) {
				return false
			}
			if unicode.IsUpper(r) {
				letters++
				has = true
			}
		}
		if has {
			words++
		}
	}
	return words >= 2 && letters >= 4
}

func isDigitStart(s string) bool { return s != "" && unicode.IsDigit(rune(s[0])) }

// currencySigns stand before an amount: "£640", "₱2,500".
const currencySigns = "£$€₱₹¥₦"

// amountStart reports a word that starts an amount, its currency sign left out.
func amountStart(w string) bool { return isDigitStart(strings.TrimLeft(w, currencySigns)) }

// amountShaped reports whether s is a number written as an amount: with a thousands
// separator or a decimal point, or of three digits or more ("18,000", "4.50", "1500").
func amountShaped(s string) bool {
	if !isDigitStart(s) {
		return false
	}
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case r != ',' && r != '.':
			return false
		}
	}
	return digits >= 3 || strings.ContainsAny(s, ",.")
}

// startsStatement reports whether ts starts with a subject and, so, a new statement.
func startsStatement(ts []token) bool {
	if len(ts) == 0 {
		return false
	}
	switch ts[0].low {
	case "i", "i'm", "im", "i've", "ive", "i'd", "i'll", "we", "we're", "we've", "he", "she", "he's", "she's", "they", "they're", "it's", "its", "my", "our", "his", "her", "their":
		return true
	}
	// "… and dan's gone and moved to cardiff": a name with "'s" and a verb's participle
	// opens a clause of that person's.
	if name, ok := strings.CutSuffix(ts[0].low, "'s"); ok && len(ts) > 1 && isWord(name) && !notName(name) && participleNext[ts[1].low] {
		return true
	}
	return false
}

// participleNext follow a name's "'s" (has, is) when it opens a clause: "dan's gone".
var participleNext = wordSet(`gone got been moved started left quit taken finished changed switched just finally now still only
	decided booked bought sold joined retired`)

// fillers are words that start a clause without being its subject.
var fillers = map[string]bool{
	"ngl": true, "imo": true, "lmao": true, "lmfao": true, "istg": true,
	"and": true, "but": true, "so": true, "oh": true, "also": true, "ok": true, "okay": true, "well": true, "btw": true, "plus": true,
	"then": true, "anyway": true, "update": true, "lol": true, "honestly": true, "wait": true, "no": true, "yes": true, "yeah": true,
	"sorry": true, "ugh": true, "actually": true, "correction": true, "fyi": true, "just": true, "because": true, "cos": true, "hey": true,
	"um": true, "omg": true, "haha": true, "tbh": true, "alright": true, "right": true, "hmm": true, "phew": true, "finally": true, "still": true,
	"officially": true, "now": true, "good": true, "news": true, "forgot": true, "to": true, "say": true, "mention": true, "tell": true,
	"you": true, "guess": true, "what": true, "quick": true, "context": true, "oops": true, "apparently": true, "basically": true, "ah": true,
	// Sentence adverbs say how the speaker feels about what follows, never who it is about:
	// "Sadly our dog Rex died".
	"sadly": true, "unfortunately": true, "fortunately": true, "luckily": true, "thankfully": true, "happily": true,
	"hopefully": true, "surprisingly": true, "obviously": true, "clearly": true,
	// Discourse links: "meanwhile my husband luis drives a tacoma".
	"meanwhile": true, "otherwise": true, "besides": true, "anyhow": true,
	// Greetings and exclamations: "Hi Audrey!" is said to Audrey, about nobody.
	"hi": true, "hello": true, "hiya": true, "thanks": true, "congrats": true, "wow": true, "woohoo": true, "yay": true, "aww": true,
	// Exclamations of other Englishes and of chat, never a name: "Wah my passport
	// expiring February leh", "Haiz the bus fare went up", "Eish the landlord again".
	"wah": true, "haiz": true, "aiyo": true, "aiyoh": true, "aiya": true, "alamak": true, "walao": true, "abeg": true, "haba": true,
	"eish": true, "arre": true, "yaar": true, "grabe": true, "oof": true, "yikes": true, "welp": true, "gosh": true, "jeez": true,
	"blimey": true, "crikey": true, "argh": true, "sheesh": true,
	// Politeness: "Please note that my friend Theo has moved", "Kindly update: …".
	"please": true, "pls": true, "plz": true, "kindly": true,
}

// timeLeads open a clause with when it holds, before the subject.
var timeLeads = map[string]bool{"nowadays": true, "lately": true, "recently": true, "currently": true}

func skipFillers(ts []token) []token {
	for len(ts) > 0 {
		switch {
		case fillers[ts[0].low] || timeLeads[ts[0].low]:
			// "i forgot to say" / "oh i forgot to tell you": drop the whole aside.
			ts = ts[1:]
			continue
		case len(ts) > 1 && (ts[0].low == "these" || ts[0].low == "this") && (ts[1].low == "days" || ts[1].low == "year" || ts[1].low == "week" || ts[1].low == "month"):
			// "these days my dad only dances salsa": the time frame is no subject.
			ts = ts[2:]
			continue
		}
		// "and of course my sister has now moved …": an aside opens the clause. "back in
		// march mum and dad moved …", "last week my boss said …": the time of the event
		// is no subject (eventTime reads it from the clause).
		if n := cmp.Or(leadPhrase(ts), timeLead(ts)); n > 0 {
			ts = ts[n:]
			continue
		}
		break
	}
	if len(ts) >= 3 && (ts[0].low == "i" || ts[0].low == "oh") && (ts[1].low == "forgot" || ts[1].low == "meant") {
		return skipFillers(ts[2:])
	}
	return ts
}

// leadPhrases are asides of several words that open a clause before its subject.
var leadPhrases = [][]string{{"of", "course"}, {"by", "the", "way"}, {"turns", "out"}, {"it", "turns", "out"}, {"in", "other", "news"},
	{"fun", "fact"}, {"to", "be", "fair"}, {"for", "the", "record"}, {"long", "story", "short"}, {"speaking", "of", "which"}, {"as", "it", "turns", "out"},
	// What the speaker asks to be noted, before what is to be noted.
	{"note", "that"}, {"remember", "that"}, {"be", "aware", "that"}, {"keep", "in", "mind", "that"}, {"for", "your", "information"}, {"for", "your", "info"},
	{"just", "so", "you", "know"}}

// memoryCommandRe is a clause that only asks the assistant to keep what follows or went
// before: "Note to self", "update your notes", "log this", "add to my profile".
var memoryCommandRe = regexp.MustCompile(`(?i)^(?:(?:pls|please|can you|could you|kindly)\s+)?(?:note to self|(?:update|check) (?:your|my) (?:notes|records|profile|memory|file)|log (?:this|it|that)|note (?:this|it|that)(?: down)?|add (?:this |that )?to (?:my|your) (?:profile|notes|records)|heads up|remember (?:this|that)|for your (?:notes|records)|fyi for your notes|keep (?:this|that) in mind|make a note(?: of (?:this|that))?|jot (?:this|that) down|save (?:this|that))\W*$`)

// leadPhrase returns how many words of ts an aside of leadPhrases takes, else 0.
func leadPhrase(ts []token) int {
	for _, ph := range leadPhrases {
		if len(ts) > len(ph) && slices.EqualFunc(ts[:len(ph)], ph, func(t token, w string) bool { return strings.Trim(t.low, ",:") == w }) {
			return len(ph)
		}
	}
	return 0
}

// timeLeadPreps open a time phrase of two words: "in march", "since april", "from
// september".
var timeLeadPreps = wordSet(`in on since last this next from starting until till`)

// timeLead returns how many words of ts are a time phrase that opens the clause before
// more words ("back in march", "last week", "on saturday", "since april", "two weeks
// ago", "yesterday", "from september", "next month", "as of monday"), else 0.
func timeLead(ts []token) int {
	when := func(w string) bool { return isMonthOrDay(w) || timeNouns[w] || isYear(w) }
	n := 0
	w := func(i int) string {
		if i < len(ts) {
			return strings.TrimSuffix(ts[i].low, ",")
		}
		return ""
	}
	switch {
	case w(0) == "yesterday" || w(0) == "today" || w(0) == "tonight":
		n = 1
	case w(0) == "back" && (w(1) == "in" || w(1) == "on") && when(w(2)):
		n = 3
	case timeLeadPreps[w(0)] && when(w(1)):
		n = 2
	case (w(0) == "from" || w(0) == "starting") && (w(1) == "next" || w(1) == "this") && when(w(2)), w(0) == "as" && w(1) == "of" && when(w(2)):
		n = 3 // "from next month", "as of monday"
	case (w(0) == "over" || w(0) == "at") && w(1) == "the" && w(2) == "weekend":
		n = 3
	case (w(0) == "a" || w(0) == "two" || w(0) == "three" || w(0) == "few" || isDigitStart(w(0))) && timeNouns[strings.TrimSuffix(w(1), "s")] && w(2) == "ago":
		n = 3
	}
	if n > 0 && n < len(ts) && isMonthOrDay(w(n-1)) && isDigitStart(w(n)) {
		n++ // "on march 3rd"
	}
	if n >= len(ts) {
		return 0
	}
	return n
}

// timeNouns name spans of time in timeLead.
var timeNouns = wordSet(`week weekend month year night morning evening afternoon spring summer autumn fall winter term semester day`)

// isYear reports whether w is a year such as 2019.
func isYear(w string) bool {
	return len(w) == 4 && (strings.HasPrefix(w, "19") || strings.HasPrefix(w, "20")) && strings.Trim(w, "0123456789") == ""
}

// honorifics stand before a surname: "Mrs Osei", "Dr Khan", "Herr Yilmaz".
var honorifics = wordSet(`mr mrs ms dr prof herr frau`)

// kinTitles are forms of address before a first name, in English and in the languages
// people mix in: "Aunt Ruth", "Kuya Paolo", "Ate Joy", "Tita Baby", "Didi Priya".
var kinTitles = wordSet(`aunt auntie aunty uncle kuya ate tita tito lola lolo didi bhaiya abuela abuelo tia tio`)

// titledName returns the key of a title and the surname after it at ts[i] ("Mrs Osei":
// mrs-osei) and how many words they take, else "" and 0.
func titledName(ts []token, i int) (string, int) {
	if i+1 < len(ts) && honorifics[ts[i].low] && isCapitalised(ts[i+1]) {
		return Kebab(ts[i].low + " " + strings.TrimSuffix(ts[i+1].low, "'s")), 2
	}
	return "", 0
}

// speaksOfSelf reports words in the first person or the speaker's possessive: "I", "we",
// "my", "our".
func speaksOfSelf(ts []token) bool {
	return slices.ContainsFunc(ts, func(t token) bool { return firstPerson[t.low] || t.low == "my" || t.low == "our" })
}

// firstPerson words make the speaker the subject.
var firstPerson = map[string]bool{"i": true, "i'm": true, "im": true, "i've": true, "ive": true, "i'd": true, "i'll": true, "me": true, "we": true, "we're": true, "we've": true, "we'll": true, "us": true, "myself": true, "were": false}

// relations are words for people the user talks about; the value is the subject key.
var relations = map[string]string{
	"sister": "sister", "brother": "brother", "mum": "mum", "mom": "mum", "mother": "mum", "mam": "mum", "dad": "dad", "father": "dad",
	"parents": "parents", "son": "son", "daughter": "daughter", "kids": "kids", "boys": "boys", "girls": "girls", "cousin": "cousin",
	"aunt": "aunt", "uncle": "uncle", "nan": "grandma", "nonna": "grandma", "grandma": "grandma", "gran": "grandma", "grandad": "grandad",
	"grandpa": "grandad", "nephew": "nephew", "niece": "niece", "friend": "friend", "colleague": "colleague", "coworker": "colleague",
	"neighbour": "neighbour", "neighbor": "neighbour", "husband": "partner", "wife": "partner", "girlfriend": "partner", "boyfriend": "partner",
	"partner": "partner", "fiance": "partner", "fiancee": "partner", "housemate": "flatmate", "flatmate": "flatmate", "roommate": "flatmate",
	"manager": "manager", "boss": "manager", "leader": "manager", "landlord": "landlord", "landlady": "landlord", "buddy": "friend", "mate": "friend",
	"physio": "doctor", "doctor": "doctor", "gp": "doctor", "dentist": "doctor", "vet": "vet", "tutor": "teacher", "teacher": "teacher", "mentor": "teacher",
	"baby": "baby", "team": "team", "therapist": "doctor", "coach": "coach", "carer": "carer", "stepdad": "stepdad", "stepmum": "stepmum",
	"grandson": "grandson", "granddaughter": "granddaughter", "grandkids": "grandkids", "grandchildren": "grandkids", "stepson": "stepson",
	"stepdaughter": "stepdaughter", "eldest": "eldest", "youngest": "youngest", "supervisor": "supervisor", "babysitter": "babysitter",
	"nanny": "babysitter", "sitter": "babysitter", "childminder": "babysitter", "cleaner": "cleaner",
	"psychiatrist": "doctor", "psychologist": "doctor", "counsellor": "doctor", "counselor": "doctor", "neurologist": "doctor",
	"advisor": "supervisor", "adviser": "supervisor",
}

// roles are relations that are also attributes of the user: "my manager is Dana" is the
// user's fact user/manager = Dana.
var roles = map[string]string{
	"manager": "manager", "boss": "manager", "leader": "manager", "landlord": "landlord", "landlady": "landlord", "husband": "partner", "wife": "partner",
	"girlfriend": "partner", "boyfriend": "partner", "partner": "partner", "housemate": "flatmate", "flatmate": "flatmate", "roommate": "flatmate",
	"flatmates": "flatmate", "housemates": "flatmate", "physio": "doctor", "doctor": "doctor", "gp": "doctor", "dentist": "doctor", "vet": "vet", "tutor": "teacher",
	"teacher": "teacher", "mentor": "teacher", "carer": "carer", "therapist": "doctor", "coach": "teacher", "gastro": "doctor",
	"psychiatrist": "doctor", "psychologist": "doctor", "counsellor": "doctor", "counselor": "doctor", "neurologist": "doctor",
	"consultant": "doctor", "surgeon": "doctor", "nurse": "doctor", "pharmacist": "doctor", "midwife": "doctor", "dietitian": "doctor", "dietician": "doctor",
	"optician": "doctor", "specialist": "doctor", "osteopath": "doctor", "chiropractor": "doctor", "cardiologist": "doctor", "dermatologist": "doctor",
	"supervisor": "supervisor", "babysitter": "babysitter", "nanny": "babysitter", "sitter": "babysitter", "childminder": "babysitter", "cleaner": "cleaner",
	"advisor": "supervisor", "adviser": "supervisor", "paediatrician": "doctor", "pediatrician": "doctor", "allergist": "doctor", "pulmonologist": "doctor",
	"orthodontist": "doctor", "podiatrist": "doctor", "physiotherapist": "doctor", "gynaecologist": "doctor", "gynecologist": "doctor",
}

// entityHeads are nouns of described third parties that have facts of their own: "the
// mobile team", "the project", "the weekly product sync".
var entityHeads = map[string]bool{"team": true, "project": true, "sync": true, "meeting": true, "proposal": true, "committee": true, "club": true, "band": true, "launch": true, "release": true, "conference": true, "workshop": true, "class": true, "lesson": true, "lessons": true, "group": true}

// modifiers are adjectives left out of an entity's key: "the big grant proposal" →
// grant-proposal.
var modifiers = map[string]bool{"the": true, "a": true, "our": true, "my": true, "big": true, "new": true, "weekly": true, "whole": true, "main": true, "old": true, "daily": true, "monthly": true, "annual": true, "small": true, "little": true, "first": true, "next": true, "this": true, "that": true, "his": true, "her": true, "their": true, "your": true}

// pronouns that refer back to a third party.
var pronouns = map[string]bool{"he": true, "she": true, "he's": true, "she's": true, "his": true, "her": true, "him": true, "hes": true, "shes": true, "he'd": true, "she'd": true, "he'll": true, "she'll": true}

// verbLikeNames are names that end like a verb form.
var verbLikeNames = map[string]bool{"ahmed": true, "mohammed": true, "muhammed": true, "jared": true, "reed": true, "irving": true, "sterling": true, "king": true}

// verbs that follow a subject; with words ending in -s or -ed, they tell a name from a
// noun at the start of a clause.
var subjectVerbs = map[string]bool{
	"is": true, "was": true, "got": true, "has": true, "had": true, "does": true, "did": true, "said": true, "says": true, "quit": true,
	"left": true, "sold": true, "made": true, "hurt": true, "went": true, "came": true, "took": true, "runs": true, "ran": true, "won't": true,
	"will": true, "can": true, "can't": true, "just": true, "finally": true, "and": true, "lives": true, "works": true, "plays": true, "still": true,
	"isn't": true, "doesn't": true, "wants": true, "thinks": true, "reckons": true, "started": true, "moved": true, "lasted": true, "tore": true,
	"broke": true, "gets": true, "lets": true, "also": true, "now": true, "always": true, "never": true, "are": true, "were": true, "be": true, "gave": true,
}

// common words are never names, even lower case at the start of a clause.
var common = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the this that these those it its it's there there's here what who which someone everyone everything
	nothing something anyone they they're them their you your yours it'll that's today tonight tomorrow yesterday week month year morning
	evening night weekend work job rent bills bill bins bin internet energy pickup school uni course company commute season insurance
	flight flights dates date trip plan plans phone number email address office standup meeting sync renovation council watch apple finance
	life home house flat car train tram bus money price cost fee fees budget time day days hours new old next last first second third one two
	three four five six seven eight nine ten all both each every some most many much more less few lots lot got go went doing did done
	coffee tea food dinner lunch breakfast letter results result test bloods scan mri doctor physio gp family kitchen garden room building
	weather rain sun snow heat traffic movers keys mail post parcel package email emails gym pool class lessons lesson practice game match
	assignments assignment deadline exam exams grade grades modules module term semester cert certificate bootcamp degree swimming running
	football kids boys girls parents mum dad sister brother wife husband landlord landlady manager boss team project party wedding holiday
	gig concert film movie show book podcast hair teeth knee back shins ankle feet arm leg head diet sleep noise music radio tv laptop camera
	is are was were be been being have has had do does did can could should would will shall may might must so and but or if then than too
	very really just still also even only ever never always not no yes now new good bad great fine ok okay lol omg ugh wow yay nope nah sure
	hr payroll recruiter contract client clients invoice invoices funder grant draft reading list library tickets ticket hotel cabin flight
	rec centre center boyfriend girlfriend partner cousin friend friends colleague coworker neighbour neighbours baby cat cats dog dogs puppy
	they've they'd they'll theyve everyone's nobody somebody normal except for on at in shin sea people guy guys lads girl woman man men women staff nurse teacher tutor coach home's its nice lovely
	passport visa licence license lease tenancy membership warranty railcard permit`) {
		m[w] = true
	}
	for _, a := range attributes {
		for _, c := range a.cues {
			m[c] = true
		}
	}
	return m
}()

// isNameToken reports whether t, at position i of its clause, looks like a person's
// name: capitalised inside a sentence, or at the start of a clause and followed by a verb
// while not being a common word.
func isNameToken(ts []token, i int) bool {
	t := ts[i]
	w := strings.TrimSuffix(strings.TrimSuffix(t.low, "'s"), "’s")
	if w == "" || notName(w) || !isWord(w) || len(w) < 2 {
		return false
	}
	if isMonthOrDay(w) {
		return false
	}
	if i+1 < len(ts) && !t.end && amountShaped(ts[i+1].low) {
		return false // "KSh 18,000", "Rs 1500": a currency or a unit; "Mia 7" may be an age
	}
	if i+2 < len(ts) && !t.end && isCapitalised(t) && (ts[i+1].low == "is" || ts[i+1].low == "was") && (strings.HasSuffix(ts[i+2].low, "%") || amountStart(ts[i+2].low) && !isDigitStart(ts[i+2].low)) {
		return false // "Commission is 8% on new logos", "Parking is £6 a day": a thing's amount; "Mia is 7" may be an age
	}
	if i == 0 && verbForm(w) && !verbLikeNames[w] {
		// "Fixing cars is such an art", "Excited to …", "Look at this": a verb opens the
		// clause, whatever its capital says.
		return false
	}
	r := []rune(t.orig)
	if k := strings.LastIndex(t.orig, "-"); k > 0 && k+1 < len(t.orig) && unicode.IsLower(rune(t.orig[k+1])) {
		return false // "Take-home is about £2,450": a thing; "Jean-Luc" is a name
	}
	if unicode.IsUpper(r[0]) && (i > 0 || len(ts) == 1 || !unicode.IsUpper(r[len(r)-1]) || len(r) == 1) {
		if len(r) > 1 && strings.ToUpper(t.orig) == t.orig && len(r) <= 4 {
			return false // an acronym: "NHS", "UX"
		}
		return true
	}
	if nounShaped(w) {
		return false // "payday is the 25th", "the renovation's done": a thing, lower case
	}
	if strings.HasSuffix(t.low, "'s") {
		return true
	}
	if i+1 < len(ts) {
		j := i + 1
		for j+1 < len(ts) && nameAdverbs[ts[j].low] && !ts[j].end {
			j++ // "marcus only ever drinks …"
		}
		n := ts[j].low
		return subjectVerbs[n] || (len(n) > 3 && (strings.HasSuffix(n, "ed") || strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") && !strings.HasSuffix(n, "'s")))
	}
	return false
}

// nounOpening reports whether a clause opens with a capitalised word that a lower-case
// noun follows, so that the word is no name but the start of a noun phrase: "Mental
// health's a priority", "Dance classes are the best", "Pottery class was fun". A name is
// followed by its verb ("Caroline loves", "Mel went", "Theo only does yoga"), by "and",
// or by a second capitalised name.
func nounOpening(ts []token) bool {
	if len(ts) < 3 || !isCapitalised(ts[0]) || ts[0].end || strings.HasSuffix(ts[0].low, "'s") || firstPerson[ts[0].low] || relations[ts[0].low] != "" {
		return false
	}
	n := ts[1]
	if isCapitalised(n) || !isWord(n.low) || subjectVerbs[n.low] || nameAdverbs[n.low] || pastVerbs[n.low] || auxiliaries[n.low] || verbWords[n.low] || n.low == "&" {
		return false
	}
	w := strings.TrimSuffix(n.low, "'s")
	if w != n.low {
		return true // "health's a priority"
	}
	if strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") {
		return false
	}
	if strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		// "Caroline loves" or "Dance classes are": a plural noun is followed by its verb.
		switch ts[2].low {
		case "are", "were", "have", "aren't", "weren't", "haven't", "make", "help", "give", "keep":
			return true
		}
		return false
	}
	// "Greystar renewal came in": a singular noun followed by its verb, in the past too.
	return nounVerbs[ts[2].low] || pastVerbs[ts[2].low]
}

// nounVerbs follow a singular noun that opens a clause: "Mental health's a priority",
// "Pottery class was fun".
var nounVerbs = wordSet(`is was has isn't wasn't makes helps gives keeps`)

// ownedThings are the amounts and dates a speaker has one of, which "the" names as the
// speaker's own: "the commute", "the rent", "the dose", "the deadline".
var ownedThings = wordSet(`commute rent dose budget deadline salary mortgage`)

// definiteOwn reports ts opening with one of ownedThings and then its verb ("commute is
// now …", "rent's going up", "deadline got moved").
func definiteOwn(ts []token) bool {
	w := strings.TrimSuffix(ts[0].low, "'s")
	if !ownedThings[w] {
		return false
	}
	if w != ts[0].low {
		return true
	}
	switch n := ts[1].low; n {
	case "is", "was", "goes", "went", "going", "got", "gets", "will", "has", "had", "moved", "came", "comes":
		return true
	default:
		return nameAdverbs[n]
	}
}

// nameAdverbs stand between a name and its verb: "Theo only does yoga".
var nameAdverbs = wordSet(`only also just still never always finally really usually often sometimes recently already actually probably even ever totally basically now then mostly literally`)

// pastVerbs are irregular past forms that follow a name: "Ravi sent", "Mia bought".
var pastVerbs = wordSet(`sent bought won told found brought taught kept met paid put read saw spent stood threw wrote drove flew grew knew became began fell felt heard held lost meant rode sang sat slept spoke swam wore woke gave got took made came went ran left sold`)

// alnum reports a word of letters and digits only ("a2", "401k", "isa").
func alnum(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && r != '-' && r != '\'' {
			return false
		}
	}
	return true
}

var monthsDays = map[string]bool{}

func init() {
	for _, w := range strings.Fields("january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays mon tue tues wed thu thur thurs fri sat xmas christmas easter") {
		monthsDays[w] = true
	}
}

func isMonthOrDay(w string) bool { return monthsDays[w] }

// people is what an extraction call remembers of who was mentioned, for pronouns and
// repeated descriptions.
type people struct {
	last     string   // the last person named (a pronoun's referent)
	entities []string // described third parties seen, newest last ("product-sync")
	// things are one-word values of the user's slots that name no person ("medicine" of
	// zara/job, "leeds" of user/home): such a word opening a clause is no one's name
	// ("medicine was breaking her").
	things map[string]bool
	// cased: the text writes names with capitals, so a lower-case word after a relation
	// is no name ("My GP surgery is Hillside").
	cased bool
	// held is the speaker's role and its holder the last clause named ("my manager Dana
	// said …": manager, dana), for a role that one person holds (holderRoles).
	held [2]string
	// persons are the first names of the people the user's slots hold (the values of
	// person attributes and roles: "Dana Whitfield" of user/doctor): a clause that names
	// one anywhere makes them a pronoun's referent ("had my last session with Dana today,
	// she's relocating").
	persons map[string]personRef
}

// personRef is a person a slot holds: the slot's key and the value that names them.
type personRef struct{ key, value string }

// namedPerson returns a known person (persons) a clause names after its subject, or "".
func (p *people) namedPerson(rest []token) string {
	for _, t := range rest {
		if _, ok := p.persons[strings.TrimSuffix(t.low, "'s")]; ok {
			return Kebab(strings.TrimSuffix(t.low, "'s"))
		}
	}
	return ""
}

// holderRoles are the speaker's roles one person holds at a time: naming "my manager
// Dana" states who the manager is.
var holderRoles = wordSet(`manager landlord partner supervisor cleaner babysitter`)

// knowThings records what the slots hold (Input.Values): the one-word values of slots
// whose attribute is not a person's (things), and the first names of the people person
// slots hold (persons), with the slot and the value that names them. Keys are read in
// order, so that of two slots that hold one first name the later key names the person.
func (p *people) knowThings(values map[string][]string) {
	for _, key := range slices.Sorted(maps.Keys(values)) {
		_, attr, ok := strings.Cut(key, "/")
		attr, _, _ = strings.Cut(attr, "/")
		_, known := attributeByName(Kebab(attr))
		if !ok {
			continue
		}
		for _, v := range values[key] {
			if personSlot(attr) {
				p.knowPerson(key, v)
			} else if w := strings.ToLower(strings.TrimSpace(v)); known && w != "" && !strings.ContainsAny(w, " -'") {
				if p.things == nil {
					p.things = map[string]bool{}
				}
				p.things[w] = true
			}
		}
	}
}

// knowPerson records the first name of v, a value of the person slot key.
func (p *people) knowPerson(key, v string) {
	ws := strings.Fields(strings.ToLower(v))
	for len(ws) > 1 && honorifics[strings.TrimSuffix(ws[0], ".")] {
		ws = ws[1:]
	}
	if len(ws) == 0 || !isWord(ws[0]) || notName(ws[0]) || len(ws[0]) < 3 {
		return
	}
	if p.persons == nil {
		p.persons = map[string]personRef{}
	}
	p.persons[ws[0]] = personRef{key: key, value: v}
}

// subject resolves whose fact a clause states. It returns the subject key, the tokens
// after the subject phrase, and a role attribute when the clause names the user's
// manager, partner, landlord, … ("my manager is Dana": "manager").
func (p *people) subject(ts []token, self string) (subj string, rest []token, role string) {
	ts = skipTimeLead(skipFillers(ts))
	// Reported speech: "mum says he's cut out bread" states what follows "says".
	for i := 1; i < min(len(ts), 4); i++ {
		w, at, told := ts[i].low, i, false
		if tellingVerbs[w] && i+2 < len(ts) && (ts[i+1].low == "me" || ts[i+1].low == "us") {
			w, told = "says", true // "mum told me she's on sertraline too"
			i++
		}
		if (w == "says" || w == "said" || w == "reckons" || w == "thinks" || reportingVerbs[w] && !firstPerson[ts[0].low]) && i+1 < len(ts) {
			if n := i + 1; n < len(ts) && ts[n].low == "that" {
				i++
			}
			inner := ts[i+1:]
			if len(inner) >= 2 {
				// "rafa's gp says he's not lactose intolerant": he is rafa; "tomás said he'd
				// sort it out": he is tomás, when nobody else was named before ("mum says
				// he's cut out bread" is about the one named before). Who tells the
				// speaker ("mum told me she's on …") tells of themselves.
				if w := strings.TrimSuffix(ts[0].low, "'s"); w != ts[0].low && at == 2 || at == 1 && (p.last == "" || told) {
					if rel := relations[w]; rel != "" {
						p.last = rel
					} else if isNameToken(ts, 0) || i == 1 && isWord(w) && !notName(w) {
						p.last = Kebab(w)
					}
				}
				s, r, ro := p.subject(inner, self)
				return s, r, ro
			}
		}
	}
	if owner, i := p.servedOwner(ts); i > 0 {
		// "mum's gp put the amlodipine up to 10mg", "Marta's physio has put her in Brooks
		// Ghost": one who serves someone acts on that one's state.
		return owner, ts[i:], ""
	}
	if i := placedSelf(ts); i > 0 {
		// "gp switched me to rosuvastatin", "marek's got me on the exercise bike": someone
		// else acts, the state is the user's.
		return self, ts[i:], ""
	}
	if who, i := p.placedOther(ts); i > 0 {
		// "we moved Ava to Oakfield primary", "I've put my mum on the waiting list": the
		// state is the one placed's.
		return who, ts[i:], ""
	}
	if i := actsOnOwn(ts); i > 0 {
		// "gp upped my sertraline to 100mg", "landlord put the rent up to 1,750": someone
		// else changes a thing of the user's; "the doctor doubled his metformin", of the
		// one named before.
		if w := ts[i+1].low; w == "his" || w == "her" || w == "their" {
			if p.last == "" {
				return "", ts[i:], ""
			}
			return p.last, ts[i:], ""
		}
		return self, ts[i:], ""
	}
	if len(ts) == 0 {
		return self, ts, ""
	}
	w0 := ts[0].low
	switch {
	case w0 == "our" && len(ts) > 2 && isCapitalised(ts[1]) && !notName(ts[1].low) && (subjectVerbs[ts[2].low] || thirdPersonVerb(ts, 2)):
		// "Our Derek has taken up bowls": a family member named the way families do.
		p.last = Kebab(ts[1].low)
		return p.last, ts[2:], ""
	case w0 == "our" && len(ts) > 2 && !p.cased && ourName(ts[1].low):
		// "our callum's only gone and got engaged": the same, in lower case, with "'s".
		p.last = Kebab(strings.TrimSuffix(ts[1].low, "'s"))
		return p.last, ts[2:], ""
	case firstPerson[w0] || w0 == "our" && !p.isEntityPhrase(ts) && (len(ts) < 2 || relations[strings.TrimSuffix(ts[1].low, "'s")] == "") &&
		!(len(ts) > 2 && labelLeads[ts[1].low] && roles[strings.TrimSuffix(ts[2].low, "'s")] != ""):
		// "our new leader is Ms Liu" is the speaker's role (possessed, below).
		// "our neighbour Pat has a cat" is the neighbour's (possessed, below).
		if w0 == "me" && len(ts) > 2 && ts[1].low == "and" {
			// "me and my girlfriend priya rent a house": the user's fact.
			return self, ts[2:], ""
		}
		return self, ts[1:], ""
	case w0 == "my" || w0 == "new" || w0 == "our":
		return p.possessed(ts, self)
	case (w0 == "fave" || w0 == "favourite" || w0 == "favorite") && len(ts) > 2:
		// "fave band rn is wet leg": the speaker's favourite, no band's fact.
		return self, ts, ""
	case w0 == "the" && len(ts) > 2 && definiteOwn(ts[1:]):
		// "The commute is now 30 minutes", "the rent's going up": a thing each speaker
		// has one of, said with "the", is the speaker's.
		return self, ts[1:], ""
	case w0 == "mine" || w0 == "mine's" || w0 == "ours" || w0 == "ours's":
		// "mine's £895": the speaker's own of the thing just spoken of, no one named.
		return self, ts[1:], ""
	case (w0 == "hers" || w0 == "hers's") && p.last != "":
		return p.last, ts[1:], ""
	case w0 == "the" && len(ts) > 1 && relations[strings.TrimSuffix(ts[1].low, "'s")] != "" && roles[strings.TrimSuffix(ts[1].low, "'s")] == "":
		rel := relations[strings.TrimSuffix(ts[1].low, "'s")]
		p.last = rel
		return rel, ts[2:], ""
	case pronouns[w0]:
		if p.last != "" {
			return p.last, ts[1:], ""
		}
		// "he moved to Leeds" with nobody named before: whose move it is cannot be told,
		// and it is not the speaker's.
		return "", ts[1:], ""
	}
	if rel, ok := relations[strings.TrimSuffix(w0, "'s")]; ok && w0 != "team" {
		if _, isRole := roles[strings.TrimSuffix(w0, "'s")]; isRole || w0 == rel && len(ts) > 2 && isNameAfterRelation(ts, 1) && actsAt(ts, 2) {
			// "roommate nate pays $800", "friend marcus got hired": the one named.
			return p.possessed(ts, self)
		}
		if w0 == "mum" && len(ts) > 2 && ts[1].low == "and" && ts[2].low == "dad" {
			return "parents", ts[3:], ""
		}
		p.last = rel
		return rel, ts[1:], ""
	}
	if e, n := p.entity(ts); e != "" {
		return e, ts[n:], ""
	}
	if nounOpening(ts) {
		// "Mental health's a priority", "Dance classes are the best": a thing, no one's
		// name, opens the clause; with no first person it states nobody's fact.
		if speaksOfSelf(ts) {
			return self, ts, ""
		}
		return "", ts, ""
	}
	if titled, n := titledName(ts, 0); n > 0 && !isNameToken(ts, 0) && n < len(ts) && (ts[n].low == "is" || ts[n].low == "was") {
		// "Dr Mbeki is my advisor": a title that is also a word of the table (a doctor's
		// "dr") and the name, said to be someone; "Dr Wanjiru has added a Seretide
		// preventer" acts on the speaker's state.
		p.last = titled
		return p.last, ts[n:], ""
	}
	if isNameToken(ts, 0) && !p.things[strings.TrimSuffix(w0, "'s")] {
		// "ines's sister marta is coming": the last name of a possessive chain.
		i := 0
		for i+2 < len(ts) && strings.HasSuffix(ts[i].low, "'s") && relations[ts[i+1].low] != "" && isNameAfterRelation(ts, i+2) {
			i += 2
		}
		name := Kebab(strings.TrimSuffix(ts[i].low, "'s"))
		if titled, n := titledName(ts, i); n > 0 {
			// "Mrs Osei takes her cat to Riverside": the title and the name.
			p.last = titled
			return p.last, ts[i+n:], ""
		}
		if r := roles[ts0(ts[i+1:])]; r != "" && strings.HasSuffix(ts[i].low, "'s") && i+2 < len(ts) && (ts[i+2].low == "is" || ts[i+2].low == "'s") {
			// "alfie's teacher is mrs patel": who holds the role is alfie's fact.
			p.last = name
			return name, ts[i+2:], r
		}
		// Two-word names: "Raj Patel moved", "harbour & finch ended".
		j := i + 1
		if j < len(ts) && !strings.HasSuffix(ts[i].low, "'s") && j+1 < len(ts) && isCapitalised(ts[j]) && isCapitalised(ts[i]) {
			if kinTitles[ts[i].low] {
				// "Kuya Paolo moved to Santa Rosa", "Aunt Ruth rang": the name after the
				// form of address, as "my aunt Ruth" reads.
				name = Kebab(strings.TrimSuffix(ts[j].low, "'s"))
			}
			j++
		}
		p.last = name
		return name, ts[j:], ""
	}
	if speaksOfSelf(ts) {
		return self, ts, ""
	}
	// No first person and no subject up front: a possessive of a known person states
	// that person's fact ("they've revised zara's average to 62", "correction on mum's
	// room"), and an object pronoun refers to the last person named ("they've put him
	// on metformin", "best number for her is the reception").
	// A clause that opens with the speaker's act, its subject left out as diaries leave
	// it ("Finished The Covenant of Water at last … on Arjun's recommendation"), is the
	// speaker's unless the possessive is the act's object ("booked kasia's flight").
	acts := len(ts) > 0 && (pastVerbs[ts[0].low] || len(ts[0].low) >= 5 && strings.HasSuffix(ts[0].low, "ed"))
	for i, t := range ts {
		if acts && i > 3 {
			break
		}
		w := strings.TrimSuffix(strings.TrimSuffix(t.low, "'s"), "’s")
		if w == t.low || i+1 >= len(ts) {
			continue
		}
		if rel := relations[w]; rel != "" && roles[w] == "" {
			p.last = rel
			return rel, ts[i+1:], ""
		}
		if Kebab(w) == p.last && p.last != "" || isNameToken(ts, i) && !p.things[w] {
			p.last = Kebab(w)
			return p.last, ts[i+1:], ""
		}
	}
	if p.last != "" && slices.ContainsFunc(ts, func(t token) bool { return objectPronouns[t.low] }) {
		return p.last, ts, ""
	}
	return self, ts, ""
}

// servedOwner returns the one served and the index of the verb when the clause's actor
// is someone's role ("mum's gp", "Marta's physio", "Dad's consultant") acting on a
// thing or a person ("put the amlodipine up", "has put her in", "doubled it"); else 0.
// The one served is named last (whom a later "she" means).
func (p *people) servedOwner(ts []token) (string, int) {
	at := servedAt(ts)
	if at < 0 || len(ts) < 4 {
		return "", 0
	}
	w := strings.TrimSuffix(ts[at].low, "'s")
	owner := relations[w]
	if owner == "" && isWord(w) && !notName(w) && !p.things[w] && roles[w] == "" {
		owner = Kebab(w)
	}
	if owner == "" {
		return "", 0
	}
	for j := at + 2; j+1 < len(ts) && j <= at+4; j++ {
		if !changingVerbs[ts[j].low] && !placingVerbs[ts[j].low] {
			continue
		}
		switch ts[j+1].low {
		case "her", "him", "them", "it", "the", "his", "their":
			p.last = owner
			return owner, j
		}
		return "", 0
	}
	return "", 0
}

// servedAt returns where the one served is named when a clause opens with someone's role
// ("mum's gp", "my dad's cardiologist", "Marta's physio"): what that role does is for
// the one it serves (people.servedOwner); else -1.
func servedAt(ts []token) int {
	at := 0
	if len(ts) > 2 && (ts[0].low == "my" || ts[0].low == "our") {
		at = 1
	}
	if len(ts) > at+1 && strings.HasSuffix(ts[at].low, "'s") && roles[ts[at+1].low] != "" {
		return at
	}
	return -1
}

// placedSelf returns the index after "me" or "us" when the clause's actor places the
// speaker somewhere ("switched me to", "put us on", "got me into", "promoted me to"), else
// 0. The actor comes first: at most four words before the verb.
func placedSelf(ts []token) int {
	for i := 1; i+2 < len(ts) && i <= 5; i++ {
		if w := ts[i].low; (w == "me" || w == "us") && placingVerbs[ts[i-1].low] && placingPreps[ts[i+1].low] {
			if firstPerson[ts[0].low] || ts[0].low == "my" && i == 2 {
				return 0 // "I got me …", not another's act
			}
			return i + 1
		}
	}
	return 0
}

// placedOther returns whom the speaker places somewhere and the index of the
// preposition after them: "we moved Ava to Oakfield primary" (ava), "I got my dad onto
// the new tablets" (dad); else 0. A pronoun is not read: "i moved him to the back row"
// arranges the speaker's own room.
func (p *people) placedOther(ts []token) (string, int) {
	if len(ts) < 4 || !firstPerson[ts[0].low] && ts[0].low != "they" && ts[0].low != "they've" {
		return "", 0
	}
	for i := 1; i+2 < len(ts) && i <= 3; i++ {
		if !placingVerbs[ts[i].low] {
			continue
		}
		o := ts[i+1]
		switch {
		case (o.low == "my" || o.low == "our") && i+3 < len(ts) && relations[ts[i+2].low] != "" && roles[ts[i+2].low] == "" && placingPreps[ts[i+3].low]:
			rel := relations[ts[i+2].low]
			p.last = rel
			return rel, i + 3
		case isCapitalised(o) && apposedName(o) && !p.things[o.low] && placingPreps[ts[i+2].low] && ts[i+2].low != "up" && ts[i+2].low != "over":
			name := Kebab(o.low)
			p.last = name
			return name, i + 2
		}
		return "", 0
	}
	return "", 0
}

// actsOnOwn returns the index of the verb when the clause's actor, named first, changes
// a thing of the speaker's or of the one named before: "<actor> <verb> my|our|his|her
// <thing>", or "the <thing>" when the thing is an attribute of the table ("landlord put
// the rent up"); else 0.
func actsOnOwn(ts []token) int {
	if len(ts) < 3 || firstPerson[ts[0].low] || ts[0].low == "my" && len(ts) > 1 && !isRoleOrRelation(ts[1].low) {
		return 0
	}
	for i := 1; i+1 < len(ts) && i <= 4; i++ {
		if !changingVerbs[ts[i].low] {
			continue
		}
		switch o := ts[i+1].low; {
		case o == "my" || o == "our" || o == "his" || o == "her" || o == "their" || o == "it":
			return i // "gp doubled it, 100mg from monday": the thing just named, the speaker's
		case o == "the" && i+2 < len(ts):
			if _, ok := attributeByName(strings.TrimSuffix(ts[i+2].low, "s")); ok || drugRe.MatchString(ts[i+2].orig) {
				return i // "landlord put the rent up", "the gp upped the sertraline"
			}
		case roles[strings.TrimSuffix(ts[0].low, "'s")] != "":
			if _, ok := attributeByName(strings.TrimSuffix(o, "s")); ok {
				return i // "Landlord has increased rent to 13,500": one who serves the speaker; "mum moved house" is mum's
			}
		}
		return 0
	}
	return 0
}

func isRoleOrRelation(w string) bool {
	w = strings.TrimSuffix(w, "'s")
	return roles[w] != "" || relations[w] != ""
}

// changingVerbs change an amount, a time or a thing for its holder: "upped", "put …
// up", "moved", "switched" (with me: placedSelf).
var changingVerbs = wordSet(`put puts putting upped ups upping raise raised raises raising increase increased increases
	increasing lower lowered lowers lowering reduce reduced reduces reducing cut cuts cutting double doubled doubles
	doubling halve halved halves halving drop dropped drops dropping move moved moves moving change changed changes
	changing bump bumped bumps bumping push pushed pushes pushing revise revised revises revising knock knocked knocks
	knocking nicked stole pinched smashed broke crashed`)

// placingVerbs and placingPreps make "<someone> <verb> me <prep> …" (placedSelf).
var (
	placingVerbs = map[string]bool{"switched": true, "switch": true, "put": true, "puts": true, "moved": true, "moves": true, "got": true, "gets": true, "started": true, "starts": true, "signed": true, "promoted": true, "transferred": true, "assigned": true, "enrolled": true, "registered": true, "upgraded": true, "bumped": true, "added": true, "referred": true, "changed": true, "booked": true, "taken": true, "took": true, "taking": true}
	placingPreps = map[string]bool{"to": true, "on": true, "onto": true, "into": true, "in": true, "up": true, "over": true, "as": true, "off": true, "from": true}
)

// objectPronouns refer to a third person named before, wherever they stand.
var objectPronouns = map[string]bool{"him": true, "her": true, "his": true, "he": true, "she": true, "he's": true, "she's": true}

func isCapitalised(t token) bool {
	r := []rune(t.orig)
	return len(r) > 0 && unicode.IsUpper(r[0])
}

func isNameAfterRelation(ts []token, i int) bool {
	if i >= len(ts) {
		return false
	}
	w := strings.TrimSuffix(ts[i].low, "'s")
	if monthFirstNames[w] && i+1 < len(ts) && (subjectVerbs[ts[i+1].low] || thirdPersonVerb(ts, i+1)) {
		return true // "my neighbour jan has a parrot": a name, not the month
	}
	return w != "" && isWord(w) && !notName(w)
}

// skipTimeLead skips a time that opens a clause before its subject: "from next Monday
// our new leader is Ms Liu", "as of today I'm freelance", "starting june, my rent is …".
func skipTimeLead(ts []token) []token {
	for range 3 {
		// "in the morning now he drinks cappuccino", "these days she's vegan": when it
		// holds (the clause's scope, read from its text), then the subject.
		n := partOfDay(ts)
		if n == 0 {
			break
		}
		ts = ts[n:]
	}
	if len(ts) < 4 || ts[0].low != "from" && ts[0].low != "starting" && ts[0].low != "since" && !(ts[0].low == "as" && ts[1].low == "of") {
		return ts
	}
	i := 1
	if ts[0].low == "as" {
		i = 2
	}
	if w := ts[i].low; w == "next" || w == "this" || w == "last" || w == "the" {
		i++
	}
	if i >= len(ts) || !(isMonthOrDay(ts[i].low) || timeNouns[ts[i].low] || whenNouns[ts[i].low] || ts[i].low == "today" || ts[i].low == "tomorrow" || ts[i].low == "now") {
		return ts
	}
	i++
	if i < len(ts) && (ts[i-1].end || firstPerson[ts[i].low] || ts[i].low == "my" || ts[i].low == "our" || pronouns[ts[i].low] || isCapitalised(ts[i])) {
		return ts[i:]
	}
	return ts
}

// partOfDay returns how many words at ts's start say when, before a subject: "in the
// morning(s)", "at night", "on weekends", "these days", "nowadays", "now" — 0 when none,
// or when no subject follows.
func partOfDay(ts []token) int {
	n := 0
	switch {
	case len(ts) > 3 && ts[0].low == "in" && ts[1].low == "the" && dayParts[ts[2].low]:
		n = 3
	case len(ts) > 2 && (ts[0].low == "at" || ts[0].low == "on") && (dayParts[ts[1].low] || isMonthOrDay(ts[1].low)):
		n = 2
	case len(ts) > 2 && ts[0].low == "these" && ts[1].low == "days":
		n = 2
	case len(ts) > 1 && (ts[0].low == "nowadays" || ts[0].low == "now" || ts[0].low == "lately" || ts[0].low == "recently"):
		n = 1
	}
	if n == 0 || n >= len(ts) {
		return 0
	}
	if w := ts[n].low; firstPerson[w] || pronouns[w] || w == "my" || w == "our" || w == "now" || isCapitalised(ts[n]) || relations[strings.TrimSuffix(w, "'s")] != "" {
		return n
	}
	return 0
}

// dayParts are the parts of a day or week that scope a habit: "in the mornings".
var dayParts = wordSet(`morning mornings afternoon afternoons evening evenings night nights weekend weekends week weekdays weekday
	summer winter spring autumn fall holidays`)

// thirdPersonOpening reports a clause without a subject that opens with a verb of the
// third person singular — "Tama traded the Hilux in for a Ranger, reckons the Ford is
// comfier": it goes on with the one before, never the speaker.
func thirdPersonOpening(ts []token) bool {
	ts = skipFillers(ts)
	if len(ts) < 2 || speaksOfSelf(ts) {
		return false // "thinking I might go back to Spark": the speaker's
	}
	w := ts[0].low
	// "kara quit keto, doing weight watchers now": an -ing verb goes on the same way.
	return thirdSingular[w] || len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && verbWords[strings.TrimSuffix(w, "s")] ||
		len(w) >= 5 && strings.HasSuffix(w, "ing") && verbForm(w)
}

// thirdSingular are verbs of the third person singular a clause may open with when its
// subject was said before.
var thirdSingular = wordSet(`reckons says thinks loves hates wants needs has does goes works lives drinks eats plays
	swears claims insists prefers uses keeps`)

// ourName reports "callum's" after "our" in lower-case chat: a name with "'s" (is or
// has), not a thing of the household ("our flat's", "our boiler's") nor a relation
// (notName).
func ourName(w string) bool {
	stem, ok := strings.CutSuffix(w, "'s")
	return ok && len(stem) > 2 && isWord(stem) && !notName(stem) && !nounShaped(stem) && !attributeCue(stem)
}

// actsAt reports a verb at ts[i] that a named subject before it does: "friend marcus got
// hired", "sister jo moved", "cousin tom's in town" ("sister let rosa go": no name).
func actsAt(ts []token, i int) bool {
	if i >= len(ts) {
		return false
	}
	w := ts[i].low
	return subjectVerbs[w] || thirdPersonVerb(ts, i) || len(w) > 4 && strings.HasSuffix(w, "ed") || strings.HasPrefix(w, "'")
}

// monthFirstNames are months that are also first names.
var monthFirstNames = wordSet(`jan may june april august`)

// notName reports words that are never a name: common words, function words, pronouns,
// relations, months and days.
func notName(w string) bool {
	return common[w] || stopValue[w] || leadValue[w] || fillers[w] || anchors[w] || firstPerson[w] || pronouns[w] || relations[w] != "" || isMonthOrDay(w) || subjectVerbs[w] || numberWords[w] || w == "rip" || w == "r.i.p"
}

// nounShaped reports a word whose ending makes it a noun and never a first name:
// "payday", "bedtime", "appointment", "subscription", "membership", "fitness".
func nounShaped(w string) bool {
	if len(w) < 6 {
		return false
	}
	for _, end := range []string{"day", "days", "time", "times", "ment", "ments", "tion", "tions", "sion", "ness", "ship"} {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}

// numberWords are numbers written out, never a name: "zero regrets", "twenty minutes door
// to door".
var numberWords = wordSet(`zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
	fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
	thousand million dozen half`)

// possessed resolves "my sister …", "my brother joris …", "my manager's a woman called
// Sabine", "new boss started monday".
func (p *people) possessed(ts []token, self string) (string, []token, string) {
	i := 0
	if ts[0].low == "my" || ts[0].low == "our" {
		i++
	}
	for i < len(ts) && (ts[i].low == "new" || ts[i].low == "old" || ts[i].low == "little" || ts[i].low == "big" || ts[i].low == "older" || ts[i].low == "younger" || ts[i].low == "own" || ts[i].low == "best" || ts[i].low == "current") {
		i++
	}
	if i >= len(ts) {
		return self, nil, ""
	}
	if w := strings.TrimSuffix(ts[i].low, "'s"); w != ts[i].low && relations[w] != "" && roles[w] == "" && i+1 < len(ts) && roles[strings.TrimSuffix(ts[i+1].low, "'s")] != "" {
		// "my brother's girlfriend is called Jade": the brother's partner.
		rel := relations[w]
		p.last = rel
		return rel, ts[i+2:], roles[strings.TrimSuffix(ts[i+1].low, "'s")]
	}
	if i > 0 && ts[i-1].low == "best" && (ts[i].low == "friend" || ts[i].low == "mate" || ts[i].low == "pal") &&
		i+2 < len(ts) && ts[i+1].low == "is" && isNameToken(ts, i+2) && (i+3 == len(ts) || !verbish(ts[i+3].low)) {
		// "my best friend is Jess": who holds the role is the user's fact.
		return self, ts[i+1:], "best-friend"
	}
	// Two-word relations: "running buddy", "desk buddy", "personal tutor", "study buddy".
	k := i
	if k+1 < len(ts) && relations[strings.TrimSuffix(ts[k+1].low, "'s")] != "" && relations[ts[k].low] == "" {
		k++
	}
	w := strings.TrimSuffix(ts[k].low, "'s")
	rel, isRel := relations[w]
	if !isRel || w == "team" {
		if e, n := p.entity(ts); e != "" {
			return e, ts[n:], ""
		}
		return self, ts[i:], ""
	}
	if ts[0].low == "new" && (k+1 >= len(ts) || !isNameAfterRelation(ts, k+1)) {
		// "new flatmate moved in! Olu": the user's flatmate.
		return self, ts[k+1:], roles[w]
	}
	// A lower-case word after the relation is its name only when it does not look like
	// the verb: "my brother joris", but "my uncle packed up", "my aunt rehomed Clover".
	if !strings.HasSuffix(ts[k].low, "'s") && k+1 < len(ts) && isNameAfterRelation(ts, k+1) && !subjectVerbs[ts[k+1].low] && ts[k+1].low != "moved" &&
		(isCapitalised(ts[k+1]) || !p.cased && !verbish(ts[k+1].low) && !thirdPersonVerb(ts, k+1)) {
		name := Kebab(strings.TrimSuffix(ts[k+1].low, "'s"))
		rest := k + 2
		if titled, n := titledName(ts, k+1); n > 0 {
			name, rest = titled, k+1+n // "my neighbour Mrs Osei takes her cat …"
		}
		if role := roles[w]; role != "" && slices.ContainsFunc(ts[:k], func(t token) bool { return t.low == "new" }) {
			// "new flatmate bea moved in today", "my new manager Raj starts monday": who
			// holds the user's role now is the fact; the name is its value.
			p.last = name
			return self, ts[k+1:], role
		}
		// "my husband sam is taking over": sam's fact, and who the speaker's partner is;
		// "me and my girlfriend priya" is handled by the caller.
		p.last = name
		if r := roles[w]; holderRoles[r] && (ts[0].low == "my" || ts[0].low == "our") {
			p.held = [2]string{r, name}
		}
		return name, ts[rest:], ""
	}
	if k > i && (ts[0].low == "my" || ts[0].low == "our") && (roles[w] == "" || roles[w] == "partner") && isWord(ts[i].low) && roleNamed(ts[k:]) {
		// "my study buddy is carol", "my running partner is Ana", "my work wife is Jo": a
		// role of the user's own, named by both words (the holder's name is the value).
		return self, ts[k+1:], Kebab(ts[i].low + " " + w)
	}
	// "my manager is Dana", "my manager's a woman called Sabine": the user's fact, unless
	// what follows says something about the relation itself ("my dad's a ferrari fan").
	if role, ok := roles[w]; ok {
		if roleNamed(ts[k:]) {
			return self, ts[k+1:], role
		}
		if ts[0].low == "my" && k+1 < len(ts) && roleActs(ts, k) {
			// "my husband works at Tesco", "my wife's started at the BBC", "my boss
			// is 60": what the role's holder does or is, the holder's own fact.
			p.last = rel
			return rel, ts[k+1:], ""
		}
		if ts[0].low == "my" || ts[0].low == "our" {
			return self, ts[k+1:], role
		}
	}
	if ts[0].low == "my" && (w == "buddy" || w == "mate") && k == i {
		return self, ts[k+1:], ""
	}
	p.last = rel
	return rel, ts[k+1:], ""
}

// determiners open a noun phrase: "a part time MA", "our new flat", "the old Polo".
var determiners = wordSet(`a an the my his her their our this new`)

// placePreps are the prepositions before a place or an organisation.
var placePreps = wordSet(`at in to for from with into near by of`)

// roleActs reports whether the words after a role (ts[k]) say what its holder does or
// is rather than who holds it: a verb other than a bare copula ("works at", "moved",
// "left", "'s started"), or a copula before an article or a number ("is a nurse", "is
// 41"). "my landlord is Derek" and "my manager's a woman called Sabine" are roleNamed,
// read before this.
func roleActs(ts []token, k int) bool {
	n := ts[k+1].low
	if strings.HasSuffix(ts[k].low, "'s") {
		// "my wife's started", "my husband's got a new job", "my boss's a nightmare".
		if n == "got" || n == "been" || n == "just" || n == "left" || n == "quit" || n == "gone" || n == "finally" || len(n) > 3 && strings.HasSuffix(n, "ed") || n == "a" || n == "an" || isDigitStart(n) {
			return true
		}
		// "my partner's vegetarian (now)": a copula before a word that no verb follows;
		// "my husband's family is from Leeds" is a possessive.
		return isWord(n) && !emptyWords[n] && (k+2 >= len(ts) || !beVerbs[ts[k+2].low] && !subjectVerbs[ts[k+2].low] && !thirdPersonVerb(ts, k+2))
	}
	switch n {
	case "is", "was":
		if k+2 < len(ts) {
			w := ts[k+2].low
			return w == "a" || w == "an" || isDigitStart(w) || w == "now" && k+3 < len(ts) && (ts[k+3].low == "a" || ts[k+3].low == "an")
		}
		return false
	case "moved", "left", "works", "worked", "lives", "started", "joined", "quit", "retired", "got", "has", "just", "finally":
		return true
	}
	return thirdPersonVerb(ts, k+1)
}

// roleNamed reports whether a role word is followed by its holder's name: "manager is
// Dana", "landlord's a guy called mr haddad", "boss started monday, Raj Patel".
func roleNamed(ts []token) bool {
	for i := 1; i < min(len(ts), 7); i++ {
		switch ts[i].low {
		case "called", "named":
			return true
		}
		if isCapitalised(ts[i]) && !isMonthOrDay(ts[i].low) && !placePreps[ts[i-1].low] {
			// After a preposition a capitalised word is a place or an organisation:
			// "my husband works at Tesco", "my boss moved to Google".
			return true
		}
	}
	if len(ts) > 2 && (ts[1].low == "is" || strings.HasSuffix(ts[0].low, "'s")) {
		j := 2
		if strings.HasSuffix(ts[0].low, "'s") {
			j = 1
		}
		for j < len(ts) && (ts[j].low == "a" || honorifics[ts[j].low]) {
			j++
		}
		return j < len(ts) && isNameAfterRelation(ts, j) && ts[j].low != "great" && ts[j].low != "actually"
	}
	return false
}

// isEntityPhrase reports whether ts starts with a described third party.
func (p *people) isEntityPhrase(ts []token) bool { e, _ := p.entity(ts); return e != "" }

// entity reads a described third party at the start of ts ("the mobile team", "weekly
// product sync", "the sync") and returns its key and the number of tokens it took.
func (p *people) entity(ts []token) (string, int) {
	i := 0
	for i < len(ts) && modifiers[ts[i].low] {
		i++
	}
	var words []string
	for j := i; j < min(len(ts), i+3); j++ {
		w := strings.TrimSuffix(ts[j].low, "'s")
		words = append(words, w)
		if entityHeads[w] {
			if len(words) > 2 {
				words = words[len(words)-2:]
			}
			key := Kebab(strings.Join(words, " "))
			if len(words) == 1 {
				// "the sync": the last entity with that head.
				for k := len(p.entities) - 1; k >= 0; k-- {
					if strings.HasSuffix(p.entities[k], "-"+key) || p.entities[k] == key {
						return p.entities[k], j + 1
					}
				}
				if ts[0].low == "our" || ts[0].low == "my" {
					return "", 0 // "our team is …": the user's team
				}
			}
			if !slices.Contains(p.entities, key) {
				p.entities = append(p.entities, key)
			}
			return key, j + 1
		}
		if ts[j].end || common[w] && !isEntityModifier(w) {
			break
		}
	}
	return "", 0
}

// knowEntities makes the described third parties among the subjects of existing slot
// keys known, as seen before everything of the call: "sync moved to 3pm" is about the
// product-sync of an earlier memory ("weekly product sync is on thursdays at 2pm").
func (p *people) knowEntities(slots []string) {
	for _, key := range slots {
		subj, _, ok := strings.Cut(key, "/")
		subj = Kebab(subj)
		if !ok || subj == "" || slices.Contains(p.entities, subj) {
			continue
		}
		if entityHeads[subj[strings.LastIndex(subj, "-")+1:]] {
			p.entities = slices.Insert(p.entities, 0, subj)
		}
	}
}

func isEntityModifier(w string) bool {
	return w == "product" || w == "mobile" || w == "grant" || w == "design" || w == "data" || w == "research" || w == "book" || w == "swim" || w == "football"
}

// thirdPersonVerb reports whether the lower-case word at i, ending in -s, reads as a
// verb rather than a name: "my uncle earns $52,000" (but "my brother james works at …",
// where a verb follows the name).
func thirdPersonVerb(ts []token, i int) bool {
	w := ts[i].low
	if len(w) < 4 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") {
		return false
	}
	if i+1 >= len(ts) {
		return false
	}
	n := ts[i+1].low
	return !(subjectVerbs[n] || len(n) > 3 && (strings.HasSuffix(n, "ed") || strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss")))
}
