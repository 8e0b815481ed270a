package host

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Sentinel errors, shared with package store so callers test one set.
var (
	ErrNotFound = store.ErrNotFound
	ErrInvalid  = store.ErrInvalid
)

// Host is a memory the overlay wraps: it stores raw memories and retrieves seeds for a
// query. The built-in hosts are SQL (on SQLite or PostgreSQL) and InMemory; adapters
// for external memories (Mem0, Zep) implement the same three methods.
type Host interface {
	// Add stores m under user, replacing a memory with the same ID.
	Add(ctx context.Context, user string, m Memory) error
	// Search returns up to k memories of user for the query text and its vector (either
	// may be empty), best first.
	Search(ctx context.Context, user, query string, qvec []float32, k int) ([]Hit, error)
	// Delete removes one memory; ErrNotFound if user has none with id.
	Delete(ctx context.Context, user, id string) error
}

// Memory is one raw memory.
type Memory struct {
	ID      string
	Content string
	// Vector is the content's embedding; nil for a memory found by text only. All of a
	// user's vectors have one dimension. Hosts store it scaled to unit length.
	Vector []float32
	// Time is when the memory was said or written; Add sets it to now when zero.
	Time time.Time
	Meta map[string]string
}

// Hit is a memory found by Search with its fused score and the evidence behind it.
type Hit struct {
	Memory
	Score     float64 // reciprocal rank fusion score
	DenseRank int     // 1-based rank among dense candidates; 0 when not among them
	TextRank  int     // 1-based rank among BM25 candidates; 0 when not among them
	Cosine    float64 // cosine similarity to the query vector, when DenseRank > 0
	BM25      float64 // BM25 score (higher is better), when TextRank > 0
}

// Defaults.
const (
	DefaultRRFK       = 60  // the usual RRF constant (Cormack et al., 2009)
	DefaultCandidates = 100 // per-list depth before fusion
	DefaultK          = 10  // hits when Search is asked for k ≤ 0

	DefaultCacheMemories = 1_000_000 // Config.CacheMemories: about 3 GB at 512 dimensions
)

// Config tunes a host. The zero value means defaults.
type Config struct {
	// RRFK is the rank offset of reciprocal rank fusion: score = Σ 1/(RRFK + rank).
	// Default 60.
	RRFK int
	// Candidates is how deep each list (dense, BM25) goes before fusion; at least k.
	// Default 100.
	Candidates int
	// Now is the clock for memories added without a time; default time.Now.
	Now func() time.Time
	// CacheMemories bounds the memories the SQL host keeps in memory for search, over
	// all users (about 3 KB each at 512 dimensions): past it, the indexes of the users
	// searched least recently are dropped, to be loaded again on their next search.
	// Default DefaultCacheMemories.
	CacheMemories int
	// ANN configures the approximate index that dense search uses for users with many
	// vectors (from 50,000 by default; Threshold -1: never).
	ANN ANNConfig
	// SQLite configures the database OpenSQLite opens.
	SQLite sqlitedb.Config
	// Postgres configures the pool OpenPostgres opens.
	Postgres pgdb.Config
}

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.RRFK < 0 {
		errs = append(errs, fmt.Errorf("rrf k %d is negative", c.RRFK))
	}
	if c.Candidates < 0 {
		errs = append(errs, fmt.Errorf("candidates %d is negative", c.Candidates))
	}
	if c.CacheMemories < 0 {
		errs = append(errs, fmt.Errorf("cache memories %d is negative", c.CacheMemories))
	}
	if err := c.ANN.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("ann: %w", err))
	}
	if err := c.SQLite.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("sqlite: %w", err))
	}
	if err := c.Postgres.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("postgres: %w", err))
	}
	return errors.Join(errs...)
}

func (c Config) rrfK() int {
	if c.RRFK == 0 {
		return DefaultRRFK
	}
	return c.RRFK
}

// depth is the per-list candidate count for a search of k hits.
func (c Config) depth(k int) int {
	n := c.Candidates
	if n == 0 {
		n = DefaultCandidates
	}
	return max(n, k)
}

func (c Config) cacheMemories() int64 {
	if c.CacheMemories == 0 {
		return DefaultCacheMemories
	}
	return int64(c.CacheMemories)
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Ranked is one fused result of RRF.
type Ranked struct {
	ID    string
	Score float64
	Ranks []int // 1-based rank in each input list; 0 where absent
}

// RRF fuses ranked lists of ids by reciprocal rank fusion: each id scores
// Σ 1/(k + rank) over the lists it appears in. Results are best first; ties go to the
// better best rank, then to the smaller id. An id repeated within one list counts at its
// first rank.
func RRF(k int, lists ...[]string) []Ranked {
	byID := map[string]*Ranked{}
	var order []*Ranked
	for li, list := range lists {
		for i, id := range list {
			r := byID[id]
			if r == nil {
				r = &Ranked{ID: id, Ranks: make([]int, len(lists))}
				byID[id] = r
				order = append(order, r)
			}
			if r.Ranks[li] != 0 {
				continue
			}
			r.Ranks[li] = i + 1
			r.Score += 1 / float64(k+i+1)
		}
	}
	best := func(r *Ranked) int {
		b := math.MaxInt
		for _, x := range r.Ranks {
			if x > 0 && x < b {
				b = x
			}
		}
		return b
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if ba, bb := best(a), best(b); ba != bb {
			return ba < bb
		}
		return a.ID < b.ID
	})
	out := make([]Ranked, len(order))
	for i, r := range order {
		out[i] = *r
	}
	return out
}

// fuse turns the dense and text candidate lists into the top k hits (without their
// memories, which the caller fills).
func fuse(rrfK, k int, dense []scoredID, text []scoredID) []Hit {
	ids := func(ss []scoredID) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = s.id
		}
		return out
	}
	ranked := RRF(rrfK, ids(dense), ids(text))
	if len(ranked) > k {
		ranked = ranked[:k]
	}
	hits := make([]Hit, len(ranked))
	for i, r := range ranked {
		hits[i] = Hit{Memory: Memory{ID: r.ID}, Score: r.Score, DenseRank: r.Ranks[0], TextRank: r.Ranks[1]}
		// A rank is where the id first comes in its list (RRF), so it names its score.
		if r.Ranks[0] > 0 {
			hits[i].Cosine = dense[r.Ranks[0]-1].score
		}
		if r.Ranks[1] > 0 {
			hits[i].BM25 = text[r.Ranks[1]-1].score
		}
	}
	return hits
}

// scoredID is a candidate of one list.
type scoredID struct {
	id    string
	score float64
}

// prepare validates m for Add by user and fills its time; the vector comes back
// normalised to unit length (cosine becomes a dot product).
func prepare(user string, m Memory, now time.Time) (Memory, error) {
	var errs []error
	if err := store.ValidateUser(user); err != nil {
		return Memory{}, fmt.Errorf("add: %w", err)
	}
	switch {
	case m.ID == "":
		errs = append(errs, errors.New("empty id"))
	case len(m.ID) > store.MaxIDLen:
		errs = append(errs, fmt.Errorf("id is %d bytes, the limit is %d", len(m.ID), store.MaxIDLen))
	case !utf8.ValidString(m.ID) || strings.IndexFunc(m.ID, unicode.IsControl) >= 0:
		errs = append(errs, fmt.Errorf("id %q is not printable UTF-8", m.ID))
	}
	if m.Content == "" || !utf8.ValidString(m.Content) {
		errs = append(errs, errors.New("content is empty or not valid UTF-8"))
	}
	if m.Time.IsZero() {
		m.Time = now
	}
	if !sqlitedb.TimeInRange(m.Time) {
		errs = append(errs, fmt.Errorf("time %v is outside 1678..2262", m.Time))
	}
	m.Time = time.Unix(0, m.Time.UnixNano()).UTC()
	for k, v := range m.Meta {
		if k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) {
			errs = append(errs, fmt.Errorf("meta key %q: keys must be non-empty, keys and values valid UTF-8", k))
		}
	}
	if len(m.Meta) == 0 {
		m.Meta = nil
	}
	unit, err := normalize(m.Vector)
	if err != nil {
		errs = append(errs, err)
	}
	m.Vector = unit
	if len(errs) > 0 {
		return Memory{}, fmt.Errorf("add %q: %w: %w", m.ID, ErrInvalid, errors.Join(errs...))
	}
	return m, nil
}

// normalize returns v scaled to unit length; nil for an empty v. A vector with a NaN, an
// infinity or no length is an error.
func normalize(v []float32) ([]float32, error) {
	if len(v) == 0 {
		return nil, nil
	}
	var ss float64
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("vector [%d] is %v", i, x)
		}
		ss += float64(x) * float64(x)
	}
	if ss == 0 || math.IsInf(ss, 0) {
		return nil, errors.New("vector has no direction (zero length)")
	}
	inv := 1 / math.Sqrt(ss)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

// searchArgs validates Search's arguments and returns k and the normalised query vector.
func searchArgs(user string, qvec []float32, k int) (int, []float32, error) {
	if err := store.ValidateUser(user); err != nil {
		return 0, nil, fmt.Errorf("search: %w", err)
	}
	if k <= 0 {
		k = DefaultK
	}
	q, err := normalize(qvec)
	if err != nil {
		return 0, nil, fmt.Errorf("search: %w: query %w", ErrInvalid, err)
	}
	return k, q, nil
}
