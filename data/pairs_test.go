package data

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func pairsOf(t *testing.T, d *Dataset, seed uint64) []Pair {
	t.Helper()
	ps, err := BuildPairs(d, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatalf("BuildPairs: %v", err)
	}
	return ps
}

func TestBuildPairsLabels(t *testing.T) {
	d := generate(t, GenConfig{Seed: 4, ImplicitRate: 0.1})
	pairs := pairsOf(t, d, 1)
	if len(pairs) != 2*len(d.Interactions) {
		t.Fatalf("%d pairs for %d interactions, want two each", len(pairs), len(d.Interactions))
	}
	for i, in := range d.Interactions {
		p, _ := d.Profile(in.ProfileID)
		own, _ := p.Fact(in.SlotKey)
		same, irr := pairs[2*i], pairs[2*i+1]
		wantLog := 1
		if in.Relation == Conflicting {
			wantLog = 0
		}
		want := Pair{
			InteractionID: in.ID, FactID: p.ID + "/" + own.SlotKey, ProfileID: p.ID, SlotKey: own.SlotKey,
			InteractionText: in.Text, FactText: own.Text, YTop: 1, YLog: wantLog, Category: own.Category,
			UpdateType: in.UpdateType, Conflicting: in.Relation == Conflicting, Family: in.Family,
		}
		if diff := cmp.Diff(want, same); diff != "" {
			t.Fatalf("same-slot pair of %s (-want +got):\n%s", in.ID, diff)
		}
		other, ok := p.Fact(irr.SlotKey)
		switch {
		case !ok:
			t.Fatalf("irrelevant pair of %s names slot %s, not in profile %s", in.ID, irr.SlotKey, p.ID)
		case irr.YTop != 0 || irr.YLog != 0:
			t.Errorf("irrelevant pair of %s has y_top %d, y_log %d; want 0, 0", in.ID, irr.YTop, irr.YLog)
		case other.TopicKey == own.TopicKey:
			t.Errorf("irrelevant pair of %s: fact %s shares topic %s", in.ID, other.SlotKey, own.TopicKey)
		case irr.FactText != other.Text || irr.FactID != p.ID+"/"+other.SlotKey:
			t.Errorf("irrelevant pair of %s does not carry fact %s", in.ID, other.SlotKey)
		case irr.InteractionID != in.ID || irr.InteractionText != in.Text || irr.Category != own.Category ||
			irr.UpdateType != in.UpdateType || irr.Conflicting != same.Conflicting || irr.Family != in.Family:
			t.Errorf("irrelevant pair of %s does not carry the interaction: %+v", in.ID, irr)
		}
	}
	if diff := cmp.Diff(pairs, pairsOf(t, d, 1)); diff != "" {
		t.Errorf("same rng seed, different pairs:\n%s", diff)
	}
	if cmp.Equal(pairs, pairsOf(t, d, 2)) {
		t.Error("different rng seeds drew the same irrelevant facts")
	}
}

func TestBuildPairsIrrelevantFacts(t *testing.T) {
	fact := func(slot, topic string) Fact {
		return Fact{SlotKey: slot, TopicKey: topic, Category: CategoryPets, Value: slot, Text: "about " + slot}
	}
	tests := []struct {
		name  string
		facts []Fact
		want  []string // slots the irrelevant fact may come from
		err   string
	}{
		{"another topic", []Fact{fact("pet.1", "pets"), fact("pet.2", "pets"), fact("pet.3", "zoo")}, []string{"pet.3"}, ""},
		{"one topic: another slot", []Fact{fact("pet.1", "pets"), fact("pet.2", "pets")}, []string{"pet.2"}, ""},
		{"one fact", []Fact{fact("pet.1", "pets")}, nil, "profile p1 has no fact besides pet.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Dataset{
				Profiles:     []Profile{{ID: "p1", Facts: tt.facts}},
				Interactions: []Interaction{{ID: "i1", ProfileID: "p1", SlotKey: "pet.1", Text: "No pets.", Relation: Conflicting, UpdateType: UpdateExplicitNegation}},
			}
			for seed := range uint64(20) {
				ps, err := BuildPairs(d, rand.New(rand.NewPCG(seed, 0)))
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("BuildPairs: %v, want error containing %q", err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := ps[1].SlotKey; !strings.Contains(strings.Join(tt.want, " "), got) {
					t.Errorf("irrelevant fact from %s, want one of %v", got, tt.want)
				}
			}
		})
	}
}

func TestBuildPairsInvalidDataset(t *testing.T) {
	d := &Dataset{Interactions: []Interaction{{ID: "i1", ProfileID: "p1", SlotKey: "job", Text: "x", Relation: Consistent, UpdateType: UpdateTemporal}}}
	_, err := BuildPairs(d, rand.New(rand.NewPCG(1, 0)))
	if err == nil || !strings.Contains(err.Error(), `interactions[0].profile_id: no profile "p1"`) {
		t.Errorf("BuildPairs of an invalid dataset: %v", err)
	}
}
