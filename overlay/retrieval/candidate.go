package retrieval

import (
	"context"
	"slices"
	"time"
)

// Status is where a record stands in its user's current state. The values are those of
// overlay/store's Status, so an adapter converts with Status(r.Status).
type Status string

// Statuses.
const (
	StatusActive     Status = "active"     // holds now
	StatusSuperseded Status = "superseded" // replaced by a newer record, or retracted
	StatusTransition Status = "transition" // describes a change between an old and a new state
	StatusUnknown    Status = "unknown"    // the overlay could not tell
)

// LinkType names a typed link between two records; the values are overlay/store's.
type LinkType string

// Link types.
const (
	LinkSupersedes      LinkType = "supersedes"       // newer → older it replaced
	LinkSupersededBy    LinkType = "superseded_by"    // older → newer that replaced it
	LinkEvolvesFrom     LinkType = "evolves_from"     // transition → old state, new → transition
	LinkEvolvesTo       LinkType = "evolves_to"       // transition → new state, old → transition
	LinkScopedException LinkType = "scoped_exception" // symmetric: an exception within a rule's scope
	LinkCoexistsWith    LinkType = "coexists_with"    // symmetric: both hold at once
)

// Link is one outgoing typed link.
type Link struct {
	Type LinkType `json:"type"`
	To   string   `json:"to"`
}

// Source says how a candidate entered the evidence pool.
type Source string

// Sources.
const (
	SourceSeed        Source = "seed"        // a hit of the host's retrieval
	SourceSuccessor   Source = "successor"   // a newer state, reached from a stale record
	SourcePredecessor Source = "predecessor" // an older state
	SourceTransition  Source = "transition"  // a transition record reached by a relation hop
	SourceNeighbour   Source = "neighbour"   // a scoped exception, a coexisting record or a semantic neighbour
)

// Candidate is the view of a memory record that retrieval works on. An adapter fills it
// from the bank (overlay/store.Record) and the host's hits; retrieval never changes the
// record fields, only Source, SeedRank and TransitionLinked.
type Candidate struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	// Slot is the state the record is a value of: a fact's key, "<subject>/<attribute>"
	// ("user/home"), or "slot:<record id>" for a group a supersession made without
	// facts; empty when unknown.
	Slot   string `json:"slot,omitempty"`
	Status Status `json:"status"`
	// EventTime is when what the record states happened or was said; zero when unknown.
	EventTime time.Time `json:"event_time,omitzero"`
	// Links are the record's outgoing links.
	Links []Link `json:"links,omitempty"`

	// Source says how the candidate entered the pool; BuildPool sets it.
	Source Source `json:"source,omitempty"`
	// SeedRank is the position (from 0) of the seed the candidate came from: its own for
	// a seed, its origin's for a hop. BuildPool sets it.
	SeedRank int `json:"seed_rank"`
	// Score is the host's score of a seed; retrieval carries it for the trace only.
	Score float64 `json:"score"`
	// TransitionLinked: the record has an evolves_from or evolves_to link to a
	// transition record. BuildPool sets it from the graph; BuildPacket also sets it when
	// the transition record is among the packet's rows.
	TransitionLinked bool `json:"transition_linked,omitempty"`
}

// Graph is the bank as retrieval reads it: records by id and their semantic neighbours.
// The overlay adapts its store to it. Implementations used concurrently must be safe for
// concurrent use; BuildPool itself calls it from one goroutine.
type Graph interface {
	// Get returns the record with id and true, or false when there is none.
	Get(ctx context.Context, id string) (Candidate, bool, error)
	// Neighbours returns the ids of records semantically near id (by embedding, or
	// the host's own neighbour links), best first; nil when there are none.
	Neighbours(ctx context.Context, id string) ([]string, error)
}

// MapGraph is a Graph held in memory: a fixed set of candidates and neighbour lists. It
// suits tests and callers that load a user's records up front. It is safe for
// concurrent use; it is never changed after NewMapGraph.
type MapGraph struct {
	records    map[string]Candidate
	neighbours map[string][]string
}

var _ Graph = (*MapGraph)(nil)

// NewMapGraph returns a graph of records, with neighbours[id] the semantic neighbours of
// id (may be nil). A later record with the same id replaces an earlier one. The inputs
// are copied.
func NewMapGraph(records []Candidate, neighbours map[string][]string) *MapGraph {
	g := &MapGraph{records: make(map[string]Candidate, len(records)), neighbours: make(map[string][]string, len(neighbours))}
	for _, r := range records {
		r.Links = slices.Clone(r.Links)
		g.records[r.ID] = r
	}
	for id, ns := range neighbours {
		g.neighbours[id] = slices.Clone(ns)
	}
	return g
}

// Get implements Graph.
func (g *MapGraph) Get(_ context.Context, id string) (Candidate, bool, error) {
	r, ok := g.records[id]
	if ok {
		r.Links = slices.Clone(r.Links)
	}
	return r, ok, nil
}

// Neighbours implements Graph.
func (g *MapGraph) Neighbours(_ context.Context, id string) ([]string, error) {
	return slices.Clone(g.neighbours[id]), nil
}
