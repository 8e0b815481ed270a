package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// Defaults of Config.
const (
	DefaultK             = 5
	DefaultMaxDepth      = 3
	DefaultMaxNeighbours = 3
	DefaultMaxPool       = 64
	DefaultMaxAdjacent   = 2
)

// Config tunes the evidence pool. The zero value means defaults.
type Config struct {
	// K is the number of candidates the packet gets; 0 means DefaultK.
	K int
	// MaxDepth bounds the relation hops followed from one seed (a chain old →
	// transition → new is two); 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxNeighbours bounds the semantic neighbours taken per seed; 0 means
	// DefaultMaxNeighbours, a negative value none.
	MaxNeighbours int
	// MaxPool bounds the pool, seeds included; 0 means DefaultMaxPool.
	MaxPool int
	// Order is the pre-rank: OrderAnchored (the default, the paper's) or OrderTierFirst
	// (the order before it, kept for the ablation table).
	Order Order
	// MaxAdjacent bounds the relation hops the anchored order places next to one seed
	// (the nearest, in walk order); the others follow all seeds. 0 means
	// DefaultMaxAdjacent, a negative value none.
	MaxAdjacent int
}

// Order names a pre-rank.
type Order string

// Pre-ranks.
const (
	// OrderAnchored keeps the host's order of the seeds and adds each relation hop next
	// to the seed it came from (see BuildPool); semantic hops come last.
	OrderAnchored Order = "anchored"
	// OrderTierFirst sorts the whole pool by state fit first (StateTier), then by the
	// rank of the seed each record came from (PreRank).
	OrderTierFirst Order = "tier-first"
)

// Valid reports whether o is a known order ("" is the default, anchored).
func (o Order) Valid() bool { return o == "" || o == OrderAnchored || o == OrderTierFirst }

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.K < 0 {
		errs = append(errs, fmt.Errorf("k %d is negative", c.K))
	}
	if c.MaxDepth < 0 {
		errs = append(errs, fmt.Errorf("max depth %d is negative", c.MaxDepth))
	}
	if c.MaxPool < 0 {
		errs = append(errs, fmt.Errorf("max pool %d is negative", c.MaxPool))
	}
	if !c.Order.Valid() {
		errs = append(errs, fmt.Errorf("order %q is not %s or %s", c.Order, OrderAnchored, OrderTierFirst))
	}
	if k, p := c.k(), c.maxPool(); c.K >= 0 && c.MaxPool >= 0 && k > p {
		errs = append(errs, fmt.Errorf("k %d exceeds max pool %d", k, p))
	}
	return errors.Join(errs...)
}

func (c Config) k() int             { return cmp.Or(c.K, DefaultK) }
func (c Config) maxDepth() int      { return cmp.Or(c.MaxDepth, DefaultMaxDepth) }
func (c Config) maxPool() int       { return cmp.Or(c.MaxPool, DefaultMaxPool) }
func (c Config) maxNeighbours() int { return max(cmp.Or(c.MaxNeighbours, DefaultMaxNeighbours), 0) }
func (c Config) maxAdjacent() int   { return max(cmp.Or(c.MaxAdjacent, DefaultMaxAdjacent), 0) }

// View is how a profile steers the pool.
type View struct {
	Mode Mode `json:"mode"`
	// Unsure: the profile is neutral or not confident, so the pool follows both
	// directions and the packet carries both the current and the historical state.
	Unsure bool `json:"unsure"`
	// Successors: newer states of stale seeds are followed (the query is not
	// historical, or the profile is unsure).
	Successors bool `json:"successors"`
	// Predecessors: older states of seeds are followed (the query is not current, or
	// the profile is unsure).
	Predecessors bool `json:"predecessors"`
}

// ViewOf returns the view of a profile.
func ViewOf(p Profile) View {
	v := View{Mode: p.Mode, Unsure: p.Unsure()}
	v.Successors = v.Unsure || p.Mode != ModeHistorical
	v.Predecessors = v.Unsure || p.Mode != ModeCurrent
	return v
}

// bothStates reports whether the packet must carry both an active and a superseded
// record when the pool has them.
func (v View) bothStates() bool { return v.Unsure || v.Mode == ModeTransition }

// adjacent reports whether a seed's hops that go after it stand directly after it (a
// change query, or a profile that leans to no state) rather than after all the seeds.
// A profile that leans to one state on weak cues ("what am I driving?", "do I still
// …") still follows both directions and still gets a stale seed's live successor
// directly before it, but its old states do not push the host's later hits out (cases
// dev unchanged; fresh sets C, F, G, I, K state first +0.009 to +0.018, docs/benchmarks.md,
// session 25).
func (v View) adjacent() bool { return v.Mode == ModeTransition || v.Mode == ModeNeutral }

// Pool is the evidence pool of one query.
type Pool struct {
	View View `json:"view"`
	// K is the packet size the pool was built for.
	K int `json:"k"`
	// Order is the pre-rank Ranked is in.
	Order Order `json:"order"`
	// Ranked is the whole pool in pre-rank order (see BuildPool); the controller sees
	// its first ControllerMaxCandidates.
	Ranked []Candidate `json:"ranked"`
	// Top is the packet without a controller: the first K of Ranked (with the
	// tier-first order, with both states when the view asks for them; see BuildPool).
	Top []Candidate `json:"top"`
}

// Select returns the packet's candidates: Top unless the controller's result was
// applied, else the first K of final (Apply's result).
func (p Pool) Select(final []Candidate, st ControllerStatus) []Candidate {
	if !st.Applied {
		return slices.Clone(p.Top)
	}
	return slices.Clone(final[:min(p.K, len(final))])
}

// BuildPool builds the evidence pool of a query from the host's hits (seeds, best
// first) and the bank (g). It reads g and changes nothing.
//
// The pool holds, each record once:
//  1. the seeds, in their order; a seed with an empty Status is completed from g;
//  2. relation hops, seed by seed: when the view follows successors, the newer states
//     of a stale seed (superseded or transition), along superseded_by and evolves_to
//     links, stopping at an active record; when it follows predecessors, the older
//     states of any seed, along supersedes and evolves_from links; then the
//     transition records linked to the seed (evolves_from, evolves_to) whatever the
//     view. Chains are followed up to MaxDepth links, breadth first, links in type
//     order then by target id;
//  3. neighbour hops, seed by seed: the targets of scoped_exception and coexists_with
//     links, then up to MaxNeighbours of g.Neighbours.
//
// A hop's Source is transition for a transition record, else successor, predecessor or
// neighbour; its SeedRank is its seed's. Links to ids g does not know are skipped, and
// the pool stops growing at MaxPool. TransitionLinked is set on every record with an
// evolves link to a transition record.
//
// Ranked is the pool in the paper's stable pre-rank (OrderAnchored, the default): the
// seeds in the host's order, each with its relation hops next to it — state only adds
// records beside the seed they come from and never moves an unrelated record. Directly
// before a seed go: the live (active) successor of a superseded seed, unless the mode is
// historical or transition; an active seed's newer, active scoped exceptions, when the
// mode is current (and neighbour hops are on); an active seed's older states, when the
// mode is historical or transition (for a change: the old state, the change, the new
// one); its transition records, when the mode is transition. For a historical query
// that names a period, a later state or the first (Profile.Period, Profile.Anchor,
// Profile.Earliest), the state of the seed's slot it asks for goes first of all: the
// last one begun before the period ended, the one just before the state holding the
// anchor's words, or the oldest (among the states supersession links reach from the
// seed, by event time; see order.go). The seed's other relation
// hops follow it directly when the packet must carry both states (View.Unsure or a
// transition query), else after all seeds. At most MaxAdjacent (2) hops, the nearest,
// stand next to a seed, those before it first; the others come after all seeds, then the
// semantic hops. A record placed before a seed ranks with it (SeedRank), and a record
// reached more than once stands where it comes first, so a later seed that is the
// successor of a better one moves up to it. Top is the first K of Ranked: every seed of
// the host's top K is in it, or the packet is full of better seeds and the states placed
// next to them.
//
// With OrderTierFirst, Ranked is PreRank of the pool (state fit first), and when the
// view is unsure or the mode is transition and Top lacks an active or a superseded
// record that Ranked has, the best-ranked one replaces the last member of Top that is
// neither the first nor the only one of its state (when there is none, Top stays as it
// is). Top stays in Ranked's order.
func BuildPool(ctx context.Context, g Graph, p Profile, seeds []Candidate, cfg Config) (Pool, error) {
	if err := cfg.Validate(); err != nil {
		return Pool{}, fmt.Errorf("build pool: %w", err)
	}
	b := poolBuilder{ctx: ctx, g: g, cfg: cfg, index: make(map[string]int), cache: make(map[string]lookup)}
	v := ViewOf(p)
	for i, s := range seeds {
		if s.ID == "" {
			return Pool{}, fmt.Errorf("build pool: seed %d has no id", i)
		}
		if s.Status == "" {
			r, ok, err := b.get(s.ID)
			if err != nil {
				return Pool{}, fmt.Errorf("build pool: seed %q: %w", s.ID, err)
			}
			if ok {
				r.Score = s.Score
				s = r
			}
		}
		b.add(s, SourceSeed, i)
	}
	nSeeds := len(b.pool)
	b.before, b.after = make([][]int, nSeeds), make([][]int, nSeeds)
	for i := range nSeeds {
		seed := b.pool[i]
		if v.Successors && (seed.Status == StatusSuperseded || seed.Status == StatusTransition) {
			// The live successor of a superseded seed goes directly before it unless the
			// query asks for the past or for the change (whose transition record goes
			// there); the states in between follow the seed.
			first := seed.Status == StatusSuperseded && v.Mode != ModeHistorical && v.Mode != ModeTransition
			place := func(r Candidate) bool { return first && r.Status == StatusActive }
			if err := b.walk(seed, i, []LinkType{LinkSupersededBy, LinkEvolvesTo}, SourceSuccessor, true, place); err != nil {
				return Pool{}, err
			}
		}
		if v.Predecessors {
			// For the past or a change, an active seed's older states go directly before it.
			first := (v.Mode == ModeHistorical || v.Mode == ModeTransition) && seed.Status == StatusActive
			place := func(Candidate) bool { return first }
			if err := b.walk(seed, i, []LinkType{LinkSupersedes, LinkEvolvesFrom}, SourcePredecessor, false, place); err != nil {
				return Pool{}, err
			}
		}
		if v.Mode == ModeHistorical && (len(p.Anchor) > 0 || p.Earliest || p.Period != "") && seed.Status != StatusTransition && seed.Slot != "" {
			// "before I switched to cortado", "my first job": the state of the seed's slot
			// the query asks for goes first, before the seed and its other hops.
			states, err := b.slotStates(seed)
			if err != nil {
				return Pool{}, err
			}
			if r, ok := wanted(states, p); ok {
				src := SourcePredecessor
				if r.EventTime.After(seed.EventTime) {
					src = SourceSuccessor
				}
				if j := b.add(r, src, seed.SeedRank); j >= 0 && j != i {
					b.place(i, j, true)
					b.before[i] = append([]int{j}, slices.DeleteFunc(b.before[i], func(k int) bool { return k == j })...)
				}
			}
		}
		if v.Mode == ModeCurrent && seed.Status == StatusActive && b.cfg.maxNeighbours() > 0 {
			// "only on rainy Sundays now" after "four times a week": a newer scoped
			// exception is what holds now within its scope, so it goes directly before
			// the rule it narrows.
			for _, l := range sortedLinks(seed.Links, LinkScopedException) {
				r, ok, err := b.get(l.To)
				if err != nil {
					return Pool{}, err
				}
				if ok && r.Status == StatusActive && r.EventTime.After(seed.EventTime) {
					b.place(i, b.add(r, SourceNeighbour, seed.SeedRank), true)
				}
			}
		}
		for _, l := range sortedLinks(seed.Links, LinkEvolvesFrom, LinkEvolvesTo) {
			r, ok, err := b.get(l.To)
			if err != nil {
				return Pool{}, err
			}
			if ok && r.Status == StatusTransition {
				// A question about a change wants the transition record first.
				b.place(i, b.add(r, SourceTransition, seed.SeedRank), v.Mode == ModeTransition)
			}
		}
	}
	if n := b.cfg.maxNeighbours(); n > 0 {
		for i := range nSeeds {
			seed := b.pool[i]
			ids := make([]string, 0, len(seed.Links)+n)
			for _, l := range sortedLinks(seed.Links, LinkScopedException, LinkCoexistsWith) {
				ids = append(ids, l.To)
			}
			near, err := g.Neighbours(ctx, seed.ID)
			if err != nil {
				return Pool{}, fmt.Errorf("build pool: neighbours of %q: %w", seed.ID, err)
			}
			ids = append(ids, near[:min(n, len(near))]...)
			for _, id := range ids {
				r, ok, err := b.get(id)
				if err != nil {
					return Pool{}, err
				}
				if ok {
					if j := b.add(r, SourceNeighbour, seed.SeedRank); j >= 0 {
						b.neighbours = append(b.neighbours, j)
					}
				}
			}
		}
	}
	for i := range b.pool {
		linked, err := b.transitionLinked(b.pool[i])
		if err != nil {
			return Pool{}, err
		}
		b.pool[i].TransitionLinked = b.pool[i].TransitionLinked || linked
	}
	if cfg.Order == OrderTierFirst {
		ranked := PreRank(b.pool, v)
		return Pool{View: v, K: cfg.k(), Order: OrderTierFirst, Ranked: ranked, Top: topK(ranked, cfg.k(), v.bothStates())}, nil
	}
	ranked := b.anchored(nSeeds, v.adjacent())
	return Pool{View: v, K: cfg.k(), Order: OrderAnchored, Ranked: ranked, Top: slices.Clone(ranked[:min(cfg.k(), len(ranked))])}, nil
}

// anchored is the pool in the anchored pre-rank: seed by seed in the host's order, the
// hops placed before the seed, the seed, the hops placed after it; then the semantic
// hops. A record reached more than once stands where it comes first.
func (b *poolBuilder) anchored(nSeeds int, both bool) []Candidate {
	out := make([]Candidate, 0, len(b.pool))
	done := make([]bool, len(b.pool))
	emit := func(j int) {
		if !done[j] {
			done[j] = true
			out = append(out, b.pool[j])
		}
	}
	// The nearest MaxAdjacent hops of a seed stand next to it, before ones first; the
	// rest follow all seeds, so that a bank with many links to one record (often wrong
	// ones) cannot push the host's other hits out.
	var later []int
	for i := range nSeeds {
		var near []int
		for _, j := range b.before[i] {
			if !done[j] && !slices.Contains(near, j) {
				near = append(near, j)
			}
		}
		nBefore := len(near)
		for _, j := range b.after[i] {
			if !done[j] && !slices.Contains(near, j) {
				if !both {
					later = append(later, j)
					continue
				}
				near = append(near, j)
			}
		}
		keep := min(len(near), b.cfg.maxAdjacent())
		later = append(later, near[keep:]...)
		for _, j := range near[:min(keep, nBefore)] {
			emit(j)
		}
		emit(i)
		for _, j := range near[min(keep, nBefore):keep] {
			emit(j)
		}
	}
	for _, j := range later {
		emit(j)
	}
	for _, j := range b.neighbours {
		emit(j)
	}
	for j := range b.pool {
		emit(j)
	}
	return out
}

type lookup struct {
	c  Candidate
	ok bool
}

type poolBuilder struct {
	ctx   context.Context
	g     Graph
	cfg   Config
	pool  []Candidate
	index map[string]int
	cache map[string]lookup
	// before[i] and after[i] are the pool indices of the relation hops placed next to
	// seed i; neighbours those of the semantic hops, in the order they came.
	before, after [][]int
	neighbours    []int
}

// place puts pool index j next to seed i: before it or after it (j < 0: the pool was
// full, nothing to place). A record placed before a seed stands for it, so it ranks
// with it.
func (b *poolBuilder) place(i, j int, before bool) {
	switch {
	case j < 0 || j == i:
	case before:
		b.before[i] = append(b.before[i], j)
		b.pool[j].SeedRank = min(b.pool[j].SeedRank, b.pool[i].SeedRank)
	default:
		b.after[i] = append(b.after[i], j)
	}
}

func (b *poolBuilder) get(id string) (Candidate, bool, error) {
	if l, ok := b.cache[id]; ok {
		return l.c, l.ok, nil
	}
	if err := b.ctx.Err(); err != nil {
		return Candidate{}, false, fmt.Errorf("build pool: %w", err)
	}
	c, ok, err := b.g.Get(b.ctx, id)
	if err != nil {
		return Candidate{}, false, fmt.Errorf("build pool: get %q: %w", id, err)
	}
	b.cache[id] = lookup{c, ok}
	return c, ok, nil
}

// add appends c unless it is there already or the pool is full, and returns its index
// in the pool (-1 when the pool is full).
func (b *poolBuilder) add(c Candidate, src Source, rank int) int {
	if i, dup := b.index[c.ID]; dup {
		// A state reached by a relation hop from a better seed ranks with that seed: the
		// successor of the best (stale) hit is what a current query wants, even when the
		// host ranked it lower itself.
		if (src == SourceSuccessor || src == SourcePredecessor) && rank < b.pool[i].SeedRank {
			b.pool[i].SeedRank = rank
		}
		return i
	}
	if len(b.pool) >= b.cfg.maxPool() {
		return -1
	}
	if src != SourceSeed && c.Status == StatusTransition {
		src = SourceTransition
	}
	c.Source, c.SeedRank = src, rank
	b.index[c.ID] = len(b.pool)
	b.pool = append(b.pool, c)
	return len(b.pool) - 1
}

// walk follows links of the given types from seed (pool index i), breadth first, up to
// MaxDepth, and places each record it reaches before the seed when before says so, else
// after it. stopAtActive: do not go past an active record (the current state is reached).
func (b *poolBuilder) walk(seed Candidate, i int, types []LinkType, src Source, stopAtActive bool, before func(Candidate) bool) error {
	seen := map[string]bool{seed.ID: true}
	frontier := []Candidate{seed}
	for depth := 0; depth < b.cfg.maxDepth() && len(frontier) > 0; depth++ {
		var next []Candidate
		for _, c := range frontier {
			if stopAtActive && c.ID != seed.ID && c.Status == StatusActive {
				continue
			}
			for _, l := range sortedLinks(c.Links, types...) {
				if seen[l.To] {
					continue
				}
				seen[l.To] = true
				r, ok, err := b.get(l.To)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				b.place(i, b.add(r, src, seed.SeedRank), before(r))
				next = append(next, r)
			}
		}
		frontier = next
	}
	return nil
}

func (b *poolBuilder) transitionLinked(c Candidate) (bool, error) {
	if c.Status == StatusTransition {
		return false, nil
	}
	for _, l := range sortedLinks(c.Links, LinkEvolvesFrom, LinkEvolvesTo) {
		if i, ok := b.index[l.To]; ok {
			if b.pool[i].Status == StatusTransition {
				return true, nil
			}
			continue
		}
		r, ok, err := b.get(l.To)
		if err != nil {
			return false, err
		}
		if ok && r.Status == StatusTransition {
			return true, nil
		}
	}
	return false, nil
}

// sortedLinks returns the links of the given types, in the order of types, then by
// target id.
func sortedLinks(links []Link, types ...LinkType) []Link {
	var out []Link
	for _, t := range types {
		start := len(out)
		for _, l := range links {
			if l.Type == t && l.To != "" {
				out = append(out, l)
			}
		}
		slices.SortFunc(out[start:], func(a, b Link) int { return cmp.Compare(a.To, b.To) })
	}
	return out
}

// StateTier is the state-fit tier of a status under a view; lower ranks first.
//
//	mode         tier 0                tier 1               tier 2          tier 3
//	current      active, transition    unknown, other       superseded
//	historical   superseded            transition           unknown, other  active
//	transition   transition            active, superseded   unknown, other
//	neutral      every status
func StateTier(v View, s Status) int {
	switch v.Mode {
	case ModeCurrent:
		switch s {
		case StatusActive, StatusTransition:
			return 0
		case StatusSuperseded:
			return 2
		}
		return 1
	case ModeHistorical:
		switch s {
		case StatusSuperseded:
			return 0
		case StatusTransition:
			return 1
		case StatusActive:
			return 3
		}
		return 2
	case ModeTransition:
		switch s {
		case StatusTransition:
			return 0
		case StatusActive, StatusSuperseded:
			return 1
		}
		return 2
	}
	return 0
}

// PreRank orders a pool for a view: by state fit first (StateTier), then by SeedRank
// (a hop ranks with its seed; a record that is both a seed and a relation hop of a better
// seed ranks with the better one), then by pool order, which puts a seed before its hops
// and relation hops before neighbours. The sort is stable and the input is not changed.
func PreRank(pool []Candidate, v View) []Candidate {
	out := slices.Clone(pool)
	slices.SortStableFunc(out, func(a, b Candidate) int {
		return cmp.Or(cmp.Compare(StateTier(v, a.Status), StateTier(v, b.Status)), cmp.Compare(a.SeedRank, b.SeedRank))
	})
	return out
}

// topK takes the first k of ranked; with both, it makes room for an active and a
// superseded record (see BuildPool).
func topK(ranked []Candidate, k int, both bool) []Candidate {
	if len(ranked) <= k {
		return slices.Clone(ranked)
	}
	top := make([]int, k)
	for i := range top {
		top[i] = i
	}
	if both && k >= 2 {
		count := func(s Status) int {
			n := 0
			for _, i := range top {
				if ranked[i].Status == s {
					n++
				}
			}
			return n
		}
		for _, want := range []Status{StatusActive, StatusSuperseded} {
			if count(want) > 0 {
				continue
			}
			j := slices.IndexFunc(ranked[k:], func(c Candidate) bool { return c.Status == want })
			if j < 0 {
				continue
			}
			for t := len(top) - 1; t > 0; t-- { // never the first
				s := ranked[top[t]].Status
				if (s == StatusActive || s == StatusSuperseded) && count(s) == 1 {
					continue
				}
				top = slices.Delete(top, t, t+1)
				top = append(top, k+j)
				slices.Sort(top)
				break
			}
		}
	}
	out := make([]Candidate, len(top))
	for i, j := range top {
		out[i] = ranked[j]
	}
	return out
}
