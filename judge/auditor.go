package judge

import (
	"context"
	"time"
)

// Auditor audits a pair. rule.Auditor (package judge/rule) and llmauditor.Auditor
// (package judge/llmauditor) implement it.
type Auditor interface {
	Audit(ctx context.Context, p Pair) (Result, error)
}

// SourceRule is Result.Source for verdicts of the rule auditor.
const SourceRule = "rule"

// Result is the outcome of one audit.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// Steps are the think steps of the answer the verdict came from (possibly partial for
	// an answer parsed leniently).
	Steps Steps `json:"steps"`
	// Raw is the answer the verdict came from: the model's text, or the rule auditor's
	// rendering (Render) when Source is SourceRule.
	Raw string `json:"raw"`
	// Source is SourceRule or the name of the model that answered.
	Source string `json:"source"`
	// Latency is the wall time of the audit, fallback included.
	Latency time.Duration `json:"latency_ns"`
	// Tokens is the number of tokens the audit used (prompt and completion); 0 for rules.
	Tokens int `json:"tokens"`
	// ParseError is why the model's answer failed ParseStrict, empty when it passed or no
	// model answered. A verdict may still have come from it through ParseLenient.
	ParseError string `json:"parse_error,omitempty"`
	// Fallback says why the verdict came from the fallback auditor instead of the model
	// (endpoint unreachable, server error, context too long, unparseable answer); empty
	// when it did not.
	Fallback string `json:"fallback,omitempty"`
}

// NamedAuditor is an auditor with the name it has in an evaluation report.
type NamedAuditor struct {
	Name    string
	Auditor Auditor
}
