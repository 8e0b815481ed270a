package data

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const allCategories = "job, location, relationship, pets, hobbies, likes_dislikes, numerical"

// problems returns the problem lines of a *LoadError, failing the test for any other error.
func problems(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error is %T, not *LoadError: %v", err, err)
	}
	out := make([]string, len(le.Problems))
	for i, p := range le.Problems {
		out[i] = p.String()
	}
	return out
}

func TestReadProfilesProblems(t *testing.T) {
	const fact = `{"slot_key":"job","topic_key":"work","category":"job","value":"nurse","text":"I'm a nurse."}`
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"valid JSONL", `{"id":"p1","facts":[` + fact + `]}` + "\n\n" + `{"id":"p2","facts":[` + fact + `]}`, nil},
		{"valid JSON array", "[\n" + `{"id":"p1","facts":[` + fact + `]}` + ",\n" + `{"id":"p2","facts":[` + fact + `]}` + "\n]\n", nil},
		{"empty file", " \n\n", []string{"profiles.jsonl:1: no records"}},
		{"empty JSON array", "\n [ ]", []string{"profiles.jsonl:2: no records"}},
		{"every problem of a JSONL file at once", strings.Join([]string{
			`{"id":"p1","facts":[` + fact + `]}`,
			`{"id":"p2","facts":[{"slot_key":"job","topic_key":"work","category":"sports","value":"v","text":"t"},{"slot_key":"job","topic_key":"Work","category":"job","value":" ","text":"t","colour":"red"}]}`,
			``,
			`{"id":"p1","facts":[]}`,
			`nope`,
			`[1,2]`,
			`{"id":7,"facts":{}}`,
			`{"facts":[{"slot_key":"a"}],"facts":[]}`,
			`{"id":"p 9","facts":[null,` + fact + `]}`,
			`{"id":"p10","facts":[` + fact + `]} {}`,
		}, "\n"), []string{
			`profiles.jsonl:2: facts[0].category: unknown category "sports" (want ` + allCategories + `)`,
			`profiles.jsonl:2: facts[1].slot_key: duplicate slot key "job" (also facts[0])`,
			`profiles.jsonl:2: facts[1].topic_key: topic key "Work" does not match ` + keyPattern,
			`profiles.jsonl:2: facts[1].value: empty value`,
			`profiles.jsonl:2: facts[1].colour: unknown field (want slot_key, topic_key, category, value, text)`,
			`profiles.jsonl:4: id: duplicate profile id "p1" (first on line 1)`,
			`profiles.jsonl:4: facts: no facts`,
			`profiles.jsonl:5: invalid JSON: column 2: invalid character 'o' in literal null (expecting 'u')`,
			`profiles.jsonl:6: want an object, got an array`,
			`profiles.jsonl:7: id: want a string, got a number`,
			`profiles.jsonl:7: facts: want an array, got an object`,
			`profiles.jsonl:8: id: missing`,
			`profiles.jsonl:8: facts[0].topic_key: missing`,
			`profiles.jsonl:8: facts[0].category: missing`,
			`profiles.jsonl:8: facts[0].value: missing`,
			`profiles.jsonl:8: facts[0].text: missing`,
			`profiles.jsonl:8: facts: duplicate field`,
			`profiles.jsonl:9: id: id "p 9" does not match ` + idPattern,
			`profiles.jsonl:9: facts[0]: want an object, got null`,
			`profiles.jsonl:10: invalid JSON: column 117: invalid character '{' after top-level value`,
		}},
		{"a JSON array reports the line of each field", `[
  {
    "id": "p1",
    "facts": [
      {
        "slot_key": "job",
        "topic_key": "work",
        "category": "sports",
        "value": "nurse",
        "text": "I'm a nurse.",
        "extra": true
      }
    ]
  },
  {"id": "", "facts": [` + fact + `]}
]`, []string{
			`profiles.jsonl:8: facts[0].category: unknown category "sports" (want ` + allCategories + `)`,
			`profiles.jsonl:11: facts[0].extra: unknown field (want slot_key, topic_key, category, value, text)`,
			`profiles.jsonl:15: id: empty id`,
		}},
		{"a JSON array stops at a syntax error", "[\n" + `{"id":"p1","facts":[` + fact + `]},` + "\n" + `{"id":"p2" "facts":[]}` + "\n]",
			[]string{`profiles.jsonl:3: invalid JSON: invalid character '"' after object key:value pair`}},
		{"data after a JSON array", "[" + `{"id":"p1","facts":[` + fact + `]}` + "]\n\n{}",
			[]string{`profiles.jsonl:3: unexpected data after the JSON array`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := ReadProfiles(strings.NewReader(tt.in), "profiles.jsonl")
			got := problems(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if err == nil && len(ps) != 2 {
				t.Errorf("got %d profiles, want 2", len(ps))
			}
		})
	}
}

func TestReadInteractionsProblems(t *testing.T) {
	const ok = `{"id":"i1","profile_id":"p1","slot_key":"job","text":"I quit.","relation":"conflicting","update_type":"temporal_update"}`
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"valid", ok + "\n" + `{"id":"i2","profile_id":"p1","slot_key":"job","text":"Still there.","relation":"consistent","update_type":"temporal_update","value":"nurse","family":"job/direct"}`, nil},
		{"every problem at once", strings.Join([]string{
			ok,
			`{"id":"i1","profile_id":"p1","slot_key":"Job","text":"","relation":"contradicts","update_type":"negation","family":"Job Direct","when":"now"}`,
			`{"id":"i3","profile_id":"","slot_key":"job","text":"x","relation":"consistent","value":3}`,
		}, "\n"), []string{
			`interactions.jsonl:2: id: duplicate interaction id "i1" (first on line 1)`,
			`interactions.jsonl:2: slot_key: slot key "Job" does not match ` + keyPattern,
			`interactions.jsonl:2: text: empty text`,
			`interactions.jsonl:2: relation: unknown relation "contradicts" (want consistent, conflicting)`,
			`interactions.jsonl:2: update_type: unknown update type "negation" (want temporal_update, explicit_negation, value_discrepancy, scope_mismatch, implicit_violation)`,
			`interactions.jsonl:2: family: family "Job Direct" does not match ` + familyPattern,
			`interactions.jsonl:2: when: unknown field (want id, profile_id, slot_key, text, relation, update_type, value, family)`,
			`interactions.jsonl:3: update_type: missing`,
			`interactions.jsonl:3: profile_id: empty profile id`,
			`interactions.jsonl:3: value: want a string, got a number`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is, err := ReadInteractions(strings.NewReader(tt.in), "interactions.jsonl")
			if diff := cmp.Diff(tt.want, problems(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if err == nil && len(is) != 2 {
				t.Errorf("got %d interactions, want 2", len(is))
			}
		})
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadChecksLinks(t *testing.T) {
	profiles := `{"id":"p1","facts":[{"slot_key":"job","topic_key":"work","category":"job","value":"nurse","text":"I'm a nurse."},` +
		`{"slot_key":"age","topic_key":"age","category":"numerical","value":"34","text":"I'm 34."}]}` + "\n" +
		`{"id":"p1","facts":[{"slot_key":"job","topic_key":"work","category":"jobs","value":"x","text":"x"}]}` + "\n"
	interactions := strings.Join([]string{
		`{"id":"i1","profile_id":"p1","slot_key":"job","text":"I quit.","relation":"conflicting","update_type":"temporal_update"}`,
		`{"id":"i2","profile_id":"p2","slot_key":"job","text":"I quit.","relation":"conflicting","update_type":"temporal_update"}`,
		`{"id":"i3","profile_id":"p1","slot_key":"pet.1","text":"No dog.","relation":"conflicting","update_type":"explicit_negation"}`,
		`{"id":"i4","profile_id":"p1","slot_key":"age","text":"I'm 40.","relation":"conflicting","update_type":"temporal_update"}`,
		`{"id":"i5","profile_id":"p1","slot_key":"age","text":"Ran my fortieth birthday party.","relation":"conflicting","update_type":"implicit_violation"}`,
	}, "\n")
	dir := writeFiles(t, map[string]string{ProfilesFile: profiles, InteractionsFile: interactions})
	_, err := Load(dir)
	p, i := filepath.Join(dir, ProfilesFile), filepath.Join(dir, InteractionsFile)
	want := []string{
		p + `:2: id: duplicate profile id "p1" (first on line 1)`,
		p + `:2: facts[0].category: unknown category "jobs" (want ` + allCategories + `)`,
		i + `:2: profile_id: no profile "p2"`,
		i + `:3: slot_key: profile "p1" has no slot "pet.1"`,
		i + `:4: update_type: update type "temporal_update" does not fit category "numerical" of slot "age" (want value_discrepancy or implicit_violation)`,
	}
	if diff := cmp.Diff(want, problems(t, err)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestLoadMissingFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{ProfilesFile: "[]"})
	if _, err := Load(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load without interactions: %v, want fs.ErrNotExist", err)
	}
	if _, err := LoadProfiles(filepath.Join(dir, "none.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadProfiles of a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := LoadInteractions(filepath.Join(dir, "none.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadInteractions of a missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestLoadErrorMessage(t *testing.T) {
	var b strings.Builder
	for range maxShown + 5 {
		b.WriteString("{}\n")
	}
	_, err := ReadInteractions(strings.NewReader(b.String()), "x.jsonl")
	ps := problems(t, err)
	if want := 6 * (maxShown + 5); len(ps) != want { // six required fields per record
		t.Fatalf("got %d problems, want %d", len(ps), want)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxShown+1 {
		t.Fatalf("message has %d lines, want %d", len(lines), maxShown+1)
	}
	if want := "x.jsonl:1: id: missing"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "… and 530 more problems"; lines[maxShown] != want {
		t.Errorf("last line %q, want %q", lines[maxShown], want)
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	d, err := Generate(GenConfig{Seed: 3, Profiles: 6, Interactions: 60, ImplicitRate: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "nested", "ds")
	if err := d.Write(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{InteractionsFile, ProfilesFile}; !slices.Equal(names, want) {
		t.Errorf("directory holds %v, want %v (no temporary files)", names, want)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, got); diff != "" {
		t.Errorf("loaded dataset differs (-written +loaded):\n%s", diff)
	}
	if got.Hash() != d.Hash() {
		t.Errorf("hash changed over a round trip")
	}

	// Overwriting replaces the files.
	d.Interactions = d.Interactions[:10]
	if err := d.Write(dir); err != nil {
		t.Fatal(err)
	}
	is, err := LoadInteractions(filepath.Join(dir, InteractionsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(is) != 10 {
		t.Errorf("after rewriting, %d interactions, want 10", len(is))
	}
}

func TestWriteRejectsInvalid(t *testing.T) {
	d := &Dataset{Profiles: []Profile{{ID: "p1"}}}
	dir := filepath.Join(t.TempDir(), "ds")
	err := d.Write(dir)
	if want := "profiles[0].facts: no facts"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Write of an invalid dataset: %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write of an invalid dataset created %s", dir)
	}
}

func FuzzLoadJSONL(f *testing.F) {
	d, err := Generate(GenConfig{Seed: 1, Profiles: 2, Interactions: 4})
	if err != nil {
		f.Fatal(err)
	}
	var pb, ib bytes.Buffer
	if err := WriteJSONL(&pb, d.Profiles); err != nil {
		f.Fatal(err)
	}
	if err := WriteJSONL(&ib, d.Interactions); err != nil {
		f.Fatal(err)
	}
	f.Add(pb.Bytes())
	f.Add(ib.Bytes())
	f.Add([]byte(`[{"id":"p1","facts":[{"slot_key":"a","topic_key":"b","category":"pets","value":"v","text":"t"}]}]`))
	f.Add([]byte("{\"id\":\"x\"}\n[1,{]\n\"\\ud800\"\n{\"id\":\"x\",\"id\":1,\"facts\":[null,{},[]]}"))
	f.Add([]byte("\xef\xbb\xbf[\n{},\n{\"facts\":{\"a\":1}}\n]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		nLines := bytes.Count(b, []byte("\n")) + 1
		checkProblems := func(err error) {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T, not *LoadError: %v", err, err)
			}
			if len(le.Problems) == 0 {
				t.Fatal("LoadError without problems")
			}
			for _, p := range le.Problems {
				if p.File != "in.jsonl" || p.Line < 1 || p.Line > nLines || p.Msg == "" {
					t.Fatalf("badly located problem %+v (input has %d lines)", p, nLines)
				}
			}
		}
		if ps, err := ReadProfiles(bytes.NewReader(b), "in.jsonl"); err != nil {
			checkProblems(err)
		} else {
			var buf bytes.Buffer
			if err := WriteJSONL(&buf, ps); err != nil {
				t.Fatal(err)
			}
			again, err := ReadProfiles(&buf, "again.jsonl")
			if err != nil {
				t.Fatalf("profiles do not read back: %v", err)
			}
			if diff := cmp.Diff(ps, again); diff != "" {
				t.Fatalf("profiles changed over a round trip:\n%s", diff)
			}
		}
		if is, err := ReadInteractions(bytes.NewReader(b), "in.jsonl"); err != nil {
			checkProblems(err)
		} else {
			var buf bytes.Buffer
			if err := WriteJSONL(&buf, is); err != nil {
				t.Fatal(err)
			}
			again, err := ReadInteractions(&buf, "again.jsonl")
			if err != nil {
				t.Fatalf("interactions do not read back: %v", err)
			}
			if diff := cmp.Diff(is, again); diff != "" {
				t.Fatalf("interactions changed over a round trip:\n%s", diff)
			}
		}
	})
}
