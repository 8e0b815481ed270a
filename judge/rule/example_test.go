package rule_test

import (
	"context"
	"fmt"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/rule"
)

func ExampleAuditor() {
	r := &rule.Auditor{}
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
