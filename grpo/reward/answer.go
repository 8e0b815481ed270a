package reward

import (
	"strings"

	"github.com/atma-dev/atma/judge"
)

// answer is what the reward reads from a completion. The think block and the verdict are
// read by judge.ParseThink and judge.ParseVerdict, the two halves of judge.ParseStrict,
// apart: the format term scores the block and the verdict term the object, so a verdict
// after a faulty block still earns verdict credit (ParseStrict would refuse the whole
// answer), and so does a bare verdict object without a block.
type answer struct {
	// opens and closes count <think> and </think> anywhere in the text.
	opens, closes int
	// tagged: after white space the text starts with <think>, and </think> follows.
	tagged bool
	// stepsOK: the think block holds the four steps as judge.ParseStrict wants them.
	stepsOK bool
	steps   judge.Steps
	// region is where the verdict is looked for: after </think> when tagged, else the
	// whole text.
	region int
	// verdictOK: the region is a verdict judge.ParseVerdict accepts.
	verdictOK bool
	verdict   judge.Verdict
}

// parseAnswer reads a completion.
func parseAnswer(text string) answer {
	a := answer{opens: strings.Count(text, judge.ThinkOpen), closes: strings.Count(text, judge.ThinkClose)}
	steps, end, err := judge.ParseThink(text)
	if end >= 0 {
		a.tagged, a.region = true, end
		a.steps, a.stepsOK = steps, err == nil
	}
	if v, err := judge.ParseVerdict(text[a.region:]); err == nil {
		a.verdictOK, a.verdict = true, v
	}
	return a
}
