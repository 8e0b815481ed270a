package bench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadLoCoMoFixture(t *testing.T) {
	convs, probs, err := LoadLoCoMo("testdata/locomo_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 3 {
		t.Fatalf("%d conversations, want 3", len(convs))
	}
	c := convs[0]
	if c.ID != "fx-1" || c.SpeakerA != "Ada" || c.SpeakerB != "Ben" {
		t.Errorf("first conversation %s %s %s", c.ID, c.SpeakerA, c.SpeakerB)
	}
	// The fourth dated session has no turns and is left out.
	if len(c.Sessions) != 3 {
		t.Errorf("%d sessions, want 3", len(c.Sessions))
	}
	if want := time.Date(2023, 3, 3, 9, 15, 0, 0, time.UTC); !c.Sessions[0].Time.Equal(want) {
		t.Errorf("first session at %v, want %v", c.Sessions[0].Time, want)
	}
	tl := c.Timeline()
	if len(tl) != 24 {
		t.Errorf("%d turns, want 24", len(tl))
	}
	for i := 1; i < len(tl); i++ {
		if !tl[i].Time.After(tl[i-1].Time) {
			t.Fatalf("turn %d is not after turn %d", i, i-1)
		}
	}
	if got := tl[16].Content(); got != "Ada: The mural got featured in the local paper! [shares an image: a photo of a colorful mural on a brick wall]" {
		t.Errorf("captioned turn: %q", got)
	}
	if got := tl[16].Bare(); strings.HasPrefix(got, "Ada:") {
		t.Errorf("bare turn keeps the speaker: %q", got)
	}
	// The integer answer becomes text; the adversarial item keeps its misleading answer.
	var three, adv QA
	for _, q := range c.QA {
		if q.Question == "How many weeks did the mural take?" {
			three = q
		}
		if q.Category == CategoryAdversarial {
			adv = q
		}
	}
	if three.Answer != "3" || len(three.Evidence) != 0 {
		t.Errorf("integer answer item: %+v", three)
	}
	if adv.Answer != "" || adv.Adversarial != "A lopsided bowl" {
		t.Errorf("adversarial item: %+v", adv)
	}
	var got []string
	for _, p := range probs {
		got = append(got, p.Sample+" "+p.Where)
	}
	want := []string{
		"fx-1 qa[5].evidence[0]", // "D1:3; D1:4"
		"fx-1 qa[5].evidence[1]", // "D"
		"fx-1 qa[6].evidence[2]", // D9:9 does not exist
		"fx-3 qa[3].evidence[0]", // "D:3:1"
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if !slices.Equal(c.QA[6].Evidence, []string{"D1:4", "D1:6"}) {
		t.Errorf("evidence after skipping the dangling reference: %v", c.QA[6].Evidence)
	}
}

func TestReadLoCoMoErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not json", "{", "decode samples"},
		{"not a list", `{"a": 1}`, "decode samples"},
		{"empty list", `[]`, "no samples"},
		{"no conversation", `[{"sample_id": "x", "qa": []}]`, "no conversation"},
		{"no speaker", `[{"sample_id": "x", "conversation": {"speaker_a": "A", "session_1": []}}]`, "speaker_b"},
		{"turn without text", `[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1"}]}}]`, "needs speaker, dia_id and text"},
		{"no turns", `[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B"}}]`, "no turns"},
		{"repeated id", `[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}, {"sample_id": "x", "conversation": {}}]`, "repeated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ReadLoCoMo(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestReadLoCoMoBadDate(t *testing.T) {
	in := `[{"sample_id": "x", "conversation": {"speaker_a": "A", "speaker_b": "B",
	  "session_1_date_time": "1:00 pm on 1 May, 2023", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}],
	  "session_2_date_time": "sometime", "session_2": [{"speaker": "B", "dia_id": "D2:1", "text": "hello"}]},
	  "qa": [{"question": "q?", "answer": "a", "evidence": ["D2:1"], "category": 4}, {"question": "", "category": 9}]}]`
	convs, probs, err := ReadLoCoMo(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 2 || !strings.Contains(probs[0].Msg, "does not parse") || !strings.Contains(probs[1].Msg, "skipped") {
		t.Fatalf("problems %v", probs)
	}
	if s := convs[0].Sessions; len(s) != 2 || !s[1].Time.Equal(s[0].Time) {
		t.Errorf("the undated session keeps the previous time: %+v", s)
	}
	if len(convs[0].QA) != 1 {
		t.Errorf("%d QA items, want the valid one", len(convs[0].QA))
	}
}

func TestParseSessionTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), true},
		{"10:37 am on 27 June, 2023", time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC), true},
		{"  9:05 am  on 1 January,  2024 ", time.Date(2024, 1, 1, 9, 5, 0, 0, time.UTC), true},
		{"8 May 2023", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSessionTime(tt.in)
			if (err == nil) != tt.ok || !got.Equal(tt.want) {
				t.Fatalf("ParseSessionTime(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

func TestParseDiaID(t *testing.T) {
	tests := []struct {
		in   string
		want DiaRef
		ok   bool
	}{
		{"D1:3", DiaRef{1, 3}, true},
		{"D30:05", DiaRef{30, 5}, true},
		{"D", DiaRef{}, false},
		{"D:11:26", DiaRef{}, false},
		{"D8:6; D9:17", DiaRef{}, false},
		{"D9:1 D4:4", DiaRef{}, false},
		{"d1:3", DiaRef{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDiaID(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseDiaID(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}
