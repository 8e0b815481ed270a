package retrieval

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// The lexicon of ProfileQuery. Patterns run on a normalized clause (lower case, single
// spaces). Within a kind, earlier and more specific cues come first: a span of text
// counts once per kind, for the first cue that covers it.

type kind int

const (
	kindHistorical kind = iota
	kindCurrent
	kindChange
	numKinds
	kindScope = numKinds     // a scope qualifier: noted, never counted
	kindGuard = numKinds + 1 // a cue a guard set aside: noted, never counted
)

var kindNames = [numKinds]string{"historical", "current", "change"}

// match is one cue found in a clause.
type match struct {
	kind       kind
	strong     bool
	text       string
	start, end int
}

type action int

const (
	keep action = iota
	drop        // the cue does not count; note, when set, becomes a guard hint
	flip        // the cue counts as kind to, with text note
)

type verdict struct {
	act  action
	note string
	to   kind
}

type guardFunc func(c clause, start, end int) verdict

type cue struct {
	kind   kind
	strong bool
	re     *regexp.Regexp
	guard  guardFunc
}

func strongCue(k kind, pattern string, g guardFunc) cue {
	return cue{kind: k, strong: true, re: regexp.MustCompile(pattern), guard: g}
}

func weakCue(k kind, pattern string, g guardFunc) cue {
	return cue{kind: k, re: regexp.MustCompile(pattern), guard: g}
}

const (
	w  = `[a-z0-9'-]+` // a word
	sv = `(?:live|work|stay|study|own|have|drive|date|eat|like|love|prefer|play|use|keep|teach|attend|belong|earn|make|weigh|do|believe|want|need|think|feel)`
)

var cues = []cue{
	// Change: update wording first.
	strongCue(kindChange, `\bhow (?:has|have|did|does|do)(?: `+w+`){0,6}? (?:chang|evolv|develop|shift|grow|grew|progress)[a-z]*`, nil),
	strongCue(kindChange, `\bwhat(?:'s| has| have| did)? chang(?:ed|e)\b`, nil),
	strongCue(kindChange, `\bsince when\b`, nil),
	strongCue(kindChange, `\b(?:moved|move|moves|moving|went|go|gone|going|switched|switch|switching|changed|change|changing) from `+w+`(?: `+w+`){0,3} (?:to|into) `+w, guardFromTo),
	strongCue(kindChange, `\bwhen did (?:i|we)(?: first)? (?:start|stop|begin|quit|move|switch|change|become|join|leave|adopt|take up|pick up|give up|get married|get divorced|break up|retire|relocate)\b`, nil),
	strongCue(kindChange, `\bchang(?:e|ed|es|ing)\b`, guardNoun("climate", "spare", "small", "loose", "pocket", "exact")),
	strongCue(kindChange, `\bswitch(?:ed|es|ing)?\b`, guardNoun("nintendo", "light", "my", "the", "a", "power", "wall", "kill", "toggle")),
	strongCue(kindChange, `\bmov(?:e|ed|es|ing) (?:to|into|in|out|away|back|abroad|house|home|cities|countries|city|country|here|there|on)\b`, guardMoved),
	strongCue(kindChange, `\brelocat[a-z]*`, nil),
	strongCue(kindChange, `\bevol(?:ve|ved|ves|ving|ution)\b`, nil),
	strongCue(kindChange, `\btransition(?:ed|ing|s)?\b`, nil),
	strongCue(kindChange, `\b(?:became|become|becoming)\b`, nil),
	strongCue(kindChange, `\bturned into\b`, nil),
	strongCue(kindChange, `\bshift(?:ed|ing|s)?\b`, guardNoun("night", "day", "morning", "evening", "late", "early", "my", "a", "the", "double", "work", "graveyard", "what", "which", "this", "that", "next", "your", "his", "her", "their")),
	strongCue(kindChange, `\bupdat(?:e|ed|es|ing)\b`, nil),
	strongCue(kindChange, `\breplac(?:e|ed|es|ing)\b`, nil),
	strongCue(kindChange, `\b(?:quit|quitting|gave up|give up|giving up|took up|take up|taking up)\b`, nil),
	strongCue(kindChange, `\bover (?:the )?(?:years|months|decades|time|past `+w+`|last `+w+`)\b`, nil),
	strongCue(kindChange, `\bhistory of\b|\b(?:job|work|address|relationship|employment|diet|weight|career|travel|medical) history\b`, nil),
	weakCue(kindChange, `\bhow long (?:have|has)\b`, nil),
	weakCue(kindChange, `\bsince\b`, nil),
	weakCue(kindChange, `\b(?:started|stopped|began|begun|starting|stopping)\b`, nil),
	weakCue(kindChange, `\bmov(?:e|ed|es|ing)\b`, guardMoved),
	weakCue(kindChange, `\bfrom `+w+`(?: `+w+`){0,3} to `+w, guardFromTo),
	weakCue(kindChange, `\b(?:difference|differ|differs|different)\b`, nil),
	weakCue(kindChange, `\bcompared (?:to|with)\b`, nil),

	// Historical.
	strongCue(kindHistorical, `\b(?:used|use) to\b`, guardUsedTo),
	strongCue(kindHistorical, `\bpreviously\b|\bformerly\b|\boriginally\b|\binitially\b|\bat first\b|\bin the beginning\b|\bto begin with\b`, nil),
	strongCue(kindHistorical, `\b(?:previous|former|prior)\b`, guardAdjective),
	strongCue(kindHistorical, `\bin the past\b|\bback (?:then|when|in the day)\b|\bat (?:the|that) time\b|\b(?:in )?those days\b|\bthe old days\b|\bback in\b`, nil),
	strongCue(kindHistorical, `\bbefore\b`, guardBefore),
	strongCue(kindHistorical, `\bago\b`, nil),
	strongCue(kindHistorical, `\blast (?:year|month|week|summer|winter|spring|autumn|fall|decade|weekend|night|time|semester|term|christmas|holidays?|vacation)\b`, nil),
	strongCue(kindHistorical, `\b(?:in|during|around|until|till|by) (?:19|20)[0-9][0-9]\b`, guardFuture),
	strongCue(kindHistorical, `\b(?:my|our|the|his|her|their|your) old `+w, guardOldNoun),
	strongCue(kindHistorical, `\b(?:my|our|the) past `+w, guardOldNoun),
	strongCue(kindHistorical, `\bwhen (?:i|we) (?:was|were)\b|\bgrowing up\b|\bas an? (?:kid|child|teen|teenager|student|boy|girl|baby)\b`, nil),
	weakCue(kindHistorical, `\bonce\b`, guardOnce),
	weakCue(kindHistorical, `\bearlier\b|\byesterday\b`, nil),
	weakCue(kindHistorical, `\b(?:my|our) first\b`, guardFirst),
	weakCue(kindHistorical, `\bdid(?:n't| not)? (?:i|we)(?: (?:ever|once|really|actually|previously|also|still|always|usually|originally|first))? `+sv+`\b`, nil),
	weakCue(kindHistorical, `\b(?:was|were)(?:n't| not)? (?:i|we|my|our)\b|\bhad (?:i|we)\b`, nil),
	weakCue(kindHistorical, `^(?:who|what|which|where) (?:was|were) (?:the|his|her|their)\b`, nil),
	weakCue(kindHistorical, `^(?:who|what|which|where|how much|how many)\b[^?]*\bdid (?:i|we) [a-z]+\b`, guardOutcome),
	weakCue(kindHistorical, `\b(?:i|we) (?:was|were|lived|worked|had|owned|liked|loved|drove|studied|stayed|dated|preferred|played|ate|earned|taught|attended|believed|wanted|needed|used)\b`, guardPerfect),

	// Current.
	strongCue(kindCurrent, `\bas of (?:now|today|right now|this (?:week|month|year))\b|\bright now\b`, nil),
	strongCue(kindCurrent, `\bnow\b`, guardNow),
	strongCue(kindCurrent, `\bcurrent(?:ly)?\b`, guardCurrent),
	strongCue(kindCurrent, `\bpresently\b|\bnowadays\b|\bat (?:present|the moment|this (?:point|time|moment|stage))\b|\bthese days\b`, nil),
	strongCue(kindCurrent, `\bstill\b`, guardStill),
	strongCue(kindCurrent, `\b(?:anymore|any more|no longer|no more)\b`, nil),
	strongCue(kindCurrent, `\b(?:latest|newest)\b|\bmost recent(?:ly)?\b|\bup to date\b`, nil),
	weakCue(kindCurrent, `\b(?:my|our) new\b`, nil),
	weakCue(kindCurrent, `\b(?:do|does|am|is|are)(?:n't| not)? (?:i|we|my|our)\b`, nil),
	weakCue(kindCurrent, `\b(?:what|where|who|how|which|when)'s (?:my|our)\b|\b(?:i'm|i am|we're|we are)\b`, nil),
	weakCue(kindCurrent, `\b(?:i|we) `+sv+`\b`, guardAuxiliary),
}

// scopes are qualifiers that narrow a fact ("only on weekends", "at work"): noted, and
// the cues inside them do not count.
var scopes = []*regexp.Regexp{
	regexp.MustCompile(`\bonly (?:on|at|during|with|around|after|before|for) (?:the |my |a |an )?(?:weekends?|weekdays?|work|home|holidays?|vacations?|trips?|office|school|nights?|mornings?|evenings?|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|special occasions|parties|friends|family|business|lunch|dinner|breakfast|gym)\b`),
	regexp.MustCompile(`\b(?:on|at|during|over|for) (?:the )?(?:weekends?|weekdays?|work|home|holidays?|vacation|office|night|nights|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|business)\b`),
	regexp.MustCompile(`\bexcept(?: for| on| at| when| during| in)? ` + w),
	regexp.MustCompile(`\bwhen(?:ever)? (?:i'm |i am |we're |we are )?(?:travell?ing|on (?:holiday|vacation|a trip)|abroad|at (?:work|home)|working|sick|stressed|out)\b`),
	regexp.MustCompile(`\b(?:once|twice|three times|[0-9]+ times) (?:a|per|every) [a-z]+\b|\bevery (?:day|week|month|year|morning|evening|night|weekend|time|other [a-z]+)\b`),
	regexp.MustCompile(`\b(?:sometimes|occasionally|rarely|usually|normally|often)\b`),
}

// matchClause finds the scope qualifiers and cues of one clause, in text order.
func matchClause(c clause) []match {
	var out []match
	type span struct{ start, end int }
	var scoped []span
	for _, re := range scopes {
		for _, loc := range re.FindAllStringIndex(c.text, -1) {
			scoped = append(scoped, span{loc[0], loc[1]})
		}
	}
	for i, sp := range scoped {
		inner := slices.ContainsFunc(scoped, func(o span) bool {
			return o != sp && o.start <= sp.start && sp.end <= o.end
		})
		if dup := slices.Index(scoped, sp) < i; !inner && !dup { // "on weekends" inside "only on weekends"
			out = append(out, match{kind: kindScope, text: c.text[sp.start:sp.end], start: sp.start, end: sp.end})
		}
	}
	var used [numKinds][]span
	free := func(k kind, s, e int) bool {
		for _, u := range used[k] {
			if s < u.end && u.start < e {
				return false
			}
		}
		return true
	}
	for _, cu := range cues {
		for _, loc := range cu.re.FindAllStringIndex(c.text, -1) {
			s, e := loc[0], loc[1]
			if slices.ContainsFunc(scoped, func(sp span) bool { return sp.start <= s && e <= sp.end }) {
				continue
			}
			if !free(cu.kind, s, e) {
				continue
			}
			m := match{kind: cu.kind, strong: cu.strong, text: c.text[s:e], start: s, end: e}
			if cu.guard != nil {
				switch v := cu.guard(c, s, e); v.act {
				case drop:
					if v.note != "" {
						out = append(out, match{kind: kindGuard, text: v.note, start: s, end: e})
					}
					continue
				case flip:
					if !free(v.to, s, e) {
						continue
					}
					m.kind, m.text = v.to, v.note
				}
			}
			used[m.kind] = append(used[m.kind], span{s, e})
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b match) int { return a.start - b.start })
	return out
}

// prevWords returns up to n words that end at or before offset, nearest first.
func prevWords(c clause, offset, n int) []string {
	i := sort.Search(len(c.words), func(i int) bool { return c.words[i].end > offset })
	var out []string
	for i--; i >= 0 && len(out) < n; i-- {
		out = append(out, c.words[i].text)
	}
	return out
}

// nextWords returns up to n words that start at or after offset, in order.
func nextWords(c clause, offset, n int) []string {
	i := sort.Search(len(c.words), func(i int) bool { return c.words[i].start >= offset })
	var out []string
	for ; i < len(c.words) && len(out) < n; i++ {
		out = append(out, c.words[i].text)
	}
	return out
}

func negated(words []string) bool {
	for _, wd := range words {
		if negations[wd] || strings.HasSuffix(wd, "n't") {
			return true
		}
	}
	return false
}

func first(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return ws[0]
}

func startsWithDigit(s string) bool {
	for _, r := range s {
		return unicode.IsDigit(r)
	}
	return false
}

// isTime reports whether the words (after an optional article) name a time of day, a
// day, a meal or a daily event: "before noon", "before the meeting" is no time.
func isTime(ws []string) bool {
	if len(ws) > 1 && articles[ws[0]] {
		ws = ws[1:]
	}
	return len(ws) > 0 && (timeWords[ws[0]] || startsWithDigit(ws[0]))
}

func personNoun(s string) bool {
	s = strings.TrimSuffix(s, "'s")
	return persons[s] || persons[strings.TrimSuffix(s, "s")]
}

var (
	negations  = set("not", "never", "no", "without", "nor", "cannot")
	articles   = set("the", "a", "an", "my", "our")
	timeWords  = set("noon", "midday", "midnight", "morning", "mornings", "evening", "evenings", "night", "bed", "bedtime", "work", "school", "class", "lunch", "dinner", "breakfast", "brunch", "sunrise", "sunset", "dawn", "dusk", "dark", "tomorrow", "tonight", "today", "weekend", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "o'clock")
	persons    = set("colleague", "coworker", "co-worker", "boss", "manager", "friend", "roommate", "flatmate", "housemate", "partner", "boyfriend", "girlfriend", "husband", "wife", "spouse", "fiance", "fiancee", "fiancé", "fiancée", "classmate", "teacher", "neighbour", "neighbor", "landlord", "landlady", "teammate", "mentor", "student", "employee", "tenant", "owner", "coach", "doctor", "therapist", "president", "ceo", "buddy", "pal", "mate", "supervisor", "professor")
	auxiliary  = set("did", "didn't", "do", "don't", "does", "doesn't", "will", "won't", "would", "wouldn't", "could", "couldn't", "should", "shouldn't", "can", "can't", "might", "may", "must", "to", "used", "i'd", "we'd", "i'll", "we'll", "not", "never")
	adjectival = set("get", "gets", "got", "getting", "gotten", "am", "is", "are", "be", "been", "being", "i'm", "we're", "you're", "they're", "it's", "he's", "she's", "become", "became")
	future     = regexp.MustCompile(`\b(?:will|won't|i'll|we'll|going to|gonna|plan|plans|planning|next)\b`)
	route      = regexp.MustCompile(`\b(?:get|go|drive|walk|commute|travel|fly|flight|distance|train|bus|way|far|route|directions)\b`)
)

func guardBefore(c clause, s, e int) verdict {
	if negated(prevWords(c, s, 2)) {
		return verdict{act: drop, note: "negated before"}
	}
	if nx := nextWords(c, e, 2); isTime(nx) {
		return verdict{act: drop, note: "time before " + strings.Join(nx, " ")}
	}
	return verdict{}
}

// guardAdjective sets aside "former colleague" and "not my previous job".
func guardAdjective(c clause, s, e int) verdict {
	text := c.text[s:e]
	if nx := first(nextWords(c, e, 1)); personNoun(nx) {
		return verdict{act: drop, note: "person " + text + " " + nx}
	}
	if negated(prevWords(c, s, 2)) {
		return verdict{act: drop, note: "negated " + text}
	}
	return verdict{}
}

// guardOldNoun: the match ends with the noun ("my old job"); a person ("my old friend")
// is no past state, nor is a negated one.
func guardOldNoun(c clause, s, e int) verdict {
	text := c.text[s:e]
	if personNoun(text[strings.LastIndexByte(text, ' ')+1:]) {
		return verdict{act: drop, note: "person " + text}
	}
	if negated(prevWords(c, s, 2)) {
		return verdict{act: drop, note: "negated " + text}
	}
	return verdict{}
}

func guardUsedTo(c clause, s, e int) verdict {
	if p := first(prevWords(c, s, 1)); adjectival[p] {
		return verdict{act: drop, note: "adjective " + p + " " + c.text[s:e]}
	}
	return verdict{}
}

// guardOutcome sets aside "what did I <verb>" when the verb asks for how things ended
// up ("which hotel did we end up staying in?", "what did I finally pick?": the outcome
// is the present state) or for what was said ("what did I tell you about New York?").
func guardOutcome(c clause, s, e int) verdict {
	ws := strings.Fields(c.text[s:e])
	switch last := ws[len(ws)-1]; {
	case outcomeVerbs[last]:
		return verdict{act: drop, note: "outcome " + last}
	case tellingVerbs[last]:
		return verdict{act: drop, note: "told " + last}
	}
	return verdict{}
}

var (
	outcomeVerbs = set("end", "ended", "wind", "eventually", "finally", "settle", "decide", "choose", "pick", "go")
	tellingVerbs = set("tell", "say", "mention", "ask", "write", "note", "share", "text", "email", "call")
)

func guardOnce(c clause, s, e int) verdict {
	nx, pv := first(nextWords(c, e, 1)), first(prevWords(c, s, 1))
	switch {
	case onceNext[nx]:
		return verdict{act: drop, note: "frequency once " + nx}
	case pv == "at" || pv == "more" || pv == "than" || pv == "all" || pv == "just":
		return verdict{act: drop, note: "frequency " + pv + " once"}
	}
	return verdict{}
}

var onceNext = set("a", "an", "per", "every", "more", "again", "in", "or", "twice", "i", "we", "you", "he", "she", "they", "it", "the", "my", "that")

func guardFuture(c clause, s, e int) verdict {
	if c.future {
		return verdict{act: drop, note: "future " + c.text[s:e]}
	}
	return verdict{}
}

func guardFirst(c clause, _, e int) verdict {
	if first(nextWords(c, e, 1)) == "name" {
		return verdict{act: drop}
	}
	return verdict{}
}

func guardNow(c clause, s, e int) verdict {
	pv := first(prevWords(c, s, 1))
	switch {
	case negated([]string{pv}):
		return verdict{act: drop, note: "negated now"}
	case pv == "from" && first(nextWords(c, e, 1)) == "on":
		return verdict{act: drop, note: "future from now on"}
	}
	return verdict{}
}

// guardCurrent turns "not the current one" and "no longer current" into a historical
// cue; "not currently" stays a present-tense question.
func guardCurrent(c clause, s, e int) verdict {
	if c.text[s:e] == "current" && negated(prevWords(c, s, 2)) {
		return verdict{act: flip, to: kindHistorical, note: "not current"}
	}
	return verdict{}
}

func guardStill(c clause, s, _ int) verdict {
	switch first(prevWords(c, s, 1)) {
	case "stand", "stood", "standing", "sit", "sat", "sitting", "keep", "kept", "hold", "held", "lie", "lying":
		return verdict{act: drop}
	}
	return verdict{}
}

// guardAuxiliary sets aside "I live" after an auxiliary ("did I live", "will I work"):
// the auxiliary carries the tense.
func guardAuxiliary(c clause, s, _ int) verdict {
	if auxiliary[first(prevWords(c, s, 1))] {
		return verdict{act: drop}
	}
	return verdict{}
}

// guardPerfect sets aside "have I lived": the present perfect reaches up to now.
func guardPerfect(c clause, s, _ int) verdict {
	switch first(prevWords(c, s, 1)) {
	case "have", "has", "haven't", "hasn't":
		return verdict{act: drop}
	}
	return verdict{}
}

// guardNoun sets aside a base form or plural ("shift", "changes") after one of the
// given words: "night shift", "climate change", "my switch".
func guardNoun(before ...string) guardFunc {
	nouns := set(before...)
	return func(c clause, s, e int) verdict {
		if t := c.text[s:e]; strings.HasSuffix(t, "ed") || strings.HasSuffix(t, "ing") {
			return verdict{}
		}
		if p := first(prevWords(c, s, 1)); nouns[p] {
			return verdict{act: drop, note: "noun " + p + " " + c.text[s:e]}
		}
		return verdict{}
	}
}

func guardMoved(c clause, s, e int) verdict {
	switch p := first(prevWords(c, s, 1)); p {
	case "so", "deeply", "very", "truly", "really":
		return verdict{act: drop, note: "feeling " + p + " " + first(nextWords(c, s, 1))}
	}
	return verdict{}
}

// guardFromTo sets aside times ("from 9 to 5") and routes ("get from home to work").
func guardFromTo(c clause, s, e int) verdict {
	text := c.text[s:e]
	i := strings.Index(text, "from ")
	after := nextWords(c, s+i+len("from "), 2)
	switch {
	case isTime(after):
		return verdict{act: drop, note: "time " + text}
	case c.routeAt >= 0 && c.routeAt < s:
		return verdict{act: drop, note: "route " + text}
	}
	return verdict{}
}
