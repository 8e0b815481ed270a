package facts

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/atma-dev/atma/internal/words"
)

// Embedder turns texts into vectors; *onnx.Encoder implements it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Defaults of Config.
const (
	DefaultMinScore    = 0.42
	DefaultCueBonus    = 0.06
	DefaultRoleBonus   = 0.3
	DefaultReuseMargin = 0.04
)

// Config configures the offline extractor. The zero value means the defaults.
type Config struct {
	// MinScore is the least score (cosine similarity to an attribute's prototypes, plus
	// the cue bonus) at which a clause states a fact of that attribute. Default
	// DefaultMinScore.
	MinScore float64
	// Margin is how far a clause's best attribute score must lie above its best score
	// against the small-talk and event prototypes; negative values let facts through
	// that look more like chat. Default 0.
	Margin float64
	// CueBonus is added to an attribute's score when one of its cue words is in the
	// clause. Default DefaultCueBonus.
	CueBonus float64
	// ReuseMargin: an existing slot of the same subject wins over the best attribute of
	// the table when its score is at most this much lower. Default DefaultReuseMargin.
	ReuseMargin float64
	// Logger receives debug events (nil: slog.Default()).
	Logger *slog.Logger
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"min score", c.MinScore}, {"cue bonus", c.CueBonus}, {"reuse margin", c.ReuseMargin}} {
		if math.IsNaN(f.v) || f.v < 0 || f.v > 1 {
			errs = append(errs, fmt.Errorf("%s %v is outside [0, 1]", f.name, f.v))
		}
	}
	if math.IsNaN(c.Margin) || c.Margin < -1 || c.Margin > 1 {
		errs = append(errs, fmt.Errorf("margin %v is outside [-1, 1]", c.Margin))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("facts config: %w", err)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MinScore == 0 {
		c.MinScore = DefaultMinScore
	}
	if c.CueBonus == 0 {
		c.CueBonus = DefaultCueBonus
	}
	if c.ReuseMargin == 0 {
		c.ReuseMargin = DefaultReuseMargin
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Offline extracts facts with rules and the backbone's embeddings: no model download, one
// batched Embed call per Extract. It is safe for concurrent use if its Embedder is.
type Offline struct {
	emb Embedder
	cfg Config
	log *slog.Logger

	mu      sync.Mutex // guards the prototype vectors
	protos  [][][]float32
	nonFact [][]float32
}

var _ Extractor = (*Offline)(nil)

// NewOffline returns an offline extractor that embeds with emb.
func NewOffline(emb Embedder, cfg Config) (*Offline, error) {
	if emb == nil {
		return nil, errors.New("offline extractor: nil embedder")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	return &Offline{emb: emb, cfg: cfg, log: cfg.Logger}, nil
}

// asides are bracketed notes beside what the speaker says ("[shares an image: a photo
// of a desk]", "[laughs]"): they describe, they state no fact of the speaker.
var asides = regexp.MustCompile(`\[[^\]]*\]`)

// clause is one clause of an input under extraction.
type clause struct {
	toks []token
	text string
	vec  []float32
	vi   int // the index of its embedded text
	// subj, rest and role are the clause's subject, the words after the subject phrase
	// and the role attribute it names (see people.subject).
	subj string
	rest []token
	// begun marks a clause that tells the start of a state ("first week of law done"):
	// rest is then the state's value phrase (beginning).
	begun     bool
	beganWith string // the preposition before the value: "of", "at", "in", "on"
	role      string
	// held is the speaker's role and its holder the clause names on the way to its
	// subject ("my manager Dana said …"): people.held.
	held [2]string
	// label is the attribute a labelled statement names ("my job: translator at …"),
	// and valueAt the index in toks where its value starts (labelAttr).
	label   string
	valueAt int
	// corrects: the clause's memory corrects what was said (prepared.corrects).
	corrects bool
}

// negated reports a clause that denies what it states (negated); a labelled statement
// may deny in its value ("results: NOT allergic to penicillin").
func (c clause) negated() bool {
	return negated(c.text) || c.label != "" && c.valueAt < len(c.toks) && negated(join(c.toks[c.valueAt:])) || c.corrects && saysWhatWasSaid(c.toks)
}

// saysWhatWasSaid reports a clause that reports the speaker's own earlier words ("I told
// you the rent went to £1,250", "wait i said 55 min before"): in a correction, its value
// is the one corrected. "I told you wrong" reports nothing.
func saysWhatWasSaid(ts []token) bool {
	for i := range ts {
		if reportedAt(ts, i) > 0 {
			return true
		}
	}
	return false
}

// reportedAt returns where the words start that ts[i] reports the speaker said: after
// "I said", "I wrote", "I mentioned", "I told you" ("i said hornets before", "I told you
// the rent went to £1,250"); 0 when ts[i] reports nothing, or reports only that it was
// wrong ("I told you wrong", "i said the wrong day").
func reportedAt(ts []token, i int) int {
	if i == 0 || !firstPerson[ts[i-1].low] {
		return 0
	}
	j := i + 1
	switch ts[i].low {
	case "said", "wrote", "mentioned":
	case "told":
		if j >= len(ts) || ts[j].low != "you" {
			return 0
		}
		j++
	default:
		return 0
	}
	if j >= len(ts) || ts[j-1].end {
		return 0
	}
	k := j
	if ts[k].low == "the" && k+1 < len(ts) {
		k++
	}
	if ts[k].low == "wrong" || ts[k].low == "incorrectly" {
		return 0
	}
	return j
}

// prepared is an input split into clauses, before scoring.
type prepared struct {
	self    string
	why     string
	clauses []clause
	mem     int // index of the whole memory's text in the batch
	slots   []slotRef
	// referent is whom a pronoun refers to after this input (Result.Referent).
	referent string
	// cased says the text read (speaker and asides left out) writes names with capitals.
	cased bool
	// ended is the service of a known person whose last session the text tells
	// (lastSession).
	ended []Fact
	// nots are the clauses' "<new> not <old>" pairs, read once for both corrections.
	nots nots
	// corrects: the memory corrects what was said (correctingRe).
	corrects bool
}

// text is the clauses' words, a clause after another.
func (p prepared) text() string {
	ts := make([]string, len(p.clauses))
	for i, c := range p.clauses {
		ts[i] = c.text
	}
	return strings.Join(ts, " , ")
}

// words are the clauses' words in lower case, each between spaces, the whole padded
// with one (what mentions looks in).
func (p prepared) words() string {
	var b strings.Builder
	for _, c := range p.clauses {
		b.WriteString(c.text + " ")
	}
	return spacedWords(b.String())
}

// spacedWords is text's lower-case words, each between spaces, as mentions reads them.
func spacedWords(text string) string {
	return " " + strings.Join(words.Split(text), " ") + " "
}

type slotRef struct {
	subject, attribute string
	vec                int // index of the attribute's words in the batch, -1 if none
}

// slotSeen is a slot the call has produced or was given, with what it looks like.
type slotSeen struct {
	subject, attribute string
	vecs               [][]float32
	values             []string // newest first (Input.Values)
	ended              []string // values said to have ended, newest first (Input.Ended)
}

// Extract extracts the facts of each input; see Extractor for how inputs of one call
// relate.
func (o *Offline) Extract(ctx context.Context, in []Input) ([]Result, error) {
	if len(in) == 0 {
		return nil, nil
	}
	var texts []string
	o.mu.Lock()
	needProtos := o.protos == nil
	o.mu.Unlock()
	if needProtos {
		for _, a := range attributes {
			texts = append(texts, a.prototypes...)
		}
		texts = append(texts, nonFacts...)
	}
	nProto := len(texts)
	// The texts of the inputs are embedded once each (a clause that is the whole memory
	// shares its vector), and a memory whose vector the caller gave is not embedded again.
	at := map[string]int{}
	given := map[int][]float32{}
	addText := func(t string) int {
		if i, ok := at[t]; ok {
			return i
		}
		at[t] = len(texts)
		texts = append(texts, t)
		return len(texts) - 1
	}
	preps := make([]prepared, len(in))
	// Subjects are resolved here, in arrival order, so that the text embedded for a
	// clause about a third party leaves out the words that name that party: "my
	// roommate Theo has 2 kids" is matched as "she has 2 kids", and the relation word
	// that names the subject does not decide the attribute.
	var ppl people
	named := map[string]bool{} // subjects of the slots and the people named so far
	for i, x := range in {
		p := &preps[i]
		if x.Referent != "" && (i == 0 || ppl.last == "") {
			ppl.last = Kebab(x.Referent)
		}
		ppl.knowEntities(x.Slots)
		ppl.knowThings(x.Values)
		text, speaker := splitSpeaker(strings.TrimSpace(asides.ReplaceAllString(x.Text, " ")), strings.TrimSpace(x.Speaker))
		for _, key := range x.Slots {
			if subj, _, ok := strings.Cut(key, "/"); ok {
				named[subj] = true
			}
		}
		text = possessives(shorthand(unshout(text)), named)
		p.cased = cased(text)
		ppl.cased = p.cased
		p.self = "user"
		if speaker != "" {
			p.self = Kebab(speaker)
		}
		p.mem = -1
		p.referent = ppl.last
		if strings.TrimSpace(text) == "" {
			p.why = "no text"
			continue
		}
		if f, ok := lastSession(text, &ppl); ok {
			p.ended = append(p.ended, f)
		}
		ss := sentences(text)
		if slices.ContainsFunc(ss, func(s sentence) bool { return s.question }) {
			p.why = "a question: it asks, it states no fact"
			continue
		}
		p.mem = addText(text)
		p.corrects = correctingRe.MatchString(text)
		if len(x.Vector) > 0 && text == strings.TrimSpace(x.Text) {
			given[p.mem] = x.Vector
		}
		for _, s := range ss {
			cs := clauses(s.text)
			prev, read := "", 0 // the subject of the sentence's clause before; clauses read
			for ci := 0; ci < len(cs); ci++ {
				c := cs[ci]
				if said := skipFillers(c); len(said) == 0 || memoryCommandRe.MatchString(join(c)) || len(said) < len(c) && memoryCommandRe.MatchString(join(said)) {
					continue // "Note to self", "update your notes": said to the assistant, about nothing
				}
				if ci+1 < len(cs) && petApposition(c, cs[ci+1]) {
					// "We adopted a dog, Rex": one clause, so that the name is the pet's.
					c = slices.Concat(c, cs[ci+1])
					ci++
				}
				label, own := labelAttr(c)
				if label == "" && ci+1 < len(cs) {
					label, own = openLabelAttr(c, skipFillers(cs[ci+1]))
				}
				if label != "" && (ci+1 >= len(cs) || startsStatement(skipFillers(cs[ci+1]))) {
					label = ""
				}
				before := false // the value's clause comes before the label's
				if ci+1 < len(cs) && label == "" {
					if role, mine := roleApposition(c, cs[ci+1], p.cased); role != "" {
						// "new boss started monday, Raj Patel": the name after the
						// clause is the new holder of the role.
						label, own = role, mine
					} else if role := nameThenRole(c, cs[ci+1], p.cased); role != "" {
						// "Gustavo, my manager, is …": the name before the role's clause.
						label, own, before = role, true, true
					}
				}
				var cl clause
				if label != "" {
					// "My job: translator at Bluewater Clinic": one clause, read by the label.
					first := c
					if before {
						first = cs[ci+1]
					}
					merged := slices.Concat(first, cs[ci+1])
					if before {
						merged = slices.Concat(first, c)
					}
					ci++
					cl = clause{toks: merged, text: join(merged), label: label, valueAt: len(first), corrects: p.corrects}
					ppl.held = [2]string{}
					cl.subj, cl.rest, cl.role = ppl.subject(merged, p.self)
					cl.held = ppl.held
					if own {
						cl.subj, cl.rest, cl.role = p.self, merged[len(first):], ""
					}
				} else {
					cl = clause{toks: c, text: join(c), corrects: p.corrects}
					ppl.held = [2]string{}
					cl.subj, cl.rest, cl.role = ppl.subject(c, p.self)
					cl.held = ppl.held
					if x, prep := beginning(cl.rest); len(x) > 0 && cl.role == "" {
						// "first week of law done and …": the start of a state, whose value
						// is what follows; its attribute is read from "I started law".
						cl.rest, cl.begun, cl.beganWith = x, true, prep
					}
				}
				if who := ppl.namedPerson(cl.rest); who != "" && who != cl.subj && cl.subj == p.self {
					// "had my last session with Dana today, she's relocating": a person the
					// slots hold, named after the subject, is whom "she" means next.
					ppl.last = who
				}
				if cl.subj == p.self && prev != "" && prev != p.self && prev == ppl.last && (fragment(cl.toks) || thirdPersonOpening(cl.toks) ||
					len(p.clauses) > 0 && paidAmount(cl.toks, p.clauses[len(p.clauses)-1].toks)) {
					// "mum's on sertraline too, has been for years, 150mg": a clause
					// without a subject of its own goes on with the one before.
					cl.subj = prev
				} else if prev = cl.subj; len(skipFillers(cl.toks)) <= 3 && read > 0 {
					// "Netflix, Hulu, Spotify family plan": an item of a list, not a subject
					// that goes on ("Olu, nursing student" opens its sentence).
					prev = ""
				}
				read++
				cl.vi = addText(embedText(cl, p.self, &ppl))
				p.clauses = append(p.clauses, cl)
			}
		}
		p.nots = notPairs(p.clauses)
		p.referent = ppl.last
		if ppl.last != "" {
			named[ppl.last] = true
		}
		for _, key := range x.Slots {
			subj, attr, ok := strings.Cut(key, "/")
			if !ok || Kebab(subj) == "" || Kebab(attr) == "" {
				continue
			}
			ref := slotRef{subject: Kebab(subj), attribute: Kebab(attr), vec: -1}
			if _, known := attributeByName(ref.attribute); !known {
				ref.vec = addText(strings.ReplaceAll(ref.attribute, "-", " "))
			}
			p.slots = append(p.slots, ref)
		}
	}
	vecs := make([][]float32, len(texts))
	var todo []string
	var where []int
	for i, t := range texts {
		if v, ok := given[i]; ok {
			vecs[i] = normalized(v)
			continue
		}
		todo = append(todo, t)
		where = append(where, i)
	}
	if len(todo) > 0 {
		got, err := o.emb.Embed(ctx, todo)
		if err != nil {
			return nil, fmt.Errorf("extract facts: embed: %w", err)
		}
		if len(got) != len(todo) {
			return nil, fmt.Errorf("extract facts: embed: %d vectors for %d texts", len(got), len(todo))
		}
		for j, v := range got {
			vecs[where[j]] = normalized(v)
		}
	}
	protos, nonFact := o.prototypes(vecs[:nProto])
	for i := range preps {
		p := &preps[i]
		if p.mem < 0 {
			continue
		}
		for j := range p.clauses {
			p.clauses[j].vec = vecs[p.clauses[j].vi]
		}
	}
	out := make([]Result, len(in))
	var seen []slotSeen
	for i := range in {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("extract facts: %w", err)
		}
		p := preps[i]
		out[i] = Result{Source: SourceOffline, Why: p.why, Referent: p.referent}
		if p.mem < 0 {
			continue
		}
		known := slices.Clone(seen)
		for _, r := range p.slots {
			s := slotSeen{subject: r.subject, attribute: r.attribute}
			if r.vec >= 0 {
				s.vecs = [][]float32{vecs[r.vec]}
			}
			known = append(known, s)
		}
		facts, why := o.extract(in[i], p, vecs[p.mem], protos, nonFact, known)
		if kept := slices.DeleteFunc(slices.Clone(facts), func(f Fact) bool { return junk(f, p.cased) }); len(kept) < len(facts) {
			// A clause of chat ("It's been a busy week", "I'll reach my goals") matched an
			// attribute with no value of its kind.
			if len(kept) == 0 {
				why = "no fact: every value found carries no content word, only names its attribute, or reads as a clause"
			}
			facts = kept
		}
		said := p.text()
		if f, ok := validUntil(said, p.self); ok && !slices.ContainsFunc(facts, func(g Fact) bool { return g.Slot() == f.Slot() }) {
			facts, why = append(facts, f), ""
		}
		values := knownValues(in[i], known)
		if fs := endedFacts(p, facts, values); len(fs) > 0 {
			facts, why = orderFacts(fs), ""
		}
		facts = append(facts, endedDoses(facts, values)...)
		facts = append(facts, correctedAway(p, facts, in[i].Values)...)
		if fs := toldYou(said, facts, in[i].Values); len(fs) > 0 {
			facts = append(slices.DeleteFunc(facts, func(f Fact) bool { return f.Slot() == fs[0].Slot() }), fs...)
			why = ""
		}
		if fs := planOff(said, facts, in[i].Values); len(fs) > 0 {
			facts = append(facts, fs...)
			why = ""
		}
		for _, f := range p.ended {
			// "had my last session with Dana today": Dana's service ends, and no other
			// fact of the memory takes her name for a value.
			name, _, _ := strings.Cut(strings.ToLower(f.Value), " ")
			facts = append(slices.DeleteFunc(facts, func(g Fact) bool {
				return !g.Negated && (SameValue(g.Value, f.Value) || strings.EqualFold(g.Value, name))
			}), f)
			why = ""
		}
		facts = leaveHeldValue(facts, in[i].Values)
		facts = slices.DeleteFunc(facts, func(f Fact) bool {
			// "it's youtube music that came w the phone, not apple music": a value the
			// memory denies is not also one it states.
			return !f.Negated && slices.ContainsFunc(facts, func(g Fact) bool { return g.Negated && g.Slot() == f.Slot() && SameValue(g.Value, f.Value) })
		})
		facts = serviceAttributes(facts)
		out[i].Facts, out[i].Why = facts, why
		for _, f := range facts {
			seen = addSeen(seen, f, p)
		}
	}
	return out, nil
}

// addSeen records a produced fact's slot with the vectors of the clauses that stated it.
func addSeen(seen []slotSeen, f Fact, p prepared) []slotSeen {
	var vec []float32
	for _, c := range p.clauses {
		if strings.Contains(strings.ToLower(c.text), strings.ToLower(f.Value)) {
			vec = c.vec
			break
		}
	}
	i := slices.IndexFunc(seen, func(s slotSeen) bool { return s.subject == f.Subject && s.attribute == f.Attribute })
	if i < 0 {
		seen, i = append(seen, slotSeen{subject: f.Subject, attribute: f.Attribute}), len(seen)
	}
	if vec != nil {
		seen[i].vecs = append(seen[i].vecs, vec)
	}
	if f.Negated {
		seen[i].ended = append([]string{f.Value}, slices.DeleteFunc(seen[i].ended, func(v string) bool { return strings.EqualFold(v, f.Value) })...)
	} else {
		seen[i].values = append([]string{f.Value}, slices.DeleteFunc(seen[i].values, func(v string) bool { return strings.EqualFold(v, f.Value) })...)
	}
	return seen
}

// prototypes returns the prototype vectors, storing them on first use.
func (o *Offline) prototypes(fresh [][]float32) ([][][]float32, [][]float32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.protos == nil && len(fresh) > 0 {
		k := 0
		o.protos = make([][][]float32, len(attributes))
		for i, a := range attributes {
			o.protos[i] = fresh[k : k+len(a.prototypes)]
			k += len(a.prototypes)
		}
		o.nonFact = fresh[k:]
	}
	return o.protos, o.nonFact
}

// Weights of a clause's own similarity and its whole memory's.
const (
	clauseWeight = 0.75
	memoryWeight = 0.25
)

func (o *Offline) extract(in Input, p prepared, mem []float32, protos [][][]float32, nonFact [][]float32, known []slotSeen) ([]Fact, string) {
	var facts, gone []Fact
	var knownSubjects []string // relation keys: never a pet's name
	for _, v := range relations {
		knownSubjects = append(knownSubjects, v)
	}
	bestWhy, bestScore := "", -1.0
	chat := false
	// A memory that names a kind of pet anywhere talks about pets: "no longer has Maple;
	// now she has a budgie called Kiwi".
	petTalk := slices.ContainsFunc(p.clauses, func(c clause) bool {
		return slices.ContainsFunc(c.toks, func(t token) bool { return petWords[t.low] })
	})
	unresolved := ""
	msgWords := wordCount(p)
	values := knownValues(in, known)
	for _, c := range p.clauses {
		subj, rest, role := c.subj, c.rest, c.role
		if subj == "" {
			unresolved = c.text
			for _, t := range c.toks {
				if pronouns[t.low] {
					unresolved = t.orig
					break
				}
			}
			continue
		}
		// "…, but only twice a year now": the condition of the clause before.
		if ft := skipFillers(c.toks); len(ft) > 0 && ft[0].low == "only" && len(facts) > 0 {
			if sc := scope(c.text); sc != "" {
				if last := &facts[len(facts)-1]; last.Scope == "" {
					last.Scope = sc
					if activityAttrs[last.Attribute] {
						// "still goes kayaking, but only in the summer": an activity under
						// a condition, read by form.
						last.Confidence = 0
					}
				}
				continue
			}
		}
		// "Marble went to live with a neighbor": a pet's name as the subject is a fact of
		// the pet's owner, resolved after the memory's other clauses.
		// The name must be the whole subject phrase: "my roommate Theo moved to Leeds" is a
		// person's move.
		// A person's move ("Liam's moved to London") is no pet's: the name must be a known
		// pet's, or the memory must talk about pets.
		if subj != p.self && len(rest) > 0 && len(skipFillers(c.toks))-len(rest) == 1 && !slices.Contains(knownSubjects, subj) && petGone.MatchString(join(rest)) &&
			isCapitalised(c.toks[len(c.toks)-len(rest)-1]) && (petTalk || knownPetName(values, subj)) {
			gone = append(gone, Fact{Attribute: "pet", Value: c.toks[len(c.toks)-len(rest)-1].orig, Negated: true, EventTime: eventTime(c.text, in.Time)})
			continue
		}
		knownPet := petTalk || slices.ContainsFunc(known, func(s slotSeen) bool { return s.subject == subj && s.attribute == "pet" })
		for _, name := range housemates(c.toks, p.cased) {
			// "living w ben and jo in the walthamstow house": each is a flatmate, beside
			// the home the clause may name; "flatmates are hugo and priti": the speaker's.
			owner := c.subj
			if roles[owner] == "flatmate" || owner == "flatmate" {
				owner = p.self
			}
			facts = append(facts, Fact{Subject: owner, Attribute: "flatmate", Value: name, EventTime: eventTime(c.text, in.Time)})
		}
		if rf := ruleFacts(c, in, p.self, p.cased, knownPet); len(rf) > 0 {
			for _, f := range rf {
				if !slices.ContainsFunc(facts, func(g Fact) bool { return g.Slot() == f.Slot() && strings.EqualFold(g.Value, f.Value) }) {
					facts = append(facts, f)
				}
			}
			continue
		}
		// Cue words count after the subject phrase only: "my roommate Theo …" says
		// nothing about flatmates.
		low := " " + strings.ToLower(join(rest)) + " "
		scores := make([]float64, len(attributes))
		for ai, a := range attributes {
			s := clauseWeight*maxDot(c.vec, protos[ai]) + memoryWeight*maxDot(mem, protos[ai])
			for _, cue := range a.cues {
				if hasCue(low, cue) {
					s += o.cfg.CueBonus
					break
				}
			}
			if role != "" && a.name == role {
				s += DefaultRoleBonus
			}
			scores[ai] = s
		}
		order := make([]int, len(attributes))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmpDesc(scores[a], scores[b]) })
		if !watchRe.MatchString(c.text) {
			// "I don't play tennis anymore": what nobody watches is no watches value.
			order = slices.DeleteFunc(order, func(ai int) bool { return attributes[ai].name == "watches" })
		}
		best, bestS := order[0], scores[order[0]]
		nf := clauseWeight*maxDot(c.vec, nonFact) + memoryWeight*maxDot(mem, nonFact)
		// "only watches horror movies once a month", "loves to do yoga": an activity
		// under a condition or framed by a liking is a state of that activity, however
		// chatty it reads, and its attribute is the best activity attribute.
		act := activity(rest)
		// "got super into sourdough": an activity taken up is a hobby or exercise, never a
		// food or a drink, whatever its words mean.
		taken := act != "" && takenUp(rest[skipAdverbs(rest):]) > 0
		scoped := act != "" && (onlyScope(c.text) != "" || likeFramed(rest) || taken)
		if scoped {
			for _, ai := range order {
				if n := attributes[ai].name; activityAttrs[n] && (!taken || n == "hobby" || n == "exercise") {
					if scores[ai] >= o.cfg.MinScore-0.1 {
						best, bestS, nf = ai, max(scores[ai], o.cfg.MinScore), -1
						order = append([]int{ai}, order...)
					}
					break
				}
			}
		}
		if bestS < o.cfg.MinScore || bestS < nf+o.cfg.Margin {
			if bestS >= o.cfg.MinScore {
				chat = true
			}
			if bestS > bestScore {
				bestScore = bestS
				bestWhy = fmt.Sprintf("best attribute %s scores %.2f (small talk/event %.2f, need %.2f)", attributes[best].name, bestS, nf, o.cfg.MinScore)
			}
			continue
		}
		if episode(c.text) {
			// "Last weekend I went to a music festival in Boston": one past event, read by
			// meaning, states no favourite = music and no home = Boston.
			continue
		}
		// An existing slot of the same subject that fits as well as the best attribute
		// takes the fact.
		var attr attribute
		attrScore := 0.0
		v := ""
		reuse, reuseS := "", -1.0
		for _, s := range known {
			if s.subject != subj {
				continue
			}
			if len(s.vecs) == 0 {
				continue
			}
			if s.attribute == "named" {
				continue // a state known by its name only ("goodbye sourdough") is no attribute to read by meaning
			}
			if strings.HasPrefix(s.attribute, "favourite") && !favouriteRe.MatchString(c.text) {
				// A favourite is said as one: "I love trying out new recipes" is no
				// favourite-recipe.
				continue
			}
			if sc := maxDot(c.vec, s.vecs); sc > reuseS {
				reuse, reuseS = s.attribute, sc
			}
		}
		if reuse != "" && reuse != attributes[best].name && reuseS >= bestS-o.cfg.ReuseMargin {
			a, ok := attributeByName(reuse)
			if !ok {
				a = openAttribute(reuse)
			}
			if v = strings.Trim(value(a, rest, c.toks, role), " ,.'\""); v != "" && ValueFits(reuse, v) {
				attr, attrScore = a, reuseS
			} else {
				v = "" // a ticket is no passport's expiry date, however near the words
			}
		}
		// Else the best attribute whose kind of value the clause holds: "25 a month" is
		// a price, not the phone it is about, when no phone is named.
		for _, ai := range order[:min(len(order), maxCandidates)] {
			if v != "" || scores[ai] < bestS-candidateSpread {
				break
			}
			if activityAttrs[attributes[ai].name] && act != "" {
				// "only swims laps when friends visit": the activity is the value, whatever
				// words stand before it.
				v = act
			} else {
				v = strings.Trim(value(attributes[ai], rest, c.toks, role), " ,.'\"")
			}
			if v != "" && !strings.EqualFold(v, subj) {
				attr, attrScore = attributes[ai], scores[ai]
				break
			}
			v = ""
		}
		if v == "" || strings.EqualFold(v, subj) {
			continue
		}
		name := attr.name
		if name == "provider" {
			// A provider read by meaning is its service's ("ditched virgin, we're on
			// community fibre now": broadband), as serviceProvider reads it by form.
			name = cmp.Or(serviceOf(p), name)
		}
		if activityAttrs[name] && act != "" {
			v = act
		}
		neg := c.negated() || likingAttrs[name] && dislikeRe.MatchString(c.text)
		if obj := partedWith(c.toks); obj != "" && (attr.kind == kindThing || attr.kind == kindOrg) {
			// "gave the old iphone to my mum", "sold the dell on ebay": the thing given
			// up, not whom it went to.
			v, neg = obj, true
		}
		f := Fact{Subject: subj, Attribute: name, Value: v, Negated: neg, Scope: scopeOf(c.text, v), EventTime: eventTime(c.text, in.Time),
			Confidence: discounted(confidence(attrScore), msgWords, v)}
		if planAttrs[name] && !in.Time.IsZero() && f.EventTime.After(in.Time) {
			// "we're going to crete in july": the month is when the trip happens, not when
			// the plan was made; a plan said now is no version newer than one said later
			// ("crete is off, doing the lake district instead").
			f.EventTime = time.Time{}
		}
		if scoped && activityAttrs[name] {
			// An activity under a condition is read from the clause's form: certain.
			f.Confidence = 0
		}
		if c.begun {
			// "first week of law done": the form says a state began and names its value;
			// the meaning only picks the attribute.
			f.Confidence = max(f.Confidence, beginConfidence)
		}
		fs := []Fact{f}
		if name == "pet" {
			if pets := petNames(c.toks); len(pets) > 0 {
				fs = fs[:0]
				for _, pn := range pets {
					g := f
					g.Value, g.Negated = pn.name, pn.negated
					fs = append(fs, g)
				}
			}
		}
		for _, f := range fs {
			// A value the form gave a slot (a flatmate named "with ben") is not read by
			// meaning into another.
			if !slices.ContainsFunc(facts, func(g Fact) bool {
				return strings.EqualFold(g.Value, f.Value) && (g.Slot() == f.Slot() || g.Subject == f.Subject && g.Confidence == 0)
			}) {
				facts = append(facts, f)
			}
		}
	}
	if len(gone) > 0 {
		owner := p.self
		for _, f := range facts {
			if f.Attribute == "pet" {
				owner = f.Subject
				break
			}
		}
		for _, g := range gone {
			g.Subject = owner
			facts = append(facts, g)
		}
	}
	for _, c := range p.clauses {
		// "my manager Dana said we can wfh on fridays": who holds the speaker's role,
		// after the clause's own facts.
		if r, name := c.held[0], c.held[1]; r != "" && !slices.ContainsFunc(facts, func(f Fact) bool { return f.Subject == p.self && f.Attribute == r }) {
			facts = append(facts, Fact{Subject: p.self, Attribute: r, Value: strings.ReplaceAll(name, "-", " "), EventTime: eventTime(c.text, in.Time), aside: true})
		}
	}
	facts = servicePrice(readByForm(oneDose(p, loneDose(p, ownersByAttribute(in, p, knownEvents(facts, known), known)), values)), p.text())
	for i := range facts {
		facts[i].defaultOwner, facts[i].genericEvent = false, false
	}
	for _, f := range valueMentions(in, p, facts, values, knownEnded(in, known)) {
		// Read by form, the change replaces what the meaning made of the same version group
		// (of a multi-valued attribute, the same value: "ben moved out :( new flatmate is
		// chloe" keeps chloe).
		// A denial keeps the new value the meaning read beside it ("ditched virgin, we're
		// on community fibre now").
		facts = slices.DeleteFunc(facts, func(g Fact) bool {
			return g.Group() == f.Group() && g.Confidence > 0 && !(f.Negated && !g.Negated && !SameValue(g.Value, f.Value))
		})
		facts = append(facts, f)
	}
	facts = switchedAway(p, facts, values)
	for _, f := range visitFacts(p, facts, values) {
		// A visit schedule told by form replaces what the meaning made of the clause's day.
		facts = slices.DeleteFunc(facts, func(g Fact) bool { return g.Slot() == f.Slot() || sameVisitDays(g, f) })
		facts = append(facts, f)
	}
	if len(facts) > 0 {
		return orderFacts(facts), ""
	}
	switch {
	case len(p.clauses) == 0:
		return nil, "no clause with content"
	case unresolved != "" && bestWhy == "":
		return nil, fmt.Sprintf("subject not resolved: %q refers to nobody named before", unresolved)
	case chat:
		return nil, "small talk or a one-off event: " + bestWhy
	case bestWhy != "":
		return nil, "no attribute fits: " + bestWhy
	}
	return nil, "no value found for the attribute"
}

// knownPetName reports a name that is a value of someone's pet slot (values: knownValues).
func knownPetName(values map[string][]string, name string) bool {
	for k, vs := range values {
		if strings.HasSuffix(k, "/pet") && slices.ContainsFunc(vs, func(v string) bool { return Kebab(v) == name }) {
			return true
		}
	}
	return false
}

// favouriteRe says something is a favourite.
var favouriteRe = regexp.MustCompile(`(?i)\b(?:favou?rites?|fave|faves|fav)\b`)

// planAttrs are plans whose dates are when the planned thing happens: a trip, a flight,
// a stay, an event.
var planAttrs = map[string]bool{"trip-destination": true, "flight": true, "lodging": true, "event-date": true}

// beginConfidence is the least confidence of a fact whose clause tells the start of a
// state (beginning): above the overlay's default FactMin (0.52), also in a long message.
const beginConfidence = 0.6

// A fact read by meaning from a long message — more than longMessage words, speaker and
// asides left out — is less certain: its confidence is scaled by longDiscount. In a turn
// of chat that runs over several sentences ("Wow, Dave, that's awesome! … I've been
// working on this car …") one clause that matches an attribute by meaning is weaker
// evidence of a state than a short message that says only that — unless its value is
// an amount (discounted). Measured with the use-lite backbone against the overlay's
// FactMin (docs/benchmarks.md, "Session 9"; the amounts, "Session 23").
const (
	longMessage  = 30
	longDiscount = 0.8
)

// discounted is the confidence c of a fact read by meaning from a message of n words
// whose value is v. An amount keeps its confidence in a long message ("it works out at
// £230.25 a week now"): a number says what the state is, where a phrase ("workplace
// stuff", "coconut milk") is as likely a turn's topic as a state. A name does not: in a
// chat between two people, the places and cars they mention change with every story.
func discounted(c float64, n int, v string) float64 {
	if n > longMessage && !strings.ContainsFunc(v, unicode.IsDigit) {
		return c * longDiscount
	}
	return c
}

// wordCount counts the words of the clauses an input was read as.
func wordCount(p prepared) int {
	n := 0
	for _, c := range p.clauses {
		n += len(c.toks)
	}
	return n
}

// confidence maps an attribute score (a cosine similarity plus bonuses) into (0, 1].
func confidence(score float64) float64 { return math.Max(0.01, math.Min(1, score)) }

// Candidate attributes tried for a value: at most maxCandidates, within candidateSpread
// of the best score.
const (
	maxCandidates   = 4
	candidateSpread = 0.08
)

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// hasCue reports whether the padded lower-case clause holds cue as a word or word stem.
func hasCue(low, cue string) bool {
	i := strings.Index(low, cue)
	if i <= 0 {
		return false
	}
	b := low[i-1]
	return !isAlnum(b) || strings.ContainsAny(cue, "£$€@")
}

func maxDot(v []float32, set [][]float32) float64 {
	best := -1.0
	for _, w := range set {
		if d := dot(v, w); d > best {
			best = d
		}
	}
	return best
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// normalized returns v scaled to unit length, in a new slice (an embedder may hand out
// vectors it keeps).
func normalized(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if s == 0 {
		return out
	}
	n := 1 / math.Sqrt(s)
	for i, x := range v {
		out[i] = float32(float64(x) * n)
	}
	return out
}

// embedText is the text embedded for a clause: the clause itself, or, when its subject
// is a third person named by a relation word or a name, "she" and the words after the
// subject phrase.
func embedText(c clause, self string, ppl *people) string {
	// The preposition says what kind of thing was begun: in a place, of a course or an
	// activity ("at" an employer or a school reads well as it is).
	switch {
	case c.begun && c.beganWith == "in":
		return "I moved to " + join(c.rest)
	case c.begun && c.beganWith == "of":
		return "I started " + join(c.rest)
	}
	if c.subj == self || c.role != "" || len(c.rest) == 0 || len(c.rest) == len(c.toks) || slices.Contains(ppl.entities, c.subj) {
		return c.text
	}
	return "I " + join(c.rest)
}

// watchRe is a clause about watching, hearing or following something: what the
// attribute watches holds ("loves playing tennis" is done, not watched).
var watchRe = regexp.MustCompile(`(?i)\b(?:watch\w*|follow\w*|listen\w*|fan of|supporter|season|on tv|telly|stream\w*|binge\w*|shows?|series|films?|movies?|podcasts?|radio|audiobooks?)\b`)

// activityAttrs are attributes whose value is an activity (see activity).
var activityAttrs = map[string]bool{"hobby": true, "exercise": true, "food": true, "drink": true, "watches": true}

// likeFramed reports whether the words after a subject open with a liking verb, past
// the activity adverbs: "really likes to listen to opera", "loves to do yoga".
func likeFramed(rest []token) bool {
	i := skipAdverbs(rest)
	return i < len(rest) && (likeVerbs[rest[i].low] || takenUp(rest[i:]) > 0)
}

// Activity reports whether attr's values are activities ("chess", "road cycling"): the
// offline extractor may name one activity's attribute differently from one memory to the
// next (a hobby, an exercise, a thing watched), while the activity is one state.
func Activity(attr string) bool { return activityAttrs[Kebab(attr)] }

// ruleFacts are the facts of a clause whose form decides its attribute (rules.go): a job
// title, a home (in lower case only where the text is not cased), a partner, named pets
// — and, when the subject is known to have pets or the memory talks about pets
// (knownPet), a name given up ("no longer has Maple").
func ruleFacts(c clause, in Input, self string, cased, knownPet bool) []Fact {
	base := Fact{Subject: c.subj, Negated: c.negated(), Scope: scope(c.text), EventTime: eventTime(c.text, in.Time)}
	if c.label != "" {
		if vs := labelActivities(c.label, c.toks[c.valueAt:]); len(vs) > 0 {
			// "hobbies rn: bouldering twice a week and crosswords": each activity.
			var out []Fact
			for _, v := range vs {
				f := base
				f.Attribute, f.Value = c.label, v
				out = append(out, f)
			}
			return out
		}
		if v := labelValue(c.label, c.toks[c.valueAt:]); v != "" && !strings.EqualFold(v, c.subj) {
			f := base
			f.Attribute, f.Value = c.label, v
			return []Fact{f}
		}
	}
	if a, v, put := amountMove(c.text); a != "" && (put || c.role == "") {
		// "my take-home goes up to £2,710"; "landlord's putting the rent up to £1,140":
		// the speaker's rent, put up by the landlord.
		f := base
		f.Attribute, f.Value, f.Negated = a, v, false
		if put && servedAt(c.toks) < 0 {
			f.Subject = self // not "mum's gp put the amlodipine up": mum's (people.servedOwner)
		}
		return []Fact{f}
	}
	if c.role != "" {
		if _, known := attributeByName(c.role); !known {
			// A role outside the table ("study buddy"): its holder's name.
			if v := strings.Trim(value(attribute{name: c.role, kind: kindPerson}, c.rest, c.toks, c.role), " ,.'\""); v != "" {
				f := base
				f.Attribute, f.Value, f.Negated = c.role, v, false
				return []Fact{f}
			}
		}
		return nil
	}
	if fs := scheduleFacts(c, self, base); len(fs) > 0 {
		return fs
	}
	if fs := choreFacts(c, self, base); len(fs) > 0 {
		return fs
	}
	if fs := drugFacts(c, self, base); len(fs) > 0 {
		return fs
	}
	if fs := streamingFacts(c, self, base); len(fs) > 0 {
		return fs
	}
	if job, org := titleAt(c.toks, cased); job != "" && org != "" && !strings.EqualFold(org, c.subj) {
		// "I've been a senior designer at Canva": the title and the employer, two facts.
		j, e := base, base
		j.Attribute, j.Value = "job", job
		e.Attribute, e.Value = "employer", org
		if !junk(j, cased) && !junk(e, cased) {
			return []Fact{j, e}
		}
	}
	for _, read := range formReaders {
		if r, ok := read(c, self, cased); ok && !strings.EqualFold(r.value, cmp.Or(r.subject, c.subj)) {
			f := base
			f.Attribute, f.Value = r.attr, describedName(r.value)
			if junk(f, cased) {
				// "moved to Galway for a job at the university": a value that only names
				// its attribute leaves the clause to the readers after this one.
				continue
			}
			if !r.keepNegation {
				f.Negated = r.negated
			}
			if r.subject != "" {
				f.Subject = r.subject
			}
			return []Fact{f}
		}
	}
	if hasNamedPet(c.toks) || knownPet && petLoss.MatchString(c.text) {
		var out []Fact
		for _, pn := range petNames(c.toks) {
			f := base
			f.Attribute, f.Value, f.Negated = "pet", pn.name, pn.negated
			out = append(out, f)
		}
		return out
	}
	return nil
}

// formReading is what a form reader finds in a clause: an attribute and its value, of
// the clause's subject unless subject says another's, negated as the reader says unless
// keepNegation leaves the clause's own ("I don't use Facebook anymore").
type formReading struct {
	subject, attr, value  string
	negated, keepNegation bool
}

// formReaders read a clause's fact from its form (rules.go), tried in order; the first
// that finds one decides. Each is a form whose attribute the words say: an email address, a provider of a
// household service, a course, a regular service's time, a line of work, a book, an age,
// a car, a bank, a tool, a wake-up time and a bedtime, a supermarket, a home shared, how
// often, a school year, a diet's change, a diet named, a label, an employer, a job, a team, a home, a
// partner.
var formReaders = []func(c clause, self string, cased bool) (formReading, bool){
	func(c clause, self string, cased bool) (formReading, bool) {
		v, how, own := coupleName(c.toks, cased)
		subj := c.subj
		if own {
			subj = self
		}
		return formReading{subject: subj, attr: "partner", value: v, negated: how == coupleEnded}, (how == coupleBegan || how == coupleEnded) && subj != ""
	},
	// An address is an email whoever's clause states it ("use r.k@proton.me from now on").
	readValue("email", func(c clause) string { return emailRe.FindString(c.text) }),
	readHeld("language-level", languageLevel),
	readHeld("shift", workShift),
	readHeld("loyalty-status", loyaltyTier),
	readPair(func(c clause) (string, string) { return serviceProvider(c.rest) }),
	func(c clause, _ string, _ bool) (formReading, bool) {
		v, neg, ok := studyFact(c.rest, len(skipFillers(c.toks)) == len(c.rest))
		return formReading{attr: "course", value: v, negated: neg}, ok
	},
	readPair(func(c clause) (string, string) { return transportTime(c.rest) }),
	readValue("job", func(c clause) string { return workIn(c.rest) }),
	func(c clause, _ string, _ bool) (formReading, bool) {
		v, neg := readingBook(c.rest)
		return formReading{attr: "book", value: v, negated: neg}, v != ""
	},
	func(c clause, self string, _ bool) (formReading, bool) {
		m := birthdayRe.FindStringSubmatch(c.text)
		if m == nil || c.subj != self && c.subj != "" {
			return formReading{}, false
		}
		return formReading{subject: self, attr: "age", value: m[1]}, true
	},
	readValue("car", func(c clause) string { return carOwned(c.rest) }),
	readValue("bank", func(c clause) string { return cmp.Or(bankWith(c.rest), group1(namedBankRe, c.text)) }),
	readValue("school", func(c clause) string { return group1(namedSchoolRe, c.text) }),
	func(c clause, _ string, _ bool) (formReading, bool) {
		v := toolUsed(c.rest)
		return formReading{attr: "tool", value: v, keepNegation: true}, v != ""
	},
	readValue("wake-time", func(c clause) string { return wakeTime(c.toks) }),
	readValue("bedtime-time", func(c clause) string { return bedtime(c.rest) }),
	readValue("supermarket", func(c clause) string { return shopAt(c.rest) }),
	func(c clause, self string, _ bool) (formReading, bool) {
		return formReading{attr: "home", value: "the speaker's household"}, c.subj != self && livesWithUs(c.rest)
	},
	func(c clause, _ string, _ bool) (formReading, bool) {
		// An activity read by its form ("loves to do yoga and does it four times a week")
		// keeps the activity's slot: its frequency is part of that state.
		a, v := frequencyFact(c.rest)
		return formReading{attr: a, value: v}, a != "" && activity(c.rest) == ""
	},
	func(c clause, self string, _ bool) (formReading, bool) {
		v := schoolYear(c.rest)
		return formReading{attr: "school-year", value: v}, v != "" && c.subj != self
	},
	readValue("age", ageOf),
	func(c clause, _ string, _ bool) (formReading, bool) {
		v, ok := dietChange(c.text)
		return formReading{attr: "diet", value: v}, ok
	},
	func(c clause, _ string, _ bool) (formReading, bool) {
		// "not vegetarian anymore" keeps the clause's own negation.
		v := dietWord(c.text)
		return formReading{attr: "diet", value: v, keepNegation: true}, v != ""
	},
	func(c clause, self string, _ bool) (formReading, bool) {
		a, v := ownedAs(c)
		return formReading{subject: self, attr: a, value: v}, a != "" && self != ""
	},
	func(c clause, self string, cased bool) (formReading, bool) {
		a, v := ownLabel(c, cased)
		if (a == "order" || strings.HasSuffix(a, "-order")) && drinkRe.MatchString(v) {
			a = "drink" // "my order is always an oat flat white": what the speaker drinks
		}
		// A label of two words read as a name and its verb ("hilton status is Gold") is
		// the speaker's thing, not a person's.
		// A thing read as the clause's subject is the speaker's thing, not a person:
		// "thermostat stays on 19", "card is at 2200" in lower case (or after "the").
		if ts := skipFillers(c.toks); a != "" && c.subj != self && len(ts) > 1 {
			t := ts[0]
			if t.low == "the" {
				t = ts[1]
			}
			if c.subj == Kebab(ts[0].low) && strings.HasPrefix(a, c.subj+"-") ||
				a == c.subj && Kebab(strings.TrimSuffix(t.low, "'s")) == a && (t != ts[0] || !isCapitalised(t) || !cased) {
				return formReading{subject: self, attr: a, value: v}, true
			}
		}
		return formReading{attr: a, value: v}, a != "" && c.subj == self
	},
	func(c clause, self string, _ bool) (formReading, bool) {
		// "401k contrib 6%", "car loan $412/mo", "BP 142/90": a note's label and its
		// amount, with no verb; the speaker's unless the clause names another.
		a, v := labelledAmount(c.toks)
		subj := c.subj
		if subj == "" {
			subj = self
		}
		return formReading{subject: subj, attr: a, value: v}, a != "" && subj != ""
	},
	readPair(func(c clause) (string, string) { return paidInto(c.rest) }),
	func(c clause, self string, cased bool) (formReading, bool) {
		// "you can call me Alex", "I'd like to go by Sasha from now on".
		m := calledRe.FindStringSubmatch(c.text)
		if m == nil || c.subj != self || notName(strings.ToLower(m[1])) || cased && !unicode.IsUpper([]rune(m[1])[0]) {
			return formReading{}, false
		}
		return formReading{subject: self, attr: "preferred-name", value: m[1]}, true
	},
	func(c clause, self string, _ bool) (formReading, bool) {
		s, a, v := owed(c, self)
		return formReading{subject: s, attr: a, value: v}, a != ""
	},
	func(c clause, self string, _ bool) (formReading, bool) {
		// "moved my current account from Barclays to Monzo": the thing named is what it
		// was switched to.
		a, v := switchedOwn(c.rest)
		return formReading{subject: self, attr: a, value: v}, a != "" && self != "" && (c.subj == self || c.subj == "")
	},
	readValue("employer", func(c clause) string { return group1(ownAccountRe, c.text) }),
	readPair(func(c clause) (string, string) { return timeOn(c.text) }),
	readValue("location", func(c clause) string { return group1(arrivedRe, c.text) }),
	readValue("flight", func(c clause) string { return group1(flightRe, c.text) }),
	func(c clause, _ string, cased bool) (formReading, bool) {
		v := employerName(c.rest, cased)
		return formReading{attr: "employer", value: v}, v != ""
	},
	readValue("job", func(c clause) string { return jobTitle(c.toks) }),
	readPair(func(c clause) (string, string) { return asLabel(c.rest) }),
	readValue("team", func(c clause) string { return teamName(c.rest) }),
	func(c clause, self string, _ bool) (formReading, bool) {
		// "sam from the data team is so funny": a third party named by their team.
		if c.subj == self || len(c.rest) < 3 || c.rest[0].low != "from" {
			return formReading{}, false
		}
		v := teamAt(c.rest[:min(len(c.rest), 5)], 1)
		return formReading{attr: "team", value: v}, v != ""
	},
	func(c clause, _ string, cased bool) (formReading, bool) {
		v := cmp.Or(homePlace(c.toks, !cased), livingIn(c.toks, !cased))
		return formReading{attr: "home", value: v}, v != ""
	},
	readValue("doctor", func(c clause) string { return careName(c.rest) }),
	func(c clause, self string, _ bool) (formReading, bool) {
		// "Mittens is my old cat": the speaker's pet, whatever the clause's subject.
		v := petIs(skipFillers(c.toks))
		return formReading{subject: self, attr: "pet", value: v}, v != "" && self != ""
	},
	readValue("commute-mode", func(c clause) string { return commuteMode(join(c.rest)) }),
	readPair(func(c clause) (string, string) { return expiry(c.text) }),
	readValue("phone-plan", func(c clause) string { return group1(portRe, c.text) }),
	readValue("work-days", func(c clause) string {
		if strings.Contains(strings.ToLower(c.text), "office") {
			return "" // "work from the office mon and tue": office-days
		}
		return workDays(c.text)
	}),
	func(c clause, self string, cased bool) (formReading, bool) {
		// "me and my boyfriend marco are doing …": the relation names the partner when
		// nothing else is read from the clause.
		v, how, _ := coupleName(c.toks, cased)
		return formReading{subject: self, attr: "partner", value: v}, how == coupleNamed && self != ""
	},
	func(c clause, _ string, _ bool) (formReading, bool) {
		v := partnerName(c.rest)
		return formReading{attr: "partner", value: v, keepNegation: true}, v != ""
	},
	// "so we are engaged now", "we're married since saturday", "I'm single again": the
	// status, where no partner is named (the readers before name one).
	readValue("relationship-status", func(c clause) string { return group1(relationshipRe, c.text) }),
}

// readValue adapts a reader of one attribute's value ("" when none) to formReaders.
func readValue(attr string, value func(c clause) string) func(clause, string, bool) (formReading, bool) {
	return func(c clause, _ string, _ bool) (formReading, bool) {
		v := value(c)
		return formReading{attr: attr, value: v}, v != ""
	}
}

// readHeld adapts a reader of whose a value of attr is and the value ("" when none) to
// formReaders; the reader decides the polarity its words say.
func readHeld(attr string, held func(c clause, self string) (subj, value string)) func(clause, string, bool) (formReading, bool) {
	return func(c clause, self string, _ bool) (formReading, bool) {
		subj, v := held(c, self)
		return formReading{subject: subj, attr: attr, value: v, keepNegation: true}, v != "" && subj != ""
	}
}

// readPair adapts a reader of an attribute and its value ("" when none) to formReaders.
func readPair(pair func(c clause) (attr, value string)) func(clause, string, bool) (formReading, bool) {
	return func(c clause, _ string, _ bool) (formReading, bool) {
		a, v := pair(c)
		return formReading{attr: a, value: v}, a != ""
	}
}

// likingAttrs hold things liked; a clause that dislikes one ("can't stand olives", "I
// hate running") states it with the opposite polarity, so that a later "I like olives
// now" is a change of the same version group, not a restatement.
var likingAttrs = map[string]bool{"food": true, "hobby": true, "exercise": true, "watches": true, "drink": true}

// dislikeRe marks a clause that dislikes what it names.
var dislikeRe = regexp.MustCompile(`(?i)\b(?:hate|hates|hated|can'?t stand|cannot stand|can'?t bear|dislikes?|detest|detests|loathe|loathes|(?:don'?t|doesn'?t|do not|does not) (?:like|eat|enjoy)|not a (?:big )?fan of|not keen on|hard no on|tastes? like soap)\b`)

// serviceOf returns the provider slot of the first household service a memory names
// (serviceWords), or "".
func serviceOf(p prepared) string {
	for _, c := range p.clauses {
		for _, t := range c.toks {
			if a := serviceWords[strings.TrimSuffix(t.low, "'s")]; a != "" { // "broadband's with virgin"
				return a
			}
		}
	}
	return ""
}

// ageOf returns the age a clause gives its person by a bare number after a copula
// ("my son is 6", "my wife's 41 now", "he's 7"), else "". "it's 6" is a time, not an
// age, and so is a number with a unit ("is 6 foot", "is 6 weeks").
func ageOf(c clause) string {
	ts := skipFillers(c.toks)
	if len(ts) == 0 || len(c.rest) == 0 || ts[0].low == "it" || ts[0].low == "it's" || ts[0].low == "that" || ts[0].low == "that's" || firstPerson[ts[0].low] {
		return ""
	}
	low := strings.ToLower(join(c.rest))
	// "gran turned 90 on sunday": turning an age says it, whatever follows.
	age := cmp.Or(group1(ageAfterCopula, low), group1(turnedAge, low))
	if last := len(ts) - len(c.rest) - 1; age == "" && last >= 0 && strings.HasSuffix(ts[last].low, "'s") {
		age = group1(ageAfterCopula, "is "+low) // "my son's 6": the copula is the subject word's "'s"
	}
	if n, err := strconv.Atoi(age); err != nil || n < 1 || n > 110 {
		return ""
	}
	return age
}

// ageAfterCopula is a clause's rest that is only a copula and an age.
var ageAfterCopula = regexp.MustCompile(`^(?:is|was|'s|will be|'ll be|turns|is turning)\s+(\d{1,3})(?:\s+(?:now|today|already|this year|next (?:week|month)|years? old|yrs? old|yo))*\s*[.!]*$`)

// birthdayRe is the speaker's birthday by its ordinal: "it's my 33rd birthday today!".
var birthdayRe = regexp.MustCompile(`(?i)\bmy (\d{1,3})(?:st|nd|rd|th) birthday\b`)

// turnedAge is an age turned, whatever time follows: "turned 90 on sunday", "just
// turned 7!", "turned 40 years old".
var turnedAge = regexp.MustCompile(`^(?:just |finally )?turned\s+(\d{1,3})\b(?:\s+(?:on|last|this|yesterday|today|at|in|now|already|next|years?|yrs?|yo)\b.*|\s*[.!]*)$`)

// schoolYear reads a pupil's school year: "my son's in year 4", "going into year 5 in
// september", "she's in 3rd grade".
func schoolYear(rest []token) string { return captured(schoolYearRe, rest) }

var schoolYearRe = regexp.MustCompile(`\b(?:in|into|is|'s|going into|moving up to|starts?|starting)\s+((?:year|yr)\s?\d{1,2}|\d{1,2}(?:st|nd|rd|th) grade|reception)\b`)

// orderFacts puts the facts a version group is judged by first: for a single-valued
// attribute the new value before the one given up ("quit the cafe; a baker now"), for a
// multi-valued one the value given up first ("rehomed Clover, adopted Sprocket").
func orderFacts(fs []Fact) []Fact {
	rank := func(f Fact) int {
		switch {
		case f.aside:
			return 2
		case SingleValued(f.Attribute) == f.Negated:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(fs, func(a, b Fact) int { return rank(a) - rank(b) })
	return fs
}

// fragmentLeads open a clause that goes on with the sentence's subject: "has been for
// years", "no milk no sugar", "plus a cat".
var fragmentLeads = wordSet(`has have been no plus also with mostly usually always`)

// fragment reports a clause with no subject of its own: no first person, and short (at
// most three words) or opened by a word that goes on (fragmentLeads).
func fragment(ts []token) bool {
	if len(ts) == 0 || speaksOfSelf(ts) {
		return false
	}
	return fragmentLeads[ts[0].low] || len(skipFillers(ts)) <= 3
}

// paidAmount reports a clause opened by an amount after one in which someone pays,
// rents, earns or charges (before): the amount is theirs ("my brother Kevin rents in
// Rongai, KSh 9,000 for a one bedroom"), while after "Daycare for Milo at Little
// Acorns" it is no daycare's.
func paidAmount(ts, before []token) bool {
	if len(ts) == 0 || speaksOfSelf(ts) {
		return false
	}
	lead := amountStart(ts[0].low) || len(ts) > 1 && amountShaped(ts[1].low) && !isNameToken(ts, 0)
	return lead && slices.ContainsFunc(before, func(t token) bool { return payerVerbs[t.low] })
}

// payerVerbs say that someone pays for a thing or is paid for one (paidInto's paidVerbs
// say what is paid into).
var payerVerbs = wordSet(`rent rents renting rented pay pays paying paid earn earns earning charge charges charging`)

// pricedServices are the attributes whose holder is paid for: a provider, a plan, a gym,
// a subscription, a school, a stay (with the household services of serviceWords and each
// kind of insurance).
var pricedServices = wordSet(`provider phone-plan gym subscription school university lodging`)

// householdServices are the slots of serviceWords: "energy-supplier", "broadband", ….
var householdServices = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range serviceWords {
		m[a] = true
	}
	return m
}()

// servicePrice puts an amount the meaning read as a price, a bill or a rent into the slot
// of the one service the memory names, "<service>-price": "wifi is virgin, £30 a month
// split 4 ways" is broadband-price 30, not the rent; "Enrolled at Anytime Fitness, ₱2,500
// a month" is gym-price. Each service's price then has a history of its own, and the
// phone plan's £18 never replaces the gym's ₱2,500. A rent said as a rent stays one; a
// memory with two services, or none, is left as it is.
func servicePrice(fs []Fact, text string) []Fact {
	paid := func(f Fact) bool {
		a := Kebab(f.Attribute)
		return pricedServices[a] || householdServices[a] || strings.HasSuffix(a, "-insurance")
	}
	mentionsRent := slices.Contains(strings.Fields(strings.ToLower(text)), "rent")
	out := slices.Clone(fs)
	for i, f := range out {
		if f.Negated || f.Confidence == 0 || !(f.Attribute == "price" || f.Attribute == "bill" || f.Attribute == "rent" && !mentionsRent) {
			continue
		}
		var svc []Fact
		for _, g := range fs {
			if g.Subject == f.Subject && !g.Negated && paid(g) && !slices.ContainsFunc(svc, func(h Fact) bool { return h.Attribute == g.Attribute }) {
				svc = append(svc, g)
			}
		}
		if len(svc) != 1 {
			continue
		}
		name := Kebab(svc[0].Attribute)
		if !SingleValued(name) {
			name = Kebab(svc[0].Value) // "netflix-price": each subscription its own
		}
		out[i].Attribute = name + "-price"
	}
	return out
}

// serviceAttributes names a household service's slot by the service, whatever word the
// memory calls it by: a fact read under "electricity", "internet" or "wifi" (an open
// label, "my internet is with Sky") is of the energy supplier's or the broadband's slot
// (serviceWords), as serviceProvider reads "we use octopus for electricity", so that
// "electricity: Electric Ireland" and "back with Bord Gais for the energy" share a
// version group; so is its price. An amount under the service's word ("gas: £40") is no
// provider and keeps its label.
func serviceAttributes(fs []Fact) []Fact {
	out := slices.Clone(fs)
	for i, f := range out {
		base, price := strings.CutSuffix(Kebab(f.Attribute), "-price")
		s := serviceWords[base]
		if s == "" || s == base || !price && strings.ContainsFunc(f.Value, unicode.IsDigit) {
			continue
		}
		if out[i].Attribute = s; price {
			out[i].Attribute = s + "-price"
		}
	}
	return out
}

// PricesService reports whether f is the price of a service that another fact of fs
// names (servicePrice: "broadband-price" beside broadband = Virgin): its slot is the
// service's own, and no other amount slot may take it.
func PricesService(f Fact, fs []Fact) bool {
	svc, ok := strings.CutSuffix(Kebab(f.Attribute), "-price")
	return ok && slices.ContainsFunc(fs, func(g Fact) bool {
		return g.Subject == f.Subject && !g.Negated && (Kebab(g.Attribute) == svc || Kebab(g.Value) == svc)
	})
}

// readByForm drops a fact read by meaning whose number a surer fact of the same subject
// states under another attribute: "1000 IU a day" is the vitamin D dose, no rate of 1000.
func readByForm(fs []Fact) []Fact {
	sure := func(f Fact) float64 {
		if f.Confidence == 0 {
			return 1 // read by form
		}
		return f.Confidence
	}
	return slices.DeleteFunc(slices.Clone(fs), func(f Fact) bool {
		return f.Confidence > 0 && strings.ContainsAny(f.Value, "0123456789") && slices.ContainsFunc(fs, func(g Fact) bool {
			return sure(g) > sure(f) && g.Subject == f.Subject && g.Attribute != f.Attribute && strings.ContainsAny(g.Value, "0123456789") && SameValue(f.Value, g.Value)
		})
	})
}
