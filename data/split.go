package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Default split fractions.
const (
	DefaultTrain = 0.8
	DefaultVal   = 0.1
	DefaultTest  = 0.1
)

// ErrDegenerateSplit is wrapped by Split's errors about a split that is empty or lacks a
// class, which no model can be trained or evaluated on.
var ErrDegenerateSplit = errors.New("degenerate split")

// SplitConfig configures Split. The zero value means 80/10/10 with nothing held out.
type SplitConfig struct {
	// Seed seeds the assignment; the same pairs and configuration give the same splits.
	Seed uint64
	// Train, Val and Test are the shares of interactions in each split. All zero means
	// 0.8/0.1/0.1; otherwise they must add up to 1, and a split given 0 stays empty.
	Train, Val, Test float64
	// HoldOutFamilies names phrasing families whose interactions go to the HeldOut split
	// only: a family ("job/reported") or a style ("reported": that style in every category).
	HoldOutFamilies []string
	// HoldOutFraction holds out that share of the families present in the pairs (rounded,
	// at least one when positive), drawn with Seed among those not named already.
	HoldOutFraction float64
	// ValFamilies and ValFamilyFraction name or draw (as HoldOutFamilies and HoldOutFraction
	// do, among the families not held out) families whose interactions go to Val only: a
	// model trained on Train never sees their wording, so thresholds calibrated on Val must
	// reach their recall on unseen phrasings too, not only in distribution.
	// (omitempty keeps the JSON, and so the data hash checkpoints record, of configurations
	// without them unchanged.)
	ValFamilies       []string `json:",omitempty"`
	ValFamilyFraction float64  `json:",omitempty"`
}

func (c SplitConfig) withDefaults() SplitConfig {
	if c.Train == 0 && c.Val == 0 && c.Test == 0 {
		c.Train, c.Val, c.Test = DefaultTrain, DefaultVal, DefaultTest
	}
	return c
}

// Validate reports every problem with the configuration at once.
func (c SplitConfig) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, s := range []struct {
		name string
		v    float64
	}{{"train", c.Train}, {"val", c.Val}, {"test", c.Test}} {
		if !(s.v >= 0 && s.v <= 1) {
			add("%s share %g is outside 0..1", s.name, s.v)
		}
	}
	if sum := c.Train + c.Val + c.Test; sum != 0 && !(math.Abs(sum-1) <= 1e-9) {
		add("train, val and test shares add up to %g, not 1", sum)
	}
	if sum := c.Train + c.Val + c.Test; sum != 0 && c.Train == 0 {
		add("train share is 0")
	}
	seen := map[string]bool{}
	for _, list := range []struct {
		what  string
		names []string
	}{{"held-out", c.HoldOutFamilies}, {"validation", c.ValFamilies}} {
		for _, f := range list.names {
			switch {
			case seen[f]:
				add("%s family %q is named twice", list.what, f)
			case !familyRE.MatchString(f):
				add("%s family %q is not a family (category/style) or a style name", list.what, f)
			}
			seen[f] = true
		}
	}
	if !(c.HoldOutFraction >= 0 && c.HoldOutFraction < 1) {
		add("held-out family fraction %g is outside [0, 1)", c.HoldOutFraction)
	}
	if !(c.ValFamilyFraction >= 0 && c.ValFamilyFraction < 1) {
		add("validation family fraction %g is outside [0, 1)", c.ValFamilyFraction)
	}
	if (len(c.ValFamilies) > 0 || c.ValFamilyFraction > 0) && c.Val == 0 && (c.Train != 0 || c.Test != 0) {
		add("validation families need a validation split (val share is 0)")
	}
	return errors.Join(errs...)
}

// Splits are the pairs of each split, in the order Split was given them.
type Splits struct {
	Train, Val, Test []Pair
	// HeldOut holds the pairs of held-out families: a test set of unseen phrasings, to be
	// reported next to Test.
	HeldOut []Pair
	// HeldOutFamilies lists the families held out, sorted.
	HeldOutFamilies []string
	// ValFamilies lists the families whose interactions are in Val only, sorted.
	ValFamilies []string
}

// splitStream separates the split's random stream from others seeded with the same seed.
const splitStream = 0x73706c6974 // "split"

// Split assigns pairs to train, val and test by interaction — both pairs of an interaction
// land in the same split — stratified by update type × relation, so each split gets its
// share of every kind of conflict. Interactions of held-out families go to HeldOut only.
// A split that is empty, or lacks same-slot or irrelevant pairs or consistent or conflicting
// ones, is an error wrapping ErrDegenerateSplit that names the split and what it lacks.
func Split(pairs []Pair, cfg SplitConfig) (Splits, error) {
	if err := cfg.Validate(); err != nil {
		return Splits{}, fmt.Errorf("split pairs: %w", err)
	}
	cfg = cfg.withDefaults()
	rng := rand.New(rand.NewPCG(cfg.Seed, splitStream))

	type inter struct {
		id       string
		update   UpdateType
		conflict bool
		family   string
	}
	var order []*inter
	byID := map[string]*inter{}
	present := map[string]bool{}
	for i, p := range pairs {
		if p.InteractionID == "" {
			return Splits{}, fmt.Errorf("split pairs: pair %d has no interaction id", i)
		}
		in, ok := byID[p.InteractionID]
		if !ok {
			in = &inter{id: p.InteractionID, update: p.UpdateType, conflict: p.Conflicting, family: p.Family}
			byID[p.InteractionID] = in
			order = append(order, in)
			if p.Family != "" {
				present[p.Family] = true
			}
			continue
		}
		if in.update != p.UpdateType || in.conflict != p.Conflicting || in.family != p.Family {
			return Splits{}, fmt.Errorf("split pairs: pairs of interaction %s disagree on update type, conflict or family", p.InteractionID)
		}
	}

	held, err := pickFamilies(present, "held-out", cfg.HoldOutFamilies, cfg.HoldOutFraction, nil, rng)
	if err != nil {
		return Splits{}, fmt.Errorf("split pairs: %w", err)
	}
	valOnly, err := pickFamilies(present, "validation", cfg.ValFamilies, cfg.ValFamilyFraction, held, rng)
	if err != nil {
		return Splits{}, fmt.Errorf("split pairs: %w", err)
	}

	const (
		train = iota
		val
		test
		heldOut
	)
	assign := make(map[string]int, len(order))
	strata := map[string][]string{}
	var keys []string
	for _, in := range order {
		if held[in.family] {
			assign[in.id] = heldOut
			continue
		}
		if valOnly[in.family] {
			assign[in.id] = val
			continue
		}
		key := string(in.update) + "/" + string(Consistent)
		if in.conflict {
			key = string(in.update) + "/" + string(Conflicting)
		}
		if _, ok := strata[key]; !ok {
			keys = append(keys, key)
		}
		strata[key] = append(strata[key], in.id)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ids := strata[k]
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		n := len(ids)
		nVal := int(math.Round(float64(n) * cfg.Val))
		nTest := min(int(math.Round(float64(n)*cfg.Test)), n-nVal)
		for i, id := range ids {
			switch {
			case i < nVal:
				assign[id] = val
			case i < nVal+nTest:
				assign[id] = test
			default:
				assign[id] = train
			}
		}
	}

	var out Splits
	dst := []*[]Pair{&out.Train, &out.Val, &out.Test, &out.HeldOut}
	for _, p := range pairs {
		s := dst[assign[p.InteractionID]]
		*s = append(*s, p)
	}
	for f := range held {
		out.HeldOutFamilies = append(out.HeldOutFamilies, f)
	}
	slices.Sort(out.HeldOutFamilies)
	for f := range valOnly {
		out.ValFamilies = append(out.ValFamilies, f)
	}
	slices.Sort(out.ValFamilies)

	var errs []error
	for _, s := range []struct {
		name  string
		pairs []Pair
		want  bool
	}{
		{"train", out.Train, cfg.Train > 0},
		{"val", out.Val, cfg.Val > 0 || len(valOnly) > 0},
		{"test", out.Test, cfg.Test > 0},
		{"heldout", out.HeldOut, len(held) > 0},
	} {
		if s.want {
			errs = append(errs, checkSplit(s.name, s.pairs)...)
		}
	}
	if len(errs) > 0 {
		return Splits{}, fmt.Errorf("split pairs: %w", errors.Join(errs...))
	}
	return out, nil
}

// pickFamilies resolves the named families and styles and draws the fraction (of all the
// families present) among those not named and not taken already; what names the set in
// errors. A named family that is taken already is an error.
func pickFamilies(present map[string]bool, what string, names []string, fraction float64, taken map[string]bool, rng *rand.Rand) (map[string]bool, error) {
	all := make([]string, 0, len(present))
	for f := range present {
		all = append(all, f)
	}
	slices.Sort(all)
	held := map[string]bool{}
	var errs []error
	for _, name := range names {
		if strings.Contains(name, "/") {
			switch {
			case !present[name]:
				errs = append(errs, fmt.Errorf("%s family %q does not occur in the pairs", what, name))
			case taken[name]:
				errs = append(errs, fmt.Errorf("%s family %q is held out already", what, name))
			}
			held[name] = true
			continue
		}
		n := 0
		for _, f := range all {
			if strings.HasSuffix(f, "/"+name) && !taken[f] {
				held[f] = true
				n++
			}
		}
		if n == 0 {
			errs = append(errs, fmt.Errorf("%s style %q matches no family in the pairs that is not held out already", what, name))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if fraction > 0 {
		if len(all) == 0 {
			return nil, fmt.Errorf("a %s family fraction needs pairs with phrasing families", what)
		}
		k := max(1, int(math.Round(fraction*float64(len(all)))))
		rest := slices.DeleteFunc(slices.Clone(all), func(f string) bool { return held[f] || taken[f] })
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
		for _, f := range rest[:min(k, len(rest))] {
			held[f] = true
		}
	}
	return held, nil
}

// checkSplit lists what a split lacks.
func checkSplit(name string, pairs []Pair) []error {
	if len(pairs) == 0 {
		return []error{fmt.Errorf("split %s is empty: %w", name, ErrDegenerateSplit)}
	}
	var same, irrelevant, consistent, conflicting bool
	for _, p := range pairs {
		switch {
		case p.YTop == 0:
			irrelevant = true
		case p.YLog == 1:
			same, consistent = true, true
		default:
			same, conflicting = true, true
		}
	}
	var errs []error
	lack := func(what string) {
		errs = append(errs, fmt.Errorf("split %s has no %s: %w", name, what, ErrDegenerateSplit))
	}
	if !same {
		lack("same-slot pairs (y_top = 1)")
	}
	if !irrelevant {
		lack("irrelevant pairs (y_top = 0)")
	}
	if same && !consistent {
		lack("consistent pairs (y_top = 1, y_log = 1)")
	}
	if same && !conflicting {
		lack("conflicting pairs (y_top = 1, y_log = 0)")
	}
	return errs
}
