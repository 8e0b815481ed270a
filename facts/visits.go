package facts

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// Visits: how often and on which day one who serves the household comes ("our cleaner
// Ana comes every other friday", "Ana's coming every friday now, weekly", "we're putting
// Ana back to fortnightly", "rosa comes weekly, on mondays"). The schedule is the role's,
// not the person's: a new cleaner on another day is a new version of the speaker's
// cleaner-visits. It is read only for one whose role the memory or the speaker's slots
// name (values); the value is how often and the day: "fortnightly friday", "weekly".

var (
	// visitVerbRe: a verb of coming, or of moving someone's visits.
	visitVerbRe = regexp.MustCompile(`(?i)\b(?:comes|come|coming|came|visits|visiting|pops in|drops by|is in|'s in|putting|put|moving|moved|changing|changed|change|switching|switched)\b`)
	// visitFreqRe: how often.
	visitFreqRe = regexp.MustCompile(`(?i)\b(?:every other (?:week|` + oneDay + `)|every two weeks|fortnightly|biweekly|bi-weekly|every (?:week|` + oneDay + `)|weekly|once a week|twice a week|once a month|monthly)\b`)
	// visitDayRe: the day, maybe plural, maybe with its part.
	visitDayRe = regexp.MustCompile(`(?i)\b(` + oneDay + `)s?\b`)
)

// visitFacts returns the visit schedule facts of a memory (see above): of each clause
// that names a person of a known role (fs, values), a verb of visits and how often or
// on which day.
func visitFacts(p prepared, fs []Fact, values map[string][]string) []Fact {
	var out []Fact
	for i, c := range p.clauses {
		if !visitVerbRe.MatchString(c.text) {
			continue
		}
		text := c.text
		if i+1 < len(p.clauses) && !visitVerbRe.MatchString(p.clauses[i+1].text) {
			text += ", " + p.clauses[i+1].text // "rosa comes weekly, on mondays"
		}
		freq, days := visitFreqRe.FindString(text), visitDayRe.FindAllStringSubmatchIndex(text, -1)
		if freq == "" && days == nil {
			continue
		}
		owner, role := visitRole(p, c, fs, values)
		if role == "" {
			continue
		}
		var day, moved []string
		for _, ix := range days {
			w := strings.ToLower(text[ix[2]:ix[3]])
			if !slices.Contains(day, w) {
				day = append(day, w)
			}
			if before := strings.Fields(strings.ToLower(text[:ix[0]])); len(before) > 0 && (before[len(before)-1] == "to" || before[len(before)-1] == "onto") {
				moved = append(moved, w) // "can't do mondays, so she's switching us to thursdays"
			}
		}
		if len(moved) > 0 {
			day = moved
		}
		if CorrectionCue.MatchString(text) && len(day) > 1 {
			day = day[len(day)-1:] // "every other thursday no sorry friday": the last one said
		}
		v := strings.ToLower(freq)
		switch {
		case strings.Contains(v, "other") || strings.Contains(v, "two") || strings.Contains(v, "fortnight") || strings.Contains(v, "bi"):
			v = "fortnightly"
		case strings.HasPrefix(v, "every") || v == "once a week":
			v = "weekly"
		}
		if len(day) > 0 {
			v = strings.TrimSpace(v + " " + strings.Join(day, " and "))
		}
		out = append(out, Fact{Subject: owner, Attribute: role + "-visits", Value: v, Confidence: 0})
	}
	return out
}

// serviceRoles are the roles of those who come to the household on a schedule;
// visitorWords name those the role words (roles) do not.
var (
	serviceRoles = wordSet(`cleaner babysitter carer teacher dog-walker gardener`)
	visitorWords = map[string]string{"walker": "dog-walker", "gardener": "gardener"}
)

// visitRole is the role of the one the clause names or refers to, by the memory's facts
// (a fact of the speaker's whose attribute is a role and whose value is the name) or the
// speaker's slots, or by a role's word in the clause ("our cleaner Ana comes …"); "".
func visitRole(p prepared, c clause, fs []Fact, values map[string][]string) (owner, role string) {
	var names []string
	for _, t := range c.toks {
		w := strings.TrimSuffix(t.low, "'s")
		if isMonthOrDay(w) || isMonthOrDay(strings.TrimSuffix(w, "s")) || common[w] || stopValue[w] || pronouns[t.low] || w == "i" || visitFreqRe.MatchString(w) || relations[w] != "" || roles[w] != "" {
			continue
		}
		if isCapitalised(t) && p.cased || knownHolder(p.self, w, values) {
			names = append(names, w) // in lower-case text, a name the speaker's slots hold
		}
	}
	if c.subj != "" && c.subj != p.self && relations[c.subj] == "" && roles[c.subj] == "" && !common[c.subj] {
		names = append(names, c.subj) // in lower-case text, the one name the clause is about
	}
	holds := func(role, v string) bool {
		return serviceRoles[role] && slices.ContainsFunc(names, func(n string) bool { return len(n) > 2 && SameValue(n, v) })
	}
	for _, f := range fs {
		if f.Subject == p.self && !f.Negated && holds(Kebab(f.Attribute), f.Value) {
			return f.Subject, Kebab(f.Attribute)
		}
	}
	for key, vals := range values {
		subj, attr, _ := strings.Cut(key, "/")
		if subj == p.self && slices.ContainsFunc(vals, func(v string) bool { return holds(attr, v) }) {
			return subj, attr
		}
	}
	// "Ana's coming every friday now" after "the cleaner comes every other friday": the
	// one role whose visits the speaker has a slot for.
	visits := ""
	for key := range values {
		if subj, attr, _ := strings.Cut(key, "/"); subj == p.self && strings.HasSuffix(attr, "-visits") {
			if visits != "" {
				visits = "-"
				break
			}
			visits = strings.TrimSuffix(attr, "-visits")
		}
	}
	if visits != "" && visits != "-" && len(names) > 0 {
		return p.self, visits
	}
	// "we've got a cleaner now Ana, she comes …": the role's word in the memory.
	// "Ruth's carer, Joanne, visits on Tuesdays": the carer is Ruth's.
	for _, cl := range p.clauses {
		for i, t := range cl.toks {
			if r := cmp.Or(roles[t.low], visitorWords[t.low]); serviceRoles[r] {
				if i > 0 && strings.HasSuffix(cl.toks[i-1].low, "'s") && isCapitalised(cl.toks[i-1]) {
					return Kebab(strings.TrimSuffix(cl.toks[i-1].low, "'s")), r
				}
				return p.self, r
			}
		}
	}
	return "", ""
}

// sameVisitDays reports a fact whose value is only days that visit v names already
// ("office-days = Tuesdays and Thursdays" of "Ruth's carer visits on Tuesdays and
// Thursdays"): what another reader made of the visit's days.
func sameVisitDays(g, v Fact) bool {
	days := visitDayRe.FindAllStringSubmatch(g.Value, -1)
	rest := strings.TrimSpace(visitDayRe.ReplaceAllString(strings.NewReplacer(" and ", " ", ",", " ").Replace(strings.ToLower(g.Value)), ""))
	return len(days) > 0 && rest == "" && !slices.ContainsFunc(days, func(d []string) bool { return !strings.Contains(v.Value, strings.ToLower(d[1])) })
}

// knownHolder reports a word that is the name of one who holds a service role of
// self's (values).
func knownHolder(self, w string, values map[string][]string) bool {
	for role := range serviceRoles {
		if slices.ContainsFunc(values[self+"/"+role], func(v string) bool { return strings.EqualFold(v, w) }) {
			return true
		}
	}
	return false
}
