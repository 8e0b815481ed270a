"""verl custom reward function that asks atma's reward server (POST /verl).

Use with verl's trainer:
  custom_reward_function.path=scripts/grpo/verl_reward.py custom_reward_function.name=compute_score

verl calls compute_score(data_source, solution_str, ground_truth, extra_info) per sample
with its naive reward manager, and compute_score(data_sources=..., solution_strs=...,
ground_truths=..., extra_infos=...) with the batch manager
(reward_model.reward_manager=batch); both are served. The result is a dict whose "score"
is the reward; verl logs the other keys (the nine components and "failed").

ground_truth is the dataset's label (a JSON string of the gold label); extra_info.prompt,
when the dataset has it, lets the server apply the prompt-echo term.

Environment: ATMA_REWARD_URL (default http://127.0.0.1:5000/verl).
"""

import os

import requests

URL = os.environ.get("ATMA_REWARD_URL", "http://127.0.0.1:5000/verl")
_session = requests.Session()


def _post(payload):
    for attempt in range(5):
        try:
            resp = _session.post(URL, json=payload, timeout=180)
        except requests.RequestException:
            if attempt == 4:
                raise
            continue
        if resp.status_code == 200:
            return resp.json()
        if resp.status_code < 500:
            # A malformed label or request: retrying cannot help.
            raise RuntimeError(f"reward server: HTTP {resp.status_code}: {resp.text[:500]}")
    raise RuntimeError(f"reward server at {URL} kept failing")


def _plain(info):
    """extra_info may hold numpy values; keep what JSON can carry."""
    if not isinstance(info, dict):
        return None
    out = {}
    for k, v in info.items():
        if hasattr(v, "tolist"):
            v = v.tolist()
        if isinstance(v, (str, int, float, bool, list, dict)) or v is None:
            out[k] = v
    return out


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None,
                  data_sources=None, solution_strs=None, ground_truths=None, extra_infos=None, **kwargs):
    if solution_strs is not None:
        body = _post({
            "data_sources": list(data_sources) if data_sources is not None else None,
            "solution_strs": list(solution_strs),
            "ground_truths": list(ground_truths) if ground_truths is not None else None,
            "extra_infos": [_plain(x) for x in extra_infos] if extra_infos is not None else None,
        })
        return body["results"]
    return _post({
        "data_source": data_source,
        "solution_str": solution_str,
        "ground_truth": ground_truth,
        "extra_info": _plain(extra_info),
    })
