package bench

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/atma-dev/atma/data"
)

func FuzzReadLoCoMo(f *testing.F) {
	fixture, err := os.ReadFile("testdata/locomo_fixture.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add([]byte(`[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}, "qa": [{"question": "q", "answer": 7, "evidence": ["D1:1", "D", "D1:9"], "category": 1}]}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"conversation": null}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		convs, probs, err := ReadLoCoMo(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Whatever loads either builds a valid benchmark or says why not.
		if l, err := BuildLTP(convs, LTPConfig{Profiles: len(convs), Units: 7}); err == nil && !l.Validate().OK() {
			t.Fatalf("built an invalid benchmark: %v", l.Validate().Err())
		}
		if len(convs) == 0 {
			t.Fatal("no conversations and no error")
		}
		for _, p := range probs {
			if p.Sample == "" || p.Msg == "" {
				t.Fatalf("problem without sample or message: %+v", p)
			}
		}
		for _, c := range convs {
			for i := 1; i < len(c.Sessions); i++ {
				if c.Sessions[i].Time.Before(c.Sessions[i-1].Time) {
					t.Fatalf("sessions out of time order")
				}
			}
			ids := map[string]bool{}
			for _, tu := range c.Timeline() {
				ids[tu.DiaID] = true
			}
			tl := c.Timeline()
			for i := 1; i < len(tl); i++ {
				if !tl[i].Time.After(tl[i-1].Time) {
					t.Fatalf("timeline not increasing at turn %d", i)
				}
			}
			for _, q := range c.QA {
				if q.Category < CategoryMultiHop || q.Category > CategoryAdversarial {
					t.Fatalf("category %d kept", q.Category)
				}
				for _, e := range q.Evidence {
					if _, err := ParseDiaID(e); err != nil || !ids[e] {
						t.Fatalf("evidence %q kept: %v", e, err)
					}
				}
			}
		}
	})
}

func FuzzParseDiaID(f *testing.F) {
	for _, s := range []string{"D1:3", "D", "D:11:26", "D8:6; D9:17", "D30:05", "D99999999999999999999:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseDiaID(s)
		if err == nil && (r.Session < 0 || r.Turn < 0) {
			t.Fatalf("%q parsed to %+v", s, r)
		}
	})
}

func FuzzParseSessionTime(f *testing.F) {
	for _, s := range []string{"1:56 pm on 8 May, 2023", "10:37 am on 27 June, 2023", "", "25:99 pm on 40 Foo, 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := ParseSessionTime(s)
		if err == nil && tm.IsZero() {
			t.Fatalf("%q parsed to the zero time", s)
		}
	})
}

// Answers come from a model: the scorer must take any text.
func FuzzTokenF1(f *testing.F) {
	f.Add("The Sunday before 19 April 2023", "Sunday")
	f.Add("", "")
	f.Add("Thé and the—end", "a, b; c")
	f.Fuzz(func(t *testing.T, a, b string) {
		x, y := TokenF1(a, b), TokenF1(b, a)
		if x < 0 || x > 1 || x != y {
			t.Fatalf("TokenF1(%q, %q) = %v, reversed %v", a, b, x, y)
		}
		if NormalizeAnswer(a) != "" && TokenF1(a, a) != 1 {
			t.Fatalf("TokenF1(%q, itself) = %v", a, TokenF1(a, a))
		}
		if bl := BLEU1(a, b); bl < 0 || bl > 1 {
			t.Fatalf("BLEU1 = %v", bl)
		}
		if m := MultiAnswerF1(a, b); m < 0 || m > 1 {
			t.Fatalf("MultiAnswerF1 = %v", m)
		}
	})
}

func FuzzReadCorpus(f *testing.F) {
	fixture, err := os.ReadFile(casesFixture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add([]byte(`{"type":"scenario","id":"s","domain":"work","split":"dev","title":"t"}` + "\n" + `{"type":"memory","scenario":"s","id":"m1","time":"2026-01-01T00:00:00Z","text":"x","kind":"state","facts":[{"slot":"a/b","value":"x"}],"relations":[{"to":"m1"}]}`))
	f.Add([]byte("{}\n[]\nnull\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ReadCorpus(map[string][]byte{"f.jsonl": b})
		if err != nil {
			var le *data.LoadError
			if !errors.As(err, &le) || len(le.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			for _, p := range le.Problems {
				if p.File != "f.jsonl" || p.Msg == "" {
					t.Fatalf("problem without file or message: %+v", p)
				}
			}
			return
		}
		// What validates derives pairs that point at its own memories.
		for _, p := range c.Pairs() {
			var s *Scenario
			for i := range c.Scenarios {
				if c.Scenarios[i].ID == p.Scenario {
					s = &c.Scenarios[i]
				}
			}
			if s == nil {
				t.Fatalf("pair %s of no scenario", p.ID)
			}
			if _, ok := s.Memory(p.Old); !ok {
				t.Fatalf("pair %s: no memory %s", p.ID, p.Old)
			}
		}
	})
}
