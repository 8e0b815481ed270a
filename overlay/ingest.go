package overlay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/internal/words"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/rule"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry/gate"
)

// IngestTrace records what the commit path did with one memory.
type IngestTrace struct {
	ID string `json:"id"`
	// Repeat: the memory's idempotency key (Input.IdempotencyKey) committed before; this
	// is that commit's trace, and nothing was written now.
	Repeat   bool         `json:"repeat,omitempty"`
	Created  time.Time    `json:"created"`
	User     string       `json:"user"`
	RecordID string       `json:"record_id"`
	Content  string       `json:"content"`
	Status   store.Status `json:"status"`
	// Facts are what Config.Facts read from the memory, FactSource who read them
	// ("offline" or the model) and FactNote why there are none or why a fallback
	// happened; Slot is the version group the memory joined (the key of its first fact
	// whose slot a candidate has, else of its first fact).
	Facts      []facts.Fact     `json:"facts,omitempty"`
	FactSource string           `json:"fact_source,omitempty"`
	FactNote   string           `json:"fact_note,omitempty"`
	Slot       string           `json:"slot,omitempty"`
	Candidates []CandidateTrace `json:"candidates"`
	Commits    []CommitTrace    `json:"commits"`
	Timings    Timings          `json:"timings"`
}

// CandidateTrace is one audited (or not) candidate of an ingest.
type CandidateTrace struct {
	ID      string       `json:"id"`
	Content string       `json:"content"`
	Status  store.Status `json:"status"`
	// From is "seed" (a host hit, Rank is its place), "linked" (linked to a seed) or
	// "slot" (the current version of a seed's slot).
	From string `json:"from"`
	Rank int    `json:"rank,omitempty"`
	// Gate scores; Routed says whether the pair went to the Judge.
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Gap    float64 `json:"gap"`
	Routed bool    `json:"routed"`
	Gated  bool    `json:"gated"` // false: no heads, every pair routed
	// Cue is the lexical cue that routed a topically close pair the logic head passed
	// (a changed number, a negation, a scope or update word); empty otherwise.
	Cue string `json:"cue,omitempty"`
	// Skip says why a pair was not compared at all when version groups follow facts
	// (a memory that states no fact, another subject).
	Skip string `json:"skip,omitempty"`
	// Named is the fact a candidate that stated none gets from the new memory, which
	// names the value it held: "so me and Tomás broke up" of "been seeing someone
	// called Tomás" (namedVersions). The commit stores it with the candidate.
	Named   *facts.Fact    `json:"named,omitempty"`
	Verdict *judge.Verdict `json:"verdict,omitempty"`
	// Auditor is who gave the verdict ("rule" or the model); Fallback why the rule
	// auditor answered instead of the model.
	Auditor  string `json:"auditor,omitempty"`
	Fallback string `json:"fallback,omitempty"`
	Error    string `json:"error,omitempty"`
}

// CommitTrace is one change the commit made.
type CommitTrace struct {
	Action judge.Action `json:"action"`
	Old    string       `json:"old"`
	New    string       `json:"new"`
	// Transition is the transition record's id, for the transition action.
	Transition string `json:"transition,omitempty"`
	Slot       string `json:"slot,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Timings of one ingest.
type Timings struct {
	Embed   time.Duration `json:"embed_ns"`
	Seeds   time.Duration `json:"seeds_ns"`
	Facts   time.Duration `json:"facts_ns"`
	Gate    time.Duration `json:"gate_ns"`
	Judge   time.Duration `json:"judge_ns"`
	Commit  time.Duration `json:"commit_ns"`
	Routed  int           `json:"routed"`
	Audited int           `json:"audited"`
}

// repeated is the answer to a memory whose idempotency key committed before: the first
// commit's stored trace, marked Repeat, or — when that trace was never kept (a crash
// between commit and trace) — one made from the record as it stands.
func (o *Overlay) repeated(ctx context.Context, user string, rec store.Record, traceID string) *IngestTrace {
	if o.cfg.Traces != nil {
		if kind, raw, err := o.cfg.Traces.Trace(ctx, user, traceID); err == nil && kind == "ingest" {
			var tr IngestTrace
			if json.Unmarshal(raw, &tr) == nil {
				tr.Repeat = true
				return &tr
			}
		}
	}
	return &IngestTrace{ID: traceID, Created: rec.IngestTime, User: user, RecordID: rec.ID, Content: rec.Content, Status: rec.Status, Slot: rec.Slot,
		Repeat: true, FactNote: "committed before under this idempotency key; its trace was not kept"}
}

// ingest runs the commit path for one memory: e holds its embedding, its projection by
// the heads (zero without heads) and, with Config.Facts, its facts.
func (o *Overlay) ingest(ctx context.Context, user string, in Input, e embedded) (*IngestTrace, error) {
	vec, proj := e.vec, e.proj
	now := o.cfg.Now()
	rec := store.Record{
		ID:         store.NewID(now),
		User:       user,
		Content:    in.Content,
		EventTime:  in.EventTime,
		SourcePos:  in.SourcePos,
		Status:     store.StatusActive,
		Confidence: 1,
		Source:     in.Source,
		Meta:       in.Meta,
	}
	if rec.EventTime.IsZero() {
		rec.EventTime = now
	}
	rec.Embeddings.Backbone = vec
	rec.Embeddings.Topic, rec.Embeddings.Logic = proj.Top, proj.Log
	tr := &IngestTrace{ID: store.NewID(now), Created: now.UTC(), User: user, RecordID: rec.ID, Content: rec.Content}
	if in.IdempotencyKey != "" {
		rec.ID, tr.ID = idempotentIDs(user, in.IdempotencyKey)
		tr.RecordID = rec.ID
		// Add holds the user's lock: nothing commits this id between the look and the commit.
		if old, err := o.cfg.Store.Get(ctx, user, rec.ID); err == nil {
			return o.repeated(ctx, user, old, tr.ID), nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}

	t0 := time.Now()
	cands, err := o.candidates(ctx, user, in.Content, vec, tr)
	if err != nil {
		return nil, err
	}
	tr.Timings.Seeds = time.Since(t0)

	var fs []facts.Fact
	var candFacts [][]facts.Fact // cands' facts, decoded once (decodeFacts)
	slotValue := ""              // the value of rec's slot, for the extractor (noteSlot)
	if o.cfg.Facts != nil {
		t0 = time.Now()
		res := e.facts
		tr.Facts, tr.FactSource, tr.FactNote = res.Facts, res.Source, res.Why
		fs = o.certain(res.Facts)
		if n := len(res.Facts) - len(fs); n > 0 {
			note := fmt.Sprintf("%d of %d facts below confidence %.2f: not used for version groups", n, len(res.Facts), o.cfg.FactMin)
			tr.FactNote = strings.TrimPrefix(tr.FactNote+"; "+note, "; ")
		}
		if a, b, ok := contradiction(fs); ok {
			// "I live in Porto. I live in Lisbon.": one memory states two values of one
			// single-valued slot. Marking it unknown cost the corpus's dev split 0.04 of
			// bank accuracy (the offline extractor often reads a second, wrong value from
			// another clause), so the Judge compares both facts and the trace says so.
			note := fmt.Sprintf("two values of %s in one memory (%q and %q): the Judge compares both with the slot's versions", a.Slot(), a.Value, b.Value)
			tr.FactNote = strings.TrimPrefix(tr.FactNote+"; "+note, "; ")
		}
		if len(fs) > 0 {
			candFacts = decodeFacts(candFacts, cands)
			fs = joinValueGroups(fs, cands, candFacts)
			if fs, err = o.adoptSlots(ctx, user, rec.Content, fs, cands, candFacts, proj); err != nil {
				return nil, err
			}
			f := primaryFact(fs, cands, candFacts)
			// Each group is one value's time line: a single-valued slot's, or one value's
			// of a multi-valued attribute (facts.Fact.Group).
			rec.Slot, rec.SingleValued = f.Group(), true
			if !f.Negated {
				slotValue = f.Value
			}
			said := rec.EventTime // when the memory was said
			if !f.EventTime.IsZero() {
				// "Back in March I …": the version group orders by when it became true.
				rec.EventTime = f.EventTime
			}
			if rec.Meta, err = withFacts(rec.Meta, fs); err != nil {
				return nil, err
			}
			setValue(rec.Meta, f)
			tr.Slot = rec.Slot
			if cands, err = o.withSlot(ctx, user, rec.Slot, cands, tr); err != nil {
				return nil, err
			}
			if !f.EventTime.IsZero() {
				if t, c, ok := saidSince(rec, f.Value, said, cands); ok {
					rec.EventTime = t
					note := fmt.Sprintf("the stated time %s is before %.60q, said since without a time: this later report of a state that still holds is placed after it", f.EventTime.Format(time.DateOnly), c.Content)
					tr.FactNote = strings.TrimPrefix(tr.FactNote+"; "+note, "; ")
				}
			}
		}
		tr.Timings.Facts = e.factsTook + time.Since(t0)
	}

	// The candidates' facts, decoded once for the named versions, the gate and the Judge
	// (those the record's slot added, now).
	candFacts = decodeFacts(candFacts, cands)
	if len(fs) > 0 {
		for i, f := range namedVersions(fs, cands, candFacts) {
			c := &cands[i]
			if c.Meta, err = withFacts(maps.Clone(c.Meta), []facts.Fact{f}); err != nil {
				return nil, err
			}
			setValue(c.Meta, f)
			c.Slot, c.SingleValued = f.Group(), true
			candFacts[i], tr.Candidates[i].Named = []facts.Fact{f}, &f
		}
	}

	t0 = time.Now()
	_, rules := o.cfg.Auditor.(*rule.Auditor)
	for i := range tr.Candidates {
		ct := &tr.Candidates[i]
		c := cands[i]
		if o.cfg.Facts != nil {
			cf := candFacts[i]
			switch skip := factSkip(fs, cf); {
			case skip != "":
				ct.Skip = skip
				continue
			case sharesSlot(fs, cf):
				// The memory's own version group: always audited, the gate has no say.
				ct.Routed = true
				continue
			case rules:
				// The rule auditor judges facts of one slot; a near group of the same
				// subject (another key for the same state) needs a model to merge it.
				ct.Skip = "another slot of the same subject (the rule auditor compares one slot's facts)"
				continue
			}
		}
		if o.cfg.Heads == nil || len(c.Embeddings.Backbone) == 0 {
			ct.Routed = true
			continue
		}
		cp := gate.Projection{Top: c.Embeddings.Topic, Log: c.Embeddings.Logic}
		if len(cp.Top) == 0 || len(cp.Top) != len(proj.Top) {
			cp.Top, cp.Log = o.cfg.Heads.Project(c.Embeddings.Backbone)
		}
		d := o.gate.Score(cp, proj)
		ct.A, ct.B, ct.Gap, ct.Routed, ct.Gated = d.A, d.B, d.Gap, d.Route, true
		if !o.cfg.NoCues {
			ct.Routed, ct.Cue = RouteByCue(d, o.cfg.Thresholds.Top, c.Content, in.Content)
		}
	}
	tr.Timings.Gate = time.Since(t0)

	t0 = time.Now()
	verdicts := make([]*judge.Verdict, len(cands))
	for i := range tr.Candidates {
		ct := &tr.Candidates[i]
		if !ct.Routed {
			continue
		}
		tr.Timings.Routed++
		pair := judge.Pair{
			Old: judge.Record{ID: cands[i].ID, Text: cands[i].Content, Slot: cands[i].Slot, Time: cands[i].Time(), Facts: candFacts[i]},
			New: judge.Record{ID: rec.ID, Text: rec.Content, Slot: rec.Slot, Time: rec.EventTime, Facts: fs},
		}
		if ct.Gated {
			pair.Scores = &judge.Scores{A: ct.A, B: ct.B, Gap: ct.Gap}
		}
		res, err := o.cfg.Auditor.Audit(ctx, pair)
		if err != nil && ctx.Err() == nil {
			// The LLM judge failed in a way it does not cover itself (a wrong model name, a
			// refused API key): the rule auditor answers, and the trace says why.
			o.cfg.Logger.Warn("judge failed; the rule auditor answers", "user", user, "old", cands[i].ID, "err", err)
			ct.Error = err.Error()
			res, err = o.rules.Audit(ctx, pair)
			res.Fallback = "judge error: " + ct.Error
		}
		if err != nil {
			return nil, fmt.Errorf("audit against %s: %w", cands[i].ID, err)
		}
		tr.Timings.Audited++
		v := res.Verdict
		verdicts[i], ct.Verdict, ct.Auditor, ct.Fallback = &v, &v, res.Source, res.Fallback
	}
	tr.Timings.Judge = time.Since(t0)

	t0 = time.Now()
	mem := host.Memory{ID: rec.ID, Content: rec.Content, Vector: vec, Time: rec.EventTime}
	newest, err := o.commitWithHost(ctx, user, &rec, cands, verdicts, mem, tr)
	if err != nil {
		return nil, err
	}
	tr.Timings.Commit = time.Since(t0)
	tr.Status = rec.Status
	o.noteRecord(user, rec.Slot, slotValue, fs)
	o.recentSlots(user).wrote(newest)
	return tr, nil
}

// commitWithHost commits an ingest — the plan of its verdicts (commit) and its host
// memories (hostMemories) — in one store transaction. A host that is a participant of
// the store's transactions (Config.Host) writes the memories in it; a separate host
// (Config.SeparateHost) gets the new memory before the transaction, loses it again if
// the commit fails (until then a search hit without a record is skipped), and gets the
// transition records after the commit, whose failures are logged: the bank is the
// truth, and a transition record the host lacks is still found through its links. It
// returns the id of the newest record the commit wrote.
func (o *Overlay) commitWithHost(ctx context.Context, user string, rec *store.Record, cands []store.Record, verdicts []*judge.Verdict, mem host.Memory, tr *IngestTrace) (string, error) {
	if o.inTx == nil {
		if err := o.host.Add(ctx, user, mem); err != nil {
			return "", fmt.Errorf("add to host memory: %w", err)
		}
	}
	var (
		apply  func()
		ms     []host.Memory
		newest string
	)
	err := o.cfg.Store.Tx(ctx, user, func(tx store.Tx) error {
		tr.Commits = tr.Commits[:0]
		transitions, err := o.commit(ctx, tx, rec, cands, verdicts, tr)
		if err != nil {
			return err
		}
		ms = hostMemories(mem, transitions, tx.Now())
		newest = rec.ID
		for _, t := range transitions {
			newest = max(newest, t.ID)
		}
		if o.inTx == nil {
			return nil
		}
		if apply, err = o.inTx.AddIn(ctx, tx, user, ms); err != nil {
			return fmt.Errorf("add to host memory: %w", err)
		}
		return nil
	})
	if err != nil {
		if o.inTx == nil {
			if herr := o.host.Delete(context.WithoutCancel(ctx), user, rec.ID); herr != nil {
				o.cfg.Logger.Warn("remove host memory of a failed commit", "id", rec.ID, "err", herr)
			}
		}
		return "", fmt.Errorf("commit: %w", err)
	}
	if o.inTx != nil {
		apply()
		return newest, nil
	}
	for _, m := range ms[1:] {
		if err := o.host.Add(ctx, user, m); err != nil {
			o.cfg.Logger.Warn("index transition record", "id", m.ID, "err", err)
		}
	}
	return newest, nil
}

// RouteByCue is how the overlay routes a gated pair (unless Config.NoCues): as the gate
// does (d.Route), and also when the topic score passes τ_top (top) and the new text has
// a change cue the old one lacks (rule.ChangeCue: a sentence encoder barely moves when
// only a number or a qualifier changes). It returns that cue, "" when the gate routed the
// pair or nothing did.
func RouteByCue(d gate.Decision, top float64, before, after string) (bool, string) {
	if d.Route || d.A <= top {
		return d.Route, ""
	}
	cue := rule.ChangeCue(before, after)
	return cue != "", cue
}

// pastState marks a clause that tells a state as ended ("back in 2024 I lived in Faro",
// "I used to work there"), not one that holds when it is said.
var pastState = regexp.MustCompile(`(?i)\b(used to|lived|was living|were living|worked|was working|had|was|were|back then|at the time|until|till)\b`)

// valueClause is the clause of content that names value, or content when none does
// alone: "I was wrong the other day" tells no past state of "I moved my pension to
// PensionBee back in January".
func valueClause(content, value string) string {
	low := strings.ToLower(value)
	var found string
	for _, s := range clauseSplit.Split(content, -1) {
		if low != "" && strings.Contains(strings.ToLower(s), low) {
			if found != "" {
				return content
			}
			found = s
		}
	}
	return cmp.Or(found, content)
}

// clauseSplit cuts text at sentence punctuation and commas.
var clauseSplit = regexp.MustCompile(`[.!?;,]+\s+`)

// saidSince places a memory that states when its state began (rec.EventTime, from its
// fact) and was said at said. A version of its group that was said before it, after that
// time, without a time of its own, held when it was said and is older information: "I
// live in Paris." and a day later "we moved to Lyon last month" leave Lyon current,
// though the move is dated before the first sentence. So, unless the clause that names
// its value tells its state as ended (pastState: "back in 2024 I lived in Faro" is
// history; "I was wrong the other day" beside it is not), the record is
// placed just after the latest such version; saidSince returns that time and version.
// A version with a stated time of its own is ordered by it, as before.
func saidSince(rec store.Record, value string, said time.Time, cands []store.Record) (time.Time, store.Record, bool) {
	if pastState.MatchString(valueClause(rec.Content, value)) {
		return time.Time{}, store.Record{}, false
	}
	var last store.Record
	found := false
	for _, c := range cands {
		t := c.Time()
		if c.Slot != rec.Slot || c.Status == store.StatusTransition || !t.After(rec.EventTime) || t.After(said) {
			continue
		}
		if slices.ContainsFunc(RecordFacts(c), func(f facts.Fact) bool { return f.Group() == c.Slot && !f.EventTime.IsZero() }) {
			continue // its own stated time orders it
		}
		if !found || t.After(last.Time()) {
			last, found = c, true
		}
	}
	if !found {
		return time.Time{}, store.Record{}, false
	}
	return last.Time().Add(time.Millisecond), last, true
}

// hostMemories are what an ingest adds to the host memory: the new memory, then the
// transition records its commit wrote (as planned, not read back; one put without a
// time takes the transaction's, now), which are searchable by text ("job: nurse ->
// pharmacist") so that a query naming the slot finds the change and, through its
// links, both states.
func hostMemories(mem host.Memory, transitions []store.Record, now time.Time) []host.Memory {
	ms := []host.Memory{mem}
	for _, t := range transitions {
		at := t.Time()
		if at.IsZero() {
			at = now
		}
		ms = append(ms, host.Memory{ID: t.ID, Content: t.Content, Time: at})
	}
	return ms
}

// candidateFactor × Config.Candidates is both how many seeds an ingest asks the host for
// and how many candidates it audits at most.
const candidateFactor = 2

// candidates are the host's seeds for the new text plus the current versions of their
// slots and the records linked to them; only records that may hold now (not superseded,
// not transition summaries) are audited. A stale seed still leads to its slot's current
// version, so a memory is compared with the state as it stands, not with an old copy.
// There are at most twice cfg.Candidates: a long-lived user's seeds can carry dozens of
// links and slots dozens of current members (scoped exceptions), and every candidate
// may cost a Judge call; the slots' newest members come before the links.
func (o *Overlay) candidates(ctx context.Context, user, text string, vec []float32, tr *IngestTrace) ([]store.Record, error) {
	// Ask for more seeds than candidates: transition records and history take places.
	seeds, err := o.host.Search(ctx, user, text, vec, candidateFactor*o.cfg.Candidates)
	if err != nil {
		return nil, fmt.Errorf("host seeds: %w", err)
	}
	var out []store.Record
	seen := map[string]bool{}
	limit := candidateFactor * o.cfg.Candidates
	add := func(r store.Record, from string, rank int) {
		// History is not audited again, and transition records are the overlay's own
		// summaries of a change, not something the user said.
		if seen[r.ID] || r.Status == store.StatusSuperseded || r.Status == store.StatusTransition || len(out) == limit {
			return
		}
		seen[r.ID] = true
		out = append(out, r)
		tr.Candidates = append(tr.Candidates, CandidateTrace{ID: r.ID, Content: r.Content, Status: r.Status, From: from, Rank: rank})
	}
	ids := make([]string, len(seeds))
	for i, s := range seeds {
		ids[i] = s.ID
	}
	recs, err := o.cfg.Store.GetMany(ctx, user, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]store.Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	var linked, slots []string
	taken := 0
	for i, s := range seeds {
		if taken == o.cfg.Candidates {
			break
		}
		r, ok := byID[s.ID]
		if !ok {
			continue // the host knew a record the bank has since deleted
		}
		// A transition record does not use up a place: it leads to both states.
		if r.Status != store.StatusTransition {
			taken++
		}
		add(r, "seed", i+1)
		for _, l := range r.Links {
			if !seen[l.To] {
				linked = append(linked, l.To)
			}
		}
		if r.Status == store.StatusSuperseded && r.Slot != "" && !slices.Contains(slots, r.Slot) {
			slots = append(slots, r.Slot)
		}
	}
	for _, slot := range slots {
		cur, err := o.slotMembers(ctx, user, slot)
		if err != nil {
			return nil, err
		}
		for _, r := range slices.Backward(cur) { // newest first
			add(r, "slot", 0)
		}
	}
	if len(out) < limit {
		more, err := o.cfg.Store.GetMany(ctx, user, linked)
		if err != nil {
			return nil, err
		}
		for _, r := range more {
			add(r, "linked", 0)
		}
	}
	return out, nil
}

// commit plans what the verdicts change (planCommit) and writes the plan in tx. It
// returns the transition records it wrote, in the order of their commits.
func (o *Overlay) commit(ctx context.Context, tx store.Tx, rec *store.Record, cands []store.Record, verdicts []*judge.Verdict, tr *IngestTrace) ([]store.Record, error) {
	for i, ct := range tr.Candidates {
		if ct.Named == nil || o.cfg.NoCommit {
			continue
		}
		// A candidate named by the new memory stores the fact it got (namedVersions).
		r, err := tx.Get(ctx, cands[i].ID)
		if err != nil {
			return nil, err
		}
		r.Meta, r.Slot, r.SingleValued = cands[i].Meta, cands[i].Slot, cands[i].SingleValued
		if err := tx.Put(ctx, r); err != nil {
			return nil, fmt.Errorf("store the fact %s named: %w", cands[i].ID, err)
		}
	}
	groups, err := planGroups(ctx, tx, *rec, cands, verdicts)
	if err != nil {
		return nil, err
	}
	pl := planCommit(planInput{Record: *rec, Candidates: cands, Verdicts: verdicts, Groups: groups,
		Facts: o.cfg.Facts != nil, NoCommit: o.cfg.NoCommit, NewID: func() string { return store.NewID(tx.Now()) }})
	if err := applyPlan(ctx, tx, pl); err != nil {
		return nil, err
	}
	tr.Commits = pl.Commits
	*rec = pl.Record
	if len(pl.Moves) > 0 || len(pl.Transitions) > 0 || len(pl.Reconcile) > 0 {
		// The reconciliation of a version group sets its members' statuses.
		if r, err := tx.Get(ctx, rec.ID); err == nil {
			rec.Status = r.Status
		}
	} else if rec.Status == "" {
		rec.Status = store.StatusActive // as Put stores it
	}
	transitions := make([]store.Record, len(pl.Transitions))
	for i, t := range pl.Transitions {
		transitions[i] = t.Record
	}
	return transitions, nil
}

// planGroups reads the version groups a plan may merge or reconcile: the new record's
// slot's and those of the candidates the Judge said to replace. Other verdicts only add
// links, and need none — but a denial reads its own slot's group, whose history tells
// whether it denies the current value or an earlier one (planner.pastDenial).
func planGroups(ctx context.Context, tx store.Tx, rec store.Record, cands []store.Record, verdicts []*judge.Verdict) (map[string][]store.Record, error) {
	var slots []string
	for i, v := range verdicts {
		if v != nil && v.Status == judge.StatusConflict && (v.Action == judge.ActionSupersede || v.Action == judge.ActionTransition) {
			slots = append(slots, cands[i].Slot)
		}
	}
	if f, ok := slotFact(rec); len(slots) == 0 && !(ok && f.Negated && rec.SingleValued) {
		return nil, nil
	}
	slots = append(slots, rec.Slot)
	groups := map[string][]store.Record{}
	for _, slot := range slots {
		if _, ok := groups[slot]; ok || slot == "" {
			continue
		}
		g, err := store.StateGroup(ctx, tx, slot)
		if err != nil {
			return nil, fmt.Errorf("read version group %q: %w", slot, err)
		}
		groups[slot] = g
	}
	return groups, nil
}

// MetaFacts is the record metadata key that holds the facts Config.Facts read from it,
// as a JSON array of facts.Fact.
const MetaFacts = "facts"

// withFacts returns a copy of meta that holds fs under MetaFacts.
func withFacts(meta map[string]string, fs []facts.Fact) (map[string]string, error) {
	b, err := json.Marshal(fs)
	if err != nil {
		return nil, fmt.Errorf("encode facts: %w", err)
	}
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]string{}
	}
	meta[MetaFacts] = string(b)
	return meta, nil
}

// certain returns the facts of fs sure enough to put a memory in a version group
// (Config.FactMin), in a new slice.
func (o *Overlay) certain(fs []facts.Fact) []facts.Fact {
	return slices.DeleteFunc(slices.Clone(fs), func(f facts.Fact) bool { return !f.Certain(o.cfg.FactMin) })
}

// setValue writes into meta (withFacts's copy) the value f states in its version group
// (store.MetaValue), by which the group's time line tells a restatement: none for a
// denial or a scoped fact, which restate nothing plainly.
func setValue(meta map[string]string, f facts.Fact) {
	delete(meta, store.MetaValue)
	if k := facts.ValueKey(f.Value); k != "" && !f.Negated && f.Scope == "" {
		meta[store.MetaValue] = k
	}
}

// RecordFacts returns the facts stored with a record (none when it has none or they do
// not decode).
func RecordFacts(r store.Record) []facts.Fact {
	s := r.Meta[MetaFacts]
	if s == "" {
		return nil
	}
	var fs []facts.Fact
	if json.Unmarshal([]byte(s), &fs) != nil {
		return nil
	}
	return fs
}

// extract reads the facts of a chunk of one user's memories in one call, shown the
// user's recent slot keys so that the extractor reuses them, and given their backbone
// vectors (vecs) so that it does not embed them again. An extractor failure stores
// the memories without facts (the traces say why) rather than losing them.
func (o *Overlay) extract(ctx context.Context, user string, inputs []Input, vecs [][]float32) ([]facts.Result, error) {
	recent := o.recentSlots(user)
	slots, values, ended := recent.list(), recent.values(), recent.endedValues()
	in := make([]facts.Input, len(inputs))
	for i, x := range inputs {
		at := x.EventTime
		if at.IsZero() {
			at = o.cfg.Now()
		}
		in[i] = facts.Input{Text: x.Content, Time: at, Slots: slots, Values: values, Ended: ended, Vector: vecs[i]}
	}
	// Whom the last memory's pronouns referred to carries over to this chunk.
	in[0].Referent = recent.referent()
	rs, err := o.cfg.Facts.Extract(ctx, in)
	why := ""
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		o.cfg.Logger.Warn("fact extraction failed; the memories are stored without facts", "user", user, "err", err)
		why = "extraction failed: " + err.Error()
	case len(rs) != len(in):
		why = fmt.Sprintf("the extractor returned %d results for %d memories", len(rs), len(in))
	default:
		recent.setReferent(rs[len(rs)-1].Referent)
		return rs, nil
	}
	out := make([]facts.Result, len(in))
	for i := range out {
		out[i].Why = why
	}
	return out, nil
}

// noteRecord records a committed record for the extractor: its facts (noteFacts), then
// its slot and the value it states there (noteSlot).
func (o *Overlay) noteRecord(user, slot, value string, fs []facts.Fact) {
	o.noteFacts(user, fs)
	o.noteSlot(user, slot, value)
}

// noteFacts records the slots and values of a committed record's facts for the
// extractor, beside its own slot (noteSlot): "icloud 2tb, its 8.99 now" has a price the
// next memory may correct ("9.99 not 8.99") though its slot is the subscription's.
func (o *Overlay) noteFacts(user string, fs []facts.Fact) {
	if o.cfg.Facts == nil {
		return
	}
	r := o.recentSlots(user)
	for _, f := range fs {
		if f.Negated {
			r.end(f.Slot(), f.Value)
			continue
		}
		r.add(f.Slot(), f.Value)
	}
}

// noteSlot records a committed record's slot key (subject/attribute, without the value
// of a multi-valued attribute's group) and the value it states, if any, for the
// extractor.
func (o *Overlay) noteSlot(user, slot, value string) {
	subj, attr, ok := strings.Cut(slot, "/")
	if o.cfg.Facts == nil || !ok {
		return
	}
	attr, _, _ = strings.Cut(attr, "/")
	o.recentSlots(user).add(subj+"/"+attr, value)
}

// recentSlots keeps a user's most recent slot keys (at most maxRecentSlots) and their
// latest values (at most maxRecentValues each), which the fact extractor is shown, and
// whom the user's last memory referred to. It is safe for concurrent use.
type recentSlots struct {
	mu     sync.Mutex
	keys   []string            // oldest first
	vals   map[string][]string // by key, newest first
	ended  map[string][]string // values said to have ended, by key, newest first
	ref    string              // the last extraction's facts.Result.Referent
	seeded bool                // read from the bank (seedSlots)
	// last is the id of the user's newest record in the bank as this process last saw
	// it: read by seedSlots or written by its own commits.
	last string
}

// wrote notes that this process committed the user's record id.
func (r *recentSlots) wrote(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = max(r.last, id)
}

func (r *recentSlots) referent() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ref
}

func (r *recentSlots) setReferent(ref string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ref = ref
}

const (
	maxRecentSlots  = 64
	maxRecentValues = 4
)

// seedRecords is how many of a user's newest records seedSlots reads.
const seedRecords = 4 * maxRecentSlots

// seedSlots fills a user's recent slots from the bank: the slots and values of the
// newest records with facts, so that the extractor is shown the user's slots after a
// restart or from a one-shot command ("atma overlay add" for each memory) as it is
// within one long-running process. It reads them on a user's first Add in the process,
// after a delete, and whenever the user's newest record is not the one this process
// last saw: another process (a replica on the same PostgreSQL bank) wrote or deleted
// since, and what it committed is shown too. That check is one indexed read of one
// record a call of Add. A failure to read is logged: the memories are still stored,
// read without those slots.
func (o *Overlay) seedSlots(ctx context.Context, user string) {
	if o.cfg.Facts == nil {
		return // nothing is shown the slots: keep no entry for the user
	}
	r := o.recentSlots(user)
	r.mu.Lock()
	seeded, last := r.seeded, r.last
	r.mu.Unlock()
	if seeded {
		page, _, err := o.cfg.Store.List(ctx, user, store.Filter{Newest: true, Limit: 1})
		if err != nil {
			o.cfg.Logger.Warn("checking the user's newest record for the fact extractor failed; it is shown the slots this process knows", "user", user, "err", err)
			return
		}
		if len(page) == 0 && last == "" || len(page) > 0 && page[0].ID == last {
			return
		}
	}
	page, _, err := o.cfg.Store.List(ctx, user, store.Filter{Newest: true, Limit: seedRecords})
	if err != nil {
		o.cfg.Logger.Warn("reading the user's slots for the fact extractor failed; it is shown none", "user", user, "err", err)
		return
	}
	r.reset()
	for _, rec := range slices.Backward(page) { // oldest first: the newest end most recent
		if !factSlot(rec.Slot) {
			continue
		}
		fs := RecordFacts(rec)
		value := ""
		for _, f := range fs {
			if f.Group() == rec.Slot && !f.Negated {
				value = f.Value // the fact the record's group was made by (primaryFact)
			}
		}
		o.noteRecord(user, rec.Slot, value, fs)
	}
	if len(page) > 0 {
		r.wrote(page[0].ID)
	}
}

// reset forgets the keys and values, keeps the referent, and marks r as read from the
// bank.
func (r *recentSlots) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys, r.vals, r.ended, r.last, r.seeded = nil, nil, nil, "", true
}

// forgetSlots drops what the extractor is shown of user's slots: after a delete they
// are read from the bank again.
func (o *Overlay) forgetSlots(user string) { o.slots.Delete(user) }

func (o *Overlay) recentSlots(user string) *recentSlots {
	v, _ := o.slots.LoadOrStore(user, &recentSlots{})
	return v.(*recentSlots)
}

// add makes key the most recent, and value (unless "") its latest value.
func (r *recentSlots) add(key, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.touch(key)
	if value != "" {
		r.vals = newestFirst(r.vals, key, value)
	}
}

// end makes key the most recent, and value one its slot held and no longer holds.
func (r *recentSlots) end(key, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.touch(key)
	r.ended = newestFirst(r.ended, key, value)
}

// touch makes key the most recent, forgetting the oldest beyond maxRecentSlots (r.mu
// held).
func (r *recentSlots) touch(key string) {
	r.keys = slices.DeleteFunc(r.keys, func(k string) bool { return k == key })
	r.keys = append(r.keys, key)
	if len(r.keys) > maxRecentSlots {
		for _, k := range r.keys[:len(r.keys)-maxRecentSlots] {
			delete(r.vals, k)
			delete(r.ended, k)
		}
		r.keys = r.keys[len(r.keys)-maxRecentSlots:]
	}
}

// newestFirst puts value first among m's values of key (at most maxRecentValues),
// making m when nil.
func newestFirst(m map[string][]string, key, value string) map[string][]string {
	if m == nil {
		m = map[string][]string{}
	}
	vs := slices.DeleteFunc(m[key], func(v string) bool { return strings.EqualFold(v, value) })
	vs = append([]string{value}, vs...)
	m[key] = vs[:min(len(vs), maxRecentValues)]
	return m
}

// values returns a copy of the keys' values.
func (r *recentSlots) values() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return cloneValues(r.vals)
}

// endedValues returns a copy of the keys' ended values.
func (r *recentSlots) endedValues() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return cloneValues(r.ended)
}

func cloneValues(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// list returns the keys, newest first.
func (r *recentSlots) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.keys)
	slices.Reverse(out)
	return out
}

// slotMembers reads a slot's current members (active or unknown) in version order, in
// one read: its history can run to thousands.
func (o *Overlay) slotMembers(ctx context.Context, user, slot string) ([]store.Record, error) {
	cur, _, err := o.cfg.Store.List(ctx, user, store.Filter{Slot: slot, MayHold: true, Limit: store.MaxListLimit})
	if err != nil {
		return nil, err
	}
	store.SortVersions(cur)
	return cur, nil
}

// withSlot adds the current members of the new memory's slot to its candidates: its own
// version group is compared whether the host found it or not (an index read, never a
// scan). At most cfg.Candidates of them, newest first.
func (o *Overlay) withSlot(ctx context.Context, user, slot string, cands []store.Record, tr *IngestTrace) ([]store.Record, error) {
	cur, err := o.slotMembers(ctx, user, slot)
	if err != nil {
		return nil, err
	}
	added := 0
	for _, r := range slices.Backward(cur) {
		if added == o.cfg.Candidates {
			break
		}
		if slices.ContainsFunc(cands, func(c store.Record) bool { return c.ID == r.ID }) {
			continue
		}
		cands = append(cands, r)
		tr.Candidates = append(tr.Candidates, CandidateTrace{ID: r.ID, Content: r.Content, Status: r.Status, From: "slot"})
		added++
	}
	return cands, nil
}

// adoptSlots gives a fact whose slot the user does not have yet the key of a candidate's
// slot of the same subject when Sentry's topic head puts the two memories on one topic
// (a > Config.AdoptTop): the extractor named the attribute differently ("gym" and
// "gym-fee", "home" and "lodging"), and the version group is what matters. Only a fact
// read by meaning (Confidence > 0) is renamed: one read from the clause's form ("my
// brother lives in Albuquerque") has its attribute for certain, however close the topic
// head puts it to another of the subject's memories ("my brother and Seraphina have been
// together"). Without heads facts keep their keys.
func (o *Overlay) adoptSlots(ctx context.Context, user, text string, fs []facts.Fact, cands []store.Record, candFacts [][]facts.Fact, proj gate.Projection) ([]facts.Fact, error) {
	out := slices.Clone(fs)
	for i, f := range out {
		if !facts.SingleValued(f.Attribute) || facts.NamesItsOwner(f.Attribute) || slices.ContainsFunc(cands, func(c store.Record) bool { return c.Slot == f.Group() }) {
			continue
		}
		if facts.PricesService(f, fs) {
			continue // "wifi is virgin, £30 a month": the broadband's price, not the rent of the memory before
		}
		if a := namedIn(f, cands, candFacts); a != "" {
			// "bumped the 401k to 6%" after "checked the 401k portal: I'm at 4%" (rate):
			// the earlier memory names the thing, its fact has it under another word.
			if has, err := o.hasSlot(ctx, user, f.Group()); err != nil {
				return nil, err
			} else if !has {
				out[i].Attribute = a
				continue
			}
		}
		if a := sameThingAmount(f, text, cands, candFacts); a != "" {
			out[i].Attribute = a
			continue
		}
		if o.cfg.Heads == nil || len(proj.Top) == 0 {
			continue
		}
		if f.Confidence == 0 {
			// A fact read from the clause's form ("lives in Albuquerque") has its
			// attribute for certain, not its name: "switched the insurance to Battleface"
			// (insurance-provider) after "travel insurance is with Staysure" joins that
			// slot by their shared words. Only a fact read by meaning may join a slot by
			// the topic alone, and none whose attribute names its owner
			// ("amlodipine-dose" is never levothyroxine's).
			if a, err := o.namedAlike(ctx, user, f, cands); err != nil {
				return nil, err
			} else if a != "" {
				out[i].Attribute = a
			}
			continue
		}
		has, err := o.hasSlot(ctx, user, f.Group())
		if err != nil {
			return nil, err
		}
		if has {
			continue // the user has this slot already
		}
		best, bestA := "", o.cfg.AdoptTop
		for _, c := range cands {
			subj, attr, ok := strings.Cut(c.Slot, "/")
			if !ok || strings.Contains(attr, "/") || subj != facts.Kebab(f.Subject) || len(c.Embeddings.Topic) != len(proj.Top) || facts.DistinctKinds(f.Attribute, attr) ||
				!facts.ValueFits(attr, f.Value) {
				// A distance is no home, a place no partner, a price or a ticket no
				// expiry date, however near the topic.
				continue
			}
			if d := o.gate.Score(gate.Projection{Top: c.Embeddings.Topic, Log: c.Embeddings.Logic}, proj); d.A > bestA {
				best, bestA = attr, d.A
			}
		}
		if best != "" {
			out[i].Attribute = best
		}
	}
	return out, nil
}

// sameThingAmount returns the attribute of the one candidate amount slot of f's subject
// whose memory names the same thing as text (facts.NameOneThing), when f is an amount
// read by meaning; else "". The attribute of an amount read by meaning is a guess among
// near words ("sonic promo ended, $65/mo from this bill" a bill, "sonic fiber finally
// reached our street. 1 gig for $50" a price), while a word of their own that both
// memories hold says which earlier amount changed.
func sameThingAmount(f facts.Fact, text string, cands []store.Record, candFacts [][]facts.Fact) string {
	if f.Confidence == 0 || !facts.HoldsAmounts(f.Attribute) {
		return ""
	}
	return amountSlotNaming(f, cands, candFacts, func(c store.Record, attr string) bool {
		return !facts.NamesItsOwner(attr) && facts.NameOneThing(text, c.Content, facts.Kebab(f.Subject))
	})
}

// namedIn returns the attribute of the one candidate amount slot of f's subject whose
// memory names f's attribute in its own words ("rent paid. 1150 a month" holds a price,
// and names the rent); else "". Only amounts: an amount's attribute is read by meaning
// from few words, where a place or a name has its own ("moving to Leeds for a job at the
// University of Leeds" is no university).
func namedIn(f facts.Fact, cands []store.Record, candFacts [][]facts.Fact) string {
	attrWords := strings.Split(facts.Kebab(f.Attribute), "-")
	if slices.ContainsFunc(attrWords, func(w string) bool { return len(w) < 3 }) {
		return ""
	}
	return amountSlotNaming(f, cands, candFacts, func(c store.Record, _ string) bool {
		said := words.Split(c.Content)
		return !slices.ContainsFunc(attrWords, func(w string) bool { return !slices.Contains(said, w) })
	})
}

// amountSlotNaming returns the attribute of the one candidate slot of amount f's subject
// — single-valued, of another attribute that holds amounts of the same kind, an amount
// among the candidate's facts — whose memory names what f is about (names); "" when
// none or two do.
func amountSlotNaming(f facts.Fact, cands []store.Record, candFacts [][]facts.Fact, names func(c store.Record, attr string) bool) string {
	amount := func(v string) bool { return strings.ContainsFunc(v, unicode.IsDigit) }
	if !amount(f.Value) {
		return ""
	}
	found := ""
	for i, c := range cands {
		subj, attr, ok := strings.Cut(c.Slot, "/")
		if !ok || strings.Contains(attr, "/") || subj != facts.Kebab(f.Subject) || attr == facts.Kebab(f.Attribute) ||
			!facts.SingleValued(attr) || facts.DistinctKinds(f.Attribute, attr) || !facts.HoldsAmounts(attr) {
			continue
		}
		if !slices.ContainsFunc(candFacts[i], func(cf facts.Fact) bool { return cf.Group() == c.Slot && amount(cf.Value) }) || !names(c, attr) {
			continue
		}
		if found != "" && found != attr {
			return "" // two: which is meant is not said
		}
		found = attr
	}
	return found
}

// namedAlike returns the attribute of the one candidate slot of f's subject, single-valued
// and in other words about the same thing (facts.SharesTopic), that f joins when the user
// has no slot of f's own attribute yet; else "".
func (o *Overlay) namedAlike(ctx context.Context, user string, f facts.Fact, cands []store.Record) (string, error) {
	found := ""
	for _, c := range cands {
		subj, attr, ok := strings.Cut(c.Slot, "/")
		if !ok || strings.Contains(attr, "/") || subj != facts.Kebab(f.Subject) || !facts.SingleValued(attr) || !facts.SharesTopic(f.Attribute, attr) {
			continue
		}
		if found != "" && found != attr {
			return "", nil // two: which is meant is not said
		}
		found = attr
	}
	if found == "" {
		return "", nil
	}
	if has, err := o.hasSlot(ctx, user, f.Group()); err != nil || has {
		return "", err // the user has this slot already
	}
	return found, nil
}

// hasSlot reports whether the user has a record in version group slot.
func (o *Overlay) hasSlot(ctx context.Context, user, slot string) (bool, error) {
	page, _, err := o.cfg.Store.List(ctx, user, store.Filter{Slot: slot, Limit: 1})
	return len(page) > 0, err
}

// namedVersions returns, by candidate index, the facts that candidates get from the new
// memory's denials (fs) that name what they held: "so me and Tomás broke up" denies the
// partner Tomás, and "been seeing someone called Tomás" — in no version group, since the
// extractor read nothing from it — names him: it is the state the denial ends; "bex
// left?? new manager is tariq" ends "team lead is bex, shes sound, brings biscuits",
// whose only fact, read by meaning, was a diet (facts' ended names). A candidate keeps
// its group when one of its facts was read by form, or is of the denial's slot or value:
// its own facts say what ends it. Of several such candidates only the oldest, which told
// the state first, gets the fact; later ones that merely mention the value stay as they
// are, and a question ("can you move spotify playlists over to apple music?") states
// nothing.
func namedVersions(fs []facts.Fact, cands []store.Record, candFacts [][]facts.Fact) map[int]facts.Fact {
	out := map[int]facts.Fact{}
	for _, f := range fs {
		if !f.Negated || f.Scope != "" {
			continue
		}
		if slices.ContainsFunc(candFacts, func(cfs []facts.Fact) bool {
			return slices.ContainsFunc(cfs, func(cf facts.Fact) bool { return cf.Slot() == f.Slot() && facts.SameValue(cf.Value, f.Value) })
		}) {
			continue // the denial's group holds the value: the version it ends is there
		}
		oldest := -1
		for i, c := range cands {
			if _, taken := out[i]; taken || c.Status != store.StatusActive || !facts.Names(c.Content, f.Value) || facts.Asks(c.Content) {
				continue
			}
			if slices.ContainsFunc(candFacts[i], func(cf facts.Fact) bool {
				return cf.Slot() == f.Slot() || facts.SameValue(cf.Value, f.Value) || cf.Confidence == 0
			}) {
				continue // a version of a group already: its own facts say what ends it
			}
			if f.Subject != "user" && !facts.Names(c.Content, strings.ReplaceAll(f.Subject, "-", " ")) {
				continue // another's state is told by naming them: "niamh's quit pottery" is not the speaker's class
			}
			if oldest < 0 || store.CompareVersions(c, cands[oldest]) < 0 {
				oldest = i
			}
		}
		if oldest >= 0 {
			out[oldest] = facts.Fact{Subject: f.Subject, Attribute: f.Attribute, Value: f.Value, EventTime: cands[oldest].EventTime}
		}
	}
	return out
}

// joinValueGroups gives a fact of a multi-valued attribute the value of a candidate's
// group of the same slot whose value names the same thing ("paints watercolors" and
// "watercolors"), so that the two statements share that value's history. An activity
// joins the same subject's group of the same activity under another activity attribute
// too ("chess" as a hobby, then as something watched: facts.Activity).
func joinValueGroups(fs []facts.Fact, cands []store.Record, candFacts [][]facts.Fact) []facts.Fact {
	// The candidates' groups of a multi-valued attribute, each by the fact that names it
	// (candFacts: the candidates' facts, decoded).
	var groups []facts.Fact
	for i, c := range cands {
		for _, cf := range candFacts[i] {
			if c.Slot == cf.Group() && !facts.SingleValued(cf.Attribute) {
				groups = append(groups, cf)
			}
		}
	}
	out := slices.Clone(fs)
	for i, f := range out {
		if facts.SingleValued(f.Attribute) {
			continue
		}
		for _, g := range groups {
			same := g.Slot() == f.Slot() || g.Subject == f.Subject && facts.Activity(g.Attribute) && facts.Activity(f.Attribute)
			if same && g.Group() != f.Group() && facts.SameValue(g.Value, f.Value) {
				out[i].Attribute, out[i].Value = g.Attribute, g.Value
				break
			}
		}
	}
	return out
}

// primaryFact is the fact whose slot the record joins (a record is in one version
// group): the first whose slot one of the candidates already has; else the first denial
// that names a candidate's state (namedVersions; candFacts: the candidates' facts,
// decoded), so that "no more Japan. The flights in April are crazy expensive" ends the
// plan, whatever the flight; else the first.
func primaryFact(fs []facts.Fact, cands []store.Record, candFacts [][]facts.Fact) facts.Fact {
	for _, f := range fs {
		if slices.ContainsFunc(cands, func(c store.Record) bool { return c.Slot == f.Group() }) {
			return f
		}
	}
	named := slices.Collect(maps.Values(namedVersions(fs, cands, candFacts)))
	if j := slices.IndexFunc(fs, func(g facts.Fact) bool {
		return g.Negated && slices.ContainsFunc(named, func(nf facts.Fact) bool { return nf.Group() == g.Group() })
	}); j >= 0 {
		return fs[j]
	}
	return fs[0]
}

// decodeFacts appends to decoded the facts of the candidates past its length: the
// candidates' facts are decoded once, however many the record's slot adds later.
func decodeFacts(decoded [][]facts.Fact, cands []store.Record) [][]facts.Fact {
	for _, c := range cands[len(decoded):] {
		decoded = append(decoded, RecordFacts(c))
	}
	return decoded
}

// contradiction finds two facts of one memory that cannot hold at once: the same
// single-valued slot, different values, both stated as holding, neither scoped.
func contradiction(fs []facts.Fact) (facts.Fact, facts.Fact, bool) {
	for i, a := range fs {
		if a.Negated || a.Scope != "" || !facts.SingleValued(a.Attribute) {
			continue
		}
		for _, b := range fs[i+1:] {
			if !b.Negated && b.Scope == "" && b.Slot() == a.Slot() && !facts.SameValue(a.Value, b.Value) {
				return a, b, true
			}
		}
	}
	return facts.Fact{}, facts.Fact{}, false
}

// factSkip says why a pair is not compared when version groups follow facts: one side
// states no fact, or the two are about different subjects.
func factSkip(new, old []facts.Fact) string {
	switch {
	case len(new) == 0:
		return "the new memory states no fact"
	case len(old) == 0:
		return "the candidate states no fact"
	}
	for _, n := range new {
		for _, f := range old {
			if n.Subject == f.Subject {
				return ""
			}
		}
	}
	return "about another subject"
}

// sharesSlot reports whether two sets of facts have a version group in common.
func sharesSlot(a, b []facts.Fact) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Group() == y.Group() {
				return true
			}
		}
	}
	return false
}
