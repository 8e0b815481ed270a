package overlay

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay/store"
)

// commitPlan is everything one ingest writes, decided before anything is written:
// planCommit makes it from the new record, its candidates, their version groups and the
// Judge's verdicts, and applyPlan writes it in the ingest's transaction, where the store
// refuses it whole when an invariant would break (store.ErrConflict names the invariant
// and the records). Supersession is decided here and nowhere else.
type commitPlan struct {
	// Record is the new record as it is put (its slot is the one the plan gives it).
	Record store.Record
	// Moves are existing records that join another version group.
	Moves []slotMove
	// Links are added in order, each with its reciprocal.
	Links []plannedLink
	// Transitions are the transition records to create between an old and a new state.
	Transitions []plannedTransition
	// Reconcile are the slots whose time line then settles statuses, in order.
	Reconcile []string
	// Commits say what was decided, for the trace.
	Commits []CommitTrace
}

type slotMove struct {
	ID     string
	Slot   string
	Single bool
}

type plannedLink struct {
	From string
	Type store.LinkType
	To   string
}

type plannedTransition struct {
	Record   store.Record
	Old, New string
}

// planInput is what planCommit decides from.
type planInput struct {
	// Record is the new record, with the slot its facts gave it ("" when none).
	Record store.Record
	// Candidates and Verdicts are parallel: a nil verdict means not audited.
	Candidates []store.Record
	Verdicts   []*judge.Verdict
	// Groups are the version groups (store.StateGroup) of the new record's slot and of
	// every candidate's, by slot: a supersession merges and reconciles whole groups.
	Groups map[string][]store.Record
	// Facts: version groups follow facts, so a slot's single-valuedness is the new
	// record's; without them every group a supersession makes is single-valued.
	Facts bool
	// NoCommit records the new memory only (the "Judge off" ablation).
	NoCommit bool
	// NewID names transition records.
	NewID func() string
}

// actionRank orders verdicts: links first (scoped exceptions, coexistence), so that the
// reconciliation of a supersession sees them and keeps what the Judge joined to the new
// memory current; then transitions before supersessions, since the first decides the
// new record's slot.
func actionRank(a judge.Action) int {
	switch a {
	case judge.ActionScopedException:
		return 0
	case judge.ActionCoexist:
		return 1
	case judge.ActionTransition:
		return 2
	case judge.ActionSupersede:
		return 3
	}
	return 4
}

// planner is planCommit's working state: a view of every record the plan touches, with
// the plan's changes applied, so that each verdict is decided on the bank as the
// verdicts before it left it.
type planner struct {
	in   planInput
	view map[string]store.Record
	plan commitPlan
}

// planCommit decides what an ingest writes. It is pure: it reads nothing but in and
// gives the same plan for the same input.
func planCommit(in planInput) commitPlan {
	p := &planner{in: in, view: map[string]store.Record{}}
	for _, g := range in.Groups {
		for _, r := range g {
			p.view[r.ID] = cloneRecord(r)
		}
	}
	for _, c := range in.Candidates {
		if _, ok := p.view[c.ID]; !ok {
			p.view[c.ID] = cloneRecord(c)
		}
	}
	rec := cloneRecord(in.Record)
	order := make([]int, 0, len(in.Candidates))
	for i, v := range in.Verdicts {
		if v != nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return actionRank(in.Verdicts[a].Action) - actionRank(in.Verdicts[b].Action) })
	if !in.NoCommit {
		for _, i := range order {
			v := in.Verdicts[i]
			if v.Status == judge.StatusConflict && v.ClarificationNeeded && (v.Action == judge.ActionKeep || v.ConflictType == judge.TypeImplicitViolation) {
				rec.Status = store.StatusUnknown
				if rec.Meta == nil {
					rec.Meta = map[string]string{}
				}
				rec.Meta["clarification"] = v.ClarificationQuestion
				rec.Meta["conflicts_with"] = in.Candidates[i].ID
				p.plan.Commits = append(p.plan.Commits, CommitTrace{Action: judge.ActionKeep, Old: in.Candidates[i].ID, New: rec.ID, Note: "implicit conflict: the new memory waits for clarification (status unknown): " + v.ClarificationQuestion})
			}
		}
	}
	p.view[rec.ID] = rec
	if !in.NoCommit {
		for _, i := range order {
			p.verdict(in.Candidates[i].ID, in.Verdicts[i])
		}
		if in.Facts && p.view[rec.ID].Slot != "" {
			p.pastDenial()
			// The version group's time line decides, after the Judge's links: the newest
			// version of a single-valued slot is current unless a link joins another to it,
			// and a version reported late stays history behind a newer one.
			p.reconcile(p.view[rec.ID].Slot)
		}
	}
	// The new record as put: its final slot; its status as decided above (the store's
	// Reconcile settles the rest) and no links (Put ignores them; Links hold them).
	p.plan.Record = p.view[rec.ID]
	p.plan.Record.Status, p.plan.Record.Links = rec.Status, rec.Links
	return p.plan
}

// verdict plans one verdict between candidate old and the new record.
func (p *planner) verdict(oldID string, v *judge.Verdict) {
	newID := p.in.Record.ID
	if v.Status != judge.StatusConflict {
		if v.Action == judge.ActionCoexist && v.Status == judge.StatusConsistent {
			p.link(newID, store.LinkCoexistsWith, oldID, judge.ActionCoexist)
		}
		return
	}
	switch v.Action {
	case judge.ActionSupersede, judge.ActionTransition:
		old, nw := p.view[oldID], p.view[newID]
		if old.Status == store.StatusSuperseded {
			// An earlier verdict of this ingest (or the time line) already replaced it.
			return
		}
		if v.ConflictType == judge.TypeValueDiscrepancy && store.CompareVersions(nw, old) < 0 && !old.EventTime.IsZero() {
			// A correction ("it's £1000 not 1025") restates the state it corrects, from
			// the same time: "rent goes up to £1025 from April" dated the old one ahead of
			// the correction said before April, and the time line would put it back.
			nw.EventTime = old.EventTime
			p.view[newID] = nw
		}
		// Facts of different subjects never share a version group. "lotte's back on
		// cheese. vegetarian now, she says" states facts of two subjects and is in
		// lotte's group: a conflict with the speaker's diet must not join the two. An old
		// record that states a fact of the new one's group joins it alone, without the
		// rest of its own group ("my cousin Nadia likes tacos, every weekend" was put in
		// the speaker's office days by its first fact).
		alone := false
		if a, b := slotSubject(old.Slot), slotSubject(nw.Slot); p.in.Facts && a != "" && b != "" && a != b {
			if !slices.ContainsFunc(RecordFacts(old), func(f facts.Fact) bool { return f.Group() == nw.Slot }) {
				p.plan.Commits = append(p.plan.Commits, CommitTrace{Action: judge.ActionKeep, Old: oldID, New: newID, Slot: nw.Slot,
					Note: fmt.Sprintf("%s not applied: %s and %s are groups of different subjects", v.Action, old.Slot, nw.Slot)})
				return
			}
			alone = true
		}
		// Both become versions of one slot: the new record's (when its facts or an
		// earlier verdict gave it one), else the old record's, else a new one. A second
		// slot met on the way is merged into it: they hold the same state.
		slot := nw.Slot
		if slot == "" {
			slot = old.Slot
		}
		if slot == "" {
			slot = opaqueSlot + old.ID
		}
		// Without facts every slot a supersession makes is single-valued; with them the
		// new memory's attribute says (a pet given away leaves the other pets current).
		single := !p.in.Facts || nw.SingleValued
		p.merge(old, slot, single, alone)
		p.merge(nw, slot, single, false)
		older, newer := p.view[oldID], p.view[newID]
		note := ""
		if store.CompareVersions(newer, older) < 0 {
			// A backfilled memory older than the current one: it is the history.
			older, newer = newer, older
			note = "the new memory is older than the record it conflicts with: it was stored as history"
		}
		p.addLink(newer.ID, store.LinkSupersedes, older.ID)
		// The time line of the whole slot decides the statuses: a newer version this
		// ingest did not see stays current.
		p.reconcile(slot)
		ct := CommitTrace{Action: v.Action, Old: older.ID, New: newer.ID, Slot: slot, Note: note}
		if v.Action == judge.ActionTransition {
			summary := v.TransitionSummary
			if summary == "" {
				summary = fmt.Sprintf("changed from %q to %q", older.Content, newer.Content)
			}
			t := store.Record{ID: p.in.NewID(), Content: summary, EventTime: newer.Time(), SourcePos: newer.SourcePos, Status: store.StatusTransition,
				Confidence: v.Confidence, Source: "overlay", Meta: map[string]string{"from": older.ID, "to": newer.ID}}
			p.plan.Transitions = append(p.plan.Transitions, plannedTransition{Record: t, Old: older.ID, New: newer.ID})
			ct.Transition = t.ID
		}
		p.plan.Commits = append(p.plan.Commits, ct)
	case judge.ActionScopedException:
		p.link(newID, store.LinkScopedException, oldID, v.Action)
	case judge.ActionCoexist:
		p.link(newID, store.LinkCoexistsWith, oldID, v.Action)
	}
}

// pastDenial keeps the current version of a single-valued slot current when the new
// record denies the value of an earlier version, not the current one's: "sold the dell
// on ebay" after "my laptop is an old dell xps" and "got a new macbook pro" ends the
// dell, and the macbook stays the laptop. The time line alone would make the denial the
// newest version and end the macbook; a coexists_with link from the denial keeps it
// (store.DeriveStatuses). A denial of a value no version states ("I don't drink coffee
// anymore" after "flat white") is left to the time line: it ends the current version.
func (p *planner) pastDenial() {
	nw := p.view[p.in.Record.ID]
	d, ok := slotFact(nw)
	if !ok || !d.Negated || !nw.SingleValued {
		return
	}
	var cur store.Record
	named := false
	for _, id := range p.group(nw.Slot) {
		r := p.view[id]
		if id == nw.ID || store.CompareVersions(r, nw) > 0 {
			continue
		}
		f, ok := slotFact(r)
		if !ok || f.Negated {
			continue
		}
		if facts.SameValue(f.Value, d.Value) {
			named = true
		}
		if r.Status == store.StatusActive {
			cur = r // the newest active version older than the denial (group is oldest first)
		}
	}
	if cur.ID == "" || !named {
		return
	}
	if f, _ := slotFact(cur); facts.SameValue(f.Value, d.Value) {
		return // the current version's value is the one denied
	}
	p.addLink(nw.ID, store.LinkCoexistsWith, cur.ID)
	p.plan.Commits = append(p.plan.Commits, CommitTrace{Action: judge.ActionCoexist, Old: cur.ID, New: nw.ID, Slot: nw.Slot,
		Note: fmt.Sprintf("the new memory denies %q, an earlier version's value: the current version stays current", d.Value)})
}

// slotFact returns the fact by which a record is in its version group: its fact of that
// group.
func slotFact(r store.Record) (facts.Fact, bool) {
	for _, f := range RecordFacts(r) {
		if f.Group() == r.Slot {
			return f, true
		}
	}
	return facts.Fact{}, false
}

// merge puts r, and every record of r's version group when r has another slot (unless
// alone), into slot, single-valued or not.
func (p *planner) merge(r store.Record, slot string, single, alone bool) {
	members := []string{r.ID}
	if r.Slot != "" && r.Slot != slot && !alone {
		members = p.group(r.Slot)
	}
	for _, id := range members {
		m := p.view[id]
		if m.Slot == slot && m.SingleValued == single {
			continue
		}
		m.Slot, m.SingleValued = slot, single
		p.view[id] = m
		if id == p.in.Record.ID {
			continue // the new record is put whole, with its final slot
		}
		p.plan.Moves = slices.DeleteFunc(p.plan.Moves, func(mv slotMove) bool { return mv.ID == id })
		p.plan.Moves = append(p.plan.Moves, slotMove{ID: id, Slot: slot, Single: single})
	}
	if left := r.Slot; left != "" && left != slot && len(p.group(left)) > 0 {
		// A record that leaves its group alone may leave behind a version its supersedes
		// link held down: the group it left settles again (a whole group that moves
		// leaves none behind).
		p.reconcile(left)
	}
}

// group returns the ids of the viewed records of slot, oldest first.
func (p *planner) group(slot string) []string {
	var rs []store.Record
	for _, r := range p.view {
		if r.Slot == slot {
			rs = append(rs, r)
		}
	}
	store.SortVersions(rs)
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// link plans a link the Judge asked for and traces it.
func (p *planner) link(from string, t store.LinkType, to string, a judge.Action) {
	p.addLink(from, t, to)
	p.plan.Commits = append(p.plan.Commits, CommitTrace{Action: a, Old: to, New: from})
}

// addLink plans from →t→ to and shows it, with its reciprocal, in the view.
func (p *planner) addLink(from string, t store.LinkType, to string) {
	p.plan.Links = append(p.plan.Links, plannedLink{From: from, Type: t, To: to})
	for _, l := range [][3]string{{from, string(t), to}, {to, string(t.Reciprocal()), from}} {
		r := p.view[l[0]]
		link := store.Link{Type: store.LinkType(l[1]), To: l[2]}
		if !slices.Contains(r.Links, link) {
			r.Links = append(slices.Clone(r.Links), link)
			p.view[l[0]] = r
		}
	}
}

// reconcile plans store.Reconcile of slot and shows its outcome in the view, as the
// store will derive it (store.DeriveStatuses).
func (p *planner) reconcile(slot string) {
	p.plan.Reconcile = append(slices.DeleteFunc(p.plan.Reconcile, func(s string) bool { return s == slot }), slot)
	ids := p.group(slot)
	g := make([]store.Record, len(ids))
	for i, id := range ids {
		g[i] = p.view[id]
	}
	for id, st := range store.DeriveStatuses(g) {
		r := p.view[id]
		r.Status = st
		p.view[id] = r
	}
}

func cloneRecord(r store.Record) store.Record {
	r.Links = slices.Clone(r.Links)
	r.Meta = maps.Clone(r.Meta)
	return r
}

// applyPlan writes a plan in tx: the new record, the slot moves, the links, the
// transition records, then the reconciliation of every slot the plan touched.
func applyPlan(ctx context.Context, tx store.Tx, pl commitPlan) error {
	if err := tx.Put(ctx, pl.Record); err != nil {
		return err
	}
	for _, m := range pl.Moves {
		if err := tx.SetSlot(ctx, m.ID, m.Slot, m.Single); err != nil {
			return err
		}
	}
	for _, l := range pl.Links {
		if err := tx.Link(ctx, l.From, l.Type, l.To); err != nil {
			return err
		}
	}
	for _, t := range pl.Transitions {
		if err := tx.Put(ctx, t.Record); err != nil {
			return err
		}
		if err := store.Evolve(ctx, tx, t.Old, t.Record.ID, t.New); err != nil {
			return err
		}
	}
	for _, slot := range pl.Reconcile {
		if err := store.Reconcile(ctx, tx, slot); err != nil {
			return err
		}
	}
	return nil
}

// opaqueSlot prefixes the slot a supersession without facts makes ("slot:<record id>").
const opaqueSlot = "slot:"

// factSlot reports whether slot was named by a fact ("user/home"), not none and not an
// opaque slot of a supersession without facts.
func factSlot(slot string) bool { return slot != "" && !strings.HasPrefix(slot, opaqueSlot) }

// slotSubject is the subject of a fact's slot key ("lotte" of "lotte/diet", "user" of
// "user/pet/rex"), or "" for a slot that no fact named.
func slotSubject(slot string) string {
	subj, _, ok := strings.Cut(slot, "/")
	if !ok || !factSlot(slot) {
		return ""
	}
	return subj
}
