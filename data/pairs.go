package data

import (
	"fmt"
	"math/rand/v2"
)

// Pair is one training example of the Sentry gate: an interaction and a fact of the same
// profile, with a topic label (same slot or not) and a logic label (agrees or not).
type Pair struct {
	InteractionID string `json:"interaction_id"`
	// FactID is the fact's profile id and slot key, "p001/job".
	FactID          string `json:"fact_id"`
	ProfileID       string `json:"profile_id"`
	SlotKey         string `json:"slot_key"` // the fact's slot
	InteractionText string `json:"interaction_text"`
	FactText        string `json:"fact_text"`
	// YTop is 1 when the fact is in the interaction's slot, 0 for an irrelevant fact.
	YTop int `json:"y_top"`
	// YLog is 1 when the interaction agrees with the fact: a consistent interaction with its
	// own slot's fact. It is 0 for conflicting interactions and for irrelevant facts.
	YLog int `json:"y_log"`
	// Category and UpdateType are the interaction's (its slot's category).
	Category   Category   `json:"category"`
	UpdateType UpdateType `json:"update_type"`
	// Conflicting says whether the interaction conflicts with its own slot's fact; it is set
	// on both pairs of a conflicting interaction.
	Conflicting bool   `json:"conflicting"`
	Family      string `json:"family,omitempty"`
}

// FactID names a fact: its profile id and slot key.
func FactID(profileID, slotKey string) string { return profileID + "/" + slotKey }

// BuildPairs makes two pairs per interaction, as the paper does: the interaction with the
// fact in its own slot (YTop 1, YLog 1 when consistent and 0 when conflicting), then with
// one irrelevant fact of the same profile (YTop 0, YLog 0), drawn with rng from the facts of
// other topics, or of other slots when every fact shares the topic. The dataset must be
// valid and every profile with interactions must have at least two facts.
func BuildPairs(d *Dataset, rng *rand.Rand) ([]Pair, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("build pairs: %w", err)
	}
	profiles := make(map[string]*Profile, len(d.Profiles))
	for i := range d.Profiles {
		profiles[d.Profiles[i].ID] = &d.Profiles[i]
	}
	pairs := make([]Pair, 0, 2*len(d.Interactions))
	var others []int
	for _, in := range d.Interactions {
		p := profiles[in.ProfileID]
		own, _ := p.Fact(in.SlotKey)
		base := Pair{
			InteractionID: in.ID, ProfileID: p.ID, InteractionText: in.Text, Category: own.Category,
			UpdateType: in.UpdateType, Conflicting: in.Conflicting(), Family: in.Family,
		}
		same := base
		same.FactID, same.SlotKey, same.FactText, same.YTop = FactID(p.ID, own.SlotKey), own.SlotKey, own.Text, 1
		if !in.Conflicting() {
			same.YLog = 1
		}

		others = others[:0]
		for j, f := range p.Facts {
			if f.TopicKey != own.TopicKey {
				others = append(others, j)
			}
		}
		if len(others) == 0 {
			for j, f := range p.Facts {
				if f.SlotKey != own.SlotKey {
					others = append(others, j)
				}
			}
		}
		if len(others) == 0 {
			return nil, fmt.Errorf("build pairs: interaction %s: profile %s has no fact besides %s to pair as irrelevant", in.ID, p.ID, own.SlotKey)
		}
		f := p.Facts[others[rng.IntN(len(others))]]
		irr := base
		irr.FactID, irr.SlotKey, irr.FactText = FactID(p.ID, f.SlotKey), f.SlotKey, f.Text
		pairs = append(pairs, same, irr)
	}
	return pairs, nil
}
