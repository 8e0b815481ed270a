package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/judge"
)

// Defaults of the evaluation set and the SFT set. The seeds differ so that the two draw
// different profiles; the styles differ so that they share no phrasing family.
const (
	DefaultEvalItems      = 151
	DefaultEvalSeed       = 151_2025
	DefaultSFTItems       = 700
	DefaultSFTSeed        = 700_2025
	DefaultImplicitShare  = 0.2
	DefaultUnrelatedShare = 0.12
	DefaultConflictRatio  = 0.6
)

// DefaultEvalStyles are the data package's phrasing styles the evaluation set draws its
// explicit items from; DefaultSFTStyles are the SFT set's. Implicit violations come from
// this package's indirect families in the evaluation set and from the data package's
// implicit families in the SFT set.
var (
	DefaultEvalStyles = []string{data.StyleNarrative, data.StyleCasual}
	DefaultSFTStyles  = []string{data.StyleDirect, data.StyleReported, data.StyleRecall}
)

// StyleIndirect names this package's implicit-violation families ("location/indirect", "likes_dislikes/indirect" for diets),
// written for the evaluation set only.
const StyleIndirect = "indirect"

// Gold is the label of an item: what a correct verdict says.
type Gold struct {
	Status judge.Status       `json:"status"`
	Type   judge.ConflictType `json:"conflict_type"`
	// Action is DefaultAction(Type). For a consistent or unrelated pair keep is gold and
	// coexist counts as correct too (Gold.ActionOK).
	Action judge.Action `json:"action"`
}

// ActionOK reports whether a is a correct action for this gold label.
func (g Gold) ActionOK(a judge.Action) bool {
	if g.Status != judge.StatusConflict && a == judge.ActionCoexist {
		return true
	}
	return a == g.Action
}

// Item is one labelled pair of an evaluation or SFT set.
type Item struct {
	ID   string     `json:"id"`
	Pair judge.Pair `json:"pair"`
	Gold Gold       `json:"gold"`
	// Category is the data category of the old record's slot.
	Category data.Category `json:"category"`
	// Family is the phrasing family of the new input ("job/narrative", "diet/indirect").
	Family string `json:"family"`
	// Implicit marks items from implicit families, conflicting or not.
	Implicit bool `json:"implicit,omitempty"`
	// OldSlot and NewSlot are the slot keys of the old record and of the new input (they
	// differ for unrelated pairs); OldValue and NewValue are their values in short form,
	// NewValue empty when the input states none outright. They write SFT targets; the
	// prompt shows none of them.
	OldSlot  string `json:"old_slot"`
	NewSlot  string `json:"new_slot"`
	OldValue string `json:"old_value"`
	NewValue string `json:"new_value,omitempty"`
}

// Config configures Set. The zero value gives the default 151-item set.
type Config struct {
	// Seed seeds the generator (0: DefaultEvalSeed).
	Seed uint64
	// Items is the number of items (0: DefaultEvalItems).
	Items int
	// Styles are the data phrasing styles of explicit items (nil: DefaultEvalStyles).
	Styles []string
	// ImplicitShare is the share of implicit items, from the indirect families
	// (0: DefaultImplicitShare; negative: none).
	ImplicitShare float64
	// UnrelatedShare is the share of unrelated pairs: an input with a fact of another
	// topic of the same profile (0: DefaultUnrelatedShare; negative: none).
	UnrelatedShare float64
	// ConflictRatio is the share of conflicting items among explicit and among implicit
	// ones (0: DefaultConflictRatio).
	ConflictRatio float64
}

// setSpec is what Set and SFTItems have in common.
type setSpec struct {
	seed                          uint64
	items                         int
	styles                        []string
	implicit, unrelated, conflict float64
	idPrefix                      string
	// dataImplicit draws implicit items from the data package's implicit families rather
	// than this package's indirect ones.
	dataImplicit bool
	exclude      map[string]bool
}

func shareDefault(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func validateSpec(what string, items int, styles []string, implicit, unrelated, conflict float64) error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if items < 0 {
		add("items %d is negative", items)
	}
	known := []string{data.StyleDirect, data.StyleReported, data.StyleRecall, data.StyleNarrative, data.StyleCasual}
	for _, s := range styles {
		if !slices.Contains(known, s) {
			add("style %q is not one of %s", s, strings.Join(known, ", "))
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"implicit share", implicit}, {"unrelated share", unrelated}} {
		if math.IsNaN(f.v) || f.v > 1 {
			add("%s %g is above 1 or not a number", f.name, f.v)
		}
	}
	if !(conflict >= 0 && conflict <= 1) {
		add("conflict ratio %g is outside 0..1", conflict)
	}
	if implicit > 0 && unrelated > 0 && implicit+unrelated > 1 {
		add("implicit and unrelated shares add up to %g, above 1", implicit+unrelated)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s config: %w", what, err)
	}
	return nil
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	return validateSpec("eval set", c.Items, c.Styles, c.ImplicitShare, c.UnrelatedShare, c.ConflictRatio)
}

func (c Config) spec() setSpec {
	s := setSpec{
		seed: c.Seed, items: c.Items, styles: c.Styles, idPrefix: "eval",
		implicit: shareDefault(c.ImplicitShare, DefaultImplicitShare), unrelated: shareDefault(c.UnrelatedShare, DefaultUnrelatedShare),
		conflict: c.ConflictRatio,
	}
	if s.seed == 0 {
		s.seed = DefaultEvalSeed
	}
	if s.items == 0 {
		s.items = DefaultEvalItems
	}
	if s.styles == nil {
		s.styles = DefaultEvalStyles
	}
	if s.conflict == 0 {
		s.conflict = DefaultConflictRatio
	}
	return s
}

// Set builds a held-out audit set with gold labels. Explicit items are interactions of
// the data package written in the configured styles (narrative and casual by default)
// paired with their own slot's fact, conflicts spread evenly over the four update types and
// consistent ones over the seven categories; implicit items are written by this package's
// indirect families, which no training data uses ("I'm vegetarian" vs "grilled a rare
// ribeye", "I don't drink alcohol" vs "opened a bottle of wine with dinner", "I live in
// Paris" vs "my commute from my Berlin flat"), conflicting or consistent; unrelated items
// pair an input with a fact of another topic. The same configuration always gives the same
// items, and no new input appears twice.
func Set(cfg Config) ([]Item, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	items, err := buildSet(cfg.spec())
	if err != nil {
		return nil, fmt.Errorf("build eval set: %w", err)
	}
	return items, nil
}

// conflictGroups are the explicit update types and the categories that carry them.
var conflictGroups = []struct {
	t    data.UpdateType
	cats []data.Category
}{
	{data.UpdateTemporal, []data.Category{data.CategoryJob, data.CategoryLocation}},
	{data.UpdateExplicitNegation, []data.Category{data.CategoryRelationship, data.CategoryPets}},
	{data.UpdateValueDiscrepancy, []data.Category{data.CategoryNumerical}},
	{data.UpdateScopeMismatch, []data.Category{data.CategoryHobbies, data.CategoryLikes}},
}

// builder draws items from one generated dataset.
type builder struct {
	spec  setSpec
	rng   *rand.Rand
	d     *data.Dataset
	profs map[string]*data.Profile
	used  map[string]bool // new-input texts already taken
	pools map[poolKey][]data.Interaction
	out   []Item
}

type poolKey struct {
	cat      data.Category
	rel      data.Relation
	implicit bool
}

// stream separates this package's random stream from others seeded alike.
const stream = 0x6a75646765 // "judge"

func buildSet(s setSpec) ([]Item, error) {
	nImp := int(math.Round(float64(s.items) * s.implicit))
	nUnrel := int(math.Round(float64(s.items) * s.unrelated))
	nExp := s.items - nImp - nUnrel
	gen := data.GenConfig{Seed: s.seed, Interactions: max(1400, 8*s.items)}
	if s.dataImplicit && nImp > 0 {
		gen.ImplicitRate = 0.4
	}
	d, err := data.Generate(gen)
	if err != nil {
		return nil, err
	}
	b := &builder{spec: s, rng: rand.New(rand.NewPCG(s.seed, stream)), d: d, profs: map[string]*data.Profile{},
		used: map[string]bool{}, pools: map[poolKey][]data.Interaction{}}
	for i := range d.Profiles {
		b.profs[d.Profiles[i].ID] = &d.Profiles[i]
	}
	for _, in := range d.Interactions {
		style := styleOf(in.Family)
		implicit := in.UpdateType == data.UpdateImplicitViolation
		if implicit && !s.dataImplicit || !implicit && !slices.Contains(s.styles, style) || s.exclude[in.Text] {
			continue
		}
		k := poolKey{b.factOf(in).Category, in.Relation, implicit}
		b.pools[k] = append(b.pools[k], in)
	}

	nConf := int(math.Round(float64(nExp) * s.conflict))
	if err := b.explicit(nConf, nExp-nConf); err != nil {
		return nil, err
	}
	iConf := int(math.Round(float64(nImp) * s.conflict))
	if s.dataImplicit {
		err = b.dataImplicit(iConf, nImp-iConf)
	} else {
		err = b.indirect(iConf, nImp-iConf)
	}
	if err != nil {
		return nil, err
	}
	if err := b.unrelated(nUnrel); err != nil {
		return nil, err
	}
	b.rng.Shuffle(len(b.out), func(i, j int) { b.out[i], b.out[j] = b.out[j], b.out[i] })
	w := max(3, len(fmt.Sprint(len(b.out))))
	for i := range b.out {
		b.out[i].ID = fmt.Sprintf("%s-%0*d", s.idPrefix, w, i+1)
	}
	return b.out, nil
}

func styleOf(family string) string {
	_, style, _ := strings.Cut(family, "/")
	return style
}

func (b *builder) factOf(in data.Interaction) data.Fact {
	f, _ := b.profs[in.ProfileID].Fact(in.SlotKey)
	return f
}

// take draws an unused interaction from the pool, or reports false.
func (b *builder) take(k poolKey) (data.Interaction, bool) {
	pool := b.pools[k]
	for len(pool) > 0 {
		i := b.rng.IntN(len(pool))
		in := pool[i]
		pool[i] = pool[len(pool)-1]
		pool = pool[:len(pool)-1]
		if !b.used[in.Text] {
			b.pools[k] = pool
			b.used[in.Text] = true
			return in, true
		}
	}
	b.pools[k] = pool
	return data.Interaction{}, false
}

// takeAny draws from the categories in turn starting at the k-th, falling back to the
// others when one runs dry.
func (b *builder) takeAny(cats []data.Category, k int, rel data.Relation, implicit bool) (data.Interaction, error) {
	for j := range cats {
		if in, ok := b.take(poolKey{cats[(k+j)%len(cats)], rel, implicit}); ok {
			return in, nil
		}
	}
	return data.Interaction{}, fmt.Errorf("no %s interactions left in %v (styles %s): ask for fewer items", rel, cats, strings.Join(b.spec.styles, ", "))
}

func (b *builder) explicit(nConf, nCons int) error {
	for i := range nConf {
		g := conflictGroups[i%len(conflictGroups)]
		in, err := b.takeAny(g.cats, i/len(conflictGroups), data.Conflicting, false)
		if err != nil {
			return err
		}
		b.addInteraction(in)
	}
	cats := data.Categories()
	for i := range nCons {
		in, err := b.takeAny(cats, i, data.Consistent, false)
		if err != nil {
			return err
		}
		b.addInteraction(in)
	}
	return nil
}

func (b *builder) dataImplicit(nConf, nCons int) error {
	var cats []data.Category
	for _, c := range data.Categories() {
		if len(b.pools[poolKey{c, data.Conflicting, true}])+len(b.pools[poolKey{c, data.Consistent, true}]) > 0 {
			cats = append(cats, c)
		}
	}
	for i := range nConf + nCons {
		rel := data.Conflicting
		if i >= nConf {
			rel = data.Consistent
		}
		in, err := b.takeAny(cats, i, rel, true)
		if err != nil {
			return err
		}
		b.addInteraction(in)
	}
	return nil
}

// addInteraction adds an interaction paired with its own slot's fact.
func (b *builder) addInteraction(in data.Interaction) {
	f := b.factOf(in)
	it := Item{
		Pair:     judge.Pair{Old: judge.Record{ID: data.FactID(in.ProfileID, f.SlotKey), Text: f.Text}, New: judge.Record{ID: in.ID, Text: in.Text}},
		Category: f.Category, Family: in.Family, Implicit: in.UpdateType == data.UpdateImplicitViolation,
		OldSlot: f.SlotKey, NewSlot: f.SlotKey, OldValue: f.Value, NewValue: in.Value,
	}
	if in.Conflicting() {
		t := judge.ConflictType(in.UpdateType)
		it.Gold = Gold{Status: judge.StatusConflict, Type: t, Action: judge.DefaultAction(t)}
	} else {
		it.Gold = Gold{Status: judge.StatusConsistent, Type: judge.TypeNone, Action: judge.ActionKeep}
		it.NewValue = f.Value
		if it.Implicit {
			it.NewValue = ""
		}
	}
	b.out = append(b.out, it)
}

// unrelated pairs n inputs with a fact of another topic of the same profile.
func (b *builder) unrelated(n int) error {
	cats := data.Categories()
	for range n {
		rel := data.Consistent
		if b.rng.Float64() < b.spec.conflict {
			rel = data.Conflicting
		}
		in, err := b.takeAny(cats, b.rng.IntN(len(cats)), rel, false)
		if err != nil {
			return err
		}
		own := b.factOf(in)
		var others []data.Fact
		for _, f := range b.profs[in.ProfileID].Facts {
			if f.TopicKey != own.TopicKey && f.Category != own.Category {
				others = append(others, f)
			}
		}
		if len(others) == 0 {
			return fmt.Errorf("profile %s has no fact unrelated to %s", in.ProfileID, own.SlotKey)
		}
		f := others[b.rng.IntN(len(others))]
		b.out = append(b.out, Item{
			Pair:     judge.Pair{Old: judge.Record{ID: data.FactID(in.ProfileID, f.SlotKey), Text: f.Text}, New: judge.Record{ID: in.ID, Text: in.Text}},
			Gold:     Gold{Status: judge.StatusUnrelated, Type: judge.TypeNone, Action: judge.ActionKeep},
			Category: f.Category, Family: in.Family,
			OldSlot: f.SlotKey, NewSlot: in.SlotKey, OldValue: f.Value, NewValue: in.Value,
		})
	}
	return nil
}

// indirectFamily is one of this package's implicit-violation families: sentences that
// never state the slot but imply its value. Placeholders: {city}, {employer},
// {the_employer}, {partner}, {pet}, {species}, {when}; a capital first letter capitalises
// the value.
type indirectFamily struct {
	name     string
	category data.Category
	slot     func(data.Fact) bool
	// consistent and conflicting are the templates; for diets they are keyed by the
	// diet's short value.
	consistent, conflicting []string
	byDiet                  map[string][2][]string
}

var indirectFamilies = []indirectFamily{
	{name: "location/" + StyleIndirect, category: data.CategoryLocation,
		slot: func(f data.Fact) bool { return f.Category == data.CategoryLocation },
		consistent: []string{
			"My commute from my {city} flat took forever today.",
			"Heading back to my place in {city} after the gym.",
			"The {city} neighbours are having a party again; I can hear it from my bedroom.",
		},
		conflicting: []string{
			"My commute from my {city} flat took forever today.",
			"Heading back to my place in {city} after the gym.",
			"The {city} neighbours are having a party again; I can hear it from my bedroom.",
		}},
	{name: "job/" + StyleIndirect, category: data.CategoryJob,
		slot: func(f data.Fact) bool { return f.Category == data.CategoryJob },
		consistent: []string{
			"My manager at {employer} wants the quarterly report by Friday.",
			"Covered a colleague's shift at {employer} again today.",
			"{The_employer} summer party was actually fun this year.",
		},
		conflicting: []string{
			"My manager at {employer} wants the quarterly report by Friday.",
			"Covered a colleague's shift at {employer} again today.",
			"{The_employer} summer party was actually fun this year.",
		}},
	{name: "relationship/" + StyleIndirect, category: data.CategoryRelationship,
		slot: func(f data.Fact) bool { return f.Category == data.CategoryRelationship },
		consistent: []string{
			"Booked a table for our anniversary {when}; {partner} will love it.",
			"{Partner} surprised me with breakfast in bed {when}.",
			"Planning a weekend away with {partner}; we decided {when}.",
		},
		conflicting: []string{
			"Went on a first date with someone I met online {when}.",
			"Downloaded a dating app again {when}; the profile photos are wild.",
			"My friends tried to set me up with one of their colleagues {when}.",
		}},
	{name: "pets/" + StyleIndirect, category: data.CategoryPets,
		slot: func(f data.Fact) bool { return f.Category == data.CategoryPets },
		consistent: []string{
			"Bought {pet} a new bed; my {species} ignored it and slept in the box.",
			"Had to leave the party early {when} to feed {pet}.",
			"{Pet} learned to open the kitchen door {when}.",
		},
		conflicting: []string{
			"Signed a lease {when} that forbids pets, which suits me fine.",
			"Finally bought a white velvet sofa {when}, with nothing to feed or walk at home.",
			"Met my new landlord {when}: pets are not allowed in the building, which is no problem for me.",
		}},
	{name: string(data.CategoryLikes) + "/" + StyleIndirect, category: data.CategoryLikes,
		slot: func(f data.Fact) bool { return f.SlotKey == "likes.diet" },
		byDiet: map[string][2][]string{
			"vegetarian": {{
				"Made a big chickpea tagine for the week.",
				"The spinach and ricotta pie at the market was the best part of the day.",
				"Finally tried the aubergine parmigiana everyone raves about.",
			}, {
				"Grilled a rare ribeye for dinner, perfect crust.",
				"The salami pizza at the match was the best part of the day.",
				"My sister made her famous pork dumplings and I ate a dozen.",
				"Finally tried the duck ramen everyone raves about.",
			}},
			"teetotal": {{
				"Had a couple of alcohol-free beers after the match.",
				"A ginger beer is the perfect end to a long week.",
				"We toasted her promotion and I stuck to elderflower cordial.",
			}, {
				"Opened a bottle of wine with dinner last night.",
				"Had a couple of craft beers after the match.",
				"A whisky nightcap is the perfect end to a long week.",
				"We toasted her promotion with prosecco and I had a second glass.",
			}},
			"vegan": {{
				"Made a tofu scramble on toast for breakfast.",
				"Grabbed an oat-milk flat white on the way home.",
				"Had a slice of dairy-free chocolate cake at the office party.",
			}, {
				"Made scrambled eggs on toast for breakfast.",
				"Grabbed a milkshake on the way home.",
				"Had a slice of cheesecake at the office party.",
				"The cheese toastie at the market was the best part of the day.",
			}},
		}},
}

var indirectWhens = []string{"last night", "on Saturday", "yesterday", "this weekend", "after work on Friday", "this morning", "on Sunday"}

// indirect writes nConf conflicting and nCons consistent items from the indirect families,
// taking the families in turn and drawing a profile with a fitting fact for each.
func (b *builder) indirect(nConf, nCons int) error {
	cities, employers := b.valuesOf(data.CategoryLocation), b.valuesOf(data.CategoryJob)
	for i := range nConf + nCons {
		fam := &indirectFamilies[i%len(indirectFamilies)]
		conflict := i < nConf
		var cands []data.Fact
		var owners []string
		for _, p := range b.d.Profiles {
			for _, f := range p.Facts {
				if fam.slot(f) {
					cands = append(cands, f)
					owners = append(owners, p.ID)
				}
			}
		}
		if len(cands) == 0 {
			return fmt.Errorf("no profile has a fact for family %s", fam.name)
		}
		var it Item
		ok := false
		for try := 0; try < 50 && !ok; try++ {
			k := b.rng.IntN(len(cands))
			it, ok = b.indirectItem(fam, cands[k], owners[k], conflict, cities, employers)
		}
		if !ok {
			return fmt.Errorf("family %s: could not write a new text in 50 tries", fam.name)
		}
		b.out = append(b.out, it)
	}
	return nil
}

// valuesOf lists the distinct fact values of a category over all profiles, in order.
func (b *builder) valuesOf(c data.Category) []string {
	var out []string
	for _, p := range b.d.Profiles {
		for _, f := range p.Facts {
			if f.Category == c && !slices.Contains(out, f.Value) {
				out = append(out, f.Value)
			}
		}
	}
	return out
}

func (b *builder) indirectItem(fam *indirectFamily, f data.Fact, owner string, conflict bool, cities, employers []string) (Item, bool) {
	vars := map[string]string{"when": indirectWhens[b.rng.IntN(len(indirectWhens))]}
	newValue := ""
	switch fam.category {
	case data.CategoryLocation:
		city := f.Value
		if conflict {
			city = pickOther(b.rng, cities, f.Value)
			newValue = city
		}
		vars["city"] = city
	case data.CategoryJob:
		_, emp, _ := strings.Cut(f.Value, " at ")
		if conflict {
			var others []string
			for _, e := range employers {
				if _, oe, _ := strings.Cut(e, " at "); oe != emp && !slices.Contains(others, oe) {
					others = append(others, oe)
				}
			}
			emp = others[b.rng.IntN(len(others))]
			newValue = "works at " + emp
		}
		vars["employer"] = emp
		if strings.HasPrefix(strings.ToLower(emp), "the ") {
			vars["the_employer"] = emp
		} else {
			vars["the_employer"] = "the " + emp
		}
	case data.CategoryRelationship, data.CategoryPets:
		name, kind, _ := strings.Cut(f.Value, " (")
		vars["partner"], vars["pet"], vars["species"] = name, name, strings.TrimSuffix(kind, ")")
		if conflict {
			newValue = "single"
			if fam.category == data.CategoryPets {
				newValue = "no " + vars["species"]
			}
		}
	}
	templates := fam.consistent
	if conflict {
		templates = fam.conflicting
	}
	if fam.byDiet != nil {
		ts, ok := fam.byDiet[f.Value]
		if !ok {
			return Item{}, false
		}
		templates = ts[0]
		if conflict {
			templates = ts[1]
		}
	}
	txt := fill(templates[b.rng.IntN(len(templates))], vars)
	if b.used[txt] || b.spec.exclude[txt] {
		return Item{}, false
	}
	b.used[txt] = true
	it := Item{
		Pair:     judge.Pair{Old: judge.Record{ID: data.FactID(owner, f.SlotKey), Text: f.Text}, New: judge.Record{Text: txt}},
		Category: f.Category, Family: fam.name, Implicit: true,
		OldSlot: f.SlotKey, NewSlot: f.SlotKey, OldValue: f.Value, NewValue: newValue,
		Gold: Gold{Status: judge.StatusConsistent, Type: judge.TypeNone, Action: judge.ActionKeep},
	}
	if conflict {
		it.Gold = Gold{Status: judge.StatusConflict, Type: judge.TypeImplicitViolation, Action: judge.DefaultAction(judge.TypeImplicitViolation)}
	}
	return it, true
}

func pickOther(rng *rand.Rand, xs []string, not string) string {
	var others []string
	for _, x := range xs {
		if x != not {
			others = append(others, x)
		}
	}
	return others[rng.IntN(len(others))]
}

// fill expands {name} placeholders; {Name} capitalises the value.
func fill(tpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		j := strings.IndexByte(tpl, '}')
		if i < 0 || j < i {
			b.WriteString(tpl)
			return b.String()
		}
		b.WriteString(tpl[:i])
		key := tpl[i+1 : j]
		v := vars[strings.ToLower(key[:1])+key[1:]]
		if key[:1] != strings.ToLower(key[:1]) {
			v = capitalize(v)
		}
		b.WriteString(v)
		tpl = tpl[j+1:]
	}
}

// capitalize upper-cases the first rune of s.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
