// Package grpo trains the Judge with GRPO: a rule-based reward for audit answers, group
// advantages, the k3 KL estimate, a sampling-and-scoring loop with a resumable run
// directory, and a reward server through which OpenRLHF, TRL and verl train with the
// same reward.
//
// # Reward
//
// Rewarder.Score(prompt, completion, label) is a pure function: the same arguments and
// configuration give the same Score, on any goroutine. It reads the think block with
// judge.ParseThink and the verdict object with judge.ParseVerdict, the two halves of
// judge.ParseStrict taken apart so that the format and the verdict are scored separately
// (a verdict after a faulty think block, or alone, still earns verdict credit), and scores
// nine components, reported one by one next to their weighted sum:
//
//	component     values                     what it measures
//	format        1, 0.5, 0                  a <think> block opening the answer with the four step
//	                                         labels as ParseStrict wants them; valid tags without
//	                                         them; anything else (the paper's values)
//	verdict       0 … 1                      status right 0.5, and type right 0.25; action right
//	                                         (eval.Gold.ActionOK) 0.25; no strict verdict 0
//	implicit      0 or 1                     implicit items only: a violation found as a conflict
//	                                         of type implicit_violation, a look-alike left alone
//	length        0 … 1                      1 from 30 to 220 words, linear to 0 below and at 320
//	cohesion      0 … 1                      1 − 0.25 per issue: text before <think>, a second
//	                                         think tag, no object after </think>, text between,
//	                                         an unclosed object, text after it, other tags
//	conciseness   0 … 1                      the conclusion after </think>: 1 up to 600 bytes,
//	                                         0 at 1600, 0 with no JSON object in it
//	echo          −1 … 0                     shingles of 8 words outside the JSON that repeat the
//	                                         prompt but not the pair's texts: none up to 25 %,
//	                                         −1 from 60 %; −1 for a completion holding the prompt
//	preservation  −1 or 0                    the action destroys an old state the gold action
//	                                         keeps: supersede where history is kept (transition),
//	                                         supersede or transition where the old value still
//	                                         holds outside a scope, anything but keep or coexist
//	                                         where it is still current
//	summary       −0.5 … 1                   conflicts: "slot: old -> new" 0.4, naming the old
//	                                         value 0.3, the new 0.3 (any text for implicit
//	                                         violations, whose new value is implied); a summary
//	                                         on a pair without a conflict −0.5
//
// Weights (default: format 1, verdict 2, implicit 1, length 0.25, cohesion 0.5,
// conciseness 0.25, echo 1, preservation 1, summary 0.5) and every value above live in
// one JSON file, reward.json, embedded as the default (DefaultRewardConfig);
// LoadRewardConfig overlays a file on it and refuses unknown keys. The paper fixes the
// format values; the others are this package's choices, set so that a right answer in
// the format scores 4.5 (5.5 for an implicit violation) and a wrong or destructive one
// far less. RewardConfig.Verdict.Parse "lenient" takes the verdict from judge.ParseLenient
// when the strict parse fails, for denser early rewards.
//
// Bad inputs never panic or error: an empty or white-space completion scores 0 and is
// flagged empty; one over Limits.MaxCompletionBytes (64 KiB) is not scanned, scores 0 and
// is flagged too_long; invalid UTF-8 is read with U+FFFD and flagged; a completion that
// contains the prompt gets the full echo penalty; without a label the label terms
// (verdict, implicit, preservation, summary) are 0 and the score is flagged no_label.
// Flags.Failed tells the flags that count as failed inputs.
//
// The reward runs at about 50,000 completions a second on one goroutine for answers of
// the paper's length (BenchmarkReward; figures in docs/benchmarks.md), far above what a
// policy generates: the parse is the judge's, not a faster copy of it.
//
// # Labels
//
// A label is the JSON of a eval.Gold, optionally with the item's values and texts
// (Label): {"status":"conflict","conflict_type":"temporal_update","action":"transition",
// "implicit":false,"slot":"home","old_value":"Berlin","new_value":"Lisbon"}. ParseLabel
// also takes a JSON string holding that object, which is how a dataset's label column
// reaches the reward server from every engine; WriteDataset writes such datasets.
//
// # Advantages and KL
//
// Advantages computes A = (r − mean)/(std + ε) over normalisation groups: the G
// completions of one prompt (GRPO), or all completions of one task type, Label.Stratum,
// across prompts (task-stratified, as in UMA). Scale "group" divides by the group's std,
// "batch" by the whole batch's (still centring in the group), "none" only centres (Dr.
// GRPO). The std is the sample std (n − 1, torch.std's default and so TRL's and
// OpenRLHF's) or the population std, and ε is configurable (1e-4 by default, TRL's). It
// reports the share of groups whose rewards are all equal, which teach nothing.
//
// With G = 2 — the paper's setting — normalisation erases the size of every difference:
// rewards a ≠ b give ±(a−b)/2 around the mean, which the population std (|a−b|/2) turns
// into ±1 and the sample std (|a−b|/√2) into ±1/√2 ≈ ±0.7071, so a pair that differs by
// 0.01 pushes as hard as one that differs by 5. Scale "none" keeps ±(a−b)/2.
//
// K3 is the k3 estimator e^d − d − 1 with d = log π_ref − log π at a sampled token, and
// SequenceKL its mean over a completion. A Reference gives the reference model's
// log-probabilities of the policy's tokens; PromptLogprobsReference reads them from a vLLM
// server (prompt_logprobs of the chat continued with the completion). Tokens that do not
// match the policy's are ErrTokenMismatch, counted and skipped. The KL coefficient (0.04)
// is the trainer's; the logs carry kl_penalty, the coefficient times the KL.
//
// # Run
//
// Run(ctx, cfg, deps) runs the loop: each step takes PromptsPerStep training items
// (per-device batch × gradient accumulation × devices; 1 × 4 × 1 by default) in a seeded
// order, asks the policy for Generations completions of each (n, or repeated requests:
// package llm copes with servers that ignore n), cfg.Concurrency prompts at a time,
// scores them, measures KL when there is a reference, computes advantages and appends the
// step to the run directory, whose commit overlaps the next step's requests. The loop
// updates no weights: it computes the rewards and advantages a GRPO trainer would use and
// logs them. Training happens in an external trainer (OpenRLHF, TRL, verl) that scores
// through the reward server with the same reward, or offline from exported rollouts. The
// defaults are the paper's, in run.json (DefaultRunConfig, LoadRunConfig): 200 steps, 2
// generations, 400 tokens, KL 0.04; the trainer's LoRA rank 16, α 32 and learning rate
// 2e-5 are set in scripts/grpo.
//
// The run directory holds:
//
//	config.json       the configuration
//	state.json        steps done, the PCG state, the epoch's prompt order, the files' sizes
//	steps.jsonl       one StepRecord a step: reward stats, each component's mean, advantage
//	                  stats and zero-std fraction, KL and kl_penalty, lengths, failures by
//	                  reason, timings
//	samples.jsonl     every completion with its reward, components, flags and advantage
//	rollouts.jsonl    with export_rollouts: the same plus the prompt, token texts, token
//	                  logprobs and reference logprobs, for offline trainers
//	eval.jsonl        every eval.every steps and after the last: the policy's
//	                  eval.AuditorReport on the held-out set (eval.Set), audited by a
//	                  llmauditor.Auditor on the policy endpoint
//	summary.json      the Summary
//	plots/            reward.png, components.png, kl.png, length.png, zero_std.png, eval.png
//
// A step's lines are written and synced before state.json is replaced, so an interrupted
// run — cancelled, killed, out of power — resumes from its last complete step: Run on the
// same directory cuts the files back to the sizes state.json records, restores the RNG
// and the prompt order, and goes on; the result is the one an uninterrupted run gives.
// Only steps, concurrency, max_failed_steps and eval.concurrency may change on resume.
// Cancelling ctx abandons the step in flight, waits for the commit before it, writes the
// plots and summary.json (interrupted: true) and returns ctx's error.
//
// A failed request, an unparseable response or a bad completion is logged and counted
// (StepRecord.Failures); a step without any completion is recorded as such. The run stops
// early only when the endpoint does not serve the model or refuses the credentials, after
// max_failed_steps steps in a row without a completion.
//
// A step waits for its slowest request (GRPO is on-policy: the next step must sample the
// updated policy), so the endpoint idles at each step's tail. Against a fake endpoint of
// fixed latency and capacity, with as many prompts per step as it has slots, the loop keeps
// it 94–99 % busy during the steps (BenchmarkLoopUtilisation); set the llm client's
// Concurrency at least as high as cfg.Concurrency.
//
// # Reward server
//
// RewardServer is an http.Handler that scores for distributed trainers:
//
//	POST /reward      OpenRLHF (--reward.remote_url, --remote_rm_url before 0.10.2); also
//	                  at / and /get_reward. Request {"query": [...], "prompts": [...],
//	                  "labels": [...]}: query is prompt and response decoded together with
//	                  special tokens, prompts the templated prompts, labels the label column;
//	                  other keys (datasources, query_token_ids, …) are ignored. Response
//	                  {"rewards": [...], "scores": [...], "extra_logs": {name: [...]}}: scores
//	                  is the verdict credit in [0, 1] for dynamic filtering; extra_logs holds
//	                  every component, every flag as 0/1 and "failed", one value per query.
//	POST /trl         TRL reward functions: {"prompts", "completions", "labels"}, prompts
//	                  and completions strings or chat message lists. Response {"rewards",
//	                  "components": {name: [...]}, "flags": [[...]]}.
//	POST /verl        verl compute_score: {"data_source", "solution_str", "ground_truth",
//	                  "extra_info"} answered {"score", one key per component, "failed"}, or
//	                  the batch form {"data_sources", "solution_strs", "ground_truths",
//	                  "extra_infos"} answered {"results": [...]}; the prompt is
//	                  extra_info.prompt.
//	GET  /healthz     {"status": "ok", "components": [...], "uptime_seconds"}
//	GET  /metrics     Prometheus text format: requests by endpoint and status, completions,
//	                  flags, component sums, in-flight requests, request durations
//
// The completion is cut from an OpenRLHF query after the prompt (after a BOS too); when the
// decoded prompt differs from the one sent it is cut after the prompt's last line and
// flagged prompt_mismatch. Trailing end-of-turn and padding tokens are dropped. Bodies
// over MaxBodyBytes (64 MiB) are a 413, more than MaxItems completions a 400, as are
// malformed bodies, mismatched lengths, unknown keys in the TRL and verl forms and
// malformed labels; errors are {"error": "..."}. A missing label is scored on the
// label-free terms and counted, or refused with RequireLabels. Requests are served
// concurrently, MaxConcurrent scored at a time, each large one on GOMAXPROCS goroutines.
// The metrics use the Prometheus client library with a registry per server, so several
// servers in one process never share series.
//
// scripts/grpo holds the launch recipes for OpenRLHF, TRL and verl with the paper's
// settings; the tests here send the server requests shaped like each engine's.
package grpo
