#!/usr/bin/env bash
# GRPO for the Judge with verl, rewards from atma's reward server through verl_reward.py.
#
# Paper settings: 200 steps of 4 prompts × 2 rollouts, 400 response tokens, KL 0.04 in the
# loss with low_var_kl (verl's k3, clamped), no KL in the reward, learning rate 2e-5,
# LoRA r 16 / α 32.
#
# Environment:
#   MODEL            base model (default Qwen/Qwen2.5-1.5B-Instruct)
#   DATA             JSONL from server.WriteDataset (grpo/server; judge grpo --export-dataset) (default data/grpo/train.jsonl)
#   ATMA_REWARD_URL  reward server (default http://127.0.0.1:5000/verl)
#   OUT              output directory (default checkpoints/judge-grpo-verl)
#   GPUS             GPUs on this node (default 1)
#
# Start the reward server first: judge reward-server --addr 127.0.0.1:5000
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
DATA=${DATA:-data/grpo/train.jsonl}
export ATMA_REWARD_URL=${ATMA_REWARD_URL:-http://127.0.0.1:5000/verl}
OUT=${OUT:-checkpoints/judge-grpo-verl}
GPUS=${GPUS:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
PARQUET="${DATA%.jsonl}.parquet"

# verl reads parquet: prompt (chat messages), data_source, reward_model.ground_truth, extra_info.
python3 - "$DATA" "$PARQUET" <<'PY'
import json, sys
import pandas as pd
rows = []
with open(sys.argv[1]) as f:
    for line in f:
        if line.strip():
            r = json.loads(line)
            rows.append({"data_source": r["data_source"], "prompt": r["messages"], "ability": "memory_audit",
                         "reward_model": {"style": "rule", "ground_truth": r["label"]}, "extra_info": r["extra_info"]})
pd.DataFrame(rows).to_parquet(sys.argv[2])
print(f"{len(rows)} prompts -> {sys.argv[2]}")
PY

exec python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo algorithm.use_kl_in_reward=False \
  data.train_files="$PARQUET" data.val_files="$PARQUET" \
  data.train_batch_size=4 data.max_prompt_length=2048 data.max_response_length=400 \
  actor_rollout_ref.model.path="$MODEL" actor_rollout_ref.model.lora_rank=16 actor_rollout_ref.model.lora_alpha=32 \
  actor_rollout_ref.model.target_modules=all-linear actor_rollout_ref.model.enable_gradient_checkpointing=True \
  actor_rollout_ref.actor.optim.lr=2e-5 actor_rollout_ref.actor.ppo_mini_batch_size=4 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.actor.use_kl_loss=True actor_rollout_ref.actor.kl_loss_coef=0.04 actor_rollout_ref.actor.kl_loss_type=low_var_kl \
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.temperature=1.0 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.5 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 \
  custom_reward_function.path="$HERE/verl_reward.py" custom_reward_function.name=compute_score \
  trainer.total_training_steps=200 trainer.total_epochs=1000 trainer.n_gpus_per_node="$GPUS" trainer.nnodes=1 \
  trainer.default_local_dir="$OUT" trainer.logger='[console]' trainer.val_before_train=False trainer.test_freq=-1 trainer.save_freq=50
