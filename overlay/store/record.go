package store

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// Status is where a record stands in its user's current state.
type Status string

// Statuses.
const (
	// StatusActive: the record holds now.
	StatusActive Status = "active"
	// StatusSuperseded: a newer record replaced it, or it was retracted. It stays
	// retrievable, with ValidUntil set.
	StatusSuperseded Status = "superseded"
	// StatusTransition: the record describes a change in progress between an old and a
	// new state; it links to both (evolves_from old, evolves_to new).
	StatusTransition Status = "transition"
	// StatusUnknown: the commit path could not tell whether the record holds.
	StatusUnknown Status = "unknown"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusActive, StatusSuperseded, StatusTransition, StatusUnknown:
		return true
	}
	return false
}

// LinkType names a typed link between two records of one user.
type LinkType string

// Link types. Every link is stored with its reciprocal.
const (
	LinkSupersedes      LinkType = "supersedes"       // newer → older it replaced
	LinkSupersededBy    LinkType = "superseded_by"    // older → newer that replaced it
	LinkEvolvesFrom     LinkType = "evolves_from"     // transition → old state, new → transition
	LinkEvolvesTo       LinkType = "evolves_to"       // transition → new state, old → transition
	LinkScopedException LinkType = "scoped_exception" // symmetric: an exception within a rule's scope
	LinkCoexistsWith    LinkType = "coexists_with"    // symmetric: both hold at once
)

// LinkTypes lists every link type.
var LinkTypes = []LinkType{LinkSupersedes, LinkSupersededBy, LinkEvolvesFrom, LinkEvolvesTo, LinkScopedException, LinkCoexistsWith}

// Valid reports whether t is a known link type.
func (t LinkType) Valid() bool { return t.Reciprocal() != "" }

// Reciprocal returns the type of the link stored the other way; "" for an unknown type.
func (t LinkType) Reciprocal() LinkType {
	switch t {
	case LinkSupersedes:
		return LinkSupersededBy
	case LinkSupersededBy:
		return LinkSupersedes
	case LinkEvolvesFrom:
		return LinkEvolvesTo
	case LinkEvolvesTo:
		return LinkEvolvesFrom
	case LinkScopedException, LinkCoexistsWith:
		return t
	}
	return ""
}

// Link is one outgoing typed link.
type Link struct {
	Type LinkType
	To   string
}

// Embeddings are the vectors a record carries. Empty vectors are stored as NULL.
type Embeddings struct {
	Backbone []float32 // the backbone encoder's vector
	Topic    []float32 // topic projection (what the record is about)
	Logic    []float32 // logic projection (what it claims)
}

// Record is one memory in the bank. Times are returned in UTC with nanosecond
// precision; the zero time means unknown (or open, for ValidFrom/ValidUntil).
type Record struct {
	ID   string
	User string // the namespace the record belongs to; set by the store

	Content string

	// EventTime is when what the record states happened or was said; zero when unknown,
	// in which case IngestTime stands in for ordering (see Time).
	EventTime time.Time
	// SourcePos is the record's position in its source (e.g. the turn index of a
	// conversation); it orders records with the same time.
	SourcePos int64
	// IngestTime is when the record entered the bank. Put fills it (with the existing
	// record's or the transaction's time) when zero.
	IngestTime time.Time

	Status Status
	// Retracted marks a version withdrawn by its source ("that was wrong"). It is
	// superseded and never becomes active again; the version before it takes over.
	Retracted bool

	// Links are the record's outgoing links, sorted by type then target. Reads fill
	// them; Put ignores them: links change only through Tx.Link and Tx.Unlink, which keep
	// the reciprocal in step.
	Links []Link

	// Slot is the state the record is a value of: a fact's key, "<subject>/<attribute>"
	// ("user/home"), or "slot:<record id>" for a group a supersession made without
	// facts; empty when unknown.
	Slot string
	// SingleValued: the slot holds one value at a time (a city), not many (pets).
	SingleValued bool

	ValidFrom  time.Time
	ValidUntil time.Time

	Confidence float64 // in [0, 1]

	Source string            // where the record came from (conversation, document)
	HostID string            // the host memory it was derived from, if any
	Meta   map[string]string // host and source metadata

	Embeddings Embeddings
}

// Time is the record's position on the time line: EventTime, or IngestTime when the
// event time is unknown.
func (r Record) Time() time.Time {
	if !r.EventTime.IsZero() {
		return r.EventTime
	}
	return r.IngestTime
}

// LinksOf returns the targets of r's links of type t, sorted.
func (r Record) LinksOf(t LinkType) []string {
	var out []string
	for _, l := range r.Links {
		if l.Type == t {
			out = append(out, l.To)
		}
	}
	sort.Strings(out)
	return out
}

// HasLink reports whether r links to "to" with type t.
func (r Record) HasLink(t LinkType, to string) bool {
	return slices.Contains(r.Links, Link{Type: t, To: to})
}

// Clone returns a deep copy of r.
func (r Record) Clone() Record {
	r.Links = slices.Clone(r.Links)
	r.Meta = maps.Clone(r.Meta)
	r.Embeddings = Embeddings{
		Backbone: slices.Clone(r.Embeddings.Backbone),
		Topic:    slices.Clone(r.Embeddings.Topic),
		Logic:    slices.Clone(r.Embeddings.Logic),
	}
	return r
}

// Limits on identifiers.
const (
	MaxIDLen   = 128
	MaxUserLen = 256
)

// NewID returns a new record id: 32 hex digits, the first 12 the millisecond of t, the
// rest random, so ids sort by creation time (List pages in id order). Ids made in one
// process for the same millisecond, one after the other, sort in the order they were
// made (the random part of the one before, plus one, as ULID's monotonic entropy does),
// so that records stored within a millisecond do not tie-break at random wherever a
// ranking falls back on ids: the same memories give the same packets.
func NewID(t time.Time) string {
	ms := uint64(t.UnixMilli())
	idMu.Lock()
	defer idMu.Unlock()
	if ms == idLast.ms {
		for i := len(idLast.rand) - 1; i >= 0; i-- {
			if idLast.rand[i]++; idLast.rand[i] != 0 {
				break
			}
		}
	} else {
		idLast.ms = ms
		if _, err := rand.Read(idLast.rand[:]); err != nil {
			// crypto/rand.Read never fails on supported platforms (it panics instead).
			panic(fmt.Sprintf("store: read random bytes: %v", err))
		}
		idLast.rand[0] &= 0x7f // room to count up before the random part wraps
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], ms<<16)
	copy(b[6:], idLast.rand[:])
	return hex.EncodeToString(b[:])
}

// idLast is the millisecond and random part of the last id NewID made.
var (
	idMu   sync.Mutex
	idLast struct {
		ms   uint64
		rand [10]byte
	}
)

// ValidateUser reports whether user is a usable namespace name.
func ValidateUser(user string) error {
	if err := validName("user", user, MaxUserLen); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if !norm.NFC.IsNormalString(user) {
		return fmt.Errorf("%w: user %q is not in Unicode NFC; normalise it (NormalizeUser), or two look-alike ids would be two users", ErrInvalid, user)
	}
	return nil
}

// NormalizeUser puts a user id given from outside (a path, a flag) in Unicode NFC, so
// that "José" typed with a combining accent and with a precomposed é is one user.
func NormalizeUser(user string) string { return norm.NFC.String(user) }

func validName(what, s string, max int) error {
	switch {
	case s == "":
		return fmt.Errorf("empty %s", what)
	case len(s) > max:
		return fmt.Errorf("%s is %d bytes, the limit is %d", what, len(s), max)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s %q is not valid UTF-8", what, s)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("%s %q has control characters", what, s)
	}
	return nil
}

// validStatusUntil checks SetStatus's and SetStatusUntil's arguments on their own (until
// nil: SetStatus's, which leaves the end as it is).
func validStatusUntil(s Status, until *time.Time) error {
	if !s.Valid() {
		return fmt.Errorf("%w: unknown status %q", ErrInvalid, s)
	}
	if until != nil && !sqlitedb.TimeInRange(*until) {
		return fmt.Errorf("%w: valid_until %v is outside 1678..2262", ErrInvalid, *until)
	}
	return nil
}

// validate checks r as Put would store it, reporting every problem at once wrapped in
// ErrInvalid.
func validate(r Record) error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(validName("id", r.ID, MaxIDLen))
	add(validName("user", r.User, MaxUserLen))
	if r.Content == "" {
		add(errors.New("empty content"))
	} else if !utf8.ValidString(r.Content) {
		add(errors.New("content is not valid UTF-8"))
	}
	if !r.Status.Valid() {
		add(fmt.Errorf("unknown status %q", r.Status))
	}
	for name, t := range map[string]time.Time{"event time": r.EventTime, "ingest time": r.IngestTime, "valid_from": r.ValidFrom, "valid_until": r.ValidUntil} {
		if !sqlitedb.TimeInRange(t) {
			add(fmt.Errorf("%s %v is outside 1678..2262", name, t))
		}
	}
	if !r.ValidFrom.IsZero() && !r.ValidUntil.IsZero() && r.ValidUntil.Before(r.ValidFrom) {
		add(fmt.Errorf("valid_until %v is before valid_from %v", r.ValidUntil, r.ValidFrom))
	}
	if math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1 {
		add(fmt.Errorf("confidence %v is outside [0, 1]", r.Confidence))
	}
	if err := validSlot(r.Slot, r.SingleValued); err != nil {
		add(err)
	}
	if !utf8.ValidString(r.Source) || !utf8.ValidString(r.HostID) {
		add(errors.New("source or host id is not valid UTF-8"))
	}
	for k, v := range r.Meta {
		if k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) {
			add(fmt.Errorf("meta key %q: keys must be non-empty, keys and values valid UTF-8", k))
		}
	}
	for name, v := range map[string][]float32{"backbone": r.Embeddings.Backbone, "topic": r.Embeddings.Topic, "logic": r.Embeddings.Logic} {
		for i, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				add(fmt.Errorf("%s embedding [%d] is %v", name, i, x))
				break
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: record %q: %w", ErrInvalid, r.ID, errors.Join(errs...))
}

// normalize puts r in the form every store returns: UTC times without monotonic
// readings, nil for empty maps and vectors, links sorted.
func normalize(r Record) Record {
	r.EventTime = normTime(r.EventTime)
	r.IngestTime = normTime(r.IngestTime)
	r.ValidFrom = normTime(r.ValidFrom)
	r.ValidUntil = normTime(r.ValidUntil)
	if len(r.Meta) == 0 {
		r.Meta = nil
	}
	if len(r.Links) == 0 {
		r.Links = nil
	}
	sortLinks(r.Links)
	for _, v := range []*[]float32{&r.Embeddings.Backbone, &r.Embeddings.Topic, &r.Embeddings.Logic} {
		if len(*v) == 0 {
			*v = nil
		}
	}
	return r
}

func normTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return time.Unix(0, t.UnixNano()).UTC()
}

func sortLinks(ls []Link) {
	sort.Slice(ls, func(i, j int) bool {
		if ls[i].Type != ls[j].Type {
			return ls[i].Type < ls[j].Type
		}
		return ls[i].To < ls[j].To
	})
}

// validSlot checks a record's version group: a slot in UTF-8, and one for a
// single-valued record (validate, and Tx.SetSlot, which moves a record).
func validSlot(slot string, single bool) error {
	if slot != "" && !utf8.ValidString(slot) {
		return errors.New("slot is not valid UTF-8")
	}
	if single && slot == "" {
		return errors.New("single-valued record without a slot")
	}
	return nil
}
