package data

// Counts are consistent and conflicting interactions of one kind.
type Counts struct {
	Consistent  int `json:"consistent"`
	Conflicting int `json:"conflicting"`
}

// Total is the number of interactions counted.
func (c Counts) Total() int { return c.Consistent + c.Conflicting }

func (c *Counts) add(in *Interaction) {
	if in.Conflicting() {
		c.Conflicting++
	} else {
		c.Consistent++
	}
}

// Stats describes a dataset.
type Stats struct {
	Profiles     int `json:"profiles"`
	Facts        int `json:"facts"`
	Interactions int `json:"interactions"`
	// DistinctTexts is the number of different interaction texts.
	DistinctTexts int                   `json:"distinct_texts"`
	All           Counts                `json:"all"`
	ByCategory    map[Category]Counts   `json:"by_category"`
	ByUpdateType  map[UpdateType]Counts `json:"by_update_type"`
	ByFamily      map[string]Counts     `json:"by_family,omitempty"`
}

// Stats counts the dataset's profiles, facts and interactions, the latter by category (of
// their slot), update type and phrasing family.
func (d *Dataset) Stats() Stats {
	s := Stats{
		Profiles: len(d.Profiles), Interactions: len(d.Interactions),
		ByCategory: map[Category]Counts{}, ByUpdateType: map[UpdateType]Counts{}, ByFamily: map[string]Counts{},
	}
	cat := map[string]Category{}
	for _, p := range d.Profiles {
		s.Facts += len(p.Facts)
		for _, f := range p.Facts {
			cat[FactID(p.ID, f.SlotKey)] = f.Category
		}
	}
	texts := map[string]bool{}
	for i := range d.Interactions {
		in := &d.Interactions[i]
		texts[in.Text] = true
		s.All.add(in)
		bump(s.ByCategory, cat[FactID(in.ProfileID, in.SlotKey)], in)
		bump(s.ByUpdateType, in.UpdateType, in)
		if in.Family != "" {
			bump(s.ByFamily, in.Family, in)
		}
	}
	s.DistinctTexts = len(texts)
	return s
}

func bump[K comparable](m map[K]Counts, k K, in *Interaction) {
	c := m[k]
	c.add(in)
	m[k] = c
}
