package judge_test

import (
	"fmt"

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
