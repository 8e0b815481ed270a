package data

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/atma-dev/atma/internal/atomicfile"
)

// File names inside a dataset directory.
const (
	ProfilesFile     = "profiles.jsonl"
	InteractionsFile = "interactions.jsonl"
)

// Problem is one thing wrong with a data file or dataset.
type Problem struct {
	File  string // empty for in-memory data
	Line  int    // 1-based; 0 when unknown
	Field string // "facts[3].category"; empty for problems with a whole record or file
	Msg   string
	// Offset is the byte offset of the field or record in the file, when Line is known.
	Offset int
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d", p.Line)
		}
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// LoadError lists every problem found in data files or a dataset, in file and line order.
type LoadError struct {
	Problems []Problem
}

// maxShown bounds the message of a LoadError; Problems keeps them all.
const maxShown = 100

func (e *LoadError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i == maxShown {
			fmt.Fprintf(&b, "\n… and %d more problems", len(e.Problems)-maxShown)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// LoadProfiles reads profiles from a JSONL file (one profile per line) or a JSON array; the
// first character that is not white space decides. Every problem — malformed JSON, unknown,
// missing or mistyped fields, bad values, duplicate ids — is reported at once in a
// *LoadError, each as path:line: field: message.
func LoadProfiles(path string) ([]Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load profiles: %w", err)
	}
	return parseProfiles(path, b)
}

// LoadInteractions reads interactions like LoadProfiles reads profiles. It checks each
// interaction on its own; Load also checks them against their profiles.
func LoadInteractions(path string) ([]Interaction, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load interactions: %w", err)
	}
	return parseInteractions(path, b)
}

// ReadProfiles is LoadProfiles for a reader; name is used in problem reports.
func ReadProfiles(r io.Reader, name string) ([]Profile, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read profiles: %w", err)
	}
	return parseProfiles(name, b)
}

// ReadInteractions is LoadInteractions for a reader; name is used in problem reports.
func ReadInteractions(r io.Reader, name string) ([]Interaction, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read interactions: %w", err)
	}
	return parseInteractions(name, b)
}

func parseProfiles(name string, b []byte) ([]Profile, error) {
	ps, src, probs := decodeProfiles(name, b)
	checkProfiles(ps, src, func(p Problem) { probs = append(probs, p) })
	if len(probs) > 0 {
		return nil, &LoadError{Problems: sortProblems(probs, name)}
	}
	return ps, nil
}

func parseInteractions(name string, b []byte) ([]Interaction, error) {
	is, src, probs := decodeInteractions(name, b)
	checkInteractions(is, src, func(p Problem) { probs = append(probs, p) })
	if len(probs) > 0 {
		return nil, &LoadError{Problems: sortProblems(probs, name)}
	}
	return is, nil
}

// Load reads dir/profiles.jsonl and dir/interactions.jsonl (each JSONL or a JSON array) and
// checks every interaction against its profile. All problems of both files come back at once
// in a *LoadError.
func Load(dir string) (*Dataset, error) {
	pPath := filepath.Join(dir, ProfilesFile)
	iPath := filepath.Join(dir, InteractionsFile)
	pb, err := os.ReadFile(pPath)
	if err != nil {
		return nil, fmt.Errorf("load dataset: %w", err)
	}
	ib, err := os.ReadFile(iPath)
	if err != nil {
		return nil, fmt.Errorf("load dataset: %w", err)
	}
	ps, psrc, probs := decodeProfiles(pPath, pb)
	is, isrc, iprobs := decodeInteractions(iPath, ib)
	probs = append(probs, iprobs...)
	add := func(p Problem) { probs = append(probs, p) }
	checkProfiles(ps, psrc, add)
	checkInteractions(is, isrc, add)
	checkLinks(ps, is, isrc, add)
	if len(probs) > 0 {
		return nil, &LoadError{Problems: sortProblems(probs, pPath, iPath)}
	}
	return &Dataset{Profiles: ps, Interactions: is}, nil
}

// sortProblems orders problems by file (in the given order) and position.
func sortProblems(probs []Problem, files ...string) []Problem {
	slices.SortStableFunc(probs, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(slices.Index(files, a.File), slices.Index(files, b.File)),
			cmp.Compare(a.Line, b.Line), cmp.Compare(a.Offset, b.Offset))
	})
	return probs
}

// Write stores the dataset as dir/profiles.jsonl and dir/interactions.jsonl, creating dir.
// Each file is written to a temporary file and renamed, so readers never see half a file.
// An invalid dataset is not written.
func (d *Dataset) Write(dir string) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	if err := WriteJSONLFile(filepath.Join(dir, ProfilesFile), d.Profiles); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	if err := WriteJSONLFile(filepath.Join(dir, InteractionsFile), d.Interactions); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	return nil
}

// WriteJSONL writes records one JSON object per line, HTML characters unescaped.
func WriteJSONL[T any](w io.Writer, records []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("encode record: %w", err)
		}
	}
	return bw.Flush()
}

// WriteJSONLFile writes records as JSON lines to path atomically: a synced temporary file
// in the same directory, renamed into place.
func WriteJSONLFile[T any](path string, records []T) error {
	return atomicfile.WriteFunc(path, func(w io.Writer) error { return WriteJSONL(w, records) })
}

// source locates the records of one file (or in-memory slice) for problem reports.
type source struct {
	file     string            // empty: in memory
	name     string            // in memory: "profiles" or "interactions"
	line     func(off int) int // line of a byte offset
	recOff   []int             // per record: offset of its first byte
	fieldOff []map[string]int  // per record: field path → offset of its value
	bad      [][]string        // per record: field paths that already have a problem
}

func memSource(name string) *source { return &source{name: name} }

// at makes a problem for record i at path; ok is false when the path (or a field above it)
// already has a decoding problem, so one mistake is reported once.
func (s *source) at(i int, path, msg string) (Problem, bool) {
	if s.file == "" {
		field := fmt.Sprintf("%s[%d]", s.name, i)
		if path != "" {
			field += "." + path
		}
		return Problem{Field: field, Msg: msg}, true
	}
	for _, b := range s.bad[i] {
		if b == "" || path == b || strings.HasPrefix(path, b+".") || strings.HasPrefix(path, b+"[") {
			return Problem{}, false
		}
	}
	off := s.recOff[i]
	if o, ok := s.fieldOff[i][path]; ok {
		off = o
	}
	return Problem{File: s.file, Line: s.line(off), Field: path, Msg: msg, Offset: off}, true
}

// where names record i for cross-references in messages.
func (s *source) where(i int) string {
	if s.file == "" {
		return fmt.Sprintf("at %s[%d]", s.name, i)
	}
	return fmt.Sprintf("on line %d", s.line(s.recOff[i]))
}

// decoder turns the bytes of one file into records, collecting problems with their lines.
type decoder struct {
	file       string
	lineStarts []int
	probs      []Problem
	src        *source
	// state of the record being decoded
	offs map[string]int
	bad  []string
}

func newDecoder(file string, b []byte) *decoder {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	d := &decoder{file: file, lineStarts: starts}
	d.src = &source{file: file, line: d.line}
	return d
}

func (d *decoder) line(off int) int {
	return sort.Search(len(d.lineStarts), func(k int) bool { return d.lineStarts[k] > off })
}

func (d *decoder) fileProblem(off int, format string, args ...any) {
	d.probs = append(d.probs, Problem{File: d.file, Line: d.line(off), Msg: fmt.Sprintf(format, args...), Offset: off})
}

// problem reports a decoding problem at path and marks the path so that later checks of the
// same field stay quiet.
func (d *decoder) problem(off int, path, format string, args ...any) {
	d.probs = append(d.probs, Problem{File: d.file, Line: d.line(off), Field: path, Msg: fmt.Sprintf(format, args...), Offset: off})
	d.bad = append(d.bad, path)
}

// record is one top-level JSON value and the offset of its first byte.
type record struct {
	raw []byte
	off int
}

// records splits the file into top-level values: the elements of a JSON array when the
// first character that is not white space is '[', else one value per non-blank line.
func (d *decoder) records(b []byte) []record {
	start := 0
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		start = 3
	}
	trimmed := bytes.TrimLeft(b[start:], " \t\r\n")
	if len(trimmed) == 0 {
		d.fileProblem(0, "no records")
		return nil
	}
	if trimmed[0] == '[' {
		recs := d.arrayRecords(b, len(b)-len(trimmed))
		if len(recs) == 0 && len(d.probs) == 0 {
			d.fileProblem(len(b)-len(trimmed), "no records")
		}
		return recs
	}
	var recs []record
	for off := start; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += off
		}
		line := b[off:end]
		lead := len(line) - len(bytes.TrimLeft(line, " \t\r"))
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if err := checkValue(line); err != nil {
				d.fileProblem(off, "invalid JSON: %v", err)
			} else {
				recs = append(recs, record{raw: line, off: off + lead})
			}
		}
		off = end + 1
	}
	return recs
}

// checkValue reports whether b is exactly one JSON value.
func checkValue(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var v json.RawMessage
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("column %d: %w", se.Offset, err)
	}
	if err == nil {
		err = errors.New("not a JSON value")
	}
	return err
}

func (d *decoder) arrayRecords(b []byte, start int) []record {
	// On a syntax error the decoder's position is not where the error is; the scanner of
	// Unmarshal says where, as the number of bytes read.
	syntaxAt := func(err error) {
		var v json.RawMessage
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(b[start:], &v), &se) && se.Offset > 0 {
			d.fileProblem(start+int(se.Offset)-1, "invalid JSON: %v", se)
			return
		}
		d.fileProblem(start, "invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b[start:]))
	if _, err := dec.Token(); err != nil { // '['
		syntaxAt(err)
		return nil
	}
	var recs []record
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			syntaxAt(err)
			return recs
		}
		end := start + int(dec.InputOffset())
		recs = append(recs, record{raw: raw, off: end - len(raw)})
	}
	if _, err := dec.Token(); err != nil { // ']'
		syntaxAt(err)
		return recs
	}
	rest := b[start+int(dec.InputOffset()):]
	if t := bytes.TrimLeft(rest, " \t\r\n"); len(t) > 0 {
		d.fileProblem(len(b)-len(t), "unexpected data after the JSON array")
	}
	return recs
}

// begin starts a record at offset off.
func (d *decoder) begin(off int) {
	d.offs = map[string]int{}
	d.bad = nil
	d.src.recOff = append(d.src.recOff, off)
}

// end finishes the current record.
func (d *decoder) end() {
	d.src.fieldOff = append(d.src.fieldOff, d.offs)
	d.src.bad = append(d.src.bad, d.bad)
}

// jsonKind names the JSON type of a valid value for messages.
func jsonKind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// object walks the fields of a JSON object at off, calling fn for each known field with its
// raw value, offset and path. It reports a value that is not an object, unknown and
// duplicate fields and missing required ones.
func (d *decoder) object(raw []byte, off int, prefix string, known, required []string, fn func(key string, v []byte, off int, path string)) {
	if len(raw) == 0 || raw[0] != '{' {
		d.problem(off, prefix, "want an object, got %s", jsonKind(raw))
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		d.problem(off, prefix, "invalid JSON: %v", err)
		return
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			d.problem(off, prefix, "invalid JSON: %v", err)
			return
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			d.problem(off, prefix, "invalid JSON: %v", err)
			return
		}
		voff := off + int(dec.InputOffset()) - len(v)
		path := join(prefix, key)
		switch {
		case !slices.Contains(known, key):
			d.problem(voff, path, "unknown field (want %s)", strings.Join(known, ", "))
		case seen[key]:
			d.problem(voff, path, "duplicate field")
		default:
			seen[key] = true
			d.offs[path] = voff
			fn(key, v, voff, path)
		}
	}
	for _, k := range required {
		if !seen[k] {
			d.problem(off, join(prefix, k), "missing")
		}
	}
}

// str decodes a JSON string.
func (d *decoder) str(v []byte, off int, path string, dst *string) {
	if len(v) == 0 || v[0] != '"' {
		d.problem(off, path, "want a string, got %s", jsonKind(v))
		return
	}
	if err := json.Unmarshal(v, dst); err != nil {
		d.problem(off, path, "invalid string: %v", err)
	}
}

// array decodes a JSON array into its elements and their offsets.
func (d *decoder) array(v []byte, off int, path string) []record {
	if len(v) == 0 || v[0] != '[' {
		d.problem(off, path, "want an array, got %s", jsonKind(v))
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if _, err := dec.Token(); err != nil {
		d.problem(off, path, "invalid JSON: %v", err)
		return nil
	}
	var elems []record
	for dec.More() {
		var e json.RawMessage
		if err := dec.Decode(&e); err != nil {
			d.problem(off, path, "invalid JSON: %v", err)
			return nil
		}
		elems = append(elems, record{raw: e, off: off + int(dec.InputOffset()) - len(e)})
	}
	return elems
}

var (
	profileFields     = []string{"id", "facts"}
	factFields        = []string{"slot_key", "topic_key", "category", "value", "text"}
	interactionFields = []string{"id", "profile_id", "slot_key", "text", "relation", "update_type", "value", "family"}
	interactionNeeded = []string{"id", "profile_id", "slot_key", "text", "relation", "update_type"}
)

func decodeProfiles(file string, b []byte) ([]Profile, *source, []Problem) {
	d := newDecoder(file, b)
	recs := d.records(b)
	ps := make([]Profile, len(recs))
	for i, r := range recs {
		d.begin(r.off)
		p := &ps[i]
		d.object(r.raw, r.off, "", profileFields, profileFields, func(key string, v []byte, off int, path string) {
			switch key {
			case "id":
				d.str(v, off, path, &p.ID)
			case "facts":
				elems := d.array(v, off, path)
				p.Facts = make([]Fact, len(elems))
				for j, e := range elems {
					d.fact(e, fmt.Sprintf("facts[%d]", j), &p.Facts[j])
				}
			}
		})
		d.end()
	}
	return ps, d.src, d.probs
}

func (d *decoder) fact(e record, prefix string, f *Fact) {
	d.offs[prefix] = e.off
	d.object(e.raw, e.off, prefix, factFields, factFields, func(key string, v []byte, off int, path string) {
		var s string
		d.str(v, off, path, &s)
		switch key {
		case "slot_key":
			f.SlotKey = s
		case "topic_key":
			f.TopicKey = s
		case "category":
			f.Category = Category(s)
		case "value":
			f.Value = s
		case "text":
			f.Text = s
		}
	})
}

func decodeInteractions(file string, b []byte) ([]Interaction, *source, []Problem) {
	d := newDecoder(file, b)
	recs := d.records(b)
	is := make([]Interaction, len(recs))
	for i, r := range recs {
		d.begin(r.off)
		in := &is[i]
		d.object(r.raw, r.off, "", interactionFields, interactionNeeded, func(key string, v []byte, off int, path string) {
			var s string
			d.str(v, off, path, &s)
			switch key {
			case "id":
				in.ID = s
			case "profile_id":
				in.ProfileID = s
			case "slot_key":
				in.SlotKey = s
			case "text":
				in.Text = s
			case "relation":
				in.Relation = Relation(s)
			case "update_type":
				in.UpdateType = UpdateType(s)
			case "value":
				in.Value = s
			case "family":
				in.Family = s
			}
		})
		d.end()
	}
	return is, d.src, d.probs
}
