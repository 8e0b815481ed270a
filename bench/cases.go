package bench

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

// The hand-written corpus, embedded so that `atma bench cases` runs from anywhere.
//
//go:embed testdata/cases/*.jsonl
var casesFS embed.FS

// Corpus domains, in table order.
var caseDomains = []string{"personal", "health", "money", "work", "travel", "preferences", "education", "household"}

// CaseDomains lists the corpus domains in table order.
func CaseDomains() []string { return slices.Clone(caseDomains) }

// Splits of the corpus.
const (
	SplitDev  = "dev"
	SplitTest = "test"
	SplitAll  = "all"
)

// Memory kinds.
const (
	KindState     = "state"     // states one or more facts
	KindEvent     = "event"     // a one-off event that changes no state
	KindSmallTalk = "smalltalk" // chat that states nothing
	KindQuestion  = "question"  // the user asks something
)

// Probe kinds.
const (
	ProbeCurrent    = "current"
	ProbeHistorical = "historical"
	ProbeChange     = "change"
	ProbeNeutral    = "neutral"
)

var (
	memoryKinds = []string{KindState, KindEvent, KindSmallTalk, KindQuestion}
	probeKinds  = []string{ProbeCurrent, ProbeHistorical, ProbeChange, ProbeNeutral}
	slotPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*/[a-z0-9]+(-[a-z0-9]+)*$`)
	idPattern   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// ProbeKinds lists the probe kinds in table order.
func ProbeKinds() []string { return slices.Clone(probeKinds) }

// Corpus is the state-change evaluation corpus: hand-written scenarios, each a user's
// memories in arrival order and probes asked after the last one. The file format is in
// testdata/cases/README.md.
type Corpus struct {
	Scenarios []Scenario `json:"scenarios"`
}

// Scenario is one user's conversation.
type Scenario struct {
	ID       string       `json:"id"`
	Domain   string       `json:"domain"`
	Split    string       `json:"split"`
	Title    string       `json:"title"`
	Speaker  string       `json:"speaker,omitempty"`
	Memories []CaseMemory `json:"memories"`
	Probes   []CaseProbe  `json:"probes"`
	// File and Line say where the scenario record is.
	File string `json:"-"`
	Line int    `json:"-"`
}

// CaseMemory is one memory as the user wrote it, with its annotations.
type CaseMemory struct {
	ID        string         `json:"id"`
	Time      time.Time      `json:"time"`
	Text      string         `json:"text"`
	Kind      string         `json:"kind"`
	Facts     []CaseFact     `json:"facts,omitempty"`
	Relations []CaseRelation `json:"relations,omitempty"`
	Line      int            `json:"-"`
}

// CaseFact is one fact a memory states.
type CaseFact struct {
	// Slot is "<subject>/<attribute>": "user/home", "sister/job".
	Slot  string `json:"slot"`
	Value string `json:"value"`
	// Polarity is "is" (empty means is) or "is_not".
	Polarity string `json:"polarity,omitempty"`
	Scope    string `json:"scope,omitempty"`
	// EventTime is when the fact became true, when the text says: YYYY-MM or YYYY-MM-DD.
	EventTime string `json:"event_time,omitempty"`
}

// Subject is the part of the slot before the slash.
func (f CaseFact) Subject() string { s, _, _ := strings.Cut(f.Slot, "/"); return s }

// Attribute is the part of the slot after the slash.
func (f CaseFact) Attribute() string { _, a, _ := strings.Cut(f.Slot, "/"); return a }

// CaseRelation is what a memory does to an earlier memory of a shared slot: the gold
// label of that pair for the Judge.
type CaseRelation struct {
	To           string             `json:"to"`
	Status       judge.Status       `json:"status"`
	ConflictType judge.ConflictType `json:"conflict_type"`
	Action       judge.Action       `json:"action"`
}

// CaseProbe is a question asked after the whole scenario.
type CaseProbe struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Question string `json:"question"`
	Slot     string `json:"slot,omitempty"`
	// Gold are the values a right answer holds (a change probe's: all of them, oldest
	// first); Stale the values of a wrong state.
	Gold          []string `json:"gold"`
	Stale         []string `json:"stale,omitempty"`
	GoldMemories  []string `json:"gold_memories"`
	StaleMemories []string `json:"stale_memories,omitempty"`
	Line          int      `json:"-"`
}

// Memory returns the scenario's memory with id.
func (s *Scenario) Memory(id string) (CaseMemory, bool) {
	for _, m := range s.Memories {
		if m.ID == id {
			return m, true
		}
	}
	return CaseMemory{}, false
}

// slots lists the memory's fact slots, deduplicated.
func (m CaseMemory) slots() []string {
	var out []string
	for _, f := range m.Facts {
		if !slices.Contains(out, f.Slot) {
			out = append(out, f.Slot)
		}
	}
	return out
}

// Split returns the scenarios of split (SplitAll: every one).
func (c *Corpus) Split(split string) (*Corpus, error) {
	switch split {
	case SplitAll:
		return c, nil
	case SplitDev, SplitTest:
	default:
		return nil, fmt.Errorf("unknown split %q (want dev, test or all)", split)
	}
	out := &Corpus{}
	for _, s := range c.Scenarios {
		if s.Split == split {
			out.Scenarios = append(out.Scenarios, s)
		}
	}
	return out, nil
}

// CorpusStats counts what a corpus holds.
type CorpusStats struct {
	Scenarios int            `json:"scenarios"`
	Memories  int            `json:"memories"`
	Probes    int            `json:"probes"`
	Relations int            `json:"relations"`
	Pairs     int            `json:"pairs"`
	Domains   map[string]int `json:"domains"`
	Splits    map[string]int `json:"splits"`
	// ProbeKinds and MemoryKinds count by kind; ConflictTypes the relations by type.
	ProbeKinds    map[string]int `json:"probe_kinds"`
	MemoryKinds   map[string]int `json:"memory_kinds"`
	ConflictTypes map[string]int `json:"conflict_types"`
}

// Stats counts the corpus.
func (c *Corpus) Stats() CorpusStats {
	st := CorpusStats{Domains: map[string]int{}, Splits: map[string]int{}, ProbeKinds: map[string]int{}, MemoryKinds: map[string]int{}, ConflictTypes: map[string]int{}}
	for _, s := range c.Scenarios {
		st.Scenarios++
		st.Domains[s.Domain]++
		st.Splits[s.Split]++
		st.Memories += len(s.Memories)
		st.Probes += len(s.Probes)
		for _, m := range s.Memories {
			st.MemoryKinds[m.Kind]++
			st.Relations += len(m.Relations)
			for _, r := range m.Relations {
				st.ConflictTypes[string(r.ConflictType)]++
			}
		}
		for _, p := range s.Probes {
			st.ProbeKinds[p.Kind]++
		}
	}
	st.Pairs = len(c.Pairs())
	return st
}

// DefaultCorpus is the corpus embedded in the binary (bench/testdata/cases).
func DefaultCorpus() (*Corpus, error) {
	return LoadCorpusFS(casesFS, "testdata/cases")
}

// LoadCorpus reads a corpus file (JSONL) or every *.jsonl file of a directory. Every
// problem of every file is reported at once in a *data.LoadError, as file:line: field:
// message.
func LoadCorpus(path string) (*Corpus, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	if !fi.IsDir() {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("load corpus: %w", err)
		}
		return ReadCorpus(map[string][]byte{path: b})
	}
	return LoadCorpusFS(os.DirFS(path), ".", path)
}

// LoadCorpusFS reads every *.jsonl file of dir in fsys. Problems name the files under
// prefix when one is given (the directory as the user typed it), else under dir.
func LoadCorpusFS(fsys fs.FS, dir string, prefix ...string) (*Corpus, error) {
	names, err := fs.Glob(fsys, filepath.ToSlash(filepath.Join(dir, "*.jsonl")))
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("load corpus: no *.jsonl files in %s", cmp.Or(strings.Join(prefix, ""), dir))
	}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("load corpus: %w", err)
		}
		shown := n
		if len(prefix) > 0 {
			shown = filepath.Join(prefix[0], filepath.Base(n))
		}
		files[shown] = b
	}
	return ReadCorpus(files)
}

// caseRecord is one line of a corpus file; Type says which fields it may have.
type caseRecord struct {
	Type     string `json:"type"`
	Scenario string `json:"scenario"`
}

// ReadCorpus parses and validates corpus files (name → contents). Records of one
// scenario may be spread over files; memories keep their order of appearance, files
// taken in name order.
func ReadCorpus(files map[string][]byte) (*Corpus, error) {
	v := &caseValidator{}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	c := &Corpus{}
	byID := map[string]int{}
	type pending struct {
		file string
		line int
		rec  caseRecord
		raw  []byte
	}
	var rest []pending
	for _, name := range names {
		b := bytes.TrimPrefix(files[name], []byte("\xef\xbb\xbf"))
		lines := bytes.Split(b, []byte("\n"))
		any := false
		for i, ln := range lines {
			ln = bytes.TrimSpace(ln)
			if len(ln) == 0 {
				continue
			}
			any = true
			at := caseAt{file: name, line: i + 1}
			var rec caseRecord
			if err := json.Unmarshal(ln, &rec); err != nil {
				v.add(at, "", "invalid JSON: %v", err)
				continue
			}
			switch rec.Type {
			case "scenario":
				var l scenarioLine
				if !v.decode(at, ln, &l) {
					continue
				}
				s := Scenario{ID: l.ID, Domain: l.Domain, Split: l.Split, Title: l.Title, Speaker: l.Speaker, File: name, Line: i + 1}
				v.scenario(at, &s)
				if j, dup := byID[s.ID]; dup && s.ID != "" {
					v.add(at, "id", "scenario %q is declared twice (first at %s:%d)", s.ID, c.Scenarios[j].File, c.Scenarios[j].Line)
					continue
				}
				byID[s.ID] = len(c.Scenarios)
				c.Scenarios = append(c.Scenarios, s)
			case "memory", "probe":
				rest = append(rest, pending{name, i + 1, rec, ln})
			case "":
				v.add(at, "type", "missing (want scenario, memory or probe)")
			default:
				v.add(at, "type", "unknown record type %q (want scenario, memory or probe)", rec.Type)
			}
		}
		if !any {
			v.add(caseAt{file: name}, "", "no records")
		}
	}
	for _, p := range rest {
		at := caseAt{file: p.file, line: p.line}
		j, ok := byID[p.rec.Scenario]
		var s *Scenario
		if ok {
			s = &c.Scenarios[j]
		}
		if s == nil {
			v.add(at, "scenario", "%s", unknownScenario(p.rec.Scenario))
		}
		switch p.rec.Type {
		case "memory":
			var l memoryLine
			if !v.decode(at, p.raw, &l) || s == nil {
				continue
			}
			m := l.CaseMemory
			m.Line = p.line
			v.memory(at, s, m)
			s.Memories = append(s.Memories, m)
		case "probe":
			var l probeLine
			if !v.decode(at, p.raw, &l) || s == nil {
				continue
			}
			q := l.CaseProbe
			q.Line = p.line
			s.Probes = append(s.Probes, q)
		}
	}
	for i := range c.Scenarios {
		v.whole(&c.Scenarios[i])
	}
	if len(v.probs) > 0 {
		slices.SortStableFunc(v.probs, func(a, b data.Problem) int {
			return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
		})
		return nil, &data.LoadError{Problems: v.probs}
	}
	return c, nil
}

func unknownScenario(id string) string {
	if id == "" {
		return "missing: the id of a scenario record"
	}
	return fmt.Sprintf("no scenario record has id %q", id)
}

// The lines of each record type, for strict decoding: a field that is not in the
// record's type is an error.
type (
	scenarioLine struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Domain  string `json:"domain"`
		Split   string `json:"split"`
		Title   string `json:"title"`
		Speaker string `json:"speaker,omitempty"`
	}
	// memoryLine and probeLine are a memory and a probe with the fields every line
	// has; Line is "-" in both, so a line cannot set it.
	memoryLine struct {
		Type     string `json:"type"`
		Scenario string `json:"scenario"`
		CaseMemory
	}
	probeLine struct {
		Type     string `json:"type"`
		Scenario string `json:"scenario"`
		CaseProbe
	}
)

// caseAt is where a record is.
type caseAt struct {
	file string
	line int
}

// caseValidator collects every problem of a corpus.
type caseValidator struct {
	probs []data.Problem
}

func (v *caseValidator) add(at caseAt, field, format string, args ...any) {
	v.probs = append(v.probs, data.Problem{File: at.file, Line: at.line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// decode strictly decodes one record into dst; a problem names the field it is in.
func (v *caseValidator) decode(at caseAt, raw []byte, dst any) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		return true
	}
	var te *json.UnmarshalTypeError
	var pe *time.ParseError
	switch {
	case errors.As(err, &te):
		// Fields of the embedded record read "CaseProbe.gold"; the line has no such level.
		f := strings.TrimPrefix(strings.TrimPrefix(te.Field, "CaseMemory."), "CaseProbe.")
		v.add(at, f, "want %s, got JSON %s", te.Type, te.Value)
	case errors.As(err, &pe):
		v.add(at, "time", "not an RFC 3339 time: %q (write 2026-03-01T09:00:00Z)", pe.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		v.add(at, f, "unknown field (see bench/testdata/cases/README.md)")
	default:
		v.add(at, "", "%v", err)
	}
	return false
}

func (v *caseValidator) scenario(at caseAt, s *Scenario) {
	switch {
	case s.ID == "":
		v.add(at, "id", "missing")
	case !idPattern.MatchString(s.ID):
		v.add(at, "id", "%q is not kebab case (lower-case letters, digits and single dashes)", s.ID)
	}
	if !slices.Contains(caseDomains, s.Domain) {
		v.add(at, "domain", "%q is not a domain (want one of %s)", s.Domain, strings.Join(caseDomains, ", "))
	}
	if s.Split != SplitDev && s.Split != SplitTest {
		v.add(at, "split", "%q: want dev or test", s.Split)
	}
	if strings.TrimSpace(s.Title) == "" {
		v.add(at, "title", "missing")
	}
}

// memory checks one memory against the memories of s before it.
func (v *caseValidator) memory(at caseAt, s *Scenario, m CaseMemory) {
	switch {
	case m.ID == "":
		v.add(at, "id", "missing")
	case !idPattern.MatchString(m.ID):
		v.add(at, "id", "%q is not kebab case", m.ID)
	default:
		if prev, dup := s.Memory(m.ID); dup {
			v.add(at, "id", "memory %q of scenario %q is on line %d already", m.ID, s.ID, prev.Line)
		}
	}
	if m.Time.IsZero() {
		v.add(at, "time", "missing (RFC 3339, e.g. 2026-03-01T09:00:00Z)")
	} else if n := len(s.Memories); n > 0 && m.Time.Before(s.Memories[n-1].Time) {
		v.add(at, "time", "%s is before the previous memory's %s: memories are in arrival order", m.Time.Format(time.RFC3339), s.Memories[n-1].Time.Format(time.RFC3339))
	}
	if strings.TrimSpace(m.Text) == "" {
		v.add(at, "text", "missing or blank")
	}
	if !slices.Contains(memoryKinds, m.Kind) {
		v.add(at, "kind", "%q: want one of %s", m.Kind, strings.Join(memoryKinds, ", "))
	}
	switch {
	case m.Kind == KindState && len(m.Facts) == 0:
		v.add(at, "facts", "a state memory states at least one fact")
	case m.Kind != KindState && m.Kind != "" && len(m.Facts) > 0:
		v.add(at, "facts", "a %s memory states no fact (make it a state memory)", m.Kind)
	}
	for i, f := range m.Facts {
		field := fmt.Sprintf("facts[%d]", i)
		if !slotPattern.MatchString(f.Slot) {
			v.add(at, field+".slot", "%q is not <subject>/<attribute> in kebab case (user/home)", f.Slot)
		}
		if strings.TrimSpace(f.Value) == "" {
			v.add(at, field+".value", "missing")
		}
		if f.Polarity != "" && f.Polarity != "is" && f.Polarity != "is_not" {
			v.add(at, field+".polarity", "%q: want is or is_not", f.Polarity)
		}
		if f.EventTime != "" && !validEventTime(f.EventTime) {
			v.add(at, field+".event_time", "%q: want YYYY-MM or YYYY-MM-DD", f.EventTime)
		}
	}
	related := map[string]bool{}
	for i, r := range m.Relations {
		field := fmt.Sprintf("relations[%d]", i)
		old, ok := s.Memory(r.To)
		switch {
		case r.To == "":
			v.add(at, field+".to", "missing")
		case r.To == m.ID:
			v.add(at, field+".to", "a memory cannot relate to itself")
		case !ok:
			v.add(at, field+".to", "no earlier memory %q in scenario %q (relations point back in arrival order)", r.To, s.ID)
		case !sharesSlot(old, m):
			v.add(at, field+".to", "memory %q shares no slot with this one (%s vs %s)", r.To, strings.Join(old.slots(), ","), strings.Join(m.slots(), ","))
		case related[r.To]:
			v.add(at, field+".to", "a second relation to %q", r.To)
		}
		related[r.To] = true
		v.relation(at, field, r)
	}
	// Every slot's latest earlier memory is annotated, so that no same-slot pair lacks a
	// gold label.
	for _, slot := range m.slots() {
		for k := len(s.Memories) - 1; k >= 0; k-- {
			prev := s.Memories[k]
			if slices.Contains(prev.slots(), slot) {
				if !related[prev.ID] {
					v.add(at, "relations", "no relation to %s, the latest earlier memory of slot %s", prev.ID, slot)
				}
				break
			}
		}
	}
}

func (v *caseValidator) relation(at caseAt, field string, r CaseRelation) {
	switch r.Status {
	case judge.StatusConflict:
		if r.ConflictType == judge.TypeNone || !r.ConflictType.Valid() {
			v.add(at, field+".conflict_type", "%q: a conflict needs one of temporal_update, explicit_negation, value_discrepancy, scope_mismatch, implicit_violation", r.ConflictType)
		} else if !slices.Contains(judge.AllowedActions(r.ConflictType), r.Action) {
			v.add(at, field+".action", "%q does not fit %s (want one of %v)", r.Action, r.ConflictType, judge.AllowedActions(r.ConflictType))
		}
	case judge.StatusConsistent:
		if r.ConflictType != judge.TypeNone {
			v.add(at, field+".conflict_type", "%q: a consistent pair has conflict type none", r.ConflictType)
		}
		if r.Action != judge.ActionKeep && r.Action != judge.ActionCoexist {
			v.add(at, field+".action", "%q: a consistent pair is keep (a restatement) or coexist (another value of a multi-valued attribute)", r.Action)
		}
	default:
		v.add(at, field+".status", "%q: want conflict or consistent (pairs of other slots are derived, not annotated)", r.Status)
	}
}

// whole checks what needs the whole scenario: its size and its probes.
func (v *caseValidator) whole(s *Scenario) {
	at := caseAt{file: s.File, line: s.Line}
	if len(s.Memories) < 2 {
		v.add(at, "", "scenario %q has %d memories; a state change needs at least 2", s.ID, len(s.Memories))
	}
	if len(s.Probes) == 0 {
		v.add(at, "", "scenario %q has no probe", s.ID)
	}
	seen := map[string]int{}
	for _, p := range s.Probes {
		at := caseAt{file: s.File, line: p.Line}
		if p.ID == "" {
			v.add(at, "id", "missing")
		} else if l, dup := seen[p.ID]; dup {
			v.add(at, "id", "probe %q of scenario %q is on line %d already", p.ID, s.ID, l)
		}
		seen[p.ID] = p.Line
		if !slices.Contains(probeKinds, p.Kind) {
			v.add(at, "kind", "%q: want one of %s", p.Kind, strings.Join(probeKinds, ", "))
		}
		if strings.TrimSpace(p.Question) == "" {
			v.add(at, "question", "missing or blank")
		}
		if p.Slot != "" && !slotPattern.MatchString(p.Slot) {
			v.add(at, "slot", "%q is not <subject>/<attribute> in kebab case", p.Slot)
		}
		if len(p.Gold) == 0 {
			v.add(at, "gold", "missing: the values a right answer holds")
		}
		if p.Kind == ProbeChange && len(p.Gold) < 2 {
			v.add(at, "gold", "a change probe names the old and the new value, oldest first")
		}
		v.values(at, s, p, "gold", p.Gold)
		v.values(at, s, p, "stale", p.Stale)
		for i, g := range p.Gold {
			if slices.ContainsFunc(p.Stale, func(x string) bool { return strings.EqualFold(strings.TrimSpace(x), strings.TrimSpace(g)) }) {
				v.add(at, fmt.Sprintf("gold[%d]", i), "%q is stale too", g)
			}
		}
		if len(p.GoldMemories) == 0 {
			v.add(at, "gold_memories", "missing: the memories that state the gold state")
		}
		v.memoryRefs(at, s, "gold_memories", p.GoldMemories)
		v.memoryRefs(at, s, "stale_memories", p.StaleMemories)
		for i, id := range p.StaleMemories {
			if slices.Contains(p.GoldMemories, id) {
				v.add(at, fmt.Sprintf("stale_memories[%d]", i), "%q is a gold memory too", id)
			}
		}
		// Each gold memory holds a gold value, or says it plainly enough that some other
		// memory does: a memory with no gold value at all is a wrong reference.
		for i, id := range p.GoldMemories {
			m, ok := s.Memory(id)
			if ok && m.Kind == KindState && !slices.ContainsFunc(p.Gold, func(g string) bool { return holdsKey(m.Text, g) || factHolds(m, g) }) {
				v.add(at, fmt.Sprintf("gold_memories[%d]", i), "memory %s states none of the gold values %q", id, p.Gold)
			}
		}
		if p.Kind == ProbeChange && len(p.GoldMemories) < 2 {
			v.add(at, "gold_memories", "a change probe names the memories of the old and the new state, oldest first")
		}
	}
}

// values checks that each value appears in some memory of the scenario and, for gold
// values, not in the question.
func (v *caseValidator) values(at caseAt, s *Scenario, p CaseProbe, field string, vals []string) {
	for i, g := range vals {
		f := fmt.Sprintf("%s[%d]", field, i)
		if len(keyWords(g)) == 0 {
			v.add(at, f, "%q has no words to match", g)
			continue
		}
		if !slices.ContainsFunc(s.Memories, func(m CaseMemory) bool { return holdsKey(m.Text, g) }) {
			v.add(at, f, "%q appears in no memory of scenario %q (values are matched by their words)", g, s.ID)
		}
		if field == "gold" && holdsKey(p.Question, g) {
			v.add(at, f, "%q is in the question: the question gives the answer away", g)
		}
	}
}

func (v *caseValidator) memoryRefs(at caseAt, s *Scenario, field string, ids []string) {
	for i, id := range ids {
		if _, ok := s.Memory(id); !ok {
			v.add(at, fmt.Sprintf("%s[%d]", field, i), "no memory %q in scenario %q", id, s.ID)
		}
	}
}

// factHolds reports whether one of m's facts has value g (a memory that says "the same
// again" has the value in its annotation only).
func factHolds(m CaseMemory, g string) bool {
	return slices.ContainsFunc(m.Facts, func(f CaseFact) bool { return holdsKey(f.Value, g) })
}

func sharesSlot(a, b CaseMemory) bool {
	for _, s := range a.slots() {
		if slices.Contains(b.slots(), s) {
			return true
		}
	}
	return false
}

func validEventTime(s string) bool {
	for _, layout := range []string{"2006-01", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// Pair kinds: how a corpus pair was derived.
const (
	PairRelation     = "relation"      // annotated: same slot, conflict or consistent
	PairOtherSlot    = "other-slot"    // the latest earlier state memory of no shared slot
	PairOtherSubject = "other-subject" // the latest earlier memory of the same attribute of another subject
	PairNonState     = "non-state"     // the latest earlier memory that states nothing
)

// CasePair is a pair of memories of one scenario with its gold label, for the Sentry
// gate and the Judge.
type CasePair struct {
	ID       string `json:"id"`
	Scenario string `json:"scenario"`
	Domain   string `json:"domain"`
	Split    string `json:"split"`
	Kind     string `json:"kind"`
	// Old and New are memory ids; OldText and NewText their texts.
	Old      string    `json:"old"`
	New      string    `json:"new"`
	OldText  string    `json:"old_text"`
	NewText  string    `json:"new_text"`
	OldTime  time.Time `json:"old_time"`
	NewTime  time.Time `json:"new_time"`
	SameSlot bool      `json:"same_slot"`
	Gold     eval.Gold `json:"gold"`
}

// Pairs derives the corpus's pairs from its annotations: one per relation, and for each
// state memory up to three unrelated ones (see PairOtherSlot, PairOtherSubject,
// PairNonState), in scenario and arrival order.
func (c *Corpus) Pairs() []CasePair {
	var out []CasePair
	for _, s := range c.Scenarios {
		for k, m := range s.Memories {
			if m.Kind != KindState {
				continue
			}
			mk := func(kind string, old CaseMemory, same bool, g eval.Gold) CasePair {
				return CasePair{
					ID: s.ID + "/" + m.ID + "~" + old.ID, Scenario: s.ID, Domain: s.Domain, Split: s.Split, Kind: kind,
					Old: old.ID, New: m.ID, OldText: old.Text, NewText: m.Text, OldTime: old.Time, NewTime: m.Time,
					SameSlot: same, Gold: g,
				}
			}
			used := map[string]bool{}
			for _, r := range m.Relations {
				old, _ := s.Memory(r.To)
				g := eval.Gold{Status: r.Status, Type: r.ConflictType, Action: r.Action}
				if r.Status != judge.StatusConflict {
					// keep and coexist both leave the two current (eval.Gold.ActionOK).
					g.Action = judge.ActionKeep
				}
				out = append(out, mk(PairRelation, old, true, g))
				used[old.ID] = true
			}
			unrelated := eval.Gold{Status: judge.StatusUnrelated, Type: judge.TypeNone, Action: judge.ActionKeep}
			attrs := map[string]bool{}
			for _, f := range m.Facts {
				attrs[f.Attribute()] = true
			}
			var otherSlot, otherSubject, nonState *CaseMemory
			for j := k - 1; j >= 0; j-- {
				p := &s.Memories[j]
				if used[p.ID] || sharesSlot(*p, m) {
					continue
				}
				switch {
				case p.Kind != KindState:
					if nonState == nil {
						nonState = p
					}
				default:
					if otherSlot == nil {
						otherSlot = p
					}
					if otherSubject == nil && slices.ContainsFunc(p.Facts, func(f CaseFact) bool { return attrs[f.Attribute()] }) {
						otherSubject = p
					}
				}
			}
			if otherSubject != nil {
				out = append(out, mk(PairOtherSubject, *otherSubject, false, unrelated))
			}
			if otherSlot != nil && otherSlot != otherSubject {
				out = append(out, mk(PairOtherSlot, *otherSlot, false, unrelated))
			}
			if nonState != nil {
				out = append(out, mk(PairNonState, *nonState, false, unrelated))
			}
		}
	}
	return out
}
