package eval

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/judge"
)

func TestEvalSetDefault(t *testing.T) {
	items, err := Set(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != DefaultEvalItems {
		t.Fatalf("%d items, want %d", len(items), DefaultEvalItems)
	}
	// 151 items: 30 implicit (18 conflicting), 18 unrelated, 103 explicit (62 conflicting,
	// spread 16/16/15/15 over the four update types).
	byStatus := map[judge.Status]int{}
	byType := map[judge.ConflictType]int{}
	implicit, implicitConflicts := 0, 0
	fams := map[string]bool{}
	ids, texts := map[string]bool{}, map[string]bool{}
	for _, it := range items {
		byStatus[it.Gold.Status]++
		byType[it.Gold.Type]++
		if it.Implicit {
			implicit++
			if it.Gold.Status == judge.StatusConflict {
				implicitConflicts++
			}
			if styleOf(it.Family) != StyleIndirect {
				t.Errorf("implicit item %s comes from %s, not an indirect family", it.ID, it.Family)
			}
		} else if s := styleOf(it.Family); !slices.Contains(DefaultEvalStyles, s) {
			t.Errorf("item %s comes from %s, outside the evaluation styles", it.ID, it.Family)
		}
		fams[it.Family] = true
		if p := checkItem(it); len(p) > 0 {
			t.Errorf("item %s: %v", it.ID, p)
		}
		if it.Gold.Action != judge.DefaultAction(it.Gold.Type) {
			t.Errorf("item %s: gold action %s, want %s", it.ID, it.Gold.Action, judge.DefaultAction(it.Gold.Type))
		}
		if ids[it.ID] || texts[it.Pair.New.Text] {
			t.Errorf("item %s repeats an id or a new text", it.ID)
		}
		ids[it.ID], texts[it.Pair.New.Text] = true, true
		if it.Pair.Old.Slot != "" || it.Pair.Scores != nil {
			t.Errorf("item %s shows the model its slot or scores", it.ID)
		}
	}
	want := map[judge.Status]int{judge.StatusConflict: 80, judge.StatusConsistent: 53, judge.StatusUnrelated: 18}
	if diff := cmp.Diff(want, byStatus); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	wantTypes := map[judge.ConflictType]int{judge.TypeTemporalUpdate: 16, judge.TypeExplicitNegation: 16, judge.TypeValueDiscrepancy: 15, judge.TypeScopeMismatch: 15, judge.TypeImplicitViolation: 18, judge.TypeNone: 71}
	if diff := cmp.Diff(wantTypes, byType); diff != "" {
		t.Errorf("types (-want +got):\n%s", diff)
	}
	if implicit != 30 || implicitConflicts != 18 {
		t.Errorf("%d implicit items (%d conflicting), want 30 (18)", implicit, implicitConflicts)
	}
	for _, f := range indirectFamilies {
		if !fams[f.name] {
			t.Errorf("no item from family %s", f.name)
		}
	}
}

func TestEvalSetDeterministic(t *testing.T) {
	a, err := Set(Config{Items: 60})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Set(Config{Items: 60})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same configuration, different items (-first +second):\n%s", diff)
	}
	c, err := Set(Config{Items: 60, Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(a, c) {
		t.Error("another seed gave the same items")
	}
}

func TestEvalSetOptions(t *testing.T) {
	items, err := Set(Config{Items: 40, Styles: []string{data.StyleCasual}, ImplicitShare: -1, UnrelatedShare: -1, ConflictRatio: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Implicit || it.Gold.Status != judge.StatusConflict || styleOf(it.Family) != data.StyleCasual {
			t.Errorf("item %s (%s, %s) breaks the configuration", it.ID, it.Family, it.Gold.Status)
		}
	}
	if len(items) != 40 {
		t.Errorf("%d items, want 40", len(items))
	}
}

func TestEvalConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"every problem at once", Config{Items: -1, Styles: []string{"poetic"}, ConflictRatio: 2, ImplicitShare: 1.5},
			[]string{"items -1 is negative", `style "poetic"`, "conflict ratio 2", "implicit share 1.5"}},
		{"shares above 1", Config{ImplicitShare: 0.6, UnrelatedShare: 0.6}, []string{"add up to 1.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Set(tt.cfg)
			if err == nil {
				t.Fatal("Set accepted the configuration")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEvalSetExhausted(t *testing.T) {
	// Four indirect relationship texts per item would be needed; the family has fewer.
	_, err := Set(Config{Items: 200, ImplicitShare: 1, ConflictRatio: 1})
	if err == nil || !strings.Contains(err.Error(), "could not write a new text") {
		t.Errorf("error = %v, want the family to run out of texts", err)
	}
}

func TestItemsRoundTrip(t *testing.T) {
	items, err := Set(Config{Items: 30})
	if err != nil {
		t.Fatal(err)
	}
	items[0].Pair.Scores = &judge.Scores{A: 0.9, B: 0.2, Gap: 0.7}
	var buf bytes.Buffer
	if err := WriteItems(&buf, items); err != nil {
		t.Fatal(err)
	}
	back, err := ReadItems(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(items, back); diff != "" {
		t.Errorf("items changed through a file (-want +got):\n%s", diff)
	}
}

func TestReadItemsErrors(t *testing.T) {
	good := `{"id":"a","pair":{"old":{"text":"x"},"new":{"text":"y"}},"gold":{"status":"consistent","conflict_type":"none","action":"keep"}}`
	in := strings.Join([]string{
		good,
		"",
		`{"id":"a","pair":{"old":{"text":"x"},"new":{"text":"y"}},"gold":{"status":"conflict","conflict_type":"none","action":"keep"}}`,
		`{"id":"b","pair":{"old":{"text":""},"new":{"text":"y"}},"gold":{"status":"conflict","conflict_type":"temporal_update","action":"scoped_exception"},"extra":1}`,
		`{"id":"c","pair":{"old":{"text":"x"},"new":{"text":"y"}},"gold":{"status":"conflict","conflict_type":"scope_mismatch","action":"coexist"}}`,
		`[1]`,
	}, "\n")
	_, err := ReadItems(strings.NewReader(in))
	if err == nil {
		t.Fatal("ReadItems accepted bad items")
	}
	for _, w := range []string{
		`line 3: gold.conflict_type none does not fit status conflict`,
		`line 3: id "a" already used on line 1`,
		`line 4: json: unknown field "extra"`,
		`line 5: gold.action coexist does not fit a scope_mismatch conflict pair`,
		`line 6: json: cannot unmarshal array`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q:\n%v", w, err)
		}
	}
	items, err := ReadItems(strings.NewReader("\n" + good + "\n\n"))
	if err != nil || len(items) != 1 {
		t.Errorf("blank lines: %d items, %v", len(items), err)
	}
}
