package judge_test

import (
	"context"
	"fmt"
	"os"

	"github.com/atma-dev/atma/judge"
)

func ExampleParseLenient() {
	answer := "Sure! Here is my verdict:\n```json\n{\"Status\": \"Conflicting\", \"conflictType\": \"TemporalUpdate\", \"confidence\": \"85%\"}\n```"
	a, err := judge.ParseLenient(answer)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := a.Verdict
	fmt.Println(v.Status, v.ConflictType, v.Action, v.Links[0].Type, v.Confidence)

	_, err = judge.ParseStrict(answer)
	fmt.Println(err)
	// Output:
	// conflict temporal_update transition evolves_from 0.85
	// no think block: the answer must start with <think> (at byte 0)
}

func ExampleRuleAuditor() {
	r := &judge.RuleAuditor{}
	res, err := r.Audit(context.Background(), judge.Pair{
		Old: judge.Record{Text: "I don't drink alcohol."},
		New: judge.Record{Text: "Opened a bottle of wine with dinner last night."},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := res.Verdict
	fmt.Println(v.Status, v.ConflictType, v.Action)
	fmt.Println(v.ClarificationQuestion)
	// Output:
	// conflict implicit_violation keep
	// Earlier you told me "I don't drink alcohol." Is that still true?
}

// Evaluate compares auditors on the default held-out set; an LLMAuditor would join the
// rule auditor in the list.
func ExampleEvaluate() {
	items, err := judge.EvalSet(judge.EvalConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := judge.Evaluate(context.Background(), []judge.NamedAuditor{{Name: "rule", Auditor: &judge.RuleAuditor{}}}, items, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = rep.WriteTable(os.Stdout)
}
