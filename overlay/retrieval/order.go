package retrieval

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/atma-dev/atma/internal/words"
	"github.com/atma-dev/atma/overlay/store/fts"
)

// Order within a slot: which of a slot's states a historical query asks for. A query
// that names a later state ("before I switched to cortado") asks for the state just
// before it, one that asks for the first state ("my first job") for the oldest; the
// host ranks every version of the slot alike, so the pool places the wanted one first
// (BuildPool). The words are read by ProfileQuery; the slot's states are the records
// linked to a seed by supersession.

// anchorSkip are the words of a "before …" clause that name no state, beside the
// function words: the verbs of change (they say that the state began, not which it is),
// and the pronouns and adverbs functionWords lacks.
var anchorSkip = set("became", "become", "moved", "move", "switched", "switch", "changed", "change", "started", "start", "went", "got", "get", "made", "took", "turned", "did", "had", "we", "you", "our", "me", "us", "your", "her", "his", "their", "right", "just", "first", "finally", "actually")

// anchorEnds end the "before …" clause inside a clause: "before and where do I live now".
var anchorEnds = set("and", "or", "then", "what", "where", "who", "which", "when", "how", "why")

// anchorWords returns the content words of clause c after offset (the end of "before")
// up to the end of the "before …" clause, at most six; nil when there are none.
func anchorWords(c clause, offset int) []string {
	var out []string
	for _, wd := range words.Split(c.text[offset:]) {
		if anchorEnds[wd] {
			break
		}
		if len(wd) < 2 || functionWords[wd] || anchorSkip[wd] {
			continue
		}
		if out = append(out, wd); len(out) == 6 {
			break
		}
	}
	return out
}

var (
	earliestPhrase = regexp.MustCompile(`\b(?:originally|initially|at first|to begin with|in the beginning|at the (?:start|beginning))\b` +
		// "which team did I start on?", "what level did she start the course at?": the value at the start
		`|^(?:which|what|who|whose|where)\b.*\bdid \S+ (?:start|begin)(?: \S+){0,3} (?:on|at|in|with|off|out)\b`)
	firstWord     = regexp.MustCompile(`\b(?:first|original)\b`)
	determiners   = set("my", "our", "the", "his", "her", "their", "your", "a", "an", "very")
	subordinators = set("when", "after", "before", "while", "once", "since", "until", "till")
	notOrder      = set("name", "names", "aid", "floor", "class", "of")
)

// earliestCue returns the words by which clause c asks for the first state, or "".
func earliestCue(c clause) string {
	if m := earliestPhrase.FindString(c.text); m != "" {
		return m
	}
	sub := len(c.text) // where the first subordinate clause starts
	for i, wd := range c.words {
		if subordinators[wd.text] && (i > 0 || !c.question) {
			sub = wd.start
			break
		}
	}
	for _, loc := range firstWord.FindAllStringIndex(c.text, -1) {
		if notOrder[first(nextWords(c, loc[1], 1))] {
			continue
		}
		pv := first(prevWords(c, loc[0], 1))
		adjective := determiners[pv] || strings.HasSuffix(pv, "'s")
		if text := c.text[loc[0]:loc[1]]; !adjective && text == "first" || adjective && loc[0] < sub {
			return text
		}
	}
	return ""
}

// maxSlotStates bounds the states of one slot read for an order.
const maxSlotStates = 32

// slotStates returns the states of seed's slot that supersession links reach from it
// (the seed included; transition records and records of another slot left out), oldest
// first by event time, then by link order.
func (b *poolBuilder) slotStates(seed Candidate) ([]Candidate, error) {
	type state struct {
		c     Candidate
		depth int // links from the seed: negative towards older states
	}
	out := []state{{seed, 0}}
	seen := map[string]bool{seed.ID: true}
	for k := 0; k < len(out) && len(out) < maxSlotStates; k++ {
		for _, l := range sortedLinks(out[k].c.Links, LinkSupersedes, LinkSupersededBy) {
			if seen[l.To] {
				continue
			}
			seen[l.To] = true
			r, ok, err := b.get(l.To)
			if err != nil {
				return nil, err
			}
			if !ok || r.Status == StatusTransition || r.Slot != seed.Slot {
				continue
			}
			d := out[k].depth + 1
			if l.Type == LinkSupersedes {
				d = out[k].depth - 1
			}
			out = append(out, state{r, d})
		}
	}
	slices.SortStableFunc(out, func(a, b state) int {
		return cmp.Or(a.c.EventTime.Compare(b.c.EventTime), cmp.Compare(a.depth, b.depth))
	})
	cs := make([]Candidate, len(out))
	for i, s := range out {
		cs[i] = s.c
	}
	return cs, nil
}

// wanted returns the state of a slot (oldest first) that p asks for: when p names a
// period, the last state begun before it ended (periodEnd, the year read from the
// newest state); else the one just before the state that holds most of the anchor's
// words (the oldest on a tie), or the first when p asks for the earliest; false when p
// names no order, no state begun before the period ended, or the anchor is in no state
// or in the first.
func wanted(states []Candidate, p Profile) (Candidate, bool) {
	if len(states) > 0 {
		if end, ok := periodEnd(p.Period, states[len(states)-1].EventTime); ok {
			// "what was I playing in april?": the last state begun before the period ended.
			if at := lastBefore(states, end, func(c Candidate) time.Time { return c.EventTime }); at >= 0 {
				return states[at], true
			}
		}
	}
	if len(p.Anchor) > 0 {
		at := mostAnchorWords(states, p.Anchor, func(c Candidate) string { return c.Content })
		if at > 0 {
			return states[at-1], true
		}
		if at == 0 || !p.Earliest {
			return Candidate{}, false
		}
	}
	if p.Earliest && len(states) > 1 {
		return states[0], true
	}
	return Candidate{}, false
}

// lastBefore returns the index of the last of xs (oldest first) dated before end, or -1;
// an unknown time (zero) is before nothing.
func lastBefore[T any](xs []T, end time.Time, at func(T) time.Time) int {
	last := -1
	for i, x := range xs {
		if t := at(x); !t.IsZero() && t.Before(end) {
			last = i
		}
	}
	return last
}

// mostAnchorWords returns the index of the first of xs whose text holds the most of the
// anchor's words, or -1 when none holds one.
func mostAnchorWords[T any](xs []T, anchor []string, text func(T) string) int {
	best, at := 0, -1
	for i, x := range xs {
		if n := countWords(text(x), anchor); n > best {
			best, at = n, i
		}
	}
	return at
}

func countWords(text string, ws []string) int {
	have := set(words.Split(text)...)
	n := 0
	for _, w := range ws {
		if have[w] {
			n++
		}
	}
	return n
}

// pastOrder orders the rows of a packet for a past state that knows no state
// (Packet.NoState) by time: the bank recorded no change of what they hold, and the
// host ranks the state that holds now first as often as an earlier one, so the dates
// are the evidence left. When the query names a period ("in april") and rows are dated
// before it ended, those rows latest first, then the later ones; else oldest first, or,
// when the query's anchor names a later state ("before the rando took it") and a dated
// row holds most of its words, the rows before that one nearest first, then that row
// and the later ones oldest first. Rows of unknown time come last, in their order.
func pastOrder(rows []Row, p Profile) {
	slices.SortStableFunc(rows, func(a, b Row) int { return byTime(a.Time, b.Time) })
	var ref time.Time // the newest row's time
	for _, r := range rows {
		if !r.Time.IsZero() {
			ref = r.Time
		}
	}
	if end, ok := periodEnd(p.Period, ref); ok {
		// "what was I playing in april?": the rows up to the period's end, the latest
		// first, then the later ones.
		if n := lastBefore(rows, end, func(r Row) time.Time { return r.Time }) + 1; n > 0 {
			slices.Reverse(rows[:n])
			return
		}
	}
	at := mostAnchorWords(rows, p.Anchor, func(r Row) string {
		if r.Time.IsZero() {
			return "" // an undated row is no anchor: there is no "before" it
		}
		return r.Content
	})
	if at > 0 {
		slices.Reverse(rows[:at])
	}
}

// presentOrder orders the rows of a packet for the present: a current row moves
// directly above the first older current row it shares a content word with — two
// current records of the same thing with no change recorded between them disagree when
// the bank missed the change, and then the later one holds (as the answer's guide
// says). Nothing else moves: no row is re-sorted by its state, so the host's ranking of
// unrelated records stands. A row of unknown time stays where it is.
func presentOrder(rows []Row) {
	type row struct {
		Row
		terms map[string]bool
	}
	out := make([]row, 0, len(rows))
	for _, r := range rows {
		c := row{Row: r}
		at := len(out)
		if r.Label == LabelCurrent {
			c.terms = contentTerms(r.Content)
			for i, o := range out {
				if o.Label == LabelCurrent && !o.Time.IsZero() && c.Time.After(o.Time) && sharesKey(c.terms, o.terms) {
					at = i
					break
				}
			}
		}
		out = slices.Insert(out, at, c)
	}
	for i, r := range out {
		rows[i] = r.Row
	}
}

// contentTerms are the search terms of text (fts.Terms) of three letters or more that
// name a thing: not the words that say when a state holds (frameWords: "now", "still")
// or that it is "new".
func contentTerms(text string) map[string]bool {
	return set(slices.DeleteFunc(fts.Terms(frameWords.ReplaceAllString(text, " "), 0), func(t string) bool { return len(t) < 3 || t == "new" })...)
}

// sharesKey reports whether a and b have a key in common.
func sharesKey(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// byTime compares two times, the zero time after every other.
func byTime(a, b time.Time) int {
	if a.IsZero() || b.IsZero() {
		return cmp.Compare(zeroLast(a), zeroLast(b))
	}
	return a.Compare(b)
}

func zeroLast(t time.Time) int {
	if t.IsZero() {
		return 1
	}
	return 0
}

// periodRe finds a month or a season the query places a state in: "in april", "back in
// june", "over the summer", "last winter", "during the spring".
var periodRe = regexp.MustCompile(`\b(?:in|during|over|through|throughout|back in|around|early|mid|late|last|this)\s+(?:the\s+)?(?:early\s+|mid-?\s*|late\s+)?` +
	`(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|apr|jun|jul|aug|sept?|oct|nov|dec|spring|summer|autumn|fall|winter)\b`)

// periodIn returns the month or season query places its state in, its full name
// ("sept" → september, "fall" → autumn), or "". "May" counts only after a word that
// places it ("in may", "back in may", "last may"), not in "this may sound odd". A year
// after it is not read: the period is placed by the records' own dates (periodEnd).
func periodIn(query string) string {
	for _, m := range periodRe.FindAllStringSubmatch(strings.ToLower(query), -1) {
		if m[1] == "may" && (strings.HasPrefix(m[0], "this") || strings.HasPrefix(m[0], "around")) {
			continue
		}
		return periods[m[1]].name
	}
	return ""
}

// period is a month or a season: its full name, its first month and how many months it
// spans.
type period struct {
	name   string
	first  time.Month
	months int
}

// periods are the months by their names and short forms, and the seasons (the northern
// hemisphere's), by the words periodRe finds.
var periods = func() map[string]period {
	m := map[string]period{
		"spring": {"spring", time.March, 3}, "summer": {"summer", time.June, 3},
		"autumn": {"autumn", time.September, 3}, "fall": {"autumn", time.September, 3}, "winter": {"winter", time.December, 3},
	}
	for mo := time.January; mo <= time.December; mo++ {
		name := strings.ToLower(mo.String())
		m[name], m[name[:3]] = period{name, mo, 1}, period{name, mo, 1}
	}
	m["sept"] = m["september"]
	return m
}()

// periodEnd returns the end of the latest span of period (a month's or a season's
// name, as periodIn gives) that starts before ref, the time of the newest record
// read: "april" read in September 2025 is April 2025, in February 2026 still April
// 2025. False when period is empty or unknown, or ref is zero.
func periodEnd(period string, ref time.Time) (time.Time, bool) {
	pr, ok := periods[period]
	if !ok || ref.IsZero() {
		return time.Time{}, false
	}
	start := time.Date(ref.Year(), pr.first, 1, 0, 0, 0, 0, time.UTC)
	if start.After(ref) {
		start = start.AddDate(-1, 0, 0)
	}
	return start.AddDate(0, pr.months, 0), true
}
