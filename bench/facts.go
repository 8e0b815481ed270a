package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/atma-dev/atma/facts"
)

// PRF counts a detection: true positives, false positives and false negatives. Its JSON
// form carries precision, recall and F1 too (null when undefined).
type PRF struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
}

// Add counts one case: predicted and gold say whether each side calls it positive.
func (p *PRF) Add(predicted, gold bool) {
	switch {
	case predicted && gold:
		p.TP++
	case predicted:
		p.FP++
	case gold:
		p.FN++
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Precision is TP/(TP+FP); NaN when nothing was predicted.
func (p PRF) Precision() float64 { return ratio(p.TP, p.TP+p.FP) }

// Recall is TP/(TP+FN); NaN when nothing is gold.
func (p PRF) Recall() float64 { return ratio(p.TP, p.TP+p.FN) }

// F1 is the harmonic mean of precision and recall; NaN when either is.
func (p PRF) F1() float64 {
	pr, re := p.Precision(), p.Recall()
	if math.IsNaN(pr) || math.IsNaN(re) || pr+re == 0 {
		return math.NaN()
	}
	return 2 * pr * re / (pr + re)
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", x)
}

func jsonNum(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

func (p PRF) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		TP        int      `json:"tp"`
		FP        int      `json:"fp"`
		FN        int      `json:"fn"`
		Precision *float64 `json:"precision"`
		Recall    *float64 `json:"recall"`
		F1        *float64 `json:"f1"`
	}{p.TP, p.FP, p.FN, jsonNum(p.Precision()), jsonNum(p.Recall()), jsonNum(p.F1())})
}

func (p *PRF) UnmarshalJSON(b []byte) error {
	var x struct{ TP, FP, FN int }
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	p.TP, p.FP, p.FN = x.TP, x.FP, x.FN
	return nil
}

// FactsScores are the extraction scores of a set of memories.
type FactsScores struct {
	Memories int `json:"memories"`
	// States is "states a fact" (the extractor found one) against the annotated kind
	// "state".
	States PRF `json:"states"`
	// SubjectsEqual and SubjectsContain score annotated state memories: the set of
	// extracted subjects equals, or contains, the set of annotated ones.
	SubjectsEqual   Rate `json:"subjects_equal"`
	SubjectsContain Rate `json:"subjects_contain"`
	// Value scores annotated facts: some extracted fact of the memory has the value (by
	// words, see valueMatches); Fact asks the same of a fact with the same subject.
	Value Rate `json:"value"`
	Fact  Rate `json:"fact"`
	// Polarity, Scope and EventTime score the annotated facts whose value was found:
	// the matching fact is negated exactly when the annotation says is_not; has a scope
	// when the annotation has one; has the annotated event time's month.
	Polarity  Rate `json:"polarity"`
	Scope     Rate `json:"scope"`
	EventTime Rate `json:"event_time"`
	// Grouping scores pairs of state memories of one scenario: "share a slot by the
	// extractor" against "share a slot by the annotation". Attribute names are open, so
	// groupings are compared, not names.
	Grouping PRF `json:"grouping"`
}

// FactsDomain is one domain's scores.
type FactsDomain struct {
	Domain string `json:"domain"`
	FactsScores
}

// FactsTrace is one memory's extraction next to its annotation.
type FactsTrace struct {
	Scenario string       `json:"scenario"`
	Memory   string       `json:"memory"`
	Kind     string       `json:"kind"`
	Text     string       `json:"text"`
	Gold     []CaseFact   `json:"gold,omitempty"`
	Result   facts.Result `json:"result"`
	// Slots are the extracted slots, subjects mapped as scored; Misses what was not
	// found ("subject", "value Porto").
	Slots  []string `json:"slots,omitempty"`
	Misses []string `json:"misses,omitempty"`
}

// FactsReport is the evaluation of a fact extractor on the corpus.
type FactsReport struct {
	Split     string        `json:"split"`
	Scenarios int           `json:"scenarios"`
	Overall   FactsScores   `json:"overall"`
	Domains   []FactsDomain `json:"domains"`
	// Sources counts results by Result.Source ("offline" or a model); Fallbacks the
	// results whose Why says a fallback happened.
	Sources   map[string]int `json:"sources"`
	Fallbacks int            `json:"fallbacks"`
	// MeanExtractMs is the extraction wall time per memory, embedding included.
	MeanExtractMs float64 `json:"mean_extract_ms"`
	Seconds       float64 `json:"seconds"`
	// Traces holds every memory's extraction next to its annotation (traces.jsonl of
	// `atma bench facts --out`; not in the JSON report).
	Traces []FactsTrace `json:"-"`
}

// EvalFacts runs x over every memory of the split, one Extract call per scenario (its
// memories in arrival order, with the scenario's speaker), and scores the results
// against the annotations: per domain and overall. When a scenario has a speaker, the
// extractor's subject for that speaker is the corpus's "user".
func EvalFacts(ctx context.Context, c *Corpus, split string, x facts.Extractor) (*FactsReport, error) {
	sc, err := c.Split(split)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &FactsReport{Split: split, Scenarios: len(sc.Scenarios), Sources: map[string]int{}}
	byDomain := map[string]*FactsScores{}
	var extract time.Duration
	for _, s := range sc.Scenarios {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("eval facts: %w", err)
		}
		in := make([]facts.Input, len(s.Memories))
		for i, m := range s.Memories {
			in[i] = facts.Input{Text: m.Text, Time: m.Time, Speaker: s.Speaker}
		}
		t0 := time.Now()
		res, err := x.Extract(ctx, in)
		extract += time.Since(t0)
		if err != nil {
			return nil, fmt.Errorf("eval facts: scenario %s: %w", s.ID, err)
		}
		if len(res) != len(in) {
			return nil, fmt.Errorf("eval facts: scenario %s: %d results for %d memories", s.ID, len(res), len(in))
		}
		d := byDomain[s.Domain]
		if d == nil {
			d = &FactsScores{}
			byDomain[s.Domain] = d
		}
		traces := scoreScenario(s, res, []*FactsScores{d, &rep.Overall})
		for _, r := range res {
			rep.Sources[r.Source]++
			if strings.Contains(strings.ToLower(r.Why), "fallback") || strings.Contains(strings.ToLower(r.Why), "fell back") {
				rep.Fallbacks++
			}
		}
		rep.Traces = append(rep.Traces, traces...)
	}
	for _, name := range caseDomains {
		if d := byDomain[name]; d != nil {
			rep.Domains = append(rep.Domains, FactsDomain{Domain: name, FactsScores: *d})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byDomain)) {
		if !slices.Contains(caseDomains, name) {
			rep.Domains = append(rep.Domains, FactsDomain{Domain: name, FactsScores: *byDomain[name]})
		}
	}
	if rep.Overall.Memories > 0 {
		rep.MeanExtractMs = float64(extract.Microseconds()) / 1000 / float64(rep.Overall.Memories)
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// normFacts maps the result's facts to the corpus's conventions: kebab-case keys, the
// scenario's speaker as "user".
func normFacts(s Scenario, r facts.Result) []facts.Fact {
	speaker := facts.Kebab(s.Speaker)
	out := make([]facts.Fact, len(r.Facts))
	for i, f := range r.Facts {
		f.Subject, f.Attribute = facts.Kebab(f.Subject), facts.Kebab(f.Attribute)
		if speaker != "" && f.Subject == speaker {
			f.Subject = "user"
		}
		out[i] = f
	}
	return out
}

func scoreScenario(s Scenario, res []facts.Result, into []*FactsScores) []FactsTrace {
	add := func(fn func(*FactsScores)) {
		for _, sc := range into {
			fn(sc)
		}
	}
	ext := make([][]facts.Fact, len(res))
	var traces []FactsTrace
	for i, m := range s.Memories {
		fs := normFacts(s, res[i])
		ext[i] = fs
		tr := FactsTrace{Scenario: s.ID, Memory: m.ID, Kind: m.Kind, Text: m.Text, Gold: m.Facts, Result: res[i]}
		for _, f := range fs {
			tr.Slots = append(tr.Slots, f.Slot())
		}
		state := m.Kind == KindState
		add(func(sc *FactsScores) { sc.Memories++; sc.States.Add(len(fs) > 0, state) })
		if state {
			gold, got := map[string]bool{}, map[string]bool{}
			for _, f := range m.Facts {
				gold[f.Subject()] = true
			}
			for _, f := range fs {
				got[f.Subject] = true
			}
			equal := maps.Equal(gold, got)
			contains := true
			for g := range gold {
				contains = contains && got[g]
			}
			if !contains {
				tr.Misses = append(tr.Misses, "subject")
			}
			add(func(sc *FactsScores) { sc.SubjectsEqual.Add(equal); sc.SubjectsContain.Add(contains) })
			for _, g := range m.Facts {
				match := -1
				fact := false
				for k, f := range fs {
					if valueMatches(f.Value, g.Value) {
						if match < 0 || f.Subject == g.Subject() && fs[match].Subject != g.Subject() {
							match = k
						}
						fact = fact || f.Subject == g.Subject()
					}
				}
				if match < 0 {
					tr.Misses = append(tr.Misses, "value "+g.Value)
				}
				add(func(sc *FactsScores) {
					sc.Value.Add(match >= 0)
					sc.Fact.Add(fact)
					if match < 0 {
						return
					}
					f := fs[match]
					sc.Polarity.Add(f.Negated == (g.Polarity == "is_not"))
					if g.Scope != "" {
						sc.Scope.Add(f.Scope != "")
					}
					if g.EventTime != "" {
						sc.EventTime.Add(!f.EventTime.IsZero() && f.EventTime.Format("2006-01") == g.EventTime[:7])
					}
				})
			}
		}
		traces = append(traces, tr)
	}
	for i, a := range s.Memories {
		if a.Kind != KindState {
			continue
		}
		for j := i + 1; j < len(s.Memories); j++ {
			b := s.Memories[j]
			if b.Kind != KindState {
				continue
			}
			gold := sharesSlot(a, b)
			pred := shareSlot(ext[i], ext[j])
			add(func(sc *FactsScores) { sc.Grouping.Add(pred, gold) })
		}
	}
	return traces
}

func shareSlot(a, b []facts.Fact) bool {
	for _, f := range a {
		for _, g := range b {
			if f.Slot() == g.Slot() {
				return true
			}
		}
	}
	return false
}

// valueMatches reports whether an extracted value matches an annotated one by words:
// it holds every key word of the annotation (case and punctuation ignored, as the
// probes' gold values are matched) and at most three key words more, so that a whole
// sentence does not count as a value.
func valueMatches(extracted, gold string) bool {
	return holdsKey(extracted, gold) && len(keyWords(extracted)) <= len(keyWords(gold))+3
}

// WriteFactsTables writes the report as Markdown: one row per domain and overall.
func WriteFactsTables(w io.Writer, r *FactsReport) {
	fmt.Fprintf(w, "Fact extraction on the corpus (%s split): %d scenarios, %d memories; sources %s.\n\n",
		r.Split, r.Scenarios, r.Overall.Memories, sources(r.Sources))
	t := table{head: []string{"Domain", "Memories", "States P", "States R", "States F1", "Subjects =", "Subjects ⊇", "Value", "Fact", "Polarity", "Scope", "Event time", "Grouping P", "Grouping R", "Grouping F1"}}
	row := func(name string, s FactsScores) {
		t.row(name, fmt.Sprint(s.Memories), f3(s.States.Precision()), f3(s.States.Recall()), f3(s.States.F1()),
			s.SubjectsEqual.String(), s.SubjectsContain.String(), s.Value.String(), s.Fact.String(), s.Polarity.String(),
			s.Scope.String(), s.EventTime.String(), f3(s.Grouping.Precision()), f3(s.Grouping.Recall()), f3(s.Grouping.F1()))
	}
	for _, d := range r.Domains {
		row(d.Domain, d.FactsScores)
	}
	row("**all**", r.Overall)
	t.write(w)
	fmt.Fprintf(w, "Extraction: %.2f ms a memory (embedding included); whole run %.1f s", r.MeanExtractMs, r.Seconds)
	if r.Fallbacks > 0 {
		fmt.Fprintf(w, "; %d fallbacks", r.Fallbacks)
	}
	fmt.Fprintln(w, ".")
}

func sources(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
