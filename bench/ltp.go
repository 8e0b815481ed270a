package bench

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/atma-dev/atma/data"
)

// LTP defaults (seed 000: 10 profiles × 40 units, two probes each).
const (
	DefaultLTPProfiles = 10
	DefaultLTPUnits    = 40
	// MaxLTPUnits is the most units a profile can hold: six slot instances of each of
	// the seven categories (there are six numerical slots).
	MaxLTPUnits = 42
)

// Replay windows: cue1 events go between these quantiles of the conversation's time
// line, cue2 events between the next two.
const (
	Cue1From, Cue1To = 0.12, 0.42
	Cue2From, Cue2To = 0.58, 0.88
)

// LTPConfig configures BuildLTP. The zero value is the paper's seed 000.
type LTPConfig struct {
	// Profiles is the number of profiles, each bound to one conversation in file order
	// (0: 10).
	Profiles int
	// Units is the number of mutable slot instances per profile (0: 40), spread over the
	// seven categories in turn.
	Units int
	// Seed draws values, templates and cue positions.
	Seed uint64
	// MaxTurns keeps only the first MaxTurns turns of each conversation (0: all), to
	// shorten a run; the cue windows follow the shortened time line.
	MaxTurns int
}

// Validate reports every problem with c.
func (c LTPConfig) Validate() error {
	var errs []error
	if c.Profiles < 0 {
		errs = append(errs, fmt.Errorf("profiles %d is negative", c.Profiles))
	}
	if c.Units < 0 || c.Units > MaxLTPUnits {
		errs = append(errs, fmt.Errorf("units %d is outside 0..%d", c.Units, MaxLTPUnits))
	}
	if c.MaxTurns < 0 {
		errs = append(errs, fmt.Errorf("max turns %d is negative", c.MaxTurns))
	}
	if c.MaxTurns > 0 && c.MaxTurns < minLTPTurns {
		errs = append(errs, fmt.Errorf("max turns %d leaves no room for the cue windows (at least %d)", c.MaxTurns, minLTPTurns))
	}
	return errors.Join(errs...)
}

// minLTPTurns is the shortest conversation whose cue windows are not empty.
const minLTPTurns = 10

func (c LTPConfig) withDefaults() LTPConfig {
	if c.Profiles == 0 {
		c.Profiles = DefaultLTPProfiles
	}
	if c.Units == 0 {
		c.Units = DefaultLTPUnits
	}
	return c
}

// EventKind says where a replay event comes from.
type EventKind string

// Event kinds.
const (
	EventTurn EventKind = "turn" // an original turn of the conversation
	EventCue1 EventKind = "cue1" // a unit's old state, said by the user
	EventCue2 EventKind = "cue2" // a unit's current state, said by the user
	// EventState is a TEM persona's statement of an attribute's value.
	EventState EventKind = "state"
)

// Event is one memory of a replay.
type Event struct {
	ID      string    `json:"id"`
	Kind    EventKind `json:"kind"`
	Speaker string    `json:"speaker"`
	Text    string    `json:"text"`
	Time    time.Time `json:"time"`
	// Pos is the event's place in the replay, from 0.
	Pos int `json:"pos"`
	// DiaID is the original turn's id; empty for cues.
	DiaID string `json:"dia_id,omitempty"`
	// Unit is the cue's unit (a TEM state statement's attribute); empty for turns.
	Unit    string `json:"unit,omitempty"`
	Caption string `json:"caption,omitempty"`
}

func (e Event) turn() Turn { return Turn{Speaker: e.Speaker, Text: e.Text, Caption: e.Caption} }

// State is which state of a unit a probe asks about.
type State string

// States.
const (
	StateOld     State = "old"
	StateCurrent State = "current"
)

// ProbeKind is the LTP probe type.
type ProbeKind string

// Probe kinds.
const (
	// ProbeFact is fact recall: it asks for the old state.
	ProbeFact ProbeKind = "fact_recall"
	// ProbeConflict is conflict-aware: it asks for the current state.
	ProbeConflict ProbeKind = "conflict_aware"
)

// Unit is one mutable slot instance: an old value stated by cue1 and a current value
// stated by cue2.
type Unit struct {
	ID       string          `json:"id"`
	Profile  string          `json:"profile"`
	Category data.Category   `json:"category"`
	Update   data.UpdateType `json:"update_type"`
	// Slot names the slot instance ("sister.location").
	Slot string `json:"slot"`
	// Old and New are the key values of the two states, as the probes' gold answers.
	Old  string `json:"old"`
	New  string `json:"new"`
	Cue1 string `json:"cue1"` // event id
	Cue2 string `json:"cue2"` // event id
}

// Probe is one LTP question.
type Probe struct {
	ID       string        `json:"id"`
	Profile  string        `json:"profile"`
	Unit     string        `json:"unit"`
	Category data.Category `json:"category"`
	Kind     ProbeKind     `json:"kind"`
	Target   State         `json:"target"`
	Question string        `json:"question"`
	// Gold is the key value of the target state; Other that of the other state.
	Gold  string `json:"gold"`
	Other string `json:"other"`
}

// Profile is one LTP profile: a conversation's replay with the units' cues inserted.
type Profile struct {
	ID           string  `json:"id"`
	Conversation string  `json:"conversation"`
	User         string  `json:"user"`
	Other        string  `json:"other"`
	Events       []Event `json:"events"`
	// Turns is the number of original turns kept.
	Turns int `json:"turns"`
}

// LTP is a built benchmark: profiles with their replays, units and probes.
type LTP struct {
	Config   LTPConfig `json:"config"`
	Profiles []Profile `json:"profiles"`
	Units    []Unit    `json:"units"`
	Probes   []Probe   `json:"probes"`
}

// ltpStream separates the builder's random stream from others drawn from the same seed.
const ltpStream = 0x6c7470 // "ltp"

// BuildLTP builds the LTP-style benchmark from LoCoMo-format conversations: profile i is
// bound to conversation i, gets cfg.Units slot instances over the seven categories (the
// update type follows the category), and a replay of the conversation (sessions by
// time) with each unit's cue1 inserted as a user turn between the 0.12 and 0.42 time
// quantiles and its cue2 between 0.58 and 0.88; the original tail after the last cue
// is kept. Each unit has a fact-recall probe (old state) and a conflict-aware probe
// (current state). The result passes Validate, or the error says what failed. The same
// conversations and config give the same benchmark.
func BuildLTP(convs []Conversation, cfg LTPConfig) (*LTP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("ltp config: %w", err)
	}
	cfg = cfg.withDefaults()
	if len(convs) < cfg.Profiles {
		return nil, fmt.Errorf("build ltp: %d profiles need as many conversations, the file has %d", cfg.Profiles, len(convs))
	}
	l := &LTP{Config: cfg}
	for i := range cfg.Profiles {
		rng := rand.New(rand.NewPCG(cfg.Seed, ltpStream+uint64(i)))
		p, units, probes, err := buildProfile(fmt.Sprintf("p%02d", i+1), &convs[i], cfg, rng)
		if err != nil {
			return nil, fmt.Errorf("build ltp: profile %d (%s): %w", i+1, convs[i].ID, err)
		}
		l.Profiles = append(l.Profiles, p)
		l.Units = append(l.Units, units...)
		l.Probes = append(l.Probes, probes...)
	}
	if r := l.Validate(); !r.OK() {
		return nil, fmt.Errorf("build ltp: %w", r.Err())
	}
	return l, nil
}

// categoryOrder is the order units are dealt to categories.
var categoryOrder = []data.Category{
	data.CategoryJob, data.CategoryLocation, data.CategoryRelationship, data.CategoryPets,
	data.CategoryHobbies, data.CategoryLikes, data.CategoryNumerical,
}

// draw picks items of xs without replacement, in a shuffled order; once all are drawn it
// starts over with a new shuffle. The vocabularies hold more than one profile or persona
// needs at the configured maxima, so within one they never repeat.
type draw[T any] struct {
	rng  *rand.Rand
	all  []T
	left []T
}

func newDraw[T any](rng *rand.Rand, xs []T) *draw[T] {
	d := &draw[T]{rng: rng, all: xs}
	d.refill()
	return d
}

func (d *draw[T]) refill() {
	d.left = slices.Clone(d.all)
	d.rng.Shuffle(len(d.left), func(i, j int) { d.left[i], d.left[j] = d.left[j], d.left[i] })
}

func (d *draw[T]) next() T {
	if len(d.left) == 0 {
		d.refill()
	}
	x := d.left[0]
	d.left = d.left[1:]
	return x
}

// unitDraft is a unit before its cues are placed.
type unitDraft struct {
	unit                 Unit
	cue1, cue2           string
	questionNow, questBf string
}

func buildProfile(id string, c *Conversation, cfg LTPConfig, rng *rand.Rand) (Profile, []Unit, []Probe, error) {
	p := Profile{ID: id, Conversation: c.ID, User: c.SpeakerA, Other: c.SpeakerB}
	turns := c.Timeline()
	if cfg.MaxTurns > 0 && len(turns) > cfg.MaxTurns {
		turns = turns[:cfg.MaxTurns]
	}
	if len(turns) < minLTPTurns {
		return p, nil, nil, fmt.Errorf("conversation has %d turns, fewer than %d", len(turns), minLTPTurns)
	}
	p.Turns = len(turns)

	perCat := map[data.Category]int{}
	for i := range cfg.Units {
		perCat[categoryOrder[i%len(categoryOrder)]]++
	}
	d := drafter{
		rng: rng, user: c.SpeakerA,
		titles: newDraw(rng, jobTitles), employers: newDraw(rng, employers), cities: newDraw(rng, cities),
		partners: newDraw(rng, partnerNames), petNames: newDraw(rng, petNames),
		hobbies: newDraw(rng, hobbies), likes: newDraw(rng, likes), numerics: newDraw(rng, numericSlots),
	}
	var drafts []unitDraft
	for _, cat := range categoryOrder {
		who := newDraw(rng, people)
		for range perCat[cat] {
			ud, err := d.unit(cat, who.next())
			if err != nil {
				return p, nil, nil, err
			}
			drafts = append(drafts, ud)
		}
	}
	// Deal units in a random order so the replay does not follow the categories.
	rng.Shuffle(len(drafts), func(i, j int) { drafts[i], drafts[j] = drafts[j], drafts[i] })

	n := len(turns)
	window := func(from, to float64) (int, int) {
		lo, hi := int(math.Ceil(from*float64(n))), int(math.Floor(to*float64(n)))
		return lo, max(lo, hi)
	}
	lo1, hi1 := window(Cue1From, Cue1To)
	lo2, hi2 := window(Cue2From, Cue2To)
	// inserts[i] are the cues that go before original turn i.
	inserts := make([][]Event, n+1)
	var units []Unit
	var probes []Probe
	for k, ud := range drafts {
		u := ud.unit
		u.ID = fmt.Sprintf("%s-u%02d", id, k+1)
		u.Profile = id
		at1 := lo1 + rng.IntN(hi1-lo1+1)
		at2 := lo2 + rng.IntN(hi2-lo2+1)
		inserts[at1] = append(inserts[at1], Event{Kind: EventCue1, Speaker: c.SpeakerA, Text: ud.cue1, Unit: u.ID})
		inserts[at2] = append(inserts[at2], Event{Kind: EventCue2, Speaker: c.SpeakerA, Text: ud.cue2, Unit: u.ID})
		units = append(units, u)
		probes = append(probes,
			Probe{ID: u.ID + "-fact", Profile: id, Unit: u.ID, Category: u.Category, Kind: ProbeFact, Target: StateOld, Question: ud.questBf, Gold: u.Old, Other: u.New},
			Probe{ID: u.ID + "-conflict", Profile: id, Unit: u.ID, Category: u.Category, Kind: ProbeConflict, Target: StateCurrent, Question: ud.questionNow, Gold: u.New, Other: u.Old},
		)
	}
	byUnit := map[string]*Unit{}
	for i := range units {
		byUnit[units[i].ID] = &units[i]
	}
	add := func(e Event) {
		e.Pos = len(p.Events)
		e.ID = fmt.Sprintf("%s-e%04d", id, e.Pos)
		switch e.Kind {
		case EventCue1:
			byUnit[e.Unit].Cue1 = e.ID
		case EventCue2:
			byUnit[e.Unit].Cue2 = e.ID
		}
		p.Events = append(p.Events, e)
	}
	for i := 0; i <= n; i++ {
		// A cue is said just after the turn before it, a little apart from the next cue.
		base := turns[0].Time.Add(-time.Minute)
		if i > 0 {
			base = turns[i-1].Time
		}
		for j, e := range inserts[i] {
			e.Time = base.Add(time.Duration(j+1) * 100 * time.Millisecond)
			add(e)
		}
		if i < n {
			t := turns[i]
			add(Event{Kind: EventTurn, Speaker: t.Speaker, Text: t.Text, Caption: t.Caption, Time: t.Time, DiaID: t.DiaID})
		}
	}
	return p, units, probes, nil
}

// drafter writes units: values, cue texts and questions.
type drafter struct {
	rng                                           *rand.Rand
	user                                          string
	titles, employers, cities, partners, petNames *draw[string]
	hobbies, likes                                *draw[activity]
	numerics                                      *draw[numericSlot]
}

func (d *drafter) pick(xs []string) string { return xs[d.rng.IntN(len(xs))] }

func (d *drafter) unit(cat data.Category, who person) (unitDraft, error) {
	vars := map[string]string{}
	var ud unitDraft
	ud.unit.Category, ud.unit.Update = cat, cat.UpdateType()
	var cue1, cue2, now, before []string
	switch cat {
	case data.CategoryJob:
		t1, t2 := d.titles.next(), d.titles.next()
		e1, e2 := d.employers.next(), d.employers.next()
		ud.unit.Slot, ud.unit.Old, ud.unit.New = who.key+".job", t1, t2
		vars["aTitle"], vars["employer"], vars["oldEmployer"] = withArticle(t1), e1, e1
		ud.cue1 = expandFor(d.pick(jobCue1), who, d.user, vars)
		vars["aTitle"], vars["employer"] = withArticle(t2), e2
		cue2, now, before = jobCue2, jobNow, jobBefore
	case data.CategoryLocation:
		c1, c2 := d.cities.next(), d.cities.next()
		ud.unit.Slot, ud.unit.Old, ud.unit.New = who.key+".location", c1, c2
		vars["city"], vars["oldCity"] = c1, c1
		ud.cue1 = expandFor(d.pick(cityCue1), who, d.user, vars)
		vars["city"] = c2
		cue2, now, before = cityCue2, cityNow, cityBefore
	case data.CategoryRelationship:
		n1, n2 := d.partners.next(), d.partners.next()
		ud.unit.Slot, ud.unit.Old, ud.unit.New = who.key+".partner", n1, n2
		vars["partner"], vars["oldPartner"] = n1, n1
		ud.cue1 = expandFor(d.pick(partnerCue1), who, d.user, vars)
		vars["partner"] = n2
		cue2, now, before = partnerCue2, partnerNow, partnerBefore
	case data.CategoryPets:
		s1 := petSpecies[d.rng.IntN(len(petSpecies))]
		s2 := s1
		for s2 == s1 {
			s2 = petSpecies[d.rng.IntN(len(petSpecies))]
		}
		p1, p2 := d.petNames.next(), d.petNames.next()
		ud.unit.Slot, ud.unit.Old, ud.unit.New = who.key+".pet", s1, s2
		vars["species"], vars["pet"], vars["oldSpecies"], vars["oldPet"] = s1, p1, s1, p1
		ud.cue1 = expandFor(d.pick(petCue1), who, d.user, vars)
		vars["species"], vars["pet"] = s2, p2
		cue2, now, before = petCue2, petNow, petBefore
	case data.CategoryHobbies, data.CategoryLikes:
		var a activity
		if cat == data.CategoryHobbies {
			a = d.hobbies.next()
			cue1, cue2, now, before = hobbyCue1, hobbyCue2, hobbyNow, hobbyBefore
		} else {
			a = d.likes.next()
			cue1, cue2, now, before = likeCue1, likeCue2, likeNow, likeBefore
		}
		f1, f2 := d.pick(broadFreqs), d.pick(narrowFreqs)
		ud.unit.Slot, ud.unit.Old, ud.unit.New = who.key+"."+string(cat)+"."+a.key, f1, f2
		vars["base"], vars["freq"] = a.base, f1
		vars["act"] = a.third
		if who.self() {
			vars["act"] = a.base
		}
		ud.cue1 = expandFor(d.pick(cue1), who, d.user, vars)
		vars["freq"] = f2
	case data.CategoryNumerical:
		ns := d.numerics.next()
		steps := (ns.max - ns.min) / ns.step
		v1 := ns.min + d.rng.IntN(steps+1)*ns.step
		v2 := v1
		for v2 == v1 {
			v2 = ns.min + d.rng.IntN(steps+1)*ns.step
		}
		ud.unit.Slot, ud.unit.Old, ud.unit.New = who.key+".num."+ns.key, ns.format(v1), ns.format(v2)
		vars["v"] = ns.format(v1)
		ud.cue1 = expandFor(ns.say, who, d.user, vars)
		vars["v"] = ns.format(v2)
		// The current value is stated as an update of the same sentence.
		say := ns.say[:len(ns.say)-1] + " now."
		cue2, now, before = []string{say}, []string{ns.now}, []string{ns.before}
	default:
		return ud, fmt.Errorf("unknown category %q", cat)
	}
	ud.cue2 = expandFor(d.pick(cue2), who, d.user, vars)
	ud.questionNow = expandFor(d.pick(now), who, d.user, vars)
	ud.questBf = expandFor(d.pick(before), who, d.user, vars)
	return ud, nil
}

func itoa(v int) string { return strconv.Itoa(v) }
