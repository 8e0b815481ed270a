package bench

import (
	"maps"
	"testing"

	"github.com/atma-dev/atma/judge"
)

func TestWantStatuses(t *testing.T) {
	rel := func(to string, a judge.Action) []CaseRelation {
		return []CaseRelation{{To: to, Action: a}}
	}
	fact := func(slots ...string) []CaseFact {
		var fs []CaseFact
		for _, s := range slots {
			fs = append(fs, CaseFact{Slot: s, Value: "v"})
		}
		return fs
	}
	s := Scenario{Memories: []CaseMemory{
		{ID: "m1", Kind: KindState, Facts: fact("user/home")},
		{ID: "m2", Kind: KindState, Facts: fact("user/home"), Relations: rel("m1", judge.ActionKeep)}, // a restatement
		{ID: "m3", Kind: KindEvent},
		{ID: "m4", Kind: KindState, Facts: fact("user/home", "user/job")},
		{ID: "m5", Kind: KindState, Facts: fact("user/home"), Relations: rel("m2", judge.ActionTransition)}, // ends m2, and m1 kept beside it
		{ID: "m6", Kind: KindState, Facts: fact("user/pet")},
		{ID: "m7", Kind: KindState, Facts: fact("user/pet"), Relations: rel("m6", judge.ActionCoexist)},
	}}
	// m4 states home and job: only its home is replaced (by m5, which relates to m2 only,
	// so m4's home lives on): it stays active.
	want := map[string]string{"m1": "superseded", "m2": "superseded", "m3": "active", "m4": "active", "m5": "active", "m6": "active", "m7": "active"}
	if got := wantStatuses(s); !maps.Equal(got, want) {
		t.Errorf("wantStatuses = %v, want %v", got, want)
	}
	// A memory with two slots of which one was replaced has no want.
	s.Memories = append(s.Memories, CaseMemory{ID: "m8", Kind: KindState, Facts: fact("user/home"), Relations: rel("m4", judge.ActionSupersede)})
	got := wantStatuses(s)
	if w, ok := got["m4"]; ok {
		t.Errorf("m4 (home replaced, job not) wants %q, want no want", w)
	}
}
