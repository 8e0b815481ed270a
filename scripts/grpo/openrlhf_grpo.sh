#!/usr/bin/env bash
# GRPO for the Judge with OpenRLHF, rewards from atma's reward server (POST /reward).
#
# Paper settings: 4 prompts per step × 2 samples, 400 new tokens, group-normalised
# advantages, KL 0.04 (k3) in the loss, learning rate 2e-5, LoRA r 16 / α 32, 200 steps
# (one episode over 800 prompts).
#
# Environment:
#   MODEL       base model (default Qwen/Qwen2.5-1.5B-Instruct)
#   DATA        JSONL from server.WriteDataset (grpo/server; judge grpo --export-dataset) (default data/grpo/train.jsonl)
#   REWARD_URL  reward server; several comma-separated URLs shard each batch
#               (default http://127.0.0.1:5000/reward)
#   OUT         output directory (default checkpoints/judge-grpo-openrlhf)
#   FLAGS       "dotted" for OpenRLHF 0.10.2 and later (default), "flat" before
#   LORA        1 (default) trains LoRA adapters, 0 the full model. OpenRLHF's own
#               documentation for the dotted releases says LoRA is not supported with
#               Ray + vLLM PPO; set LORA=0 there if the launch refuses it.
#
# Start the reward server first: judge reward-server --addr 127.0.0.1:5000
set -euo pipefail

MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
DATA=${DATA:-data/grpo/train.jsonl}
REWARD_URL=${REWARD_URL:-http://127.0.0.1:5000/reward}
OUT=${OUT:-checkpoints/judge-grpo-openrlhf}
FLAGS=${FLAGS:-dotted}
LORA=${LORA:-1}

STEPS=200
PROMPTS_PER_STEP=4       # per-device batch 1 × gradient accumulation 4
SAMPLES=2                # generations per prompt
COMPLETIONS=$((PROMPTS_PER_STEP * SAMPLES))

curl -fsS "${REWARD_URL%%,*}" -o /dev/null -X POST -H 'Content-Type: application/json' \
  -d '{"query":[],"prompts":[],"labels":[]}' || { echo "reward server not reachable at $REWARD_URL" >&2; exit 1; }

if [ "$FLAGS" = dotted ]; then
  args=(
    --actor.model_name_or_path "$MODEL"
    --reward.remote_url "$REWARD_URL"
    --data.prompt_dataset "$DATA" --data.input_key messages --data.apply_chat_template --data.label_key label
    --data.max_samples $((STEPS * PROMPTS_PER_STEP)) --data.max_len 2048
    --rollout.batch_size $PROMPTS_PER_STEP --rollout.micro_batch_size 1
    --rollout.n_samples_per_prompt $SAMPLES --rollout.max_new_tokens 400 --rollout.temperature 1.0
    --train.batch_size $COMPLETIONS --train.micro_batch_size $SAMPLES --train.num_episodes 1 --train.max_epochs 1
    --algo.advantage.estimator group_norm
    --algo.kl.init_coef 0.04 --algo.kl.estimator k3 --algo.kl.use_loss
    --actor.adam.lr 2e-5
    --vllm.num_engines 1 --vllm.tensor_parallel_size 1 --vllm.gpu_memory_utilization 0.5 --vllm.enable_sleep
    --train.colocate_all --ds.enable_sleep --ds.zero_stage 2 --ds.param_dtype bf16
    --actor.gradient_checkpointing_enable
    --ckpt.output_dir "$OUT" --logger.logging_steps 1
  )
  [ "$LORA" = 1 ] && args+=(--ds.lora.rank 16 --ds.lora.alpha 32 --ds.lora.target_modules all-linear)
else
  args=(
    --pretrain "$MODEL"
    --remote_rm_url "$REWARD_URL"
    --prompt_data "$DATA" --input_key messages --apply_chat_template --label_key label
    --max_samples $((STEPS * PROMPTS_PER_STEP)) --prompt_max_len 2048
    --rollout_batch_size $PROMPTS_PER_STEP --micro_rollout_batch_size 1
    --n_samples_per_prompt $SAMPLES --generate_max_len 400 --temperature 1.0
    --train_batch_size $COMPLETIONS --micro_train_batch_size $SAMPLES --num_episodes 1 --max_epochs 1
    --advantage_estimator group_norm
    --init_kl_coef 0.04 --kl_estimator k3 --use_kl_loss
    --actor_learning_rate 2e-5
    --vllm_num_engines 1 --vllm_tensor_parallel_size 1 --vllm_gpu_memory_utilization 0.5 --vllm_enable_sleep
    --colocate_all_models --deepspeed_enable_sleep --zero_stage 2 --bf16
    --gradient_checkpointing
    --save_path "$OUT" --logging_steps 1
  )
  [ "$LORA" = 1 ] && args+=(--lora_rank 16 --lora_alpha 32 --target_modules all-linear)
fi

# A single-node Ray cluster unless one is running already.
ray status >/dev/null 2>&1 || ray start --head --num-gpus "$(nvidia-smi -L | wc -l)"
if [ "$FLAGS" = dotted ]; then
  place=(--ref.num_nodes 1 --ref.num_gpus_per_node 1 --actor.num_nodes 1 --actor.num_gpus_per_node 1)
else
  place=(--ref_num_nodes 1 --ref_num_gpus_per_node 1 --actor_num_nodes 1 --actor_num_gpus_per_node 1)
fi
exec python3 -m openrlhf.cli.train_ppo_ray "${place[@]}" "${args[@]}"
