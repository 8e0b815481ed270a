package bench

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/internal/words"
)

// Check is the outcome of one validator.
type Check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what was checked, or how many failed.
	Detail string `json:"detail"`
	// Failures are the first failures found (at most maxFailures).
	Failures []string `json:"failures,omitempty"`
}

const maxFailures = 10

// ValidationReport is the outcome of every validator.
type ValidationReport struct {
	Checks []Check `json:"checks"`
}

// OK reports whether every check passed.
func (r ValidationReport) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// Err joins the failed checks into one error; nil when all passed.
func (r ValidationReport) Err() error {
	var errs []error
	for _, c := range r.Checks {
		if !c.OK {
			errs = append(errs, fmt.Errorf("%s: %s: %s", c.Name, c.Detail, strings.Join(c.Failures, "; ")))
		}
	}
	return errors.Join(errs...)
}

// checker collects the failures of one check.
type checker struct {
	name  string
	n     int
	fails []string
}

func (c *checker) fail(format string, args ...any) {
	c.n++
	if len(c.fails) < maxFailures {
		c.fails = append(c.fails, fmt.Sprintf(format, args...))
	}
}

func (c *checker) done(what string) Check {
	if c.n == 0 {
		return Check{Name: c.name, OK: true, Detail: what}
	}
	return Check{Name: c.name, OK: false, Detail: fmt.Sprintf("%d failures (%s)", c.n, what), Failures: c.fails}
}

// Validate runs the LTP validators the paper lists:
//
//   - profile_count: as many profiles as configured, each bound to its own conversation;
//   - unique_ids: profile, event, unit and probe ids are unique;
//   - coverage: every profile has the configured number of units, every category (when
//     there are at least seven units), each unit's update type is its category's, and its
//     cues are events of its own profile;
//   - two_probes: every unit has one fact-recall and one conflict-aware probe, and every
//     probe a unit;
//   - gold_consistency: fact-recall gold is the unit's old value and conflict-aware gold
//     its current value, the two differ, cue1 states the old value and cue2 the current;
//   - cue_order: cue1 comes before cue2, cue1 within the 0.12–0.42 quantiles of the time
//     line, cue2 within 0.58–0.88, the replay is in time order and keeps every original
//     turn in order, with a tail after the last cue;
//   - target_labels: fact-recall probes target the old state, conflict-aware probes the
//     current state;
//   - view_leakage: cue1 does not mention the current value (the old view knows nothing of
//     the future), and no question contains either state's value.
func (l *LTP) Validate() ValidationReport {
	var r ValidationReport
	cfg := l.Config.withDefaults()
	events := map[string]Event{}
	eventProfile := map[string]string{}
	for _, p := range l.Profiles {
		for _, e := range p.Events {
			events[e.ID] = e
			eventProfile[e.ID] = p.ID
		}
	}
	units := map[string]Unit{}
	for _, u := range l.Units {
		units[u.ID] = u
	}

	c := &checker{name: "profile_count"}
	if len(l.Profiles) != cfg.Profiles {
		c.fail("%d profiles, want %d", len(l.Profiles), cfg.Profiles)
	}
	convs := map[string]bool{}
	for _, p := range l.Profiles {
		if convs[p.Conversation] {
			c.fail("conversation %s is bound to two profiles", p.Conversation)
		}
		convs[p.Conversation] = true
	}
	r.Checks = append(r.Checks, c.done(fmt.Sprintf("%d profiles, one conversation each", cfg.Profiles)))

	c = &checker{name: "unique_ids"}
	seen := map[string]string{}
	id := func(kind, v string) {
		if v == "" {
			c.fail("a %s has no id", kind)
			return
		}
		if k, ok := seen[v]; ok {
			c.fail("id %s is used by a %s and a %s", v, k, kind)
		}
		seen[v] = kind
	}
	for _, p := range l.Profiles {
		id("profile", p.ID)
		for _, e := range p.Events {
			id("event", e.ID)
		}
	}
	for _, u := range l.Units {
		id("unit", u.ID)
	}
	for _, p := range l.Probes {
		id("probe", p.ID)
	}
	r.Checks = append(r.Checks, c.done(fmt.Sprintf("%d ids", len(seen))))

	c = &checker{name: "coverage"}
	byProfile := map[string][]Unit{}
	for _, u := range l.Units {
		byProfile[u.Profile] = append(byProfile[u.Profile], u)
		if u.Update != u.Category.UpdateType() {
			c.fail("%s: update type %s, category %s wants %s", u.ID, u.Update, u.Category, u.Category.UpdateType())
		}
		for _, cue := range []string{u.Cue1, u.Cue2} {
			if eventProfile[cue] != u.Profile {
				c.fail("%s: cue %q is not an event of profile %s", u.ID, cue, u.Profile)
			}
		}
	}
	for _, p := range l.Profiles {
		us := byProfile[p.ID]
		if len(us) != cfg.Units {
			c.fail("%s: %d units, want %d", p.ID, len(us), cfg.Units)
		}
		if cfg.Units >= len(categoryOrder) {
			have := map[data.Category]bool{}
			for _, u := range us {
				have[u.Category] = true
			}
			for _, cat := range categoryOrder {
				if !have[cat] {
					c.fail("%s: no %s unit", p.ID, cat)
				}
			}
		}
	}
	r.Checks = append(r.Checks, c.done(fmt.Sprintf("%d units per profile over the seven categories", cfg.Units)))

	c = &checker{name: "two_probes"}
	kinds := map[string]map[ProbeKind]int{}
	for _, p := range l.Probes {
		if _, ok := units[p.Unit]; !ok {
			c.fail("%s: no unit %s", p.ID, p.Unit)
			continue
		}
		if kinds[p.Unit] == nil {
			kinds[p.Unit] = map[ProbeKind]int{}
		}
		kinds[p.Unit][p.Kind]++
	}
	for _, u := range l.Units {
		if k := kinds[u.ID]; k[ProbeFact] != 1 || k[ProbeConflict] != 1 || len(k) != 2 {
			c.fail("%s: probes %v, want one %s and one %s", u.ID, k, ProbeFact, ProbeConflict)
		}
	}
	r.Checks = append(r.Checks, c.done(fmt.Sprintf("%d probes, two per unit", len(l.Probes))))

	c = &checker{name: "gold_consistency"}
	for _, u := range l.Units {
		if len(words.Split(u.Old)) == 0 || len(words.Split(u.New)) == 0 || strings.EqualFold(u.Old, u.New) {
			c.fail("%s: old %q and new %q must be two different values", u.ID, u.Old, u.New)
		}
		if e := events[u.Cue1]; !containsPhrase(e.Text, u.Old) {
			c.fail("%s: cue1 %q does not state the old value %q", u.ID, e.Text, u.Old)
		}
		if e := events[u.Cue2]; !containsPhrase(e.Text, u.New) {
			c.fail("%s: cue2 %q does not state the current value %q", u.ID, e.Text, u.New)
		}
	}
	for _, p := range l.Probes {
		u := units[p.Unit]
		want, other := u.Old, u.New
		if p.Kind == ProbeConflict {
			want, other = u.New, u.Old
		}
		if p.Gold != want || p.Other != other {
			c.fail("%s: gold %q / other %q, the unit says %q / %q", p.ID, p.Gold, p.Other, want, other)
		}
		if p.Category != u.Category || p.Profile != u.Profile {
			c.fail("%s: category or profile differs from its unit's", p.ID)
		}
	}
	r.Checks = append(r.Checks, c.done("gold answers are the units' values and the cues state them"))

	c = &checker{name: "cue_order"}
	for _, p := range l.Profiles {
		n := p.Turns
		originals := 0
		before := map[string]int{} // cue id → original turns before it
		lastCue := -1
		for i, e := range p.Events {
			if e.Pos != i {
				c.fail("%s: event %s has position %d at index %d", p.ID, e.ID, e.Pos, i)
			}
			if i > 0 && e.Time.Before(p.Events[i-1].Time) {
				c.fail("%s: event %s is earlier than the event before it", p.ID, e.ID)
			}
			if e.Kind == EventTurn {
				originals++
				continue
			}
			before[e.ID] = originals
			lastCue = i
		}
		if originals != n {
			c.fail("%s: %d original turns in the replay, want %d", p.ID, originals, n)
		}
		if lastCue >= 0 && lastCue == len(p.Events)-1 {
			c.fail("%s: the replay ends with a cue; the original tail is lost", p.ID)
		}
		lo1, hi1 := int(math.Ceil(Cue1From*float64(n))), int(math.Floor(Cue1To*float64(n)))
		lo2, hi2 := int(math.Ceil(Cue2From*float64(n))), int(math.Floor(Cue2To*float64(n)))
		for _, u := range byProfile[p.ID] {
			e1, e2 := events[u.Cue1], events[u.Cue2]
			if e1.Kind != EventCue1 || e2.Kind != EventCue2 || e1.Unit != u.ID || e2.Unit != u.ID {
				c.fail("%s: cue events are not this unit's cue1 and cue2", u.ID)
				continue
			}
			if e1.Pos >= e2.Pos || !e1.Time.Before(e2.Time) {
				c.fail("%s: cue1 (%d, %s) is not before cue2 (%d, %s)", u.ID, e1.Pos, e1.Time, e2.Pos, e2.Time)
			}
			if b := before[e1.ID]; b < lo1 || b > max(lo1, hi1) {
				c.fail("%s: cue1 after %d of %d turns, outside the %.2f–%.2f window", u.ID, b, n, Cue1From, Cue1To)
			}
			if b := before[e2.ID]; b < lo2 || b > max(lo2, hi2) {
				c.fail("%s: cue2 after %d of %d turns, outside the %.2f–%.2f window", u.ID, b, n, Cue2From, Cue2To)
			}
		}
	}
	r.Checks = append(r.Checks, c.done("cue1 in 0.12–0.42, cue2 in 0.58–0.88 and after its cue1, original tail kept"))

	c = &checker{name: "target_labels"}
	for _, p := range l.Probes {
		want := map[ProbeKind]State{ProbeFact: StateOld, ProbeConflict: StateCurrent}[p.Kind]
		if want == "" || p.Target != want {
			c.fail("%s: kind %q targets %q", p.ID, p.Kind, p.Target)
		}
	}
	r.Checks = append(r.Checks, c.done("fact recall → old state, conflict-aware → current state"))

	c = &checker{name: "view_leakage"}
	for _, u := range l.Units {
		if e := events[u.Cue1]; containsPhrase(e.Text, u.New) {
			c.fail("%s: cue1 %q already states the current value %q", u.ID, e.Text, u.New)
		}
	}
	for _, p := range l.Probes {
		for _, v := range []string{p.Gold, p.Other} {
			if containsPhrase(p.Question, v) {
				c.fail("%s: question %q gives away %q", p.ID, p.Question, v)
			}
		}
	}
	r.Checks = append(r.Checks, c.done("cue1 never states the current value; no question states a value"))
	return r
}
