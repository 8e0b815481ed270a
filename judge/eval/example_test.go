package eval_test

import (
	"context"
	"fmt"
	"os"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/judge/rule"
)

// Run compares auditors on the default held-out set; an llmauditor.Auditor would join the
// rule auditor in the list.
func ExampleRun() {
	items, err := eval.Set(eval.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := eval.Run(context.Background(), []judge.NamedAuditor{{Name: "rule", Auditor: &rule.Auditor{}}}, items, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = rep.WriteTable(os.Stdout)
}
