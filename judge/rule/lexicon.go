package rule

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// text is one side of a pair, prepared for the rule auditor's cues.
type text struct {
	orig string
	low  string
	// chunks are the lower-cased sentences, split at full stops and exclamation marks
	// (not at question marks, which often split one thought: "me? a dog? nope").
	chunks []string
	words  []string
	stems  map[string]bool
}

// typography writes curly quotes and dashes as the cues spell them ("don't", " - ").
var typography = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`, "\u2014", " - ", "\u2013", " - ")

func newText(s string) *text {
	s = typography.Replace(s)
	t := &text{orig: s, low: strings.ToLower(s), stems: map[string]bool{}}
	for _, c := range splitChunks(t.low) {
		if c = strings.TrimSpace(c); c != "" {
			t.chunks = append(t.chunks, c)
		}
	}
	t.words = words(t.low)
	for _, w := range t.words {
		t.stems[stem(w)] = true
	}
	return t
}

// splitChunks splits at '.' and '!' that end a sentence (not "1.82" or "St. Stephen's").
func splitChunks(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '.' && s[i] != '!' {
			continue
		}
		if s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			continue
		}
		if s[i] == '.' && i >= 2 && s[i-2:i] == "st" && (i < 3 || s[i-3] == ' ') {
			continue
		}
		out = append(out, s[start:i])
		start = i + 1
	}
	return append(out, s[start:])
}

// words splits lower-cased text into words of letters, digits and inner apostrophes.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'')
	})
}

// stem strips common English suffixes, enough to match "painting" with "paint" and
// "novels" with "novel".
func stem(w string) string {
	w = strings.Trim(w, "'")
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
		if n := len(w); n > 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
			w = w[:n-1] // running → run, knitting → knit
		}
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "es") && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz"):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		w = w[:len(w)-1]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "e"):
		w = w[:len(w)-1] // bake → bak, as baking → bak
	}
	return w
}

// has reports whether re matches the lower-cased text.
func (t *text) has(re *regexp.Regexp) bool { return re.MatchString(t.low) }

// find returns the first match of re in the lower-cased text, or "".
func (t *text) find(re *regexp.Regexp) string {
	m := re.FindString(t.low)
	return strings.TrimSpace(m)
}

// chunksWhere returns the chunks for which keep is true.
func (t *text) chunksWhere(keep func(string) bool) []string {
	var out []string
	for _, c := range t.chunks {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// findIn returns the first match of re in any of the chunks, or "".
func findIn(chunks []string, re *regexp.Regexp) string {
	for _, c := range chunks {
		if m := re.FindString(c); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// display returns a lower-cased phrase as the text writes it ("lisbon" → "Lisbon"), or the
// phrase itself when the text does not hold it at the same offsets.
func (t *text) display(phrase string) string {
	i := strings.Index(t.low, phrase)
	if i < 0 || len(t.low) != len(t.orig) {
		return phrase
	}
	return t.orig[i : i+len(phrase)]
}

// containsWord reports whether phrase occurs in the lower-cased text as whole words.
func (t *text) containsWord(phrase string) bool {
	phrase = strings.ToLower(strings.TrimSpace(phrase))
	if phrase == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(t.low[i:], phrase)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(phrase)
		if (a == 0 || !isWordRune(lastRune(t.low[:a]))) && (b == len(t.low) || !isWordRune(firstRune(t.low[b:]))) {
			return true
		}
		i = a + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

func lastRune(s string) rune {
	r := []rune(s)
	if len(r) == 0 {
		return 0
	}
	return r[len(r)-1]
}

func re(pattern string) *regexp.Regexp { return regexp.MustCompile(pattern) }

// singleRE is "single" as a relationship status, not "every single weekend".
const singleRE = `\b(i'm|i am|being|still|now|am|happily|newly) single\b|\bsingle (life|now|again|mum|dad|parent)\b|\bsingle[,.;!]|\bsingle$`

// Cue lexicons. They are generic English, not the generator's templates: the rule auditor
// is a baseline and must behave the same on wording it has never seen.
var (
	// Slot cues.
	cueJob          = re(`\b(job|jobs|work(s|ed|ing)? (as|at|for)|employ(ed|er|ment)|colleagues?|boss|manager at|office|shift|hired|career|promot\w*|desk|working life|my work)\b`)
	cueLocation     = re(`\b(live[sd]?|living|moved|move|moving|relocat\w*|flat|apartment|home|city|neighbourhood|neighborhood|neighbours|neighbors|lease|commute from|my place|hometown)\b`)
	cueRelationship = re(`\b(wife|husband|girlfriend|boyfriend|partner|fianc\S*|spouse|married|marriage|relationship|together|couple|date night|dating|broke up|break up|split up|divorc\w*|anniversary)\b|` + singleRE)
	cuePets         = re(`\b(pets?|dogs?|cats?|kittens?|pupp(y|ies)|rabbits?|parrots?|hamsters?|tortoises?|guinea pigs?|ferrets?|geckos?|budgies?|goldfish|horses?|snakes?|chinchillas?|vet|walkies|animals?)\b`)
	cueHobby        = re(`\b(hobby|hobbies|club|practi[cs]e|every (single )?(weekend|day|sunday|saturday|morning|evening|night)|(once|twice|three times|\d+ times) a (week|month)|most evenings|almost every|free evening|keeps me sane|unwind)\b`)
	cueLike         = re(`\b(love|loves|like|likes|adore|can't stand|cannot stand|hate|hates|fan of|enjoy|enjoys|avoid|avoids|prefer|favou?rite|when it comes to|always a (yes|no))\b`)
	cueDiet         = re(`\b(vegetarian|vegan|teetotal|pescatarian|eat meat|eaten meat|no meat|alcohol|don't drink|do not drink|sober|animal products|plant-based)\b`)
	cueEating       = re(`\b(ate|eat|eating|had (\w+ ){1,4}(for|at|with) (dinner|lunch|breakfast|brunch)|ordered|drank|drinking|cooked|grilled|treated myself to|tasted|opened a bottle|meat|alcohol|animal products|dairy)\b`)

	// Change over time.
	cueChange = re(`\bthe new (\w+ ){1,2}(at|in)\b|\b(moved|move|moving|relocat\w*|left|leave|leaving|quit|new (job|flat|city|place|home|apartment|house|role|position|me)|started|start|starting|joined|hired|now|anymore|any more|no longer|used to|changed|switched|first (week|day|month|weekend|night)|unpacking|signed the lease|bye bye|goodbye|resigned|these days|that's over|is over)\b`)
	// Negation of the fact, and phrases that deny a change rather than the fact.
	cueNegation   = re(singleRE + `|\b(not|no|never|nope|none|n't|broke up|break up|split( up)?|no longer|anymore|any more|without an?|divorc\w*|separated|dumped|ex|(are|is|we're|it's) (over|done)|gave (away|up|all of)|shelter|rehomed|went to live with|passed away|died|moving \S+ things out|moved out)\b|n't\b`)
	cueNotChanged = re(`\b(never (leave|move|change)|won't (leave|move)|not (leaving|moving)|not changing|nothing (has )?changed|hasn't changed|never change[sd]?|no question|no surprise|not that it matters|can't wait|don't care either way)\b`)
	// Idioms with "no" that deny nothing about the user.
	cueIdiomNo = re(`\b(no problem|no worries|no idea|no doubt|no matter|no wonder|no rush|no surprise|no question)\b`)
	// Narrower or wider scope.
	cueScope = re(`\b(only|just (when|on|in|at|during|for|with|an?)|except|barely|rarely|hardly|seldom|occasional(ly)?|once or twice|(once|twice) a (year|season|month)|a couple of times a year|about once|once in a blue moon|on the odd|if i'm lucky|if that|at best|at most|first time in ages|lapsed|not in general|in general|otherwise|not (really|much)|don't really|not that often)\b`)
	// A conflict stated by implication.
	cueDating  = re(`\b(first date|dating app|on a date|swip\w+|matched with|asked (him|her|them|someone) out|set me up|blind date)\b`)
	cueNoPets  = re(`\b(pet-free|forbids (pets|animals)|(pets|animals) (are )?(not allowed|forbidden|banned)|allergic to (cats|dogs|animals|fur)|nothing to feed)\b`)
	cueQuitHob = re(`\b(gave up|quit|stopped|don't \w+ anymore|no longer|sold my)\b`)

	likePositive = re(`\b(love|loves|like|likes|adore|adores|fan of|enjoy|enjoys|always a yes|into)\b`)
	likeNegative = re(`\b(can't stand|cannot stand|hate|hates|no fan of|not a fan of|don't like|dislike|avoid|avoids|always a no)\b`)
)

// Diets and what breaks them. A food word counts unless a modifier just before it makes
// it fit ("veggie burger", "oat milk", "alcohol-free beer").
var (
	meatWords    = re(`\b(steaks?|ribeye|sirloin|bacon|ham|pork|beef|chicken|lamb|mutton|veal|duck|turkey|sausages?|salami|pepperoni|chorizo|prosciutto|burgers?|kebabs?|meatballs?|wings|ribs|brisket|mince|venison|hot dogs?|salmon|tuna|cod|prawns?|shrimps?|oysters?|mussels|anchov(y|ies)|fish|seafood|meat)\b`)
	alcoholWords = re(`\b(wine|beers?|pints?|lager|ale|cider|whisk(e)?y|vodka|gin|rum|tequila|champagne|prosecco|cocktails?|margaritas?|mojitos?|negronis?|sake|bourbon|brandy|martinis?|shots|spritz|alcohol)\b`)
	animalWords  = re(`\b(cheese|milk|butter|buttery|cream|yog(h)?urt|eggs?|omelet(te)?s?|honey|ice cream|mayo(nnaise)?|latte|croissants?)\b`)
	fitModifier  = re(`\b(veggie|vegetarian|vegan|bean|mushroom|plant-based|beyond|tofu|oat|soy|soya|almond|coconut|rice|alcohol-free|non-alcoholic|virgin|zero|0%|dairy-free|egg-free|fake|mock|(oat|soy|soya|almond|coconut|rice)[\s-]+(milk|cream))[\s-]+$`)
)

type diet int

const (
	dietNone diet = iota
	dietVegetarian
	dietVegan
	dietTeetotal
)

func (d diet) String() string {
	return [...]string{"", "vegetarian", "vegan", "teetotal"}[d]
}

// The words that state each diet.
var (
	veganWords      = re(`\b(vegan|animal products|plant-based)\b`)
	vegetarianWords = re(`\b(vegetarian|pescatarian|eat meat|eaten meat|no meat)\b`)
	teetotalWords   = re(`\b(teetotal|alcohol|don't drink|do not drink|sober)\b`)
)

func detectDiet(t *text) diet {
	switch {
	case t.has(veganWords):
		return dietVegan
	case t.has(vegetarianWords):
		return dietVegetarian
	case t.has(teetotalWords):
		return dietTeetotal
	}
	return dietNone
}

// breaks returns the first food or drink in t that breaks diet d, or "".
func (d diet) breaks(t *text) string {
	var res []*regexp.Regexp
	switch d {
	case dietVegetarian:
		res = []*regexp.Regexp{meatWords}
	case dietVegan:
		res = []*regexp.Regexp{meatWords, animalWords}
	case dietTeetotal:
		res = []*regexp.Regexp{alcoholWords}
	}
	for _, r := range res {
		for _, loc := range r.FindAllStringIndex(t.low, -1) {
			w := t.low[loc[0]:loc[1]]
			if fitModifier.MatchString(t.low[:loc[0]]) {
				continue
			}
			// The diet's own words ("no meat", "alcohol") state the diet, they do not break it.
			if w == "meat" || w == "alcohol" {
				continue
			}
			return w
		}
	}
	return ""
}

// Quantity kinds.
const (
	kindAge      = "age"
	kindHeight   = "height"
	kindMoney    = "salary"
	kindKids     = "kids"
	kindSiblings = "siblings"
	kindMinutes  = "minutes"
	kindDistance = "distance"
)

// quantity is a number with what it measures.
type quantity struct {
	kind  string
	value float64
	text  string
}

var (
	numberRE  = re(`(€|\$|£)?\s?(\d+(?:[.,]\d+)*)(\s?k\b)?|\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](one|two|three|four|five|six|seven|eight|nine))?\b`)
	wordValue = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
		"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
		"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	// One ^ for both branches: RE2 stops an anchored search at the first byte only when the
	// whole pattern starts with the anchor (with ^ in each branch it scans all of after).
	afterAge      = re(`^(?:[\s-]*(years?|yrs?)[\s-]*old\b|-year-old\b)`)
	afterYears    = re(`^\s*(years?|yrs?)\b`)
	afterAgo      = re(`^\s*(years?|yrs?)\s+(ago|later|from now)\b`)
	afterCM       = re(`^\s*(cm|centimet(er|re)s?)\b`)
	afterM        = re(`^\s*(m|met(er|re)s?)\b`)
	afterThousand = re(`^\s*(k|thousand)\b`)
	afterMoney    = re(`^\s*(euros?|dollars?|pounds?|eur|usd|gbp)\b`)
	afterKids     = re(`^\s*(kids?|children|child|sons?|daughters?)\b`)
	afterSiblings = re(`^\s*(siblings?|brothers? (and|or) sisters?|brothers?|sisters?)\b`)
	afterMinutes  = re(`^\s*(minutes?|mins?)\b`)
	afterKM       = re(`^\s*(km|kilomet(er|re)s?)\b`)
	// The before* patterns match the end of the text before a number: a keyword of at most
	// maxBeforeKeyword bytes, white space, and for money an optional "about" or "around"
	// (at most maxBeforeFiller bytes) and white space again. beforeWindow relies on that.
	beforeAge   = re(`\b(i'm|i am|im|aged|turned|age|age is|turn|turning)\s*$`)
	beforeKids  = re(`\bparent of\s*$`)
	beforeFor   = re(`\b(for|in|over|of|the last|past)\s*$`)
	beforeMoney = re(`\b(earn|earns|make|makes|salary is|paid|income is)\s+(about\s+|around\s+)?$`)
)

// The longest keyword ("salary is", "income is", "parent of") and filler ("around") of
// the before* patterns.
const (
	maxBeforeKeyword = len("salary is")
	maxBeforeFiller  = len("around")
)

// beforeWindow returns the end of low[:end] that holds every match of the before*
// patterns ending at end, with the byte before it, which their leading \b reads. The
// patterns are anchored at the end, and RE2 searches from the start, so matching them on
// all of low[:end] for every number made quantities quadratic in the length of the text.
func beforeWindow(low string, end int) string {
	i := skipSpaceBack(low, end)
	i = skipSpaceBack(low, max(i-maxBeforeFiller, 0))
	i = max(i-maxBeforeKeyword-1, 0)
	return low[i:end]
}

// skipSpaceBack moves i back over the white space (RE2's \s) that ends s[:i].
func skipSpaceBack(s string, i int) int {
	for i > 0 && strings.IndexByte(" \t\n\f\r", s[i-1]) >= 0 {
		i--
	}
	return i
}

// quantities finds the numbers in t with the kind each measures; numbers of no known kind
// (dates, durations) are left out. It takes time linear in the length of the text.
func quantities(t *text) []quantity { return quantitiesBefore(t, beforeWindow) }

// quantitiesBefore is quantities with the before* patterns matched on
// before(t.low, start of the number); the tests pass the whole text before the number to
// check beforeWindow against.
func quantitiesBefore(t *text, before func(low string, end int) string) []quantity {
	var out []quantity
	low := t.low
	for _, m := range numberRE.FindAllStringSubmatchIndex(low, -1) {
		var v float64
		var err error
		currency := m[2] >= 0
		switch {
		case m[4] >= 0:
			digits := low[m[4]:m[5]]
			if strings.Count(digits, ",") > 0 && !strings.Contains(digits, ".") {
				digits = strings.ReplaceAll(digits, ",", "")
			}
			if v, err = strconv.ParseFloat(digits, 64); err != nil {
				continue
			}
		case m[8] >= 0:
			v = wordValue[low[m[8]:m[9]]]
			if m[10] >= 0 {
				v += wordValue[low[m[10]:m[11]]]
			}
		default:
			continue
		}
		kAfter := m[6] >= 0
		before, after := before(low, m[0]), low[m[1]:]
		q := quantity{value: v, text: strings.TrimSpace(low[m[0]:m[1]])}
		switch {
		case currency || kAfter || afterThousand.MatchString(after) || afterMoney.MatchString(after) || beforeMoney.MatchString(before):
			q.kind = kindMoney
			if kAfter || afterThousand.MatchString(after) {
				q.value *= 1000
			}
		case afterAge.MatchString(after):
			q.kind = kindAge
		case afterAgo.MatchString(after):
			continue
		case afterYears.MatchString(after):
			if beforeFor.MatchString(before) {
				continue // "for 5 years": a duration
			}
			q.kind = kindAge
		case afterCM.MatchString(after):
			q.kind = kindHeight
		case afterM.MatchString(after) && v > 0.5 && v < 2.6:
			q.kind, q.value = kindHeight, math.Round(v*100)
		case afterKids.MatchString(after) || beforeKids.MatchString(before):
			q.kind = kindKids
		case afterSiblings.MatchString(after):
			q.kind = kindSiblings
		case afterMinutes.MatchString(after):
			q.kind = kindMinutes
		case afterKM.MatchString(after):
			q.kind = kindDistance
		case beforeAge.MatchString(before) && v >= 1 && v < 125:
			q.kind = kindAge
		default:
			continue
		}
		out = append(out, q)
	}
	return out
}

// commonWords are capitalised at the start of a sentence without being names.
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the i i'm i've i'd i'll me my mine we we're our us you your he she it it's they
		their this that these those there here what who whom which when where why how yes no not
		and but or so if then because as at by for from in into of on onto to with without about
		after before over under again still just only also very really honestly actually anyway
		remember like as long got spent walked took woke gave dug bought someone ended had cleared
		first last next new old big quick great good bad sorry hope coffee where okay ok random right
		morning evening night today tonight yesterday tomorrow weekend week month year ugh ha haha lol
		wait fun correction according guess finally nothing single still moving home work
		monday tuesday wednesday thursday friday saturday sunday january february march april may
		june july august september october november december christmas easter spring summer autumn
		winter mum mom dad sister brother grandma grandpa aunt uncle cousin friend boss neighbour
		colleague flatmate therapist family another every each all some any most much many
		signed heading jogged treated ordered opened grilled booked planning cooked went finished
		drove missed met feeling being having going doing making getting
		spent stuck long day days fill had told said says keeps can't cannot don't didn't won't
		tbh btw omg big news nope me me? dear hey hi hello bye`) {
		m[w] = true
	}
	return m
}()

// capsSequences returns the runs of capitalised words in the original text that are not
// common sentence starters: names of people, places and employers ("Riverside Hospital",
// "New York"). Connectors inside a run ("of", "&", "the") are kept.
func capsSequences(orig string) []string {
	toks := strings.FieldsFunc(orig, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:!?.()\"", r)
	})
	var out []string
	var cur []string
	flush := func() {
		for len(cur) > 0 && isConnector(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
		}
		cur = nil
	}
	for _, tok := range toks {
		w := strings.TrimSuffix(strings.TrimSuffix(tok, "'s"), "'")
		r := firstRune(w)
		switch {
		case unicode.IsUpper(r) && !commonWords[strings.ToLower(w)] && !isAllCapsShort(w):
			cur = append(cur, w)
		case len(cur) > 0 && isConnector(w):
			cur = append(cur, w)
		default:
			flush()
		}
		if w != tok { // a possessive ends the run
			flush()
		}
	}
	flush()
	return out
}

func isConnector(w string) bool { return w == "of" || w == "&" || w == "the" || w == "de" }

// isAllCapsShort reports initialisms like "GP" or "HR", which are job titles, not names.
func isAllCapsShort(w string) bool {
	if len(w) > 3 || len(w) < 2 {
		return false
	}
	return strings.ToUpper(w) == w
}

// contentStems are the stems of t's words that carry meaning for the slot: no function
// words, no cue words about liking or frequency.
func contentStems(t *text) map[string]bool {
	out := map[string]bool{}
	for _, w := range t.words {
		if stopWords[w] || len(w) < 3 {
			continue
		}
		if _, err := strconv.Atoi(w); err == nil {
			continue
		}
		out[stem(w)] = true
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and but for with from into onto about after before over under again still
		just only also very really honestly actually anyway always never often every each most much many
		some any all this that these those there here what who whom which when where why how yes not
		i'm i've i'd i'll you your he she it it's its they them their our ours mine my me was were are is
		be been being have has had having do does did doing done can can't cannot could would should will
		won't don't didn't doesn't isn't aren't wasn't love loves like likes adore hate hates stand fan fans
		enjoy enjoys avoid avoids prefer favourite favorite comes when big no one two three four five six seven
		eight nine ten times time week weeks weekend weekends day days daily evening evenings morning mornings
		night nights sunday saturday single almost whenever free keeps sane find you'll hobby hobbies thing
		things way lot lots bit little told said says say mentioned like remember course yeah get got
		thought think know knew make made let tell mean well year years month months twice once ago last
		next new old first sure quite pretty rather so too then than because while since until also
		always yes yep nope okay ok lol haha honestly tbh btw omg really truly deeply general particular
		otherwise only except unless eh meh if that's there's what's anyway wait today tonight these
		those people everyone someone something anything everything nothing plan planning answer verdict`) {
		m[w] = true
	}
	return m
}()
