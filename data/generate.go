package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Defaults of GenConfig, as in the paper: 50 profiles of 10 facts, about 1,000 interactions.
const (
	DefaultProfiles        = 50
	DefaultFactsPerProfile = 10
	DefaultInteractions    = 1000
	DefaultConflictRatio   = 0.5
	DefaultNoiseRate       = 0.1
)

// MaxFactsPerProfile is the most facts the generator can give one profile: one job, home and
// partner, two pets, three hobbies, seven likes/dislikes and seven numerical facts.
const MaxFactsPerProfile = 1 + 1 + 1 + maxPets + maxHobbies + maxLikes + maxNumerics

const (
	maxPets     = 2
	maxHobbies  = 3
	maxLikes    = 7 // the six like domains and a diet
	maxNumerics = 7
)

// minFactsPerProfile gives every profile one fact of each category.
const minFactsPerProfile = 7

// GenConfig configures Generate. The zero value means the defaults.
type GenConfig struct {
	// Seed seeds the generator; the same configuration always gives the same dataset.
	Seed uint64
	// Profiles is the number of profiles (0: 50).
	Profiles int
	// FactsPerProfile is the number of facts per profile, 7 to MaxFactsPerProfile (0: 10).
	// Every profile has one fact of each category; the rest go to likes/dislikes, numerical
	// facts, hobbies and pets in turn.
	FactsPerProfile int
	// Interactions is the number of interactions (0: 1,000), spread evenly over the seven
	// categories and over the profiles.
	Interactions int
	// ConflictRatio is the share of conflicting interactions in each category, 0 to 1
	// (0: 0.5).
	ConflictRatio float64
	// NoiseRate is the share of interactions with a filler sentence or chat-style casing
	// added (0: 0.1; negative: none).
	NoiseRate float64
	// ImplicitRate is the share of interactions of the categories that have an implicit
	// family (job, location, likes/dislikes with a diet fact) written in it, with update type
	// ImplicitViolation (0: none).
	ImplicitRate float64
	// Echo adds the StyleEcho families (job, location, hobbies, numerical) to the others.
	Echo bool `json:",omitempty"`
}

func (c GenConfig) withDefaults() GenConfig {
	if c.Profiles == 0 {
		c.Profiles = DefaultProfiles
	}
	if c.FactsPerProfile == 0 {
		c.FactsPerProfile = DefaultFactsPerProfile
	}
	if c.Interactions == 0 {
		c.Interactions = DefaultInteractions
	}
	if c.ConflictRatio == 0 {
		c.ConflictRatio = DefaultConflictRatio
	}
	switch {
	case c.NoiseRate == 0:
		c.NoiseRate = DefaultNoiseRate
	case c.NoiseRate < 0:
		c.NoiseRate = 0
	}
	return c
}

// Validate reports every problem with the configuration at once.
func (c GenConfig) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Profiles < 0 {
		add("profiles %d is negative", c.Profiles)
	}
	if c.FactsPerProfile != 0 && (c.FactsPerProfile < minFactsPerProfile || c.FactsPerProfile > MaxFactsPerProfile) {
		add("facts per profile %d is outside %d..%d", c.FactsPerProfile, minFactsPerProfile, MaxFactsPerProfile)
	}
	if c.Interactions < 0 {
		add("interactions %d is negative", c.Interactions)
	}
	if !(c.ConflictRatio >= 0 && c.ConflictRatio <= 1) {
		add("conflict ratio %g is outside 0..1", c.ConflictRatio)
	}
	if math.IsNaN(c.NoiseRate) || c.NoiseRate > 1 {
		add("noise rate %g is above 1 or not a number", c.NoiseRate)
	}
	if !(c.ImplicitRate >= 0 && c.ImplicitRate <= 1) {
		add("implicit rate %g is outside 0..1", c.ImplicitRate)
	}
	return errors.Join(errs...)
}

// genStream separates the generator's random stream from others seeded with the same seed.
const genStream = 0x6461746167656e // "datagen"

// Generate makes a dataset of synthetic profiles and interactions. Interactions are spread
// evenly over the seven categories and over the profiles, with ConflictRatio of each
// category conflicting; each is written in a phrasing family of its category (recorded in
// Interaction.Family) with values drawn from large pools, and repeated texts are redrawn.
func Generate(cfg GenConfig) (*Dataset, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("generate dataset: %w", err)
	}
	cfg = cfg.withDefaults()
	g := &generator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, genStream)), seen: map[string]bool{}}
	g.profiles()
	if err := g.interactions(); err != nil {
		return nil, fmt.Errorf("generate dataset: %w", err)
	}
	d := &Dataset{Profiles: make([]Profile, len(g.facts)), Interactions: g.out}
	for i, fs := range g.facts {
		d.Profiles[i].ID = g.profileID(i)
		for _, f := range fs {
			d.Profiles[i].Facts = append(d.Profiles[i].Facts, f.Fact)
		}
	}
	return d, nil
}

type generator struct {
	cfg   GenConfig
	rng   *rand.Rand
	facts [][]*genFact // per profile
	out   []Interaction
	seen  map[string]bool
}

// genFact is a generated fact with what interactions about it need: its template values and
// the structured value they came from.
type genFact struct {
	Fact
	vars map[string]string

	job      job
	employer string
	city     city
	kind     string
	species  species
	hobby    hobby
	domain   *likeDomain
	feel     feeling
	item     string
	diet     *diet
	numeric  *numeric
	number   int
}

// feeling is the polarity of a like/dislike fact in its template forms.
type feeling struct {
	Feel, Feels, Fan, Verdict string
}

var (
	feelLove   = feeling{"love", "loves", "a big fan of", "always a yes"}
	feelHate   = feeling{"can't stand", "can't stand", "no fan of", "always a no"}
	feelAvoid  = feeling{"avoid", "avoids", "strict about avoiding", "always a no"}
	dietScopes = []string{"during the week", "at home", "when I'm cooking for myself", "most of the time", "in front of my family"}
)

func (g *generator) pick(n int) int { return g.rng.IntN(n) }

func pickOne[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func width(n int) int { return max(3, len(strconv.Itoa(n))) }

func (g *generator) profileID(i int) string {
	return fmt.Sprintf("p%0*d", width(g.cfg.Profiles), i+1)
}

// profiles draws every profile's facts.
func (g *generator) profiles() {
	g.facts = make([][]*genFact, g.cfg.Profiles)
	for p := range g.facts {
		counts := map[Category]int{}
		for _, c := range categories {
			counts[c] = 1
		}
		caps := map[Category]int{CategoryLikes: maxLikes, CategoryNumerical: maxNumerics, CategoryHobbies: maxHobbies, CategoryPets: maxPets}
		turn := []Category{CategoryLikes, CategoryNumerical, CategoryHobbies, CategoryPets}
		for extra, k := g.cfg.FactsPerProfile-len(categories), 0; extra > 0; k++ {
			c := turn[k%len(turn)]
			if counts[c] < caps[c] {
				counts[c]++
				extra--
			}
		}
		var fs []*genFact
		fs = append(fs, g.jobFact(), g.locationFact(), g.partnerFact())
		fs = append(fs, g.petFacts(counts[CategoryPets])...)
		fs = append(fs, g.hobbyFacts(counts[CategoryHobbies])...)
		fs = append(fs, g.likeFacts(counts[CategoryLikes])...)
		fs = append(fs, g.numericFacts(counts[CategoryNumerical])...)
		g.facts[p] = fs
	}
}

// fact finishes a fact: its text from one of the templates and its vars.
func (g *generator) fact(f *genFact, templates ...string) *genFact {
	f.vars["years"] = strconv.Itoa(2 + g.pick(9))
	text, err := expand(pickOne(g.rng, templates), f.vars)
	if err != nil {
		panic(err) // the templates are fixed and tested
	}
	f.Text = text
	return f
}

// employersIn lists the employers of a field; "" lists them all.
func employersIn(field string) []string {
	var names []string
	for _, e := range employers {
		if field == "" || e.Field == field {
			names = append(names, e.Name)
		}
	}
	return names
}

func (g *generator) jobFact() *genFact {
	j := pickOne(g.rng, jobs)
	emp := pickOne(g.rng, employersIn(j.Field))
	f := &genFact{job: j, employer: emp, vars: map[string]string{
		"title": j.Title, "a_title": withArticle(j.Title), "employer": emp, "task": j.Task,
	}}
	f.Fact = Fact{SlotKey: "job", TopicKey: "work", Category: CategoryJob, Value: j.Title + " at " + emp}
	return g.fact(f,
		"I work as {a_title} at {employer}.",
		"I'm {a_title}; I've been at {employer} for {years} years.",
		"I'm employed at {employer} as {a_title}.",
		"My job? {A_title} at {employer}.")
}

func (g *generator) locationFact() *genFact {
	c := pickOne(g.rng, cities)
	f := &genFact{city: c, vars: map[string]string{"city": c.Name, "country": c.Country, "place": c.Landmark}}
	f.Fact = Fact{SlotKey: "home", TopicKey: "home", Category: CategoryLocation, Value: c.Name}
	return g.fact(f,
		"I live in {city}.",
		"I've lived in {city} for {years} years.",
		"Home for me is {city} in {country}.",
		"My flat is in {city}.")
}

func (g *generator) partnerFact() *genFact {
	name, kind := pickOne(g.rng, femaleNames), pickOne(g.rng, femaleKinds)
	if g.pick(2) == 1 {
		name, kind = pickOne(g.rng, maleNames), pickOne(g.rng, maleKinds)
	}
	f := &genFact{kind: kind, vars: map[string]string{"partner": name, "kind": kind}}
	f.Fact = Fact{SlotKey: "partner", TopicKey: "partner", Category: CategoryRelationship, Value: name + " (" + kind + ")"}
	return g.fact(f,
		"I'm in a relationship with {partner}, my {kind}.",
		"My {kind} is called {partner}.",
		"{Partner} and I have been together for {years} years; {partner} is my {kind}.",
		"I share my life with {partner}, my {kind}.")
}

func (g *generator) petFacts(n int) []*genFact {
	sp := slices.Clone(petSpecies)
	names := slices.Clone(petNames)
	g.rng.Shuffle(len(sp), func(i, j int) { sp[i], sp[j] = sp[j], sp[i] })
	g.rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var fs []*genFact
	for i := range n {
		s, name := sp[i], names[i]
		f := &genFact{species: s, vars: map[string]string{
			"species": s.Name, "a_species": withArticle(s.Name), "pet": name,
		}}
		f.Fact = Fact{SlotKey: fmt.Sprintf("pet.%d", i+1), TopicKey: "pets", Category: CategoryPets, Value: name + " (" + s.Name + ")"}
		fs = append(fs, g.fact(f,
			"I have {a_species} called {pet}.",
			"My {species} {pet} lives with me.",
			"I've had my {species}, {pet}, for {years} years.",
			"{Pet} is my {species}."))
	}
	return fs
}

func (g *generator) hobbyFacts(n int) []*genFact {
	hs := slices.Clone(hobbies)
	g.rng.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
	var fs []*genFact
	for i := range n {
		h, often := hs[i], pickOne(g.rng, hobbyOften)
		f := &genFact{hobby: h, vars: map[string]string{
			"hobby": h.Noun, "do_hobby": h.Verb, "doing_hobby": h.Gerund, "gear": h.Gear, "often": often,
		}}
		f.Fact = Fact{SlotKey: fmt.Sprintf("hobby.%d", i+1), TopicKey: "hobbies", Category: CategoryHobbies, Value: h.Noun + ", " + often}
		fs = append(fs, g.fact(f,
			"I {do_hobby} {often}.",
			"My favourite hobby is {hobby}; I do it {often}.",
			"{Doing_hobby} {often} keeps me sane.",
			"You'll find me {doing_hobby} {often}."))
	}
	return fs
}

func (g *generator) likeFacts(n int) []*genFact {
	// Indices into likeDomains; len(likeDomains) stands for a diet.
	doms := make([]int, len(likeDomains)+1)
	for i := range doms {
		doms[i] = i
	}
	g.rng.Shuffle(len(doms), func(i, j int) { doms[i], doms[j] = doms[j], doms[i] })
	var fs []*genFact
	for _, di := range doms[:n] {
		f := &genFact{vars: map[string]string{}}
		var templates []string
		if di == len(likeDomains) {
			d := &diets[g.pick(len(diets))]
			f.diet, f.feel, f.item = d, feelAvoid, d.Item
			f.Fact = Fact{SlotKey: "likes.diet", TopicKey: "food", Category: CategoryLikes, Value: d.Short}
			templates = d.Facts
		} else {
			dom := &likeDomains[di]
			f.domain, f.item, f.feel = dom, pickOne(g.rng, dom.Items), feelLove
			if g.pick(3) == 0 {
				f.feel = feelHate
			}
			f.Fact = Fact{SlotKey: "likes." + dom.Topic, TopicKey: dom.Topic, Category: CategoryLikes, Value: f.feel.Feels + " " + f.item}
			templates = []string{
				"I {feel} {item}.",
				"When it comes to {topic}, I {feel} {item}.",
				"Honestly, I {feel} {item}.",
				"I'm {fan} {item}.",
			}
			f.vars["topic"] = dom.Topic
		}
		f.vars["item"], f.vars["feel"], f.vars["feels"] = f.item, f.feel.Feel, f.feel.Feels
		f.vars["fan"], f.vars["verdict"] = f.feel.Fan, f.feel.Verdict
		fs = append(fs, g.fact(f, templates...))
	}
	return fs
}

func (g *generator) numericFacts(n int) []*genFact {
	idx := g.rng.Perm(len(numerics))
	var fs []*genFact
	for _, k := range idx[:n] {
		nu := &numerics[k]
		v := nu.Min + g.pick(nu.Max-nu.Min+1)
		f := &genFact{numeric: nu, number: v, vars: map[string]string{"claim": g.claim(nu, v)}}
		f.Fact = Fact{SlotKey: "num." + nu.Slot, TopicKey: nu.Topic, Category: CategoryNumerical, Value: nu.Short(v)}
		fs = append(fs, g.fact(f, "{Claim}.", "For what it's worth, {claim}.", "Just so you know, {claim}."))
	}
	return fs
}

// claim states v in one of the slot's forms, small numbers in words a third of the time.
func (g *generator) claim(nu *numeric, v int) string {
	return pickOne(g.rng, nu.Claims)(v, g.pick(3) == 0)
}

// task is one interaction to write.
type task struct {
	cat      Category
	rel      Relation
	implicit bool
}

// interactions writes cfg.Interactions interactions.
func (g *generator) interactions() error {
	n := g.cfg.Interactions
	var tasks []task
	for ci, c := range categories {
		nc := n / len(categories)
		if ci < n%len(categories) {
			nc++
		}
		nConf := int(math.Round(float64(nc) * g.cfg.ConflictRatio))
		ts := make([]task, nc)
		for i := range ts {
			ts[i] = task{cat: c, rel: Consistent}
			if i < nConf {
				ts[i].rel = Conflicting
			}
		}
		g.rng.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
		if hasImplicit(c) {
			for i := range int(math.Round(float64(nc) * g.cfg.ImplicitRate)) {
				ts[i].implicit = true
			}
		}
		tasks = append(tasks, ts...)
	}
	g.rng.Shuffle(len(tasks), func(i, j int) { tasks[i], tasks[j] = tasks[j], tasks[i] })

	decks := map[familyKey][]int{} // profiles still to visit
	for i, t := range tasks {
		key := familyKey{t.cat, t.implicit}
		if len(decks[key]) == 0 {
			decks[key] = g.eligible(g.familiesFor(key.cat, key.implicit))
		}
		if len(decks[key]) == 0 && t.implicit {
			// No profile has a fact an implicit family can talk about (no diet, say).
			key.implicit, t.implicit = false, false
			if len(decks[key]) == 0 {
				decks[key] = g.eligible(g.familiesFor(key.cat, false))
			}
		}
		fams := g.familiesFor(key.cat, key.implicit)
		p := decks[key][0]
		decks[key] = decks[key][1:]
		in, err := g.interaction(p, t, fams)
		if err != nil {
			return err
		}
		in.ID = fmt.Sprintf("i%0*d", width(n), i+1)
		g.out = append(g.out, in)
	}
	return nil
}

func hasImplicit(c Category) bool { return len(familiesFor(c, true)) > 0 }

// familiesFor lists the families of a category, implicit or not.
func familiesFor(c Category, implicit bool) []*family {
	return familyIndex[familyKey{c, implicit}]
}

// familiesFor lists the families of a category the generator's configuration uses.
func (g *generator) familiesFor(c Category, implicit bool) []*family {
	fams := familiesFor(c, implicit)
	if g.cfg.Echo && !implicit {
		for i := range echoFamilies {
			if f := &echoFamilies[i]; f.Category == c {
				fams = append(fams[:len(fams):len(fams)], f)
			}
		}
	}
	return fams
}

type familyKey struct {
	cat      Category
	implicit bool
}

var familyIndex = func() map[familyKey][]*family {
	m := map[familyKey][]*family{}
	for i := range families {
		f := &families[i]
		k := familyKey{f.Category, f.Style == StyleImplicit}
		m[k] = append(m[k], f)
	}
	return m
}()

// eligible returns, in random order, the profiles with a fact one of the families can talk
// about.
func (g *generator) eligible(fams []*family) []int {
	var ps []int
	for p := range g.facts {
		if len(g.fitting(p, fams)) > 0 {
			ps = append(ps, p)
		}
	}
	g.rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return ps
}

// fitting lists profile p's facts that one of the families can talk about.
func (g *generator) fitting(p int, fams []*family) []*genFact {
	var out []*genFact
	for _, f := range g.facts[p] {
		if f.Category != fams[0].Category {
			continue
		}
		for _, fam := range fams {
			if fam.fits == nil || fam.fits(f) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// maxRedraws bounds the redrawing of a text that was already written.
const maxRedraws = 30

// interaction writes one interaction about a fact of profile p.
func (g *generator) interaction(p int, t task, fams []*family) (Interaction, error) {
	var in Interaction
	for try := 0; ; try++ {
		f := pickOne(g.rng, g.fitting(p, fams))
		var fam *family
		for fam == nil || (fam.fits != nil && !fam.fits(f)) {
			fam = pickOne(g.rng, fams)
		}
		vars, value := g.speak(f, t.rel, t.implicit)
		text, err := expand(pickOne(g.rng, fam.templates(t.rel)), vars)
		if err != nil {
			return Interaction{}, fmt.Errorf("family %s: %w", fam.name(), err)
		}
		text = g.noise(text)
		in = Interaction{
			ProfileID: g.profileID(p), SlotKey: f.SlotKey, Text: text, Relation: t.rel,
			UpdateType: fam.update(), Value: value, Family: fam.name(),
		}
		if !g.seen[text] || try == maxRedraws {
			g.seen[text] = true
			return in, nil
		}
	}
}

// speak draws the template values of an interaction about f with the given relation, and
// the value it asserts ("" when it states none outright).
func (g *generator) speak(f *genFact, rel Relation, implicit bool) (map[string]string, string) {
	vars := make(map[string]string, len(f.vars)+8)
	for k, v := range f.vars {
		vars[k] = v
	}
	vars["reporter"] = pickOne(g.rng, reporters)
	vars["when"] = pickOne(g.rng, whens)
	value := f.Value
	if implicit {
		value = ""
	}
	conflict := rel == Conflicting
	switch f.Category {
	case CategoryJob:
		if implicit {
			if conflict {
				vars["task"] = g.otherJob(func(j job) bool { return j.Field != f.job.Field }).Task
			}
			break
		}
		if conflict {
			j := g.otherJob(func(j job) bool { return j.Title != f.job.Title })
			isOld := func(e string) bool { return e == f.employer }
			emps := slices.DeleteFunc(employersIn(j.Field), isOld)
			if len(emps) == 0 {
				emps = slices.DeleteFunc(employersIn(""), isOld)
			}
			emp := pickOne(g.rng, emps)
			vars["new_title"], vars["a_new_title"], vars["new_employer"] = j.Title, withArticle(j.Title), emp
			value = j.Title + " at " + emp
		}
	case CategoryLocation:
		if conflict {
			c := f.city
			for c.Name == f.city.Name {
				c = pickOne(g.rng, cities)
			}
			vars["new_city"], vars["place"] = c.Name, c.Landmark
			if !implicit {
				value = c.Name
			}
		}
	case CategoryRelationship:
		if conflict {
			value = "single"
		}
	case CategoryPets:
		if conflict {
			value = "no " + f.species.Name
		}
	case CategoryHobbies:
		if conflict {
			rarely := pickOne(g.rng, hobbyRarely)
			vars["rarely"] = rarely
			value = f.hobby.Noun + ", " + rarely
		}
	case CategoryLikes:
		if f.diet != nil {
			if conflict {
				vars["dish"] = pickOne(g.rng, f.diet.Break)
			} else {
				vars["dish"] = pickOne(g.rng, f.diet.Fits)
			}
		}
		if conflict && !implicit {
			scopes := dietScopes
			if f.domain != nil {
				scopes = f.domain.Qualifiers
			}
			q := pickOne(g.rng, scopes)
			vars["qualifier"] = q
			value = f.feel.Feels + " " + f.item + " only " + q
		}
	case CategoryNumerical:
		nu, v := f.numeric, f.number
		if conflict {
			for v == f.number || abs(v-f.number) < nu.MinDelta {
				v = nu.Min + g.pick(nu.Max-nu.Min+1)
			}
			value = nu.Short(v)
		}
		vars["claim"] = g.claim(nu, v)
		vars["old"], vars["new"] = nu.Short(f.number), nu.Short(v)
	}
	return vars, value
}

func (g *generator) otherJob(ok func(job) bool) job {
	for {
		if j := pickOne(g.rng, jobs); ok(j) {
			return j
		}
	}
}

// noise adds, NoiseRate of the time, a filler sentence before or after the text, or writes
// it in chat style (lower-case start, no final full stop).
func (g *generator) noise(text string) string {
	if g.rng.Float64() >= g.cfg.NoiseRate {
		return text
	}
	switch g.pick(3) {
	case 0:
		return pickOne(g.rng, fillersBefore) + " " + text
	case 1:
		return text + " " + pickOne(g.rng, fillersAfter)
	}
	text = strings.TrimSuffix(text, ".")
	r := []rune(text)
	// Keep "I" and names capitalised: only lower a first word that is a common word.
	if len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) && !startsWithName(text) {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}

// startsWithName reports whether text starts with a capitalised word that stays capitalised
// (a name, a city, an employer).
func startsWithName(text string) bool {
	first, _, _ := strings.Cut(text, " ")
	first = strings.TrimSuffix(strings.TrimRight(first, ",;:!?."), "'s")
	for _, lists := range [][]string{femaleNames, maleNames, petNames} {
		if slices.Contains(lists, first) {
			return true
		}
	}
	for _, c := range cities {
		if strings.HasPrefix(text, c.Name) {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func itoa(v int) string { return strconv.Itoa(v) }

// metres writes centimetres as metres: 182 → "1.82".
func metres(cm int) string { return fmt.Sprintf("%d.%02d", cm/100, cm%100) }

var (
	smallWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
	tensWords = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
)

// num writes v in digits, or in words when words is set and v < 100.
func num(v int, words bool) string {
	switch {
	case !words || v < 0 || v >= 100:
		return itoa(v)
	case v < 20:
		return smallWords[v]
	case v%10 == 0:
		return tensWords[v/10]
	}
	return tensWords[v/10] + "-" + smallWords[v%10]
}

// count writes "one kid", "3 kids".
func count(v int, words bool, one, many string) string {
	if v == 1 {
		return num(v, words) + " " + one
	}
	return num(v, words) + " " + many
}

// withArticle puts "a" or "an" before a noun phrase.
func withArticle(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if len(first) > 1 && strings.ToUpper(first) == first {
		// An initialism is read letter by letter: an HR manager, a GP.
		if strings.ContainsRune("AEFHILMNORSX", rune(first[0])) {
			return "an " + s
		}
		return "a " + s
	}
	lower := strings.ToLower(s)
	for _, p := range []string{"uni", "use", "eu", "one "} {
		if strings.HasPrefix(lower, p) {
			return "a " + s
		}
	}
	if strings.HasPrefix(lower, "hour") || strings.HasPrefix(lower, "honest") {
		return "an " + s
	}
	if lower != "" && strings.ContainsRune("aeiou", rune(lower[0])) {
		return "an " + s
	}
	return "a " + s
}
