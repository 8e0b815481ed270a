package reward

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/grpo/grpotest"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

// answerSeeds are completions and their near misses.
var answerSeeds = []string{
	grpotest.JobGood, grpotest.JobSupersede, grpotest.JobNoComparison, grpotest.JobFenced, grpotest.JobTruncated, grpotest.JobWrong, grpotest.DietGood, grpotest.DietMissed, grpotest.HobbyTransition, grpotest.HobbyChatty,
	"", "<think></think>{}", "<think>\nSlot: a\nComparison: b\nConflict type: c\nAction: d\n</think>\n{\"status\":1}",
	strings.Replace(grpotest.JobGood, `"confidence":0.93`, `"confidence":1e400`, 1),
	strings.Replace(grpotest.JobGood, `"status"`, `"st\u0061tus"`, 1),
	strings.Replace(grpotest.JobGood, `"job:`, `"j\xffob:`, 1),
	strings.Replace(grpotest.JobGood, `"links":[`, `"links":[{"type":"evolves_from","from":"new","to":"old"},`, 1),
	strings.Replace(grpotest.JobGood, `0.93}`, `0.93,"status":"conflict"}`, 1),
	strings.Replace(grpotest.JobGood, `0.93}`, `0.93} {}`, 1),
	strings.Replace(grpotest.JobGood, "Slot:", "  Slot:", 1),
	strings.Replace(grpotest.JobGood, "Action:", "Comparison:", 1),
	"  \n" + grpotest.JobGood + "\n\n",
}

var thinkErrors = []error{judge.ErrNoThink, judge.ErrUnclosedThink, judge.ErrMissingStep, judge.ErrStepOrder, judge.ErrEmptyStep}

func isThinkError(err error) bool {
	for _, e := range thinkErrors {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// checkAgainstParseStrict holds parseAnswer to judge.ParseStrict: the format term's full
// value exactly when ParseStrict finds no fault in the think block, and, for such
// answers, a strict verdict exactly when ParseStrict accepts, with the same steps and
// verdict.
func checkAgainstParseStrict(t *testing.T, text string) {
	a := parseAnswer(text)
	ans, err := judge.ParseStrict(text)
	thinkOK := err == nil || !isThinkError(err)
	if got := a.tagged && a.stepsOK; got != thinkOK {
		t.Fatalf("think block valid = %v, ParseStrict says %v for %q", got, err, text)
	}
	if !thinkOK {
		return
	}
	if a.verdictOK != (err == nil) {
		t.Fatalf("strict verdict = %v, ParseStrict says %v for %q", a.verdictOK, err, text)
	}
	if err == nil {
		if diff := cmp.Diff(ans.Verdict, a.verdict); diff != "" {
			t.Fatalf("verdict differs from ParseStrict's (-want +got):\n%s\nfor %q", diff, text)
		}
		if ans.Steps != a.steps {
			t.Fatalf("steps %+v, ParseStrict's %+v", a.steps, ans.Steps)
		}
	}
}

func TestAnswerMatchesParseStrict(t *testing.T) {
	for i, s := range answerSeeds {
		t.Run(strings.ReplaceAll(firstWords(s, 4), " ", "_")+"#"+string(rune('a'+i)), func(t *testing.T) {
			checkAgainstParseStrict(t, s)
		})
	}
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

func FuzzAnswerMatchesParseStrict(f *testing.F) {
	for _, s := range answerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkAgainstParseStrict(t, text) })
}

// FuzzReward checks that Score is deterministic, finite, inside each component's range,
// equal to the weighted sum, and leaves the label terms at 0 without a label.
func FuzzReward(f *testing.F) {
	for i, s := range answerSeeds {
		f.Add(s, uint8(i))
	}
	items := []eval.Item{grpotest.ItemJob, grpotest.ItemDiet, grpotest.ItemHobby}
	r := newTestRewarder(f, nil)
	ranges := [NumComponents][2]float64{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}, {-1, 0}, {-1, 0}, {-0.5, 1}}
	f.Fuzz(func(t *testing.T, completion string, pick uint8) {
		it := items[int(pick)%len(items)]
		label := LabelFor(it)
		prompt := promptOf(it)
		switch pick / 8 % 4 {
		case 1:
			label = Label{}
		case 2:
			prompt = ""
		case 3:
			label.OldText, label.NewText, label.OldValue, label.NewValue = "", "", "", ""
		}
		s := r.Score(prompt, completion, label)
		if again := r.Score(prompt, completion, label); again.Total != s.Total || again.Components != s.Components || again.Flags != s.Flags {
			t.Fatalf("not deterministic: %v then %v", s, again)
		}
		if math.IsNaN(s.Total) || math.IsInf(s.Total, 0) || !near(s.Total, s.Components.weighted(r.cfg.Weights)) {
			t.Fatalf("total %v is not the weighted sum of %+v", s.Total, s.Components)
		}
		for i, v := range s.Components.Values() {
			if v < ranges[i][0]-1e-12 || v > ranges[i][1]+1e-12 || math.IsNaN(v) {
				t.Fatalf("%s = %v outside %v", ComponentNames()[i], v, ranges[i])
			}
		}
		if !label.Present() {
			c := s.Components
			if c.Verdict != 0 || c.Implicit != 0 || c.Preservation != 0 || c.Summary != 0 || s.Flags&FlagNoLabel == 0 {
				t.Fatalf("label terms without a label: %v", s)
			}
		}
	})
}

func FuzzParseLabel(f *testing.F) {
	for _, s := range []string{
		`{"status":"conflict","conflict_type":"temporal_update","action":"transition"}`,
		`"{\"status\":\"consistent\",\"conflict_type\":\"none\",\"action\":\"keep\"}"`,
		`null`, `""`, `{}`, `{"status":"conflict"}`, `{"status":"conflict","conflict_type":"none","action":"keep"}`,
		`{"status":"consistent","conflict_type":"none","action":"keep","extra":1}`, `[1]`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLabel(data)
		if err != nil {
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("ParseLabel accepted an invalid label: %v", err)
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseLabel(b)
		if err != nil || back != l {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, l)
		}
	})
}
