package facts

import (
	"regexp"
	"slices"
	"strings"
)

// Chores: who does which job of a shared household ("chore split agreed: I'm on
// laundry", "Kit does the hoovering", "I do the kitchen and Kai does the bathroom, Beth's
// on hoovering", "bins are my job and laundry is Oisín's"). A chore is one state of its
// doer (attribute chore, single-valued): a swap gives each doer a new one. Several chores
// of one doer in one clause are one value ("bins and recycling").

// choreWords are jobs that are chores by their word alone; roomChores ("the kitchen")
// are chores only after a verb of doing or having one, or in a memory about a rota.
var (
	choreWords = wordSet(`laundry hoovering vacuuming hoover ironing dusting mopping bins recycling dishes dishwasher washing-up cooking garbage trash rubbish mowing litter`)
	roomChores = wordSet(`kitchen bathroom bathrooms floors hallway stairs toilet toilets garden lawn`)
	// choreVerbs lead a chore: "does", "'m on", "got", "took over".
	choreVerbs = wordSet(`do does doing did have has got take takes taking on over responsible charge`)
	// choreNot: a chore word that is no chore here ("the bins go out on Friday", "forgot
	// the bins"): a verb of the collection or of forgetting after or before it.
	choreNot = regexp.MustCompile(`(?i)\b(?:go(?:es)? out|collect\w*|forgot|forget|put out|emptied|day|night|morning)\b`)
)

// choreFacts reads the chores a clause gives people: each (doer, chore) the clause
// states, the doer the subject just before the verb ("I", "me", a name, a name with
// 's) or, with no such word, the clause's subject.
func choreFacts(c clause, self string, base Fact) []Fact {
	ts := skipFillers(c.toks)
	if choreNot.MatchString(c.text) {
		return nil
	}
	var out []Fact
	add := func(doer, chore string) {
		if i := slices.IndexFunc(out, func(f Fact) bool { return f.Subject == doer }); i >= 0 {
			if !strings.Contains(out[i].Value, chore) {
				out[i].Value += " and " + chore
			}
			return
		}
		f := base
		f.Subject, f.Attribute, f.Value = doer, "chore", chore
		out = append(out, f)
	}
	for i, t := range ts {
		w := t.low
		if w == "washing" && i+1 < len(ts) && ts[i+1].low == "up" {
			w = "washing-up"
		}
		room := roomChores[w]
		if !choreWords[w] && !room {
			continue
		}
		// back over "the", "+", "and" and other chores to the verb
		j := i - 1
		for j >= 0 && (ts[j].low == "the" || ts[j].low == "+" || ts[j].low == "and" || ts[j].low == "&" || choreWords[ts[j].low] || roomChores[ts[j].low]) {
			j--
		}
		var doer string
		led := false // a verb of doing or having leads the chore
		switch {
		case j >= 0 && (choreVerbs[ts[j].low] || ts[j].low == "for" && j > 0 && ts[j-1].low == "responsible" || ts[j].low == "of" && j > 0 && ts[j-1].low == "charge"):
			k := j - 1
			for k >= 0 && (choreVerbs[ts[k].low] || ts[k].low == "is" || ts[k].low == "am" || ts[k].low == "are" || ts[k].low == "'m" || ts[k].low == "'s" || ts[k].low == "now" || ts[k].low == "in" || ts[k].low == "also" || ts[k].low == "still") {
				k--
			}
			doer, led = choreDoer(ts, k, c.subj, self), true
		case j >= 0 && ts[j].low == "me" || j >= 0 && isCapitalised(ts[j]) && ts[j].low != "i" && !room:
			// "Lily → dishwasher" reads no verb; "me the floors" in a list does
			continue
		case i+2 < len(ts) && (ts[i+1].low == "is" || ts[i+1].low == "are"):
			// "bins are my job", "laundry is Oisín's"
			nx := ts[i+2]
			switch {
			case nx.low == "my" || nx.low == "mine":
				doer = self
			case strings.HasSuffix(nx.low, "'s") && isCapitalised(nx):
				doer = Kebab(strings.TrimSuffix(nx.low, "'s"))
			}
		}
		if doer == "" || room && !led {
			continue // "the kitchen is mine" names no chore; "I do the kitchen" does
		}
		add(doer, strings.ReplaceAll(w, "-", " "))
	}
	return out
}

// choreDoer is who stands at ts[k], before a chore's verb: the speaker for "I" or "me",
// a person named, else the clause's subject when the verb opens the clause.
func choreDoer(ts []token, k int, subj, self string) string {
	if k < 0 {
		return subj
	}
	w := strings.TrimSuffix(ts[k].low, "'s")
	switch {
	case w == "i" || w == "im" || w == "me" || firstPerson[w]:
		return self
	case pronouns[w]:
		return subj
	case isCapitalised(ts[k]), k == 0 && (w == subj || !common[w] && !stopValue[w]):
		return Kebab(w)
	}
	return ""
}
