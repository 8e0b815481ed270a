// Package llmauditor is the Judge behind a language model: Auditor asks a model through an
// OpenAI-compatible endpoint (package llm) with the audit prompt (judge.Messages), parses
// the answer with judge.ParseStrict and, unless Config.Strict, judge.ParseLenient, and
// falls back to another auditor (by default the rule auditor, package judge/rule) when the
// endpoint is unreachable, errs on the server side, the prompt is too long for the
// context, or the answer cannot be parsed, recording why in judge.Result.Fallback.
//
// Auditor is safe for concurrent use if its Chatter and fallback are.
package llmauditor
