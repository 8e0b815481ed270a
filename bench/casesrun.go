package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/internal/words"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	judgerule "github.com/atma-dev/atma/judge/rule"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry"
	"github.com/atma-dev/atma/sentry/gate"
)

// CaseScores are one system's probe metrics over a group of probes (a domain, a probe
// kind, or "all").
type CaseScores struct {
	Group  string `json:"group"`
	Probes int    `json:"probes"`
	// Bank: the gold state's records carry the right status (the overlay only; the host
	// has no statuses and reads n/a).
	Bank Rate `json:"bank"`
	// StateFirst: the row the packet presents for the requested state holds a gold value.
	// The presented row is the first that holds a gold or stale value among the rows
	// labelled with the requested state (marked packets) or among all rows (unmarked
	// packets, neutral probes).
	StateFirst Rate `json:"state_first"`
	// GoldInPacket: some row holds a gold value (a change probe: every gold value).
	GoldInPacket Rate `json:"gold_in_packet"`
	// StaleLeakage (probes with stale values): a row labelled current holds a stale
	// value and no gold one (current probes), or a row holding only stale values ranks
	// above the first row holding a gold value (or there is no such row).
	StaleLeakage Rate `json:"stale_leakage"`
	// Answer: the LLM's answer holds a gold value (n/a without an endpoint).
	Answer Rate `json:"answer"`
}

// CasesSystem is one system's scores, overall, by domain and by probe kind.
type CasesSystem struct {
	Name    string       `json:"name"`
	Overall CaseScores   `json:"overall"`
	Domains []CaseScores `json:"domains"`
	Kinds   []CaseScores `json:"kinds"`
}

// CasesSentry scores the Sentry gate on the corpus's pairs.
type CasesSentry struct {
	Thresholds gate.Thresholds `json:"thresholds"`
	// SameSlotAUC: topic similarity a separates same-slot pairs from the others;
	// SameSlotBackboneAUC: the backbone's own cosine of the two texts does, without the
	// heads (what the topic head adds, or takes away, on text it was not trained on).
	SameSlotAUC         *float64 `json:"same_slot_auc"`
	SameSlotBackboneAUC *float64 `json:"same_slot_backbone_auc"`
	// ConflictAUC: gap = a − b separates conflicting from consistent same-slot pairs.
	ConflictAUC *float64 `json:"conflict_auc"`
	// The same separation by other scores, to tell what the logic head adds: 1 − b
	// alone (LogicAUC), 1 − the backbone's own cosine of the two texts, without heads
	// (BackboneAUC), and 1 − the word overlap of the two texts (LexicalAUC, Jaccard of
	// their lower-cased words).
	LogicAUC    *float64 `json:"logic_auc"`
	BackboneAUC *float64 `json:"backbone_auc"`
	LexicalAUC  *float64 `json:"lexical_auc"`
	// Recall: conflicting pairs routed to the Judge; Routing: all pairs routed;
	// UnrelatedRouted: pairs of different slots routed (false alarms).
	Recall          Rate `json:"recall"`
	Routing         Rate `json:"routing"`
	UnrelatedRouted Rate `json:"unrelated_routed"`
	// The same with the overlay's routing, which also sends the Judge a pair the gate
	// passes when a > τ_top and the new text has a change cue the old one lacks
	// (overlay.RouteByCue; overlay.Config.NoCues turns it off).
	CueRecall          Rate `json:"cue_recall"`
	CueRouting         Rate `json:"cue_routing"`
	CueUnrelatedRouted Rate `json:"cue_unrelated_routed"`
}

// CasesJudge scores an auditor on the corpus's pairs.
type CasesJudge struct {
	Name string `json:"name"`
	// Verdict: the status (conflict, consistent, unrelated) is right; Action: the
	// action is right (keep and coexist both right for pairs that do not conflict);
	// Type: status and conflict type right.
	Verdict Rate `json:"verdict"`
	Type    Rate `json:"type"`
	Action  Rate `json:"action"`
	// ByKind is the verdict accuracy by pair kind; ByType by gold conflict type.
	ByKind    map[string]Rate                       `json:"by_kind"`
	ByType    map[judge.ConflictType]Rate           `json:"by_type"`
	Confusion map[judge.Status]map[judge.Status]int `json:"confusion"`
}

// CasesReport is the outcome of RunCases.
type CasesReport struct {
	Split     string `json:"split"`
	Scenarios int    `json:"scenarios"`
	Memories  int    `json:"memories"`
	Probes    int    `json:"probes"`
	Pairs     int    `json:"pairs"`
	TopK      int    `json:"top_k"`
	LLM       bool   `json:"llm"`
	// Systems are host-only, host+overlay and the ablations, in that order.
	Systems []CasesSystem `json:"systems"`
	// Skipped are the ablations not run, with why.
	Skipped []string `json:"skipped,omitempty"`
	// Commits counts the overlay's supersede and transition commits; Intended those
	// that match an annotated relation with a conflict (same pair, either direction).
	Commits  int `json:"commits"`
	Intended int `json:"intended"`
	// MemoryStatus: state memories whose final status (host+overlay) is the one the
	// annotations imply (superseded when every slot of theirs was replaced, else active).
	MemoryStatus Rate `json:"memory_status"`
	// Refused are the memories the overlay refused, with why.
	Refused      []string     `json:"refused,omitempty"`
	Sentry       *CasesSentry `json:"sentry,omitempty"`
	Judge        CasesJudge   `json:"judge"`
	EmbedSeconds float64      `json:"embed_seconds"`
	Seconds      float64      `json:"seconds"`
}

// System returns the scores of the system called name.
func (r *CasesReport) System(name string) (CasesSystem, bool) {
	for _, s := range r.Systems {
		if s.Name == name {
			return s, true
		}
	}
	return CasesSystem{}, false
}

// CaseTrace is one probe under one system: a line of the JSONL trace.
type CaseTrace struct {
	System   string   `json:"system"`
	Scenario string   `json:"scenario"`
	Domain   string   `json:"domain"`
	Probe    string   `json:"probe"`
	Kind     string   `json:"kind"`
	Question string   `json:"question"`
	Gold     []string `json:"gold"`
	Stale    []string `json:"stale,omitempty"`
	Rows     []string `json:"rows"`
	Labels   []string `json:"labels,omitempty"`
	// NoState: the overlay's packet went unlabelled, knowing no state of its first row
	// (retrieval.Packet.NoState); it is scored as the host's is, over every row.
	NoState bool `json:"no_state,omitempty"`
	// Statuses are the overlay's statuses of the gold and stale memories.
	Statuses     map[string]string `json:"statuses,omitempty"`
	Bank         *bool             `json:"bank,omitempty"`
	StateFirst   bool              `json:"state_first"`
	GoldInPacket bool              `json:"gold_in_packet"`
	StaleLeakage *bool             `json:"stale_leakage,omitempty"`
	LLMAnswer    string            `json:"answer,omitempty"`
	LLMError     string            `json:"answer_error,omitempty"`
}

// caseAcc accumulates CaseScores per group.
type caseAcc struct {
	groups map[string]*CaseScores
}

func (a *caseAcc) get(g string) *CaseScores {
	if a.groups == nil {
		a.groups = map[string]*CaseScores{}
	}
	s, ok := a.groups[g]
	if !ok {
		s = &CaseScores{Group: g}
		a.groups[g] = s
	}
	return s
}

func (a *caseAcc) list(groups []string) []CaseScores {
	var out []CaseScores
	for _, g := range groups {
		if s, ok := a.groups[g]; ok {
			out = append(out, *s)
		}
	}
	return out
}

// RunCases replays every scenario of the corpus (one user each, memories in arrival
// order) into the host alone and into the host with the overlay, asks every probe after
// the last memory, and scores the packets and the overlay's bank; it scores the Sentry
// gate (when env has heads) and the Judge on the corpus's pairs. ablations (see
// ParseAblations) are scored as further systems; those that differ from the overlay only
// at query time share its replay, and those that need an endpoint are skipped without
// one. traces, when not nil, gets one CaseTrace per probe and system.
func RunCases(ctx context.Context, c *Corpus, split string, env Env, ablations []Variant, traces io.Writer) (*CasesReport, error) {
	if err := env.Validate(); err != nil {
		return nil, fmt.Errorf("run cases: %w", err)
	}
	c, err := c.Split(split)
	if err != nil {
		return nil, fmt.Errorf("run cases: %w", err)
	}
	if len(c.Scenarios) == 0 {
		return nil, fmt.Errorf("run cases: split %s has no scenarios", split)
	}
	env = env.withDefaults()
	start := time.Now()
	pairs := c.Pairs()
	rep := &CasesReport{Split: split, Scenarios: len(c.Scenarios), Pairs: len(pairs), TopK: env.TopK, LLM: env.LLM != nil}
	var enc *json.Encoder
	if traces != nil {
		enc = json.NewEncoder(traces)
	}
	conflicts := map[[2]string]bool{}
	for _, p := range pairs {
		if p.Gold.Status == judge.StatusConflict {
			conflicts[[2]string{p.Scenario + "/" + p.Old, p.Scenario + "/" + p.New}] = true
		}
	}
	// Variants that differ only at query time share one replay.
	replays := map[replayKey]memory{}
	for _, v := range append([]Variant{HostOnly, Overlay}, ablations...) {
		if v.needsLLM() && env.LLM == nil {
			rep.Skipped = append(rep.Skipped, v.Name+": needs an LLM endpoint")
			continue
		}
		key := v.replayKey()
		mem, replayed := replays[key]
		if !replayed {
			var err error
			if mem, err = newMemory(env, v); err != nil {
				return nil, err
			}
			replays[key] = mem
		}
		var all, byDomain, byKind caseAcc
		for i, s := range c.Scenarios {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !replayed {
				if !v.HostOnly {
					env.Logger.Info("cases", "variant", v.Name, "scenario", s.ID, "n", i+1, "of", len(c.Scenarios))
				}
				in := make([]memoryInput, len(s.Memories))
				for k, m := range s.Memories {
					in[k] = memoryInput{ID: s.ID + "/" + m.ID, Content: m.Text, Time: m.Time, Pos: k}
				}
				cost, err := mem.ingest(ctx, s.ID, in)
				if err != nil {
					return nil, fmt.Errorf("run cases: %s: %s: %w", v.Name, s.ID, err)
				}
				if v == Overlay {
					rep.Memories += len(s.Memories)
					rep.Refused = append(rep.Refused, cost.Errors...)
					for _, cm := range cost.Commits {
						rep.Commits++
						if conflicts[[2]string{cm.Old, cm.New}] || conflicts[[2]string{cm.New, cm.Old}] {
							rep.Intended++
						}
					}
					bank, err := traceBank(ctx, mem, v.Name, s, &rep.MemoryStatus)
					if err != nil {
						return nil, fmt.Errorf("run cases: %s: %w", s.ID, err)
					}
					for _, tr := range bank {
						if enc != nil {
							if err := enc.Encode(tr); err != nil {
								return nil, fmt.Errorf("write cases trace: %w", err)
							}
						}
					}
				}
			}
			for _, p := range s.Probes {
				out, err := mem.query(ctx, s.ID, queryInput{Text: p.Question, Gold: p.Gold[len(p.Gold)-1], Answer: env.LLM != nil,
					queryOptions: v.queryOptions()})
				if err != nil {
					return nil, fmt.Errorf("run cases: %s/%s: %w", s.ID, p.ID, err)
				}
				tr := scoreCaseProbe(p, out.Packet)
				tr.System, tr.Scenario, tr.Domain = v.Name, s.ID, s.Domain
				if !v.HostOnly {
					ok, statuses, err := caseBank(ctx, mem, s.ID, p)
					if err != nil {
						return nil, err
					}
					tr.Bank, tr.Statuses = &ok, statuses
				}
				if env.LLM != nil {
					tr.LLMAnswer, tr.LLMError = out.Answer, out.AnswerErr
				}
				for _, acc := range []*CaseScores{all.get("all"), byDomain.get(s.Domain), byKind.get(p.Kind)} {
					acc.add(tr)
				}
				if enc != nil {
					if err := enc.Encode(tr); err != nil {
						return nil, fmt.Errorf("write cases trace: %w", err)
					}
				}
			}
		}
		sys := CasesSystem{Name: v.Name, Domains: byDomain.list(caseDomains), Kinds: byKind.list(probeKinds)}
		if o := all.groups["all"]; o != nil {
			sys.Overall = *o
		}
		rep.Probes = sys.Overall.Probes
		rep.Systems = append(rep.Systems, sys)
	}
	if err := scoreCasePairs(ctx, c, pairs, env, rep); err != nil {
		return nil, err
	}
	if ec, ok := env.Embedder.(*embedCache); ok {
		rep.EmbedSeconds = ec.spent.Seconds()
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func (s *CaseScores) add(tr CaseTrace) {
	s.Probes++
	if tr.Bank != nil {
		s.Bank.Add(*tr.Bank)
	}
	s.StateFirst.Add(tr.StateFirst)
	s.GoldInPacket.Add(tr.GoldInPacket)
	if tr.StaleLeakage != nil {
		s.StaleLeakage.Add(*tr.StaleLeakage)
	}
	if tr.LLMAnswer != "" || tr.LLMError != "" {
		if tr.LLMError == "" {
			s.Answer.Add(slices.ContainsFunc(tr.Gold, func(g string) bool { return holdsKey(tr.LLMAnswer, g) }))
		}
	}
}

// requestedLabels are the labels a probe kind asks for in a marked packet (nil: any).
func requestedLabels(kind string) []retrieval.Label {
	switch kind {
	case ProbeCurrent:
		return []retrieval.Label{retrieval.LabelCurrent}
	case ProbeHistorical:
		return []retrieval.Label{retrieval.LabelHistorical}
	case ProbeChange:
		return []retrieval.Label{retrieval.LabelTransition, retrieval.LabelTransitionLinked}
	}
	return nil
}

// scoreCaseProbe scores a packet against a probe's gold and stale values.
func scoreCaseProbe(p CaseProbe, pk retrieval.Packet) CaseTrace {
	tr := CaseTrace{Probe: p.ID, Kind: p.Kind, Question: p.Question, Gold: p.Gold, Stale: p.Stale, NoState: pk.NoState}
	holds := func(s string, vals []string) bool {
		return slices.ContainsFunc(vals, func(g string) bool { return holdsKey(s, g) })
	}
	firstGold, firstStale := -1, -1
	currentStale := false
	for i, r := range pk.Rows {
		tr.Rows = append(tr.Rows, r.Content)
		if pk.Marked {
			tr.Labels = append(tr.Labels, string(r.Label))
		}
		g, st := holds(r.Content, p.Gold), holds(r.Content, p.Stale)
		if g && firstGold < 0 {
			firstGold = i
		}
		if st && !g && firstStale < 0 {
			firstStale = i
		}
		if pk.Marked && r.Label == retrieval.LabelCurrent && st && !g {
			currentStale = true
		}
	}
	if p.Kind == ProbeChange {
		tr.GoldInPacket = true
		for _, g := range p.Gold {
			tr.GoldInPacket = tr.GoldInPacket && slices.ContainsFunc(pk.Rows, func(r retrieval.Row) bool { return holdsKey(r.Content, g) })
		}
	} else {
		tr.GoldInPacket = firstGold >= 0
	}
	// The presented row: the first that holds a value the probe knows (gold or stale)
	// among the rows labelled with the requested state (every row of an unmarked
	// packet), so that a row about something else in between is no answer either way.
	want := requestedLabels(p.Kind)
	for _, r := range pk.Rows {
		if pk.Marked && want != nil && !slices.Contains(want, r.Label) {
			continue
		}
		if g := holds(r.Content, p.Gold); g || holds(r.Content, p.Stale) {
			tr.StateFirst = g
			break
		}
	}
	if len(p.Stale) > 0 && p.Kind != ProbeNeutral {
		leak := firstStale >= 0 && (firstGold < 0 || firstStale < firstGold)
		if p.Kind == ProbeCurrent {
			leak = leak || currentStale
		}
		tr.StaleLeakage = &leak
	}
	return tr
}

// caseBank checks the overlay's statuses of a probe's gold and stale memories (the rule
// per probe kind is in testdata/cases/README.md).
func caseBank(ctx context.Context, mem memory, user string, p CaseProbe) (bool, map[string]string, error) {
	statuses := map[string]string{}
	status := func(id string) (store.Status, error) {
		r, ok, err := mem.record(ctx, user, user+"/"+id)
		if err != nil {
			return "", err
		}
		if !ok {
			statuses[id] = "missing"
			return "", nil
		}
		statuses[id] = string(r.Status)
		return r.Status, nil
	}
	gold := make([]store.Status, len(p.GoldMemories))
	for i, id := range p.GoldMemories {
		st, err := status(id)
		if err != nil {
			return false, nil, err
		}
		gold[i] = st
	}
	var stale []store.Status
	for _, id := range p.StaleMemories {
		st, err := status(id)
		if err != nil {
			return false, nil, err
		}
		stale = append(stale, st)
	}
	is := func(want store.Status) func(store.Status) bool {
		return func(s store.Status) bool { return s == want }
	}
	var ok bool
	switch p.Kind {
	case ProbeCurrent:
		ok = slices.ContainsFunc(gold, is(store.StatusActive)) && !slices.ContainsFunc(stale, is(store.StatusActive))
	case ProbeHistorical:
		ok = !slices.ContainsFunc(gold, func(s store.Status) bool { return s != store.StatusSuperseded })
	case ProbeChange:
		last := len(gold) - 1
		ok = gold[last] == store.StatusActive && !slices.ContainsFunc(gold[:last], func(s store.Status) bool { return s != store.StatusSuperseded })
	default:
		ok = !slices.ContainsFunc(gold, func(s store.Status) bool {
			return s == "" || s == store.StatusSuperseded || s == store.StatusTransition
		})
	}
	return ok, statuses, nil
}

// scoreCasePairs scores the Sentry gate and the Judge on the pairs. With env.Facts the
// Judge sees each memory's facts, read scenario by scenario in arrival order, as the
// overlay shows them to it.
func scoreCasePairs(ctx context.Context, c *Corpus, pairs []CasePair, env Env, rep *CasesReport) error {
	var texts []string
	for _, p := range pairs {
		texts = append(texts, p.OldText, p.NewText)
	}
	var decisions []gate.Decision
	if env.Heads != nil && len(pairs) > 0 {
		vecs, err := env.Embedder.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("score pairs: embed: %w", err)
		}
		proj := env.Heads.ProjectAll(vecs)
		g := gate.NewGate(env.Thresholds)
		cs := &CasesSentry{Thresholds: env.Thresholds}
		var a, cos, gap, notB, notCos, notOverlap []float64
		var same, conflict []bool
		for i, p := range pairs {
			d := g.Score(proj[2*i+1], proj[2*i])
			decisions = append(decisions, d)
			a = append(a, d.A)
			cos = append(cos, cosine(vecs[2*i], vecs[2*i+1]))
			same = append(same, p.SameSlot)
			if p.SameSlot {
				gap = append(gap, d.Gap)
				notB = append(notB, 1-d.B)
				notCos = append(notCos, 1-cos[i])
				notOverlap = append(notOverlap, 1-wordJaccard(p.OldText, p.NewText))
				conflict = append(conflict, p.Gold.Status == judge.StatusConflict)
			}
			cued, _ := overlay.RouteByCue(d, env.Thresholds.Top, p.OldText, p.NewText)
			cs.Routing.Add(d.Route)
			cs.CueRouting.Add(cued)
			if p.Gold.Status == judge.StatusConflict {
				cs.Recall.Add(d.Route)
				cs.CueRecall.Add(cued)
			}
			if !p.SameSlot {
				cs.UnrelatedRouted.Add(d.Route)
				cs.CueUnrelatedRouted.Add(cued)
			}
		}
		cs.SameSlotAUC, cs.SameSlotBackboneAUC = auc(a, same), auc(cos, same)
		cs.ConflictAUC = auc(gap, conflict)
		cs.LogicAUC, cs.BackboneAUC, cs.LexicalAUC = auc(notB, conflict), auc(notCos, conflict), auc(notOverlap, conflict)
		rep.Sentry = cs
	}
	aud := env.Auditor
	name := "rule"
	if aud == nil {
		r, err := judgerule.New(judgerule.Config{})
		if err != nil {
			return err
		}
		aud = r
	} else if _, ok := aud.(*judgerule.Auditor); !ok {
		name = "llm"
	}
	read := map[string][]facts.Fact{} // scenario/memory → facts
	if env.Facts != nil {
		for _, s := range c.Scenarios {
			in := make([]facts.Input, len(s.Memories))
			for k, m := range s.Memories {
				in[k] = facts.Input{Text: m.Text, Time: m.Time}
			}
			res, err := env.Facts.Extract(ctx, in)
			if err != nil {
				return fmt.Errorf("score pairs: facts of %s: %w", s.ID, err)
			}
			for k, r := range res {
				read[s.ID+"/"+s.Memories[k].ID] = r.Facts
			}
		}
	}
	items := make([]eval.Item, len(pairs))
	for i, p := range pairs {
		jp := judge.Pair{Old: judge.Record{Text: p.OldText, Time: p.OldTime, Facts: read[p.Scenario+"/"+p.Old]},
			New: judge.Record{Text: p.NewText, Time: p.NewTime, Facts: read[p.Scenario+"/"+p.New]}}
		if decisions != nil {
			d := decisions[i]
			jp.Scores = &judge.Scores{A: d.A, B: d.B, Gap: d.Gap}
		}
		items[i] = eval.Item{ID: p.ID, Pair: jp, Gold: p.Gold, Implicit: p.Gold.Type == judge.TypeImplicitViolation}
	}
	jr := CasesJudge{Name: name, ByKind: map[string]Rate{}, ByType: map[judge.ConflictType]Rate{}}
	if len(items) > 0 {
		er, err := eval.Run(ctx, []judge.NamedAuditor{{Name: name, Auditor: aud}}, items, 4)
		if err != nil {
			return fmt.Errorf("score pairs: %w", err)
		}
		ar := er.Auditors[0]
		jr.Confusion = ar.Confusion
		for i, pr := range ar.Predictions {
			p := pairs[i]
			ok := pr.Status == p.Gold.Status
			jr.Verdict.Add(ok)
			jr.Type.Add(ok && pr.Type == p.Gold.Type)
			jr.Action.Add(p.Gold.ActionOK(pr.Action))
			k := jr.ByKind[p.Kind]
			k.Add(ok)
			jr.ByKind[p.Kind] = k
			t := jr.ByType[p.Gold.Type]
			t.Add(ok && pr.Type == p.Gold.Type)
			jr.ByType[p.Gold.Type] = t
		}
	}
	rep.Judge = jr
	return nil
}

// auc is sentry.ROCAUC, nil when a class is empty.
func auc(scores []float64, labels []bool) *float64 {
	v, err := sentry.ROCAUC(scores, labels)
	if err != nil || math.IsNaN(v) {
		return nil
	}
	return &v
}

func optFloat(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *v)
}

// WriteCasesTables writes the report as Markdown.
func WriteCasesTables(w io.Writer, r *CasesReport) {
	fmt.Fprintf(w, "State-change corpus, split %s: %d scenarios, %d memories, %d probes, %d pairs, top-%d packets.\n\n",
		r.Split, r.Scenarios, r.Memories, r.Probes, r.Pairs, r.TopK)
	fmt.Fprintf(w, "Overlay commits (supersede/transition): %d, of which %d match an annotated conflict; %d memories refused; state memories with the annotated final status: %s.\n\n",
		r.Commits, r.Intended, len(r.Refused), r.MemoryStatus)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped: %s.\n\n", strings.Join(r.Skipped, "; "))
	}
	sum := table{head: []string{"System", "bank accuracy", "requested state first", "gold in packet", "stale leakage ↓", "answer holds gold"}}
	for _, sys := range r.Systems {
		o := sys.Overall
		sum.row(sys.Name, o.Bank.String(), o.StateFirst.String(), o.GoldInPacket.String(), o.StaleLeakage.String(), o.Answer.String())
	}
	fmt.Fprintf(w, "All probes:\n\n")
	sum.write(w)
	metrics := []struct {
		name string
		get  func(CaseScores) Rate
	}{
		{"bank accuracy", func(s CaseScores) Rate { return s.Bank }},
		{"requested state first", func(s CaseScores) Rate { return s.StateFirst }},
		{"gold in packet", func(s CaseScores) Rate { return s.GoldInPacket }},
		{"stale leakage (lower is better)", func(s CaseScores) Rate { return s.StaleLeakage }},
		{"answer holds gold", func(s CaseScores) Rate { return s.Answer }},
	}
	t := table{head: []string{"System", "Metric", "all"}}
	t.head = append(t.head, caseDomains...)
	for _, sys := range r.Systems {
		for _, m := range metrics {
			row := []string{sys.Name, m.name, m.get(sys.Overall).String()}
			for _, d := range caseDomains {
				cell := "n/a"
				for _, s := range sys.Domains {
					if s.Group == d {
						cell = m.get(s).String()
					}
				}
				row = append(row, cell)
			}
			t.row(row...)
		}
	}
	fmt.Fprintf(w, "By domain:\n\n")
	t.write(w)
	k := table{head: []string{"System", "Metric"}}
	k.head = append(k.head, probeKinds...)
	for _, sys := range r.Systems {
		for _, m := range metrics {
			row := []string{sys.Name, m.name}
			for _, kind := range probeKinds {
				cell := "n/a"
				for _, s := range sys.Kinds {
					if s.Group == kind {
						cell = fmt.Sprintf("%s (%d)", m.get(s), s.Probes)
					}
				}
				row = append(row, cell)
			}
			k.row(row...)
		}
	}
	fmt.Fprintf(w, "By probe kind (probes in brackets):\n\n")
	k.write(w)
	if s := r.Sentry; s != nil {
		fmt.Fprintf(w, "Sentry on %d pairs (τ_top %.2f, τ_log %.2f, τ_gap %.2f): same-slot AUC %s, conflict-vs-consistent AUC (gap) %s, conflict recall %s, routed %s of all pairs, %s of other-slot pairs.\n",
			r.Pairs, s.Thresholds.Top, s.Thresholds.Log, s.Thresholds.Gap, optFloat(s.SameSlotAUC), optFloat(s.ConflictAUC), s.Recall, s.Routing, s.UnrelatedRouted)
		fmt.Fprintf(w, "With the overlay's change cues (also routed: a > τ_top and a change cue in the new text): conflict recall %s, routed %s of all pairs, %s of other-slot pairs.\n",
			s.CueRecall, s.CueRouting, s.CueUnrelatedRouted)
		fmt.Fprintf(w, "Same slot vs other pairs, AUC by score: a (topic head) %s, backbone cosine (no heads) %s.\n",
			optFloat(s.SameSlotAUC), optFloat(s.SameSlotBackboneAUC))
		fmt.Fprintf(w, "Conflict vs consistent among same-slot pairs, AUC by score: gap %s, 1 − b (logic head) %s, 1 − backbone cosine (no heads) %s, 1 − word overlap %s.\n\n",
			optFloat(s.ConflictAUC), optFloat(s.LogicAUC), optFloat(s.BackboneAUC), optFloat(s.LexicalAUC))
	} else {
		fmt.Fprintf(w, "Sentry: no checkpoint, not scored.\n\n")
	}
	j := r.Judge
	fmt.Fprintf(w, "Judge (%s) on %d pairs: verdict %s, verdict and type %s, action %s.\n\n", j.Name, r.Pairs, j.Verdict, j.Type, j.Action)
	jt := table{head: []string{"Pairs", "n", "verdict accuracy"}}
	for _, kind := range []string{PairRelation, PairOtherSlot, PairOtherSubject, PairNonState} {
		if x, ok := j.ByKind[kind]; ok {
			jt.row(kind, fmt.Sprint(x.N), x.String())
		}
	}
	for _, ty := range judge.ConflictTypes() {
		if x, ok := j.ByType[ty]; ok {
			jt.row("type "+string(ty), fmt.Sprint(x.N), x.String()+" (with type)")
		}
	}
	jt.write(w)
	fmt.Fprintf(w, "Embedding: %.1f s; whole run %.1f s.\n", r.EmbedSeconds, r.Seconds)
}

// PlotCases draws each system's main metrics as a PNG bar chart.
func PlotCases(path string, r *CasesReport) error {
	labels := []string{"bank accuracy", "state first", "gold in packet", "stale leakage"}
	var series []bars
	for _, s := range r.Systems {
		o := s.Overall
		series = append(series, bars{s.Name, []float64{o.Bank.Value(), o.StateFirst.Value(), o.GoldInPacket.Value(), o.StaleLeakage.Value()}})
	}
	return barChart(path, fmt.Sprintf("State-change corpus, %s split (%d probes; leakage: lower is better)", r.Split, r.Probes), "rate", labels, series)
}

// cosine is the cosine similarity of two vectors (0 when either is zero).
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range min(len(a), len(b)) {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// wordJaccard is the Jaccard overlap of two texts' lower-cased words.
func wordJaccard(a, b string) float64 {
	wa, wb := map[string]bool{}, map[string]bool{}
	for _, w := range words.Split(a) {
		wa[w] = true
	}
	for _, w := range words.Split(b) {
		wb[w] = true
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
