package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/grpo"
	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/grpo/server"
	"github.com/atma-dev/atma/internal/httpauth"
	"github.com/atma-dev/atma/llm"
)

// --- grpo ---

type judgeGRPOOptions struct {
	llmOptions
	Config         string
	Dir            string
	Steps          int
	ExportRollouts bool
	ExportDataset  string
	RefURL         string
	RefModel       string
	JSON           bool
}

func newCmdJudgeGRPO(f *Factory, runF func(context.Context, *judgeGRPOOptions) error) *cobra.Command {
	opts := &judgeGRPOOptions{}
	cmd := &cobra.Command{
		Use:   "grpo --dir RUN",
		Short: "Run GRPO reward rollouts for the Judge against a policy endpoint",
		Long: `Sample G completions per audit prompt from the policy endpoint, score each with the
rule-based reward (every component reported), compute group advantages and, with a reference
endpoint that returns prompt logprobs (vLLM), the k3 KL. The run directory gets the config,
steps.jsonl, sampled completions, a summary, PNG curves and held-out judge eval every K steps;
it resumes after an interruption. The run scores and logs only: the weights are updated by
an external trainer (see judge reward-server, scripts/grpo/), or offline from
--export-rollouts. Defaults are the paper's (200 steps, 4 prompts × 2 generations, 400
tokens, KL 0.04; the trainer's LoRA r16/α32 and lr 2e-5 are set in scripts/grpo/).`,
		Example: `  judge grpo --dir runs/grpo1 --llm-url http://127.0.0.1:8000/v1 --model judge-sft
  judge grpo --dir runs/grpo1 --config grpo.json --export-rollouts
  judge grpo --export-dataset prompts.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Dir == "" && opts.ExportDataset == "" {
				return usagef("--dir is required")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return judgeGRPORun(cmd.Context(), f, opts, cmd)
		},
	}
	opts.llmOptions.addFlags(cmd.Flags())
	fl := cmd.Flags()
	fl.StringVar(&opts.Config, "config", "", "run config JSON (default: the paper's settings); unknown keys are errors")
	fl.StringVar(&opts.Dir, "dir", "", "run directory (created, or resumed when it holds a run)")
	fl.IntVar(&opts.Steps, "steps", 0, "override the number of steps")
	fl.BoolVar(&opts.ExportRollouts, "export-rollouts", false, "write rollouts.jsonl (prompt, completion, reward components, advantage, logprobs)")
	fl.StringVar(&opts.ExportDataset, "export-dataset", "", "write the training prompts with labels as JSONL for external trainers, then exit")
	fl.StringVar(&opts.RefURL, "ref-url", "", "reference model endpoint (vLLM) for the KL")
	fl.StringVar(&opts.RefModel, "ref-model", "", "reference model name")
	fl.BoolVar(&opts.JSON, "json", false, "print the summary as JSON")
	return cmd
}

func judgeGRPORun(ctx context.Context, f *Factory, opts *judgeGRPOOptions, cmd *cobra.Command) error {
	cfg := grpo.DefaultRunConfig()
	if opts.Config != "" {
		file, err := os.Open(opts.Config)
		if err != nil {
			return err
		}
		cfg, err = grpo.LoadRunConfig(file)
		file.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Config, err)
		}
	}
	if cmd.Flags().Changed("steps") {
		cfg.Steps = opts.Steps
	}
	if opts.ExportRollouts {
		cfg.ExportRollouts = true
	}
	items, err := grpo.LoadPrompts(cfg.Prompts)
	if err != nil {
		return err
	}
	if opts.ExportDataset != "" {
		file, err := os.Create(opts.ExportDataset)
		if err != nil {
			return err
		}
		if err := errors.Join(server.WriteDataset(file, items), file.Close()); err != nil {
			return err
		}
		_, err = fmt.Fprintf(f.IO.Out, "wrote %d prompts with labels to %s\n", len(items), opts.ExportDataset)
		return err
	}
	cfg.Dir = opts.Dir
	lc, ok := f.llmConfig(&opts.llmOptions)
	if !ok {
		return usagef("no policy endpoint: set --llm-url (or ATMA_LLM_URL) and --model")
	}
	// The run keeps cfg.Concurrency prompts in flight, each asking for G completions.
	lc.Concurrency = max(cfg.Concurrency*cfg.Generations, 4)
	policy, err := llm.New(lc)
	if err != nil {
		return usageError{err}
	}
	deps := grpo.Deps{Policy: policy, Items: items, Logger: f.Logger}
	if opts.RefURL != "" {
		ref, err := grpo.NewPromptLogprobsReference(grpo.PromptLogprobsConfig{BaseURL: opts.RefURL, Model: opts.RefModel, APIKey: lc.APIKey, Timeout: opts.Timeout})
		if err != nil {
			return usageError{err}
		}
		deps.Reference = ref
	}
	sum, err := grpo.Run(ctx, cfg, deps)
	if sum != nil {
		if opts.JSON {
			if jerr := json.NewEncoder(f.IO.Out).Encode(sum); jerr != nil {
				return errors.Join(err, jerr)
			}
		} else {
			fmt.Fprintf(f.IO.Out, "run %s: %d/%d steps, %d completions, reward %.3f (first 10 steps %.3f, last 10 %.3f), zero-std groups %.1f%%, failures %+v\n",
				sum.Dir, sum.Steps, sum.TargetSteps, sum.Completions, sum.Reward, sum.RewardFirst, sum.RewardLast, 100*sum.ZeroStdFraction, sum.Failures)
		}
	}
	return err
}

// --- reward-server ---

type rewardServerOptions struct {
	Addr          string
	RewardConfig  string
	MaxBodyBytes  int64
	MaxConcurrent int
	RequireLabels bool
	Token         string
}

func newCmdJudgeRewardServer(f *Factory, runF func(context.Context, *rewardServerOptions) error) *cobra.Command {
	opts := &rewardServerOptions{}
	cmd := &cobra.Command{
		Use:   "reward-server",
		Short: "Serve the rule-based reward to OpenRLHF, TRL and verl over HTTP",
		Long: `Serve the Judge's rule-based reward over HTTP for distributed RL trainers:
  POST /reward    OpenRLHF's remote reward protocol ({"query","prompts","labels"} → {"rewards","scores","extra_logs"});
                  also at / and /get_reward; pass --reward.remote_url http://HOST:PORT/reward
                  (OpenRLHF ≥ 0.10.2; earlier --remote_rm_url)
  POST /trl       {"prompts","completions", …} → {"rewards"}, for a TRL reward function
  POST /verl      {"data_source","solution_str","ground_truth","extra_info"} → {"score", …}
  GET  /healthz, GET /metrics (Prometheus text format)
Labels are the JSON of the audit item's gold labels (see reward.Label). With a token (--token
or ATMA_REWARD_TOKEN, at least 16 bytes) every route but /healthz needs
"Authorization: Bearer <token>" (OpenRLHF: --reward.remote_rm_key); without one the
server listens on a loopback address only. Requests wait for a scoring slot before their
body is read. Ctrl-C stops it gracefully.`,
		Example: `  judge reward-server --addr 127.0.0.1:8089
  ATMA_REWARD_TOKEN=$(openssl rand -hex 32) judge reward-server --addr 0.0.0.0:8089 --reward-config reward.json --require-labels`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return rewardServerRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:8089", "address to listen on (a non-loopback one needs a token)")
	fl.StringVar(&opts.Token, "token", "", "bearer token every request but GET /healthz must carry (env ATMA_REWARD_TOKEN)")
	fl.StringVar(&opts.RewardConfig, "reward-config", "", "reward values and weights (JSON; default: the built-in reward.json)")
	fl.Int64Var(&opts.MaxBodyBytes, "max-body-bytes", 0, "largest request body (0: the default)")
	fl.IntVar(&opts.MaxConcurrent, "max-concurrent", 0, "requests scored at once (0: the default)")
	fl.BoolVar(&opts.RequireLabels, "require-labels", false, "refuse completions without a label (400) instead of scoring the label-free terms")
	return cmd
}

func rewardServerRun(ctx context.Context, f *Factory, opts *rewardServerOptions) error {
	token := cmp.Or(opts.Token, f.env("ATMA_REWARD_TOKEN"))
	if err := httpauth.CheckBind(opts.Addr, token); err != nil {
		return usageError{fmt.Errorf("%w (--token or ATMA_REWARD_TOKEN)", err)}
	}
	cfg := server.Config{MaxBodyBytes: opts.MaxBodyBytes, MaxConcurrent: opts.MaxConcurrent, RequireLabels: opts.RequireLabels, Token: token, Logger: f.Logger}
	if opts.RewardConfig != "" {
		file, err := os.Open(opts.RewardConfig)
		if err != nil {
			return err
		}
		rc, err := reward.LoadConfig(file)
		file.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", opts.RewardConfig, err)
		}
		cfg.Reward = &rc
	}
	h, err := server.New(cfg)
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return err
	}
	if err := httpauth.CheckBound(ln.Addr(), token); err != nil {
		ln.Close()
		return usagef("%s: %v (--token or ATMA_REWARD_TOKEN)", opts.Addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute, WriteTimeout: 5 * time.Minute, IdleTimeout: 2 * time.Minute}
	f.Logger.Info("reward server listening", "addr", ln.Addr().String())
	return serveUntilDone(ctx, srv, ln)
}

// serveUntilDone serves until ctx ends, then shuts down gracefully.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return err
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
