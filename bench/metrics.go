package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/atma-dev/atma/llm"
	"github.com/atma-dev/atma/overlay"
)

// Rate is a count of hits out of N. Its JSON form carries the rate too (null when N is 0).
type Rate struct {
	Hits int `json:"hits"`
	N    int `json:"n"`
}

// Add counts one case.
func (r *Rate) Add(ok bool) {
	r.N++
	if ok {
		r.Hits++
	}
}

// Value is Hits/N; NaN when N is 0.
func (r Rate) Value() float64 {
	if r.N == 0 {
		return math.NaN()
	}
	return float64(r.Hits) / float64(r.N)
}

// String is the rate with three decimals, or "n/a".
func (r Rate) String() string {
	if r.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", r.Value())
}

func (r Rate) MarshalJSON() ([]byte, error) {
	var v *float64
	if r.N > 0 {
		x := r.Value()
		v = &x
	}
	return json.Marshal(struct {
		Hits int      `json:"hits"`
		N    int      `json:"n"`
		Rate *float64 `json:"rate"`
	}{r.Hits, r.N, v})
}

func (r *Rate) UnmarshalJSON(b []byte) error {
	var x struct {
		Hits int `json:"hits"`
		N    int `json:"n"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	r.Hits, r.N = x.Hits, x.N
	return nil
}

// Mean is a running mean of scores. Its JSON form carries the mean (null when empty).
type Mean struct {
	Sum float64 `json:"sum"`
	N   int     `json:"n"`
}

// Add counts one score.
func (m *Mean) Add(x float64) { m.Sum += x; m.N++ }

// Value is the mean; NaN when empty.
func (m Mean) Value() float64 {
	if m.N == 0 {
		return math.NaN()
	}
	return m.Sum / float64(m.N)
}

// String is the mean with three decimals, or "n/a".
func (m Mean) String() string {
	if m.N == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", m.Value())
}

func (m Mean) MarshalJSON() ([]byte, error) {
	var v *float64
	if m.N > 0 {
		x := m.Value()
		v = &x
	}
	return json.Marshal(struct {
		Sum  float64  `json:"sum"`
		N    int      `json:"n"`
		Mean *float64 `json:"mean"`
	}{m.Sum, m.N, v})
}

func (m *Mean) UnmarshalJSON(b []byte) error {
	var x struct {
		Sum float64 `json:"sum"`
		N   int     `json:"n"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	m.Sum, m.N = x.Sum, x.N
	return nil
}

// ErrUngraded: the grader's reply says neither CORRECT nor WRONG.
var ErrUngraded = errors.New("grader reply is neither CORRECT nor WRONG")

const graderPrompt = `You grade an answer to a question about a person's memory against the gold answer.
The answer is CORRECT when it gives the gold answer's fact (other wording, extra detail and a mention of other states are fine) and WRONG when it gives another value as the answer, says it does not know, or misses the fact.
Reply with one word: CORRECT or WRONG.`

// grade asks the endpoint whether answer matches gold: 1 for CORRECT, 0 for WRONG.
func grade(ctx context.Context, c overlay.Chatter, question, gold, answer string) (float64, error) {
	temp := 0.0
	resp, err := c.Chat(ctx, llm.Request{
		Messages: []llm.Message{
			{Role: "system", Content: graderPrompt},
			{Role: "user", Content: fmt.Sprintf("Question: %s\nGold answer: %s\nAnswer: %s", oneLine(question), oneLine(gold), oneLine(answer))},
		},
		Temperature: &temp, MaxTokens: 8,
	})
	if err != nil {
		return 0, fmt.Errorf("grade answer: %w", err)
	}
	if len(resp.Choices) == 0 {
		return 0, fmt.Errorf("grade answer: %w: no choice", ErrUngraded)
	}
	return parseGrade(resp.Choices[0].Content)
}

// parseGrade reads a grader's reply: WRONG or INCORRECT anywhere is 0, else CORRECT is 1.
func parseGrade(reply string) (float64, error) {
	up := strings.ToUpper(reply)
	switch {
	case strings.Contains(up, "INCORRECT") || strings.Contains(up, "WRONG"):
		return 0, nil
	case strings.Contains(up, "CORRECT"):
		return 1, nil
	}
	return 0, fmt.Errorf("grade answer: %w: %.60q", ErrUngraded, reply)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
