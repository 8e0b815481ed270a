package overlay

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/overlay/store"
)

// ReindexReport says what Reindex changed for one user.
type ReindexReport struct {
	User string `json:"user"`
	// Records are the user's records read; Read those without facts that the extractor
	// read (transition records are not memories and are skipped).
	Records int `json:"records"`
	Read    int `json:"read"`
	// WithFacts got facts; Moved of them joined a fact's version group (they had no slot,
	// or a "slot:<record id>" group a supersession made before facts).
	WithFacts int `json:"with_facts"`
	Moved     int `json:"moved"`
	// Slots are the version groups reconciled, sorted.
	Slots []string `json:"slots"`
}

// reindexChunk is how many records one extraction call reads.
const reindexChunk = 32

// Reindex reads the facts of user's records that have none — a bank written before
// version groups followed facts, or with Config.Facts off — and puts each record whose
// facts are confident enough (Config.FactMin) into its fact's version group, in place of
// no slot or of a "slot:<id>" group a supersession made without facts. Then the time
// line of every touched group settles statuses (store.Reconcile), so that an old "I
// live in Berlin" no longer stays current beside a newer fact-backed "I moved to
// Lisbon". Records are read in time order, so pronouns resolve as they did when said.
// Everything is written in one transaction: a result that would break an invariant
// writes nothing and the error names it. Records that already have facts keep their
// slots; running Reindex again changes nothing. It needs Config.Facts.
func (o *Overlay) Reindex(ctx context.Context, user string) (ReindexReport, error) {
	rep := ReindexReport{User: user}
	if err := store.ValidateUser(user); err != nil {
		return rep, err
	}
	if o.cfg.Facts == nil {
		return rep, errors.New("reindex: no fact extractor configured (facts off)")
	}
	unlock := o.lock(user)
	defer unlock()
	all, err := allRecords(ctx, o.cfg.Store, user)
	if err != nil {
		return rep, fmt.Errorf("reindex: list: %w", err)
	}
	rep.Records = len(all)
	var todo []store.Record
	for _, r := range all {
		if _, has := r.Meta[MetaFacts]; has || r.Status == store.StatusTransition {
			continue
		}
		todo = append(todo, r)
	}
	store.SortVersions(todo)
	rep.Read = len(todo)
	read := make([][]facts.Fact, len(todo))
	referent := ""
	for start := 0; start < len(todo); start += reindexChunk {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		chunk := todo[start:min(start+reindexChunk, len(todo))]
		in := make([]facts.Input, len(chunk))
		for i, r := range chunk {
			in[i] = facts.Input{Text: r.Content, Time: r.Time(), Vector: r.Embeddings.Backbone}
		}
		in[0].Referent = referent
		rs, err := o.cfg.Facts.Extract(ctx, in)
		if err != nil {
			return rep, fmt.Errorf("reindex: extract facts: %w", err)
		}
		if len(rs) != len(in) {
			return rep, fmt.Errorf("reindex: the extractor returned %d results for %d records", len(rs), len(in))
		}
		for i, res := range rs {
			read[start+i] = o.certain(res.Facts)
		}
		referent = rs[len(rs)-1].Referent
	}
	slots := map[string]bool{}
	err = o.cfg.Store.Tx(ctx, user, func(tx store.Tx) error {
		for i, r := range todo {
			fs := read[i]
			if len(fs) == 0 {
				continue
			}
			r, err := tx.Get(ctx, r.ID)
			if err != nil {
				return err
			}
			if r.Meta, err = withFacts(r.Meta, fs); err != nil {
				return err
			}
			rep.WithFacts++
			if !factSlot(r.Slot) {
				if r.Slot != "" {
					slots[r.Slot] = true
				}
				r.Slot, r.SingleValued = fs[0].Group(), true
				slots[r.Slot] = true
				rep.Moved++
				setValue(r.Meta, fs[0])
			}
			if err := tx.Put(ctx, r); err != nil {
				return err
			}
		}
		for _, s := range slices.Sorted(maps.Keys(slots)) {
			if err := store.Reconcile(ctx, tx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ReindexReport{User: user, Records: rep.Records, Read: rep.Read}, fmt.Errorf("reindex %s: %w", user, err)
	}
	rep.Slots = slices.Sorted(maps.Keys(slots))
	for _, s := range rep.Slots {
		o.noteSlot(user, s, "")
	}
	return rep, nil
}
