package grpo

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atma-dev/atma/judge"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// answer is what one pass over a completion finds. Its strings are substrings of the
// completion. The rules for the think block and for the verdict object are
// judge.ParseStrict's, re-implemented without encoding/json's reflection so that the
// reward stays far above 100,000 completions a second; FuzzAnswerMatchesParseStrict
// holds the two to the same answers.
type answer struct {
	// opens and closes count <think> and </think> anywhere in the text.
	opens, closes int
	// tagged: after white space the text starts with <think>, and </think> follows.
	tagged bool
	// open and close are the byte offsets of the leading <think> and of the first
	// </think> after it; -1 when not tagged.
	open, close int
	// stepsOK: the think block holds the four steps as judge.ParseStrict wants them.
	stepsOK bool
	steps   judge.Steps
	// body is the think block's text without the tags ("" when not tagged).
	body string
	// region is where the verdict is looked for: after </think> when tagged, else the
	// whole text.
	region int
	// obj and objEnd delimit the verdict object, when the region (after white space)
	// starts with one that decodes; -1 otherwise.
	obj, objEnd int
	// verdictOK: the object is a verdict judge.ParseStrict accepts, with nothing after it.
	verdictOK bool
	verdict   judge.Verdict
}

// parseAnswer scans a completion.
func parseAnswer(text string) answer {
	a := answer{open: -1, close: -1, obj: -1, objEnd: -1}
	a.opens = strings.Count(text, thinkOpen)
	a.closes = strings.Count(text, thinkClose)

	t := strings.TrimRightFunc(text, unicode.IsSpace)
	lead := len(t) - len(strings.TrimLeftFunc(t, unicode.IsSpace))
	if strings.HasPrefix(t[lead:], thinkOpen) {
		bodyStart := lead + len(thinkOpen)
		if end := strings.Index(t[bodyStart:], thinkClose); end >= 0 {
			end += bodyStart
			a.tagged = true
			a.open, a.close = lead, end
			a.body = t[bodyStart:end]
			a.steps, a.stepsOK = strictSteps(a.body)
			a.region = end + len(thinkClose)
		}
	}

	from := a.region
	for from < len(t) {
		r, size := utf8.DecodeRuneInString(t[from:])
		if !unicode.IsSpace(r) {
			break
		}
		from += size
	}
	if from < len(t) && t[from] == '{' {
		d := jscan{s: t, i: from}
		v, ok := d.verdict()
		if ok {
			a.obj, a.objEnd = from, d.i
			a.verdictOK = d.i == len(t) && v.Validate() == nil
			if a.verdictOK {
				a.verdict = v
			}
		}
	}
	return a
}

// strictSteps applies judge.ParseStrict's rules to a think block's body: each of the four
// labels starts a line (after spaces and tabs) exactly once, in order, with text, and
// nothing but white space precedes the first.
func strictSteps(body string) (judge.Steps, bool) {
	labels := [4]string{judge.LabelSlot, judge.LabelComparison, judge.LabelConflictType, judge.LabelAction}
	var start, content [4]int
	next := 0
	for off := 0; off <= len(body); {
		nl := strings.IndexByte(body[off:], '\n')
		line := body[off:]
		if nl >= 0 {
			line = body[off : off+nl]
		}
		trimmed := strings.TrimLeft(line, " \t")
		for k, l := range labels {
			if strings.HasPrefix(trimmed, l) {
				// The labels must come once each and in order: any label but the next
				// expected one is a repeat, a reordering or a skip.
				if k != next {
					return judge.Steps{}, false
				}
				s := off + len(line) - len(trimmed)
				start[k], content[k] = s, s+len(l)
				next++
				break
			}
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if next != len(labels) || strings.TrimSpace(body[:start[0]]) != "" {
		return judge.Steps{}, false
	}
	var txt [4]string
	for i := range labels {
		stop := len(body)
		if i+1 < len(labels) {
			stop = start[i+1]
		}
		txt[i] = strings.TrimSpace(body[content[i]:stop])
		if txt[i] == "" {
			return judge.Steps{}, false
		}
	}
	return judge.Steps{Slot: txt[0], Comparison: txt[1], ConflictType: txt[2], Action: txt[3]}, true
}

// jscan decodes the verdict object strictly: the JSON grammar, the eight verdict fields
// each once and of its type, no other field. It stops at the first problem; the reward
// needs to know only whether the verdict is valid.
type jscan struct {
	s string
	i int
}

const (
	fStatus = 1 << iota
	fType
	fAction
	fClarNeeded
	fClarQuestion
	fLinks
	fSummary
	fConfidence
	fAll = 1<<iota - 1
)

func (d *jscan) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jscan) byte(c byte) bool {
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// verdict decodes the object that starts at d.i.
func (d *jscan) verdict() (judge.Verdict, bool) {
	var v judge.Verdict
	if !d.byte('{') {
		return v, false
	}
	seen := 0
	d.ws()
	if d.byte('}') {
		return v, false // no fields at all
	}
	for {
		d.ws()
		key, ok := d.str()
		if !ok {
			return v, false
		}
		d.ws()
		if !d.byte(':') {
			return v, false
		}
		d.ws()
		var bit int
		switch key {
		case "status":
			bit = fStatus
			s, ok := d.str()
			if !ok {
				return v, false
			}
			v.Status = judge.Status(s)
		case "conflict_type":
			bit = fType
			s, ok := d.str()
			if !ok {
				return v, false
			}
			v.ConflictType = judge.ConflictType(s)
		case "action":
			bit = fAction
			s, ok := d.str()
			if !ok {
				return v, false
			}
			v.Action = judge.Action(s)
		case "clarification_needed":
			bit = fClarNeeded
			switch {
			case strings.HasPrefix(d.s[d.i:], "true"):
				v.ClarificationNeeded = true
				d.i += 4
			case strings.HasPrefix(d.s[d.i:], "false"):
				d.i += 5
			default:
				return v, false
			}
		case "clarification_question":
			bit = fClarQuestion
			s, ok := d.str()
			if !ok {
				return v, false
			}
			v.ClarificationQuestion = s
		case "transition_summary":
			bit = fSummary
			s, ok := d.str()
			if !ok {
				return v, false
			}
			v.TransitionSummary = s
		case "confidence":
			bit = fConfidence
			x, ok := d.number()
			if !ok {
				return v, false
			}
			v.Confidence = x
		case "links":
			bit = fLinks
			links, ok := d.links()
			if !ok {
				return v, false
			}
			v.Links = links
		default:
			return v, false
		}
		if seen&bit != 0 {
			return v, false
		}
		seen |= bit
		d.ws()
		if d.byte(',') {
			continue
		}
		if d.byte('}') {
			return v, seen == fAll
		}
		return v, false
	}
}

// links decodes an array of link objects, each with exactly type, from and to.
func (d *jscan) links() ([]judge.Link, bool) {
	if !d.byte('[') {
		return nil, false
	}
	links := []judge.Link{}
	d.ws()
	if d.byte(']') {
		return links, true
	}
	for {
		d.ws()
		l, ok := d.link()
		if !ok {
			return nil, false
		}
		links = append(links, l)
		d.ws()
		if d.byte(',') {
			continue
		}
		return links, d.byte(']')
	}
}

func (d *jscan) link() (judge.Link, bool) {
	var l judge.Link
	if !d.byte('{') {
		return l, false
	}
	seen := 0
	d.ws()
	if d.byte('}') {
		return l, false
	}
	for {
		d.ws()
		key, ok := d.str()
		if !ok {
			return l, false
		}
		d.ws()
		if !d.byte(':') {
			return l, false
		}
		d.ws()
		val, ok := d.str()
		if !ok {
			return l, false
		}
		var bit int
		switch key {
		case "type":
			bit, l.Type = 1, judge.LinkType(val)
		case "from":
			bit, l.From = 2, judge.Ref(val)
		case "to":
			bit, l.To = 4, judge.Ref(val)
		default:
			return l, false
		}
		if seen&bit != 0 {
			return l, false
		}
		seen |= bit
		d.ws()
		if d.byte(',') {
			continue
		}
		return l, d.byte('}') && seen == 7
	}
}

// str decodes a JSON string. Plain strings (no escapes, valid UTF-8) are substrings of the
// input; others go through encoding/json, which also replaces invalid UTF-8 with U+FFFD as
// judge.ParseStrict's decoder does.
func (d *jscan) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	plain := true
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			if plain {
				return d.s[start : d.i-1], true
			}
			var out string
			if err := json.Unmarshal([]byte(d.s[start-1:d.i]), &out); err != nil {
				return "", false
			}
			return out, true
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
			}
			d.i += size
		}
	}
	return "", false
}

// number decodes a JSON number (the grammar exactly: no leading zeros, no '+', digits
// after '.' and after the exponent) and refuses values strconv reads as out of range.
func (d *jscan) number() (float64, bool) {
	start := d.i
	d.byte('-')
	digits := func() int {
		n := 0
		for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	switch {
	case d.byte('0'):
	case digits() == 0:
		return 0, false
	}
	if d.byte('.') && digits() == 0 {
		return 0, false
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if !d.byte('+') {
			d.byte('-')
		}
		if digits() == 0 {
			return 0, false
		}
	}
	x, err := strconv.ParseFloat(d.s[start:d.i], 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}
