// Package server is the reward server: Server is an http.Handler that scores completions
// with package reward's Rewarder for distributed trainers:
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
// WriteDataset writes the training prompts with their labels as the dataset those recipes
// read (DatasetRow).
package server
