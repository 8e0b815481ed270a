package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/atma-dev/atma/judge"
)

// Report compares auditors on one evaluation set.
type Report struct {
	Items     int `json:"items"`
	Conflicts int `json:"conflicts"`
	Implicit  int `json:"implicit"`
	// Auditors are in the order Run was given them.
	Auditors []AuditorReport `json:"auditors"`
}

// AuditorReport is one auditor's scores. Rates are in [0, 1]; a rate over no items
// (precision with no predicted conflicts, say) is 0.
type AuditorReport struct {
	Name string `json:"name"`
	// Accuracy is the share of items whose status (conflict, consistent, unrelated) is right.
	Accuracy float64 `json:"accuracy"`
	// Precision, Recall and F1 treat conflict as the positive class.
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// TypeAccuracy is the share with status and conflict type right; ActionAccuracy the
	// share with a correct action (Gold.ActionOK).
	TypeAccuracy   float64 `json:"type_accuracy"`
	ActionAccuracy float64 `json:"action_accuracy"`
	// ImplicitAccuracy is the status accuracy on implicit items, conflicting or not;
	// ImplicitViolationAccuracy is the share of implicit violations (gold conflict) found
	// as conflict with type implicit_violation.
	ImplicitAccuracy          float64 `json:"implicit_accuracy"`
	ImplicitViolationAccuracy float64 `json:"implicit_violation_accuracy"`
	// PerType is the status-and-type accuracy by gold conflict type, none included.
	PerType []TypeScore `json:"per_type"`
	// Confusion counts items by gold status, then predicted status.
	Confusion map[judge.Status]map[judge.Status]int `json:"confusion"`
	// FormatValid is the share of answers that pass ParseStrict without a fallback.
	FormatValid float64 `json:"format_valid"`
	// Fallbacks is the number of audits answered by the fallback auditor.
	Fallbacks int `json:"fallbacks"`
	// LatencyP50 and LatencyP95 are nearest-rank percentiles of Result.Latency.
	LatencyP50 time.Duration `json:"latency_p50_ns"`
	LatencyP95 time.Duration `json:"latency_p95_ns"`
	// Tokens is the total of Result.Tokens; TokensPerItem its mean.
	Tokens        int     `json:"tokens"`
	TokensPerItem float64 `json:"tokens_per_item"`
	// Predictions are the verdicts item by item, in item order.
	Predictions []Prediction `json:"predictions"`
}

// TypeScore is the accuracy on the items of one gold conflict type.
type TypeScore struct {
	Type     judge.ConflictType `json:"type"`
	Items    int                `json:"items"`
	Correct  int                `json:"correct"`
	Accuracy float64            `json:"accuracy"`
}

// Prediction is one auditor's verdict on one item.
type Prediction struct {
	ItemID      string             `json:"item_id"`
	Gold        Gold               `json:"gold"`
	Status      judge.Status       `json:"status"`
	Type        judge.ConflictType `json:"conflict_type"`
	Action      judge.Action       `json:"action"`
	FormatValid bool               `json:"format_valid"`
	ParseError  string             `json:"parse_error,omitempty"`
	Fallback    string             `json:"fallback,omitempty"`
	Latency     time.Duration      `json:"latency_ns"`
	Tokens      int                `json:"tokens"`
}

// Run runs every auditor on every item and scores the verdicts against the gold
// labels. Auditors run one after another, each on up to concurrency items at a time
// (values below 1 mean 1), so that their latencies do not disturb each other. An error
// from an auditor (as opposed to a fallback, which it records itself) stops the
// evaluation, as does cancelling ctx.
func Run(ctx context.Context, auditors []judge.NamedAuditor, items []Item, concurrency int) (Report, error) {
	if err := checkEval(auditors, items); err != nil {
		return Report{}, fmt.Errorf("evaluate: %w", err)
	}
	concurrency = max(concurrency, 1)
	rep := Report{Items: len(items)}
	for _, it := range items {
		if it.Gold.Status == judge.StatusConflict {
			rep.Conflicts++
		}
		if it.Implicit {
			rep.Implicit++
		}
	}
	for _, a := range auditors {
		results := make([]judge.Result, len(items))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(concurrency)
		for i := range items {
			g.Go(func() error {
				res, err := a.Auditor.Audit(gctx, items[i].Pair)
				if err != nil {
					return fmt.Errorf("auditor %s on item %s: %w", a.Name, items[i].ID, err)
				}
				results[i] = res
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return Report{}, fmt.Errorf("evaluate: %w", err)
		}
		rep.Auditors = append(rep.Auditors, score(a.Name, items, results))
	}
	return rep, nil
}

func checkEval(auditors []judge.NamedAuditor, items []Item) error {
	var errs []error
	if len(auditors) == 0 {
		errs = append(errs, errors.New("no auditors"))
	}
	if len(items) == 0 {
		errs = append(errs, errors.New("no items"))
	}
	seen := map[string]bool{}
	for i, a := range auditors {
		switch {
		case a.Name == "":
			errs = append(errs, fmt.Errorf("auditor %d has no name", i))
		case seen[a.Name]:
			errs = append(errs, fmt.Errorf("auditor name %q is used twice", a.Name))
		}
		if a.Auditor == nil {
			errs = append(errs, fmt.Errorf("auditor %q is nil", a.Name))
		}
		seen[a.Name] = true
	}
	for i, it := range items {
		if !it.Gold.Status.Valid() || !it.Gold.Type.Valid() || !it.Gold.Action.Valid() {
			errs = append(errs, fmt.Errorf("item %d (%s): gold label %+v is not valid", i, it.ID, it.Gold))
		}
	}
	return errors.Join(errs...)
}

// score computes an auditor's report from its results, item by item.
func score(name string, items []Item, results []judge.Result) AuditorReport {
	r := AuditorReport{Name: name, Confusion: map[judge.Status]map[judge.Status]int{}}
	var statusOK, typeOK, actionOK, valid, tp, fp, fn, impN, impOK, ivN, ivOK int
	perType := map[judge.ConflictType]*TypeScore{}
	lat := make([]time.Duration, len(results))
	for i, it := range items {
		res := results[i]
		v := res.Verdict
		p := Prediction{ItemID: it.ID, Gold: it.Gold, Status: v.Status, Type: v.ConflictType, Action: v.Action,
			ParseError: res.ParseError, Fallback: res.Fallback, Latency: res.Latency, Tokens: res.Tokens}
		if _, err := judge.ParseStrict(res.Raw); err == nil && res.Fallback == "" {
			p.FormatValid = true
			valid++
		}
		if res.Fallback != "" {
			r.Fallbacks++
		}
		r.Tokens += res.Tokens
		lat[i] = res.Latency
		r.Predictions = append(r.Predictions, p)

		if r.Confusion[it.Gold.Status] == nil {
			r.Confusion[it.Gold.Status] = map[judge.Status]int{}
		}
		r.Confusion[it.Gold.Status][v.Status]++
		sOK := v.Status == it.Gold.Status
		tOK := sOK && v.ConflictType == it.Gold.Type
		if sOK {
			statusOK++
		}
		if tOK {
			typeOK++
		}
		if it.Gold.ActionOK(v.Action) {
			actionOK++
		}
		gc, pc := it.Gold.Status == judge.StatusConflict, v.Status == judge.StatusConflict
		switch {
		case gc && pc:
			tp++
		case pc:
			fp++
		case gc:
			fn++
		}
		if it.Implicit {
			impN++
			if sOK {
				impOK++
			}
		}
		if it.Gold.Type == judge.TypeImplicitViolation {
			ivN++
			if tOK {
				ivOK++
			}
		}
		ts := perType[it.Gold.Type]
		if ts == nil {
			ts = &TypeScore{Type: it.Gold.Type}
			perType[it.Gold.Type] = ts
		}
		ts.Items++
		if tOK {
			ts.Correct++
		}
	}
	n := len(items)
	r.Accuracy = rate(statusOK, n)
	r.TypeAccuracy = rate(typeOK, n)
	r.ActionAccuracy = rate(actionOK, n)
	r.Precision = rate(tp, tp+fp)
	r.Recall = rate(tp, tp+fn)
	if r.Precision+r.Recall > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	r.ImplicitAccuracy = rate(impOK, impN)
	r.ImplicitViolationAccuracy = rate(ivOK, ivN)
	r.FormatValid = rate(valid, n)
	r.TokensPerItem = float64(r.Tokens) / float64(n)
	for _, t := range judge.ConflictTypes() {
		if ts := perType[t]; ts != nil {
			ts.Accuracy = rate(ts.Correct, ts.Items)
			r.PerType = append(r.PerType, *ts)
		}
	}
	slices.Sort(lat)
	r.LatencyP50, r.LatencyP95 = percentile(lat, 50), percentile(lat, 95)
	return r
}

func rate(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(k, 1), len(sorted))-1]
}

// WriteTable writes the report as two aligned tables: the scores of each auditor, then the
// accuracy by gold conflict type.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "auditor\tacc\tP\tR\tF1\ttype acc\taction acc\timplicit acc\tformat ok\tfallbacks\tp50\tp95\ttokens/item\t\n")
	for _, a := range r.Auditors {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%s\t%s\t%.1f\t\n",
			a.Name, a.Accuracy, a.Precision, a.Recall, a.F1, a.TypeAccuracy, a.ActionAccuracy, a.ImplicitAccuracy,
			a.FormatValid, a.Fallbacks, roundDuration(a.LatencyP50), roundDuration(a.LatencyP95), a.TokensPerItem)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report table: %w", err)
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return fmt.Errorf("write report table: %w", err)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "gold type\titems")
	for _, a := range r.Auditors {
		fmt.Fprintf(tw, "\t%s", a.Name)
	}
	fmt.Fprintf(tw, "\t\n")
	if len(r.Auditors) > 0 {
		for i, ts := range r.Auditors[0].PerType {
			fmt.Fprintf(tw, "%s\t%d", ts.Type, ts.Items)
			for _, a := range r.Auditors {
				fmt.Fprintf(tw, "\t%.3f", a.PerType[i].Accuracy)
			}
			fmt.Fprintf(tw, "\t\n")
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write report table: %w", err)
	}
	return nil
}

// roundDuration keeps three significant digits or so, for the table.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond)
	}
	return d
}

// WriteJSON writes the report as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write report json: %w", err)
	}
	return nil
}
