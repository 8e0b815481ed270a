package retrieval

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	currentSure    = Profile{Mode: ModeCurrent, Confident: true}
	currentUnsure  = Profile{Mode: ModeCurrent}
	historicalSure = Profile{Mode: ModeHistorical, Confident: true}
	transitionSure = Profile{Mode: ModeTransition, Confident: true}
	neutral        = Profile{Mode: ModeNeutral}
)

func TestBuildPool(t *testing.T) {
	tests := []struct {
		name    string
		profile Profile
		seeds   []Candidate
		cfg     Config
		// ranked and top are the anchored order's (the default); tierRanked and tierTop
		// the tier-first order's.
		ranked, top         []string
		tierRanked, tierTop []string
		sources             map[string]Source // checked for the ids listed
	}{
		{
			name: "current query follows a stale seed to the current state", profile: currentSure, seeds: seeds("c1"),
			ranked: []string{"c2", "c1", "t1"}, top: []string{"c2", "c1", "t1"},
			tierRanked: []string{"c2", "t1", "c1"}, tierTop: []string{"c2", "t1", "c1"},
			sources: map[string]Source{"c1": SourceSeed, "c2": SourceSuccessor, "t1": SourceTransition},
		},
		{
			name: "historical query follows the current seed back", profile: historicalSure, seeds: seeds("c2"),
			ranked: []string{"c1", "t1", "c2"}, top: []string{"c1", "t1", "c2"},
			tierRanked: []string{"c1", "t1", "c2"}, tierTop: []string{"c1", "t1", "c2"},
			sources: map[string]Source{"c1": SourcePredecessor, "t1": SourceTransition},
		},
		{
			name: "historical query: the seed's own history first; an unrelated old record keeps its place", profile: historicalSure, seeds: seeds("c2", "j1"),
			ranked: []string{"c1", "t1", "c2", "j1"}, top: []string{"c1", "t1", "c2", "j1"},
			tierRanked: []string{"c1", "j1", "t1", "c2"}, tierTop: []string{"c1", "j1", "t1", "c2"},
		},
		{
			name: "historical query does not follow successors", profile: historicalSure, seeds: seeds("j1"),
			ranked: []string{"j1"}, top: []string{"j1"},
			tierRanked: []string{"j1"}, tierTop: []string{"j1"},
		},
		{
			name: "current query does not follow predecessors", profile: currentSure, seeds: seeds("j2"),
			ranked: []string{"j2"}, top: []string{"j2"},
			tierRanked: []string{"j2"}, tierTop: []string{"j2"},
		},
		{
			name: "a hop ranks with its seed (anchored: next to it); neighbours after relation hops", profile: currentSure, seeds: seeds("j1", "h1"),
			ranked: []string{"j2", "j1", "h1", "h2", "d1"}, top: []string{"j2", "j1", "h1", "h2", "d1"},
			tierRanked: []string{"j2", "h1", "h2", "d1", "j1"}, tierTop: []string{"j2", "h1", "h2", "d1", "j1"},
			sources: map[string]Source{"j2": SourceSuccessor, "h2": SourceNeighbour, "d1": SourceNeighbour},
		},
		{
			name: "a newer scoped exception goes before the rule it narrows for a current question", profile: currentSure, seeds: seeds("d1"),
			ranked: []string{"d2", "d1"}, top: []string{"d2", "d1"},
			tierRanked: []string{"d1", "d2"}, tierTop: []string{"d1", "d2"}, sources: map[string]Source{"d2": SourceNeighbour},
		},
		{
			name: "scoped exceptions come as neighbours otherwise", profile: historicalSure, seeds: seeds("d1"),
			ranked: []string{"d1", "d2"}, top: []string{"d1", "d2"},
			tierRanked: []string{"d1", "d2"}, tierTop: []string{"d1", "d2"}, sources: map[string]Source{"d2": SourceNeighbour},
		},
		{
			name: "unsure query carries both states (tier-first: by replacing a seed; anchored: a stale seed's successor before it)", profile: currentUnsure, seeds: seeds("h1", "d1", "c2"), cfg: Config{K: 3},
			ranked: []string{"h1", "d2", "d1", "c2", "c1", "t1", "h2", "j2"}, top: []string{"h1", "d2", "d1"},
			tierRanked: []string{"h1", "h2", "j2", "d1", "d2", "c2", "t1", "c1"}, tierTop: []string{"h1", "h2", "c1"},
		},
		{
			name: "unsure query that leans to the present: the states a seed adds after it wait until every seed is in, as a confident one's", profile: currentUnsure, seeds: seeds("c2", "h1"), cfg: Config{K: 2},
			ranked: []string{"c2", "h1", "c1", "t1", "h2", "d1", "j2"}, top: []string{"c2", "h1"},
			tierRanked: []string{"c2", "t1", "h1", "h2", "d1", "j2", "c1"}, tierTop: []string{"c2", "c1"},
		},
		{
			name: "confident query: the states a seed adds after it wait until every seed is in", profile: currentSure, seeds: seeds("c2", "h1"), cfg: Config{K: 2},
			ranked: []string{"c2", "h1", "t1", "h2", "d1", "j2"}, top: []string{"c2", "h1"},
			tierRanked: []string{"c2", "t1", "h1", "h2", "d1", "j2"}, tierTop: []string{"c2", "t1"},
		},
		{
			name: "confident query keeps the first k (d1's newer scoped exception d2 before it)", profile: currentSure, seeds: seeds("h1", "d1", "c2"), cfg: Config{K: 3},
			ranked: []string{"h1", "d2", "d1", "c2", "t1", "h2", "j2"}, top: []string{"h1", "d2", "d1"},
			tierRanked: []string{"h1", "h2", "j2", "d1", "d2", "c2", "t1"}, tierTop: []string{"h1", "h2", "j2"},
		},
		{
			name: "neutral query keeps seed order and carries both states", profile: neutral, seeds: seeds("c2", "h1", "d1"), cfg: Config{K: 2},
			ranked: []string{"c2", "c1", "t1", "h1", "d1", "h2", "j2", "d2"}, top: []string{"c2", "c1"},
			tierRanked: []string{"c2", "c1", "t1", "h1", "h2", "j2", "d1", "d2"}, tierTop: []string{"c2", "c1"},
		},
		{
			name: "change query: an active seed's older state and its transition record go before it", profile: transitionSure, seeds: seeds("c2"), cfg: Config{K: 3},
			ranked: []string{"c1", "t1", "c2"}, top: []string{"c1", "t1", "c2"},
			tierRanked: []string{"t1", "c2", "c1"}, tierTop: []string{"t1", "c2", "c1"},
		},
		{
			name: "transition query never drops its first record to make room", profile: transitionSure, seeds: seeds("t1"), cfg: Config{K: 2},
			ranked: []string{"t1", "c2", "c1"}, top: []string{"t1", "c2"},
			tierRanked: []string{"t1", "c2", "c1"}, tierTop: []string{"t1", "c2"},
		},
		{
			name: "transition query makes room for the old state", profile: transitionSure, seeds: seeds("t1", "h1"), cfg: Config{K: 3, MaxNeighbours: -1},
			ranked: []string{"t1", "c2", "c1", "h1"}, top: []string{"t1", "c2", "c1"},
			tierRanked: []string{"t1", "c2", "c1", "h1"}, tierTop: []string{"t1", "c2", "c1"},
		},
		{
			name: "a seed stays a seed when a hop reaches it", profile: currentSure, seeds: seeds("c1", "c2"),
			ranked: []string{"c2", "c1", "t1"}, top: []string{"c2", "c1", "t1"},
			tierRanked: []string{"c2", "t1", "c1"}, tierTop: []string{"c2", "t1", "c1"},
			sources: map[string]Source{"c2": SourceSeed, "t1": SourceTransition},
		},
		{
			name: "repeated seeds count once", profile: currentSure, seeds: seeds("j2", "j2"),
			ranked: []string{"j2"}, top: []string{"j2"},
			tierRanked: []string{"j2"}, tierTop: []string{"j2"},
		},
		{
			name: "max pool bounds seeds and hops", profile: currentSure, seeds: seeds("j1", "h1", "d1"), cfg: Config{K: 2, MaxPool: 2},
			ranked: []string{"j1", "h1"}, top: []string{"j1", "h1"},
			tierRanked: []string{"h1", "j1"}, tierTop: []string{"h1", "j1"},
		},
		{
			name: "no neighbours", profile: currentSure, seeds: seeds("h1", "d1"), cfg: Config{MaxNeighbours: -1},
			ranked: []string{"h1", "d1"}, top: []string{"h1", "d1"},
			tierRanked: []string{"h1", "d1"}, tierTop: []string{"h1", "d1"},
		},
		{
			name: "one neighbour per seed", profile: currentSure, seeds: seeds("h1"), cfg: Config{MaxNeighbours: 1},
			ranked: []string{"h1", "h2"}, top: []string{"h1", "h2"},
			tierRanked: []string{"h1", "h2"}, tierTop: []string{"h1", "h2"},
		},
		{name: "no seeds", profile: currentSure, ranked: []string{}, top: []string{},
			tierRanked: []string{}, tierTop: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tier := tt.cfg
			tier.Order = OrderTierFirst
			tp, err := BuildPool(t.Context(), bankGraph(), tt.profile, tt.seeds, tier)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.tierRanked, ids(tp.Ranked)); diff != "" {
				t.Errorf("tier-first ranked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.tierTop, ids(tp.Top)); diff != "" {
				t.Errorf("tier-first top (-want +got):\n%s", diff)
			}
			pool, err := BuildPool(t.Context(), bankGraph(), tt.profile, tt.seeds, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if pool.Order != OrderAnchored || tp.Order != OrderTierFirst {
				t.Errorf("orders %q and %q", pool.Order, tp.Order)
			}
			if diff := cmp.Diff(tt.ranked, ids(pool.Ranked)); diff != "" {
				t.Errorf("ranked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.top, ids(pool.Top)); diff != "" {
				t.Errorf("top (-want +got):\n%s", diff)
			}
			for _, c := range pool.Ranked {
				if want, ok := tt.sources[c.ID]; ok && c.Source != want {
					t.Errorf("%s: source %s, want %s", c.ID, c.Source, want)
				}
			}
			if pool.View != ViewOf(tt.profile) {
				t.Errorf("view %+v, want %+v", pool.View, ViewOf(tt.profile))
			}
		})
	}
}

func TestBuildPoolFields(t *testing.T) {
	pool, err := BuildPool(t.Context(), bankGraph(), currentSure, seeds("h1", "c1"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]Candidate)
	for _, c := range pool.Ranked {
		got[c.ID] = c
	}
	for _, tt := range []struct {
		id       string
		source   Source
		seedRank int
		linked   bool
		score    float64
	}{
		{"h1", SourceSeed, 0, false, 1},
		{"c1", SourceSeed, 1, true, 0.5},
		{"c2", SourceSuccessor, 1, true, 0},
		{"t1", SourceTransition, 1, false, 0},
		{"h2", SourceNeighbour, 0, false, 0},
	} {
		c, ok := got[tt.id]
		if !ok {
			t.Errorf("%s is not in the pool %v", tt.id, ids(pool.Ranked))
			continue
		}
		if c.Source != tt.source || c.SeedRank != tt.seedRank || c.TransitionLinked != tt.linked || c.Score != tt.score {
			t.Errorf("%s: source %s rank %d linked %t score %v, want %s %d %t %v", tt.id, c.Source, c.SeedRank, c.TransitionLinked, c.Score, tt.source, tt.seedRank, tt.linked, tt.score)
		}
		if want := byID(tt.id); c.Content != want.Content || c.Status != want.Status || !c.EventTime.Equal(want.EventTime) {
			t.Errorf("%s: record fields changed: %+v", tt.id, c)
		}
	}
	if pool.K != DefaultK {
		t.Errorf("k %d, want %d", pool.K, DefaultK)
	}
}

func TestBuildPoolDepth(t *testing.T) {
	chain := []Candidate{
		{ID: "a1", Status: StatusSuperseded, Links: links("superseded_by", "a2")},
		{ID: "a2", Status: StatusSuperseded, Links: links("supersedes", "a1", "superseded_by", "a3")},
		{ID: "a3", Status: StatusSuperseded, Links: links("supersedes", "a2", "superseded_by", "a4", "superseded_by", "ghost")},
		{ID: "a4", Status: StatusActive, Links: links("supersedes", "a3", "superseded_by", "a5")},
		{ID: "a5", Status: StatusActive, Links: links("supersedes", "a4")}, // past the current state: not followed
	}
	g := NewMapGraph(chain, nil)
	for _, tt := range []struct {
		depth int
		want  []string
	}{
		// The superseded ones share a tier and their seed's rank: pool order.
		{1, []string{"a1", "a2"}},
		{2, []string{"a1", "a2", "a3"}},
		{0, []string{"a4", "a1", "a2", "a3"}}, // the default, 3; a5 is past the current state
		{9, []string{"a4", "a1", "a2", "a3"}},
	} {
		pool, err := BuildPool(t.Context(), g, currentSure, []Candidate{chain[0]}, Config{MaxDepth: tt.depth})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ids(pool.Ranked)); diff != "" {
			t.Errorf("depth %d (-want +got):\n%s", tt.depth, diff)
		}
	}
}

func TestBuildPoolCompletesSeeds(t *testing.T) {
	pool, err := BuildPool(t.Context(), bankGraph(), currentSure, []Candidate{{ID: "c1", Score: 0.7}, {ID: "nowhere", Content: "host only"}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	// The transition record of c1 follows the seeds: a current question does not ask
	// for it, and the host's other hit keeps its place.
	if diff := cmp.Diff([]string{"c2", "c1", "nowhere", "t1"}, ids(pool.Ranked)); diff != "" {
		t.Errorf("ranked (-want +got):\n%s", diff)
	}
	for _, c := range pool.Ranked {
		switch c.ID {
		case "c1":
			if c.Status != StatusSuperseded || c.Content != "I live in Berlin." || c.Score != 0.7 {
				t.Errorf("c1 not completed from the graph: %+v", c)
			}
		case "nowhere":
			if c.Content != "host only" || c.Source != SourceSeed {
				t.Errorf("a seed the graph lacks changed: %+v", c)
			}
		}
	}
}

func TestBuildPoolErrors(t *testing.T) {
	errBoom := errors.New("boom")
	g := bankGraph()
	failOn := func(id string) fakeGraph {
		return fakeGraph{get: func(ctx context.Context, x string) (Candidate, bool, error) {
			if x == id {
				return Candidate{}, false, errBoom
			}
			return g.Get(ctx, x)
		}}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		g     Graph
		seeds []Candidate
		cfg   Config
		want  error
		msg   string
	}{
		{name: "seed without id", g: g, seeds: []Candidate{{Content: "x"}}, msg: "seed 0 has no id"},
		{name: "invalid config", g: g, seeds: seeds("c1"), cfg: Config{K: -1}, msg: "k -1 is negative"},
		{name: "get fails on a hop", g: failOn("c2"), seeds: seeds("c1"), want: errBoom, msg: `get "c2"`},
		{name: "get fails on a seed", g: failOn("c1"), seeds: []Candidate{{ID: "c1"}}, want: errBoom, msg: `seed "c1"`},
		{name: "neighbours fail", g: fakeGraph{get: g.Get, neighbours: func(context.Context, string) ([]string, error) { return nil, errBoom }},
			seeds: seeds("h1"), want: errBoom, msg: `neighbours of "h1"`},
		{name: "cancelled", ctx: cancelled, g: g, seeds: seeds("c1"), want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			_, err := BuildPool(ctx, tt.g, currentSure, tt.seeds, tt.cfg)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %v is not %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "build pool: ") {
				t.Errorf("error %q does not start with \"build pool: \" or lacks %q", err, tt.msg)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want []string
	}{
		{Config{}, nil},
		{Config{K: 10, MaxDepth: 1, MaxNeighbours: -1, MaxPool: 10}, nil},
		{Config{K: -1, MaxDepth: -2, MaxPool: -3}, []string{"k -1 is negative", "max depth -2 is negative", "max pool -3 is negative"}},
		{Config{K: 10, MaxPool: 5}, []string{"k 10 exceeds max pool 5"}},
		{Config{K: 100}, []string{"k 100 exceeds max pool 64"}},
		{Config{Order: OrderTierFirst, MaxAdjacent: -1}, nil},
		{Config{Order: "by-date"}, []string{`order "by-date" is not anchored or tier-first`}},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if len(tt.want) == 0 {
			if err != nil {
				t.Errorf("%+v: %v", tt.cfg, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%+v: no error, want %q", tt.cfg, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q lacks %q", tt.cfg, err, w)
			}
		}
	}
}

func TestStateTier(t *testing.T) {
	statuses := []Status{StatusActive, StatusTransition, StatusUnknown, StatusSuperseded, ""}
	want := map[Mode][]int{
		ModeCurrent:    {0, 0, 1, 2, 1},
		ModeHistorical: {3, 1, 2, 0, 2},
		ModeTransition: {1, 0, 2, 1, 2},
		ModeNeutral:    {0, 0, 0, 0, 0},
	}
	for mode, tiers := range want {
		for i, s := range statuses {
			if got := StateTier(View{Mode: mode}, s); got != tiers[i] {
				t.Errorf("%s %q: tier %d, want %d", mode, s, got, tiers[i])
			}
		}
	}
}

func TestPreRankStable(t *testing.T) {
	pool := []Candidate{
		{ID: "s-old", Status: StatusSuperseded, SeedRank: 0},
		{ID: "a", Status: StatusActive, SeedRank: 1},
		{ID: "hop-b", Status: StatusActive, SeedRank: 0},
		{ID: "b", Status: StatusActive, SeedRank: 0},
	}
	in := ids(pool)
	got := ids(PreRank(pool, View{Mode: ModeCurrent}))
	if diff := cmp.Diff([]string{"hop-b", "b", "a", "s-old"}, got); diff != "" {
		t.Errorf("current (-want +got):\n%s", diff)
	}
	got = ids(PreRank(pool, View{Mode: ModeHistorical}))
	if diff := cmp.Diff([]string{"s-old", "hop-b", "b", "a"}, got); diff != "" {
		t.Errorf("historical (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(in, ids(pool)); diff != "" {
		t.Errorf("PreRank changed its input (-before +after):\n%s", diff)
	}
}

func TestViewOf(t *testing.T) {
	tests := []struct {
		p    Profile
		want View
	}{
		{currentSure, View{Mode: ModeCurrent, Successors: true}},
		{historicalSure, View{Mode: ModeHistorical, Predecessors: true}},
		{transitionSure, View{Mode: ModeTransition, Successors: true, Predecessors: true}},
		{currentUnsure, View{Mode: ModeCurrent, Unsure: true, Successors: true, Predecessors: true}},
		{Profile{Mode: ModeHistorical}, View{Mode: ModeHistorical, Unsure: true, Successors: true, Predecessors: true}},
		{neutral, View{Mode: ModeNeutral, Unsure: true, Successors: true, Predecessors: true}},
	}
	for _, tt := range tests {
		if got := ViewOf(tt.p); got != tt.want {
			t.Errorf("ViewOf(%+v) = %+v, want %+v", tt.p, got, tt.want)
		}
	}
}

func TestPoolSelect(t *testing.T) {
	pool := Pool{K: 2, Top: seeds("j2", "j1")}
	final := seeds("h1", "h2", "d1")
	if got := ids(pool.Select(final, ControllerStatus{Applied: false})); !cmp.Equal(got, []string{"j2", "j1"}) {
		t.Errorf("not applied: %v, want the pool's top", got)
	}
	if got := ids(pool.Select(final, ControllerStatus{Applied: true})); !cmp.Equal(got, []string{"h1", "h2"}) {
		t.Errorf("applied: %v, want the first k of final", got)
	}
	if got := ids(pool.Select(final[:1], ControllerStatus{Applied: true})); !cmp.Equal(got, []string{"h1"}) {
		t.Errorf("applied, short: %v", got)
	}
}

func TestMapGraphCopies(t *testing.T) {
	recs := bank()
	nb := map[string][]string{"h1": {"h2"}}
	g := NewMapGraph(recs, nb)
	recs[0].Links[0].To = "changed"
	nb["h1"][0] = "changed"
	c, ok, err := g.Get(t.Context(), "c1")
	if err != nil || !ok {
		t.Fatalf("Get(c1) = %v, %v", ok, err)
	}
	if c.Links[0].To != "c2" {
		t.Error("the graph shares its input's links")
	}
	c.Links[0].To = "changed"
	if again, _, _ := g.Get(t.Context(), "c1"); again.Links[0].To != "c2" {
		t.Error("the graph shares links with its callers")
	}
	if n, _ := g.Neighbours(t.Context(), "h1"); !cmp.Equal(n, []string{"h2"}) {
		t.Errorf("neighbours %v", n)
	}
	if _, ok, _ := g.Get(t.Context(), "nope"); ok {
		t.Error("found a record that is not there")
	}
}

// A seed with many relation hops keeps only the nearest next to it; the others follow
// all seeds, so that the host's next hit stays in the packet.
func TestBuildPoolMaxAdjacent(t *testing.T) {
	g := NewMapGraph([]Candidate{
		{ID: "now", Status: StatusActive, Slot: "s", Links: links("supersedes", "a", "supersedes", "b", "supersedes", "c")},
		{ID: "a", Status: StatusSuperseded, Slot: "s", Links: links("superseded_by", "now")},
		{ID: "b", Status: StatusSuperseded, Slot: "s", Links: links("superseded_by", "now")},
		{ID: "c", Status: StatusSuperseded, Slot: "s", Links: links("superseded_by", "now")},
		{ID: "other", Status: StatusActive},
	}, nil)
	for _, tt := range []struct {
		adjacent int
		want     []string
	}{
		{0, []string{"a", "b", "now", "other", "c"}},
		{1, []string{"a", "now", "other", "b", "c"}},
		{-1, []string{"now", "other", "a", "b", "c"}},
		{5, []string{"a", "b", "c", "now", "other"}},
	} {
		pool, err := BuildPool(t.Context(), g, historicalSure, []Candidate{{ID: "now"}, {ID: "other"}}, Config{MaxAdjacent: tt.adjacent, K: 4})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ids(pool.Ranked)); diff != "" {
			t.Errorf("max adjacent %d (-want +got):\n%s", tt.adjacent, diff)
		}
	}
}

// TestBuildPoolOrderWithinSlot: a historical query that names a later state, or asks
// for the first, gets that state of the seed's slot first, whichever of the slot's
// states the host found.
func TestBuildPoolOrderWithinSlot(t *testing.T) {
	// drink: d1 cold brew → d2 matcha → d3 cortado → d4 kombucha (active), with a
	// transition record between d3 and d4 and a record of another slot linked to d4.
	g := NewMapGraph([]Candidate{
		{ID: "d1", Content: "I always order cold brew.", Slot: "user/drink", Status: StatusSuperseded, EventTime: day("2022-01-01"), Links: links("superseded_by", "d2")},
		{ID: "d2", Content: "I switched from cold brew to matcha latte.", Slot: "user/drink", Status: StatusSuperseded, EventTime: day("2022-03-01"), Links: links("supersedes", "d1", "superseded_by", "d3")},
		{ID: "d3", Content: "These days my go-to drink is cortado.", Slot: "user/drink", Status: StatusSuperseded, EventTime: day("2022-05-01"), Links: links("supersedes", "d2", "superseded_by", "d4", "evolves_to", "t")},
		{ID: "t", Content: "drink: cortado -> kombucha", Status: StatusTransition, EventTime: day("2022-07-01"), Links: links("evolves_from", "d3", "evolves_to", "d4")},
		{ID: "d4", Content: "I switched from cortado to kombucha.", Slot: "user/drink", Status: StatusActive, EventTime: day("2022-07-01"), Links: links("supersedes", "d3", "evolves_from", "t", "supersedes", "x")},
		{ID: "x", Content: "I drink cortado at work.", Slot: "user/work-drink", Status: StatusSuperseded, EventTime: day("2021-01-01"), Links: links("superseded_by", "d4")},
		{ID: "other", Content: "The train was late.", Status: StatusActive},
	}, nil)
	tests := []struct {
		query string
		seeds []string
		first []string // the head of Ranked
	}{
		{"what did I drink before I switched to cortado?", []string{"d3", "other"}, []string{"d2", "d3"}},
		{"what did I drink before I switched to cortado?", []string{"d4", "other"}, []string{"d2", "d3", "d4"}},
		{"what did I drink before I switched to cortado?", []string{"other", "d1"}, []string{"other", "d2", "d1"}},
		{"what did I drink before I switched to matcha?", []string{"d4"}, []string{"d1"}},
		{"what was my first go-to drink?", []string{"d3", "other"}, []string{"d1", "d3"}},
		{"what was my first go-to drink?", []string{"d1", "other"}, []string{"d1"}},
		// The anchor in the first state: nothing to go before it.
		{"what did I drink before the cold brew?", []string{"d2", "other"}, []string{"d2", "other"}},
		// No order asked: the historical rules alone.
		{"what did I drink before?", []string{"d3", "other"}, []string{"d3", "other"}},
		// A current query keeps the anchor out of it.
		{"what do I drink now that I switched to kombucha?", []string{"d4", "other"}, []string{"d4", "other"}},
		// A month or a season: the last state begun before it ended, the year read from
		// the slot's newest state (July 2022).
		{"what was I drinking in april?", []string{"d4", "other"}, []string{"d2"}},
		{"what was I drinking back in may?", []string{"d1", "other"}, []string{"d3", "d1"}},
		{"what was my drink over the winter?", []string{"d4", "other"}, []string{"d1"}},
		// Before the first state: nothing to place.
		{"what was I drinking in december 2021?", []string{"d3", "other"}, []string{"d3"}},
	}
	for _, tt := range tests {
		t.Run(tt.query+" "+strings.Join(tt.seeds, ","), func(t *testing.T) {
			var ss []Candidate
			for _, id := range tt.seeds {
				ss = append(ss, Candidate{ID: id})
			}
			pool, err := BuildPool(t.Context(), g, ProfileQuery(tt.query), ss, Config{})
			if err != nil {
				t.Fatal(err)
			}
			got := ids(pool.Ranked)
			if diff := cmp.Diff(tt.first, got[:min(len(tt.first), len(got))]); diff != "" {
				t.Errorf("head of the pool (-want +got):\n%s\nwhole pool %v", diff, got)
			}
			if slices.Contains(got, "x") && slices.Index(got, "x") < len(tt.first) {
				t.Errorf("a record of another slot was placed by the order: %v", got)
			}
		})
	}
}
