package facts

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Levels and turns of a person that the words name whatever else the clause says: a
// language level on the CEFR scale ("Chiara reckons I'm a solid A2 now", "From October I
// am in the B1.1 course", "switching to B2 instead") and a work shift ("he's on nights
// this month", "Beatriz has changed to day shifts"). Each is one slot of its holder,
// language-level and shift.

// cefrRe is a CEFR level: A1 to C2, maybe with its part ("B1.1", "A2.2").
var cefrRe = regexp.MustCompile(`^[abcABC][12](?:\.[12])?$`)

// levelNot: a word after a level that makes it something else's name.
var levelNot = wordSet(`form paper exam exams test tests certificate`)

// levelTaken: an exam of the level taken or passed is the level left behind ("passed the
// A2 exam"), no level held.
var levelTaken = wordSet(`passed sat failed took taken finished completed`)

// languageLevel reads a CEFR level of the clause's subject (the speaker's when a tutor
// moves "me" to it); the clause's negation is the fact's ("not A2").
func languageLevel(c clause, self string) (subj, level string) {
	ts := c.toks
	for i, t := range ts {
		if !cefrRe.MatchString(t.orig) || !isCapitalised(t) {
			continue
		}
		if i+1 < len(ts) && (ts[i+1].low == "/" || strings.HasPrefix(ts[i+1].low, "visa") || levelNot[ts[i+1].low]) {
			return "", "" // "my B1/B2 visa", "the B1 exam is on 14 May": a visa, an exam's own slot
		}
		if slices.ContainsFunc(ts[max(0, i-3):i], func(u token) bool { return levelTaken[u.low] }) {
			return "", "" // "passed the A2 exam"
		}
		subj = c.subj
		if actsOnMe(ts[:i]) {
			subj = self // "Chiara moved me up to B1"
		}
		return subj, strings.ToUpper(t.orig)
	}
	return "", ""
}

// shiftRe is a work shift after a verb or preposition that puts someone on it: bare
// "nights", "earlies" and "lates", "days" after a move, or a kind of shift named.
var shiftRe = regexp.MustCompile(`(?i)\b(?:on|doing|do|does|work|works|working|onto|to|mostly)\s+(?:the\s+|mostly\s+)?` +
	`((?:night|day|early|late|lunch|dinner|breakfast|evening|morning|weekend|double|split|graveyard|back)\s+shifts?|(?:lunch|dinner|breakfast)\s+service|nights|earlies|lates|days)\b(\s+out)?`)

// shiftMoves: "days" is a shift only after a move to it ("moved onto days").
var shiftMoves = regexp.MustCompile(`(?i)\b(?:onto|moved to|moving to|changed to|switched to|swapped to|back (?:on|to)|going to|put on|put me on)\s+(?:the\s+)?days\b`)

// workShift reads the shift of the clause's subject (the speaker's when "me" is put on
// it: "they've moved me onto nights"), normalised: "night shifts" is "nights".
func workShift(c clause, self string) (subj, shift string) {
	ix := shiftRe.FindStringSubmatchIndex(c.text)
	if ix == nil || ix[4] >= 0 {
		return "", "" // "on nights out" is no shift
	}
	v := strings.ToLower(strings.Join(strings.Fields(c.text[ix[2]:ix[3]]), " "))
	if v == "days" && !shiftMoves.MatchString(c.text) {
		return "", ""
	}
	switch strings.TrimSuffix(strings.TrimSuffix(v, "s"), " shift") {
	case "night":
		v = "nights"
	case "day":
		v = "days"
	case "early", "earlie":
		v = "earlies"
	case "late":
		v = "lates"
	default:
		if !strings.HasSuffix(v, "s") && strings.HasSuffix(v, "shift") {
			v += "s"
		}
	}
	subj = c.subj
	if actsOnMe(c.toks) {
		subj = self
	}
	if before := strings.Fields(c.text[:ix[0]]); len(before) > 1 && strings.EqualFold(before[len(before)-2], "with") {
		// "With Beatriz on day shifts I can work from home": the one named holds it.
		if w := before[len(before)-1]; w != "I" && unicode.IsUpper([]rune(w)[0]) {
			subj = Kebab(w)
		}
	}
	return subj, v
}
