// Package grpo runs GRPO rollouts for the Judge: a sampling-and-scoring loop with a
// resumable run directory, group advantages and the k3 KL estimate. The reward is package
// grpo/reward's; the reward server through which OpenRLHF, TRL and verl train with the
// same reward is package grpo/server; fixtures the tests share are in grpo/grpotest.
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
package grpo
