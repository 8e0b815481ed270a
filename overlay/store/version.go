package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CompareVersions orders two records of a version group: by Time (event time, else
// ingest time), then SourcePos, then IngestTime, then ID. It is the order VersionGroup
// returns, oldest first.
func CompareVersions(a, b Record) int {
	if c := a.Time().Compare(b.Time()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.SourcePos, b.SourcePos); c != 0 {
		return c
	}
	if c := a.IngestTime.Compare(b.IngestTime); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// SortVersions sorts rs oldest first (CompareVersions).
func SortVersions(rs []Record) { slices.SortFunc(rs, CompareVersions) }

// singleValued reports whether a group is single-valued: one member saying so is enough.
func singleValued(group []Record) bool {
	return slices.ContainsFunc(group, func(r Record) bool { return r.SingleValued })
}

// MetaValue is the record metadata key of the value a record states in its version
// group, in the form two statements of one value share (package overlay writes
// facts.ValueKey of the record's fact; none for a denial or a scoped fact). A record
// without it states no value the time line can compare.
const MetaValue = "value"

// DeriveStatuses returns the status each member of a version group (the records of one
// user and slot) should have, by id. In order of precedence:
//
//   - a retracted record is superseded;
//   - a record superseded_by another is superseded — in a single-valued group only when
//     the other is outside the group, because inside it the time line decides;
//   - a transition record (status transition) that evolves_from one state and evolves_to
//     another stays a transition;
//   - a record the commit path marked unknown stays unknown.
//
// The rest are the group's candidates. In a multi-valued slot they are all active. In a
// single-valued slot the newest candidate (CompareVersions) is active, so are the
// candidates just before it that state its value (MetaValue) with no other value
// between — a restatement changes nothing: "still 40 minutes" leaves "sorry, I meant 40"
// current — and the candidates joined to an active one by coexists_with or
// scoped_exception links; none of these when superseded_by a newer member (a link or a
// restatement does not undo a replacement). The others are superseded. A newest version
// that retrieval missed when an older one was (re)written therefore still wins, and
// retracting the newest version makes the one before it current again.
//
// A group of one unslotted record is derived the multi-valued way.
func DeriveStatuses(group []Record) map[string]Status {
	out, cands, single := classify(group)
	if !single {
		for _, r := range cands {
			out[r.ID] = StatusActive
		}
		return out
	}
	if len(cands) == 0 {
		return out
	}
	byID := make(map[string]Record, len(cands))
	for _, r := range cands {
		byID[r.ID] = r
	}
	// replaced: superseded_by a newer member, which the time line confirms; a chain of
	// links does not bring such a record back.
	replaced := func(r Record) bool {
		return slices.ContainsFunc(r.LinksOf(LinkSupersededBy), func(to string) bool {
			by, ok := byID[to]
			return ok && CompareVersions(by, r) > 0
		})
	}
	byAge := slices.SortedFunc(slices.Values(cands), CompareVersions)
	newest := byAge[len(byAge)-1]
	active := map[string]bool{newest.ID: true}
	queue := []string{newest.ID}
	if v := newest.Meta[MetaValue]; v != "" {
		for _, r := range slices.Backward(byAge[:len(byAge)-1]) {
			if r.Meta[MetaValue] != v {
				break
			}
			if !replaced(r) {
				active[r.ID] = true
				queue = append(queue, r.ID)
			}
		}
	}
	for len(queue) > 0 {
		r := byID[queue[0]]
		queue = queue[1:]
		for _, l := range r.Links {
			if l.Type != LinkCoexistsWith && l.Type != LinkScopedException {
				continue
			}
			if to, ok := byID[l.To]; ok && !active[l.To] && !replaced(to) {
				active[l.To] = true
				queue = append(queue, l.To)
			}
		}
	}
	for _, r := range cands {
		if active[r.ID] {
			out[r.ID] = StatusActive
		} else {
			out[r.ID] = StatusSuperseded
		}
	}
	return out
}

// classify settles the members whose status does not depend on the time line and
// returns the rest, the candidates, in group order.
func classify(group []Record) (settled map[string]Status, cands []Record, single bool) {
	settled = make(map[string]Status, len(group))
	in := make(map[string]bool, len(group))
	for _, r := range group {
		in[r.ID] = true
	}
	single = singleValued(group)
	for _, r := range group {
		switch {
		case r.Retracted:
			settled[r.ID] = StatusSuperseded
		case slices.ContainsFunc(r.LinksOf(LinkSupersededBy), func(to string) bool { return !single || !in[to] }):
			settled[r.ID] = StatusSuperseded
		case r.Status == StatusTransition && len(r.LinksOf(LinkEvolvesFrom)) > 0 && len(r.LinksOf(LinkEvolvesTo)) > 0:
			// Only a transition record is one: a state in a chain of changes (Berlin →
			// Hamburg → Lisbon) also evolves from one transition and to the next.
			settled[r.ID] = StatusTransition
		case r.Status == StatusUnknown:
			settled[r.ID] = StatusUnknown
		default:
			cands = append(cands, r)
		}
	}
	return settled, cands, single
}

// Reconcile brings the version group of slot in line with DeriveStatuses inside tx:
//
//   - statuses become the derived ones;
//   - a record that becomes superseded gets ValidUntil (its successor's ValidFrom or
//     Time; Now for a retraction) when it has none, and in a single-valued slot a
//     supersedes link from its successor (the next newer candidate) when it has no
//     superseded_by link;
//   - in a single-valued slot, superseded_by links to other members are removed where the
//     time line contradicts them: from a record that is not superseded, or to an older
//     member;
//   - a record reinstated from superseded to active loses its ValidUntil.
//
// Reconcile is idempotent. Use it after writing a version whose place in time the commit
// path did not establish (a late or backfilled record, a retraction, a deletion).
func Reconcile(ctx context.Context, tx Tx, slot string) error {
	if slot == "" {
		return fmt.Errorf("reconcile: %w: empty slot", ErrInvalid)
	}
	g, err := StateGroup(ctx, tx, slot)
	if err != nil {
		return fmt.Errorf("reconcile %q: %w", slot, err)
	}
	if err := reconcileGroup(ctx, tx, g); err != nil {
		return fmt.Errorf("reconcile %q: %w", slot, err)
	}
	return nil
}

// StateGroup is tx.VersionGroup, oldest first, without the embeddings where the store
// can leave them out (SQL): reconciling and commit planning read whole groups, and the
// embeddings were most of them. Write a record read here only after reading it whole
// with tx.Get, or change it field by field (reconcileGroup's SetStatusUntil).
func StateGroup(ctx context.Context, tx Tx, slot string) ([]Record, error) {
	if t, ok := tx.(*sqlTx); ok {
		return versionGroup(ctx, t.q, t.d.stateCols, t.user, slot)
	}
	return tx.VersionGroup(ctx, slot)
}

// ReconcileRecord reconciles the version group of record id, or the record alone when
// it has no slot.
func ReconcileRecord(ctx context.Context, tx Tx, id string) error {
	r, err := tx.Get(ctx, id)
	if err != nil {
		return fmt.Errorf("reconcile %s: %w", id, err)
	}
	if r.Slot != "" {
		return Reconcile(ctx, tx, r.Slot)
	}
	if err := reconcileGroup(ctx, tx, []Record{r}); err != nil {
		return fmt.Errorf("reconcile %s: %w", id, err)
	}
	return nil
}

// reconcileGroup applies DeriveStatuses to g, which is sorted oldest first.
func reconcileGroup(ctx context.Context, tx Tx, g []Record) error {
	want := DeriveStatuses(g)
	_, cands, single := classify(g)
	candidate := make(map[string]bool, len(cands))
	for _, r := range cands {
		candidate[r.ID] = true
	}
	isCandidate := func(r Record) bool { return candidate[r.ID] }
	pos := make(map[string]int, len(g))
	for i, r := range g {
		pos[r.ID] = i
	}
	for i, r := range g {
		w := want[r.ID]
		if single {
			// Inside the group the time line decides: keep only superseded_by links of
			// a superseded record to newer members.
			var kept []Link
			for _, l := range r.Links {
				j, in := pos[l.To]
				if l.Type == LinkSupersededBy && in && (w != StatusSuperseded || j < i) {
					if err := tx.Unlink(ctx, r.ID, LinkSupersededBy, l.To); err != nil {
						return err
					}
					continue
				}
				kept = append(kept, l)
			}
			r.Links = kept
		}
		next := r
		next.Status = w
		if w == StatusActive && r.Status == StatusSuperseded {
			next.ValidUntil = time.Time{}
		}
		if w == StatusSuperseded && !r.Retracted {
			var succ *Record
			if single && isCandidate(r) {
				for j := i + 1; j < len(g); j++ {
					if isCandidate(g[j]) {
						succ = &g[j]
						break
					}
				}
			}
			if succ != nil && len(r.LinksOf(LinkSupersededBy)) == 0 {
				if err := tx.Link(ctx, succ.ID, LinkSupersedes, r.ID); err != nil {
					return err
				}
			}
			if succ == nil {
				if by := r.LinksOf(LinkSupersededBy); len(by) > 0 {
					s, err := tx.Get(ctx, by[0])
					if err != nil {
						return err
					}
					succ = &s
				}
			}
			if next.ValidUntil.IsZero() && succ != nil {
				next.ValidUntil = validStart(*succ)
			}
		}
		if w == StatusSuperseded && next.ValidUntil.IsZero() {
			next.ValidUntil = tx.Now()
		}
		if !next.ValidFrom.IsZero() && next.ValidUntil.Before(next.ValidFrom) && !next.ValidUntil.IsZero() {
			next.ValidUntil = next.ValidFrom
		}
		if next.Status != r.Status || !next.ValidUntil.Equal(r.ValidUntil) {
			// The group may have been read without embeddings (StateGroup): only the
			// status and the end are written.
			if err := tx.SetStatusUntil(ctx, r.ID, next.Status, next.ValidUntil); err != nil {
				return err
			}
		}
	}
	return nil
}

// validStart is when a record's state starts to hold: ValidFrom, else Time.
func validStart(r Record) time.Time {
	if !r.ValidFrom.IsZero() {
		return r.ValidFrom
	}
	return r.Time()
}

// Evolve records that transitionID is a change in progress from oldID to newID: it
// evolves_from oldID and evolves_to newID (with reciprocals) and becomes a transition.
// The statuses of oldID and newID are left to the caller (or Reconcile).
func Evolve(ctx context.Context, tx Tx, oldID, transitionID, newID string) error {
	if oldID == newID || oldID == transitionID || newID == transitionID {
		return fmt.Errorf("evolve %s→%s→%s: %w: three distinct records needed", oldID, transitionID, newID, ErrInvalid)
	}
	err := errors.Join(
		tx.Link(ctx, transitionID, LinkEvolvesFrom, oldID),
		tx.Link(ctx, transitionID, LinkEvolvesTo, newID),
	)
	if err == nil {
		err = tx.SetStatus(ctx, transitionID, StatusTransition)
	}
	if err != nil {
		return fmt.Errorf("evolve %s→%s→%s: %w", oldID, transitionID, newID, err)
	}
	return nil
}
