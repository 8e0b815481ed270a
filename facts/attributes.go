package facts

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// valueKind says what a value of an attribute looks like, so that the offline extractor
// knows what span of the memory to take.
type valueKind int

const (
	kindThing  valueKind = iota // a noun phrase: "vegetarian", "junior data engineer"
	kindPlace                   // a city, street or building: "Porto", "Castle Street"
	kindOrg                     // a company, school or provider: "Fennwick", "Vodafone"
	kindPerson                  // a person's or pet's name: "Sabine", "Miso"
	kindNumber                  // an amount, price or count: "1,450", "40", "500 mg"
	kindTime                    // a clock time: "9:30", "2pm"
	kindDate                    // a date: "March 15", "22 September"
	kindDay                     // a weekday or a set of them: "Fridays", "mon tue thu"
)

// attribute is one row of the attribute table.
type attribute struct {
	name string
	kind valueKind
	// multi marks attributes that hold several values at once (pets, hobbies); the others
	// hold one current value.
	multi bool
	// prototypes are short sentences that state the attribute in different words; the
	// offline extractor matches memories against their embeddings.
	prototypes []string
	// cues are word stems that, present in a clause, add a small bonus to the attribute.
	// They help; the embedding match decides.
	cues []string
	// units, when set, are what an amount of the attribute is said with: a bare number
	// is something else ("4 nights" is no sleep, "bump it up to 20" no dose).
	units *regexp.Regexp
}

// attributes is the offline extractor's attribute table. Single-valued attributes
// (multi false) have one current value, and a new value replaces the old one: home,
// employer, job, manager, partner, diet, car, phone, rent and most others. Multi-valued
// ones hold several values at once until one is negated: pets, hobbies, languages,
// allergies, subscriptions, flatmates, clients, tools, dislikes and likes, conditions,
// medications, offers.
var attributes = []attribute{
	{name: "home", kind: kindPlace, prototypes: []string{"I live in Madrid now", "we moved to a new flat in Bristol", "my home is in the city centre", "first night in our new house in Lyon"}, cues: []string{"live", "living", "moved to", "flat", "house", "apartment", "home"}},
	{name: "address", kind: kindPlace, prototypes: []string{"my address is 12 Oak Street", "our new address is flat 2, 9 Mill Road", "send post to 4 Hill Lane"}, cues: []string{"address", "street", "road", "lane", "avenue"}},
	{name: "employer", kind: kindOrg, prototypes: []string{"I work at Acme Corp", "I started a new job at a bank called Norda", "my company is a small software firm", "first week at my new employer done"}, cues: []string{"work at", "works at", "company", "employer", "started at", "joined", "job at"}},
	{name: "job", kind: kindThing, prototypes: []string{"I'm a nurse", "I work as a software developer", "my job title is senior analyst", "she is a teacher now", "got promoted to lead designer"}, cues: []string{"job", "title", "promoted", "engineer", "developer", "works as", "position", "role"}},
	{name: "manager", kind: kindPerson, prototypes: []string{"my manager is Helen", "my new boss is called Tariq", "I report to Lena now"}, cues: []string{"manager", "boss", "report to"}},
	{name: "team", kind: kindThing, prototypes: []string{"I'm on the payments team", "she moved to the data team at work", "he joined the platform squad"}, cues: []string{"team", "squad", "department"}},
	{name: "office", kind: kindPlace, prototypes: []string{"our office is on King Street", "the office moved to a new building downtown", "I work from the coworking space today"}, cues: []string{"office", "building", "coworking"}},
	{name: "work-location", kind: kindPlace, prototypes: []string{"I work from home on Mondays", "I'm fully remote now", "it's office every day, no remote work"}, cues: []string{"from home", "wfh", "remote", "in the office"}},
	{name: "office-days", kind: kindDay, prototypes: []string{"I go into the office on Tuesdays and Thursdays", "in the office three days a week now"}, cues: []string{"days a week", "go in", "office"}},
	{name: "client", kind: kindOrg, multi: true, prototypes: []string{"my main client is Orbit Media", "I picked up a new client, a design agency", "the contract with that client ended"}, cues: []string{"client", "contract", "retainer"}},
	{name: "rate", kind: kindNumber, prototypes: []string{"my day rate is 400", "I charge 60 an hour now", "my salary is 45k"}, cues: []string{"rate", "salary", "charge", "an hour", "a day", "pay"}},
	{name: "partner", kind: kindPerson, prototypes: []string{"my girlfriend is called Mia", "me and my husband Tom", "I'm seeing someone new, his name is Ravi", "we broke up last month"}, cues: []string{"girlfriend", "boyfriend", "husband", "wife", "partner", "dating", "broke up", "split up"}},
	{name: "flatmate", kind: kindPerson, multi: true, prototypes: []string{"I share a flat with a guy called Omar", "my new housemate moved in", "my roommate moved out"}, cues: []string{"flatmate", "housemate", "roommate", "share a flat", "moved in", "moved out"}},
	{name: "landlord", kind: kindPerson, prototypes: []string{"my landlord is Mr Silva", "the building has a new landlord now", "the landlady lives downstairs"}, cues: []string{"landlord", "landlady", "letting", "lettings"}},
	{name: "pet", kind: kindPerson, multi: true, prototypes: []string{"we have a dog called Rex", "I adopted a kitten named Luna", "my cat sleeps on the sofa all day"}, cues: []string{"cat", "dog", "puppy", "kitten", "pet", "rabbit", "hamster", "rehome", "adopted"}},
	{name: "hobby", kind: kindThing, multi: true, prototypes: []string{"I've taken up pottery", "I play the guitar in my spare time", "my hobby is rock climbing", "I got into knitting"}, cues: []string{"hobby", "taken up", "picked up", "spare time", "play"}},
	{name: "exercise", kind: kindThing, multi: true, prototypes: []string{"I go swimming three times a week", "I play football every Thursday", "I'm doing yoga every morning"}, cues: []string{"swim", "gym", "yoga", "run", "football", "training", "exercise", "workout", "cycling"}},
	{name: "running-distance", kind: kindNumber, units: distanceUnits, prototypes: []string{"I run about 20 km a week", "up to 30 kilometres a week now", "my weekly mileage is 25"}, cues: []string{"km", "kilometres", "miles", "a week", "mileage"}},
	{name: "gym", kind: kindOrg, prototypes: []string{"I joined a gym called FitHub", "I cancelled my gym membership", "I train at the leisure centre gym"}, cues: []string{"gym", "membership"}},
	{name: "diet", kind: kindThing, prototypes: []string{"I'm vegetarian", "I went vegan last year", "I don't eat meat", "I eat everything", "I'm gluten-free now"}, cues: []string{"vegetarian", "vegan", "pescatarian", "meat", "gluten", "eat", "diet", "keto"}},
	{name: "allergy", kind: kindThing, multi: true, prototypes: []string{"I'm allergic to shellfish", "she has a nut allergy", "I found out I'm allergic to cats"}, cues: []string{"allergic", "allergy", "epipen"}},
	{name: "intolerance", kind: kindThing, multi: true, prototypes: []string{"I'm lactose intolerant", "he can't digest dairy", "I have a wheat intolerance"}, cues: []string{"intolerant", "intolerance"}},
	{name: "condition", kind: kindThing, multi: true, prototypes: []string{"I was diagnosed with asthma", "the doctor says it's diabetes", "tests confirmed I have coeliac disease"}, cues: []string{"diagnosed", "diabetes", "condition", "asthma", "coeliac", "ibs", "positive for"}},
	{name: "injury", kind: kindThing, multi: true, prototypes: []string{"I sprained my ankle", "the scan showed a torn ligament", "my back injury has healed"}, cues: []string{"injury", "torn", "sprained", "broke my", "healed", "tore", "hurt"}},
	{name: "medication", kind: kindThing, multi: true, prototypes: []string{"I take ibuprofen every day", "the doctor put me on a new tablet", "I stopped taking the pills"}, cues: []string{"medication", "tablet", "pill", "prescribed", "mg", "taking", "put me on", "supplement"}},
	{name: "dose", kind: kindNumber, units: doseUnits, prototypes: []string{"the dose is 50 mg twice a day", "they doubled his dose to 200 mg", "I'm on 10 mg now"}, cues: []string{"mg", "dose", "doubled"}},
	{name: "doctor", kind: kindPerson, prototypes: []string{"my doctor is Dr Khan", "my physio is a woman called Anna", "I'm seeing a new specialist, Dr Ruiz"}, cues: []string{"doctor", "dr", "physio", "gp", "specialist", "consultant", "dentist", "therapist"}},
	{name: "sleep", kind: kindNumber, units: sleepUnits, prototypes: []string{"I sleep about 7 hours a night", "I'm averaging six hours of sleep", "I wake up at 3am every night"}, cues: []string{"sleep", "hours a night", "snoring", "insomnia"}},
	{name: "caffeine", kind: kindTime, prototypes: []string{"no coffee after 2pm", "I stop caffeine at noon"}, cues: []string{"caffeine", "coffee after", "no coffee"}},
	{name: "drink", kind: kindThing, prototypes: []string{"I drink black coffee every morning", "my usual is a cappuccino", "I switched to green tea", "I don't drink alcohol anymore", "my favourite cocktail is a margarita"}, cues: []string{"coffee", "tea", "drink", "latte", "beer", "wine", "cocktail", "matcha", "flat white", "alcohol"}},
	{name: "food", kind: kindThing, multi: true, prototypes: []string{"I love sushi", "I can't stand mushrooms", "my favourite food is lasagne", "I hate the taste of coriander"}, cues: []string{"love", "hate", "can't stand", "favourite food", "taste", "dislike"}},
	{name: "car", kind: kindThing, prototypes: []string{"I drive a Toyota Yaris", "I sold my car", "we bought a second hand Golf", "I don't have a car"}, cues: []string{"car", "drive", "drove", "honda", "toyota", "golf"}},
	{name: "insurance", kind: kindNumber, prototypes: []string{"my car insurance is 80 a month", "the insurance quote came in at 500 a year"}, cues: []string{"insurance", "quote", "premium"}},
	{name: "phone", kind: kindThing, prototypes: []string{"my phone is a Samsung Galaxy", "I got a new iPhone", "I switched to an Android phone"}, cues: []string{"phone", "iphone", "pixel", "samsung", "android"}},
	{name: "phone-plan", kind: kindOrg, prototypes: []string{"my mobile plan is with O2", "I switched network to Three", "my phone contract is 20 a month"}, cues: []string{"plan", "contract", "network", "sim", "data"}},
	{name: "laptop", kind: kindThing, prototypes: []string{"my laptop is an old ThinkPad", "I bought a new MacBook", "typing this on my new computer"}, cues: []string{"laptop", "macbook", "computer", "thinkpad"}},
	{name: "device", kind: kindThing, prototypes: []string{"my camera is a Canon", "I upgraded my camera body", "I bought new headphones"}, cues: []string{"camera", "headphones", "tablet", "watch", "console"}},
	{name: "subscription", kind: kindOrg, multi: true, prototypes: []string{"I pay for Netflix", "I subscribe to Spotify premium", "I cancelled my Disney+ subscription", "my cloud storage plan is 2TB"}, cues: []string{"subscription", "subscribe", "netflix", "spotify", "icloud", "storage", "cancelled", "premium"}},
	{name: "price", kind: kindNumber, prototypes: []string{"it costs 30 a month", "the price went up to 12.99", "the plan is 5 a month now"}, cues: []string{"price", "cost", "a month", "per month", "£", "$", "€"}},
	{name: "rent", kind: kindNumber, prototypes: []string{"my rent is 900 a month", "the rent is going up to 1,100", "we pay 1,200 in rent"}, cues: []string{"rent"}},
	{name: "bill", kind: kindNumber, prototypes: []string{"the electricity bill is 90 a month", "I pay 40 a month for parking", "the direct debit is 60"}, cues: []string{"bill", "direct debit", "parking", "fee", "a month"}},
	{name: "budget", kind: kindNumber, prototypes: []string{"my budget for groceries is 300 a month", "I'm saving up for a new bike", "I have 500 put aside so far"}, cues: []string{"budget", "saving", "savings", "put aside", "saved"}},
	{name: "provider", kind: kindOrg, prototypes: []string{"our internet is with BT", "we switched energy supplier to EDF", "the broadband provider is Sky"}, cues: []string{"internet", "broadband", "energy", "supplier", "provider", "fibre", "gas", "electric"}},
	{name: "project", kind: kindThing, prototypes: []string{"I'm working on the billing project", "our team is building the new app", "the project moved to a new phase"}, cues: []string{"project", "working on", "building"}},
	{name: "meeting-time", kind: kindTime, prototypes: []string{"the team meeting is at 10am on Mondays", "standup is at 9 every day", "the weekly sync moved to 3pm"}, cues: []string{"standup", "meeting", "sync", "call", "am", "pm"}},
	{name: "room", kind: kindThing, prototypes: []string{"the meeting is in the Blue room", "she's in room 4 on the first floor", "we're in the conference room upstairs"}, cues: []string{"room", "floor"}},
	{name: "owner", kind: kindPerson, prototypes: []string{"Paula runs the weekly meeting", "the sync is run by the product manager", "Jim is in charge of it now"}, cues: []string{"runs", "run by", "in charge", "owner", "handed it over"}},
	{name: "deadline", kind: kindDate, prototypes: []string{"the report is due on May 3rd", "the deadline got pushed to June 10", "assignments are due every Friday"}, cues: []string{"due", "deadline", "pushed"}},
	{name: "tool", kind: kindOrg, multi: true, prototypes: []string{"we write everything in Google Docs", "I use Notion for my notes", "I do the invoicing in QuickBooks", "we switched to Slack"}, cues: []string{"use", "using", "tool", "app", "software", "through", "in"}},
	{name: "school", kind: kindOrg, prototypes: []string{"my son goes to Park Lane primary", "she started at a new school", "the kids' nursery is called Little Stars"}, cues: []string{"school", "primary", "nursery", "kindergarten", "year"}},
	{name: "university", kind: kindOrg, prototypes: []string{"I study at the University of Leeds", "she's at uni in Bristol", "I accepted the place at Manchester"}, cues: []string{"uni", "university", "college", "accepted", "place", "offer"}},
	{name: "course", kind: kindThing, prototypes: []string{"I'm studying economics", "she switched her degree to chemistry", "I enrolled in an online coding course", "my module this term is statistics"}, cues: []string{"course", "degree", "module", "studying", "enrolled", "bootcamp", "certificate", "major"}},
	{name: "teacher", kind: kindPerson, prototypes: []string{"his teacher is Mrs Lee", "my tutor is Dr Adams", "my study partner is called Kim"}, cues: []string{"teacher", "tutor", "professor", "prof", "lecturer", "mentor", "buddy"}},
	{name: "score", kind: kindNumber, prototypes: []string{"I got 7.5 on the test", "her average is 65", "I've finished 3 of 6 modules"}, cues: []string{"score", "grade", "average", "results", "marks", "modules done", "got"}},
	{name: "email", kind: kindThing, prototypes: []string{"my email is sam@example.com", "her new email address is jo@mail.com"}, cues: []string{"email", "@"}},
	{name: "phone-number", kind: kindNumber, prototypes: []string{"my number is 07700 900111", "his phone number is 555 0134", "she has a new mobile number"}, cues: []string{"number", "landline", "mobile", "call"}},
	{name: "contact", kind: kindPerson, prototypes: []string{"my emergency contact is my sister", "I put my friend down as next of kin"}, cues: []string{"emergency contact", "next of kin"}},
	{name: "carer", kind: kindPerson, prototypes: []string{"a carer comes every morning", "the nanny is called Rosa", "our cleaner comes on Fridays"}, cues: []string{"carer", "nanny", "cleaner", "babysitter", "childminder"}},
	{name: "trip-destination", kind: kindPlace, prototypes: []string{"we're going to Rome for our holiday", "the trip is to the mountains in March", "we booked a week in Crete"}, cues: []string{"trip", "holiday", "vacation", "going to", "visit", "heading"}},
	{name: "flight", kind: kindDate, prototypes: []string{"my flight is on June 3rd", "I fly out on the 12th", "we're landing in Paris on Monday"}, cues: []string{"flight", "fly", "flying", "land", "landing", "airport"}},
	{name: "lodging", kind: kindOrg, prototypes: []string{"we booked a hotel by the beach", "I'm staying at the Hilton", "she's staying with her aunt"}, cues: []string{"hotel", "staying", "hostel", "airbnb", "ryokan", "booked", "cabin", "halls"}},
	{name: "event-date", kind: kindDate, prototypes: []string{"the wedding is on June 5th", "the party is next Saturday", "the opening got moved to August"}, cues: []string{"wedding", "party", "opening", "date", "starts", "start"}},
	{name: "schedule", kind: kindDay, prototypes: []string{"bins go out on Tuesday", "practice is on Wednesdays now", "the lessons are on Saturdays at 10"}, cues: []string{"mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays", "day", "every"}},
	{name: "pickup-time", kind: kindTime, prototypes: []string{"school pickup is at 3:15", "she gets out at noon", "the kids finish at 4 on Fridays"}, cues: []string{"pickup", "pick up", "gets out", "lets out", "finish"}},
	{name: "sports-team", kind: kindOrg, prototypes: []string{"I support Liverpool", "he's a lifelong Yankees fan", "she plays for the under 12s"}, cues: []string{"support", "fan", "supports", "club", "plays for"}},
	{name: "favourite", kind: kindPerson, prototypes: []string{"my favourite player is Messi", "my favourite band is Blur", "my favourite driver is Hamilton"}, cues: []string{"favourite", "favorite", "my guy"}},
	{name: "watches", kind: kindThing, multi: true, prototypes: []string{"I watch basketball every weekend", "I follow tennis religiously", "the only show I watch is the news"}, cues: []string{"watch", "season", "follow"}},
	{name: "commute", kind: kindNumber, units: commuteUnits, prototypes: []string{"my commute is 30 minutes", "it takes me an hour to get to work", "it's a 20 minute walk to the office"}, cues: []string{"commute", "minutes", "min", "walk", "tram", "train", "bus"}},
	{name: "password", kind: kindThing, prototypes: []string{"the wifi password is BlueFox99", "I changed the password"}, cues: []string{"password", "wifi"}},
	{name: "kids", kind: kindNumber, prototypes: []string{"I have 3 kids", "we have two children now", "she has a son and a daughter, so 2 kids"}, cues: []string{"kids", "children", "sons", "daughters"}},
	{name: "age", kind: kindNumber, prototypes: []string{"I'm 34 years old", "I turned 40 last week", "my son is 9 now", "she'll be 30 in May"}, cues: []string{"years old", "turned", "birthday", "aged"}},
	{name: "height", kind: kindNumber, units: heightUnits, prototypes: []string{"I am 180 cm tall", "he's grown to 140 cm", "she is five foot four"}, cues: []string{"tall", "cm", "height", "feet tall", "grown"}},
	{name: "language", kind: kindThing, multi: true, prototypes: []string{"I speak Spanish", "I'm learning Japanese", "she is fluent in French"}, cues: []string{"speak", "learning", "fluent", "language"}},
}

// nonFacts are prototypes of memories that state no fact: small talk and one-off events.
var nonFacts = []string{
	"it has rained all day, so grey outside",
	"so tired today lol",
	"what a week, honestly",
	"went to a concert last night, great band",
	"watched a film with friends tonight",
	"had a lovely dinner at my aunt's yesterday",
	"the neighbours are so loud at night",
	"happy friday everyone",
	"I burnt the toast this morning haha",
	"we had a great day at the beach",
	"my mum called me this evening",
	"stuck in traffic for an hour, ugh",
}

// attributeByName finds a row of the table.
func attributeByName(name string) (attribute, bool) {
	for _, a := range attributes {
		if a.name == name {
			return a, true
		}
	}
	return attribute{}, false
}

// doseSuffix names a medicine's own dose slot: "amlodipine-dose" (drugFacts).
const doseSuffix = "-dose"

// NamesItsOwner reports an attribute that names whose thing it is — a medicine's dose,
// "amlodipine-dose" — so that no other slot's name fits it, however near its meaning.
func NamesItsOwner(attr string) bool { return strings.HasSuffix(attr, doseSuffix) }

// openAttribute is an attribute outside the table, its kind of value told by its name's
// last word: a medicine's dose is an amount said with a dose's units, an event's time a
// clock time, its day a weekday, a date a date ("i would kill for an 11 standup" gives
// standup-time no "kill"); any other a thing.
func openAttribute(name string) attribute {
	a := attribute{name: name, kind: kindThing}
	switch {
	case strings.HasSuffix(name, doseSuffix):
		a.kind, a.units = kindNumber, doseUnits
	case strings.HasSuffix(name, "-time"):
		a.kind = kindTime
	case strings.HasSuffix(name, "-day") || strings.HasSuffix(name, "-days"):
		a.kind = kindDay
	case strings.HasSuffix(name, "-date"):
		a.kind = kindDate
	}
	return a
}

// DistinctKinds reports whether two attributes of the table take values of kinds that
// never name one state: a place and an amount (home, running-distance), a name and a
// place (partner, home). Things and organisations are read too loosely to tell ("law" a
// course, "history" read as a home), and an attribute outside the table is unknown:
// neither is distinct from anything.
func DistinctKinds(a, b string) bool {
	x, okx := attributeByName(Kebab(a))
	y, oky := attributeByName(Kebab(b))
	loose := func(k valueKind) bool { return k == kindThing || k == kindOrg }
	return okx && oky && !loose(x.kind) && !loose(y.kind) && x.kind != y.kind
}

// HoldsAmounts reports whether an attribute may hold an amount: one of the table's
// amounts (rent, rate, budget, commute, …) or one outside the table. A person, a place or
// a day holding a number was read wrongly ("my GIS exam is on 12 January" read as a
// supervisor "12").
func HoldsAmounts(attr string) bool {
	attr = Kebab(attr)
	if a, ok := attributeByName(attr); ok {
		return a.kind == kindNumber
	}
	return !roleAttrs[attr] // a role is held by a person
}

// ValueFits reports whether v may be a value of attr as far as its kind goes. An
// attribute outside the table named as one that holds a date or a day
// ("passport-expiry", "wedding-date", "bin-day") holds only a date, a day, a clock time
// or a year ("switched to the Deutschlandticket" is no passport expiry); an amount of
// the table, a medicine's dose and a service's price ("atorvastatin-dose",
// "broadband-price") only a value with a number in it ("practice nurse" is no dose);
// any other attribute any value.
func ValueFits(attr, v string) bool {
	attr = Kebab(attr)
	a, known := attributeByName(attr)
	if known && a.kind == kindNumber || strings.HasSuffix(attr, doseSuffix) || strings.HasSuffix(attr, "-price") {
		return strings.ContainsFunc(v, unicode.IsDigit) || slices.ContainsFunc(strings.Fields(strings.ToLower(v)), func(w string) bool { return numberWords[w] })
	}
	if known || !datedSuffix.MatchString(attr) {
		return true
	}
	return typedKind(v) != nil || isYear(strings.TrimSpace(v))
}

// datedSuffix ends the name of an attribute that holds a date or a day.
var datedSuffix = regexp.MustCompile(`(?:^|-)(?:expiry|date|day|days)$`)

// roleAttrs are the attributes the roles name (manager, supervisor, cleaner, …).
var roleAttrs = func() map[string]bool {
	m := map[string]bool{}
	for _, a := range roles {
		m[a] = true
	}
	return m
}()

// multiSuffixes name multi-valued attributes outside the table by their last word.
var multiSuffixes = []string{"pet", "pets", "hobby", "hobbies", "language", "languages", "allergy", "allergies", "subscription", "subscriptions", "flatmate", "flatmates", "client", "clients", "tool", "tools", "likes", "dislikes", "offer", "offers", "medication", "medications", "condition", "conditions", "intolerance", "intolerances", "cloud-storage", "research-tool", "exercise", "watches", "watches-sport", "named"}

// SingleValued reports whether attribute holds one current value (home, employer,
// manager, partner, job, diet, car, rent, …: a new value replaces the old one) rather than
// several at once (pets, hobbies, languages, allergies, subscriptions, flatmates, clients,
// tools, likes and dislikes, conditions, medications: a new value joins the others until
// one is negated). Attributes outside the offline extractor's table are single-valued
// unless their name ends in one of the multi-valued names ("research-tool", "dog-pets").
func SingleValued(attr string) bool {
	attr = Kebab(attr)
	if a, ok := attributeByName(attr); ok {
		return !a.multi
	}
	for _, s := range multiSuffixes {
		if attr == s || len(attr) > len(s) && attr[len(attr)-len(s)-1:] == "-"+s {
			return false
		}
	}
	return true
}

// genericWords name what kind of value an attribute holds, not what it is about:
// "insurance-provider" is about insurance, "bin-day" about bins.
var genericWords = wordSet(`day days time date provider company name number level status tier type plan app account favourite favorite fave current main new old usual
	contribution amount percentage percent`)

// SharesTopic reports whether two attributes name the same thing in other words: their
// heads, the last word that is not generic, are one ("travel-insurance" and
// "insurance-provider"; not "pension-contribution" and "pension-provider", nor "gym-fee"
// and "gym"), and their generic words, when both have one, agree ("bin-day" and
// "bin-time" do not).
func SharesTopic(a, b string) bool {
	if Kebab(a) == Kebab(b) || DistinctKinds(a, b) {
		return false
	}
	split := func(attr string) (head string, generic []string) {
		for _, w := range strings.Split(Kebab(attr), "-") {
			if genericWords[w] {
				generic = append(generic, w)
			} else {
				head = w
			}
		}
		return head, generic
	}
	ha, ga := split(a)
	hb, gb := split(b)
	if len(ga) > 0 && len(gb) > 0 && !slices.Equal(ga, gb) {
		return false
	}
	return len(ha) > 2 && singular(ha) == singular(hb) // "seminars" and "seminar-day"
}
