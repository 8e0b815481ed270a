package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func splitOf(t *testing.T, pairs []Pair, cfg SplitConfig) Splits {
	t.Helper()
	s, err := Split(pairs, cfg)
	if err != nil {
		t.Fatalf("Split(%+v): %v", cfg, err)
	}
	return s
}

func stratum(p Pair) string {
	if p.Conflicting {
		return string(p.UpdateType) + "/conflicting"
	}
	return string(p.UpdateType) + "/consistent"
}

// interactionsIn maps the interaction ids of a split to their stratum.
func interactionsIn(ps []Pair) map[string]string {
	m := map[string]string{}
	for _, p := range ps {
		m[p.InteractionID] = stratum(p)
	}
	return m
}

func TestSplitStratified(t *testing.T) {
	pairs := pairsOf(t, generate(t, GenConfig{Seed: 8, ImplicitRate: 0.1}), 1)
	s := splitOf(t, pairs, SplitConfig{Seed: 3})
	if len(s.HeldOut) != 0 || len(s.HeldOutFamilies) != 0 {
		t.Errorf("nothing held out, but HeldOut has %d pairs of %v", len(s.HeldOut), s.HeldOutFamilies)
	}
	if n := len(s.Train) + len(s.Val) + len(s.Test); n != len(pairs) {
		t.Fatalf("splits hold %d pairs, want all %d", n, len(pairs))
	}
	total := map[string]int{}
	for _, st := range interactionsIn(pairs) {
		total[st]++
	}
	seen := map[string]string{}
	for _, sp := range []struct {
		name  string
		pairs []Pair
		share float64
	}{{"train", s.Train, 0.8}, {"val", s.Val, 0.1}, {"test", s.Test, 0.1}} {
		per := map[string]int{}
		ids := interactionsIn(sp.pairs)
		for id, st := range ids {
			if other, dup := seen[id]; dup {
				t.Errorf("interaction %s is in %s and %s", id, other, sp.name)
			}
			seen[id] = sp.name
			per[st]++
		}
		for _, p := range sp.pairs {
			if seen[p.InteractionID] != sp.name {
				t.Errorf("pairs of interaction %s are split", p.InteractionID)
			}
		}
		for st, n := range total {
			if want := float64(n) * sp.share; math.Abs(float64(per[st])-want) > 1 {
				t.Errorf("%s has %d interactions of stratum %s (of %d), want %.1f±1", sp.name, per[st], st, n, want)
			}
		}
	}
	// Pairs keep their order within a split.
	for _, sp := range [][]Pair{s.Train, s.Val, s.Test} {
		last := -1
		for _, p := range sp {
			i := slices.IndexFunc(pairs, func(q Pair) bool { return q == p })
			if i <= last {
				t.Fatal("a split is not in input order")
			}
			last = i
		}
	}

	if diff := cmp.Diff(s, splitOf(t, pairs, SplitConfig{Seed: 3})); diff != "" {
		t.Errorf("same seed, different splits:\n%s", diff)
	}
	if cmp.Equal(s, splitOf(t, pairs, SplitConfig{Seed: 4})) {
		t.Error("different seeds give the same splits")
	}
}

func TestSplitShares(t *testing.T) {
	pairs := pairsOf(t, generate(t, GenConfig{Seed: 8}), 1)
	s := splitOf(t, pairs, SplitConfig{Train: 0.5, Test: 0.5})
	if len(s.Val) != 0 {
		t.Errorf("val share 0, but val has %d pairs", len(s.Val))
	}
	if d := len(s.Train) - len(s.Test); d < -20 || d > 20 {
		t.Errorf("train %d pairs, test %d; want about half each", len(s.Train), len(s.Test))
	}
}

func TestSplitHeldOut(t *testing.T) {
	pairs := pairsOf(t, generate(t, GenConfig{Seed: 9, ImplicitRate: 0.1}), 1)
	families := map[string]bool{}
	for _, p := range pairs {
		families[p.Family] = true
	}
	styleFamilies := func(style string) []string {
		var fs []string
		for f := range families {
			if strings.HasSuffix(f, "/"+style) {
				fs = append(fs, f)
			}
		}
		slices.Sort(fs)
		return fs
	}
	tests := []struct {
		name string
		cfg  SplitConfig
		want []string // held-out families; nil: check the count only
		n    int
	}{
		{"a style in every category", SplitConfig{HoldOutFamilies: []string{StyleReported}}, styleFamilies(StyleReported), 7},
		{"one family and a style", SplitConfig{HoldOutFamilies: []string{"job/casual", StyleImplicit}},
			append([]string{"job/casual"}, styleFamilies(StyleImplicit)...), 4},
		{"a fraction", SplitConfig{Seed: 1, HoldOutFraction: 0.2}, nil, 8},                                                         // 20% of 38 families
		{"a family and a fraction", SplitConfig{Seed: 1, HoldOutFamilies: []string{"pets/direct"}, HoldOutFraction: 0.05}, nil, 3}, // 1 named + 2 drawn
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := splitOf(t, pairs, tt.cfg)
			if len(s.HeldOutFamilies) != tt.n {
				t.Errorf("%d families held out (%v), want %d", len(s.HeldOutFamilies), s.HeldOutFamilies, tt.n)
			}
			if tt.want != nil {
				slices.Sort(tt.want)
				if diff := cmp.Diff(tt.want, s.HeldOutFamilies); diff != "" {
					t.Errorf("held-out families (-want +got):\n%s", diff)
				}
			}
			for _, name := range tt.cfg.HoldOutFamilies {
				if strings.Contains(name, "/") && !slices.Contains(s.HeldOutFamilies, name) {
					t.Errorf("named family %s not held out", name)
				}
			}
			held := map[string]bool{}
			for _, f := range s.HeldOutFamilies {
				held[f] = true
			}
			want := 0
			for _, p := range pairs {
				if held[p.Family] {
					want++
				}
			}
			if len(s.HeldOut) != want {
				t.Errorf("HeldOut has %d pairs, want all %d of the held-out families", len(s.HeldOut), want)
			}
			for _, p := range s.HeldOut {
				if !held[p.Family] {
					t.Errorf("HeldOut has a pair of family %s", p.Family)
				}
			}
			for _, sp := range [][]Pair{s.Train, s.Val, s.Test} {
				for _, p := range sp {
					if held[p.Family] {
						t.Fatalf("held-out family %s outside HeldOut", p.Family)
					}
				}
			}
			if n := len(s.Train) + len(s.Val) + len(s.Test) + len(s.HeldOut); n != len(pairs) {
				t.Errorf("splits hold %d pairs, want %d", n, len(pairs))
			}
		})
	}
}

func TestSplitErrors(t *testing.T) {
	pairs := pairsOf(t, generate(t, GenConfig{Seed: 10}), 1)
	consistentOnly := slices.DeleteFunc(slices.Clone(pairs), func(p Pair) bool { return p.Conflicting })
	noFamilies := slices.Clone(pairs)
	for i := range noFamilies {
		noFamilies[i].Family = ""
	}
	fewPairs := pairsOf(t, generate(t, GenConfig{Seed: 10, Profiles: 2, Interactions: 8}), 1)
	heldOneClass := slices.DeleteFunc(slices.Clone(pairs), func(p Pair) bool { return p.Family == "job/direct" && p.Conflicting })
	broken := slices.Clone(pairs[:4])
	broken[1].Family = "pets/direct"
	tests := []struct {
		name       string
		pairs      []Pair
		cfg        SplitConfig
		want       []string
		degenerate bool
	}{
		{"one class", consistentOnly, SplitConfig{}, []string{
			"split train has no conflicting pairs (y_top = 1, y_log = 0)",
			"split val has no conflicting pairs (y_top = 1, y_log = 0)",
			"split test has no conflicting pairs (y_top = 1, y_log = 0)",
		}, true},
		{"too few pairs", fewPairs, SplitConfig{}, []string{"split val is empty", "split test is empty"}, true},
		{"held-out families lack a class", heldOneClass, SplitConfig{HoldOutFamilies: []string{"job/direct"}}, []string{
			"split heldout has no conflicting pairs (y_top = 1, y_log = 0)",
		}, true},
		{"unknown family and style", pairs, SplitConfig{HoldOutFamilies: []string{"job/shouting", "shouting"}}, []string{
			`held-out family "job/shouting" does not occur in the pairs`,
			`held-out style "shouting" matches no family in the pairs`,
		}, false},
		{"fraction without families", noFamilies, SplitConfig{HoldOutFraction: 0.1}, []string{"a held-out family fraction needs pairs with phrasing families"}, false},
		{"pairs of one interaction disagree", broken, SplitConfig{}, []string{"pairs of interaction i0001 disagree on update type, conflict or family"}, false},
		{"bad config", pairs, SplitConfig{Train: 0.9, Val: 0.2, Test: -0.1, HoldOutFamilies: []string{"Job!", "Job!"}, HoldOutFraction: 1}, []string{
			"test share -0.1 is outside 0..1",
			`held-out family "Job!" is not a family (category/style) or a style name`,
			`held-out family "Job!" is named twice`,
			"held-out family fraction 1 is outside [0, 1)",
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Split(tt.pairs, tt.cfg)
			if err == nil {
				t.Fatal("Split succeeded")
			}
			if got := errors.Is(err, ErrDegenerateSplit); got != tt.degenerate {
				t.Errorf("errors.Is(err, ErrDegenerateSplit) = %v, want %v (%v)", got, tt.degenerate, err)
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}

func TestSplitConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  SplitConfig
		want []string
	}{
		{"zero value", SplitConfig{}, nil},
		{"explicit shares", SplitConfig{Train: 0.7, Val: 0.15, Test: 0.15}, nil},
		{"shares off", SplitConfig{Train: 0.7, Val: 0.2}, []string{"train, val and test shares add up to 0.8999999999999999, not 1"}},
		{"no train", SplitConfig{Val: 0.5, Test: 0.5}, []string{"train share is 0"}},
		{"everything wrong", SplitConfig{Train: 2, Val: math.NaN(), HoldOutFamilies: []string{"", "job/x", "job/x"}, HoldOutFraction: -1}, []string{
			"train share 2 is outside 0..1",
			"val share NaN is outside 0..1",
			"train, val and test shares add up to NaN, not 1",
			`held-out family "" is not a family (category/style) or a style name`,
			`held-out family "job/x" is named twice`,
			"held-out family fraction -1 is outside [0, 1)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitValFamilies(t *testing.T) {
	pairs := pairsOf(t, generate(t, GenConfig{Seed: 9, ImplicitRate: 0.1}), 1)
	base := splitOf(t, pairs, SplitConfig{Seed: 2, HoldOutFamilies: []string{"job/casual"}})
	tests := []struct {
		name string
		cfg  SplitConfig
		n    int
	}{
		// Six casual families: job/casual is held out already and stays in HeldOut.
		{"a style", SplitConfig{Seed: 2, HoldOutFamilies: []string{"job/casual"}, ValFamilies: []string{StyleCasual}}, 6},
		{"a fraction", SplitConfig{Seed: 2, HoldOutFamilies: []string{"job/casual"}, ValFamilyFraction: 0.1}, 4}, // 10% of 38
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := splitOf(t, pairs, tt.cfg)
			if len(s.ValFamilies) != tt.n || slices.Contains(s.ValFamilies, "job/casual") {
				t.Fatalf("validation families %v, want %d without the held-out job/casual", s.ValFamilies, tt.n)
			}
			if diff := cmp.Diff(base.HeldOutFamilies, s.HeldOutFamilies); diff != "" {
				t.Errorf("held-out families changed (-without +with validation families):\n%s", diff)
			}
			valOnly := map[string]bool{}
			for _, f := range s.ValFamilies {
				valOnly[f] = true
			}
			want, inVal, other := 0, 0, 0
			for _, p := range pairs {
				if valOnly[p.Family] {
					want++
				}
			}
			for _, p := range s.Val {
				if valOnly[p.Family] {
					inVal++
				} else {
					other++
				}
			}
			if inVal != want {
				t.Errorf("val holds %d pairs of the validation families, want all %d", inVal, want)
			}
			if other == 0 {
				t.Error("val holds only the validation families; it should keep its in-distribution share")
			}
			for name, sp := range map[string][]Pair{"train": s.Train, "test": s.Test, "heldout": s.HeldOut} {
				for _, p := range sp {
					if valOnly[p.Family] {
						t.Errorf("%s has a pair of validation family %s", name, p.Family)
						break
					}
				}
			}
		})
	}
	if _, err := Split(pairs, SplitConfig{HoldOutFamilies: []string{"job/casual"}, ValFamilies: []string{"job/casual"}}); err == nil ||
		!strings.Contains(err.Error(), "named twice") {
		t.Errorf("a family both held out and for validation: %v", err)
	}
	if _, err := Split(pairs, SplitConfig{HoldOutFamilies: []string{StyleCasual}, ValFamilies: []string{"job/casual"}}); err == nil ||
		!strings.Contains(err.Error(), `validation family "job/casual" is held out already`) {
		t.Errorf("a validation family held out by its style: %v", err)
	}
	if err := (SplitConfig{ValFamilyFraction: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "validation family fraction 1") {
		t.Errorf("validation fraction 1: %v", err)
	}
}
