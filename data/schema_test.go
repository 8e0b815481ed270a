package data

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCategoryUpdateType(t *testing.T) {
	tests := []struct {
		c    Category
		want UpdateType
	}{
		{CategoryJob, UpdateTemporal},
		{CategoryLocation, UpdateTemporal},
		{CategoryRelationship, UpdateExplicitNegation},
		{CategoryPets, UpdateExplicitNegation},
		{CategoryNumerical, UpdateValueDiscrepancy},
		{CategoryHobbies, UpdateScopeMismatch},
		{CategoryLikes, UpdateScopeMismatch},
		{"sports", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.c), func(t *testing.T) {
			if got := tt.c.UpdateType(); got != tt.want {
				t.Errorf("UpdateType() = %q, want %q", got, tt.want)
			}
			if got, want := tt.c.Valid(), tt.want != ""; got != want {
				t.Errorf("Valid() = %v, want %v", got, want)
			}
		})
	}
	if n := len(Categories()); n != 7 {
		t.Errorf("%d categories, want the paper's 7", n)
	}
}

// jsonSchema is the part of a JSON Schema document the tests compare with the Go types.
type jsonSchema struct {
	Type                 string                 `json:"type"`
	Required             []string               `json:"required"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
	Properties           map[string]jsonSchema  `json:"properties"`
	Items                *jsonSchema            `json:"items"`
	Ref                  string                 `json:"$ref"`
	Enum                 []string               `json:"enum"`
	Pattern              string                 `json:"pattern"`
	Defs                 map[string]*jsonSchema `json:"$defs"`
}

// fieldsOf lists a struct's JSON fields and those without omitempty.
func fieldsOf(v any) (all, required []string) {
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		tag := rt.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		all = append(all, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	return all, required
}

func keys(m map[string]jsonSchema) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestSchemaDocuments keeps the embedded JSON Schema documents and the loader in step.
func TestSchemaDocuments(t *testing.T) {
	strs := func(vs any) []string {
		rv := reflect.ValueOf(vs)
		out := make([]string, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).String()
		}
		return out
	}
	var profile, interaction jsonSchema
	if err := json.Unmarshal(ProfileSchema(), &profile); err != nil {
		t.Fatalf("profile schema: %v", err)
	}
	if err := json.Unmarshal(InteractionSchema(), &interaction); err != nil {
		t.Fatalf("interaction schema: %v", err)
	}
	fact := profile.Defs["fact"]
	if fact == nil || profile.Properties["facts"].Items == nil || profile.Properties["facts"].Items.Ref != "#/$defs/fact" {
		t.Fatal("profile schema: facts do not refer to $defs/fact")
	}
	for _, tt := range []struct {
		name   string
		schema jsonSchema
		goType any
		loader []string
	}{
		{"profile", profile, Profile{}, profileFields},
		{"fact", *fact, Fact{}, factFields},
		{"interaction", interaction, Interaction{}, interactionFields},
	} {
		t.Run(tt.name, func(t *testing.T) {
			all, required := fieldsOf(tt.goType)
			if tt.schema.AdditionalProperties == nil || *tt.schema.AdditionalProperties {
				t.Error("schema allows additional properties; the loader rejects them")
			}
			if diff := cmp.Diff(slices.Sorted(slices.Values(all)), keys(tt.schema.Properties)); diff != "" {
				t.Errorf("properties differ from the Go fields (-go +schema):\n%s", diff)
			}
			if diff := cmp.Diff(required, tt.schema.Required); diff != "" {
				t.Errorf("required differs from the Go fields without omitempty (-go +schema):\n%s", diff)
			}
			if diff := cmp.Diff(all, tt.loader); diff != "" {
				t.Errorf("loader fields differ from the Go fields (-go +loader):\n%s", diff)
			}
		})
	}
	checks := []struct {
		name, got, want string
	}{
		{"profile id pattern", profile.Properties["id"].Pattern, idPattern},
		{"slot key pattern", fact.Properties["slot_key"].Pattern, keyPattern},
		{"topic key pattern", fact.Properties["topic_key"].Pattern, keyPattern},
		{"interaction id pattern", interaction.Properties["id"].Pattern, idPattern},
		{"profile_id pattern", interaction.Properties["profile_id"].Pattern, idPattern},
		{"interaction slot key pattern", interaction.Properties["slot_key"].Pattern, keyPattern},
		{"family pattern", interaction.Properties["family"].Pattern, familyPattern},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: schema %q, Go %q", c.name, c.got, c.want)
		}
	}
	if diff := cmp.Diff(strs(categories), fact.Properties["category"].Enum); diff != "" {
		t.Errorf("category enum (-go +schema):\n%s", diff)
	}
	if diff := cmp.Diff(strs(relations), interaction.Properties["relation"].Enum); diff != "" {
		t.Errorf("relation enum (-go +schema):\n%s", diff)
	}
	if diff := cmp.Diff(strs(updateTypes), interaction.Properties["update_type"].Enum); diff != "" {
		t.Errorf("update type enum (-go +schema):\n%s", diff)
	}
}

func TestDatasetValidate(t *testing.T) {
	good := func() *Dataset {
		return &Dataset{
			Profiles: []Profile{{ID: "p1", Facts: []Fact{
				{SlotKey: "job", TopicKey: "work", Category: CategoryJob, Value: "nurse", Text: "I'm a nurse."},
				{SlotKey: "pet.1", TopicKey: "pets", Category: CategoryPets, Value: "Rex (dog)", Text: "I have a dog, Rex."},
			}}},
			Interactions: []Interaction{
				{ID: "i1", ProfileID: "p1", SlotKey: "job", Text: "I quit.", Relation: Conflicting, UpdateType: UpdateTemporal},
				{ID: "i2", ProfileID: "p1", SlotKey: "pet.1", Text: "Rex says hi.", Relation: Consistent, UpdateType: UpdateExplicitNegation},
			},
		}
	}
	tests := []struct {
		name   string
		mutate func(d *Dataset)
		want   []string
	}{
		{"valid", func(*Dataset) {}, nil},
		{"implicit violation fits any category", func(d *Dataset) { d.Interactions[1].UpdateType = UpdateImplicitViolation }, nil},
		{"many problems", func(d *Dataset) {
			d.Profiles = append(d.Profiles, Profile{ID: "p1", Facts: []Fact{{SlotKey: "x", TopicKey: "", Category: "pet", Value: "v", Text: ""}}})
			d.Interactions[0].SlotKey = "home"
			d.Interactions[1].UpdateType = UpdateScopeMismatch
			d.Interactions = append(d.Interactions, Interaction{ID: "i1", ProfileID: "p9", SlotKey: "job", Text: "t", Relation: "maybe", UpdateType: UpdateTemporal})
		}, []string{
			`profiles[1].id: duplicate profile id "p1" (first at profiles[0])`,
			`profiles[1].facts[0].topic_key: empty topic key`,
			`profiles[1].facts[0].category: unknown category "pet" (want ` + allCategories + `)`,
			`profiles[1].facts[0].text: empty text`,
			`interactions[2].id: duplicate interaction id "i1" (first at interactions[0])`,
			`interactions[2].relation: unknown relation "maybe" (want consistent, conflicting)`,
			`interactions[0].slot_key: profile "p1" has no slot "home"`,
			`interactions[1].update_type: update type "scope_mismatch" does not fit category "pets" of slot "pet.1" (want explicit_negation or implicit_violation)`,
			`interactions[2].profile_id: no profile "p9"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good()
			tt.mutate(d)
			if diff := cmp.Diff(tt.want, problems(t, d.Validate())); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHash(t *testing.T) {
	d := &Dataset{
		Profiles: []Profile{{ID: "p1", Facts: []Fact{{SlotKey: "job", TopicKey: "work", Category: CategoryJob, Value: "R&D <lead>", Text: "I lead R&D."}}}},
		Interactions: []Interaction{{ID: "i1", ProfileID: "p1", SlotKey: "job", Text: "I quit.", Relation: Conflicting,
			UpdateType: UpdateTemporal}},
	}
	canonical := `{"profiles":[{"id":"p1","facts":[{"slot_key":"job","topic_key":"work","category":"job","value":"R&D <lead>","text":"I lead R&D."}]}],` +
		`"interactions":[{"id":"i1","profile_id":"p1","slot_key":"job","text":"I quit.","relation":"conflicting","update_type":"temporal_update"}]}`
	sum := sha256.Sum256([]byte(canonical))
	if got, want := d.Hash(), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("Hash() = %s, want the sha256 of the canonical JSON, %s", got, want)
	}
	before := d.Hash()
	d.Interactions[0].Family = "job/direct"
	if d.Hash() == before {
		t.Error("Hash() did not change with the family")
	}
}
