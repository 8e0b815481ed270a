package retrieval

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atma-dev/atma/internal/words"
)

// Mode is the state a query asks about.
type Mode string

// Modes.
const (
	// ModeCurrent: the query asks how things are now ("where do I live now?").
	ModeCurrent Mode = "current"
	// ModeHistorical: it asks how things were ("where did I live before?").
	ModeHistorical Mode = "historical"
	// ModeTransition: it asks about a change ("when did I move to Lisbon?", "how has my
	// diet changed?"), or about both the old and the current state.
	ModeTransition Mode = "transition"
	// ModeNeutral: it names no time ("tell me about my hobbies").
	ModeNeutral Mode = "neutral"
)

// Modes lists every mode.
var Modes = []Mode{ModeCurrent, ModeHistorical, ModeTransition, ModeNeutral}

// Valid reports whether m is one of the four modes.
func (m Mode) Valid() bool {
	switch m {
	case ModeCurrent, ModeHistorical, ModeTransition, ModeNeutral:
		return true
	}
	return false
}

// Counts are the numbers of distinct cues of each kind the profiler counted.
type Counts struct {
	Historical int `json:"historical"`
	Current    int `json:"current"`
	Change     int `json:"change"`
}

// Profile is what the profiler makes of a query. It is plain data, for the trace.
type Profile struct {
	Mode   Mode   `json:"mode"`
	Counts Counts `json:"counts"`
	// Hints are the cues, in the order found, each "kind:text". The kinds historical,
	// current and change are the counted cues (Counts has one per hint); scope marks a
	// scope qualifier ("scope:on weekends"), which counts for no mode; guard notes a cue
	// a guard set aside ("guard:negated before", "guard:person former colleague",
	// "guard:context used to" for a cue in a clause that only sets the context of the
	// question); anchor, earliest and period, last, record the order readings below.
	Hints []string `json:"hints"`
	// Confident: the mode rests on explicit wording (see ProfileQuery).
	Confident bool `json:"confident"`
	// Anchor holds the content words of a "before …" clause that names a later state
	// ("what did I drink before I switched to cortado?" → [cortado]): the query asks for
	// the state just before the one they name (see ProfileQuery).
	Anchor []string `json:"anchor,omitempty"`
	// Earliest: the query asks for the first state ("my first job", "originally",
	// "when I first moved in").
	Earliest bool `json:"earliest,omitempty"`
	// Period is a month or season the query places the state in ("what was I playing in
	// april?" → april, "over the summer" → summer); see periodIn.
	Period string `json:"period,omitempty"`
}

// Unsure reports whether retrieval should carry both the current and the historical
// state instead of trusting the mode: the profile is neutral or not confident.
func (p Profile) Unsure() bool { return p.Mode == ModeNeutral || !p.Confident }

// ProfileQuery profiles a query by rules, without a model. It is deterministic and safe
// for concurrent use.
//
// The query is lower-cased and split into clauses at sentence punctuation, commas,
// dashes, colons, semicolons and the word "but". When some clause is a question (it
// ends with "?" or starts with a question word, an auxiliary verb or a request such as
// "tell me"), only the questions count, with the short clauses (three words or fewer:
// "now,", "back then,") and those that open with a time word ("before I moved, …");
// the other clauses only set the context ("my former colleague still lives in Paris —
// where do I live?" counts "where do I live"). Without a question every clause counts;
// when the counted clauses have no cue, the context clauses count instead, but their
// cues are never strong ("I moved from Berlin to Lisbon — when was that?").
//
// Each clause is matched against a lexicon of cues of three kinds: historical ("used
// to", "before", "previous", "my old …", "last year", "in 2019", "when I was", weakly
// "did I live", "was my", "who was the", "which … did I <verb>" but for how it ended
// up or what was said), current ("now", "currently", "still", "these days",
// "anymore", "no longer", weakly "do I", "what's my") and change ("changed", "what
// changed", "how has … evolved", "since when", "moved from … to", "switched", "when did
// I start", weakly "since", "from … to"). A span of text counts once per kind, for the
// first cue in lexicon order that covers it; each distinct hint counts once. Guards set
// cues aside or turn them:
//   - negation: "not before" is no history, "not my old job" none either; "anymore",
//     "no longer" and "no more" describe the present state ("I don't live in Berlin
//     anymore" is a current statement); "not the current one" is historical;
//   - time and frequency: "before noon", "before 9", "from 9 to 5", "once a week",
//     "from now on" and a year in a clause about the future are no history or change;
//   - people: "former colleague", "old friend", "previous manager" describe a person,
//     not the user's past state;
//   - scope: "only on weekends", "at work", "except …", "when travelling", "every
//     day" are noted as scope hints, and cues inside them do not count;
//   - nouns: "climate change", "night shift", "my switch" are no change;
//   - anchors: a change cue after "before" names the later state the question is
//     measured from ("what did I drink before I switched to cortado?" asks for the
//     past), so it counts for no mode ("guard:anchor switched"); so does one in a
//     subordinate "when …" clause, which dates the state asked about ("who was my boss
//     when I started?"; not "when did I start?").
//
// Two readings order the states of one slot (BuildPool uses them for a historical
// query). Anchor is the content words after an unguarded "before" in a counted clause
// (function words and the verbs of change left out; "anchor:cortado" in Hints).
// Earliest is set by "originally", "initially", "at first", "to begin with", "in the
// beginning", "at the start", by an adverbial "first" ("which hotel did I book first",
// "when I first moved in"), and by "my/the … first" or "original" outside a subordinate
// clause ("my first job"; not "when the first place sold out"); "first name", "first
// aid", "first floor", "first class", "the first of" are no order ("earliest:first" in
// Hints).
//
// With H, C and X the historical, current and change counts: the mode is transition
// when X > 0 and X ≥ H and X ≥ C (change wording dominates), or when H > 0 and C > 0
// (both the old and the current state are asked about); otherwise historical when
// H > 0, current when C > 0, historical (not confident) when only Earliest was read,
// and neutral when nothing counted. Confident means: for
// current and historical, at least one strong cue of that kind; for transition, a
// strong change cue or strong cues of both the historical and the current kind; never
// for neutral. Weak cues are those tense alone suggests.
func ProfileQuery(query string) Profile {
	p := Profile{Mode: ModeNeutral, Hints: []string{}}
	var strong [numKinds]bool
	var counts [numKinds]int
	seen := make(map[string]bool)
	add := func(h string) bool {
		if seen[h] {
			return false
		}
		seen[h] = true
		p.Hints = append(p.Hints, h)
		return true
	}

	clauses := splitClauses(normalize(query))
	anyQuestion := false
	for _, c := range clauses {
		anyQuestion = anyQuestion || c.question
	}
	matches := make([][]match, len(clauses))
	counted := make([]bool, len(clauses))
	questionCues := false
	for i, c := range clauses {
		matches[i] = matchClause(c)
		counted[i] = !anyQuestion || c.question || len(c.words) <= 3 || timeOpeners[c.words[0].text]
		if counted[i] {
			questionCues = questionCues || slices.ContainsFunc(matches[i], func(m match) bool { return m.kind < numKinds })
		}
	}
	// A question without cues of its own ("I moved to Lisbon — when was that?") leans
	// on its context, without confidence.
	fromContext := !questionCues
	anchorAt := make([]int, len(clauses))
	var orderHints []string
	for i, c := range clauses {
		anchorAt[i] = -1
		if !counted[i] && !fromContext {
			continue
		}
		if j := slices.IndexFunc(matches[i], func(m match) bool { return m.kind == kindHistorical && m.text == "before" }); j >= 0 {
			if ws := anchorWords(c, matches[i][j].end); len(ws) > 0 {
				anchorAt[i] = matches[i][j].end
				if p.Anchor == nil {
					p.Anchor = ws
				}
			}
		}
		if anchorAt[i] < 0 {
			anchorAt[i] = whenClauseAt(c)
		}
		if cue := earliestCue(c); cue != "" && !p.Earliest {
			p.Earliest = true
			orderHints = append(orderHints, "earliest:"+cue)
		}
	}
	if p.Anchor != nil {
		orderHints = append(orderHints, "anchor:"+strings.Join(p.Anchor, " "))
	}
	if p.Period = periodIn(query); p.Period != "" {
		orderHints = append(orderHints, "period:"+p.Period)
	}
	for i := range clauses {
		for _, m := range matches[i] {
			switch {
			case m.kind == kindChange && anchorAt[i] >= 0 && m.start >= anchorAt[i]:
				add("guard:anchor " + m.text)
			case m.kind == kindScope:
				add("scope:" + m.text)
			case m.kind == kindGuard:
				add("guard:" + m.text)
			case !counted[i] && !fromContext:
				add("guard:context " + m.text)
			default:
				if add(kindNames[m.kind] + ":" + m.text) {
					counts[m.kind]++
				}
				strong[m.kind] = strong[m.kind] || (m.strong && counted[i])
			}
		}
	}

	for _, h := range orderHints {
		add(h)
	}
	h, cur, x := counts[kindHistorical], counts[kindCurrent], counts[kindChange]
	p.Counts = Counts{Historical: h, Current: cur, Change: x}
	switch {
	case x > 0 && x >= h && x >= cur:
		p.Mode = ModeTransition
		p.Confident = strong[kindChange] || (strong[kindHistorical] && strong[kindCurrent])
	case h > 0 && cur > 0:
		p.Mode = ModeTransition
		p.Confident = strong[kindChange] || (strong[kindHistorical] && strong[kindCurrent])
	case h > 0:
		p.Mode = ModeHistorical
		p.Confident = strong[kindHistorical]
	case cur > 0:
		p.Mode = ModeCurrent
		p.Confident = strong[kindCurrent]
	case p.Earliest:
		// "which hotel did I book first?": the first of several states is a past one.
		p.Mode = ModeHistorical
	}
	return p
}

// maxQueryBytes bounds the text profiled; queries are short, and the bound keeps a
// pasted document from costing more than a glance.
const maxQueryBytes = 4096

// normalize lower-cases the query, makes it valid UTF-8 and folds typographic quotes.
func normalize(s string) string {
	if len(s) > maxQueryBytes {
		s = s[:maxQueryBytes] // a rune cut in two becomes a space below
	}
	s = strings.ToValidUTF8(s, " ")
	s = quoteFolder.Replace(s)
	return strings.ToLower(s)
}

var quoteFolder = strings.NewReplacer("’", "'", "‘", "'", "`", "'", "´", "'", "“", `"`, "”", `"`)

type word struct {
	text       string
	start, end int // byte offsets in the clause text
}

type clause struct {
	text     string // words joined by single spaces
	words    []word
	question bool
	future   bool // the clause speaks of the future ("will", "next year")
	routeAt  int  // offset of the first route word ("get", "drive"); -1 when none
}

// splitClauses cuts normalized text into clauses; see ProfileQuery.
func splitClauses(s string) []clause {
	var out []clause
	emit := func(part string, question bool) {
		for _, sub := range butSplit.Split(part, -1) {
			c := newClause(sub)
			if len(c.words) == 0 {
				continue
			}
			c.question = question || startsQuestion(c.words)
			out = append(out, c)
		}
	}
	start := 0
	for i, r := range s {
		cut := false
		switch r {
		case '?', '!', ';', ':', '\n', '—', '–', '(', ')':
			cut = true
		case '.', ',':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			cut = i+1 >= len(s) || !(unicode.IsLetter(next) || unicode.IsDigit(next))
		case '-':
			cut = i > 0 && s[i-1] == ' ' && i+1 < len(s) && s[i+1] == ' '
		}
		if cut {
			emit(s[start:i], r == '?')
			start = i + utf8.RuneLen(r)
		}
	}
	emit(s[start:], false)
	return out
}

var butSplit = regexp.MustCompile(`\s+but\s+`)

func newClause(s string) clause {
	var b strings.Builder
	var words []word
	for f := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		off := b.Len()
		b.WriteString(f)
		// Words are runs of letters, digits, apostrophes and inner hyphens.
		ws := -1
		for i, r := range f + " " {
			in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || (r == '-' && ws >= 0)
			switch {
			case in && ws < 0:
				ws = i
			case !in && ws >= 0:
				t := strings.Trim(f[ws:i], "'-")
				if t != "" {
					lead := strings.Index(f[ws:i], t)
					words = append(words, word{text: t, start: off + ws + lead, end: off + ws + lead + len(t)})
				}
				ws = -1
			}
		}
	}
	c := clause{text: b.String(), words: words, routeAt: -1}
	c.future = future.MatchString(c.text)
	if loc := route.FindStringIndex(c.text); loc != nil {
		c.routeAt = loc[0]
	}
	return c
}

var (
	questionWords = set("what", "what's", "whats", "where", "where's", "when", "when's", "who", "who's", "whom", "whose", "which", "why", "how", "how's",
		"do", "does", "did", "is", "are", "was", "were", "am", "have", "has", "had", "can", "could", "will", "would", "should", "may", "might",
		"don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't",
		"tell", "remind", "list", "show", "give", "describe", "summarize", "summarise", "recall", "name", "explain", "find")
	fillers     = set("and", "so", "then", "also", "ok", "okay", "hey", "please", "now", "well", "oh", "hi", "hello", "quick", "question", "just")
	timeOpeners = set("before", "after", "when", "while", "since", "until", "till", "back", "during", "in", "at", "as", "by", "prior", "once", "now", "nowadays", "currently", "previously", "originally", "these", "those", "today", "yesterday", "last", "earlier", "formerly", "initially")
)

// whenClauseAt returns where a subordinate "when …" clause starts in c ("who was my boss
// when I started?", "what was the rent when I first moved in?"), or -1: the clause
// dates the state asked about, so a change word in it asks for no change. "When" that
// opens a question ("when did I start?") is followed by an auxiliary and is none.
func whenClauseAt(c clause) int {
	for k, w := range c.words {
		if w.text == "when" && k+1 < len(c.words) && !questionWords[c.words[k+1].text] {
			return w.end
		}
	}
	return -1
}

func startsQuestion(ws []word) bool {
	for _, w := range ws {
		if fillers[w.text] {
			continue
		}
		return questionWords[w.text]
	}
	return false
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// frameWords say when a query's state holds, not what it is about: "where do I live
// now?" asks the host about living, and "now" picks the state among its hits. As a
// search term, "now" or "still" matches every memory that says it about anything.
var frameWords = regexp.MustCompile(`(?i)\b(?:right now|now|currently|nowadays|these days|at the moment|at present|presently|any ?more|still|lately|previously|formerly|used to)\b`)

var spaceBeforePunct = regexp.MustCompile(`\s+([?!.,;:])`)

// HostQuery is the text of the host's lexical search for a query's seeds: the query
// without its frame words (frameWords), or the query itself when fewer than two words
// would be left.
func HostQuery(query string) string {
	q := spaceBeforePunct.ReplaceAllString(strings.Join(strings.Fields(frameWords.ReplaceAllString(query, " ")), " "), "$1")
	if !strings.ContainsFunc(strings.Trim(q, "?!. "), unicode.IsLetter) || len(words.Split(q)) < 2 {
		return query
	}
	return q
}
