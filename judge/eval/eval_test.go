package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/rule"
)

// auditFunc is an Auditor made of a function.
type auditFunc func(ctx context.Context, p judge.Pair) (judge.Result, error)

func (f auditFunc) Audit(ctx context.Context, p judge.Pair) (judge.Result, error) { return f(ctx, p) }

// tinyItems is a six-item set whose scores are worked out by hand in TestEvaluateTiny.
func tinyItems() []Item {
	mk := func(id, newText string, g Gold, implicit bool) Item {
		return Item{ID: id, Pair: judge.Pair{Old: judge.Record{Text: "old " + id}, New: judge.Record{Text: newText}}, Gold: g, Implicit: implicit, Family: "test/" + id}
	}
	return []Item{
		mk("t1", "n1", Gold{judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition}, false),
		mk("t2", "n2", Gold{judge.StatusConflict, judge.TypeImplicitViolation, judge.ActionKeep}, true),
		mk("t3", "n3", Gold{judge.StatusConsistent, judge.TypeNone, judge.ActionKeep}, true),
		mk("t4", "n4", Gold{judge.StatusConsistent, judge.TypeNone, judge.ActionKeep}, false),
		mk("t5", "n5", Gold{judge.StatusUnrelated, judge.TypeNone, judge.ActionKeep}, false),
		mk("t6", "n6", Gold{judge.StatusConflict, judge.TypeValueDiscrepancy, judge.ActionSupersede}, false),
	}
}

func verdict(s judge.Status, t judge.ConflictType, a judge.Action) judge.Verdict {
	v := judge.Verdict{Status: s, ConflictType: t, Action: a, Links: []judge.Link{}, Confidence: 0.5}
	if l, ok := judge.DefaultLink(a); ok {
		v.Links = append(v.Links, l)
	}
	if a == judge.ActionTransition {
		v.TransitionSummary = "x -> y"
	}
	if s == judge.StatusConflict && a == judge.ActionKeep {
		v.ClarificationNeeded, v.ClarificationQuestion = true, "?"
	}
	return v
}

// scripted answers each new text with a fixed result.
func scripted(byText map[string]judge.Result) judge.Auditor {
	return auditFunc(func(_ context.Context, p judge.Pair) (judge.Result, error) {
		r, ok := byText[p.New.Text]
		if !ok {
			return judge.Result{}, errors.New("unscripted pair")
		}
		return r, nil
	})
}

func tinyAuditors() []judge.NamedAuditor {
	res := func(v judge.Verdict, ms int) judge.Result {
		return judge.Result{Verdict: v, Raw: judge.Render(judge.Steps{Slot: "s", Comparison: "c", ConflictType: "t", Action: "a"}, v), Source: "fake", Latency: time.Duration(ms) * time.Millisecond, Tokens: 100}
	}
	mixed := map[string]judge.Result{
		"n1": res(verdict(judge.StatusConflict, judge.TypeTemporalUpdate, judge.ActionTransition), 60),
		"n2": res(verdict(judge.StatusConflict, judge.TypeExplicitNegation, judge.ActionSupersede), 10),
		"n3": res(verdict(judge.StatusConflict, judge.TypeImplicitViolation, judge.ActionKeep), 50),
		"n4": res(verdict(judge.StatusConsistent, judge.TypeNone, judge.ActionCoexist), 20),
		"n5": res(verdict(judge.StatusConsistent, judge.TypeNone, judge.ActionKeep), 40),
		"n6": res(verdict(judge.StatusConsistent, judge.TypeNone, judge.ActionKeep), 30),
	}
	r5 := mixed["n5"]
	r5.Fallback = "endpoint unreachable"
	mixed["n5"] = r5
	r6 := mixed["n6"]
	r6.Raw = "garbage"
	mixed["n6"] = r6
	always := map[string]judge.Result{}
	for _, k := range []string{"n1", "n2", "n3", "n4", "n5", "n6"} {
		always[k] = judge.Result{Verdict: verdict(judge.StatusConsistent, judge.TypeNone, judge.ActionKeep), Raw: "{}", Latency: time.Millisecond}
	}
	return []judge.NamedAuditor{{Name: "mixed", Auditor: scripted(mixed)}, {Name: "always-consistent", Auditor: scripted(always)}}
}

func TestEvaluateTiny(t *testing.T) {
	rep, err := Run(t.Context(), tinyAuditors(), tinyItems(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != 6 || rep.Conflicts != 3 || rep.Implicit != 2 || len(rep.Auditors) != 2 {
		t.Fatalf("report header = %d items, %d conflicts, %d implicit, %d auditors", rep.Items, rep.Conflicts, rep.Implicit, len(rep.Auditors))
	}
	// Worked out by hand: statuses right on t1, t2, t4; status and type on t1, t4; actions
	// right on t1, t3, t4 (coexist counts for a consistent pair), t5; conflicts found on t1,
	// t2 (TP 2), wrongly on t3 (FP 1), missed on t6 (FN 1).
	want := AuditorReport{
		Name: "mixed", Accuracy: 3.0 / 6, Precision: 2.0 / 3, Recall: 2.0 / 3, F1: 2.0 / 3,
		TypeAccuracy: 2.0 / 6, ActionAccuracy: 4.0 / 6, ImplicitAccuracy: 0.5, ImplicitViolationAccuracy: 0,
		PerType: []TypeScore{
			{judge.TypeTemporalUpdate, 1, 1, 1}, {judge.TypeValueDiscrepancy, 1, 0, 0},
			{judge.TypeImplicitViolation, 1, 0, 0}, {judge.TypeNone, 3, 1, 1.0 / 3},
		},
		Confusion: map[judge.Status]map[judge.Status]int{
			judge.StatusConflict:   {judge.StatusConflict: 2, judge.StatusConsistent: 1},
			judge.StatusConsistent: {judge.StatusConflict: 1, judge.StatusConsistent: 1},
			judge.StatusUnrelated:  {judge.StatusConsistent: 1},
		},
		FormatValid: 4.0 / 6, Fallbacks: 1,
		LatencyP50: 30 * time.Millisecond, LatencyP95: 60 * time.Millisecond,
		Tokens: 600, TokensPerItem: 100,
	}
	got := rep.Auditors[0]
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12), cmpopts.IgnoreFields(AuditorReport{}, "Predictions")); diff != "" {
		t.Errorf("mixed auditor (-want +got):\n%s", diff)
	}
	if len(got.Predictions) != 6 || got.Predictions[5].ItemID != "t6" || got.Predictions[5].FormatValid || got.Predictions[4].Fallback == "" {
		t.Errorf("predictions = %+v", got.Predictions)
	}
	other := rep.Auditors[1]
	if other.Name != "always-consistent" || math.Abs(other.Accuracy-2.0/6) > 1e-12 || other.Precision != 0 || other.Recall != 0 || other.F1 != 0 || other.FormatValid != 0 {
		t.Errorf("always-consistent auditor = %+v", other)
	}
}

func TestReportOutputs(t *testing.T) {
	rep, err := Run(t.Context(), tinyAuditors(), tinyItems(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	golden(t, "report_table.golden", table.Bytes())

	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("report JSON does not read back: %v", err)
	}
	if diff := cmp.Diff(rep, back); diff != "" {
		t.Errorf("report changed through JSON (-want +got):\n%s", diff)
	}
	if !strings.Contains(js.String(), `"f1": 0.6666666666666666`) {
		t.Errorf("report JSON lacks the F1 score:\n%.400s", js.String())
	}
}

func TestEvaluateErrors(t *testing.T) {
	items := tinyItems()
	failing := auditFunc(func(_ context.Context, p judge.Pair) (judge.Result, error) {
		if p.New.Text == "n4" {
			return judge.Result{}, errors.New("model not found")
		}
		return judge.Result{Verdict: verdict(judge.StatusConsistent, judge.TypeNone, judge.ActionKeep)}, nil
	})
	bad := tinyItems()
	bad[0].Gold.Status = "maybe"
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		auditors []judge.NamedAuditor
		items    []Item
		want     string
	}{
		{"auditor error", t.Context(), []judge.NamedAuditor{{Name: "llm", Auditor: failing}}, items, "auditor llm on item t4: model not found"},
		{"no auditors", t.Context(), nil, items, "no auditors"},
		{"no items", t.Context(), []judge.NamedAuditor{{Name: "rule", Auditor: &rule.Auditor{}}}, nil, "no items"},
		{"unnamed auditor", t.Context(), []judge.NamedAuditor{{Name: "", Auditor: &rule.Auditor{}}}, items, "auditor 0 has no name"},
		{"duplicate names", t.Context(), []judge.NamedAuditor{{Name: "a", Auditor: &rule.Auditor{}}, {Name: "a", Auditor: &rule.Auditor{}}}, items, `auditor name "a" is used twice`},
		{"invalid gold", t.Context(), []judge.NamedAuditor{{Name: "rule", Auditor: &rule.Auditor{}}}, bad, "item 0 (t1): gold label"},
		{"cancelled", cancelled, []judge.NamedAuditor{{Name: "rule", Auditor: &rule.Auditor{}}}, items, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(tt.ctx, tt.auditors, tt.items, 2)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 95, 7 * time.Millisecond},
		{"median of four", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p95 of twenty", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), 95, 19 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.sorted, tt.p); got != tt.want {
				t.Errorf("percentile = %v, want %v", got, tt.want)
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; run with -update if the change is intended):\n%s", name, diff)
	}
}
