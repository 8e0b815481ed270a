package data

// Value pools of the generator. Employers and people are invented; cities and landmarks are
// real so that implicit statements ("jogged past the Space Needle") carry information.

type city struct {
	Name, Country, Landmark string
}

var cities = []city{
	{"Berlin", "Germany", "the Brandenburg Gate"},
	{"Hamburg", "Germany", "the Elbphilharmonie"},
	{"Munich", "Germany", "the Marienplatz glockenspiel"},
	{"Lisbon", "Portugal", "the Belém Tower"},
	{"Porto", "Portugal", "the Dom Luís bridge"},
	{"Madrid", "Spain", "the Retiro park"},
	{"Barcelona", "Spain", "the Sagrada Família"},
	{"Valencia", "Spain", "the City of Arts and Sciences"},
	{"Paris", "France", "the Eiffel Tower"},
	{"Lyon", "France", "the Fourvière basilica"},
	{"Marseille", "France", "the Old Port"},
	{"Amsterdam", "the Netherlands", "the Rijksmuseum"},
	{"Rotterdam", "the Netherlands", "the Erasmus Bridge"},
	{"Brussels", "Belgium", "the Atomium"},
	{"Vienna", "Austria", "St. Stephen's Cathedral"},
	{"Zurich", "Switzerland", "the Grossmünster towers"},
	{"Geneva", "Switzerland", "the Jet d'Eau"},
	{"Prague", "Czechia", "the Charles Bridge"},
	{"Budapest", "Hungary", "the Chain Bridge"},
	{"Warsaw", "Poland", "the Palace of Culture"},
	{"Kraków", "Poland", "Wawel Castle"},
	{"Copenhagen", "Denmark", "the Little Mermaid statue"},
	{"Stockholm", "Sweden", "the Vasa Museum"},
	{"Oslo", "Norway", "the opera house on the fjord"},
	{"Helsinki", "Finland", "the white cathedral on Senate Square"},
	{"Dublin", "Ireland", "the Ha'penny Bridge"},
	{"Edinburgh", "Scotland", "the castle on its rock"},
	{"London", "England", "Tower Bridge"},
	{"Manchester", "England", "Old Trafford"},
	{"Rome", "Italy", "the Colosseum"},
	{"Milan", "Italy", "the Duomo"},
	{"Naples", "Italy", "Vesuvius across the bay"},
	{"Athens", "Greece", "the Acropolis"},
	{"Istanbul", "Türkiye", "the Galata Tower"},
	{"New York", "the US", "the Brooklyn Bridge"},
	{"Boston", "the US", "Fenway Park"},
	{"Chicago", "the US", "the Bean in Millennium Park"},
	{"San Francisco", "the US", "the Golden Gate Bridge"},
	{"Seattle", "the US", "the Space Needle"},
	{"Toronto", "Canada", "the CN Tower"},
	{"Montreal", "Canada", "Mount Royal"},
	{"Vancouver", "Canada", "Stanley Park"},
	{"Mexico City", "Mexico", "the Zócalo"},
	{"Buenos Aires", "Argentina", "the Obelisco"},
	{"Sydney", "Australia", "the Opera House"},
	{"Melbourne", "Australia", "Flinders Street Station"},
	{"Tokyo", "Japan", "the Shibuya crossing"},
	{"Kyoto", "Japan", "the Fushimi Inari gates"},
	{"Seoul", "South Korea", "Gyeongbokgung Palace"},
	{"Singapore", "Singapore", "Marina Bay Sands"},
	{"Cape Town", "South Africa", "Table Mountain"},
}

// job is a job title, its field (employers are matched on it) and a telltale task, a gerund
// phrase used by implicit statements ("marking spelling tests").
type job struct {
	Title, Field, Task string
}

var jobs = []job{
	{"nurse", "health", "checking on patients all night on the ward"},
	{"GP", "health", "seeing a waiting room full of patients"},
	{"pharmacist", "health", "counting out prescriptions behind the counter"},
	{"dentist", "health", "doing three fillings before lunch"},
	{"physiotherapist", "health", "stretching out patients' stiff shoulders"},
	{"paramedic", "health", "riding in the ambulance from call to call"},
	{"primary school teacher", "education", "marking a pile of spelling tests"},
	{"maths teacher", "education", "explaining fractions to thirty teenagers"},
	{"university lecturer", "education", "grading exam scripts"},
	{"software engineer", "tech", "fixing a production outage at 3 a.m."},
	{"data analyst", "tech", "building dashboards nobody reads"},
	{"UX designer", "tech", "running user interviews"},
	{"product manager", "tech", "rewriting the roadmap for the third time"},
	{"IT support technician", "tech", "resetting everyone's passwords"},
	{"accountant", "finance", "closing the quarterly books"},
	{"financial advisor", "finance", "calming clients down about the markets"},
	{"lawyer", "law", "drafting a contract until midnight"},
	{"paralegal", "law", "filing court documents"},
	{"chef", "food", "running a fully booked dinner service"},
	{"baker", "food", "firing up the ovens at four in the morning"},
	{"barista", "food", "pouring latte art for the morning rush"},
	{"electrician", "trades", "rewiring an old kitchen"},
	{"plumber", "trades", "fixing a burst pipe in someone's basement"},
	{"carpenter", "trades", "sanding down a staircase"},
	{"architect", "design", "redrawing floor plans after a site visit"},
	{"graphic designer", "design", "making the logo bigger for a client"},
	{"journalist", "media", "chasing a source before the evening deadline"},
	{"photographer", "media", "editing six hundred wedding photos"},
	{"marketing manager", "business", "planning a product launch campaign"},
	{"sales representative", "business", "chasing my quarterly quota"},
	{"HR manager", "business", "sitting through exit interviews"},
	{"project manager", "business", "chasing everyone for status updates"},
	{"civil engineer", "engineering", "inspecting the supports of a bridge"},
	{"mechanical engineer", "engineering", "testing a prototype gearbox"},
	{"pilot", "transport", "flying a red-eye across the Atlantic"},
	{"flight attendant", "transport", "doing the safety demo for a full cabin"},
	{"bus driver", "transport", "driving the night route through downtown"},
	{"police officer", "public", "patrolling the city centre on a Saturday night"},
	{"firefighter", "public", "answering a call-out at two in the morning"},
	{"social worker", "public", "doing home visits across town"},
	{"librarian", "culture", "shelving returned books"},
	{"museum curator", "culture", "hanging a new exhibition"},
	{"veterinarian", "animals", "vaccinating a litter of puppies"},
	{"research scientist", "science", "pipetting samples in the lab"},
	{"lab technician", "science", "calibrating the centrifuges"},
	{"real estate agent", "business", "showing flats to picky buyers"},
	{"hairdresser", "services", "doing back-to-back haircuts"},
	{"personal trainer", "fitness", "shouting encouragement at clients doing burpees"},
	{"translator", "language", "translating a hundred-page manual"},
}

type employer struct {
	Name, Field string
}

var employers = []employer{
	{"Riverside Hospital", "health"}, {"Harbor Health Clinic", "health"}, {"Crescent Pharmacy", "health"},
	{"Orchid Dental Care", "health"}, {"Greenleaf Primary School", "education"},
	{"Meadowbrook High School", "education"}, {"Eastgate University", "education"},
	{"Kestrel Software", "tech"}, {"Bluefin Analytics", "tech"}, {"Nimbus Cloud Services", "tech"},
	{"Zenith Games", "tech"}, {"Oakridge Bank", "finance"}, {"Copperfield Accounting", "finance"},
	{"Horizon Insurance", "finance"}, {"Summit Legal", "law"}, {"Hale & Rowe Solicitors", "law"},
	{"Blue Harbor Restaurant", "food"}, {"Maple Street Bakery", "food"}, {"Evergreen Foods", "food"},
	{"The Copper Kettle café", "food"}, {"Ironbridge Construction", "trades"},
	{"Brightwire Electrical", "trades"}, {"Cedar & Stone Architects", "design"},
	{"Juniper Design Studio", "design"}, {"Beacon Newspapers", "media"}, {"Brightside Media", "media"},
	{"Mosaic Marketing", "business"}, {"Sterling Consulting", "business"},
	{"Redwood Realty", "business"}, {"Falcon Freight", "business"}, {"Atlas Engineering", "engineering"},
	{"Pioneer Robotics", "engineering"}, {"Silverline Airlines", "transport"},
	{"Vista Transit", "transport"}, {"the city council", "public"}, {"the fire service", "public"},
	{"the police department", "public"}, {"the central library", "culture"},
	{"the Museum of Modern Art", "culture"}, {"Willow Creek Veterinary", "animals"},
	{"Quantum Research Institute", "science"}, {"Aurora Biotech", "science"},
	{"Lumen Labs", "science"}, {"Studio Nine Salon", "services"}, {"Granite Fitness", "fitness"},
	{"Polaris Translation", "language"}, {"Northwind Logistics", "business"},
	{"Starlight Hotels", "business"},
}

// Partner names by the kinds of partner that fit them.
var (
	femaleNames = []string{
		"Anna", "Maria", "Sofia", "Emma", "Olivia", "Chloe", "Leila", "Priya", "Yuki", "Ingrid",
		"Fatima", "Camille", "Nadia", "Hannah", "Zoe", "Lucia", "Amara", "Mei", "Greta", "Aisha",
		"Clara", "Rosa", "Elena", "Noor", "Freya", "Ines", "Tamar",
	}
	maleNames = []string{
		"Tom", "Lukas", "Mateo", "Omar", "Kenji", "David", "Jonas", "Rafael", "Arjun", "Felix",
		"Sam", "Diego", "Marco", "Ethan", "Yusuf", "Henrik", "Theo", "Kwame", "Leon", "Pablo",
		"Ravi", "Oscar", "Nils", "Hugo", "Ahmed", "Jin",
	}
	femaleKinds = []string{"wife", "girlfriend", "fiancée", "partner"}
	maleKinds   = []string{"husband", "boyfriend", "fiancé", "partner"}
)

type species struct {
	Name, Plural string
}

var petSpecies = []species{
	{"dog", "dogs"}, {"cat", "cats"}, {"rabbit", "rabbits"}, {"parrot", "parrots"},
	{"hamster", "hamsters"}, {"tortoise", "tortoises"}, {"guinea pig", "guinea pigs"},
	{"ferret", "ferrets"}, {"gecko", "geckos"}, {"budgie", "budgies"}, {"goldfish", "goldfish"},
	{"horse", "horses"}, {"corn snake", "corn snakes"}, {"chinchilla", "chinchillas"},
}

var petNames = []string{
	"Rex", "Luna", "Milo", "Bella", "Pepper", "Biscuit", "Oscar", "Nala", "Ziggy", "Mochi",
	"Pickles", "Shadow", "Coco", "Waffles", "Simba", "Hazel", "Bruno", "Kiwi", "Loki", "Daisy",
	"Tofu", "Ginger", "Socks", "Pixel", "Olive", "Nacho", "Juniper", "Maple", "Bandit", "Sushi",
	"Peanut", "Clover", "Rocky", "Smudge", "Bean", "Truffle", "Marble", "Frodo", "Poppy", "Yoda",
	"Cleo", "Pretzel",
}

// hobby is a pastime in three grammatical forms and the gear it needs.
type hobby struct {
	Noun, Verb, Gerund, Gear string
}

var hobbies = []hobby{
	{"rock climbing", "go rock climbing", "going rock climbing", "climbing shoes"},
	{"chess", "play chess", "playing chess", "chess set"},
	{"running", "go running", "running", "running shoes"},
	{"cycling", "go cycling", "cycling", "bike"},
	{"swimming", "go swimming", "swimming", "goggles"},
	{"yoga", "do yoga", "doing yoga", "yoga mat"},
	{"painting", "paint", "painting", "paints"},
	{"photography", "take photos", "taking photos", "camera"},
	{"gardening", "work in the garden", "gardening", "gardening gloves"},
	{"baking", "bake", "baking", "mixing bowls"},
	{"knitting", "knit", "knitting", "knitting needles"},
	{"surfing", "go surfing", "surfing", "surfboard"},
	{"tennis", "play tennis", "playing tennis", "tennis racket"},
	{"football", "play football", "playing football", "football boots"},
	{"the guitar", "play the guitar", "playing the guitar", "guitar"},
	{"the piano", "play the piano", "playing the piano", "piano books"},
	{"board games", "play board games", "playing board games", "board game shelf"},
	{"hiking", "go hiking", "hiking", "hiking boots"},
	{"bird watching", "go bird watching", "bird watching", "binoculars"},
	{"pottery", "do pottery", "doing pottery", "pottery wheel"},
	{"fishing", "go fishing", "fishing", "fishing rod"},
	{"skiing", "go skiing", "skiing", "skis"},
	{"video games", "play video games", "playing video games", "console"},
	{"woodworking", "do woodworking", "woodworking", "chisels"},
	{"dancing", "go dancing", "dancing", "dance shoes"},
	{"sailing", "go sailing", "sailing", "sailing jacket"},
	{"birding", "go birding", "birding", "field guide"},
	{"calligraphy", "practise calligraphy", "practising calligraphy", "calligraphy pens"},
	{"martial arts", "train martial arts", "training martial arts", "gi"},
	{"bouldering", "go bouldering", "bouldering", "chalk bag"},
	{"crosswords", "do crosswords", "doing crosswords", "crossword books"},
	{"kayaking", "go kayaking", "kayaking", "paddle"},
	{"sewing", "sew", "sewing", "sewing machine"},
	{"astronomy", "do some stargazing", "stargazing", "telescope"},
	{"volleyball", "play volleyball", "playing volleyball", "knee pads"},
}

var (
	// hobbyOften are the scopes a hobby fact states.
	hobbyOften = []string{
		"every weekend", "three times a week", "almost every day", "every Sunday morning",
		"most evenings", "twice a week", "every single weekend", "whenever I have a free evening",
	}
	// hobbyRarely are narrower scopes that contradict them.
	hobbyRarely = []string{
		"once or twice a year", "on holiday", "when my cousin visits", "a couple of times a year",
		"in the summer months", "once in a blue moon", "on the odd birthday", "about once a season",
	}
)

// likeDomain is a field of preferences: the items a fact can be about and the qualifiers
// that narrow its scope ("only when it's homemade").
type likeDomain struct {
	Topic      string
	Items      []string
	Qualifiers []string
}

var likeDomains = []likeDomain{
	{"food", []string{
		"sushi", "spicy curries", "pizza", "Thai food", "Mexican food", "dark chocolate",
		"blue cheese", "oysters", "olives", "ramen", "Indian food", "barbecue", "dumplings",
		"liquorice", "pickles", "tiramisu", "mushrooms", "ice cream", "Ethiopian food", "falafel",
	}, []string{
		"when it's homemade", "from one little place near my office", "on holidays",
		"when someone else cooks it", "if it's really fresh", "the way my grandmother made it",
	}},
	{"music", []string{
		"jazz", "heavy metal", "opera", "country music", "techno", "classical music",
		"hip hop", "K-pop", "punk rock", "reggae", "bossa nova", "folk music", "salsa", "blues",
		"synth-pop",
	}, []string{
		"when it's live", "from the seventies", "when I'm driving", "at festivals",
		"in small doses", "when I'm cooking",
	}},
	{"films", []string{
		"horror films", "romantic comedies", "science fiction", "documentaries", "westerns",
		"musicals", "superhero films", "anime", "period dramas", "slasher films", "mockumentaries",
		"silent films",
	}, []string{
		"in the cinema", "the old classics", "when I watch with friends", "on long flights",
		"on rainy Sundays",
	}},
	{"drinks", []string{
		"coffee", "green tea", "red wine", "craft beer", "whisky", "kombucha", "gin and tonic",
		"espresso", "matcha", "cider", "hot chocolate", "sparkling water",
	}, []string{
		"on a hot day", "at weddings", "with a good meal", "in the morning", "at my favourite bar",
	}},
	{"books", []string{
		"crime novels", "poetry", "fantasy novels", "biographies", "graphic novels",
		"self-help books", "historical fiction", "travel writing", "science books", "short stories",
	}, []string{
		"on holiday", "the older ones", "when I can't sleep", "as audiobooks", "in the original language",
	}},
	{"sport", []string{
		"watching football", "watching cricket", "watching Formula 1", "watching tennis",
		"watching basketball", "watching the Tour de France", "watching rugby", "watching ice hockey",
		"watching snooker", "watching golf",
	}, []string{
		"during the World Cup", "live in the stadium", "when my team is playing", "in a pub with friends",
		"during the finals",
	}},
}

// diet is a dietary fact; implicit statements mention a dish that fits it or breaks it.
type diet struct {
	Item  string   // what is avoided: "meat"
	Facts []string // fact texts
	Short string   // the fact's short value
	Fits  []string // dishes or drinks consistent with the diet
	Break []string // ones that break it
}

var diets = []diet{
	{"meat", []string{"I'm vegetarian; I haven't eaten meat in years.", "I don't eat meat, I've been vegetarian since school."}, "vegetarian",
		[]string{"a lentil curry", "a mushroom risotto", "a veggie lasagne", "a halloumi salad", "a bean chilli"},
		[]string{"a great steak", "a bacon sandwich", "chicken wings", "a pulled pork burger", "lamb kebabs"}},
	{"alcohol", []string{"I don't drink alcohol at all.", "I'm teetotal, not a drop of alcohol."}, "teetotal",
		[]string{"a big pot of tea", "a fresh lemonade", "a virgin mojito", "a glass of sparkling water"},
		[]string{"a few pints", "a bottle of red wine", "two rounds of tequila shots", "a couple of gin and tonics"}},
	{"animal products", []string{"I'm vegan, so no animal products for me.", "I've been vegan for five years now."}, "vegan",
		[]string{"a tofu stir-fry", "an oat-milk latte", "a chickpea curry", "a falafel wrap"},
		[]string{"a cheese platter", "a three-egg omelette", "a glass of cold milk", "a buttery croissant"}},
}

// numeric is a numerical slot: its range, the smallest change that counts as a conflict and
// ways to state a value.
type numeric struct {
	Slot, Topic string
	Min, Max    int
	MinDelta    int
	// Claims are first-person clauses stating v; each gets the value as digits or words.
	Claims []func(v int, words bool) string
	Short  func(v int) string
}

var numerics = []numeric{
	{"age", "age", 19, 75, 3, []func(int, bool) string{
		func(v int, w bool) string { return "I'm " + num(v, w) + " years old" },
		func(v int, w bool) string { return "I'm " + num(v, w) },
		func(v int, w bool) string { return "I turned " + num(v, w) + " this year" },
	}, func(v int) string { return itoa(v) + " years" }},
	{"height", "height", 150, 200, 6, []func(int, bool) string{
		func(v int, _ bool) string { return "I'm " + itoa(v) + " cm tall" },
		func(v int, _ bool) string { return "I'm " + metres(v) + " m tall" },
		func(v int, _ bool) string { return "my height is " + itoa(v) + " centimetres" },
	}, func(v int) string { return itoa(v) + " cm" }},
	{"salary", "salary", 24, 160, 8, []func(int, bool) string{
		func(v int, _ bool) string { return "I earn €" + itoa(v) + ",000 a year" },
		func(v int, _ bool) string { return "my salary is " + itoa(v) + "k a year before tax" },
		func(v int, _ bool) string { return "I make about " + itoa(v) + " thousand euros a year" },
	}, func(v int) string { return "€" + itoa(v) + ",000 a year" }},
	{"kids", "kids", 1, 5, 1, []func(int, bool) string{
		func(v int, w bool) string { return "I have " + count(v, w, "kid", "kids") },
		func(v int, w bool) string { return "we have " + count(v, w, "child", "children") },
		func(v int, w bool) string { return "I'm a parent of " + num(v, w) },
	}, func(v int) string { return count(v, false, "kid", "kids") }},
	{"commute", "commute", 5, 95, 15, []func(int, bool) string{
		func(v int, w bool) string { return "my commute takes " + num(v, w) + " minutes" },
		func(v int, w bool) string { return "it takes me " + num(v, w) + " minutes to get to work" },
		func(v int, w bool) string { return "I spend " + num(v, w) + " minutes getting to work each way" },
	}, func(v int) string { return itoa(v) + " minutes" }},
	{"siblings", "siblings", 1, 7, 1, []func(int, bool) string{
		func(v int, w bool) string { return "I have " + count(v, w, "sibling", "siblings") },
		func(v int, w bool) string {
			return "I grew up with " + count(v, w, "brother or sister", "brothers and sisters")
		},
	}, func(v int) string { return count(v, false, "sibling", "siblings") }},
	{"running", "running", 5, 90, 15, []func(int, bool) string{
		func(v int, w bool) string { return "I run " + num(v, w) + " km a week" },
		func(v int, w bool) string { return "my weekly running distance is " + num(v, w) + " kilometres" },
	}, func(v int) string { return itoa(v) + " km a week" }},
	{"dose", "medication", 5, 500, 50, []func(int, bool) string{
		func(v int, _ bool) string { return "I take " + itoa(v) + " mg of my tablets every morning" },
		func(v int, _ bool) string { return "the doctor has me on " + itoa(v) + " mg a day" },
		func(v int, _ bool) string { return "my prescription is " + itoa(v) + " milligrams" },
	}, func(v int) string { return itoa(v) + " mg" }},
	{"sleep", "sleep", 4, 10, 2, []func(int, bool) string{
		func(v int, w bool) string { return "I sleep about " + num(v, w) + " hours a night" },
		func(v int, w bool) string { return "my watch says I average " + num(v, w) + " hours of sleep" },
		func(v int, w bool) string { return "I get " + num(v, w) + " hours of sleep on a normal night" },
	}, func(v int) string { return itoa(v) + " hours a night" }},
	{"rent", "rent", 400, 2600, 150, []func(int, bool) string{
		func(v int, _ bool) string { return "my rent is " + itoa(v) + " a month" },
		func(v int, _ bool) string { return "we pay " + itoa(v) + " a month for the flat" },
		func(v int, _ bool) string { return "the landlord charges us " + itoa(v) + " in rent" },
	}, func(v int) string { return itoa(v) + " a month" }},
	{"phone-bill", "phone", 8, 90, 10, []func(int, bool) string{
		func(v int, _ bool) string { return "my phone contract is " + itoa(v) + " a month" },
		func(v int, _ bool) string { return "I pay " + itoa(v) + " a month for my mobile plan" },
		func(v int, _ bool) string { return "the SIM-only deal costs me " + itoa(v) + " monthly" },
	}, func(v int) string { return itoa(v) + " a month" }},
	{"grade", "grades", 40, 100, 8, []func(int, bool) string{
		func(v int, _ bool) string { return "my average this term is " + itoa(v) + " percent" },
		func(v int, _ bool) string { return "I scored " + itoa(v) + " on the final exam" },
		func(v int, _ bool) string { return "the module mark came back at " + itoa(v) },
	}, func(v int) string { return itoa(v) + " percent" }},
	{"office-days", "office", 0, 5, 2, []func(int, bool) string{
		func(v int, w bool) string { return "I'm in the office " + num(v, w) + " days a week" },
		func(v int, w bool) string { return "work wants us on site " + num(v, w) + " days a week" },
		func(v int, w bool) string { return "I go into work " + num(v, w) + " days out of five" },
	}, func(v int) string { return itoa(v) + " days a week" }},
	{"trip-length", "trip", 2, 30, 4, []func(int, bool) string{
		func(v int, w bool) string { return "the holiday is " + num(v, w) + " days in total" },
		func(v int, w bool) string { return "we're away for " + num(v, w) + " nights" },
		func(v int, w bool) string { return "I booked " + num(v, w) + " days off for the trip" },
	}, func(v int) string { return itoa(v) + " days" }},
}

var (
	reporters = []string{
		"my sister", "my brother", "my mum", "my dad", "my best friend", "my boss", "my flatmate",
		"my neighbour", "my grandma", "my cousin", "an old friend from school", "my colleague Sam",
		"my therapist", "my aunt",
	}
	whens = []string{
		"last week", "last month", "a few weeks ago", "in March", "over the summer",
		"at the start of the year", "recently", "two months ago", "just before Christmas",
		"back in January", "a couple of days ago", "this spring", "in the autumn",
	}
	fillersBefore = []string{
		"Sorry for the late reply.", "Long day, sorry.", "Okay, random update.",
		"Hope your day is going well.", "Coffee first.", "Where was I?", "So, quick thing.",
		"Ha, funny you ask.", "Ugh, my phone is about to die.", "Random, but here goes.",
		"Morning!", "Right, before I forget.",
	}
	fillersAfter = []string{
		"Anyway, enough about me.", "Talk later!", "Not that it matters much.",
		"Just thought you should know.", "Weird week.", "Oh, and it's raining again.", "Lol, whatever.",
		"Haha.", "Anyway, how are you?", "Don't ask.", "More on that some other time.",
	}
)
