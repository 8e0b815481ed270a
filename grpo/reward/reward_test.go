package reward

import (
	"strings"
	"testing"

	"github.com/atma-dev/atma/grpo/grpotest"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

func TestScoreComponents(t *testing.T) {
	// echoSystem pastes the protocol's instructions into its think block.
	echoSystem := "<think>\nSlot: " + judge.SystemPrompt[:1400] + "\nComparison: the job changed.\nConflict type: temporal_update.\nAction: transition.\n</think>\n" +
		`{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"job: physiotherapist at Harbor Health Clinic -> data analyst at Kestrel Software","confidence":0.9}`
	tests := []struct {
		name       string
		item       eval.Item
		completion string
		want       Components
		flags      Flags
		total      float64
	}{
		{"right answer", grpotest.ItemJob, grpotest.JobGood, Components{1, 1, 0, 1, 1, 1, 0, 0, 1}, 0, 4.5},
		{"supersede destroys history", grpotest.ItemJob, grpotest.JobSupersede, Components{1, 0.75, 0, 1, 1, 1, 0, -1, 0.7}, 0, 2.85},
		{"missing step label", grpotest.ItemJob, grpotest.JobNoComparison, Components{0.5, 1, 0, 1, 1, 1, 0, 0, 1}, 0, 4},
		// The fence is text before and after the object: two cohesion issues.
		{"fenced verdict is not strict", grpotest.ItemJob, grpotest.JobFenced, Components{1, 0, 0, 1, 0.5, 1, 0, 0, 0}, FlagNoVerdict, 1.75},
		{"truncated in the think block", grpotest.ItemJob, grpotest.JobTruncated, Components{0, 0, 0, 1, 0, 0, 0, 0, 0}, FlagNoVerdict, 0.25},
		{"wrong status", grpotest.ItemJob, grpotest.JobWrong, Components{1, 0, 0, 1, 1, 1, 0, 0, 0}, 0, 2},
		{"implicit violation found", grpotest.ItemDiet, grpotest.DietGood, Components{1, 1, 1, 1, 1, 1, 0, 0, 1}, 0, 5.5},
		{"implicit violation missed", grpotest.ItemDiet, grpotest.DietMissed, Components{1, 0.25, 0, 1, 1, 1, 0, 0, 0}, 0, 2.5},
		{"invented transition", grpotest.ItemHobby, grpotest.HobbyTransition, Components{1, 0, 0, 1, 1, 1, 0, -1, -0.5}, 0, 0.75},
		{"remark after the verdict", grpotest.ItemHobby, grpotest.HobbyChatty, Components{1, 0, 0, 1, 0.75, 1, 0, 0, 0}, FlagNoVerdict, 1.875},
		{"echoes the system prompt", grpotest.ItemJob, echoSystem, Components{1, 1, 0, 0.22, 1, 1, -1, 0, 1}, 0, 3.305},
		// The pasted prompt comes first: no think block at the start, no verdict found.
		{"contains the prompt", grpotest.ItemJob, promptOf(grpotest.ItemJob) + "\n" + grpotest.JobGood, Components{0, 0, 0, 0, 0, 0, -1, 0, 0}, FlagNoVerdict, -1},
		{"empty", grpotest.ItemJob, "", Components{}, FlagEmpty | FlagNoVerdict, 0},
		{"white space", grpotest.ItemJob, " \n\t ", Components{}, FlagEmpty | FlagNoVerdict, 0},
		{"huge", grpotest.ItemJob, strings.Repeat("very long ", 7000), Components{}, FlagTooLong | FlagNoVerdict, 0},
		{"invalid UTF-8 is read as U+FFFD", grpotest.ItemJob, strings.Replace(grpotest.JobGood, "desk", "de\xffsk", 1), Components{1, 1, 0, 1, 1, 1, 0, 0, 1}, FlagInvalidUTF8, 4.5},
	}
	r := newTestRewarder(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := r.Score(promptOf(tt.item), tt.completion, LabelFor(tt.item))
			checkComponents(t, s, tt.want, tt.total)
			if s.Flags != tt.flags {
				t.Errorf("flags %v, want %v", s.Flags, tt.flags)
			}
		})
	}
}

func checkComponents(t *testing.T, s Score, want Components, total float64) {
	t.Helper()
	got, exp := s.Components.Values(), want.Values()
	for i, n := range ComponentNames() {
		if !near(got[i], exp[i]) {
			t.Errorf("%s = %.4f, want %.4f", n, got[i], exp[i])
		}
	}
	if !near(s.Total, total) {
		t.Errorf("total %.4f, want %.4f", s.Total, total)
	}
}

func TestScoreWithoutLabel(t *testing.T) {
	r := newTestRewarder(t, nil)
	s := r.Score(promptOf(grpotest.ItemJob), grpotest.JobGood, Label{})
	// Only the label-free terms count: format, length, cohesion, conciseness, echo.
	checkComponents(t, s, Components{Format: 1, Length: 1, Cohesion: 1, Conciseness: 1}, 1+0.25+0.5+0.25)
	if s.Flags != FlagNoLabel || !s.Flags.Failed() {
		t.Errorf("flags %v, want no_label counted as a failure", s.Flags)
	}
}

func TestScoreLenientVerdict(t *testing.T) {
	r := newTestRewarder(t, func(c *Config) { c.Verdict.Parse = ParseLenient })
	s := r.Score(promptOf(grpotest.ItemJob), grpotest.JobFenced, LabelFor(grpotest.ItemJob))
	checkComponents(t, s, Components{1, 1, 0, 1, 0.5, 1, 0, 0, 1}, 1+2+0.25+0.25+0.25+0.5)
	if s.Flags != FlagLenientVerdict {
		t.Errorf("flags %v, want lenient_verdict", s.Flags)
	}
	// A strictly valid answer does not go through the lenient parser.
	if s := r.Score(promptOf(grpotest.ItemJob), grpotest.JobGood, LabelFor(grpotest.ItemJob)); s.Flags != 0 {
		t.Errorf("strict answer flags %v", s.Flags)
	}
}

func TestScoreUsesWeights(t *testing.T) {
	r := newTestRewarder(t, func(c *Config) {
		c.Weights = Weights{Verdict: 1}
		c.Verdict.Status, c.Verdict.Type, c.Verdict.Action = 1, 0, 0
	})
	for _, tt := range []struct {
		completion string
		want       float64
	}{{grpotest.JobGood, 1}, {grpotest.JobSupersede, 1}, {grpotest.JobWrong, 0}, {grpotest.JobTruncated, 0}} {
		if s := r.Score(promptOf(grpotest.ItemJob), tt.completion, LabelFor(grpotest.ItemJob)); !near(s.Total, tt.want) {
			t.Errorf("total %v, want %v for %.40q", s.Total, tt.want, tt.completion)
		}
	}
}

// TestScoreRenderedTargets scores the gold answers judge writes for SFT: each must get
// every label term right and no echo penalty for following the protocol's wording.
func TestScoreRenderedTargets(t *testing.T) {
	r := newTestRewarder(t, nil)
	for _, it := range []eval.Item{grpotest.ItemJob, grpotest.ItemDiet, grpotest.ItemHobby} {
		t.Run(it.ID, func(t *testing.T) {
			steps, v := eval.Target(it)
			s := r.Score(promptOf(it), judge.Render(steps, v), LabelFor(it))
			c := s.Components
			if c.Format != 1 || c.Verdict != 1 || c.Echo != 0 || c.Preservation != 0 || c.Cohesion != 1 {
				t.Errorf("gold answer scored %v", s)
			}
			if it.Gold.Status == judge.StatusConflict && c.Summary != 1 {
				t.Errorf("gold summary %q scored %v", v.TransitionSummary, c.Summary)
			}
		})
	}
}

func TestLengthTerm(t *testing.T) {
	r := newTestRewarder(t, nil) // band 30–220 words, 0 at 320
	for _, tt := range []struct {
		words int
		want  float64
	}{{0, 0}, {15, 0.5}, {30, 1}, {220, 1}, {270, 0.5}, {320, 0}, {1000, 0}} {
		if got := r.length(tt.words); !near(got, tt.want) {
			t.Errorf("length(%d) = %v, want %v", tt.words, got, tt.want)
		}
	}
}

func TestConcisenessTerm(t *testing.T) {
	r := newTestRewarder(t, nil) // 1 up to 600 bytes after </think>, 0 at 1600
	think := "<think>\nSlot: a\nComparison: b\nConflict type: c\nAction: d\n</think>\n"
	for _, tt := range []struct {
		name, after string
		want        float64
	}{
		{"nothing after the think block", "", 0},
		{"prose without a verdict", "It is a conflict.", 0},
		{"short verdict", "{" + strings.Repeat("x", 500) + "}", 1},
		{"halfway", "{" + strings.Repeat("x", 1098) + "}", 0.5},
		{"too long", "{" + strings.Repeat("x", 2000) + "}", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := think + tt.after
			if got := r.conciseness(text, parseAnswer(text)); !near(got, tt.want) {
				t.Errorf("conciseness = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCohesionTerm(t *testing.T) {
	r := newTestRewarder(t, nil)
	verdict := `{"status":"consistent","conflict_type":"none","action":"keep","clarification_needed":false,"clarification_question":"","links":[],"transition_summary":"","confidence":0.9}`
	think := "<think>\nSlot: a\nComparison: b\nConflict type: c\nAction: d\n</think>\n"
	for _, tt := range []struct {
		name, text string
		want       float64
	}{
		{"clean", think + verdict, 1},
		{"no think block", verdict, 0},
		{"preamble before the think block", "Sure! " + think + verdict, 0.75},
		{"unclosed think block", "<think>\nSlot: a\n" + verdict, 0},
		{"second think block", think + "<think>more</think>\n" + verdict, 0.5}, // two blocks, text before the verdict
		{"text between think and verdict", think + "Verdict:\n" + verdict, 0.75},
		{"answer tags", think + "<answer>" + verdict + "</answer>", 0.25}, // text before, after, and tags
		{"truncated verdict", think + verdict[:40], 0.75},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.cohesion(tt.text, parseAnswer(tt.text)); !near(got, tt.want) {
				t.Errorf("cohesion = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSummaryTerm(t *testing.T) {
	r := newTestRewarder(t, nil) // shape 0.4, old 0.3, new 0.3, spurious -0.5
	job := LabelFor(grpotest.ItemJob)
	bare := Label{Gold: grpotest.ItemJob.Gold} // no values, no texts: compared with the prompt's texts
	for _, tt := range []struct {
		name    string
		label   Label
		summary string
		want    float64
	}{
		{"full", job, "job: physiotherapist at Harbor Health Clinic -> data analyst at Kestrel Software", 1},
		{"unicode arrow", job, "job: physiotherapist at Harbor Health Clinic → data analyst at Kestrel Software", 1},
		{"new value only", job, "job: the old one -> data analyst at Kestrel Software", 0.7},
		{"no shape", job, "The user changed jobs.", 0},
		{"empty", job, "", 0},
		{"values from the prompt", bare, "job: physiotherapist -> analyst at Kestrel", 1},
		{"unrelated words", bare, "job: something -> else", 0.4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := judge.Verdict{TransitionSummary: tt.summary}
			if got := r.summary(promptOf(grpotest.ItemJob), tt.label, &v); !near(got, tt.want) {
				t.Errorf("summary(%q) = %v, want %v", tt.summary, got, tt.want)
			}
		})
	}
	v := judge.Verdict{TransitionSummary: "hobby: a -> b"}
	if got := r.summary(promptOf(grpotest.ItemHobby), LabelFor(grpotest.ItemHobby), &v); !near(got, -0.5) {
		t.Errorf("summary on a consistent pair = %v, want the spurious value -0.5", got)
	}
}

func TestDestroys(t *testing.T) {
	all := judge.Actions()
	want := map[judge.Action][]judge.Action{
		judge.ActionTransition:      {judge.ActionSupersede},
		judge.ActionScopedException: {judge.ActionSupersede, judge.ActionTransition},
		judge.ActionKeep:            {judge.ActionSupersede, judge.ActionTransition, judge.ActionScopedException},
		judge.ActionCoexist:         {judge.ActionSupersede, judge.ActionTransition, judge.ActionScopedException},
		judge.ActionSupersede:       nil,
	}
	for gold, bad := range want {
		for _, got := range all {
			exp := false
			for _, b := range bad {
				exp = exp || b == got
			}
			if destroys(gold, got) != exp {
				t.Errorf("destroys(gold %s, got %s) = %v, want %v", gold, got, !exp, exp)
			}
		}
	}
}

func TestPairTexts(t *testing.T) {
	it := grpotest.ItemJob
	it.Pair.Old.Text = `She said "hi" and left.` // quotes are escaped in the prompt
	it.Pair.Old.Slot = "job"
	oldText, newText := pairTexts(promptOf(it))
	if oldText != `She said \"hi\" and left.` || newText != it.Pair.New.Text {
		t.Errorf("pairTexts = %q, %q", oldText, newText)
	}
	if o, n := pairTexts("no pair here"); o != "" || n != "" {
		t.Errorf("pairTexts of a foreign prompt = %q, %q", o, n)
	}
}

func TestFlagsNames(t *testing.T) {
	f := FlagEmpty | FlagNoVerdict | FlagPromptMismatch
	if got := f.String(); got != "empty,no_verdict,prompt_mismatch" {
		t.Errorf("String = %q", got)
	}
	if len(flagNames) != 7 || Flags(0).Names() != nil {
		t.Errorf("flag names out of step")
	}
	if (FlagNoVerdict | FlagLenientVerdict).Failed() {
		t.Error("a missing verdict is the policy's fault, not a failed input")
	}
}

func TestComponentOrder(t *testing.T) {
	c := Components{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if ComponentsOf(c.Values()) != c || len(ComponentNames()) != NumComponents {
		t.Fatal("Values, ComponentsOf and ComponentNames disagree")
	}
	if c.Verdict != 2 || c.Summary != 9 || ComponentNames()[1] != "verdict" || ComponentNames()[8] != "summary" {
		t.Fatal("component order changed")
	}
}

func TestEchoTerm(t *testing.T) {
	r := newTestRewarder(t, nil) // 8-word shingles; free up to 25 %, −1 from 60 %
	verdict := `{"status":"conflict","conflict_type":"temporal_update","action":"transition","clarification_needed":false,"clarification_question":"","links":[{"type":"evolves_from","from":"new","to":"old"}],"transition_summary":"job: a -> b","confidence":0.9}`
	example := judge.SystemPrompt[strings.LastIndex(judge.SystemPrompt, "<think>"):strings.LastIndex(judge.SystemPrompt, "</think>")]
	own := "\nSlot: The user writes about where they work and what they do for a living these days.\n" +
		"Comparison: Earlier they described clinical work with patients, while now they describe analysing data for a software company.\n" +
		"Conflict type: temporal_update: the employment changed over time and the message says so plainly.\n" +
		"Action: transition: the earlier employment becomes history and the software position is the present one.\n"
	quoting := "\nSlot: The job.\nComparison: The old record says \"" + grpotest.ItemJob.Pair.Old.Text + "\" and the new input says \"" + grpotest.ItemJob.Pair.New.Text + "\"\nConflict type: temporal_update.\nAction: transition.\n"
	for _, tt := range []struct {
		name, think string
		lo, hi      float64
	}{
		{"own words", own, 0, 0},
		{"quoting the pair", quoting, 0, 0},
		{"copying the protocol's example", strings.TrimPrefix(example, "<think>"), -1, -1},
		{"half copied", own + strings.TrimPrefix(example, "<think>")[:300], -0.99, -0.01},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := "<think>" + tt.think + "</think>\n" + verdict
			got := r.echo(promptOf(grpotest.ItemJob), text, parseAnswer(text), LabelFor(grpotest.ItemJob))
			if got < tt.lo-1e-9 || got > tt.hi+1e-9 {
				t.Errorf("echo = %v, want %v to %v", got, tt.lo, tt.hi)
			}
		})
	}
}
