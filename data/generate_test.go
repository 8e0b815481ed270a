package data

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// encode writes a dataset as its two JSONL files, one after the other.
func encode(t *testing.T, d *Dataset) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, d.Profiles); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&buf, d.Interactions); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func generate(t *testing.T, cfg GenConfig) *Dataset {
	t.Helper()
	d, err := Generate(cfg)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return d
}

func TestGenerateDeterministic(t *testing.T) {
	for _, cfg := range []GenConfig{
		{},
		{Seed: 42, Profiles: 7, FactsPerProfile: MaxFactsPerProfile, Interactions: 300, ConflictRatio: 0.3, NoiseRate: 1, ImplicitRate: 0.4},
	} {
		a, b := encode(t, generate(t, cfg)), encode(t, generate(t, cfg))
		if !bytes.Equal(a, b) {
			t.Errorf("%+v: two runs differ", cfg)
		}
		cfg.Seed++
		if c := encode(t, generate(t, cfg)); bytes.Equal(a, c) {
			t.Errorf("%+v: seeds %d and %d give the same data", cfg, cfg.Seed-1, cfg.Seed)
		}
	}
}

// TestGenerateGolden pins the generator's output; after a deliberate change to templates or
// pools, rerun with -update and review the diff.
func TestGenerateGolden(t *testing.T) {
	got := encode(t, generate(t, GenConfig{Seed: 7, Profiles: 3, Interactions: 28, ImplicitRate: 0.3}))
	path := filepath.Join("testdata", "generate.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("generated data differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestGenerateDefaults(t *testing.T) {
	d := generate(t, GenConfig{Seed: 1})
	if err := d.Validate(); err != nil {
		t.Fatalf("generated dataset is invalid: %v", err)
	}
	s := d.Stats()
	if s.Profiles != 50 || s.Facts != 500 || s.Interactions != 1000 {
		t.Errorf("%d profiles, %d facts, %d interactions; want 50, 500, 1000", s.Profiles, s.Facts, s.Interactions)
	}
	for _, p := range d.Profiles {
		cats := map[Category]bool{}
		for _, f := range p.Facts {
			cats[f.Category] = true
		}
		if len(p.Facts) != 10 || len(cats) != 7 {
			t.Errorf("profile %s has %d facts in %d categories, want 10 in 7", p.ID, len(p.Facts), len(cats))
		}
	}
	for _, c := range categories {
		n := s.ByCategory[c]
		if n.Total() < 142 || n.Total() > 143 {
			t.Errorf("category %s has %d interactions, want 142 or 143", c, n.Total())
		}
		if diff := n.Conflicting - n.Consistent; diff < -1 || diff > 1 {
			t.Errorf("category %s: %d conflicting, %d consistent; want them balanced", c, n.Conflicting, n.Consistent)
		}
	}
	if s.DistinctTexts < 950 {
		t.Errorf("%d distinct texts of 1000, want at least 95%%", s.DistinctTexts)
	}
	if n := s.ByUpdateType[UpdateImplicitViolation].Total(); n != 0 {
		t.Errorf("%d implicit violations with ImplicitRate 0", n)
	}
	perProfile := map[string]int{}
	for _, in := range d.Interactions {
		perProfile[in.ProfileID]++
		p, _ := d.Profile(in.ProfileID)
		f, _ := p.Fact(in.SlotKey)
		if in.UpdateType != f.Category.UpdateType() {
			t.Errorf("%s: update type %s in category %s", in.ID, in.UpdateType, f.Category)
		}
		if strings.ContainsAny(in.Text, "{}") {
			t.Errorf("%s: unexpanded placeholder in %q", in.ID, in.Text)
		}
	}
	for _, p := range d.Profiles {
		if perProfile[p.ID] < 14 {
			t.Errorf("profile %s has %d interactions, want at least 14 (two per category)", p.ID, perProfile[p.ID])
		}
	}
	for _, f := range Families() {
		if strings.HasSuffix(f, "/"+StyleImplicit) || strings.HasSuffix(f, "/"+StyleEcho) {
			continue // used only with ImplicitRate or Echo
		}
		if n := s.ByFamily[f]; n.Consistent == 0 || n.Conflicting == 0 {
			t.Errorf("family %s: %d consistent, %d conflicting; want both used", f, n.Consistent, n.Conflicting)
		}
	}
}

// TestGenerateVariety checks that values and wording vary: many different cities, jobs,
// names and numbers, reported speech and filler.
func TestGenerateVariety(t *testing.T) {
	d := generate(t, GenConfig{Seed: 1})
	values := map[Category]map[string]bool{}
	for _, c := range categories {
		values[c] = map[string]bool{}
	}
	for _, p := range d.Profiles {
		for _, f := range p.Facts {
			values[f.Category][f.Value] = true
		}
	}
	for _, in := range d.Interactions {
		p, _ := d.Profile(in.ProfileID)
		f, _ := p.Fact(in.SlotKey)
		if in.Value != "" {
			values[f.Category][in.Value] = true
		}
	}
	want := map[Category]int{
		CategoryJob: 60, CategoryLocation: 40, CategoryRelationship: 40, CategoryPets: 50,
		CategoryHobbies: 100, CategoryLikes: 100, CategoryNumerical: 90,
	}
	for c, n := range want {
		if len(values[c]) < n {
			t.Errorf("category %s: %d distinct values, want at least %d", c, len(values[c]), n)
		}
	}
	var reported, recalled, filler int
	for _, in := range d.Interactions {
		low := strings.ToLower(in.Text)
		if strings.Contains(low, " says ") || strings.Contains(low, "according to") || strings.Contains(low, " thinks ") {
			reported++
		}
		if strings.Contains(low, "as i told you") || strings.Contains(low, "like i said") || strings.Contains(low, "like i mentioned") {
			recalled++
		}
		for _, f := range slices.Concat(fillersBefore, fillersAfter) {
			if strings.Contains(in.Text, f) {
				filler++
				break
			}
		}
	}
	if reported < 80 || recalled < 80 {
		t.Errorf("%d texts in reported speech and %d recalling, want at least 80 each", reported, recalled)
	}
	if filler < 30 || filler > 120 {
		t.Errorf("%d texts with filler, want about 2/3 of 10%%", filler)
	}
}

func TestGenerateOptions(t *testing.T) {
	tests := []struct {
		name  string
		cfg   GenConfig
		check func(t *testing.T, d *Dataset, s Stats)
	}{
		{"conflict ratio", GenConfig{Seed: 2, ConflictRatio: 0.3, Interactions: 700}, func(t *testing.T, d *Dataset, s Stats) {
			for _, c := range categories {
				if n := s.ByCategory[c]; n.Conflicting != 30 || n.Consistent != 70 {
					t.Errorf("category %s: %+v, want 30 conflicting and 70 consistent", c, n)
				}
			}
		}},
		{"fewest facts", GenConfig{Seed: 2, Profiles: 4, FactsPerProfile: 7, Interactions: 70}, func(t *testing.T, d *Dataset, s Stats) {
			if s.Facts != 28 {
				t.Errorf("%d facts, want 28", s.Facts)
			}
		}},
		{"most facts", GenConfig{Seed: 2, Profiles: 4, FactsPerProfile: MaxFactsPerProfile, Interactions: 70}, func(t *testing.T, d *Dataset, s Stats) {
			if s.Facts != 4*MaxFactsPerProfile {
				t.Errorf("%d facts, want %d", s.Facts, 4*MaxFactsPerProfile)
			}
		}},
		{"no noise", GenConfig{Seed: 2, NoiseRate: -1}, func(t *testing.T, d *Dataset, s Stats) {
			for _, in := range d.Interactions {
				for _, f := range slices.Concat(fillersBefore, fillersAfter) {
					if strings.HasPrefix(in.Text, f+" ") || strings.HasSuffix(in.Text, " "+f) {
						t.Errorf("%s has filler %q with noise off: %q", in.ID, f, in.Text)
					}
				}
			}
		}},
		{"echo families", GenConfig{Seed: 2, Echo: true}, func(t *testing.T, d *Dataset, s Stats) {
			echo := map[string]int{}
			for _, in := range d.Interactions {
				if strings.HasSuffix(in.Family, "/"+StyleEcho) {
					echo[in.Family]++
				}
			}
			for _, c := range []Category{CategoryJob, CategoryLocation, CategoryHobbies, CategoryNumerical} {
				if echo[string(c)+"/"+StyleEcho] < 10 {
					t.Errorf("family %s/%s has %d interactions, want some of the category's", c, StyleEcho, echo[string(c)+"/"+StyleEcho])
				}
			}
			plain, err := Generate(GenConfig{Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range plain.Interactions {
				if strings.HasSuffix(in.Family, "/"+StyleEcho) {
					t.Fatalf("interaction %s is of family %s without Echo", in.ID, in.Family)
				}
			}
		}},
		{"implicit violations", GenConfig{Seed: 2, ImplicitRate: 0.2}, func(t *testing.T, d *Dataset, s Stats) {
			n := s.ByUpdateType[UpdateImplicitViolation]
			// 20% of job, location and likes/dislikes (each about 143).
			if n.Total() < 80 || n.Conflicting == 0 || n.Consistent == 0 {
				t.Errorf("implicit violations: %+v, want about 86 of both relations", n)
			}
			for _, in := range d.Interactions {
				implicitFamily := strings.HasSuffix(in.Family, "/"+StyleImplicit)
				if implicitFamily != (in.UpdateType == UpdateImplicitViolation) {
					t.Errorf("%s: family %s with update type %s", in.ID, in.Family, in.UpdateType)
				}
				if implicitFamily && in.Value != "" {
					t.Errorf("%s: implicit statement with value %q", in.ID, in.Value)
				}
				if in.Family == "likes_dislikes/implicit" && !strings.HasSuffix(in.SlotKey, ".diet") {
					t.Errorf("%s: implicit likes statement about %s, want a diet", in.ID, in.SlotKey)
				}
			}
		}},
		{"all implicit", GenConfig{Seed: 2, Profiles: 5, Interactions: 70, ImplicitRate: 1}, func(t *testing.T, d *Dataset, s Stats) {
			// Every job and location interaction is implicit; likes only where a diet exists.
			for _, c := range []Category{CategoryJob, CategoryLocation} {
				if n := s.ByFamily[string(c)+"/"+StyleImplicit].Total(); n != 10 {
					t.Errorf("%s: %d implicit interactions, want all 10", c, n)
				}
			}
		}},
		{"tiny", GenConfig{Seed: 2, Profiles: 1, Interactions: 1}, func(t *testing.T, d *Dataset, s Stats) {
			if s.Profiles != 1 || s.Interactions != 1 {
				t.Errorf("%d profiles and %d interactions, want 1 and 1", s.Profiles, s.Interactions)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := generate(t, tt.cfg)
			if err := d.Validate(); err != nil {
				t.Fatalf("invalid dataset: %v", err)
			}
			tt.check(t, d, d.Stats())
		})
	}
}

// TestGeneratedValues checks what interactions assert against their facts.
func TestGeneratedValues(t *testing.T) {
	d := generate(t, GenConfig{Seed: 5, ImplicitRate: 0.1})
	for _, in := range d.Interactions {
		p, _ := d.Profile(in.ProfileID)
		f, _ := p.Fact(in.SlotKey)
		switch {
		case in.UpdateType == UpdateImplicitViolation:
		case in.Relation == Consistent && in.Value != f.Value:
			t.Errorf("%s: consistent interaction asserts %q, fact is %q", in.ID, in.Value, f.Value)
		case in.Relation == Conflicting && (in.Value == "" || in.Value == f.Value):
			t.Errorf("%s: conflicting interaction asserts %q, fact is %q", in.ID, in.Value, f.Value)
		case in.Relation == Conflicting && f.Category == CategoryLikes && !strings.Contains(in.Value, " only "):
			t.Errorf("%s: scope mismatch %q does not narrow the scope", in.ID, in.Value)
		}
	}
}

func TestGenConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  GenConfig
		want []string
	}{
		{"zero value", GenConfig{}, nil},
		{"noise off", GenConfig{NoiseRate: -1}, nil},
		{"everything wrong", GenConfig{Profiles: -1, FactsPerProfile: 6, Interactions: -5, ConflictRatio: 1.5, NoiseRate: 2, ImplicitRate: -0.1}, []string{
			"profiles -1 is negative",
			"facts per profile 6 is outside 7..22",
			"interactions -5 is negative",
			"conflict ratio 1.5 is outside 0..1",
			"noise rate 2 is above 1 or not a number",
			"implicit rate -0.1 is outside 0..1",
		}},
		{"too many facts", GenConfig{FactsPerProfile: MaxFactsPerProfile + 1}, []string{"facts per profile 23 is outside 7..22"}},
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
			if _, gerr := Generate(tt.cfg); (gerr != nil) != (err != nil) {
				t.Errorf("Generate error %v, Validate error %v", gerr, err)
			}
		})
	}
}

// TestFamilies checks the template registry: enough templates per category and relation,
// at least two per family and relation, and every template expands for every fact its
// family can talk about.
func TestFamilies(t *testing.T) {
	names := Families()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("Families() is not sorted and unique: %v", names)
	}
	perCat := map[Category]map[Relation]int{}
	for _, f := range allFamilies() {
		if !familyRE.MatchString(f.name()) {
			t.Errorf("family name %q does not match %s", f.name(), familyPattern)
		}
		if f.update() != UpdateImplicitViolation && f.update() != f.Category.UpdateType() {
			t.Errorf("family %s has update type %s", f.name(), f.update())
		}
		for _, r := range relations {
			if n := len(f.templates(r)); n < 2 {
				t.Errorf("family %s has %d %s templates, want at least 2", f.name(), n, r)
			}
			if f.Style != StyleImplicit {
				if perCat[f.Category] == nil {
					perCat[f.Category] = map[Relation]int{}
				}
				perCat[f.Category][r] += len(f.templates(r))
			}
		}
	}
	for _, c := range categories {
		for _, r := range relations {
			if n := perCat[c][r]; n < 8 {
				t.Errorf("category %s has %d %s templates, want at least 8", c, n, r)
			}
		}
	}

	g := &generator{cfg: GenConfig{Profiles: 30, FactsPerProfile: MaxFactsPerProfile}.withDefaults(), rng: rand.New(rand.NewPCG(1, 2))}
	g.profiles()
	for _, fam := range allFamilies() {
		implicit := fam.Style == StyleImplicit
		used := 0
		for p := range g.facts {
			for _, f := range g.fitting(p, []*family{fam}) {
				used++
				for _, r := range relations {
					vars, _ := g.speak(f, r, implicit)
					for _, tpl := range fam.templates(r) {
						text, err := expand(tpl, vars)
						if err != nil {
							t.Fatalf("family %s, fact %s: %v", fam.name(), f.SlotKey, err)
						}
						if strings.ContainsAny(text, "{}") || strings.Contains(text, "  ") {
							t.Errorf("family %s: bad text %q", fam.name(), text)
						}
					}
				}
			}
		}
		if used == 0 {
			t.Errorf("family %s fits no fact of 30 full profiles", fam.name())
		}
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"name": "rex", "city": "Berlin"}
	tests := []struct {
		tpl, want, err string
	}{
		{"{Name} lives in {city}.", "Rex lives in Berlin.", ""},
		{"no placeholders", "no placeholders", ""},
		{"{missing}", "", "no value for {missing}"},
		{"open {name", "", "unclosed {"},
	}
	for _, tt := range tests {
		t.Run(tt.tpl, func(t *testing.T) {
			got, err := expand(tt.tpl, vars)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("expand: %v, want error containing %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("expand = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPools(t *testing.T) {
	likes := 0
	for _, d := range likeDomains {
		likes += len(d.Items)
		if len(d.Qualifiers) < 5 {
			t.Errorf("like domain %s has %d qualifiers, want at least 5", d.Topic, len(d.Qualifiers))
		}
	}
	sizes := []struct {
		name     string
		n, least int
	}{
		{"cities", len(cities), 50},
		{"jobs", len(jobs), 45},
		{"employers", len(employers), 45},
		{"pet species", len(petSpecies), 14},
		{"pet names", len(petNames), 40},
		{"partner names", len(femaleNames) + len(maleNames), 50},
		{"hobbies", len(hobbies), 35},
		{"likes", likes, 75},
		{"diets", len(diets), 3},
		{"numerical slots", len(numerics), 14},
		{"reporters", len(reporters), 12},
		{"fillers", len(fillersBefore) + len(fillersAfter), 20},
	}
	for _, s := range sizes {
		if s.n < s.least {
			t.Errorf("%d %s, want at least %d", s.n, s.name, s.least)
		}
	}
	unique := func(name string, xs []string) {
		if len(slices.Compact(slices.Sorted(slices.Values(xs)))) != len(xs) {
			t.Errorf("%s has duplicates", name)
		}
	}
	var cityNames, titles, emps, hobbyNames []string
	for _, c := range cities {
		cityNames = append(cityNames, c.Name)
	}
	for _, j := range jobs {
		titles = append(titles, j.Title)
		if len(employersIn(j.Field)) == 0 {
			t.Errorf("no employer in field %s of job %s", j.Field, j.Title)
		}
	}
	for _, e := range employers {
		emps = append(emps, e.Name)
	}
	for _, h := range hobbies {
		hobbyNames = append(hobbyNames, h.Noun)
	}
	unique("cities", cityNames)
	unique("jobs", titles)
	unique("employers", emps)
	unique("hobbies", hobbyNames)
	unique("pet names", petNames)
	unique("partner names", slices.Concat(femaleNames, maleNames))
	for _, nu := range numerics {
		if nu.Max-nu.Min < 2*nu.MinDelta {
			t.Errorf("numerical slot %s: range %d..%d too narrow for conflicts of %d", nu.Slot, nu.Min, nu.Max, nu.MinDelta)
		}
	}
}

func TestWords(t *testing.T) {
	tests := []struct{ got, want string }{
		{withArticle("nurse"), "a nurse"},
		{withArticle("accountant"), "an accountant"},
		{withArticle("HR manager"), "an HR manager"},
		{withArticle("IT support technician"), "an IT support technician"},
		{withArticle("GP"), "a GP"},
		{withArticle("UX designer"), "a UX designer"},
		{withArticle("university lecturer"), "a university lecturer"},
		{num(7, true), "seven"},
		{num(40, true), "forty"},
		{num(34, true), "thirty-four"},
		{num(34, false), "34"},
		{num(120, true), "120"},
		{count(1, true, "kid", "kids"), "one kid"},
		{count(3, false, "kid", "kids"), "3 kids"},
		{metres(182), "1.82"},
		{metres(205), "2.05"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
