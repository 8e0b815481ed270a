package facts

import (
	"regexp"
	"slices"
	"strings"
)

// Schedules: when a recurring event happens. "my pilates class is on mondays at 6pm",
// "choir's on tuesdays from next term", "the council moved recycling to fridays",
// "standup moved to 9:45", "bin day is friday now". The event names the slot, its day
// and its clock time are two attributes: <event>-day and <event>-time, of the event's
// owner ("leo's pickup is 3:15" is leo's; "my", "our", "the" or none the speaker's).
// The event's key is the last word of its phrase that is no generic word of events
// ("pilates class" and "pilates" are pilates; "team standup" is standup; "bin day" is
// bin), in a stem that its forms share ("swimming", "swim"), so that the wordings of one
// event from one memory to the next land in one group.

// eventWords are generic words of a recurring event, passed over for its key.
var eventWords = wordSet(`class classes lesson lessons session sessions practice practices training meeting meetings
	appointment appointments day days time times club group weekly daily the my our a new usual regular night nights
	morning mornings evening evenings run runs slot start finish end opening closing`)

// scheduleVerbs tell an event's day or time after its phrase: "is", "moved to", "got
// pushed to", "goes out on", "starts at".
var scheduleVerbs = wordSet(`is are 's moved moves got gets has have changed changes switched shifted pushed
	starts start happens happen runs run goes go now back comes come visits visit`)

// whenLeads stand between a schedule verb and the day or time it gives: "is now on",
// "got moved to", "go out", "are due".
var whenLeads = wordSet(`now still on at every back usually always normally moved changed pushed shifted switched
	rescheduled to got been going out due from starting other each me us`)

// whenFollows reports whether the words after a schedule verb give a day or a clock time
// straight away (past whenLeads): "is on mondays at 6pm", "got moved to sunday", "go
// out tuesday night" — not "is actually pretty decent …, 1:1s every other tuesday" nor
// "goes up to 1,450".
func whenFollows(ts []token) bool {
	for _, t := range ts {
		switch {
		case whenLeads[t.low]:
			continue
		case isDigitStart(t.low), t.low == "noon", t.low == "midday":
			return true
		default:
			d, _ := scheduleValues(t.low)
			return d != "" || isMonthOrDay(t.low) && strings.Contains(t.low, "day")
		}
	}
	return false
}

// habitRe says a thing recurs: "daily", "every", "weekdays", a weekday in the plural.
var habitRe = regexp.MustCompile(`(?i)\b(?:daily|every|each|weekly|weekdays|weekends|` + oneDay + `s)\b`)

// moveVerbs put an event at another day or time: "the council moved recycling to fridays".
var eventMoves = wordSet(`moved changed switched shifted pushed put rescheduled`)

// dayRunRe is a run of weekdays: "mondays", "tues and thurs", "mon tue thu", "weekends".
// Short forms ("sat", "sun", "wed") only count after "on", "every", "to" or in a run.
var dayRunRe = regexp.MustCompile(`(?i)\b(?:(?:on|every|to|from|till|until|and)\s+)?(` + dayName + `)((?:(?:\s*,\s*|\s+and\s+|\s+)(?:` + dayName + `))*)\b`)

// scheduleFacts reads a clause that says when an event happens: the day and clock time
// facts of the event, or nil.
func scheduleFacts(c clause, self string, base Fact) []Fact {
	if singleDay.MatchString(c.text) {
		return nil // "last day at halden is friday": one day, no schedule
	}
	ts := skipFillers(c.toks)
	owner, event, generic, at := eventPhrase(ts, self)
	if event == "" {
		return nil
	}
	dayAttr, timeAttr := event+"-day", event+"-time"
	guessed := false
	if s := Kebab(c.subj); owner == "" && strings.HasSuffix(s, "-"+event) {
		// The event is a described group the clause is about ("weekly product sync is on
		// thursdays", "sync moved to 3pm" of an existing product-sync slot): its own day
		// and time.
		owner, dayAttr, timeAttr = s, "day", "time"
	}
	if owner == "" {
		// No possessor: the speaker's, unless the memory names the one third party who
		// has such a slot, or only one has ("so on thursdays pickup is 4:45" after "leo's
		// pickup is 3:10"; ownersByAttribute).
		owner, guessed = self, true
	}
	day, clock := scheduleValues(join(ts[at:]))
	if base.Scope != "" && !strings.HasPrefix(strings.ToLower(base.Scope), "except") && !strings.HasPrefix(strings.ToLower(base.Scope), "only") &&
		!(day == "" && scopeBefore(c.text, base.Scope, event)) {
		// "on mondays at 6pm" is when, not a condition; "on Mondays standup moves to
		// 10:00", the day before the event and no day of its own, is the time's condition.
		base.Scope = ""
	}
	var out []Fact
	if day != "" {
		f := base
		f.Subject, f.Attribute, f.Value, f.Negated, f.defaultOwner, f.genericEvent = owner, dayAttr, day, false, guessed, generic
		out = append(out, f)
	}
	if clock != "" {
		f := base
		f.Subject, f.Attribute, f.Value, f.Negated, f.defaultOwner, f.genericEvent = owner, timeAttr, clock, false, guessed, generic
		out = append(out, f)
	}
	return out
}

// scopeBefore reports a clause's scope said before its event: "on Mondays standup moves
// to 10:00".
func scopeBefore(text, scope, event string) bool {
	low := strings.ToLower(text)
	scope = strings.TrimPrefix(strings.ToLower(scope), "on ") // "mondays standup is 10:00": on mondays
	i, j := strings.Index(low, scope), strings.Index(low, strings.ToLower(event))
	return i >= 0 && j > i
}

// scheduleAttr reports an attribute of a schedule (scheduleFacts): an event's day or
// clock time, whose values are shaped by their regular expressions.
func scheduleAttr(attr string) bool {
	attr = Kebab(attr)
	return attr == "day" || attr == "time" || strings.HasSuffix(attr, "-day") || strings.HasSuffix(attr, "-time")
}

// scheduleValues returns the weekdays and the clock time a clause names: a run of day
// names — a short form ("sat", "wed") or "weekends" only after "on", "every" or "to" or
// in a run of two or more — and a clock time ("6pm", "9:15") or an hour after "at" or
// "to" ("at 7", "moved to 10").
func scheduleValues(text string) (day, clock string) {
	for _, m := range dayRunRe.FindAllStringSubmatch(text, -1) {
		first, more := strings.ToLower(m[1]), strings.TrimSpace(m[2])
		lead := strings.TrimSpace(strings.TrimSuffix(m[0], m[1]+m[2]))
		full := strings.Contains(first, "day") && !strings.HasPrefix(first, "week")
		if full || lead != "" || more != "" {
			day = strings.TrimSpace(m[1] + m[2])
			break
		}
	}
	if m := clockRe.FindString(text); m != "" {
		clock = strings.TrimSpace(m)
	} else if m := atHourRe.FindStringSubmatch(text); m != nil {
		if h, _, _ := strings.Cut(strings.ReplaceAll(m[1], ".", ":"), ":"); len(h) < 2 || h < "25" {
			clock = m[1]
		}
	}
	return day, clock
}

// atHourRe is an hour after "at" or "to", not followed by a unit: "at 7", "moved to 10".
var atHourRe = regexp.MustCompile(`(?i)\b(?:at|to)\s+(\d{1,2}(?:[:.]\d{2})?)(?:\s+(?:now|instead|not|from|because|every|on|so|and|but|tomorrow|today)\b|\s*$|\s*[,.;!](?:\s|$))`)

// eventPhrase finds the event a schedule clause is about and its owner: the object of a
// move ("the council moved recycling to fridays") or the phrase before a schedule verb
// ("my pilates class is …", "choir's on …", "leo's pickup is …", "pickup at hillside
// is …"). It returns the owner's key, the event's, and where the words that say when
// start (after "to" of a move, else after the verb), and whether the event is only a
// generic word (eventOwner); no event when the clause names none (a pronoun: "it's at
// 11"; a person: "I'm in on tuesdays", "mum moved on saturday").
func eventPhrase(ts []token, self string) (owner, event string, generic bool, at int) {
	for i := 1; i < min(len(ts)-1, 4); i++ {
		if w := ts[i].low; w == "says" || w == "said" || w == "reckons" || w == "thinks" {
			// Reported speech: "my husband says the swimming is at 11" is about the swimming.
			o, e, g, a := eventPhrase(ts[i+1:], self)
			return o, e, g, a + i + 1
		}
	}
	for i := 0; i+2 < len(ts); i++ {
		if !eventMoves[ts[i].low] {
			continue
		}
		for j := i + 1; j < len(ts) && j <= i+5; j++ {
			if ts[j].low == "to" {
				if j > i+1 {
					if o, e, g := eventOwner(ts[i+1:j], self); e != "" {
						return o, e, g, j
					}
				}
				break
			}
		}
	}
	for i, t := range ts {
		w := t.low
		if i >= 6 || t.end && !scheduleVerbs[w] {
			break
		}
		if i == 0 {
			continue
		}
		is := strings.HasSuffix(w, "'s") && i+1 < len(ts) && copulaNext(ts[i+1])
		if !scheduleVerbs[w] && !is {
			continue
		}
		if (w == "got" || w == "gets" || w == "has" || w == "have") && (i+1 >= len(ts) || !eventMoves[ts[i+1].low]) {
			continue // "leo gets out at 3:10" is leo's; "swimming got moved to sunday" an event's
		}
		ph := ts[:i]
		if last := ph[len(ph)-1]; !is && strings.HasSuffix(last.low, "'s") {
			// "training's moved to …": "'s" is "has".
			ph = append(ph[:len(ph)-1:len(ph)-1], token{orig: strings.TrimSuffix(last.orig, "'s"), low: strings.TrimSuffix(last.low, "'s")})
		}
		if is {
			ph = append(ts[:i:i], token{orig: strings.TrimSuffix(t.orig, "'s"), low: strings.TrimSuffix(w, "'s")})
		}
		if k := slices.IndexFunc(ph, func(t token) bool { return stopValue[t.low] }); k > 0 {
			ph = ph[:k] // "pickup at hillside is 3:15"
		}
		if !whenFollows(ts[i+1:]) {
			return "", "", false, 0
		}
		o, e, g := eventOwner(ph, self)
		return o, e, g, i + 1
	}
	if len(ts) > 1 && strings.HasSuffix(ts[0].low, "'s") && copulaNext(ts[1]) && whenFollows(ts[1:]) {
		o, e, g := eventOwner([]token{{orig: strings.TrimSuffix(ts[0].orig, "'s"), low: strings.TrimSuffix(ts[0].low, "'s")}}, self)
		return o, e, g, 1
	}
	for i := 1; i <= 2 && i < len(ts); i++ {
		// A note's event and its clock time with no verb between, said as a habit:
		// "standup 9:00 ET daily", "swim club 7:30 on fridays"; not a name's ("Dana 6pm"),
		// nor one evening's ("dinner 7pm at Luca's").
		if ts[i-1].end || slices.ContainsFunc(ts[:i], isCapitalised) {
			break
		}
		if m := clockRe.FindStringIndex(join(ts[i:])); m != nil && m[0] == 0 && habitRe.MatchString(join(ts[i:])) {
			o, e, g := eventOwner(ts[:i], self)
			return o, e, g, i
		}
	}
	return "", "", false, 0
}

// copulaNext reports a word after "<x>'s" that makes the "'s" an "is": "choir's on
// tuesdays", "standup's at 10", "bin day's friday now".
func copulaNext(t token) bool {
	return t.low == "on" || t.low == "at" || t.low == "now" || t.low == "still" || t.low == "every" || t.low == "back" ||
		eventMoves[t.low] || isMonthOrDay(t.low) || isDigitStart(t.low)
}

// isEventNoun reports a word that names an activity or a chore rather than a person: it
// ends like a gerund or a noun of activity ("swimming", "recycling", "standup", "sync").
func isEventNoun(w string) bool {
	return strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "up") || strings.HasSuffix(w, "sync") || strings.HasSuffix(w, "tion")
}

// eventOwner splits an event phrase into its owner and its key: "my pilates class" →
// self, pilates; "leo's pickup" → leo, pickup; "the kids' swimming" → kids, swim; "the
// bins" → "" (no possessor), bin. A phrase of generic words only ("the lessons",
// "training") is keyed by its last one, with generic set: knownEvents may take it for
// the one event it names. No key when the phrase is a pronoun, a person, a first person,
// one occasion ("next session", "last shift"), or no plain words.
func eventOwner(ph []token, self string) (owner, event string, generic bool) {
	var words []string
	for i, t := range ph {
		w := t.low
		if w == "first" || w == "last" || w == "next" || pronouns[w] || firstPerson[w] || w == "they" || w == "it" || w == "we" || w == "you" || w == "this" || w == "that" {
			return "", "", false
		}
		if p := strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'"); p != w && i < len(ph)-1 {
			// A possessive: the owner.
			switch {
			case relations[p] != "":
				owner = relations[p]
			default:
				owner = Kebab(p)
			}
			words = nil
			continue
		}
		if isMonthOrDay(w) && i == 0 && len(ph) > 1 && strings.HasSuffix(w, "s") {
			continue // "mondays standup is 10:00": the days it holds on (its scope), then the event
		}
		if !isWord(w) || strings.Contains(w, "'") || isMonthOrDay(w) || numberWords[w] {
			return "", "", false
		}
		if rel := relations[w]; rel != "" && i < len(ph)-1 && roles[w] == "" && w != "team" {
			owner, words = rel, nil // "the kids' swimming": the apostrophe is gone
			continue
		}
		if w == "my" || w == "our" {
			owner = self
		}
		words = append(words, w)
	}
	last := "" // the last generic word
	for k := len(words) - 1; k >= 0; k-- {
		w := words[k]
		if placeAdverbs[w] {
			continue
		}
		if eventWords[w] {
			if last == "" && !articles[w] {
				last = w
			}
			continue
		}
		if roles[w] != "" && (last != "" || k == 0) && !familyWords[w] {
			// "my physio appointments", "physio's moved me to fridays": a role of the
			// speaker's life names its appointments.
			return owner, Kebab(w), false
		}
		if relations[w] != "" || roles[w] != "" || emptyWords[w] || stopValue[w] || fillers[w] || verbish(w) && !isEventNoun(w) {
			return "", "", false
		}
		return owner, Kebab(eventStem(w)), false
	}
	if last != "" {
		return owner, Kebab(eventStem(last)), true // "the lessons are on saturdays"
	}
	return "", "", false
}

// familyWords are relations that are people of the family, never an appointment.
var familyWords = wordSet(`husband wife girlfriend boyfriend partner fiance fiancee housemate flatmate roommate flatmates housemates`)

// placeAdverbs stand in an event's phrase without naming it: "bins here go out".
var placeAdverbs = wordSet(`here there still now also then always usually`)

// articles open a phrase: never an event's key.
var articles = wordSet(`the a an my our`)

// eventStem is the form an event's words share: "swimming" → swim, "bins" → bin,
// "lessons" → lesson.
func eventStem(w string) string {
	switch {
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = strings.TrimSuffix(w, "ing")
		if n := len(w); n > 2 && w[n-1] == w[n-2] {
			w = w[:n-1]
		}
		if n := len(w); n > 2 && w[n-1] == 'l' && !strings.ContainsRune("aeiouly", rune(w[n-2])) {
			w += "e" // "recycling" → recycle, "cycling" → cycle
		}
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "es") && len(w) > 3:
		w = strings.TrimSuffix(w, "s")
	}
	return w
}

// singleDay names a single day rather than a recurring one.
var singleDay = regexp.MustCompile(`(?i)\b(?:first|last|final) (?:day|week|time|session|class|lesson)\b`)

// knownEvents gives a schedule fact whose event is only a generic word ("training's moved
// to wednesdays at 6:30") the one event of the same kind (a day, a clock time) that the
// user's slots hold — of the fact's subject, or of anyone when the clause named no
// owner: "my son's football training is tuesdays at 6" made son/football-day.
func knownEvents(fs []Fact, known []slotSeen) []Fact {
	// known holds the slots the input is shown (Input.Slots) and those the call's earlier
	// inputs produced.
	var slots []string
	for _, s := range known {
		slots = append(slots, s.subject+"/"+Kebab(s.attribute))
	}
	for i, f := range fs {
		if !f.genericEvent {
			continue
		}
		suffix := "-day"
		if strings.HasSuffix(f.Attribute, "-time") {
			suffix = "-time"
		}
		var found []string
		for _, k := range slots {
			subj, attr, _ := strings.Cut(k, "/")
			if !strings.HasSuffix(attr, suffix) || !f.defaultOwner && subj != f.Subject || slices.Contains(found, k) {
				continue
			}
			found = append(found, k)
		}
		if len(found) == 1 {
			subj, attr, _ := strings.Cut(found[0], "/")
			fs[i].Subject, fs[i].Attribute, fs[i].defaultOwner = subj, attr, false
		}
	}
	return fs
}
