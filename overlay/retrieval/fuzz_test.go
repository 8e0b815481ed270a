package retrieval

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func FuzzProfile(f *testing.F) {
	for _, q := range []string{
		"where do I live now?", "where did I live before?", "how has my diet changed?",
		"my former colleague still lives in Paris — where do I live?", "I don't live in Berlin anymore",
		"Don't call me before 9", "Do I work from 9 to 5?", "Is my old friend Tom still in Berlin?",
		"I moved from Berlin to Lisbon — when was that?", "only on weekends, except at work, once a week",
		"", "?", "but but but", "- - -", "before", "\xff\xfe", "é" + strings.Repeat("a, ", 100),
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := ProfileQuery(q)
		if !p.Mode.Valid() {
			t.Fatalf("mode %q", p.Mode)
		}
		for _, h := range p.Hints {
			if !utf8.ValidString(h) {
				t.Fatalf("hint %q is not valid UTF-8", h)
			}
		}
		checkProfileInvariants(t, p)
		if diff := cmp.Diff(p, ProfileQuery(q)); diff != "" {
			t.Fatalf("not deterministic (-first +second):\n%s", diff)
		}
	})
}

func FuzzParseController(f *testing.F) {
	valid := output(sel("c2", 1), sel("t1", 2))
	for _, s := range []string{
		valid,
		strings.Replace(output(), `"fallback":false`, `"fallback":true`, 1),
		output(sel("a", 1), sel("b", 2), sel("c", 3), sel("d", 4)),
		output(sel("c2", 1), sel("c2", 2)),
		"```json\n" + valid + "\n```",
		valid + " ok", "Sure: " + valid, "[]", "null", "{}", `{"query_mode":null}`,
		strings.Replace(valid, `"fallback":false`, `"fallback":false,"fallback":true`, 1),
		`{"a":{"b":[{"c":1,"c":2}]}}`, "{", "",
	} {
		f.Add(s)
	}
	sentinels := []error{ErrNotJSON, ErrSchema, ErrTooMany, ErrDuplicate, ErrNoSelection}
	f.Fuzz(func(t *testing.T, text string) {
		out, err := ParseController(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "parse controller output: ") {
				t.Fatalf("error %q lacks its prefix", err)
			}
			found := false
			for _, s := range sentinels {
				found = found || errors.Is(err, s)
			}
			if !found {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if !json.Valid([]byte(text)) {
			t.Fatalf("accepted invalid JSON %q", text)
		}
		if err := out.Validate(); err != nil {
			t.Fatalf("accepted an output that does not validate: %v", err)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		back, err := ParseController(string(b))
		if err != nil {
			t.Fatalf("re-parse of %s: %v", b, err)
		}
		if diff := cmp.Diff(out, back); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		// Apply over a pool of exactly the selected ids applies it, unless it falls back;
		// over a pool without them, it never does.
		var pool []Candidate
		for _, s := range out.Selected {
			pool = append(pool, Candidate{ID: s.ID})
		}
		pool = append(pool, Candidate{ID: "\x00other"})
		final, st := Apply(pool, out, ControllerOnline)
		if st.Applied == out.Fallback {
			t.Fatalf("applied %t with fallback %t: %s", st.Applied, out.Fallback, st.Reason)
		}
		if st.Applied && len(final) != len(out.Selected) {
			t.Fatalf("applied %d selections as %d rows", len(out.Selected), len(final))
		}
		if len(out.Selected) > 0 {
			if _, st := Apply(pool[len(pool)-1:], out, ControllerOnline); st.Applied {
				t.Fatal("applied ids outside the pool")
			}
		}
	})
}
