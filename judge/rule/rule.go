package rule

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	fx "github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
)

// Thresholds the rule auditor applies to Sentry's scores when the texts give it nothing to
// go on: the gate's own defaults (gate.DefaultTauTop and gate.DefaultTauLog).
const (
	DefaultTauTop = 0.60
	DefaultTauLog = 0.45
)

// Config configures an Auditor. The zero value means the defaults.
type Config struct {
	// TauTop and TauLog are the score thresholds used when the rules can read nothing: a
	// pair with A above TauTop is taken to be about one slot, and then to conflict when B
	// is below TauLog (0: DefaultTauTop, DefaultTauLog).
	TauTop, TauLog float64
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []string
	for _, f := range []struct {
		name string
		v    float64
	}{{"tau_top", c.TauTop}, {"tau_log", c.TauLog}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Sprintf("%s is %v", f.name, f.v))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("rule config: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.TauTop == 0 {
		c.TauTop = DefaultTauTop
	}
	if c.TauLog == 0 {
		c.TauLog = DefaultTauLog
	}
	return c
}

// Auditor audits pairs with hand-written rules. When both records carry facts of one
// slot (Record.Facts, from package facts) it is a judge over facts: the same value is a
// restatement (keep: the newer statement is the current version), a denied value an explicit negation, a value taken
// up again a temporal update, a new scope a scoped exception, another value of a
// single-valued attribute a temporal update (a value discrepancy when the input corrects
// itself: "sorry, I meant 40"), another value of a multi-valued one a coexistence; a
// restatement that the sentences deny or narrow in words the extractor missed goes to
// the sentence rules' negation or scope. Otherwise it reads the sentences: it works out which slot the old record
// fills (job, home, partner, pet, hobby, like or dislike, diet, a number) and its value,
// looks for the same slot in the new input, compares values (places, employers and job
// titles, names, numbers with their units) and reads lexical cues: change over time
// ("moved", "now", "used to", "no longer"), negation, narrower scope ("only", "except",
// "rarely"), and implications (a steak for a vegetarian, a flat in another city, a first
// date for someone in a relationship). Sentry's scores decide only when the rules cannot
// tell the old record's slot and the texts share no words. It needs no model, answers in microseconds, and is the baseline every LLM judge is
// compared with. An Auditor is safe for concurrent use; its zero value uses the
// defaults.
type Auditor struct {
	cfg Config
}

var _ judge.Auditor = (*Auditor)(nil)

// New returns a rule auditor.
func New(cfg Config) (*Auditor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Auditor{cfg: cfg}, nil
}

// Audit decides the pair and returns the verdict with its think steps, rendered in the
// audit format in Result.Raw.
func (r *Auditor) Audit(ctx context.Context, p judge.Pair) (judge.Result, error) {
	if err := ctx.Err(); err != nil {
		return judge.Result{}, err
	}
	start := time.Now()
	steps, v := r.Decide(p)
	return judge.Result{Verdict: v, Steps: steps, Raw: judge.Render(steps, v), Source: judge.SourceRule, Latency: time.Since(start)}, nil
}

// Decide is Audit without the bookkeeping: the think steps and the verdict.
func (r *Auditor) Decide(p judge.Pair) (judge.Steps, judge.Verdict) {
	if o, n, ok := sharedSlot(p.Old.Facts, p.New.Facts); ok {
		s, v := decideFacts(o, n, p.New.Text)
		if v.Status == judge.StatusConsistent && fx.SameValue(o.Value, n.Value) {
			// The facts read as a restatement; the sentences may still deny or narrow it in
			// words the extractor missed ("I gave Rex away", "…, except at lunch") — by a
			// rule that reads the slot, not by shared words and a negation anywhere in one
			// text ("Sushi is delicious! … Don't limit yourself" restates the sushi).
			if ss, sv := r.decideSentences(p); sv.Status == judge.StatusConflict && sv.Confidence > confOverlap &&
				(sv.ConflictType == judge.TypeExplicitNegation || sv.ConflictType == judge.TypeScopeMismatch) {
				return ss, sv
			}
		}
		return s, v
	}
	return r.decideSentences(p)
}

// decideSentences judges the pair from its sentences: the lexicon rules, and Sentry's
// scores when the rules can read nothing.
func (r *Auditor) decideSentences(p judge.Pair) (judge.Steps, judge.Verdict) {
	cfg := r.cfg.withDefaults()
	old := analyse(newText(p.Old.Text), p.Old.Slot)
	nt := newText(p.New.Text)
	d := old.judge(nt)
	d.newVal = nt.display(d.newVal)
	if old.kind == slotUnknown && d.status == judge.StatusUnrelated && p.Scores != nil && p.Scores.A > cfg.TauTop {
		// The rules cannot read the old record's slot and the texts share nothing: trust
		// the gate's heads. (Where the rules know the slot and find the input silent on it,
		// they overrule the gate, whose topic score is high for every pair it routes.)
		if p.Scores.B < cfg.TauLog {
			d = conflict(judge.TypeImplicitViolation, confScores, "",
				fmt.Sprintf("no lexical cue, but Sentry sees the same topic (a = %.2f) in disagreement (b = %.2f)", p.Scores.A, p.Scores.B))
		} else {
			d = consistent(confScores,
				fmt.Sprintf("no lexical cue, but Sentry sees the same topic (a = %.2f) in agreement (b = %.2f)", p.Scores.A, p.Scores.B))
		}
	}
	return d.render(old, p)
}

// slotKind is the kind of slot the old record fills.
type slotKind int

const (
	slotUnknown slotKind = iota
	slotJob
	slotLocation
	slotRelationship
	slotPets
	slotHobby
	slotLike
	slotDiet
	slotNumber
)

var slotNames = [...]string{"an unknown slot", "job", "home", "partner", "pet", "hobby", "like or dislike", "diet", "number"}

// facts is what the rule auditor reads from the old record.
type facts struct {
	t         *text
	kind      slotKind
	titles    []string
	employers []string
	places    []string
	names     []string
	species   []string
	stems     map[string]bool
	qty       *quantity
	diet      diet
	polarity  int // likes: +1 likes, -1 dislikes
}

func (f *facts) slotName() string {
	if f.kind == slotNumber && f.qty != nil {
		return f.qty.kind
	}
	return slotNames[f.kind]
}

// value is the old record's value in short form.
func (f *facts) value() string {
	switch f.kind {
	case slotJob:
		return joinNonEmpty(first(f.titles), " at ", f.t.display(first(f.employers)))
	case slotLocation:
		return f.t.display(first(f.places))
	case slotRelationship:
		return f.t.display(first(f.names))
	case slotPets:
		return joinNonEmpty(f.t.display(first(f.names)), " the ", first(f.species))
	case slotDiet:
		return f.diet.String()
	case slotNumber:
		if f.qty != nil {
			return f.qty.text
		}
	}
	return judge.Clip(strings.TrimSpace(f.t.orig), 60)
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func joinNonEmpty(a, sep, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

var (
	titleRE     = re(`\b(?:as|being|become|becoming|I'm|I am|Im|the new|the best|work as|start as|hired me as|job as)\s+(?:an?\s+|the\s+)?((?:[A-Z]{2,3}\s+)?[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,3})`)
	titleAtRE   = re(`\b[Aa]n?\s+((?:[A-Z]{2,3}\s+)?[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})\s+at\b`)
	employerRE  = re(`\b(?:at|joined|quit|left|for)\s+((?:[Tt]he\s+)?\p{Lu}[\p{L}'&-]*(?:\s+(?:\p{Lu}[\p{L}'&-]*|of|&|the|café|cafe))*)`)
	orgRE       = re(`\b(?:at|joined|quit|left)\s+(the\s+[a-z]+\s+(?:council|service|department|library|hospital|school|university|company|firm|agency|station|museum|clinic|ministry|authority|centre|center|store|shop|factory|lab|institute)s?)\b`)
	placeRE     = re(`\b(?:in|to|from|through|hello|around|near|across|bye bye|back to)\s+(?:(?:my|the|our)\s+)?(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*)`)
	weakPlaceRE = re(`\b(?:left|leave|visit|for)\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*)`)
	placeDetRE  = re(`(?:^|[.!?]\s+)(?:The|My|Our)\s+(\p{Lu}[\p{L}'-]*(?:\s+\p{Lu}[\p{L}'-]*)*)`)
)

var titleStop = map[string]bool{
	"now": true, "at": true, "for": true, "in": true, "and": true, "with": true, "from": true,
	"since": true, "today": true, "again": true, "is": true, "was": true, "so": true, "but": true,
	"too": true, "here": true, "there": true, "of": true, "these": true, "this": true, "who": true,
	"that": true, "has": true, "have": true, "still": true, "then": true, "when": true, "by": true,
	"on": true, "to": true, "stuff": true, "tired": true, "really": true,
}

var notTitle = map[string]bool{
	"big": true, "bit": true, "lot": true, "couple": true, "typical": true, "relationship": true,
	"parent": true, "fan": true, "vegan": true, "vegetarian": true, "new": true, "good": true,
	"great": true, "little": true, "few": true, "long": true, "single": true, "happy": true,
	"teetotal": true, "year": true, "years": true, "week": true, "day": true, "sucker": true,
}

// jobTitles finds job titles ("nurse", "HR manager") in the original text.
func jobTitles(orig string) []string {
	var out []string
	add := func(raw string) {
		ws := strings.Fields(raw)
		var keep []string
		for _, w := range ws {
			if titleStop[strings.ToLower(w)] {
				break
			}
			keep = append(keep, w)
		}
		if len(keep) == 0 || notTitle[strings.ToLower(keep[0])] {
			return
		}
		t := strings.ToLower(strings.Join(keep, " "))
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, m := range titleRE.FindAllStringSubmatch(orig, -1) {
		add(m[1])
	}
	for _, m := range titleAtRE.FindAllStringSubmatch(orig, -1) {
		add(m[1])
	}
	return out
}

// employersIn finds employers: capitalised names after "at", "joined", … and "the X
// council"-style organisations.
func employersIn(orig string) []string {
	var out []string
	add := func(s string) {
		s = strings.ToLower(strings.TrimSpace(s))
		s = strings.TrimPrefix(s, "the ")
		if s == "" || commonWords[s] || slices.Contains(out, s) {
			return
		}
		out = append(out, s)
	}
	for _, m := range employerRE.FindAllStringSubmatch(orig, -1) {
		name := m[1]
		if first, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(name, "the "), "The "), " "); commonWords[strings.ToLower(first)] {
			continue
		}
		add(name)
	}
	for _, m := range orgRE.FindAllStringSubmatch(strings.ToLower(orig), -1) {
		add(m[1])
	}
	return out
}

// placesIn finds place names: capitalised names after a preposition of place, after a
// sentence-initial "The"/"My", and capitalised names the text repeats; with weak, also
// after "left", "leave", "visit" and "for", which name employers as often as places.
func placesIn(orig string, weak bool) []string {
	var out []string
	add := func(s string) {
		ws := strings.Fields(s)
		for len(ws) > 0 && commonWords[strings.ToLower(ws[0])] {
			ws = ws[1:]
		}
		p := strings.ToLower(strings.Join(ws, " "))
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	res := []*regexp.Regexp{placeRE, placeDetRE}
	if weak {
		res = append(res, weakPlaceRE)
	}
	for _, r := range res {
		for _, m := range r.FindAllStringSubmatch(orig, -1) {
			add(m[1])
		}
	}
	seen := map[string]int{}
	for _, s := range capsSequences(orig) {
		seen[s]++
		if seen[s] == 2 {
			add(s)
		}
	}
	return out
}

// analyse reads the old record: its slot kind and values. hint is the record's slot key,
// when known.
func analyse(t *text, hint string) *facts {
	f := &facts{t: t, stems: contentStems(t)}
	qs := quantities(t)
	f.kind = kindFromHint(hint)
	if f.kind == slotUnknown {
		switch {
		case detectDiet(t) != dietNone && t.has(cueDiet):
			f.kind = slotDiet
		case len(qs) > 0:
			f.kind = slotNumber
		case t.has(cueRelationship):
			f.kind = slotRelationship
		case t.has(cueJob) || len(jobTitles(t.orig)) > 0 && len(employersIn(t.orig)) > 0:
			f.kind = slotJob
		case t.has(cuePets):
			f.kind = slotPets
		case t.has(cueLocation) || len(placesIn(t.orig, false)) > 0 && !t.has(cueLike) && !t.has(cueHobby):
			f.kind = slotLocation
		case t.has(cueHobby):
			f.kind = slotHobby
		case t.has(cueLike):
			f.kind = slotLike
		}
	}
	switch f.kind {
	case slotJob:
		f.titles, f.employers = jobTitles(t.orig), employersIn(t.orig)
	case slotLocation:
		f.places = placesIn(t.orig, true)
		for _, s := range capsSequences(t.orig) {
			if s = strings.ToLower(s); !slices.Contains(f.places, s) {
				f.places = append(f.places, s)
			}
		}
	case slotRelationship, slotPets:
		for _, s := range capsSequences(t.orig) {
			f.names = append(f.names, strings.ToLower(s))
		}
		for _, m := range cuePets.FindAllString(t.low, -1) {
			if m != "pet" && m != "pets" && m != "vet" && !slices.Contains(f.species, m) {
				f.species = append(f.species, m)
			}
		}
	case slotDiet:
		f.diet = detectDiet(t)
	case slotNumber:
		if len(qs) > 0 {
			f.qty = &qs[0]
		}
	case slotLike:
		f.polarity = polarity(t)
	}
	return f
}

func kindFromHint(slot string) slotKind {
	head, _, _ := strings.Cut(strings.ToLower(slot), ".")
	switch {
	case slot == "":
		return slotUnknown
	case head == "job" || head == "work":
		return slotJob
	case head == "home" || head == "location" || head == "city":
		return slotLocation
	case head == "partner" || head == "relationship":
		return slotRelationship
	case head == "pet" || head == "pets":
		return slotPets
	case head == "hobby" || head == "hobbies":
		return slotHobby
	case strings.HasPrefix(strings.ToLower(slot), "likes.diet") || head == "diet":
		return slotDiet
	case head == "likes" || head == "like":
		return slotLike
	case head == "num" || head == "numerical":
		return slotNumber
	}
	return slotUnknown
}

func polarity(t *text) int {
	switch {
	case t.has(likeNegative):
		return -1
	case t.has(likePositive):
		return 1
	}
	return 0
}

// The confidence of a rule verdict (Verdict.Confidence) says how directly the texts state
// what the verdict claims, from two stated values compared down to no lexical evidence at
// all. The levels rank the rules; they are not calibrated probabilities.
const (
	// confStated: both texts state a number of the same kind, and the numbers are
	// compared (value discrepancy, or the same value).
	confStated = 0.9
	// confExplicit: the new input speaks of the slot (a value of it, or for a partner or
	// pet the topic itself) and says outright what became of it: a change word (temporal
	// update), a denial (explicit negation), or the same value named and neither.
	confExplicit = 0.85
	// confScope: a hobby or like compared by the words the two texts share: a scope cue
	// narrows it (scope mismatch), or none does.
	confScope = 0.8
	// confNegated: the old value denied or narrowed without a word of change: a negation
	// in a sentence naming the old job or home, a scope cue on a diet.
	confNegated = 0.75
	// confCue: one cue of the lexicon decides about a slot whose value the rules cannot
	// compare: the opposite preference, a hobby given up, a diet ended, broken or kept.
	confCue = 0.7
	// confSilent: the rules know the old record's slot and the new input says nothing of
	// it (unrelated).
	confSilent = 0.7
	// confFacts: the facts of package facts decide (decideFacts); the extractor read the
	// values, so the auditor is as sure as one cue makes it.
	confFacts = 0.7
	// confImplied: an implication, not a statement: another job or home named without a
	// change word, an implicit cue (a date for someone in a relationship). Also a job or
	// home input in which the rules find no value (unrelated): the employer and place
	// patterns miss more values than the other slots' cues, so that silence counts for less
	// than confSilent.
	confImplied = 0.6
	// confWeak: a weak cue: talk of a change that names no value, or the slot's topic
	// touched without a denial.
	confWeak = 0.55
	// confOverlap: the old record's slot is unknown; the verdict rests on shared content
	// words and on negation or scope in only one of the texts.
	confOverlap = 0.5
	// confScores: no lexical evidence at all; Sentry's scores decide.
	confScores = 0.4
)

// decision is the rule auditor's reading of a pair.
type decision struct {
	status judge.Status
	ctype  judge.ConflictType
	conf   float64
	newVal string
	cues   []string
	reason string
}

func conflict(t judge.ConflictType, conf float64, newVal, reason string, cues ...string) decision {
	return decision{status: judge.StatusConflict, ctype: t, conf: conf, newVal: newVal, reason: reason, cues: nonEmpty(cues)}
}

func consistent(conf float64, reason string, cues ...string) decision {
	return decision{status: judge.StatusConsistent, ctype: judge.TypeNone, conf: conf, reason: reason, cues: nonEmpty(cues)}
}

func unrelated(conf float64, reason string) decision {
	return decision{status: judge.StatusUnrelated, ctype: judge.TypeNone, conf: conf, reason: reason}
}

func nonEmpty(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// judge compares the new input with the old record's facts.
func (f *facts) judge(n *text) decision {
	switch f.kind {
	case slotJob, slotLocation:
		return f.judgeTemporal(n)
	case slotRelationship, slotPets:
		return f.judgeNegation(n)
	case slotHobby, slotLike:
		return f.judgeScope(n)
	case slotDiet:
		return f.judgeDiet(n)
	case slotNumber:
		return f.judgeNumber(n)
	}
	return f.judgeGeneric(n)
}

func (f *facts) mentions(n *text, phrases []string) string {
	for _, p := range phrases {
		if n.containsWord(p) {
			return p
		}
	}
	return ""
}

func (f *facts) judgeTemporal(n *text) decision {
	var mentioned, newVal string
	var strongChange *regexp.Regexp
	if f.kind == slotJob {
		strongChange = cueJobChange
		mentioned = f.mentions(n, append(slices.Clone(f.employers), f.titles...))
		titles, emps := jobTitles(n.orig), employersIn(n.orig)
		for _, e := range emps {
			if !slices.Contains(f.employers, e) {
				newVal = e
				break
			}
		}
		if mentioned != "" || n.has(cueJob) || len(emps) > 0 {
			for _, t := range titles {
				if !slices.Contains(f.titles, t) {
					newVal = joinNonEmpty(t, " at ", newVal)
					break
				}
			}
		}
	} else {
		strongChange = cueHomeChange
		mentioned = f.mentions(n, f.places)
		places := placesIn(n.orig, mentioned != "" || n.has(cueLocation))
		for _, p := range places {
			if !slices.Contains(f.places, p) && !f.t.containsWord(p) {
				newVal = p
				break
			}
		}
	}
	change := changeIn(n, cueChange)
	if mentioned == "" && newVal == "" {
		// Nothing names the slot's value: only a plain statement of change counts.
		if s := changeIn(n, strongChange); s != "" {
			return conflict(judge.TypeTemporalUpdate, confWeak, "", fmt.Sprintf("the new input talks about a change of %s (%q)", f.slotName(), s), s)
		}
		return unrelated(confImplied, fmt.Sprintf("the new input names no %s", f.slotName()))
	}
	var about []string // the sentences that name the old value
	neg := ""
	if mentioned != "" {
		about = n.chunksWhere(func(c string) bool { return strings.Contains(c, mentioned) })
		neg = findIn(about, cueNegation)
	}
	switch {
	case change != "":
		return conflict(judge.TypeTemporalUpdate, confExplicit, newVal, fmt.Sprintf("the new input says the %s changed (%q)", f.slotName(), change), change)
	case neg != "" && findIn(about, cueNotChanged) == "":
		return conflict(judge.TypeTemporalUpdate, confNegated, newVal, fmt.Sprintf("the new input says the old %s no longer holds (%q)", f.slotName(), neg), neg)
	case newVal != "" && mentioned == "":
		return conflict(judge.TypeImplicitViolation, confImplied, newVal, fmt.Sprintf("the new input implies another %s (%s) without saying it changed", f.slotName(), newVal))
	}
	return consistent(confExplicit, fmt.Sprintf("the new input mentions the same %s (%s) and no change", f.slotName(), mentioned))
}

func (f *facts) judgeNegation(n *text) decision {
	keys := append(slices.Clone(f.names), f.species...)
	cue := cueRelationship
	implicit := cueDating
	if f.kind == slotPets {
		cue, implicit = cuePets, cueNoPets
	}
	about := func(c string) bool {
		if cue.MatchString(c) || implicit.MatchString(c) {
			return true
		}
		for _, k := range keys {
			if (&text{low: c}).containsWord(k) {
				return true
			}
		}
		return false
	}
	chunks := n.chunksWhere(about)
	if len(chunks) == 0 {
		return unrelated(confSilent, fmt.Sprintf("the new input says nothing about the user's %s", f.slotName()))
	}
	mentioned := f.mentions(n, keys)
	// Negation inside an implicit cue ("pets are not allowed") is part of the implication.
	bare := make([]string, len(chunks))
	for i, c := range chunks {
		bare[i] = cueIdiomNo.ReplaceAllString(implicit.ReplaceAllString(c, " "), " ")
	}
	neg := ""
	if findIn(chunks, cueNotChanged) == "" {
		neg = findIn(bare, cueNegation)
	}
	if neg != "" {
		nv := "single"
		if f.kind == slotPets {
			nv = "no " + joinNonEmpty(first(f.species), "", "pet")
		}
		return conflict(judge.TypeExplicitNegation, confExplicit, nv, fmt.Sprintf("the new input denies the old %s (%q)", f.slotName(), neg), neg)
	}
	if imp := findIn(chunks, implicit); imp != "" {
		return conflict(judge.TypeImplicitViolation, confImplied, "", fmt.Sprintf("the new input implies the old %s no longer holds (%q)", f.slotName(), imp), imp)
	}
	if mentioned != "" {
		return consistent(confExplicit, fmt.Sprintf("the new input mentions the same %s (%s) and denies nothing", f.slotName(), mentioned))
	}
	return consistent(confWeak, fmt.Sprintf("the new input touches the user's %s and denies nothing", f.slotName()))
}

// hobbyStops are verbs hobbies share, which say nothing about which hobby it is.
var hobbyStops = map[string]bool{"go": true, "do": true, "play": true, "take": true, "practise": true, "practice": true, "work": true, "train": true}

func (f *facts) overlap(n *text) string {
	ns := contentStems(n)
	var shared []string
	for s := range f.stems {
		if ns[s] && !hobbyStops[s] {
			shared = append(shared, s)
		}
	}
	slices.Sort(shared)
	return strings.Join(shared, " ")
}

func (f *facts) judgeScope(n *text) decision {
	shared := f.overlap(n)
	if shared == "" {
		return unrelated(confSilent, fmt.Sprintf("the new input is not about the same %s", f.slotName()))
	}
	chunks := n.chunksWhere(func(c string) bool {
		for _, w := range strings.Fields(shared) {
			if strings.Contains(c, w) {
				return true
			}
		}
		return false
	})
	if len(chunks) == 0 {
		chunks = n.chunks
	}
	if s := findScope(chunks); s != "" {
		return conflict(judge.TypeScopeMismatch, confScope, "", fmt.Sprintf("the new input narrows the %s (%q)", f.slotName(), s), s)
	}
	if f.kind == slotLike {
		if p := polarity(&text{low: strings.Join(chunks, ". ")}); p != 0 && f.polarity != 0 && p != f.polarity {
			return conflict(judge.TypeExplicitNegation, confCue, "", "the new input states the opposite preference")
		}
	}
	if f.kind == slotHobby {
		if q := findIn(chunks, cueQuitHob); q != "" {
			return conflict(judge.TypeExplicitNegation, confCue, "", fmt.Sprintf("the new input says the hobby stopped (%q)", q), q)
		}
	}
	return consistent(confScope, fmt.Sprintf("the new input is about the same %s (%s) and keeps its scope", f.slotName(), shared))
}

func (f *facts) judgeDiet(n *text) decision {
	mentionsDiet := detectDiet(n) != dietNone || n.has(dietItem)
	food := f.diet.breaks(n)
	// Any food or drink counts as the diet's topic, even one that fits it ("oat milk").
	foodTalk := n.has(cueEating) || n.has(meatWords) || n.has(alcoholWords) || n.has(animalWords)
	if !mentionsDiet && food == "" && !foodTalk {
		return unrelated(confSilent, "the new input says nothing about food or drink")
	}
	scope := ""
	if mentionsDiet {
		scope = findScope(n.chunks)
	}
	switch {
	case scope != "":
		return conflict(judge.TypeScopeMismatch, confNegated, "", fmt.Sprintf("the new input narrows the diet (%q)", scope), scope)
	case mentionsDiet && food == "" && !n.has(cueNotChanged) && n.has(dietEnds) && !n.has(dietKept):
		s := n.find(cueNegation)
		return conflict(judge.TypeExplicitNegation, confCue, "", fmt.Sprintf("the new input says the diet no longer holds (%q)", s), s)
	case food != "":
		return conflict(judge.TypeImplicitViolation, confCue, "", fmt.Sprintf("%q does not fit a %s diet", food, f.diet), food)
	}
	return consistent(confCue, fmt.Sprintf("nothing in the new input breaks a %s diet", f.diet))
}

func (f *facts) judgeNumber(n *text) decision {
	if f.qty == nil {
		return f.judgeGeneric(n)
	}
	var same []quantity
	for _, q := range quantities(n) {
		if q.kind == f.qty.kind {
			same = append(same, q)
		}
	}
	if len(same) == 0 {
		return unrelated(confSilent, fmt.Sprintf("the new input states no %s", f.qty.kind))
	}
	for _, q := range same {
		if math.Abs(q.value-f.qty.value) > 0.5 {
			return conflict(judge.TypeValueDiscrepancy, confStated, q.text, fmt.Sprintf("the new input states another %s (%s, not %s)", f.qty.kind, q.text, f.qty.text))
		}
	}
	return consistent(confStated, fmt.Sprintf("the new input states the same %s (%s)", f.qty.kind, same[0].text))
}

// judgeGeneric handles an old record whose slot the rules cannot tell: shared content words
// make the pair related, and negation in only one of the two makes it a conflict.
func (f *facts) judgeGeneric(n *text) decision {
	shared := f.overlap(n)
	if shared == "" {
		return unrelated(confOverlap, "the two texts share no content words")
	}
	oldNeg, newNeg := f.t.has(cueNegation), n.has(cueNegation)
	if oldNeg != newNeg {
		return conflict(judge.TypeExplicitNegation, confOverlap, "", fmt.Sprintf("they share %q but only one of them is negated", shared))
	}
	if s := findScope(n.chunks); s != "" && findScope(f.t.chunks) == "" {
		return conflict(judge.TypeScopeMismatch, confOverlap, "", fmt.Sprintf("they share %q and the new input narrows it (%q)", shared, s), s)
	}
	return consistent(confOverlap, fmt.Sprintf("they share %q and nothing contradicts", shared))
}

// changeIn returns the first match of re in a sentence that does not deny a change
// ("I'll never leave Lisbon"), so that a filler such as "Not that it matters." elsewhere
// does not hide a move.
func changeIn(n *text, re *regexp.Regexp) string {
	for _, c := range n.chunks {
		if cueNotChanged.MatchString(c) {
			continue
		}
		if m := re.FindString(c); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// findScope returns the first scope cue in the chunks, skipping "the only" ("the only
// person who loves it"), which stresses rather than narrows.
func findScope(chunks []string) string {
	for _, c := range chunks {
		for _, loc := range cueScope.FindAllStringIndex(c, -1) {
			if strings.HasSuffix(c[:loc[0]], "the ") {
				continue
			}
			return strings.TrimSpace(c[loc[0]:loc[1]])
		}
	}
	return ""
}

var (
	cueJobChange  = re(`\b(quit|resigned|new job|changed jobs|left my job|got hired|was hired|started a new|first (day|week) at)\b`)
	cueHomeChange = re(`\b(moved|relocat\w*|new (flat|city|place|home|apartment|house)|unpacking|signed the lease)\b`)
	dietItem      = re(`\b(meat|alcohol|animal products|dairy|booze)\b`)
	// dietEnds says a diet stopped, unless dietKept restates it ("no meat", "not a drop").
	dietEnds = re(`\b(not|no longer|anymore|gave up|stopped|quit)\b`)
	dietKept = re(`\b(no animal|no meat|not a drop)\b`)
)

// render turns the decision into think steps and a verdict.
func (d decision) render(f *facts, p judge.Pair) (judge.Steps, judge.Verdict) {
	slot := f.slotName()
	oldVal := f.value()
	v := judge.Verdict{Status: d.status, ConflictType: d.ctype, Links: []judge.Link{}, Confidence: d.conf}
	v.Action = judge.DefaultAction(d.ctype)
	if l, ok := judge.DefaultLink(v.Action); ok {
		v.Links = append(v.Links, l)
	}
	var s judge.Steps
	switch d.status {
	case judge.StatusUnrelated:
		s.Slot = fmt.Sprintf("The old record is about the user's %s (%s); the new input is about something else.", slot, oldVal)
		s.Comparison = "Nothing to compare: " + d.reason + "."
	default:
		s.Slot = fmt.Sprintf("Both texts are about the user's %s.", slot)
		newVal := d.newVal
		if newVal == "" && d.status == judge.StatusConsistent {
			newVal = "the same"
		}
		if newVal == "" {
			newVal = "not stated outright"
		}
		s.Comparison = fmt.Sprintf("Old value: %s. New value: %s. %s.", oldVal, newVal, capitalize(d.reason))
		if len(d.cues) > 0 {
			s.Comparison += fmt.Sprintf(" Cues: %s.", quoteAll(d.cues))
		}
	}
	switch d.ctype {
	case judge.TypeNone:
		s.ConflictType = fmt.Sprintf("none: the pair is %s.", d.status)
		s.Action = "keep: the memory stays as it is."
	case judge.TypeTemporalUpdate:
		s.ConflictType = "temporal_update: the value changed over time."
		s.Action = "transition: the old record becomes a past state and the new input is current."
	case judge.TypeExplicitNegation:
		s.ConflictType = "explicit_negation: the new input denies the old fact."
		s.Action = "supersede: the new input replaces the old record."
	case judge.TypeValueDiscrepancy:
		s.ConflictType = "value_discrepancy: the new input states another value."
		s.Action = "supersede: the new value replaces the old one."
	case judge.TypeScopeMismatch:
		s.ConflictType = "scope_mismatch: the new input narrows the old fact's scope."
		s.Action = "scoped_exception: the old record holds outside the scope the new input states."
	case judge.TypeImplicitViolation:
		s.ConflictType = "implicit_violation: the new input implies the old fact no longer holds without saying so."
		s.Action = "keep: the evidence is indirect, so the memory stays as it is until the user confirms."
		v.ClarificationNeeded = true
		v.ClarificationQuestion = fmt.Sprintf("Earlier you told me %s Is that still true?", judge.Quote(strings.TrimSpace(p.Old.Text)))
	}
	if d.status == judge.StatusConflict {
		nv := d.newVal
		if nv == "" {
			nv = "changed"
		}
		v.TransitionSummary = fmt.Sprintf("%s: %s -> %s", slot, oldVal, nv)
	}
	return s, v
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = []rune(strings.ToUpper(string(r[0])))[0]
	return string(r)
}

func quoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
