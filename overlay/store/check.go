package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ViolationKind names a broken invariant.
type ViolationKind string

// Violation kinds.
const (
	// KindForeignRecord: a record read from a user's namespace belongs to another user.
	KindForeignRecord ViolationKind = "foreign-record"
	// KindInvalidLink: a link of unknown type, or to the record itself.
	KindInvalidLink ViolationKind = "invalid-link"
	// KindDanglingLink: a link whose target is not in the user's namespace (deleted, or
	// another user's: links never cross users).
	KindDanglingLink ViolationKind = "dangling-link"
	// KindMissingReciprocal: a link without its reciprocal on the target.
	KindMissingReciprocal ViolationKind = "missing-reciprocal"
	// KindMultipleActive: a single-valued slot with active records not joined by
	// coexists_with (or scoped_exception) links, nor stating one value (MetaValue: a
	// restatement is the same state, said again).
	KindMultipleActive ViolationKind = "multiple-active"
	// KindNoValidUntil: a superseded record without ValidUntil.
	KindNoValidUntil ViolationKind = "superseded-without-valid-until"
	// KindNotSuperseded: a record with a superseded_by link whose status is not
	// superseded.
	KindNotSuperseded ViolationKind = "superseded-by-but-not-superseded"
	// KindTransitionLinks: a transition that does not point at both states (evolves_from
	// the old, evolves_to the new).
	KindTransitionLinks ViolationKind = "transition-without-both-states"
	// KindStaleStatus: a status other than the one DeriveStatuses gives; an older
	// version looking current is one of these.
	KindStaleStatus ViolationKind = "stale-status"
	// KindDamagedFile: the storage failed its own integrity check (Admin.Integrity); the
	// record and user are empty, Detail is what SQLite reported.
	KindDamagedFile ViolationKind = "damaged-file"
	// KindMixedCardinality: members of one slot disagree on SingleValued.
	KindMixedCardinality ViolationKind = "mixed-cardinality"
)

// Violation is one broken invariant.
type Violation struct {
	Kind    ViolationKind
	User    string
	ID      string   // the record at fault
	Slot    string   // its slot, if any
	Related []string // other records involved
	Detail  string
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s: user %q record %s", v.Kind, v.User, v.ID)
	if v.Slot != "" {
		s += fmt.Sprintf(" slot %q", v.Slot)
	}
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	return s
}

// ViolationError is returned by Tx when a transaction would leave violations; it
// matches ErrConflict.
type ViolationError struct {
	Violations []Violation
}

func (e *ViolationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return fmt.Sprintf("%d invariant violation(s): %s", len(e.Violations), strings.Join(parts, "; "))
}

// Unwrap makes a ViolationError match ErrConflict.
func (e *ViolationError) Unwrap() error { return ErrConflict }

// lookupFunc finds a record of the namespace being checked; ok is false when absent.
type lookupFunc func(ctx context.Context, id string) (r Record, ok bool, err error)

// Check verifies every invariant over user's records and returns the violations,
// sorted by record and kind; none means the namespace is sound. The error is for reads
// that failed. Stores enforce the same invariants on every commit, so violations mean
// data written around the store (or by an older version of it).
func Check(ctx context.Context, s Reader, user string) ([]Violation, error) {
	if err := ValidateUser(user); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	all := map[string]Record{}
	var order []string
	f := Filter{Limit: MaxListLimit}
	for {
		page, next, err := s.List(ctx, user, f)
		if err != nil {
			return nil, fmt.Errorf("check %q: list: %w", user, err)
		}
		for _, r := range page {
			all[r.ID] = r
			order = append(order, r.ID)
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	lookup := func(ctx context.Context, id string) (Record, bool, error) {
		if r, ok := all[id]; ok {
			return r, true, nil
		}
		r, err := s.Get(ctx, user, id)
		if errors.Is(err, ErrNotFound) {
			return Record{}, false, nil
		}
		return r, err == nil, err
	}
	var vs []Violation
	groups := map[string][]Record{}
	for _, id := range order {
		r := all[id]
		rv, err := checkRecord(ctx, lookup, user, r)
		if err != nil {
			return nil, fmt.Errorf("check %q: %w", user, err)
		}
		vs = append(vs, rv...)
		if r.Slot != "" {
			groups[r.Slot] = append(groups[r.Slot], r)
		}
	}
	for slot, g := range groups {
		SortVersions(g)
		vs = append(vs, checkGroup(user, slot, g)...)
	}
	sortViolations(vs)
	return vs, nil
}

func sortViolations(vs []Violation) {
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].ID != vs[j].ID {
			return vs[i].ID < vs[j].ID
		}
		return vs[i].Kind < vs[j].Kind
	})
}

// checkRecord verifies the invariants of one record and its links.
func checkRecord(ctx context.Context, lookup lookupFunc, user string, r Record) ([]Violation, error) {
	var vs []Violation
	add := func(k ViolationKind, related []string, format string, args ...any) {
		vs = append(vs, Violation{Kind: k, User: user, ID: r.ID, Slot: r.Slot, Related: related, Detail: fmt.Sprintf(format, args...)})
	}
	if r.User != user {
		add(KindForeignRecord, nil, "belongs to user %q", r.User)
	}
	for _, l := range r.Links {
		switch {
		case !l.Type.Valid():
			add(KindInvalidLink, []string{l.To}, "unknown link type %q to %s", l.Type, l.To)
			continue
		case l.To == r.ID:
			add(KindInvalidLink, nil, "%s link to itself", l.Type)
			continue
		}
		t, ok, err := lookup(ctx, l.To)
		if err != nil {
			return nil, fmt.Errorf("read link target %s of %s: %w", l.To, r.ID, err)
		}
		if !ok {
			add(KindDanglingLink, []string{l.To}, "%s %s, which is not in the namespace", l.Type, l.To)
			continue
		}
		if !t.HasLink(l.Type.Reciprocal(), r.ID) {
			add(KindMissingReciprocal, []string{l.To}, "%s %s, but %s lacks %s %s", l.Type, l.To, l.To, l.Type.Reciprocal(), r.ID)
		}
	}
	if r.Status == StatusSuperseded && r.ValidUntil.IsZero() {
		add(KindNoValidUntil, nil, "superseded without valid_until")
	}
	if by := r.LinksOf(LinkSupersededBy); len(by) > 0 && r.Status != StatusSuperseded {
		add(KindNotSuperseded, by, "superseded_by %s but %s", strings.Join(by, ", "), r.Status)
	}
	if r.Status == StatusTransition && (len(r.LinksOf(LinkEvolvesFrom)) == 0 || len(r.LinksOf(LinkEvolvesTo)) == 0) {
		add(KindTransitionLinks, nil, "transition with evolves_from %v and evolves_to %v", r.LinksOf(LinkEvolvesFrom), r.LinksOf(LinkEvolvesTo))
	}
	if r.Slot == "" {
		if want := DeriveStatuses([]Record{r})[r.ID]; want != r.Status {
			add(KindStaleStatus, nil, "status %s, derived %s", r.Status, want)
		}
	}
	return vs, nil
}

// checkGroup verifies the invariants of one version group, sorted oldest first.
func checkGroup(user, slot string, g []Record) []Violation {
	if len(g) == 0 {
		return nil
	}
	var vs []Violation
	single := singleValued(g)
	if single && slices.ContainsFunc(g, func(r Record) bool { return !r.SingleValued }) {
		var multi []string
		for _, r := range g {
			if !r.SingleValued {
				multi = append(multi, r.ID)
			}
		}
		vs = append(vs, Violation{Kind: KindMixedCardinality, User: user, ID: g[len(g)-1].ID, Slot: slot, Related: multi,
			Detail: fmt.Sprintf("records %s are multi-valued in a single-valued slot", strings.Join(multi, ", "))})
	}
	want := DeriveStatuses(g)
	var active []Record
	for _, r := range g {
		if r.Status == StatusActive {
			active = append(active, r)
		}
	}
	var derivedActive []string
	for _, r := range g {
		if want[r.ID] == StatusActive {
			derivedActive = append(derivedActive, r.ID)
		}
	}
	for _, r := range g {
		if w := want[r.ID]; w != r.Status {
			vs = append(vs, Violation{Kind: KindStaleStatus, User: user, ID: r.ID, Slot: slot, Related: derivedActive,
				Detail: fmt.Sprintf("status %s, the version group says %s (current: %s)", r.Status, w, strings.Join(derivedActive, ", "))})
		}
	}
	if single && len(active) > 1 {
		if comps := components(active); comps > 1 {
			ids := make([]string, len(active))
			for i, r := range active {
				ids[i] = r.ID
			}
			vs = append(vs, Violation{Kind: KindMultipleActive, User: user, ID: ids[len(ids)-1], Slot: slot, Related: ids[:len(ids)-1],
				Detail: fmt.Sprintf("%d active records (%s) in %d groups not joined by coexists_with", len(active), strings.Join(ids, ", "), comps)})
		}
	}
	return vs
}

// components counts the groups of rs joined by coexists_with or scoped_exception links
// or by stating one value (MetaValue).
func components(rs []Record) int {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if parent[x] == x {
			return x
		}
		parent[x] = find(parent[x])
		return parent[x]
	}
	for _, r := range rs {
		parent[r.ID] = r.ID
	}
	n := len(rs)
	union := func(x, y string) {
		if a, b := find(x), find(y); a != b {
			parent[a] = b
			n--
		}
	}
	byValue := map[string]string{}
	for _, r := range rs {
		if v := r.Meta[MetaValue]; v != "" {
			if first, ok := byValue[v]; ok {
				union(r.ID, first)
			} else {
				byValue[v] = r.ID
			}
		}
	}
	for _, r := range rs {
		for _, l := range r.Links {
			if l.Type != LinkCoexistsWith && l.Type != LinkScopedException {
				continue
			}
			if _, ok := parent[l.To]; !ok {
				continue
			}
			union(r.ID, l.To)
		}
	}
	return n
}

// verifyCommit checks the records a transaction touched and the version groups of
// their slots, through the transaction's own view.
// checkCommit is the last step of every Tx before it commits: a cancelled context or a
// touched record or slot that breaks an invariant refuses the commit.
func checkCommit(ctx context.Context, view Tx, user string, t touches) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tx: %w", err)
	}
	if t.empty() {
		return nil
	}
	vs, err := verifyCommit(ctx, view, user, t)
	if err != nil {
		return fmt.Errorf("tx: verify: %w", err)
	}
	if len(vs) > 0 {
		return &ViolationError{Violations: vs}
	}
	return nil
}

// prefetcher is a Tx that reads many records in one statement (the SQL stores: one
// round trip on PostgreSQL where a Get each would cost one each).
type prefetcher interface {
	getMany(ctx context.Context, ids []string) ([]Record, error)
}

func verifyCommit(ctx context.Context, tx Tx, user string, t touches) ([]Violation, error) {
	touched, slots := t.ids, t.slots
	// What was read ahead: a record, or absent (nil) for an id read and not found. A
	// record the transaction inserted and changed no further is as it was written.
	ahead := map[string]*Record{}
	for id, r := range t.fresh {
		ahead[id] = &r
	}
	pf, batched := tx.(prefetcher)
	prefetch := func(ids []string) error {
		if !batched {
			return nil
		}
		ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { _, done := ahead[id]; return done })
		if len(ids) == 0 {
			return nil
		}
		rs, err := pf.getMany(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			ahead[id] = nil
		}
		for i := range rs {
			ahead[rs[i].ID] = &rs[i]
		}
		return nil
	}
	lookup := func(ctx context.Context, id string) (Record, bool, error) {
		if r, ok := ahead[id]; ok {
			if r == nil {
				return Record{}, false, nil
			}
			return *r, true, nil
		}
		r, err := tx.Get(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return Record{}, false, nil
		}
		return r, err == nil, err
	}
	// The version groups of the slots the transaction touched hold most of what it
	// touched: read first, they spare those records' own read.
	groups := map[string][]Record{}
	readGroup := func(slot string) ([]Record, error) {
		if g, ok := groups[slot]; ok {
			return g, nil
		}
		g, err := tx.VersionGroup(ctx, slot)
		if err != nil {
			return nil, err
		}
		groups[slot] = g
		for i := range g {
			if _, done := ahead[g[i].ID]; !done {
				ahead[g[i].ID] = &g[i]
			}
		}
		return g, nil
	}
	touchedSlots := make([]string, 0, len(slots))
	for s := range slots {
		touchedSlots = append(touchedSlots, s)
	}
	sort.Strings(touchedSlots)
	for _, slot := range touchedSlots {
		if _, err := readGroup(slot); err != nil {
			return nil, err
		}
	}
	var vs []Violation
	ids := make([]string, 0, len(touched))
	for id := range touched {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	// The other touched records, then the targets of their links, a statement each.
	if err := prefetch(ids); err != nil {
		return nil, err
	}
	var targets []string
	for _, r := range ahead {
		if r != nil {
			for _, l := range r.Links {
				targets = append(targets, l.To)
			}
		}
	}
	slices.Sort(targets)
	if err := prefetch(slices.Compact(targets)); err != nil {
		return nil, err
	}
	for _, id := range ids {
		r, ok, err := lookup(ctx, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		rv, err := checkRecord(ctx, lookup, user, r)
		if err != nil {
			return nil, err
		}
		vs = append(vs, rv...)
		if r.Slot != "" {
			slots[r.Slot] = true
		}
	}
	names := make([]string, 0, len(slots))
	for s := range slots {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, slot := range names {
		g, err := readGroup(slot)
		if err != nil {
			return nil, err
		}
		vs = append(vs, checkGroup(user, slot, g)...)
	}
	sortViolations(vs)
	return vs, nil
}

// touches tracks what a transaction changed, for verifyCommit.
type touches struct {
	ids   map[string]bool
	slots map[string]bool
	// fresh: records the transaction inserted (no links yet) and changed no further,
	// as they were written, which the check need not read back.
	fresh map[string]Record
}

func newTouches() touches {
	return touches{ids: map[string]bool{}, slots: map[string]bool{}, fresh: map[string]Record{}}
}

// record notes a change of r (its id, and its slot when it has one).
func (t touches) record(r Record) {
	t.ids[r.ID] = true
	if r.Slot != "" {
		t.slots[r.Slot] = true
	}
	delete(t.fresh, r.ID)
}

// inserted notes a record inserted as r: with no links, whatever r.Links holds (Put
// writes none).
func (t touches) inserted(r Record) {
	t.record(r)
	r.Links = nil
	t.fresh[r.ID] = r
}

// deleted notes that the record id is gone.
func (t touches) deleted(id string) { delete(t.fresh, id) }

func (t touches) empty() bool { return len(t.ids) == 0 && len(t.slots) == 0 }
