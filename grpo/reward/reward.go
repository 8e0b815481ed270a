package reward

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/llm"
)

// Components are the reward's terms, each before its weight. Every report (step lines,
// rollouts, the reward server's extra logs) carries them one by one next to the total.
type Components struct {
	// Format: FormatValues.Full for a valid <think> block with the four step labels,
	// TagsOnly for valid tags without them, None otherwise.
	Format float64 `json:"format"`
	// Verdict: the correctness of the verdict against the gold label (status, conflict
	// type, action), VerdictValues.None without a verdict.
	Verdict float64 `json:"verdict"`
	// Implicit: for implicit items, ImplicitValues.Success or Miss; 0 for others.
	Implicit float64 `json:"implicit"`
	// Length: 1 inside the word band, less outside (LengthValues).
	Length float64 `json:"length"`
	// Cohesion: tag cohesion, 1 − penalty × issues (one think block, opened first, closed
	// once, the verdict right after it, nothing after the verdict, no other tags).
	Cohesion float64 `json:"cohesion"`
	// Conciseness: of the conclusion, the text after </think> (ConcisenessValues).
	Conciseness float64 `json:"conciseness"`
	// Echo: 0, or down to EchoValues.Penalty when the completion repeats the prompt.
	Echo float64 `json:"echo"`
	// Preservation: 0, or PreservationValues.Destroy when the action destroys an old state
	// the gold label needs kept.
	Preservation float64 `json:"preservation"`
	// Summary: transition-summary quality for conflicts, SummaryValues.Spurious for a
	// summary on a pair without one, 0 otherwise.
	Summary float64 `json:"summary"`
}

// ComponentNames lists the component names in the order of Components and of Values.
func ComponentNames() []string {
	return []string{"format", "verdict", "implicit", "length", "cohesion", "conciseness", "echo", "preservation", "summary"}
}

// NumComponents is the number of reward components.
const NumComponents = 9

// Values returns the components in the order of ComponentNames.
func (c Components) Values() [NumComponents]float64 {
	return [NumComponents]float64{c.Format, c.Verdict, c.Implicit, c.Length, c.Cohesion, c.Conciseness, c.Echo, c.Preservation, c.Summary}
}

// ComponentsOf is the inverse of Values.
func ComponentsOf(v [NumComponents]float64) Components {
	return Components{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]}
}

// weighted is the weighted sum.
func (c Components) weighted(w Weights) float64 {
	ws := Components(w).Values()
	total := 0.0
	for i, v := range c.Values() {
		total += ws[i] * v
	}
	return total
}

// Flags note what was wrong with an input or how it was read.
type Flags uint16

const (
	// FlagEmpty: the completion is empty or white space.
	FlagEmpty Flags = 1 << iota
	// FlagTooLong: the completion exceeds Limits.MaxCompletionBytes and was not scanned.
	FlagTooLong
	// FlagInvalidUTF8: the completion is not valid UTF-8; invalid bytes were read as U+FFFD.
	FlagInvalidUTF8
	// FlagNoLabel: no gold label; the label terms (verdict, implicit, preservation,
	// summary) are 0.
	FlagNoLabel
	// FlagNoVerdict: no verdict could be parsed.
	FlagNoVerdict
	// FlagLenientVerdict: the verdict came from judge.ParseLenient (verdict.parse
	// "lenient").
	FlagLenientVerdict
	// FlagPromptMismatch: the reward server could not find the prompt inside an
	// OpenRLHF query and cut the completion at the end of the prompt's last line instead.
	FlagPromptMismatch
)

var flagNames = []string{"empty", "too_long", "invalid_utf8", "no_label", "no_verdict", "lenient_verdict", "prompt_mismatch"}

// FlagNames lists every flag's name, in bit order.
func FlagNames() []string { return slices.Clone(flagNames) }

// Names lists the flags that are set.
func (f Flags) Names() []string {
	var out []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Failed reports whether the flags mark a failed input, one that logs and counts as a
// failure: empty, too long, not UTF-8, or without a label.
func (f Flags) Failed() bool {
	return f&(FlagEmpty|FlagTooLong|FlagInvalidUTF8|FlagNoLabel|FlagPromptMismatch) != 0
}

func (f Flags) String() string { return strings.Join(f.Names(), ",") }

// Score is the reward of one completion.
type Score struct {
	// Total is the weighted sum of the components.
	Total      float64    `json:"total"`
	Components Components `json:"components"`
	Flags      Flags      `json:"-"`
	// Words is the completion's word count (the length term's measure).
	Words int `json:"words"`
	// Verdict is the parsed verdict; valid only when Flags has no FlagNoVerdict.
	Verdict judge.Verdict `json:"-"`
}

// Rewarder scores completions with the rule-based reward. It is safe for concurrent use:
// Score is a pure function of its arguments and the configuration.
type Rewarder struct {
	cfg Config
	sys *hashSet // shingles of judge.SystemPrompt, precomputed
}

// New validates cfg and returns a Rewarder.
func New(cfg Config) (*Rewarder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Rewarder{cfg: cfg}
	r.sys = newShingleSet(judge.SystemPrompt, cfg.Echo.NGram)
	return r, nil
}

// Config returns the rewarder's configuration.
func (r *Rewarder) Config() Config { return r.cfg }

// Score scores a completion of prompt against label. prompt is the text the model saw
// (the system and user turns; PromptText joins chat messages); it is read for the echo
// term and, when the label has no texts, for the pair's texts. A label that is not
// Present leaves the label terms at 0 and sets FlagNoLabel.
func (r *Rewarder) Score(prompt, completion string, label Label) Score {
	var s Score
	if !label.Present() {
		s.Flags |= FlagNoLabel
	}
	if len(completion) > r.cfg.Limits.MaxCompletionBytes {
		s.Flags |= FlagTooLong
		s.Flags |= FlagNoVerdict
		return s
	}
	if !utf8.ValidString(completion) {
		s.Flags |= FlagInvalidUTF8
		completion = strings.ToValidUTF8(completion, "\uFFFD")
	}
	if strings.TrimSpace(completion) == "" {
		s.Flags |= FlagEmpty | FlagNoVerdict
		if label.Present() {
			s.Components.Verdict = r.cfg.Verdict.None
			s.Components.Implicit = r.implicitValue(label, nil)
		}
		s.Total = s.Components.weighted(r.cfg.Weights)
		return s
	}
	if len(prompt) > r.cfg.Limits.MaxPromptBytes {
		prompt = prompt[:r.cfg.Limits.MaxPromptBytes]
	}

	a := parseAnswer(completion)
	c := &s.Components
	c.Format = r.format(a)
	c.Cohesion = r.cohesion(completion, a)
	c.Conciseness = r.conciseness(completion, a)

	words := countWords(completion)
	s.Words = words
	c.Length = r.length(words)
	c.Echo = r.echo(prompt, completion, a, label)

	var v *judge.Verdict
	switch {
	case a.verdictOK:
		v = &a.verdict
	case r.cfg.Verdict.Parse == ParseLenient:
		if ans, err := judge.ParseLenient(completion); err == nil {
			v = &ans.Verdict
			s.Flags |= FlagLenientVerdict
		}
	}
	if v == nil {
		s.Flags |= FlagNoVerdict
	} else {
		s.Verdict = *v
	}
	if label.Present() {
		c.Verdict = r.verdict(label, v)
		c.Implicit = r.implicitValue(label, v)
		c.Preservation = r.preservation(label, v)
		c.Summary = r.summary(prompt, label, v)
	}
	s.Total = c.weighted(r.cfg.Weights)
	return s
}

// format is the format term.
func (r *Rewarder) format(a answer) float64 {
	switch {
	case a.tagged && a.stepsOK:
		return r.cfg.Format.Full
	case a.tagged:
		return r.cfg.Format.TagsOnly
	}
	return r.cfg.Format.None
}

// cohesion is the tag cohesion term: 0 without a <think>…</think> pair anywhere, else 1
// less a penalty for each issue: text before <think>; more than one <think> or </think>;
// no JSON object after </think>; text between </think> and the object; an object that
// never closes; text after it; other XML-like tags (<answer>, <verdict>) outside the think
// block.
func (r *Rewarder) cohesion(text string, a answer) float64 {
	open := strings.Index(text, judge.ThinkOpen)
	if open < 0 {
		return 0
	}
	end := strings.Index(text[open:], judge.ThinkClose)
	if end < 0 {
		return 0
	}
	after := text[open+end+len(judge.ThinkClose):]
	issues := 0
	if strings.TrimSpace(text[:open]) != "" {
		issues++
	}
	if a.opens > 1 || a.closes > 1 {
		issues++
	}
	outside := after // the text after the think block that is not the verdict object
	switch obj := strings.IndexByte(after, '{'); {
	case obj < 0:
		issues++
	default:
		if strings.TrimSpace(after[:obj]) != "" {
			issues++
		}
		objEnd := matchBrace(after, obj)
		if objEnd < 0 {
			issues++
			outside = after[:obj]
			break
		}
		if strings.TrimSpace(after[objEnd:]) != "" {
			issues++
		}
		outside = after[:obj] + " " + after[objEnd:]
	}
	if hasTag(text[:open]) || hasTag(outside) {
		issues++
	}
	v := 1 - r.cfg.Cohesion.PenaltyPerIssue*float64(issues)
	return max(v, 0)
}

// matchBrace returns the offset just past the '}' that closes the '{' at s[start],
// skipping JSON strings; -1 when it never closes.
func matchBrace(s string, start int) int {
	depth := 0
	for i := start; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// hasTag reports whether s holds an XML-like tag other than the think tags: "<" or "</",
// then a letter, then letters, digits, '_' or '-', then ">".
func hasTag(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := i + 1
		if j < len(s) && s[j] == '/' {
			j++
		}
		k := j
		for k < len(s) && (isASCIILetter(s[k]) || (k > j && (s[k] >= '0' && s[k] <= '9' || s[k] == '_' || s[k] == '-'))) {
			k++
		}
		if k > j && k < len(s) && s[k] == '>' && s[j:k] != "think" {
			return true
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// conciseness is the conclusion term over the conclusion: the text after </think> (the
// whole text without a think block). A conclusion without a JSON object in it (an empty
// one, a truncated answer) scores 0.
func (r *Rewarder) conciseness(text string, a answer) float64 {
	concl := strings.TrimSpace(text[a.region:])
	n := len(concl)
	k := r.cfg.Conciseness
	switch {
	case strings.IndexByte(concl, '{') < 0:
		return 0
	case n <= k.MaxBytes:
		return 1
	case n >= k.ZeroBytes:
		return 0
	}
	return 1 - float64(n-k.MaxBytes)/float64(k.ZeroBytes-k.MaxBytes)
}

// length is the length term over a word count.
func (r *Rewarder) length(words int) float64 {
	l := r.cfg.Length
	switch {
	case words < l.MinWords:
		return float64(words) / float64(l.MinWords)
	case words <= l.MaxWords:
		return 1
	case words >= l.ZeroWords:
		return 0
	}
	return 1 - float64(words-l.MaxWords)/float64(l.ZeroWords-l.MaxWords)
}

// verdict is verdict correctness.
func (r *Rewarder) verdict(l Label, v *judge.Verdict) float64 {
	vv := r.cfg.Verdict
	if v == nil {
		return vv.None
	}
	score := 0.0
	if v.Status == l.Status {
		score += vv.Status
		if v.ConflictType == l.Type {
			score += vv.Type
		}
	}
	if l.ActionOK(v.Action) {
		score += vv.Action
	}
	return score
}

// implicitValue is the implicit-violation term: for an implicit violation (gold type
// implicit_violation), success is a conflict of that type; for an implicit look-alike
// (implicit, gold not a conflict), success is the gold status. Other items score 0.
func (r *Rewarder) implicitValue(l Label, v *judge.Verdict) float64 {
	violation := l.Status == judge.StatusConflict && l.Type == judge.TypeImplicitViolation
	if !violation && !l.Implicit {
		return 0
	}
	iv := r.cfg.Implicit
	if v == nil {
		return iv.Miss
	}
	ok := v.Status == l.Status
	if violation {
		ok = ok && v.ConflictType == judge.TypeImplicitViolation
	}
	if ok {
		return iv.Success
	}
	return iv.Miss
}

// destroys reports whether a verdict's action destroys an old state the gold action needs
// kept: a transition keeps the old value as history, which a supersede throws away; a
// scoped exception keeps the old value current outside the scope, which a supersede or a
// transition ends; keep and coexist keep it current, which anything else ends.
func destroys(gold, got judge.Action) bool {
	switch gold {
	case judge.ActionTransition:
		return got == judge.ActionSupersede
	case judge.ActionScopedException:
		return got == judge.ActionSupersede || got == judge.ActionTransition
	case judge.ActionKeep, judge.ActionCoexist:
		return got != judge.ActionKeep && got != judge.ActionCoexist
	}
	return false
}

// preservation is the old-memory preservation term.
func (r *Rewarder) preservation(l Label, v *judge.Verdict) float64 {
	if v == nil || !destroys(l.Action, v.Action) {
		return 0
	}
	return r.cfg.Preservation.Destroy
}

// summary is the transition-summary term. For a gold conflict: Shape when the summary
// reads "slot: old -> new" (or "→"), OldValue when its old part names the old value,
// NewValue when its new part names the new one (any text, when the label says nothing of
// the new value and the new input names none, as in implicit violations). For a pair
// without a conflict, Spurious when there is a summary, else 0.
func (r *Rewarder) summary(prompt string, l Label, v *judge.Verdict) float64 {
	if v == nil {
		return 0
	}
	sum := strings.TrimSpace(v.TransitionSummary)
	sv := r.cfg.Summary
	if l.Status != judge.StatusConflict {
		if sum != "" {
			return sv.Spurious
		}
		return 0
	}
	if sum == "" {
		return 0
	}
	_, oldPart, newPart, ok := splitSummary(sum)
	if !ok {
		return 0
	}
	score := sv.Shape
	oldText, newText := l.OldText, l.NewText
	if oldText == "" || newText == "" {
		po, pn := pairTexts(prompt)
		if oldText == "" {
			oldText = po
		}
		if newText == "" {
			newText = pn
		}
	}
	if names(oldPart, l.OldValue, oldText) {
		score += sv.OldValue
	}
	if l.NewValue == "" && l.Type == judge.TypeImplicitViolation {
		score += sv.NewValue // the new value is implied, not stated: any text will do
	} else if names(newPart, l.NewValue, newText) {
		score += sv.NewValue
	}
	return score
}

// splitSummary splits "slot: old -> new" (or "→"); each part must have text and the slot
// at most 60 bytes without a line break.
func splitSummary(s string) (slot, oldPart, newPart string, ok bool) {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || colon > 60 || strings.ContainsAny(s[:colon], "\n") {
		return "", "", "", false
	}
	slot, rest := strings.TrimSpace(s[:colon]), s[colon+1:]
	arrow, width := strings.Index(rest, "->"), 2
	if a := strings.Index(rest, "→"); a >= 0 && (arrow < 0 || a < arrow) {
		arrow, width = a, len("→")
	}
	if arrow < 0 {
		return "", "", "", false
	}
	oldPart, newPart = strings.TrimSpace(rest[:arrow]), strings.TrimSpace(rest[arrow+width:])
	if slot == "" || oldPart == "" || newPart == "" {
		return "", "", "", false
	}
	return slot, oldPart, newPart, true
}

// names reports whether part names a value: it contains the value (without regard to
// case) or at least half of the value's content words, or, without a value, shares a
// content word with the record's text.
func names(part, value, text string) bool {
	if value != "" {
		if containsFold(part, value) {
			return true
		}
		want, hit := 0, 0
		forContentWords(value, func(w string) {
			want++
			if hasWordFold(part, w) {
				hit++
			}
		})
		return want > 0 && 2*hit >= want
	}
	found := false
	forContentWords(part, func(w string) { found = found || hasWordFold(text, w) })
	return found
}

// containsFold reports whether sub occurs in s without regard to case (strings.EqualFold).
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// stopWords are left out of content-word matching.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "but": true, "not": true, "now": true, "was": true, "are": true,
	"with": true, "from": true, "that": true, "this": true, "user": true, "users": true, "their": true,
	"they": true, "has": true, "have": true, "had": true, "who": true, "his": true, "her": true, "its": true,
	"new": true, "old": true, "value": true, "works": true, "work": true, "lives": true, "live": true,
}

// forContentWords calls f with each word of three or more bytes that is not a stop word.
func forContentWords(s string, f func(string)) {
	var low [16]byte
	forWords(s, func(w string) {
		if len(w) < 3 {
			return
		}
		if len(w) <= len(low) {
			for i := range len(w) {
				c := w[i]
				if c >= 'A' && c <= 'Z' {
					c |= 0x20
				}
				low[i] = c
			}
			if stopWords[string(low[:len(w)])] { // the conversion does not allocate in a map index
				return
			}
		}
		f(w)
	})
}

// hasWordFold reports whether s has the word w, without regard to case.
func hasWordFold(s, w string) bool {
	found := false
	forWords(s, func(x string) { found = found || strings.EqualFold(x, w) })
	return found
}

// pairTexts finds the old record's and the new input's texts in a prompt written by
// judge.UserPrompt: the JSON-quoted line after "Old memory record…:" and after
// "New input…:". The texts keep their JSON escapes; the reward only compares words.
func pairTexts(prompt string) (oldText, newText string) {
	return quotedAfter(prompt, "Old memory record"), quotedAfter(prompt, "\n\nNew input")
}

func quotedAfter(s, marker string) string {
	i := strings.LastIndex(s, marker)
	if i < 0 {
		return ""
	}
	s = s[i+len(marker):]
	j := strings.Index(s, ":\n\"")
	if j < 0 || strings.IndexByte(s[:j], '\n') >= 0 {
		return ""
	}
	s = s[j+3:]
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return s[:k]
		case '\n':
			return ""
		}
	}
	return ""
}

// PromptText is the prompt as the reward reads it: the contents of the messages joined
// by blank lines.
func PromptText(messages []llm.Message) string {
	var b strings.Builder
	for i, m := range messages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(m.Content)
	}
	return b.String()
}

// String describes a score briefly, for logs.
func (s Score) String() string {
	c := s.Components
	return fmt.Sprintf("total %.3f (format %.2f verdict %.2f implicit %.2f length %.2f cohesion %.2f conciseness %.2f echo %.2f preservation %.2f summary %.2f) %s",
		s.Total, c.Format, c.Verdict, c.Implicit, c.Length, c.Cohesion, c.Conciseness, c.Echo, c.Preservation, c.Summary, s.Flags)
}

// IsSpecialToken reports whether a token's text looks like an end-of-turn or padding
// token ("<|im_end|>", "<|eot_id|>", "</s>", "<end_of_turn>", "<eos>", "<pad>"): the
// reward server cuts them off completions, the KL measure skips them.
func IsSpecialToken(s string) bool {
	switch s {
	case "</s>", "<eos>", "<pad>", "<end_of_turn>", "<|end|>", "<|endoftext|>":
		return true
	}
	return len(s) > 4 && strings.HasPrefix(s, "<|") && strings.HasSuffix(s, "|>")
}
