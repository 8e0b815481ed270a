package bench

import (
	"strings"
)

// The benchmarks' own value lists. They are written for the benchmarks, apart from the
// training data of package data, so that no benchmark value was seen in Sentry's
// training pairs.

// person is whom a slot is about, as the user says it and as a question asks it.
type person struct {
	key  string // slot key prefix
	say  string // "my sister"; "I" for the user
	pron string // "she"
	obj  string // "her"
	poss string // "her"
	ask  string // in a question, %s the user's name: "%s's sister"
}

func (p person) self() bool { return p.say == "I" }

var people = []person{
	{"self", "I", "I", "me", "my", "%s"},
	{"sister", "my sister", "she", "her", "her", "%s's sister"},
	{"brother", "my brother", "he", "him", "his", "%s's brother"},
	{"mom", "my mom", "she", "her", "her", "%s's mom"},
	{"dad", "my dad", "he", "him", "his", "%s's dad"},
	{"cousin", "my cousin Nadia", "she", "her", "her", "%s's cousin Nadia"},
	{"roommate", "my roommate Theo", "he", "him", "his", "%s's roommate Theo"},
	{"aunt", "my aunt", "she", "her", "her", "%s's aunt"},
	{"uncle", "my uncle", "he", "him", "his", "%s's uncle"},
	{"friend", "my best friend Priya", "she", "her", "her", "%s's best friend Priya"},
	{"neighbor", "my neighbor Walt", "he", "him", "his", "%s's neighbor Walt"},
	{"grandma", "my grandma", "she", "her", "her", "%s's grandma"},
}

// expandFor fills a template for person p and the user's name. Placeholders:
//
//	{S} {s}      the subject, capitalised or not ("My sister", "I")
//	{Pron} {pron} the subject pronoun
//	{obj} {poss} object and possessive pronouns
//	{P}          the possessive as a sentence start ("My sister's", "My")
//	{p}          the possessive mid-sentence ("my sister's", "my")
//	{who}        the person in a question ("Caroline's sister", "Caroline")
//	{whose}      the possessive in a question ("Caroline's sister's", "Caroline's")
//	{a|b}        a for the user, b for anyone else (verb agreement: {live|lives})
//
// vars fill {name} placeholders of the values.
func expandFor(tpl string, p person, user string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(tpl); {
		if tpl[i] != '{' {
			b.WriteByte(tpl[i])
			i++
			continue
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			b.WriteString(tpl[i:])
			break
		}
		key := tpl[i+1 : i+j]
		i += j + 1
		if a, c, ok := strings.Cut(key, "|"); ok {
			if p.self() {
				b.WriteString(a)
			} else {
				b.WriteString(c)
			}
			continue
		}
		who := strings.ReplaceAll(p.ask, "%s", user)
		switch key {
		case "S":
			b.WriteString(capitalize(p.say))
		case "s":
			b.WriteString(p.say)
		case "Pron":
			b.WriteString(capitalize(p.pron))
		case "pron":
			b.WriteString(p.pron)
		case "obj":
			b.WriteString(p.obj)
		case "poss":
			b.WriteString(p.poss)
		case "P":
			b.WriteString(capitalize(possessive(p)))
		case "p":
			b.WriteString(possessive(p))
		case "who":
			b.WriteString(who)
		case "whose":
			b.WriteString(who + "'s")
		default:
			v, ok := vars[key]
			if !ok {
				v = "{" + key + "}"
			}
			b.WriteString(v)
		}
	}
	return b.String()
}

func possessive(p person) string {
	if p.self() {
		return "my"
	}
	return p.say + "'s"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var jobTitles = []string{
	"nurse", "pharmacist", "librarian", "paramedic", "carpenter", "electrician", "accountant",
	"architect", "dental hygienist", "graphic designer", "translator", "chef", "barista",
	"software tester", "bus driver", "veterinarian", "physiotherapist", "real estate agent",
	"florist", "pilot", "plumber", "journalist", "radiographer", "tax advisor", "mechanic",
	"baker", "surveyor", "data analyst", "zookeeper", "optician", "firefighter", "lab technician",
}

var employers = []string{
	"Mercy General", "Larkfield Pharmacy", "Oakridge Library", "Brightline Transit",
	"Copperleaf Studio", "Northgate Bank", "Halverson Builders", "Bluewater Clinic",
	"Redwood Logistics", "Summit Dental", "Pinecrest Bakery", "Harborview Hotel",
	"Silverline Airlines", "Maple Street Garage", "Kestrel Labs", "Ashford Council",
	"Riverbend Zoo", "Cobalt Analytics", "Wexley Insurance", "Fernhill Veterinary",
	"Granite Peak Realty", "Lumen Optics", "Starling Press", "Ironwood Fire Station",
}

var cities = []string{
	"Denver", "Portland", "Austin", "Boise", "Tucson", "Raleigh", "Omaha", "Spokane",
	"Savannah", "Duluth", "Madison", "Albuquerque", "Sacramento", "Pittsburgh", "Richmond",
	"Burlington", "Anchorage", "Tacoma", "Lexington", "Missoula", "Charleston", "Reno",
	"Eugene", "Knoxville", "Providence", "Halifax", "Calgary", "Winnipeg", "Dublin",
	"Lisbon", "Valencia", "Bergen", "Gdansk", "Leipzig", "Porto", "Tallinn",
}

var partnerNames = []string{
	"Dmitri", "Rosalind", "Ignacio", "Marisol", "Bartholomew", "Ottilie", "Leopold",
	"Anneliese", "Casimir", "Henrietta", "Fitzgerald", "Genevieve", "Ambrose", "Philippa",
	"Thaddeus", "Clementine", "Evander", "Marguerite", "Lysander", "Seraphina", "Cornelius",
	"Winifred", "Percival", "Imogen",
}

// petSpecies all take the article "a".
var petSpecies = []string{
	"dog", "cat", "rabbit", "parrot", "hamster", "tortoise", "ferret", "guinea pig", "gecko",
	"budgie", "chinchilla", "corn snake",
}

var petNames = []string{
	"Biscuit", "Pepper", "Waffles", "Juniper", "Nugget", "Pickles", "Mochi", "Clover",
	"Tofu", "Ziggy", "Marble", "Sprocket", "Noodle", "Basil", "Pumpkin", "Gizmo",
	"Truffle", "Bramble", "Kiwi", "Domino", "Fig", "Cricket", "Maple", "Rocket",
}

// activity is a hobby or a liked thing, with its verb in each form.
type activity struct {
	key   string
	base  string // "play tennis"
	third string // "plays tennis"
}

var hobbies = []activity{
	{"tennis", "play tennis", "plays tennis"},
	{"climbing", "go rock climbing", "goes rock climbing"},
	{"watercolor", "paint watercolors", "paints watercolors"},
	{"yoga", "do yoga", "does yoga"},
	{"swimming", "swim laps", "swims laps"},
	{"chess", "play chess", "plays chess"},
	{"pottery", "make pottery", "makes pottery"},
	{"cycling", "go road cycling", "goes road cycling"},
	{"birdwatching", "go birdwatching", "goes birdwatching"},
	{"kayaking", "go kayaking", "goes kayaking"},
	{"knitting", "knit sweaters", "knits sweaters"},
	{"fencing", "practice fencing", "practices fencing"},
	{"salsa", "dance salsa", "dances salsa"},
	{"archery", "do archery", "does archery"},
	{"bouldering", "go bouldering", "goes bouldering"},
	{"ukulele", "play the ukulele", "plays the ukulele"},
}

var likes = []activity{
	{"sushi", "eat sushi", "eats sushi"},
	{"ramen", "eat ramen", "eats ramen"},
	{"espresso", "drink espresso", "drinks espresso"},
	{"jazz", "listen to jazz", "listens to jazz"},
	{"horror", "watch horror movies", "watches horror movies"},
	{"tacos", "eat tacos", "eats tacos"},
	{"chai", "drink chai", "drinks chai"},
	{"opera", "listen to opera", "listens to opera"},
	{"dumplings", "eat dumplings", "eats dumplings"},
	{"documentaries", "watch nature documentaries", "watches nature documentaries"},
	{"kombucha", "drink kombucha", "drinks kombucha"},
	{"podcasts", "listen to true-crime podcasts", "listens to true-crime podcasts"},
	{"curry", "eat spicy curry", "eats spicy curry"},
	{"anime", "watch anime", "watches anime"},
}

// Frequencies: the broad ones an old state states, the narrow ones (with their scope
// word) a current state states.
var (
	broadFreqs  = []string{"every weekend", "every morning", "three times a week", "every evening", "every day", "four times a week"}
	narrowFreqs = []string{"once a month", "on holidays", "on rainy Sundays", "twice a year", "on birthdays", "when friends visit", "in the summer", "on long weekends"}
)

// numericSlot is a number that changes.
type numericSlot struct {
	key string
	// say states it (v the value); ask asks for it now and before.
	say, now, before string
	min, max, step   int
	format           func(int) string
}

func plain(v int) string { return itoa(v) }
func dollars(v int) string {
	s := itoa(v)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return "$" + s
}

var numericSlots = []numericSlot{
	{"commute", "{P} commute to work takes {v} minutes.", "How long is {whose} commute to work now?", "How long was {whose} commute to work before it changed?", 10, 75, 5, plain},
	{"salary", "{S} {earn|earns} {v} a year.", "How much does {who} earn a year now?", "How much did {who} earn a year before?", 38000, 120000, 1000, dollars},
	{"kids", "{S} {have|has} {v} kids.", "How many kids does {who} have now?", "How many kids did {who} have before?", 2, 7, 1, plain},
	{"run", "{S} {run|runs} {v} km every morning.", "How far does {who} run every morning now?", "How far did {who} run every morning before?", 3, 21, 1, plain},
	{"height", "{P} nephew is {v} cm tall.", "How tall is {whose} nephew now?", "How tall was {whose} nephew before?", 95, 175, 1, plain},
	{"rent", "{P} rent is {v} a month.", "How much is {whose} rent now?", "How much was {whose} rent before it changed?", 700, 3200, 50, dollars},
}

// Templates per category. cue1 states the old value, cue2 the current one.
var (
	jobCue1 = []string{
		"{S} {work|works} as {aTitle} at {employer}.",
		"{S} {have|has} a job as {aTitle} at {employer}.",
		"{S} {am|is} {aTitle} at {employer}, and {pron} {like|likes} the team.",
	}
	jobCue2 = []string{
		"{S} left {oldEmployer} and now {work|works} as {aTitle} at {employer}.",
		"{S} quit {oldEmployer}; {pron} {am|is} {aTitle} at {employer} now.",
		"{S} started a new job as {aTitle} at {employer}.",
	}
	jobNow    = []string{"What is {whose} job now?", "What does {who} do for work now?"}
	jobBefore = []string{"What was {whose} job before the new one?", "What did {who} do for work before changing jobs?"}

	cityCue1 = []string{
		"{S} {live|lives} in {city}.",
		"{S} {have|has} a small apartment in {city}.",
		"{S} {am|is} settled in {city} and {love|loves} the neighborhood.",
	}
	cityCue2 = []string{
		"{S} moved to {city} last month.",
		"{S} relocated from {oldCity} to {city}.",
		"{S} packed up and moved; {pron} {live|lives} in {city} now.",
	}
	cityNow    = []string{"Where does {who} live now?", "Which city does {who} live in these days?"}
	cityBefore = []string{"Where did {who} live before moving?", "Which city did {who} live in before the move?"}

	partnerCue1 = []string{
		"{S} {am|is} dating {partner}.",
		"{S} and {partner} have been together for a while.",
		"{S} {have|has} a partner named {partner}.",
	}
	partnerCue2 = []string{
		"{S} broke up with {oldPartner}, and now {pron} {am|is} seeing {partner}.",
		"{S} and {oldPartner} split up; {pron} {am|is} with {partner} now.",
		"{oldPartner} and {s} are not together anymore; {pron} {am|is} dating {partner} now.",
	}
	partnerNow    = []string{"Who is {who} dating now?", "Who is {whose} partner now?"}
	partnerBefore = []string{"Who was {who} dating before?", "Who was {whose} partner before the breakup?"}

	petCue1 = []string{
		"{S} {have|has} a {species} named {pet}.",
		"{S} {take|takes} care of a {species} called {pet}.",
	}
	petCue2 = []string{
		"{S} rehomed {oldPet} the {oldSpecies} and adopted a {species} named {pet}.",
		"{S} no longer {have|has} {oldPet}; now {pron} {have|has} a {species} called {pet}.",
		"{oldPet} went to live with a neighbor, so {s} got a {species} named {pet}.",
	}
	petNow    = []string{"What pet does {who} have now?", "What kind of pet does {who} have these days?"}
	petBefore = []string{"What pet did {who} have before?", "What kind of pet did {who} have before the new one?"}

	hobbyCue1 = []string{
		"{S} {act} {freq}.",
		"{S} {love|loves} to {base} and {do|does} it {freq}.",
	}
	hobbyCue2 = []string{
		"{S} only {act} {freq} now.",
		"These days {s} only {act} {freq}.",
		"{S} still {act}, but only {freq}.",
	}
	hobbyNow    = []string{"How often does {who} {base} now?"}
	hobbyBefore = []string{"How often did {who} {base} before?"}

	likeCue1 = []string{
		"{S} {love|loves} to {base} and {do|does} it {freq}.",
		"{S} really {like|likes} to {base}, {freq}.",
	}
	likeCue2 = []string{
		"{S} still {like|likes} to {base}, but only {freq} now.",
		"{S} only {act} {freq} these days.",
	}
	likeNow    = []string{"How often does {who} {base} now?"}
	likeBefore = []string{"How often did {who} {base} before?"}
)

// withArticle puts "a" or "an" before a noun phrase.
func withArticle(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}
