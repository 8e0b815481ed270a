package data

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Styles of phrasing families. A family is one style in one category ("job/reported"); a
// held-out style name ("reported") stands for that style in every category.
const (
	StyleDirect    = "direct"    // plain first-person statements
	StyleReported  = "reported"  // reported speech: "My sister says I …"
	StyleRecall    = "recall"    // referring back: "As I told you, …"
	StyleNarrative = "narrative" // a small scene the fact shows through
	StyleCasual    = "casual"    // chat register: lower case, fragments, slang
	StyleImplicit  = "implicit"  // the slot is never named; only implied (ImplicitViolation)
	// StyleEcho is the hard case for a similarity gate: a conflict in the fact's own words
	// with only the value changed, a consistent line restating the fact in other words.
	// Generated only with GenConfig.Echo.
	StyleEcho = "echo"
)

// family is a named group of templates for one category. Templates are plain text with
// {placeholders}; a placeholder written with a capital ({Reporter}) capitalises its value.
// To add a family, append one literal to families: the tests check that every placeholder
// it uses exists and that every category keeps enough templates.
type family struct {
	Category Category
	Style    string
	// Update is the update type of its interactions; empty means the category's own.
	Update      UpdateType
	Consistent  []string
	Conflicting []string
	// fits reports whether the family can talk about a fact; nil means any fact.
	fits func(*genFact) bool
}

func (f *family) name() string { return string(f.Category) + "/" + f.Style }

func (f *family) update() UpdateType {
	if f.Update != "" {
		return f.Update
	}
	return f.Category.UpdateType()
}

func (f *family) templates(r Relation) []string {
	if r == Conflicting {
		return f.Conflicting
	}
	return f.Consistent
}

// Families lists the names of all phrasing families the generator uses (the StyleEcho ones
// only with GenConfig.Echo), sorted.
func Families() []string {
	var names []string
	for _, f := range allFamilies() {
		names = append(names, f.name())
	}
	slices.Sort(names)
	return names
}

// allFamilies are families and echoFamilies.
func allFamilies() []*family {
	var fs []*family
	for _, list := range [][]family{families, echoFamilies} {
		for i := range list {
			fs = append(fs, &list[i])
		}
	}
	return fs
}

// expand fills the placeholders of a template.
func expand(tpl string, vars map[string]string) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			b.WriteString(tpl)
			return b.String(), nil
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			return "", fmt.Errorf("template %q: unclosed {", tpl)
		}
		b.WriteString(tpl[:i])
		key := tpl[i+1 : i+j]
		r, size := utf8.DecodeRuneInString(key)
		upper := unicode.IsUpper(r)
		lookup := string(unicode.ToLower(r)) + key[size:]
		v, ok := vars[lookup]
		if !ok {
			return "", fmt.Errorf("template %q: no value for {%s}", tpl, key)
		}
		if upper {
			v = capitalize(v)
		}
		b.WriteString(v)
		tpl = tpl[i+j+1:]
	}
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

func isDiet(f *genFact) bool { return f.diet != nil }

var families = []family{
	// job: temporal update
	{Category: CategoryJob, Style: StyleDirect,
		Consistent: []string{
			"I work as {a_title} at {employer}.",
			"I'm still {a_title} at {employer}, nothing has changed there.",
			"Being {a_title} at {employer} keeps me busy most days.",
		},
		Conflicting: []string{
			"I left {employer} {when} and now I work as {a_new_title} at {new_employer}.",
			"I started a new job {when}: I'm {a_new_title} at {new_employer} now.",
			"I don't work at {employer} anymore; these days I'm {a_new_title} at {new_employer}.",
		}},
	{Category: CategoryJob, Style: StyleReported,
		Consistent: []string{
			"{Reporter} says I've been at {employer} forever, and honestly I'm still happy there.",
			"{Reporter} keeps telling people I'm the best {title} {employer} has ever had.",
		},
		Conflicting: []string{
			"{Reporter} told everyone I quit {employer} {when} to become {a_new_title} at {new_employer}, and it's true.",
			"{Reporter} still can't believe I'm {a_new_title} at {new_employer} now.",
			"According to {reporter}, {new_employer} got lucky when they hired me as {a_new_title} {when}.",
		}},
	{Category: CategoryJob, Style: StyleRecall,
		Consistent: []string{
			"As I told you, I'm {a_title} at {employer}.",
			"Like I mentioned before, I still work at {employer} as {a_title}.",
		},
		Conflicting: []string{
			"As I told you, I changed jobs {when}: {a_new_title} at {new_employer} now.",
			"Remember how I said I work at {employer}? That's over, I'm at {new_employer} now as {a_new_title}.",
		}},
	{Category: CategoryJob, Style: StyleNarrative,
		Consistent: []string{
			"Long day at {employer} today, the usual chaos of being {a_title}.",
			"Got stuck in a meeting at {employer} again, a typical week for {a_title}.",
		},
		Conflicting: []string{
			"First week at {new_employer} done; being {a_new_title} is so different from my old job.",
			"Cleared out my desk at {employer} {when}, and on Monday I start as {a_new_title} at {new_employer}.",
		}},
	{Category: CategoryJob, Style: StyleCasual,
		Consistent: []string{
			"work at {employer} was fine today, same old {title} stuff",
			"quick one: still {a_title}, still at {employer}, still tired",
		},
		Conflicting: []string{
			"big news, I'm {a_new_title} now!! joined {new_employer} {when}",
			"guess who's the new {new_title} at {new_employer}? me!",
		}},
	{Category: CategoryJob, Style: StyleImplicit, Update: UpdateImplicitViolation,
		Consistent:  implicitJob,
		Conflicting: implicitJob},

	// location: temporal update
	{Category: CategoryLocation, Style: StyleDirect,
		Consistent: []string{
			"I live in {city}.",
			"I'm still living in {city} and I love it.",
			"Home is {city}, same as always.",
		},
		Conflicting: []string{
			"I moved to {new_city} {when}.",
			"I don't live in {city} anymore, I'm in {new_city} now.",
			"We relocated from {city} to {new_city} {when}.",
		}},
	{Category: CategoryLocation, Style: StyleReported,
		Consistent: []string{
			"{Reporter} says I'll never leave {city}, and that's probably right.",
			"{Reporter} came to visit me in {city} last weekend.",
		},
		Conflicting: []string{
			"{Reporter} helped me carry boxes when I moved to {new_city} {when}.",
			"{Reporter} keeps asking why I left {city} for {new_city}.",
		}},
	{Category: CategoryLocation, Style: StyleRecall,
		Consistent: []string{
			"As I told you, I live in {city}.",
			"Like I said, {city} is home for me.",
		},
		Conflicting: []string{
			"As I told you, I moved to {new_city} {when}.",
			"Remember I used to live in {city}? I'm in {new_city} now.",
		}},
	{Category: CategoryLocation, Style: StyleNarrative,
		Consistent: []string{
			"Walked home through {city} in the rain again tonight.",
			"The trains in {city} were a mess this morning, as usual around here.",
		},
		Conflicting: []string{
			"Still unpacking boxes in the new flat in {new_city}.",
			"Spent my first weekend in {new_city} exploring the neighbourhood.",
		}},
	{Category: CategoryLocation, Style: StyleCasual,
		Consistent: []string{
			"{city} weather is being {city} weather again lol",
			"nothing beats a lazy sunday at home in {city}",
		},
		Conflicting: []string{
			"new city, new me: hello {new_city}!",
			"finally signed the lease in {new_city}, bye bye {city}",
		}},
	{Category: CategoryLocation, Style: StyleImplicit, Update: UpdateImplicitViolation,
		Consistent:  implicitLocation,
		Conflicting: implicitLocation},

	// relationship: explicit negation
	{Category: CategoryRelationship, Style: StyleDirect,
		Consistent: []string{
			"My {kind} {partner} and I are doing great.",
			"I'm still with {partner}; we've been together for years.",
			"{Partner} is my {kind}, and that's not changing.",
		},
		Conflicting: []string{
			"{Partner} and I broke up {when}.",
			"I'm not with {partner} anymore.",
			"I'm single now; {partner} and I split up {when}.",
		}},
	{Category: CategoryRelationship, Style: StyleReported,
		Consistent: []string{
			"{Reporter} says {partner} and I are the most annoying couple around.",
			"{Reporter} had dinner with me and {partner} last night.",
		},
		Conflicting: []string{
			"{Reporter} heard that {partner} and I are no longer together, and it's true.",
			"{Reporter} keeps trying to set me up now that {partner} and I are over.",
		}},
	{Category: CategoryRelationship, Style: StyleRecall,
		Consistent: []string{
			"As I told you, {partner} is my {kind}.",
			"Like I mentioned, my {kind} {partner} and I are very happy.",
		},
		Conflicting: []string{
			"As I told you, {partner} and I aren't together anymore.",
			"Remember {partner}? We're not a couple any more.",
		}},
	{Category: CategoryRelationship, Style: StyleNarrative,
		Consistent: []string{
			"{Partner} cooked dinner for me tonight; my {kind} is the best.",
			"{Partner} and I spent the whole weekend hiking together.",
		},
		Conflicting: []string{
			"Moving {partner}'s things out of the flat was harder than I thought.",
			"First birthday in years without a {kind}; {partner} and I are done.",
		}},
	{Category: CategoryRelationship, Style: StyleCasual,
		Consistent: []string{
			"date night with {partner} tonight :)",
			"{partner} says hi btw",
		},
		Conflicting: []string{
			"single life, day 12, still no regrets about {partner}",
			"no {kind} anymore, it's just me now",
		}},

	// pets: explicit negation
	{Category: CategoryPets, Style: StyleDirect,
		Consistent: []string{
			"I have {a_species} called {pet}.",
			"{Pet}, my {species}, is doing great.",
			"I still have my {species} {pet}.",
		},
		Conflicting: []string{
			"I don't have {a_species}.",
			"I don't have any pets, and {pet} was never mine.",
			"I've never owned {a_species} in my life.",
		}},
	{Category: CategoryPets, Style: StyleReported,
		Consistent: []string{
			"{Reporter} says {pet} is the most spoiled {species} in town.",
			"{Reporter} is looking after {pet} while I'm away.",
		},
		Conflicting: []string{
			"{Reporter} thinks I still have {a_species}, but I don't.",
			"{Reporter} took {pet} in for good; I don't have {a_species} anymore.",
		}},
	{Category: CategoryPets, Style: StyleRecall,
		Consistent: []string{
			"As I told you, I have {a_species} named {pet}.",
			"Like I said, {pet} is my {species}.",
		},
		Conflicting: []string{
			"As I told you, I don't have any pets.",
			"Like I said before, there's no {species} in my house.",
		}},
	{Category: CategoryPets, Style: StyleNarrative,
		Consistent: []string{
			"Took {pet} to the vet today; my {species} was so brave.",
			"Woke up to {pet} staring at me again, my {species} wants breakfast at six.",
		},
		Conflicting: []string{
			"The flat feels empty since {pet} went to live with my parents; no {species} for me now.",
			"Gave all of {pet}'s old things to the shelter, I'm not keeping {a_species} anymore.",
		}},
	{Category: CategoryPets, Style: StyleCasual,
		Consistent: []string{
			"{pet} says hi lol",
			"my {species} {pet} just knocked my coffee over",
		},
		Conflicting: []string{
			"no pets here, not even {a_species}",
			"me? {a_species}? nope, never had one",
		}},

	// hobbies: scope mismatch
	{Category: CategoryHobbies, Style: StyleDirect,
		Consistent: []string{
			"I {do_hobby} {often}.",
			"I still {do_hobby} {often}, it's my thing.",
			"{Doing_hobby} {often} is a big part of my life.",
		},
		Conflicting: []string{
			"I only {do_hobby} {rarely} these days.",
			"I don't really {do_hobby} much; {rarely}, if that.",
			"Honestly, {doing_hobby} is something I do {rarely} at most.",
		}},
	{Category: CategoryHobbies, Style: StyleReported,
		Consistent: []string{
			"{Reporter} says I spend way too much time {doing_hobby}, {often} without fail.",
			"{Reporter} joined me {doing_hobby} last weekend; I'm at it {often}.",
		},
		Conflicting: []string{
			"{Reporter} thinks I'm obsessed with {hobby}, but I only {do_hobby} {rarely}.",
			"{Reporter} was surprised to hear I only {do_hobby} {rarely}.",
		}},
	{Category: CategoryHobbies, Style: StyleRecall,
		Consistent: []string{
			"As I told you, I {do_hobby} {often}.",
			"Like I said, {hobby} is how I unwind, {often}.",
		},
		Conflicting: []string{
			"As I told you, {hobby} is just an occasional thing for me, {rarely}.",
			"Like I mentioned, I only {do_hobby} {rarely}.",
		}},
	{Category: CategoryHobbies, Style: StyleNarrative,
		Consistent: []string{
			"Spent the whole Saturday {doing_hobby} again, like I do {often}.",
			"Bought a new {gear}; the old one wore out since I'm at it {often}.",
		},
		Conflicting: []string{
			"Dug out my {gear} for the first time in ages; I only get round to {hobby} {rarely}.",
			"My {hobby} club membership lapsed because I only show up {rarely}.",
		}},
	{Category: CategoryHobbies, Style: StyleCasual,
		Consistent: []string{
			"{hobby} again tonight, obviously",
			"can't wait to {do_hobby} this weekend!!",
		},
		Conflicting: []string{
			"{hobby}? eh, {rarely} if I'm lucky",
			"tbh I barely {do_hobby}, {rarely} at best",
		}},

	// likes/dislikes: scope mismatch
	{Category: CategoryLikes, Style: StyleDirect,
		Consistent: []string{
			"I {feel} {item}.",
			"I really {feel} {item}, always have.",
			"I'm {fan} {item}, no question.",
		},
		Conflicting: []string{
			"I only {feel} {item} {qualifier}.",
			"To be precise, I only {feel} {item} {qualifier}; otherwise I don't care either way.",
			"It's not that I {feel} {item} in general, just {qualifier}.",
		}},
	{Category: CategoryLikes, Style: StyleReported,
		Consistent: []string{
			"{Reporter} says I'm the only person who {feels} {item} this much.",
			"{Reporter} always teases me about how much I {feel} {item}.",
		},
		Conflicting: []string{
			"{Reporter} thinks I {feel} {item} across the board, but really it's only {qualifier}.",
			"{Reporter} was surprised that I only {feel} {item} {qualifier}.",
		}},
	{Category: CategoryLikes, Style: StyleRecall,
		Consistent: []string{
			"As I told you, I {feel} {item}.",
			"Like I said, when it comes to {item}, the answer is {verdict}.",
		},
		Conflicting: []string{
			"As I told you, I only {feel} {item} {qualifier}.",
			"Like I mentioned, I {feel} {item} only {qualifier}, not in general.",
		}},
	{Category: CategoryLikes, Style: StyleNarrative,
		Consistent: []string{
			"Someone brought up {item} at work today and everyone knows I {feel} it.",
			"We were planning the weekend and of course I said {item} was {verdict} for me.",
		},
		Conflicting: []string{
			"Someone at work assumed I {feel} {item} in general; I had to explain it's only {qualifier}.",
			"Ended up explaining at dinner that I {feel} {item} only {qualifier}.",
		}},
	{Category: CategoryLikes, Style: StyleCasual,
		Consistent: []string{
			"still {feel} {item}, no surprise there",
			"{item}? {verdict}",
		},
		Conflicting: []string{
			"{item} only {qualifier}, otherwise meh",
			"ok so turns out i only {feel} {item} {qualifier}",
		}},
	{Category: CategoryLikes, Style: StyleImplicit, Update: UpdateImplicitViolation, fits: isDiet,
		Consistent:  implicitDiet,
		Conflicting: implicitDiet},

	// numerical: value discrepancy
	{Category: CategoryNumerical, Style: StyleDirect,
		Consistent: []string{
			"{Claim}.",
			"Just so you know, {claim}.",
			"For the record, {claim}.",
		},
		Conflicting: []string{
			"{Claim}.",
			"Correction: {claim}, not {old}.",
			"I think I got that wrong earlier; {claim}.",
		}},
	{Category: CategoryNumerical, Style: StyleReported,
		Consistent: []string{
			"{Reporter} reminded me that {claim}, which is right.",
			"{Reporter} always jokes about it, but yes, {claim}.",
		},
		Conflicting: []string{
			"{Reporter} pointed out that {claim}, not {old}.",
			"{Reporter} says {claim}, and after checking, that's right.",
		}},
	{Category: CategoryNumerical, Style: StyleRecall,
		Consistent: []string{
			"As I told you, {claim}.",
			"Like I said before, {claim}.",
		},
		Conflicting: []string{
			"As I told you, {claim}.",
			"Like I said, it's {new}, not {old}.",
		}},
	{Category: CategoryNumerical, Style: StyleNarrative,
		Consistent: []string{
			"Had to fill in a long form at the bank today and wrote down that {claim}.",
			"We were comparing notes at lunch, and {claim}.",
		},
		Conflicting: []string{
			"Had to fill in a long form at the bank today and wrote down that {claim}.",
			"Someone at lunch guessed {old}, but no: {claim}.",
		}},
	{Category: CategoryNumerical, Style: StyleCasual,
		Consistent: []string{
			"fun fact: {claim}",
			"{claim}, if anyone's counting",
		},
		Conflicting: []string{
			"fun fact: {claim}",
			"wait, {claim}, I said it wrong before lol",
		}},
}

// echoFamilies are the StyleEcho families, used with GenConfig.Echo. Their conflicting
// templates repeat the wording of the profile facts' own templates (generate.go) with the
// new value in place of the old; the consistent ones say the same value in other words.
var echoFamilies = []family{
	{Category: CategoryJob, Style: StyleEcho,
		Consistent: []string{
			"still at {employer}, nothing new on the work front",
			"Same job as ever, {employer} hasn't got rid of me yet.",
			"{Employer} is still where I spend my weekdays.",
		},
		Conflicting: []string{
			"I work as {a_new_title} at {new_employer}.",
			"I'm employed at {new_employer} as {a_new_title}.",
			"My job? {A_new_title} at {new_employer}.",
		}},
	{Category: CategoryLocation, Style: StyleEcho,
		Consistent: []string{
			"still in {city}, not going anywhere",
			"{City} is where I call home, same as before.",
			"Yes, I'm based in {city}, that hasn't changed.",
		},
		Conflicting: []string{
			"I live in {new_city}.",
			"My flat is in {new_city}.",
			"I've lived in {new_city} for {years} years.",
		}},
	{Category: CategoryHobbies, Style: StyleEcho,
		Consistent: []string{
			"{doing_hobby} is still a regular thing for me",
			"Still very much into {hobby}, no change there.",
		},
		Conflicting: []string{
			"I {do_hobby} {rarely}.",
			"My favourite hobby is {hobby}; I do it {rarely}.",
			"You'll find me {doing_hobby} {rarely}.",
		}},
	{Category: CategoryNumerical, Style: StyleEcho,
		Consistent: []string{
			"{new}, if you want the exact figure",
			"That's right, {new}.",
		},
		Conflicting: []string{
			"{Claim}.",
			"Just so you know, {claim}.",
		}},
}

// Implicit families use the same wording for both relations: only the implied value differs.
var (
	implicitJob = []string{
		"Spent the whole afternoon {task} again.",
		"Another evening {task}; such is my working life.",
		"My feet hurt from {task} all day.",
	}
	implicitLocation = []string{
		"Jogged past {place} on my way to work this morning.",
		"Took visiting friends to see {place}, it's ten minutes from my place.",
		"The view of {place} from my window never gets old.",
	}
	implicitDiet = []string{
		"Had {dish} for dinner last night, so good.",
		"Ordered {dish} at the new place downtown.",
		"Treated myself to {dish} after work.",
	}
)
