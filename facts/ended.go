package facts

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// A state ended by its name: a memory that says a thing is over — "cancelled the Amex",
// "stopped the Duolingo Spanish", "Graham's gone on sabbatical", "the monstera didnt make
// it", "no more job seeker permit", "we're doing Norway instead of Scotland" — names the
// state it ends, however the memory that told that state was worded. The extractor
// often reads nothing from that earlier memory ("reading piranesi rn", "on the checkout
// revamp w maya"), and the slot of the change is then only known by the name both
// memories share. endedNames finds such names by the form of the clause; each becomes a
// denied fact, and the overlay gives it to the earlier memory that names it
// (namedVersions), which the denial then ends.
//
// A name must be specific enough to find its memory: at least one word of three letters
// or more that is no common word ("the job", "my phone", "twice" are none).

// endedObjectRe is a verb that ends what follows it: "cancelled the Amex", "switching
// from Aetna to Cigna", "moved the savings from ASN to Bunq", "fontaines have replaced
// wet leg", "thai has overtaken korean".
var endedObjectRe = regexp.MustCompile(`(?i)\b(?:(?:stop|stopped|stopping) (?:going to|\S+ing)|stopped|stopping|dropped|dropping|cancell?ed|cancelling|discontinued|ditched|ditching|finished|quit|quitting|unsubbed from|unsubscribed from|binned|deleted|uninstalled|got rid of|gave up|given up|giving up|grew out of|grown out of|came off|come off|rolled off|overplayed|done with|finished with|said goodbye to|switch(?:ed|ing) (?:\S+ ){0,2}?from|mov(?:ed|ing) (?:\S+ ){0,2}?(?:away |out )?from|moved out of|swapped out|traded in|nicked|stole|left|replaced|overtaken|overtook|took over from|taken over from|pulled out of|withdrew from|withdrawn from|backed out of|(?:gave|given|giving|handed in|handing in) (?:\S+ )?notice (?:at|to)|resign(?:ed|ing) from|(?:packed|packing|jacked|jacking) in|(?:wrote|written|writing) off|cancel|shift(?:ed|ing) (?:\S+ ){0,2}?from|(?:gave|given|giving) up on|good ?bye|bye bye|ta ta)$`)

// endedSubjectRe is what ends the thing or person said before it: "bex left??",
// "Dr. Haddad is retiring", "Graham's gone on sabbatical", "payments migration shipped",
// "the fiddle leaf fig has died", "the BahnCard isn't worth it for me anymore", "okafor
// sold the whole building".
var endedSubjectRe = regexp.MustCompile(`(?i)^(?:(?:is|has|have|was|had|been|just|finally|officially|now|already|sadly)\s+)*(?:left|quit|retired|retiring|died|passed away|didn'?t make it|did not make it|shipped|fell through|froze (?:my|our) \S+|ran out|has run out|expired|goes on (?:\S+ )?leave|went on (?:\S+ )?(?:leave|sabbatical|secondment)|(?:went|gone|going) (?:bust|under|into administration|out of business)|(?:closed|closing|shut|shutting) down|(?:is|was|are|were|been|got) (?:cancell?ed|withdrawn|scrapped|axed|discontinued)|gone|finished up|gone on (?:\S+ )?(?:leave|sabbatical|secondment)|going on (?:\S+ )?(?:leave|sabbatical|secondment)|off on (?:\S+ )?(?:leave|sabbatical|secondment)|on (?:maternity|paternity) leave|sold (?:the|his|her|their) (?:whole )?(?:building|house|flat|place|practice|business|company)|stops \S+ing|isn'?t worth it|is not worth it|not worth it any ?more|can'?t come any ?more|cant come any ?more|isn'?t coming any ?more|moving away|moved away|moved out|moving out|dropped out|pulled out|handed (?:it|them|\S+) over|won'?t be (?:coming|doing it|around) any ?more|wont be (?:coming|doing it|around) any ?more|(?:was|got|has been|have been) (?:stolen|nicked|written off)|was (?:only |just )?(?:in my basket|the (?:other )?(?:quote|offer|one|option)s?\b)|is no longer (?:my|our|his|her|their|\S+'s) \S+|(?:is |are |'s )?dead to me|dethroned|is over|cancell?ed on (?:us|me)|bailed(?: on (?:us|me))?)\b`)

// correctingRe marks a memory that corrects what was said: its "not X" denies X.
var correctingRe = regexp.MustCompile(`(?i)\b(?:sorry|i meant|meant to say|correction|correct an earlier|typo|my mistake|mistake|my bad|misspoke|wait,? no|no wait|oops|got (?:that|it|the \w+) wrong|had it wrong|said wrong|told you wrong|i was wrong|disregard|misread|ahem|not actually|turns out|(?:i|we) (?:said|told you)\b[^.!?]{0,40}\b(?:before|earlier))\b`)

// endedAfterRe names, after it, what is ended in favour of another: "no more Japan",
// "Norway instead of Scotland".
var endedAfterRe = regexp.MustCompile(`(?i)\b(?:no more|instead of|rather than)$`)

// endedFollow are the words after "X left" or "X quit" that keep them an ending: "bex
// left?? just gone", not "leo left his water bottle at school" nor "julien's left the
// CHU" (its object an ending of its own).
var endedFollow = wordSet(`today yesterday last lol now already officially after at on in so and but because recently suddenly apparently too omg
	monday tuesday wednesday thursday friday saturday sunday`)

// asWell reports "as well" at the start of ts.
func asWell(ts []token) bool {
	return len(ts) > 1 && ts[0].low == "as" && ts[1].low == "well"
}

// timeUnits count what remains: "six months left".
var timeUnits = wordSet(`minutes mins hours hrs days weeks months years sessions episodes eps pages`)

// replacesAt is the least confidence of a fact read by meaning that names what replaces
// an ended state ("bex left?? new manager is some guy tariq", 0.88); under it ("no more
// Japan. The flights in April are crazy expensive": a flight, 0.70) the ended state is
// known by its name only.
const replacesAt = 0.75

// endedGeneric are words of a name that the earlier memory need not repeat: "the Audible
// sub" is the Audible of "I pay for Audible".
var endedGeneric = wordSet(`sub subs subscription membership card thing stuff`)

// finishedWhat are objects whose finishing ends no state: a meal, a drink.
var finishedWhat = regexp.MustCompile(`(?i)^(?:wine|beer|bottle|coffee|tea|pizza|cake|dinner|lunch|breakfast|meal|food|drink|leftovers|washing|laundry|dishes|shift|day|week|run|race|game|match)`)

// endedName is one name a memory ends: its value, and whether it was said before the
// verb (a person or a thing that left, died or shipped).
type endedName struct {
	value   string
	subject bool
	clause  int
}

// endedNames reads the names a memory says are ended (see endedObjectRe, endedSubjectRe,
// endedAfterRe, and in a correction what it reports was said, reportedAt).
func endedNames(p prepared) []endedName {
	var out []endedName
	add := func(ts []token, subj bool, ci int) {
		v := endedValue(ts, subj)
		if v != "" && !slices.ContainsFunc(out, func(e endedName) bool { return SameValue(e.value, v) }) {
			out = append(out, endedName{value: v, subject: subj, clause: ci})
		}
	}
	corrects := p.corrects
	for ci, c := range p.clauses {
		ts := c.toks
		// The clause in lower case, once, and where each word starts and ends in it.
		parts := make([]string, len(ts))
		starts, ends := make([]int, len(ts)), make([]int, len(ts))
		for i, t := range ts {
			parts[i] = strings.ToLower(t.orig)
			if i > 0 {
				starts[i] = ends[i-1] + 1
			}
			ends[i] = starts[i] + len(parts[i])
		}
		low := strings.Join(parts, " ")
		for i := range ts {
			if corrects && ts[i].low == "not" && i+1 < len(ts) {
				// "it's 121 not 112", "with Post Office, not Staysure", "he's not
				// actually lactose intolerant, it's IBS"
				if rest := ts[i+1+skipAdverbs(ts[i+1:]):]; len(rest) > 0 && valueLike(join(rest)) {
					add(rest, false, ci)
				}
				continue
			}
			if j := reportedAt(ts, i); corrects && j > 0 {
				add(ts[j:], false, ci) // "sorry i said hornets before, it's the harriers"
				continue
			}
			before := low[:ends[i]]
			// "liam finished up friday": he left, said of the one before the verb.
			finishedUp := ts[i].low == "finished" && i+1 < len(ts) && ts[i+1].low == "up"
			if (endedObjectRe.MatchString(before) || endedAfterRe.MatchString(before)) && !deniedBefore(ts, i) && !finishedUp {
				if (ts[i].low == "stop" || ts[i].low == "stopped" || ts[i].low == "stopping") && i+1 < len(ts) && strings.HasSuffix(ts[i+1].low, "ing") {
					continue // "stopped covering the Flovent generic": the name is after the verb it stops
				}
				if ts[i].low == "finished" && i+1 < len(ts) && (finishedWhat.MatchString(join(skipDeterminers(ts[i+1:]))) || p.cased && !slices.ContainsFunc(ts[i+1:min(len(ts), i+5)], isCapitalised)) {
					continue // "finished the wine"; in cased text a finished thing is named: "finished another pottery project" is work done
				}
				if ts[i].low == "left" && i+1 < len(ts) && (ts[i+1].low == "for" || ts[i+1].low == "to" || pronouns[ts[i+1].low] || firstPerson[ts[i+1].low]) {
					continue // "left for Lisbon", "left her a note"
				}
				if (ts[i].low == "dropped" || ts[i].low == "dropping") && slices.ContainsFunc(ts[i+1:min(len(ts), i+6)], func(t token) bool { return t.low == "to" || t.low == "by" }) &&
					slices.ContainsFunc(ts[i+1:min(len(ts), i+7)], func(t token) bool { return amountStart(t.low) }) {
					continue // "dropped the direct debit to 95": lowered, not ended
				}
				add(ts[i+1:], false, ci)
			}
			if i == 0 {
				continue
			}
			rest := low[starts[i]:]
			m := endedSubjectRe.FindStringIndex(rest)
			if m == nil {
				continue
			}
			last := strings.Fields(rest[:m[1]])
			w := last[len(last)-1]
			// after is what follows the ending; a person's ending ("left", "gone") is one
			// only when nothing follows or a word of endedFollow does.
			after := ts[min(i+len(last), len(ts)):]
			followed := len(after) > 0 && !endedFollow[after[0].low]
			if w == "over" && len(last) > 1 && last[len(last)-2] == "is" && len(after) > 0 {
				continue // "joris is over in rotterdam": there, not ended
			}
			if (w == "left" || w == "quit" || w == "retired" || w == "died" || w == "up") && followed {
				// "leo left his water bottle at school"; "julien's left the CHU" ends the
				// CHU, not julien; "liam finished up friday", not "finished up the report".
				continue
			}
			if w == "gone" && ((followed || len(after) > 0 && after[0].low == "and") && !asWell(after) || !slices.ContainsFunc(ts[:i], isCapitalised)) {
				// "shes gone back to the credit union", "kayla's gone and got covid"; but
				// "Square is gone as well". What is gone is named with a capital: "my
				// voice is gone" ends nothing.
				continue
			}
			if w == "left" && (last[0] == "is" || last[0] == "are" || last[0] == "was" || isDigitStart(ts[i-1].low) || timeUnits[ts[i-1].low]) {
				continue // "only peanuts is left now", "so 800 left", "six months left on it": what remains
			}
			add(ts[:i], true, ci)
		}
	}
	return out
}

// deniedBefore reports a negation among the three words before ts[i] ("i'm not giving up
// my saturday flat white", "it has not stopped raining", "never quit"): a word of
// keepsOn, any "n't", or one written without its apostrophe.
func deniedBefore(ts []token, i int) bool {
	return slices.ContainsFunc(ts[max(0, i-3):i], func(t token) bool {
		return keepsOn[t.low] || strings.HasSuffix(t.low, "n't") || t.low == "isnt" || t.low == "havent" || t.low == "wasnt"
	})
}

// skipDeterminers drops the articles and possessives a phrase opens with.
func skipDeterminers(ts []token) []token {
	for len(ts) > 0 && determiners[ts[0].low] {
		ts = ts[1:]
	}
	return ts
}

// endedStops end a name read forward or backward.
var endedStops = wordSet(`to from at in on with for and but so because since as after before now anymore any more too tonight today
	yesterday this last next lol is was are were be been has have had it its which who that when then than or nor not
	i we you he she they me him them us there here just still already again also though tbh honestly apparently
	every each per by into onto off out up down over about like well ok okay oh update welp sadly finally once twice
	ago few couple several recently earlier another wrong right before back`)

// endedValue is the name of what is ended: the words after the verb (subj false) up to a
// stop word or a clause boundary, or the words before it (subj true) back to one, a
// possessive "'s" dropped; "" when the name is not specific (a common word, a pronoun,
// a verb's -ing form).
func endedValue(ts []token, subj bool) string {
	var ws []token
	if subj {
		for i := len(ts) - 1; i >= 0 && len(ws) < 3; i-- {
			t := ts[i]
			t.low = strings.TrimSuffix(strings.TrimSuffix(t.low, "'s"), "’s")
			t.orig = strings.TrimSuffix(strings.TrimSuffix(t.orig, "'s"), "’s")
			if determiners[t.low] || endedStops[t.low] || t.low == "" || t.end && len(ws) > 0 {
				break
			}
			ws = append([]token{t}, ws...)
		}
	} else {
		for _, t := range skipDeterminers(ts) {
			if endedStops[t.low] || len(ws) >= 4 {
				break
			}
			ws = append(ws, t)
			if t.end {
				break
			}
		}
	}
	// A word under three letters cannot find its memory (Names): "BahnCard 50" is named
	// by "BahnCard", "Dr. Osei" by "Osei".
	// A level or a code with a digit is named whole: "not A2", "not B1".
	coded := func(t token) bool {
		return len(t.low) >= 2 && strings.ContainsFunc(t.low, unicode.IsDigit) && strings.ContainsFunc(t.low, unicode.IsLetter) && alnum(t.low)
	}
	ws = slices.DeleteFunc(ws, func(t token) bool { return len([]rune(t.low)) < 3 && !coded(t) })
	specific := func(t token) bool {
		return coded(t) || len([]rune(t.low)) >= 3 && !common[t.low] && !genericWords[t.low] && !endedGeneric[t.low] && !endedStops[t.low] && !strings.HasSuffix(t.low, "ing") &&
			!pronouns[t.low] && !firstPerson[t.low] && !fillers[t.low] && !evaluations[t.low] && relations[t.low] == ""
	}
	if !slices.ContainsFunc(ws, specific) {
		return ""
	}
	// The name without the generic words around it, which the earlier memory may not
	// have used: "the Barclays card" is named by "the Barclays one".
	generic := func(t token) bool { return genericWords[t.low] || endedGeneric[t.low] }
	for generic(ws[0]) {
		ws = ws[1:]
	}
	for generic(ws[len(ws)-1]) {
		ws = ws[:len(ws)-1]
	}
	return join(ws)
}

// endedFacts turns the names a memory ends (endedNames) that no fact of fs already
// states into denied facts: of the slot the user has that holds the name (values); else
// of the memory's one positive fact, when it has one, the state that replaces the
// ended one ("bex left?? new manager is some guy tariq": manager); else of the clause's
// subject's "named" state, a multi-valued attribute whose group is the name itself — the
// state is known only by its name, and the overlay gives the earlier memory that names
// it the same fact (namedVersions). A person who leaves is no subject of the denial: the
// state was the speaker's (or the replacing fact's subject's).
func endedFacts(p prepared, fs []Fact, values map[string][]string) []Fact {
	ended := endedNames(p)
	if len(ended) == 0 {
		return fs
	}
	sure := func(f Fact) bool { return f.Certain(DefaultFactMin) }
	var pos []Fact
	for _, f := range fs {
		if !f.Negated && !f.aside && sure(f) {
			pos = append(pos, f)
		}
	}
	out := slices.Clone(fs)
	for _, e := range ended {
		if i := slices.IndexFunc(out, func(f Fact) bool { return f.Confidence == 0 && SameValue(f.Value, e.value) }); i >= 0 {
			// The memory reads it by form already; as a state that holds under the very
			// name, the ending's form says it ended ("discontinued the lisinopril"), while
			// "stopped eating fish" is the diet "no fish".
			if Kebab(out[i].Value) == Kebab(e.value) {
				out[i].Negated = true
			}
			continue
		}
		if i := slices.IndexFunc(out, func(f Fact) bool { return f.Negated && sure(f) && SameValue(f.Value, e.value) }); i >= 0 {
			// The meaning read the denial and its attribute surely enough ("Dr Lewis
			// retired": the doctor); the form makes it certain, and names it.
			out[i].Confidence = 0
			if slices.ContainsFunc(valueWords(out[i].Value), func(w string) bool { return len(w) >= 3 && !mentions(spacedWords(e.value), w) }) {
				out[i].Value = e.value
			}
			continue
		}
		subj := p.clauses[e.clause].subj
		if e.subject || subj == "" || Kebab(e.value) == subj {
			subj = p.self
		}
		f := Fact{Subject: subj, Attribute: "named", Value: e.value, Negated: true}
		switch key := slotHolding(values, subj, e.value); {
		case key != "":
			s, a, _ := strings.Cut(key, "/")
			if SingleValued(a) && slices.ContainsFunc(pos, func(g Fact) bool { return g.Slot() == key && !SameValue(g.Value, e.value) }) {
				// The slot's new value replaces the one named by itself ("carol dropped
				// out, my new study buddy is Dan"); what the meaning made of the name goes.
				out = slices.DeleteFunc(out, func(g Fact) bool { return SameValue(g.Value, e.value) })
				continue
			}
			f.Subject, f.Attribute = s, a
		case len(pos) == 1 && pos[0].Certain(replacesAt) && Kebab(pos[0].Value) != Kebab(e.value) && !strings.Contains(Kebab(e.value), pos[0].Subject) && isDigitStart(pos[0].Value) == isDigitStart(e.value):
			f.Subject, f.Attribute = pos[0].Subject, pos[0].Attribute
		}
		// What else the meaning made of the name is a guess; the form says it ended.
		out = slices.DeleteFunc(out, func(g Fact) bool { return SameValue(g.Value, e.value) })
		out = append(out, f)
	}
	return out
}
