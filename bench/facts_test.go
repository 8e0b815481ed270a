package bench

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/atma-dev/atma/facts"
)

// fakeExtractor answers with fn, one Result per input.
type fakeExtractor struct {
	fn func(in facts.Input) facts.Result
}

func (f fakeExtractor) Extract(_ context.Context, in []facts.Input) ([]facts.Result, error) {
	out := make([]facts.Result, len(in))
	for i, x := range in {
		out[i] = f.fn(x)
	}
	return out, nil
}

func TestEvalFacts(t *testing.T) {
	c, err := LoadCorpus("testdata/cases_fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// A fake that knows two of the dev scenario's memories: m1 right, m4 with the wrong
	// subject and a value that is a whole sentence; it calls the concert (an event) a fact.
	fake := fakeExtractor{fn: func(in facts.Input) facts.Result {
		r := facts.Result{Source: "fake"}
		switch {
		case strings.HasPrefix(in.Text, "I live in Lyon"):
			r.Facts = []facts.Fact{{Subject: "user", Attribute: "city", Value: "Lyon"}}
		case strings.HasPrefix(in.Text, "I moved to Nantes"):
			r.Facts = []facts.Fact{{Subject: "jules", Attribute: "city", Value: "I moved to Nantes last week new flat is tiny"}}
		case strings.HasPrefix(in.Text, "Went to a concert"):
			r.Facts = []facts.Fact{{Subject: "user", Attribute: "city", Value: "concert"}}
		}
		return r
	}}
	rep, err := EvalFacts(t.Context(), c, SplitDev, fake)
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	tests := []struct {
		name      string
		got, want float64
	}{
		{"memories", float64(o.Memories), 4},
		{"states precision", o.States.Precision(), 2.0 / 3},
		{"states recall", o.States.Recall(), 2.0 / 3},
		{"subjects equal", o.SubjectsEqual.Value(), 1.0 / 3},
		{"subjects contain", o.SubjectsContain.Value(), 1.0 / 3},
		{"value (a sentence is no value)", o.Value.Value(), 1.0 / 3},
		{"polarity", o.Polarity.Value(), 1},
		// Pairs of state memories: m1~m2 (gold no), m1~m4 (gold yes), m2~m4 (gold no);
		// the fake puts m1 and m4 in different slots (user/city, jules/city).
		{"grouping tp", float64(o.Grouping.TP), 0},
		{"grouping fn", float64(o.Grouping.FN), 1},
		{"grouping fp", float64(o.Grouping.FP), 0},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if rep.Sources["fake"] != 4 || len(rep.Domains) != 1 || rep.Domains[0].Domain != "personal" || len(rep.Traces) != 4 {
		t.Errorf("report %+v", rep)
	}
	var b bytes.Buffer
	WriteFactsTables(&b, rep)
	for _, w := range []string{"| personal | 4 | 0.667 | 0.667 |", "| **all** |", "ms a memory"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("tables lack %q:\n%s", w, b.String())
		}
	}
}

func TestEvalFactsSpeakerIsUser(t *testing.T) {
	c := &Corpus{Scenarios: []Scenario{{ID: "s", Domain: "work", Split: SplitDev, Speaker: "Wendel", Memories: []CaseMemory{
		{ID: "m1", Text: "Wendel: my desk is by the window", Kind: KindState, Facts: []CaseFact{{Slot: "user/desk", Value: "window"}}},
	}}}}
	fake := fakeExtractor{fn: func(in facts.Input) facts.Result {
		if in.Speaker != "Wendel" {
			t.Errorf("speaker %q not passed on", in.Speaker)
		}
		return facts.Result{Source: "fake", Facts: []facts.Fact{{Subject: "wendel", Attribute: "desk", Value: "the window"}}}
	}}
	rep, err := EvalFacts(t.Context(), c, SplitDev, fake)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overall.SubjectsEqual.Hits != 1 || rep.Overall.Fact.Hits != 1 {
		t.Errorf("the speaker's subject is the corpus's user: %+v", rep.Overall)
	}
}

func TestEvalFactsErrors(t *testing.T) {
	c, err := LoadCorpus("testdata/cases_fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EvalFacts(t.Context(), c, "train", fakeExtractor{}); err == nil {
		t.Error("unknown split accepted")
	}
	short := extractorFunc(func(context.Context, []facts.Input) ([]facts.Result, error) { return nil, nil })
	if _, err := EvalFacts(t.Context(), c, SplitAll, short); err == nil || !strings.Contains(err.Error(), "0 results for") {
		t.Errorf("short answer: %v", err)
	}
}

type extractorFunc func(context.Context, []facts.Input) ([]facts.Result, error)

func (f extractorFunc) Extract(ctx context.Context, in []facts.Input) ([]facts.Result, error) {
	return f(ctx, in)
}

func TestValueMatches(t *testing.T) {
	tests := []struct {
		ext, gold string
		want      bool
	}{
		{"Porto", "Porto", true}, {"the Porto flat", "Porto", true}, {"porto", "Porto", true}, {"£1,450", "1,450", true},
		{"Lisbon", "Porto", false}, {"I moved to Porto last week, new flat is tiny", "Porto", false}, {"Dana", "Dana Whitfield", false},
	}
	for _, tt := range tests {
		if got := valueMatches(tt.ext, tt.gold); got != tt.want {
			t.Errorf("valueMatches(%q, %q) = %v", tt.ext, tt.gold, got)
		}
	}
}
