package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
)

// LTPBank are the bank-level metrics, one case per unit.
type LTPBank struct {
	// Coexist: both states are stored (cue1's and cue2's memories are in the bank).
	Coexist Rate `json:"coexist"`
	// Role: the bank says which state is which through statuses or links — cue1
	// superseded by cue2 (directly, or in one slot's version group) with cue2 active, or
	// a scoped-exception link between them with cue2 active. Timestamp order alone is not
	// credited, so a host without statuses scores 0.
	Role Rate `json:"role"`
	// Commits are the supersede and transition commits: UnitCommits between a unit's
	// cue1 and cue2 (the intended ones), CueCollateral ones that touch a cue memory
	// otherwise, TurnCommits between original turns only.
	Commits       int `json:"commits"`
	UnitCommits   int `json:"unit_commits"`
	CueCollateral int `json:"cue_collateral"`
	TurnCommits   int `json:"turn_commits"`
}

// LTPPacket are the LLM-free packet metrics, one case per probe (or per probe of a kind).
type LTPPacket struct {
	// Support: the packet holds the gold evidence — the target state's cue, or the
	// unit's transition record when it names the gold value.
	Support         Rate `json:"support"`
	SupportConflict Rate `json:"support_conflict"`
	SupportFact     Rate `json:"support_fact"`
	// StateFirst: of the unit's two state memories, the requested one comes first in the
	// packet (the other may follow or be absent).
	StateFirst         Rate `json:"state_first"`
	StateFirstConflict Rate `json:"state_first_conflict"`
	StateFirstFact     Rate `json:"state_first_fact"`
	// StaleLeakage (conflict-aware probes): the old state's memory is in the packet and
	// labelled current, or ranked above the current state's memory (or without it).
	StaleLeakage Rate `json:"stale_leakage"`
	// FutureIntrusion (fact-recall probes): the current state's memory is in the packet
	// ranked above the old state's memory (or without it).
	FutureIntrusion Rate `json:"future_intrusion"`
	// ModeMatch: the query profiler read the probe's requested state (historical for
	// fact recall, current for conflict-aware).
	ModeMatch Rate `json:"mode_match"`
}

// LTPQA are the answer metrics; present only with an LLM endpoint.
type LTPQA struct {
	// Accuracy: the answer contains the gold value's words.
	Accuracy Rate `json:"accuracy"`
	Conflict Rate `json:"conflict"`
	Fact     Rate `json:"fact"`
	// Judge is the LLM grader's score (CORRECT 1, WRONG 0).
	Judge Mean `json:"judge"`
	// Errors are answers or grades the endpoint failed to give.
	Errors int `json:"errors"`
}

// CategoryResult are a variant's main metrics for one category.
type CategoryResult struct {
	Category        data.Category `json:"category"`
	Role            Rate          `json:"role"`
	Support         Rate          `json:"support"`
	StateFirst      Rate          `json:"state_first"`
	StaleLeakage    Rate          `json:"stale_leakage"`
	FutureIntrusion Rate          `json:"future_intrusion"`
}

// Cost is what a variant spent. Embedding is shared by all variants of a run (each text
// is embedded once) and reported once, in the run.
type Cost struct {
	Memories   int `json:"memories"`
	Candidates int `json:"candidates"`
	Routed     int `json:"routed"`
	// RoutedShare is Routed/Candidates: the share of candidate pairs the Judge audited.
	RoutedShare float64 `json:"routed_share"`
	// IngestMS is the overlay's own work per memory (seeds, gate, judge, commit) or the
	// host's add; QueryMS the retrieval per question; neither counts embedding.
	IngestMS float64 `json:"ingest_ms"`
	QueryMS  float64 `json:"query_ms"`
	Queries  int     `json:"queries"`
	// IngestErrors counts the memories the overlay refused (an invariant its commit
	// would have broken); Errors shows the first few.
	IngestErrors int      `json:"ingest_errors"`
	Errors       []string `json:"errors,omitempty"`
}

func (c *Cost) addErrors(errs []string) {
	c.IngestErrors += len(errs)
	for _, e := range errs {
		if len(c.Errors) < maxFailures {
			c.Errors = append(c.Errors, e)
		}
	}
}

func (c *Cost) finish(ingest, query time.Duration) {
	if c.Candidates > 0 {
		c.RoutedShare = float64(c.Routed) / float64(c.Candidates)
	}
	if c.Memories > 0 {
		c.IngestMS = float64(ingest.Microseconds()) / 1000 / float64(c.Memories)
	}
	if c.Queries > 0 {
		c.QueryMS = float64(query.Microseconds()) / 1000 / float64(c.Queries)
	}
}

// LTPResult is one variant's outcome.
type LTPResult struct {
	Variant Variant `json:"variant"`
	// Skipped says why the variant did not run (empty when it ran).
	Skipped    string                         `json:"skipped,omitempty"`
	Bank       LTPBank                        `json:"bank"`
	Packet     LTPPacket                      `json:"packet"`
	QA         *LTPQA                         `json:"qa,omitempty"`
	Categories []CategoryResult               `json:"categories"`
	Diagnosis  map[retrieval.FailureClass]int `json:"diagnosis,omitempty"`
	Cost       Cost                           `json:"cost"`
}

// LTPReport is the outcome of RunLTP.
type LTPReport struct {
	Config     LTPConfig        `json:"config"`
	Profiles   int              `json:"profiles"`
	Units      int              `json:"units"`
	Probes     int              `json:"probes"`
	Events     int              `json:"events"`
	Validation ValidationReport `json:"validation"`
	TopK       int              `json:"top_k"`
	// LLM says whether an endpoint answered and graded.
	LLM bool `json:"llm"`
	// EmbedSeconds is the backbone's time for every text of the run, once each.
	EmbedSeconds float64     `json:"embed_seconds"`
	Seconds      float64     `json:"seconds"`
	Results      []LTPResult `json:"results"`
}

// Result returns the result of the variant named name.
func (r *LTPReport) Result(name string) (*LTPResult, bool) {
	for i := range r.Results {
		if r.Results[i].Variant.Name == name {
			return &r.Results[i], true
		}
	}
	return nil, false
}

// ProbeTrace is one probe's outcome for one variant: one line of the JSONL trace file.
type ProbeTrace struct {
	Variant  string         `json:"variant"`
	Probe    string         `json:"probe"`
	Kind     ProbeKind      `json:"kind"`
	Category data.Category  `json:"category"`
	Question string         `json:"question"`
	Gold     string         `json:"gold"`
	Other    string         `json:"other"`
	Mode     retrieval.Mode `json:"mode"`
	Rows     []TraceRow     `json:"rows"`

	Support         bool     `json:"support"`
	StateFirst      bool     `json:"state_first"`
	StaleLeakage    bool     `json:"stale_leakage,omitempty"`
	FutureIntrusion bool     `json:"future_intrusion,omitempty"`
	Answer          string   `json:"answer,omitempty"`
	AnswerError     string   `json:"answer_error,omitempty"`
	Correct         *bool    `json:"correct,omitempty"`
	Judge           *float64 `json:"judge,omitempty"`
	Diagnosis       string   `json:"diagnosis,omitempty"`
	QueryMS         float64  `json:"query_ms"`
}

// TraceRow is a packet row in a trace.
type TraceRow struct {
	Rank int `json:"rank"`
	// Memory is the benchmark's event id ("" for a transition record).
	Memory string `json:"memory,omitempty"`
	// Role is the row's relation to the probe: target (the requested state's cue), other
	// (the other state's cue), transition (the unit's transition record), cue (another
	// unit's cue), turn (an original turn) or record (any other record).
	Role    string `json:"role"`
	Label   string `json:"label,omitempty"`
	Status  string `json:"status,omitempty"`
	Content string `json:"content"`
}

// RunLTP replays every profile of l into the host alone and into the overlay (and each
// of the ablations, which share the replay where only queries differ), asks every probe
// and scores bank, packet and — with an LLM endpoint — answer metrics. Per-probe traces
// go to traces as JSON lines when it is not nil. The context cancels between memories
// and probes.
func RunLTP(ctx context.Context, l *LTP, env Env, ablations []Variant, traces io.Writer) (*LTPReport, error) {
	if err := env.Validate(); err != nil {
		return nil, fmt.Errorf("run ltp: %w", err)
	}
	env = env.withDefaults()
	start := time.Now()
	rep := &LTPReport{Config: l.Config, Profiles: len(l.Profiles), Units: len(l.Units), Probes: len(l.Probes),
		Validation: l.Validate(), TopK: env.TopK, LLM: env.LLM != nil}
	for _, p := range l.Profiles {
		rep.Events += len(p.Events)
	}
	units := map[string]Unit{}
	cues := map[string]bool{}
	for _, u := range l.Units {
		units[u.ID] = u
		cues[u.Cue1], cues[u.Cue2] = true, true
	}
	var enc *json.Encoder
	if traces != nil {
		enc = json.NewEncoder(traces)
	}

	variants := append([]Variant{HostOnly, Overlay}, ablations...)
	// Variants that differ only at query time share one replay.
	type replay struct {
		mem    memory
		cost   Cost
		ingest time.Duration
		bank   LTPBank
		roles  map[string]bool // unit → role credited
	}
	replays := map[replayKey]*replay{}
	for _, v := range variants {
		res := LTPResult{Variant: v}
		if v.needsLLM() && env.LLM == nil {
			res.Skipped = "needs an LLM endpoint (--llm-url): without one the controller keeps the pre-rank"
			rep.Results = append(rep.Results, res)
			continue
		}
		key := v.replayKey()
		rp := replays[key]
		if rp == nil {
			mem, err := newMemory(env, v)
			if err != nil {
				return nil, fmt.Errorf("run ltp: %s: %w", v.Name, err)
			}
			rp = &replay{mem: mem, roles: map[string]bool{}}
			for _, p := range l.Profiles {
				in := make([]memoryInput, len(p.Events))
				for i, e := range p.Events {
					in[i] = memoryInput{ID: e.ID, Content: env.content(e.turn()), Time: e.Time, Pos: e.Pos}
				}
				t0 := time.Now()
				c, err := mem.ingest(ctx, p.ID, in)
				if err != nil {
					return nil, fmt.Errorf("run ltp: %s: replay %s: %w", v.Name, p.ID, err)
				}
				env.Logger.Info("replayed", "variant", v.Name, "profile", p.ID, "memories", c.Memories, "seconds", time.Since(t0).Seconds())
				rp.cost.Memories += c.Memories
				rp.cost.Candidates += c.Candidates
				rp.cost.Routed += c.Routed
				rp.ingest += c.Overlay
				rp.cost.addErrors(c.Errors)
				for _, cc := range countCommits(&rp.bank, c.Commits, l) {
					if enc == nil {
						break
					}
					ct, err := traceCommit(ctx, mem, v.Name, p.ID, cc)
					if err != nil {
						return nil, fmt.Errorf("run ltp: %s: %w", v.Name, err)
					}
					if err := enc.Encode(ct); err != nil {
						return nil, fmt.Errorf("write ltp trace: %w", err)
					}
				}
			}
			for _, u := range l.Units {
				co, role, err := bankRole(ctx, mem, u)
				if err != nil {
					return nil, fmt.Errorf("run ltp: %s: %w", v.Name, err)
				}
				if enc != nil && !v.HostOnly {
					ut, err := traceUnit(ctx, mem, v.Name, u, role)
					if err != nil {
						return nil, fmt.Errorf("run ltp: %s: %w", v.Name, err)
					}
					if err := enc.Encode(ut); err != nil {
						return nil, fmt.Errorf("write ltp trace: %w", err)
					}
				}
				rp.bank.Coexist.Add(co)
				rp.bank.Role.Add(role)
				rp.roles[u.ID] = role
			}
			replays[key] = rp
		}
		res.Bank = rp.bank
		res.Cost = rp.cost
		cats := map[data.Category]*CategoryResult{}
		for _, u := range l.Units {
			if cats[u.Category] == nil {
				cats[u.Category] = &CategoryResult{Category: u.Category}
			}
			cats[u.Category].Role.Add(rp.roles[u.ID])
		}
		if env.LLM != nil {
			res.QA = &LTPQA{}
		}
		var spent time.Duration
		for _, p := range l.Probes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			u := units[p.Unit]
			out, err := rp.mem.query(ctx, p.Profile, queryInput{Text: p.Question, Gold: p.Gold, Answer: env.LLM != nil, queryOptions: v.queryOptions()})
			if err != nil {
				return nil, fmt.Errorf("run ltp: %s: probe %s: %w", v.Name, p.ID, err)
			}
			spent += out.Spent
			res.Cost.Queries++
			tr := scoreProbe(p, u, out, cues)
			tr.Variant = v.Name
			tr.QueryMS = float64(out.Spent.Microseconds()) / 1000
			pk := &res.Packet
			pk.Support.Add(tr.Support)
			pk.StateFirst.Add(tr.StateFirst)
			pk.ModeMatch.Add(tr.Mode == wantMode(p.Kind))
			c := cats[p.Category]
			c.Support.Add(tr.Support)
			c.StateFirst.Add(tr.StateFirst)
			if p.Kind == ProbeConflict {
				pk.SupportConflict.Add(tr.Support)
				pk.StateFirstConflict.Add(tr.StateFirst)
				pk.StaleLeakage.Add(tr.StaleLeakage)
				c.StaleLeakage.Add(tr.StaleLeakage)
			} else {
				pk.SupportFact.Add(tr.Support)
				pk.StateFirstFact.Add(tr.StateFirst)
				pk.FutureIntrusion.Add(tr.FutureIntrusion)
				c.FutureIntrusion.Add(tr.FutureIntrusion)
			}
			if out.Diagnosis != nil {
				if res.Diagnosis == nil {
					res.Diagnosis = map[retrieval.FailureClass]int{}
				}
				res.Diagnosis[out.Diagnosis.Class]++
				tr.Diagnosis = string(out.Diagnosis.Class) + ": " + out.Diagnosis.Reason
			}
			if res.QA != nil {
				scoreAnswer(ctx, env, res.QA, p, out, &tr)
			}
			if enc != nil {
				if err := enc.Encode(tr); err != nil {
					return nil, fmt.Errorf("write probe trace: %w", err)
				}
			}
		}
		res.Cost.finish(rp.ingest, spent)
		for _, cat := range categoryOrder {
			if c := cats[cat]; c != nil {
				res.Categories = append(res.Categories, *c)
			}
		}
		rep.Results = append(rep.Results, res)
		env.Logger.Info("scored", "variant", v.Name, "probes", len(l.Probes))
		// A replay no later variant shares is freed now.
		last := true
		for _, w := range variants[slices.Index(variants, v)+1:] {
			if w.replayKey() == key {
				last = false
			}
		}
		if last {
			delete(replays, key)
		}
	}
	if c, ok := env.Embedder.(*embedCache); ok {
		rep.EmbedSeconds = c.spent.Seconds()
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

func wantMode(k ProbeKind) retrieval.Mode {
	if k == ProbeFact {
		return retrieval.ModeHistorical
	}
	return retrieval.ModeCurrent
}

// collateralCommit is a commit countCommits counted as collateral, with its class:
// "cue" (it touches a cue memory) or "turn" (between original turns only).
type collateralCommit struct {
	commitRef
	Class string
}

// countCommits sorts supersede and transition commits into intended and collateral, and
// returns the collateral ones.
func countCommits(b *LTPBank, commits []commitRef, l *LTP) []collateralCommit {
	var out []collateralCommit
	cueUnit := map[string]string{}
	for _, u := range l.Units {
		cueUnit[u.Cue1], cueUnit[u.Cue2] = u.ID+"/1", u.ID+"/2"
	}
	for _, c := range commits {
		b.Commits++
		o, n := cueUnit[c.Old], cueUnit[c.New]
		switch {
		case o != "" && n != "" && o[:len(o)-2] == n[:len(n)-2] && o[len(o)-1] == '1' && n[len(n)-1] == '2':
			b.UnitCommits++
		case o != "" || n != "":
			b.CueCollateral++
			out = append(out, collateralCommit{c, "cue"})
		default:
			b.TurnCommits++
			out = append(out, collateralCommit{c, "turn"})
		}
	}
	return out
}

// LTPCommitTrace is a collateral supersede or transition commit: a line of the JSONL trace
// (Kind "commit"), with both memories' bank entries, where an unintended state change is
// read.
type LTPCommitTrace struct {
	Variant string       `json:"variant"`
	Kind    string       `json:"kind"`
	Class   string       `json:"class"` // cue or turn (see LTPBank)
	Action  judge.Action `json:"action"`
	Old     LTPCueTrace  `json:"old"`
	New     LTPCueTrace  `json:"new"`
}

func traceCommit(ctx context.Context, mem memory, variant, profile string, c collateralCommit) (LTPCommitTrace, error) {
	ct := LTPCommitTrace{Variant: variant, Kind: "commit", Class: c.Class, Action: c.Action}
	var err error
	if ct.Old, err = cueTrace(ctx, mem, profile, c.Old); err != nil {
		return ct, err
	}
	ct.New, err = cueTrace(ctx, mem, profile, c.New)
	return ct, err
}

// cueTrace is one memory's bank entry; Status "missing" when the bank lacks it.
func cueTrace(ctx context.Context, mem memory, profile, id string) (LTPCueTrace, error) {
	r, ok, err := mem.record(ctx, profile, id)
	ct := LTPCueTrace{Memory: id, Status: "missing"}
	if err != nil || !ok {
		return ct, err
	}
	ct.Text, ct.Facts, ct.Slot, ct.Status = r.Content, factStrings(overlay.RecordFacts(r)), r.Slot, string(r.Status)
	return ct, nil
}

// LTPUnitTrace is the bank's outcome for one unit after a replay: a line of the JSONL
// trace, where a missed state change is read (which facts each cue gave, which slot it
// joined, which status it ended with).
type LTPUnitTrace struct {
	Variant  string        `json:"variant"`
	Unit     string        `json:"unit"`
	Category data.Category `json:"category"`
	Slot     string        `json:"slot"`
	// Cues are cue1 then cue2.
	Cues []LTPCueTrace `json:"cues"`
	Role bool          `json:"role"`
}

// LTPCueTrace is one cue memory's bank entry.
type LTPCueTrace struct {
	Memory string   `json:"memory"`
	Text   string   `json:"text"`
	Facts  []string `json:"facts,omitempty"`
	Slot   string   `json:"slot,omitempty"`
	Status string   `json:"status"`
}

func traceUnit(ctx context.Context, mem memory, variant string, u Unit, role bool) (LTPUnitTrace, error) {
	ut := LTPUnitTrace{Variant: variant, Unit: u.ID, Category: u.Category, Slot: u.Slot, Role: role}
	for _, id := range []string{u.Cue1, u.Cue2} {
		ct, err := cueTrace(ctx, mem, u.Profile, id)
		if err != nil {
			return ut, err
		}
		ut.Cues = append(ut.Cues, ct)
	}
	return ut, nil
}

// bankRole reads a unit's two cue memories from the bank: whether both are stored, and
// whether their statuses or links say which state holds (see LTPBank.Role).
func bankRole(ctx context.Context, mem memory, u Unit) (coexist, role bool, err error) {
	r1, ok1, err := mem.record(ctx, u.Profile, u.Cue1)
	if err != nil {
		return false, false, err
	}
	r2, ok2, err := mem.record(ctx, u.Profile, u.Cue2)
	if err != nil {
		return false, false, err
	}
	if !ok1 || !ok2 {
		return false, false, nil
	}
	superseded := r1.Status == store.StatusSuperseded && r2.Status == store.StatusActive &&
		(r1.HasLink(store.LinkSupersededBy, u.Cue2) || r1.Slot != "" && r1.Slot == r2.Slot)
	scoped := r2.Status == store.StatusActive && (r1.HasLink(store.LinkScopedException, u.Cue2) || r2.HasLink(store.LinkScopedException, u.Cue1))
	return true, superseded || scoped, nil
}

// scoreProbe reads the packet against the probe's unit; cues holds every cue's event id.
func scoreProbe(p Probe, u Unit, out queryOutput, cues map[string]bool) ProbeTrace {
	tr := ProbeTrace{Probe: p.ID, Kind: p.Kind, Category: p.Category, Question: p.Question, Gold: p.Gold, Other: p.Other, Mode: out.Packet.Mode}
	target, other := u.Cue1, u.Cue2
	if p.Target == StateCurrent {
		target, other = u.Cue2, u.Cue1
	}
	rankT, rankO := -1, -1
	for i, r := range out.Packet.Rows {
		row := TraceRow{Rank: i + 1, Memory: out.MemIDs[i], Status: string(r.Status), Content: r.Content}
		if out.Packet.Marked {
			row.Label = string(r.Label)
		}
		tp := out.Transition[i]
		switch {
		case out.MemIDs[i] == target:
			row.Role = "target"
			if rankT < 0 {
				rankT = i
			}
			tr.Support = true
		case out.MemIDs[i] == other:
			row.Role = "other"
			if rankO < 0 {
				rankO = i
			}
			if p.Target == StateCurrent && out.Packet.Marked && r.Label == retrieval.LabelCurrent {
				tr.StaleLeakage = true
			}
		case tp == [2]string{u.Cue1, u.Cue2}:
			row.Role = "transition"
			if holdsKey(r.Content, p.Gold) {
				tr.Support = true
			}
		case out.MemIDs[i] == "":
			row.Role = "record"
		case cues[out.MemIDs[i]]:
			row.Role = "cue"
		default:
			row.Role = "turn"
		}
		tr.Rows = append(tr.Rows, row)
	}
	tr.StateFirst = rankT >= 0 && (rankO < 0 || rankT < rankO)
	otherFirst := rankO >= 0 && (rankT < 0 || rankO < rankT)
	if p.Target == StateCurrent {
		tr.StaleLeakage = tr.StaleLeakage || otherFirst
	} else {
		tr.FutureIntrusion = otherFirst
	}
	return tr
}

// scoreAnswer scores the answer of a probe and asks the grader.
func scoreAnswer(ctx context.Context, env Env, qa *LTPQA, p Probe, out queryOutput, tr *ProbeTrace) {
	tr.Answer, tr.AnswerError = out.Answer, out.AnswerErr
	if out.AnswerErr != "" {
		qa.Errors++
		return
	}
	ok := holdsKey(out.Answer, p.Gold)
	tr.Correct = &ok
	qa.Accuracy.Add(ok)
	if p.Kind == ProbeConflict {
		qa.Conflict.Add(ok)
	} else {
		qa.Fact.Add(ok)
	}
	g, err := grade(ctx, env.LLM, p.Question, p.Gold, out.Answer)
	if err != nil {
		qa.Errors++
		tr.AnswerError = err.Error()
		return
	}
	tr.Judge = &g
	qa.Judge.Add(g)
}
