#!/usr/bin/env python3
"""GRPO for the Judge with TRL, rewards from atma's reward server (POST /trl).

Paper settings: 200 steps of 4 prompts x 2 generations (TRL counts completions: a
per-device batch of 2 completions is one prompt's group, x 4 accumulation steps), 400 new
tokens, KL 0.04 (TRL's estimator is k3), learning rate 2e-5, LoRA r 16 / alpha 32, the
original GRPO loss and group scaling.

Environment:
  MODEL       base model (default Qwen/Qwen2.5-1.5B-Instruct)
  DATA        JSONL from server.WriteDataset (grpo/server; judge grpo --export-dataset) (default data/grpo/train.jsonl)
  REWARD_URL  reward server (default http://127.0.0.1:5000/trl)
  OUT         output directory (default checkpoints/judge-grpo-trl)
  USE_VLLM    1 to generate with vLLM (colocated)

Start the reward server first: judge reward-server --addr 127.0.0.1:5000
Needs: trl, peft, datasets, requests.
"""

import os

import requests
from datasets import load_dataset
from peft import LoraConfig
from trl import GRPOConfig, GRPOTrainer

MODEL = os.environ.get("MODEL", "Qwen/Qwen2.5-1.5B-Instruct")
DATA = os.environ.get("DATA", "data/grpo/train.jsonl")
REWARD_URL = os.environ.get("REWARD_URL", "http://127.0.0.1:5000/trl")
OUT = os.environ.get("OUT", "checkpoints/judge-grpo-trl")

_session = requests.Session()


def atma_reward(prompts, completions, label, **kwargs):
    """TRL reward function: one float per completion.

    prompts and completions are strings, or lists of chat messages for this
    conversational dataset; label is the dataset's label column (JSON strings).
    The server answers every component too; their means are logged through
    the trainer's log_metric when available.
    """
    resp = _session.post(
        REWARD_URL,
        json={"prompts": prompts, "completions": completions, "labels": label},
        timeout=180,
    )
    if resp.status_code != 200:
        raise RuntimeError(f"reward server: HTTP {resp.status_code}: {resp.text[:500]}")
    body = resp.json()
    log = kwargs.get("log_metric")
    if callable(log):
        for name, values in body["components"].items():
            if values:
                log(f"atma/{name}", sum(values) / len(values))
    return body["rewards"]


def main():
    ds = load_dataset("json", data_files=DATA, split="train")
    ds = ds.rename_column("messages", "prompt").select_columns(["prompt", "label"])
    cfg = GRPOConfig(
        output_dir=OUT,
        max_steps=200,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=4,
        num_generations=2,
        max_completion_length=400,
        temperature=1.0,
        beta=0.04,
        learning_rate=2e-5,
        loss_type="grpo",
        scale_rewards=True,
        logging_steps=1,
        save_steps=50,
        bf16=True,
        gradient_checkpointing=True,
        use_vllm=os.environ.get("USE_VLLM") == "1",
        vllm_mode="colocate",
        report_to="none",
    )
    lora = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, target_modules="all-linear", task_type="CAUSAL_LM")
    trainer = GRPOTrainer(model=MODEL, reward_funcs=atma_reward, args=cfg, train_dataset=ds, peft_config=lora)
    trainer.train()
    trainer.save_model(OUT)


if __name__ == "__main__":
    main()
