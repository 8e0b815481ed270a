package facts

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fact is one thing a memory states about one subject: "I moved to Porto" is the fact
// user/home = Porto.
type Fact struct {
	// Subject is whose fact it is, in kebab case: "user" for the speaker when the host
	// stores no speaker name, else the speaker's name ("caroline"); a name or a relation
	// word for others ("theo", "sister", "manager"); a described group or thing
	// ("mobile-team", "project").
	Subject string `json:"subject"`
	// Attribute is what a question would ask about, in kebab case: "home", "employer",
	// "standup-time". Attributes are open: the table in attributes.go is where the offline
	// extractor starts, not a limit.
	Attribute string `json:"attribute"`
	// Value is the entity, number or phrase the fact is about: "Porto", "1,450", "9:30".
	Value string `json:"value"`
	// Negated says the value no longer holds (or never did): "sold the bike", "we split
	// up", "don't drink coffee anymore".
	Negated bool `json:"negated,omitempty"`
	// Scope is the condition the fact holds under, when the text states one: "except on
	// fridays", "only when I travel".
	Scope string `json:"scope,omitempty"`
	// EventTime is when the fact became true when the text says ("back in March"),
	// resolved against Input.Time; zero when not stated.
	EventTime time.Time `json:"event_time,omitzero"`
	// Confidence is how sure the extractor is that the memory states this fact, in
	// (0, 1]: the offline extractor's attribute score for a fact read by meaning, 1 for
	// one read from the clause's form. Zero means not given and counts as certain.
	Confidence float64 `json:"confidence,omitempty"`
	// defaultOwner marks, within one extraction, a fact whose subject is the speaker only
	// because its clause names no owner (an event's schedule: scheduleFacts), so that
	// ownersByAttribute may give it to the one who has the slot. Cleared before return.
	defaultOwner bool
	// genericEvent marks, likewise, a schedule fact whose event is only a generic word
	// ("training", "lessons"): knownEvents may give it a known event's slot.
	genericEvent bool
	// aside marks, likewise, a fact said on the way to the memory's own ("my manager
	// Dana" of "my manager Dana said …"): ordered after the others (orderFacts).
	aside bool
}

// DefaultFactMin is the least confidence of a fact that its memory takes a slot by (the
// overlay's default Config.FactMin). Measured with the use-lite backbone on the corpus's
// dev split and LoCoMo (see docs/benchmarks.md, "Fact confidence").
const DefaultFactMin = 0.52

// Certain reports whether the fact is sure enough for its memory to take a slot:
// Confidence is unknown (0) or at least min.
func (f Fact) Certain(min float64) bool { return f.Confidence == 0 || f.Confidence >= min }

// Slot is the fact's slot key, "<subject>/<attribute>": "user/home", "theo/hobby",
// "mobile-team/project". Two facts share a version group exactly when their slots are
// equal, so facts about different subjects never share one.
func (f Fact) Slot() string { return Kebab(f.Subject) + "/" + Kebab(f.Attribute) }

// Group is the fact's version group key: Slot for a single-valued attribute
// ("user/home": one current value), and Slot plus the value for a multi-valued one
// ("user/pet/miso"), since each value of a multi-valued attribute has a history of its
// own (taken in, given away, taken in again) beside the others.
func (f Fact) Group() string {
	if SingleValued(f.Attribute) {
		return f.Slot()
	}
	return f.Slot() + "/" + Kebab(f.Value)
}

// Input is one memory to extract facts from.
type Input struct {
	// Text is the memory as stored, possibly with a "Name: " speaker prefix.
	Text string `json:"text"`
	// Time is when it was said; relative times ("last month") resolve against it. Zero
	// means now.
	Time time.Time `json:"time,omitzero"`
	// Speaker is the speaker's name when the host stores one (from a "Name: " prefix);
	// first person then means that speaker.
	Speaker string `json:"speaker,omitempty"`
	// Slots are the user's nearest existing slot keys, for reuse: a fact that fits one of
	// them takes its key rather than a new one.
	Slots []string `json:"slots,omitempty"`
	// Values are recent values of some of Slots, by slot key, newest first: a memory
	// that names one of them is about that slot ("whistler is sold out, so we're doing
	// banff instead"; "farah's back on platform").
	Values map[string][]string `json:"values,omitempty"`
	// Ended are values some of Slots held and no longer hold, by slot key, newest
	// first: a memory that says one is taken up again names it ("back on YNAB" after
	// "cancelled YNAB").
	Ended map[string][]string `json:"ended,omitempty"`
	// Vector is the backbone's vector of Text when the caller has one (the overlay
	// embeds every memory anyway): the offline extractor then does not embed it again.
	// It must come from the extractor's own embedder.
	Vector []float32 `json:"-"`
	// Referent is the third party the user's previous memory named or referred to last
	// (that memory's Result.Referent): whom this memory's "he", "her" or "his" means
	// when it names nobody first. Within one Extract call each input's referent follows
	// from the inputs before it; a non-empty Referent of a later input overrides that.
	Referent string `json:"referent,omitempty"`
}

// Result is what one Input yields.
type Result struct {
	Facts []Fact `json:"facts"`
	// Source is "offline" or the model's name.
	Source string `json:"source"`
	// Why says why no fact was found, or why a fallback happened.
	Why string `json:"why,omitempty"`
	// Referent is the third party a pronoun in the next memory refers to after this one
	// (see Input.Referent); empty when the extractor does not track one.
	Referent string `json:"referent,omitempty"`
}

// SourceOffline is Result.Source for the offline extractor.
const SourceOffline = "offline"

// Extractor turns memories into facts: one Result per Input, in the same order.
//
// The inputs of one call are one user's memories in arrival order. Extractors use that
// order: each input also sees the slots the extractor produced for the inputs before it
// in the call (besides its own Input.Slots), and a pronoun ("she's moved to Leeds")
// resolves to the last third party named before it in the call.
type Extractor interface {
	Extract(ctx context.Context, in []Input) ([]Result, error)
}

// Kebab turns a subject or attribute into its key form: lower case, letters and digits,
// single dashes ("Mobile Team" → "mobile-team", "Tomás" → "tomas", "phone_number" →
// "phone-number"). It is stable: Kebab(Kebab(s)) == Kebab(s).
func Kebab(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		r = fold(r)
		switch {
		case r == '\'' || r == '’':
			// "o'brien" → "obrien"
		case unicode.IsLetter(r) && r < unicode.MaxASCII, unicode.IsDigit(r) && r < unicode.MaxASCII:
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}

// fold maps a Latin letter with diacritics to its base letter, so that a name typed with
// or without its accents ("tomás", "tomas"; "thảo", "thao") has one key: the first rune
// of its canonical decomposition, as fts.Tokenize drops the marks, and for the letters
// that Unicode does not decompose (ø, đ, ł), a table.
func fold(r rune) rune {
	if r < 0x80 {
		return r
	}
	if d := []rune(norm.NFD.String(string(r))); d[0] < 0x80 {
		return d[0]
	}
	switch r {
	case 'ø':
		return 'o'
	case 'đ':
		return 'd'
	case 'ł':
		return 'l'
	}
	return r
}

// Names reports whether text names value by all its words, each of three letters or
// more (a number of three digits or more counts): "been seeing someone called Tomás"
// names Tomás; "vitamin D" is not named by its "D".
func Names(text, value string) bool {
	return mentions(spacedWords(text), value)
}

// Asks reports whether text asks something (one of its sentences is a question): such a
// memory states no fact.
func Asks(text string) bool {
	return slices.ContainsFunc(sentences(text), func(s sentence) bool { return s.question })
}

// NameOneThing reports whether two texts name one thing in a word of its own that both
// hold: a word of four letters or more that is no common word, verb form, unit or number
// ("sonic" in "sonic fiber finally reached our street. 1 gig for $50" and "sonic promo
// ended, $65/mo from this bill"; "barclays"), but for the words in except (a speaker's
// name, which a "Marco: " prefix puts in every memory). The overlay joins an amount read by
// meaning to the slot of the one earlier amount whose memory names the same thing.
func NameOneThing(a, b string, except ...string) bool {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
			w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
			if utf8.RuneCountInString(w) >= 4 && !notName(w) && !verbForm(w) && !nounShaped(w) && !countUnits[w] && !countUnits[w+"s"] && !slices.Contains(except, w) {
				m[w] = true
			}
		}
		return m
	}
	wa := words(a)
	for w := range words(b) {
		if wa[w] {
			return true
		}
	}
	return false
}
