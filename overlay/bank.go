package overlay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atma-dev/atma/overlay/store"
)

// RecordView is a record with its linked records and its version history.
type RecordView struct {
	Record store.Record `json:"record"`
	// Linked are the records its links point at.
	Linked []store.Record `json:"linked,omitempty"`
	// History is its slot's version group, oldest first (empty without a slot).
	History []store.Record `json:"history,omitempty"`
}

// Get returns a record of user with its links and version history.
func (o *Overlay) Get(ctx context.Context, user, id string) (*RecordView, error) {
	r, err := o.cfg.Store.Get(ctx, user, id)
	if err != nil {
		return nil, err
	}
	v := &RecordView{Record: r}
	for _, l := range r.Links {
		lr, err := o.cfg.Store.Get(ctx, user, l.To)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		v.Linked = append(v.Linked, lr)
	}
	if r.Slot != "" {
		if v.History, err = o.cfg.Store.VersionGroup(ctx, user, r.Slot); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// List returns a page of user's records (see store.Filter).
func (o *Overlay) List(ctx context.Context, user string, f store.Filter) ([]store.Record, string, error) {
	return o.cfg.Store.List(ctx, user, f)
}

// Delete removes one record of user from the bank and the host memory; the statuses of
// its version group are settled again (deleting the newest version makes the one before
// it current).
func (o *Overlay) Delete(ctx context.Context, user, id string) error {
	unlock := o.lock(user)
	defer unlock()
	defer o.forgetSlots(user) // the deleted record's slot and values are not shown again
	if err := o.cfg.Store.Delete(ctx, user, id); err != nil {
		return err
	}
	if err := o.host.Delete(ctx, user, id); err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("delete from host memory: %w", err)
	}
	return nil
}

// userDeleter is a host or trace store that can drop a whole user.
type userDeleter interface {
	DeleteUser(ctx context.Context, user string) error
}

// DeleteUser removes all of user's data: records, host memories and traces.
func (o *Overlay) DeleteUser(ctx context.Context, user string) error {
	if err := store.ValidateUser(user); err != nil {
		return err
	}
	unlock := o.lock(user)
	defer unlock()
	defer o.forgetSlots(user)
	errs := []error{o.cfg.Store.DeleteUser(ctx, user)}
	if d, ok := o.host.(userDeleter); ok {
		errs = append(errs, d.DeleteUser(ctx, user))
	} else {
		errs = append(errs, errors.New("the host memory cannot delete a whole user; its memories of this user remain"))
	}
	if d, ok := o.cfg.Traces.(userDeleter); ok {
		errs = append(errs, d.DeleteUser(ctx, user))
	}
	return errors.Join(errs...)
}

// Trace returns a stored ingest or query trace of user.
func (o *Overlay) Trace(ctx context.Context, user, id string) (string, json.RawMessage, error) {
	if o.cfg.Traces == nil {
		return "", nil, fmt.Errorf("trace %s: %w: traces are not kept", id, store.ErrNotFound)
	}
	return o.cfg.Traces.Trace(ctx, user, id)
}

// Check verifies user's bank invariants (see store.Check).
func (o *Overlay) Check(ctx context.Context, user string) ([]store.Violation, error) {
	return store.Check(ctx, o.cfg.Store, user)
}

// Integrity checks the bank's storage itself (store.Admin.Integrity): SQLite's
// quick_check, or integrity_check when full. Problems make the bank refuse writes.
func (o *Overlay) Integrity(ctx context.Context, full bool) ([]string, error) {
	return o.cfg.Store.Integrity(ctx, full)
}

// Damaged returns the damage the store found so far (an error that is store.ErrDamaged),
// or nil; a damaged bank refuses every write.
func (o *Overlay) Damaged() error { return o.cfg.Store.Damaged() }

// Users lists the users with records.
func (o *Overlay) Users(ctx context.Context) ([]string, error) { return o.cfg.Store.Users(ctx) }
