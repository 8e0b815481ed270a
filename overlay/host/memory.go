package host

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/atma-dev/atma/overlay/store"
)

// InMemory is the Host in maps: dense search over the user's vectors and the in-Go
// BM25 of package fts. Safe for concurrent use.
type InMemory struct {
	cfg   Config
	mu    sync.Mutex // guards users
	users map[string]*memSpace
}

type memSpace struct {
	mu  sync.RWMutex
	idx *userIndex
}

var _ Host = (*InMemory)(nil)

// NewInMemory returns an empty in-memory host. cfg.SQLite is ignored.
func NewInMemory(cfg Config) (*InMemory, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("in-memory host config: %w", err)
	}
	return &InMemory{cfg: cfg, users: map[string]*memSpace{}}, nil
}

func (h *InMemory) space(user string, create bool) *memSpace {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.users[user]
	if s == nil && create {
		s = &memSpace{idx: newUserIndex(h.cfg.ANN)}
		h.users[user] = s
	}
	return s
}

// Add implements Host.
func (h *InMemory) Add(ctx context.Context, user string, m Memory) error {
	return h.AddBatch(ctx, user, []Memory{m})
}

// AddBatch adds memories all or nothing.
func (h *InMemory) AddBatch(ctx context.Context, user string, ms []Memory) error {
	prepared, err := h.prepareAll(ctx, user, ms)
	if err != nil {
		return err
	}
	return h.write(user, prepared)
}

// AddIn checks memories as AddBatch does, inside tx, a transaction of any store, and
// returns apply, which adds them; the caller calls it after tx commits and not after a
// rollback (overlay.TxHost). The host lives in the process's memory, so the only write
// left after the commit is to maps: apply fails only if another writer of the user
// changed its vectors' dimension in between (the overlay's own ingests of a user are
// serialised), and then adds nothing, as AddBatch would have refused them.
func (h *InMemory) AddIn(ctx context.Context, _ store.Tx, user string, ms []Memory) (apply func(), err error) {
	prepared, err := h.prepareAll(ctx, user, ms)
	if err != nil {
		return nil, err
	}
	s := h.space(user, true)
	s.mu.RLock()
	err = s.idx.dense.fits(prepared)
	s.mu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	return func() { _ = h.write(user, prepared) }, nil
}

// prepareAll validates ms for user (prepare).
func (h *InMemory) prepareAll(ctx context.Context, user string, ms []Memory) ([]Memory, error) {
	now := h.cfg.now()
	prepared := make([]Memory, len(ms))
	for i, m := range ms {
		var err error
		if prepared[i], err = prepare(user, m, now); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("add: %w", err)
	}
	return prepared, nil
}

// write adds prepared memories of user, all or nothing.
func (h *InMemory) write(user string, prepared []Memory) error {
	s := h.space(user, true)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idx.dense.fits(prepared); err != nil {
		return fmt.Errorf("add: %w", err)
	}
	for _, m := range prepared {
		if err := s.idx.set(m); err != nil {
			return fmt.Errorf("add %q: %w", m.ID, err) // unreachable after fits
		}
	}
	return nil
}

// Get returns one memory.
func (h *InMemory) Get(ctx context.Context, user, id string) (Memory, error) {
	if err := store.ValidateUser(user); err != nil {
		return Memory{}, fmt.Errorf("get: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Memory{}, fmt.Errorf("get %s: %w", id, err)
	}
	s := h.space(user, false)
	if s == nil {
		return Memory{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.idx.memory(id)
	if !ok {
		return Memory{}, fmt.Errorf("get %s: %w", id, ErrNotFound)
	}
	return m, nil
}

// Delete implements Host.
func (h *InMemory) Delete(ctx context.Context, user, id string) error {
	if err := store.ValidateUser(user); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	s := h.space(user, false)
	if s == nil {
		return fmt.Errorf("delete %s: %w", id, ErrNotFound)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.idx.mems[id]; !ok {
		return fmt.Errorf("delete %s: %w", id, ErrNotFound)
	}
	s.idx.remove(id)
	return nil
}

// DeleteUser removes every memory of user.
func (h *InMemory) DeleteUser(ctx context.Context, user string) error {
	if err := store.ValidateUser(user); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("delete user: %w", err)
	}
	s := h.space(user, false)
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idx = newUserIndex(h.cfg.ANN)
	return nil
}

// Len returns the number of user's memories.
func (h *InMemory) Len(ctx context.Context, user string) (int, error) {
	s := h.space(user, false)
	if s == nil {
		return 0, ctx.Err()
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.idx.len(), ctx.Err()
}

// Search implements Host.
func (h *InMemory) Search(ctx context.Context, user, query string, qvec []float32, k int) ([]Hit, error) {
	k, q, err := searchArgs(user, qvec, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	s := h.space(user, false)
	if s == nil {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	hits, err := s.idx.search(h.cfg, query, q, k)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}

// Users lists users with memories, sorted.
func (h *InMemory) Users(ctx context.Context) ([]string, error) {
	h.mu.Lock()
	spaces := maps.Clone(h.users)
	h.mu.Unlock()
	var out []string
	for u, s := range spaces {
		s.mu.RLock()
		if s.idx.len() > 0 {
			out = append(out, u)
		}
		s.mu.RUnlock()
	}
	sort.Strings(out)
	return out, ctx.Err()
}
