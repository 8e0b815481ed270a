package facts

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// newTestOffline returns an offline extractor on a fake embedder, whose bag-of-words
// similarities run lower than a real backbone's: hence the lower MinScore.
func newTestOffline(t *testing.T, emb Embedder) *Offline {
	t.Helper()
	o, err := NewOffline(emb, Config{MinScore: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOfflineExtract(t *testing.T) {
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		in      Input
		subject string // "" means no fact
		attr    string // checked when set
		value   string // checked when set
		negated bool
		why     string // a substring of Why when no fact
	}{
		{"first person home", Input{Text: "i live in Tbilisi now, flat near the river"}, "user", "home", "Tbilisi", false, ""},
		{"lower-case chat", Input{Text: "moved to porto last week, still living out of boxes"}, "user", "home", "porto", false, ""},
		{"speaker prefix", Input{Text: "Wendel: we have a dog called Pretzel"}, "wendel", "pet", "Pretzel", false, ""},
		{"third party", Input{Text: "my flatmate oskar lives in Bergen now"}, "oskar", "home", "Bergen", false, ""},
		{"negation", Input{Text: "i sold my car, the old Polo"}, "user", "car", "", true, ""},
		{"question", Input{Text: "how much rent is normal in Leeds?"}, "", "", "", false, "question"},
		{"empty", Input{Text: "   "}, "", "", "", false, "no text"},
		{"rent", Input{Text: "rent is 950 a month now"}, "user", "rent", "950", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Time = now
			res, err := newTestOffline(t, &bagEmbedder{}).Extract(t.Context(), []Input{tt.in})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			if r.Source != SourceOffline {
				t.Errorf("source %q", r.Source)
			}
			if tt.subject == "" {
				if len(r.Facts) > 0 || !strings.Contains(r.Why, tt.why) {
					t.Errorf("facts %+v why %q, want none and why with %q", r.Facts, r.Why, tt.why)
				}
				return
			}
			for _, f := range r.Facts {
				if f.Subject == tt.subject && (tt.attr == "" || f.Attribute == tt.attr) && (tt.value == "" || f.Value == tt.value) && f.Negated == tt.negated {
					return
				}
			}
			t.Errorf("facts %+v (why %q), want %s/%s = %q negated %v", r.Facts, r.Why, tt.subject, tt.attr, tt.value, tt.negated)
		})
	}
}

func TestOfflineOneBatchedCall(t *testing.T) {
	emb := &bagEmbedder{}
	o := newTestOffline(t, emb)
	in := []Input{{Text: "my sister Ilse lives in Ghent"}, {Text: "she moved to Antwerp in the spring"}, {Text: "lovely weather today"}}
	res, err := o.Extract(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if emb.calls != 1 || len(res) != 3 {
		t.Fatalf("%d embed calls, %d results; want 1 call and 3 results", emb.calls, len(res))
	}
	// The pronoun of the second memory resolves to the sister named in the first.
	if len(res[1].Facts) == 0 || res[1].Facts[0].Subject != "ilse" {
		t.Errorf("second memory: %+v, want a fact about ilse", res[1].Facts)
	}
	if _, err := o.Extract(t.Context(), in[:1]); err != nil || emb.calls != 2 {
		t.Errorf("second call: %v, %d embed calls (prototypes are embedded once)", err, emb.calls)
	}
}

func TestOfflineReusesGivenSlots(t *testing.T) {
	o := newTestOffline(t, &bagEmbedder{})
	// "dojo" is no attribute of the table; the slot key's words are in the memory.
	res, err := o.Extract(t.Context(), []Input{{Text: "karate dojo: Kaizen", Slots: []string{"user/karate-dojo"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Facts) == 0 || res[0].Facts[0].Attribute != "karate-dojo" {
		t.Errorf("facts %+v, want the given slot user/karate-dojo reused", res[0].Facts)
	}
}

func TestOfflineErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, err := newTestOffline(t, &bagEmbedder{err: boom}).Extract(t.Context(), []Input{{Text: "i live in Oslo"}}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "embed") {
		t.Errorf("embed failure: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := newTestOffline(t, &bagEmbedder{}).Extract(ctx, []Input{{Text: "i live in Oslo"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := NewOffline(nil, Config{}); err == nil {
		t.Error("nil embedder accepted")
	}
	err := Config{MinScore: 2, CueBonus: -1, Margin: 3}.Validate()
	for _, w := range []string{"min score", "cue bonus", "margin"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("validate: %v, want %q", err, w)
		}
	}
}

func BenchmarkOfflineExtract(b *testing.B) {
	emb := &bagEmbedder{}
	o, err := NewOffline(emb, Config{})
	if err != nil {
		b.Fatal(err)
	}
	in := []Input{{Text: "my manager is Dana, she's great"}, {Text: "rent went up to 1,200 from march"}, {Text: "we sold the car, i bike everywhere now"}, {Text: "rainy again lol"}}
	for b.Loop() {
		if _, err := o.Extract(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// A lower-case verb after a relation word is not the relation's name.
func TestRelationFollowedByVerb(t *testing.T) {
	var p people
	for _, tt := range []struct{ text, want string }{
		{"my uncle packed up and moved", "uncle"},
		{"my aunt rehomed the hamster", "aunt"},
		{"my brother joris started a new job", "joris"},
		{"my sister Agnes moved out", "agnes"},
	} {
		subj, _, _ := p.subject(tokenize(tt.text), "user")
		if subj != tt.want {
			t.Errorf("%q: subject %q, want %q", tt.text, subj, tt.want)
		}
	}
}
