package eval_test

import (
	"context"
	"fmt"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
	"github.com/atma-dev/atma/judge/rule"
)

// Run compares auditors on the default held-out set; an llmauditor.Auditor would join the
// rule auditor in the list. Report.WriteTable prints the whole comparison (with latencies,
// which vary from run to run); this example prints what does not.
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
	fmt.Printf("%d items, %d conflicts, %d implicit\n", rep.Items, rep.Conflicts, rep.Implicit)
	for _, a := range rep.Auditors {
		fmt.Printf("%s: %d predictions, format valid %.2f, %d fallbacks\n", a.Name, len(a.Predictions), a.FormatValid, a.Fallbacks)
	}
	// Output:
	// 151 items, 80 conflicts, 30 implicit
	// rule: 151 predictions, format valid 1.00, 0 fallbacks
}
