package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Category is what a fact is about. The seven categories are the paper's; each has one
// update type (Category.UpdateType).
type Category string

// The seven fact categories.
const (
	CategoryJob          Category = "job"
	CategoryLocation     Category = "location"
	CategoryRelationship Category = "relationship"
	CategoryPets         Category = "pets"
	CategoryHobbies      Category = "hobbies"
	CategoryLikes        Category = "likes_dislikes"
	CategoryNumerical    Category = "numerical"
)

// UpdateType is how an interaction can contradict a fact.
type UpdateType string

// Update types. The first four follow the category; ImplicitViolation is a conflict stated
// indirectly ("I'm vegetarian" vs "had a great steak last night") and may occur in any
// category.
const (
	UpdateTemporal          UpdateType = "temporal_update"    // job, location: the value changed over time
	UpdateExplicitNegation  UpdateType = "explicit_negation"  // relationship, pets: the fact is denied
	UpdateValueDiscrepancy  UpdateType = "value_discrepancy"  // numerical: another number is stated
	UpdateScopeMismatch     UpdateType = "scope_mismatch"     // hobbies, likes/dislikes: narrower or wider than stated
	UpdateImplicitViolation UpdateType = "implicit_violation" // any category: contradicted by implication
)

// Relation is how an interaction stands to the fact in its slot.
type Relation string

// Relations.
const (
	Consistent  Relation = "consistent"
	Conflicting Relation = "conflicting"
)

var (
	categories  = []Category{CategoryJob, CategoryLocation, CategoryRelationship, CategoryPets, CategoryHobbies, CategoryLikes, CategoryNumerical}
	updateTypes = []UpdateType{UpdateTemporal, UpdateExplicitNegation, UpdateValueDiscrepancy, UpdateScopeMismatch, UpdateImplicitViolation}
	relations   = []Relation{Consistent, Conflicting}
)

// Categories lists the seven categories in schema order.
func Categories() []Category { return slices.Clone(categories) }

// UpdateType is the category's own update type: temporal update for job and location,
// explicit negation for relationship and pets, value discrepancy for numerical facts, scope
// mismatch for hobbies and likes/dislikes. It is empty for an unknown category.
func (c Category) UpdateType() UpdateType {
	switch c {
	case CategoryJob, CategoryLocation:
		return UpdateTemporal
	case CategoryRelationship, CategoryPets:
		return UpdateExplicitNegation
	case CategoryNumerical:
		return UpdateValueDiscrepancy
	case CategoryHobbies, CategoryLikes:
		return UpdateScopeMismatch
	}
	return ""
}

// Valid reports whether c is one of the seven categories.
func (c Category) Valid() bool { return slices.Contains(categories, c) }

// Valid reports whether u is a known update type.
func (u UpdateType) Valid() bool { return slices.Contains(updateTypes, u) }

// Valid reports whether r is Consistent or Conflicting.
func (r Relation) Valid() bool { return slices.Contains(relations, r) }

// Fact is one thing a profile states about its user.
type Fact struct {
	// SlotKey names the attribute the fact fills ("job", "pet.1", "likes.food"); unique
	// within a profile. Interactions refer to facts by it.
	SlotKey string `json:"slot_key"`
	// TopicKey is the broader topic ("work", "pets", "food"); several slots may share one.
	// Irrelevant pairs are drawn from other topics when the profile has any.
	TopicKey string   `json:"topic_key"`
	Category Category `json:"category"`
	// Value is the fact in short form ("nurse at Riverside Hospital", "34 years").
	Value string `json:"value"`
	// Text is the fact as the user said it.
	Text string `json:"text"`
}

// Profile is one user's facts.
type Profile struct {
	ID    string `json:"id"`
	Facts []Fact `json:"facts"`
}

// Fact returns the fact in the given slot.
func (p *Profile) Fact(slot string) (Fact, bool) {
	for _, f := range p.Facts {
		if f.SlotKey == slot {
			return f, true
		}
	}
	return Fact{}, false
}

// Interaction is one thing the user says later, about one slot of their profile.
type Interaction struct {
	ID        string `json:"id"`
	ProfileID string `json:"profile_id"`
	SlotKey   string `json:"slot_key"`
	Text      string `json:"text"`
	// Relation says whether Text agrees with the slot's fact or contradicts it.
	Relation Relation `json:"relation"`
	// UpdateType is the kind of contradiction the slot is open to: its category's update
	// type, or ImplicitViolation. Consistent interactions carry it too, so the two relations
	// of one kind can be compared.
	UpdateType UpdateType `json:"update_type"`
	// Value is what Text asserts in the fact's short form (for a conflicting interaction,
	// the new value); empty when Text states no value outright.
	Value string `json:"value,omitempty"`
	// Family is the phrasing family Text was written in ("job/reported"); empty for data
	// that was not generated.
	Family string `json:"family,omitempty"`
}

// Conflicting reports whether the interaction contradicts its slot's fact.
func (in *Interaction) Conflicting() bool { return in.Relation == Conflicting }

// Dataset is a set of profiles and the interactions about them. Its methods do not modify
// it and are safe for concurrent use.
type Dataset struct {
	Profiles     []Profile     `json:"profiles"`
	Interactions []Interaction `json:"interactions"`
}

// Profile returns the profile with the given id.
func (d *Dataset) Profile(id string) (*Profile, bool) {
	for i := range d.Profiles {
		if d.Profiles[i].ID == id {
			return &d.Profiles[i], true
		}
	}
	return nil, false
}

// Patterns of identifiers; the JSON Schema documents carry the same ones.
const (
	idPattern     = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`
	keyPattern    = `^[a-z0-9][a-z0-9_.-]{0,63}$`
	familyPattern = `^[a-z0-9][a-z0-9_.-]{0,63}(/[a-z0-9][a-z0-9_.-]{0,63})?$`
)

var (
	idRE     = regexp.MustCompile(idPattern)
	keyRE    = regexp.MustCompile(keyPattern)
	familyRE = regexp.MustCompile(familyPattern)
)

// Hash is the hex sha256 of the dataset's canonical JSON: one object
// {"profiles":[…],"interactions":[…]}, fields in schema order, omitted optional fields left
// out, no insignificant whitespace, HTML characters not escaped. Checkpoints record it.
func (d *Dataset) Hash() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		// The types hold only strings and slices: encoding cannot fail.
		panic(fmt.Sprintf("encode dataset: %v", err))
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:])
}

// Validate reports every problem with the dataset at once: malformed or duplicate ids and
// keys, unknown categories, relations and update types, interactions about profiles or
// slots that do not exist, and update types that do not fit the slot's category. Problems
// are located as profiles[i].facts[j].field and interactions[i].field; the error is a
// *LoadError.
func (d *Dataset) Validate() error {
	ps := memSource("profiles")
	is := memSource("interactions")
	var probs []Problem
	add := func(p Problem) { probs = append(probs, p) }
	checkProfiles(d.Profiles, ps, add)
	checkInteractions(d.Interactions, is, add)
	checkLinks(d.Profiles, d.Interactions, is, add)
	if len(probs) > 0 {
		return &LoadError{Problems: probs}
	}
	return nil
}

// enumList formats allowed values for messages: "job, location, …".
func enumList[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

func checkProfiles(ps []Profile, src *source, add func(Problem)) {
	first := map[string]int{}
	for i, p := range ps {
		at := func(path, format string, args ...any) {
			if pr, ok := src.at(i, path, fmt.Sprintf(format, args...)); ok {
				add(pr)
			}
		}
		switch {
		case p.ID == "":
			at("id", "empty id")
		case !idRE.MatchString(p.ID):
			at("id", "id %q does not match %s", p.ID, idPattern)
		default:
			if j, dup := first[p.ID]; dup {
				at("id", "duplicate profile id %q (first %s)", p.ID, src.where(j))
			} else {
				first[p.ID] = i
			}
		}
		if len(p.Facts) == 0 {
			at("facts", "no facts")
		}
		slots := map[string]int{}
		for j, f := range p.Facts {
			fp := fmt.Sprintf("facts[%d].", j)
			switch {
			case f.SlotKey == "":
				at(fp+"slot_key", "empty slot key")
			case !keyRE.MatchString(f.SlotKey):
				at(fp+"slot_key", "slot key %q does not match %s", f.SlotKey, keyPattern)
			default:
				if k, dup := slots[f.SlotKey]; dup {
					at(fp+"slot_key", "duplicate slot key %q (also facts[%d])", f.SlotKey, k)
				} else {
					slots[f.SlotKey] = j
				}
			}
			switch {
			case f.TopicKey == "":
				at(fp+"topic_key", "empty topic key")
			case !keyRE.MatchString(f.TopicKey):
				at(fp+"topic_key", "topic key %q does not match %s", f.TopicKey, keyPattern)
			}
			if !f.Category.Valid() {
				at(fp+"category", "unknown category %q (want %s)", f.Category, enumList(categories))
			}
			if strings.TrimSpace(f.Value) == "" {
				at(fp+"value", "empty value")
			}
			if strings.TrimSpace(f.Text) == "" {
				at(fp+"text", "empty text")
			}
		}
	}
}

func checkInteractions(is []Interaction, src *source, add func(Problem)) {
	first := map[string]int{}
	for i, in := range is {
		at := func(path, format string, args ...any) {
			if pr, ok := src.at(i, path, fmt.Sprintf(format, args...)); ok {
				add(pr)
			}
		}
		switch {
		case in.ID == "":
			at("id", "empty id")
		case !idRE.MatchString(in.ID):
			at("id", "id %q does not match %s", in.ID, idPattern)
		default:
			if j, dup := first[in.ID]; dup {
				at("id", "duplicate interaction id %q (first %s)", in.ID, src.where(j))
			} else {
				first[in.ID] = i
			}
		}
		switch {
		case in.ProfileID == "":
			at("profile_id", "empty profile id")
		case !idRE.MatchString(in.ProfileID):
			at("profile_id", "profile id %q does not match %s", in.ProfileID, idPattern)
		}
		switch {
		case in.SlotKey == "":
			at("slot_key", "empty slot key")
		case !keyRE.MatchString(in.SlotKey):
			at("slot_key", "slot key %q does not match %s", in.SlotKey, keyPattern)
		}
		if strings.TrimSpace(in.Text) == "" {
			at("text", "empty text")
		}
		if !in.Relation.Valid() {
			at("relation", "unknown relation %q (want %s)", in.Relation, enumList(relations))
		}
		if !in.UpdateType.Valid() {
			at("update_type", "unknown update type %q (want %s)", in.UpdateType, enumList(updateTypes))
		}
		if in.Family != "" && !familyRE.MatchString(in.Family) {
			at("family", "family %q does not match %s", in.Family, familyPattern)
		}
	}
}

// checkLinks checks each interaction against its profile: the profile and slot exist and
// the update type fits the slot's category.
func checkLinks(ps []Profile, is []Interaction, src *source, add func(Problem)) {
	byID := make(map[string]*Profile, len(ps))
	for i := range ps {
		if _, dup := byID[ps[i].ID]; !dup {
			byID[ps[i].ID] = &ps[i]
		}
	}
	for i, in := range is {
		at := func(path, format string, args ...any) {
			if pr, ok := src.at(i, path, fmt.Sprintf(format, args...)); ok {
				add(pr)
			}
		}
		if in.ProfileID == "" || in.SlotKey == "" {
			continue // reported already
		}
		p, ok := byID[in.ProfileID]
		if !ok {
			at("profile_id", "no profile %q", in.ProfileID)
			continue
		}
		f, ok := p.Fact(in.SlotKey)
		if !ok {
			at("slot_key", "profile %q has no slot %q", in.ProfileID, in.SlotKey)
			continue
		}
		if !f.Category.Valid() || !in.UpdateType.Valid() {
			continue
		}
		if want := f.Category.UpdateType(); in.UpdateType != want && in.UpdateType != UpdateImplicitViolation {
			at("update_type", "update type %q does not fit category %q of slot %q (want %s or %s)",
				in.UpdateType, f.Category, in.SlotKey, want, UpdateImplicitViolation)
		}
	}
}
