package retrieval

import (
	"context"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func links(pairs ...string) []Link {
	var out []Link
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Link{Type: LinkType(pairs[i]), To: pairs[i+1]})
	}
	return out
}

// bank is a small user's memory:
//   - home: c1 Berlin (superseded) → t1 the move (transition) → c2 Lisbon (active);
//   - job: j1 nurse (superseded) → j2 pharmacist (active), a plain supersession;
//   - diet: d1 vegetarian (active) with d2 fish on Fridays, its scoped exception;
//   - hobbies: h1 climbing (active, no slot), h2 bouldering gym (its semantic
//     neighbour), u1 a record whose state is unknown.
func bank() []Candidate {
	return []Candidate{
		{ID: "c1", Content: "I live in Berlin.", Slot: "user.city", Status: StatusSuperseded, EventTime: day("2019-03-01"),
			Links: links("superseded_by", "c2", "evolves_to", "t1")},
		{ID: "t1", Content: "I moved from Berlin to Lisbon.", Slot: "user.city", Status: StatusTransition, EventTime: day("2023-05-10"),
			Links: links("evolves_from", "c1", "evolves_to", "c2")},
		{ID: "c2", Content: "I live in Lisbon now.", Slot: "user.city", Status: StatusActive, EventTime: day("2023-05-12"),
			Links: links("supersedes", "c1", "evolves_from", "t1")},
		{ID: "j1", Content: "I work as a nurse at Riverside Hospital.", Slot: "user.job", Status: StatusSuperseded, EventTime: day("2018-01-15"),
			Links: links("superseded_by", "j2")},
		{ID: "j2", Content: "I am a pharmacist at Crescent Pharmacy.", Slot: "user.job", Status: StatusActive, EventTime: day("2022-09-01"),
			Links: links("supersedes", "j1")},
		{ID: "d1", Content: "I am vegetarian.", Slot: "user.diet", Status: StatusActive, EventTime: day("2020-06-01"),
			Links: links("scoped_exception", "d2")},
		{ID: "d2", Content: "I eat fish on Fridays.", Slot: "user.diet", Status: StatusActive, EventTime: day("2021-02-05"),
			Links: links("scoped_exception", "d1")},
		{ID: "h1", Content: "I like climbing.", Status: StatusActive, EventTime: day("2021-07-01")},
		{ID: "h2", Content: "I go to the bouldering gym on Tuesdays.", Status: StatusActive, EventTime: day("2021-08-01")},
		{ID: "u1", Content: "Maybe I will adopt a cat.", Status: StatusUnknown},
	}
}

func bankGraph() *MapGraph {
	return NewMapGraph(bank(), map[string][]string{"h1": {"h2", "d1", "j2", "c2"}})
}

func byID(id string) Candidate {
	for _, c := range bank() {
		if c.ID == id {
			return c
		}
	}
	panic("no record " + id)
}

// seeds returns the bank's records with the given ids, as host hits.
func seeds(ids ...string) []Candidate {
	out := make([]Candidate, len(ids))
	for i, id := range ids {
		out[i] = byID(id)
		out[i].Score = 1 / float64(i+1)
	}
	return out
}

func ids(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// fakeGraph is a Graph with function fields.
type fakeGraph struct {
	get        func(ctx context.Context, id string) (Candidate, bool, error)
	neighbours func(ctx context.Context, id string) ([]string, error)
}

func (f fakeGraph) Get(ctx context.Context, id string) (Candidate, bool, error) {
	return f.get(ctx, id)
}

func (f fakeGraph) Neighbours(ctx context.Context, id string) ([]string, error) {
	if f.neighbours == nil {
		return nil, nil
	}
	return f.neighbours(ctx, id)
}
