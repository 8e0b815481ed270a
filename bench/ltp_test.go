package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/data"
)

func TestBuildLTPFixture(t *testing.T) {
	convs := loadFixture(t)
	l, err := BuildLTP(convs, LTPConfig{Profiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Profiles) != 3 || len(l.Units) != 120 || len(l.Probes) != 240 {
		t.Fatalf("%d profiles, %d units, %d probes", len(l.Profiles), len(l.Units), len(l.Probes))
	}
	for _, c := range l.Validate().Checks {
		if !c.OK {
			t.Errorf("%s: %s %v", c.Name, c.Detail, c.Failures)
		}
	}
	perCat := map[data.Category]int{}
	for _, u := range l.Units {
		if u.Profile == "p01" {
			perCat[u.Category]++
		}
	}
	want := map[data.Category]int{data.CategoryJob: 6, data.CategoryLocation: 6, data.CategoryRelationship: 6, data.CategoryPets: 6,
		data.CategoryHobbies: 6, data.CategoryLikes: 5, data.CategoryNumerical: 5}
	if diff := cmp.Diff(want, perCat); diff != "" {
		t.Errorf("units per category (-want +got):\n%s", diff)
	}
	// Cues are the user's turns, in the replay with the original turns around them.
	p := l.Profiles[0]
	if p.User != "Ada" || p.Turns != 24 || len(p.Events) != 24+80 {
		t.Errorf("profile %s: user %s, %d turns, %d events", p.ID, p.User, p.Turns, len(p.Events))
	}
	for _, e := range p.Events {
		if e.Kind != EventTurn && (e.Speaker != "Ada" || !strings.HasPrefix(e.turn().Content(), "Ada: ")) {
			t.Fatalf("cue %s is not the user's turn: %q", e.ID, e.turn().Content())
		}
	}
}

func TestBuildLTPDeterministic(t *testing.T) {
	convs := loadFixture(t)
	a, err := BuildLTP(convs, LTPConfig{Profiles: 2, Units: 14, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildLTP(convs, LTPConfig{Profiles: 2, Units: 14, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same config, different benchmark:\n%s", diff)
	}
	c, err := BuildLTP(convs, LTPConfig{Profiles: 2, Units: 14, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(a.Probes, c.Probes) {
		t.Error("another seed gave the same probes")
	}
}

func TestBuildLTPErrors(t *testing.T) {
	convs := loadFixture(t)
	tests := []struct {
		name string
		cfg  LTPConfig
		want string
	}{
		{"more profiles than conversations", LTPConfig{Profiles: 4}, "4 profiles need as many conversations"},
		{"too many units", LTPConfig{Profiles: 1, Units: 43}, "units 43"},
		{"negative", LTPConfig{Profiles: -1, MaxTurns: -2}, "negative"},
		{"too few turns", LTPConfig{Profiles: 1, MaxTurns: 5}, "no room for the cue windows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuildLTP(convs, tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// The largest configurations draw every value without repeating one.
func TestBuildLTPMaxUnits(t *testing.T) {
	l, err := BuildLTP(loadFixture(t), LTPConfig{Profiles: 3, Units: MaxLTPUnits})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Profiles {
		seen := map[string]string{}
		for _, u := range l.Units {
			if u.Profile != p.ID || u.Category == data.CategoryHobbies || u.Category == data.CategoryLikes || u.Category == data.CategoryPets || u.Category == data.CategoryNumerical {
				continue // frequencies, species and numbers may repeat across units
			}
			for _, v := range []string{u.Old, u.New} {
				if prev, ok := seen[v]; ok && prev != u.ID {
					t.Fatalf("%s: value %q of %s repeats %s's", p.ID, v, u.ID, prev)
				}
				seen[v] = u.ID
			}
		}
	}
	tm, err := GenerateTEM(TEMConfig{Personas: 2, Moves: 8, Sessions: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tm.Personas {
		for attr, vals := range p.States {
			seen := map[string]bool{}
			for _, v := range vals {
				if seen[v] {
					t.Fatalf("%s %s repeats %q", p.ID, attr, v)
				}
				seen[v] = true
			}
		}
	}
}

func TestBuildLTPMaxTurns(t *testing.T) {
	l, err := BuildLTP(loadFixture(t), LTPConfig{Profiles: 1, Units: 7, MaxTurns: 12})
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Profiles[0]; p.Turns != 12 || len(p.Events) != 12+14 {
		t.Errorf("%d turns, %d events", p.Turns, len(p.Events))
	}
}

// Every validator must be able to fail: each case breaks a valid benchmark one way.
func TestValidateCatches(t *testing.T) {
	tests := []struct {
		check string
		spoil func(l *LTP)
	}{
		{"profile_count", func(l *LTP) { l.Profiles = l.Profiles[:1] }},
		{"unique_ids", func(l *LTP) { l.Probes[1].ID = l.Probes[0].ID }},
		{"coverage", func(l *LTP) { l.Units[0].Update = data.UpdateScopeMismatch; l.Units[0].Category = data.CategoryJob }},
		{"two_probes", func(l *LTP) { l.Probes[1].Kind = ProbeFact }},
		{"gold_consistency", func(l *LTP) { l.Probes[0].Gold = "something else" }},
		{"cue_order", func(l *LTP) {
			p := &l.Profiles[0]
			for i, e := range p.Events {
				if e.ID == l.Units[0].Cue1 {
					p.Events[i].Time = p.Events[i].Time.Add(10000 * time.Hour)
				}
			}
		}},
		{"target_labels", func(l *LTP) { l.Probes[0].Target = StateCurrent }},
		{"view_leakage", func(l *LTP) { l.Probes[0].Question += " Was it " + l.Probes[0].Gold + "?" }},
	}
	for _, tt := range tests {
		t.Run(tt.check, func(t *testing.T) {
			l, err := BuildLTP(loadFixture(t), LTPConfig{Profiles: 2, Units: 14})
			if err != nil {
				t.Fatal(err)
			}
			tt.spoil(l)
			r := l.Validate()
			if r.OK() || r.Err() == nil {
				t.Fatal("the spoiled benchmark validates")
			}
			for _, c := range r.Checks {
				if c.Name == tt.check && c.OK {
					t.Fatalf("check %s passed: %+v", tt.check, r.Checks)
				}
			}
		})
	}
}

func TestExpandFor(t *testing.T) {
	vars := map[string]string{"city": "Denver"}
	tests := []struct {
		tpl, who, want string
	}{
		{"{S} {live|lives} in {city}.", "self", "I live in Denver."},
		{"{S} {live|lives} in {city}.", "sister", "My sister lives in Denver."},
		{"Where does {who} live now?", "self", "Where does Ada live now?"},
		{"What is {whose} job?", "brother", "What is Ada's brother's job?"},
		{"{P} rent; {pron} {am|is} happy.", "dad", "My dad's rent; he is happy."},
		{"{unknown} stays", "self", "{unknown} stays"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var p person
			for _, x := range people {
				if x.key == tt.who {
					p = x
				}
			}
			if got := expandFor(tt.tpl, p, "Ada", vars); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
