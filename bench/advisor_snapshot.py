"""rank()'s whole output for 32 cases (dense 8B / 70B / 405B, MoE, hybrids, sliding-window and vision models;
fixed-length and preset workloads; engine, vendor, form-factor, weight, count and KV filters; purchase and cloud;
one generic overhead model), one JSON line per case, for proving a speed change leaves the ranking byte-identical:
``python -m bench.advisor_snapshot before.jsonl`` on the old code, ``... after.jsonl`` on the new, then ``cmp``.
Never asserted in tests (the numbers legitimately change with the models); ~10 s.
"""

from __future__ import annotations

import sys
from typing import Any

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, rank
from planner.engines.registry import overhead_profile

GPUS = list(load_gpus().values())
F = Workload.fixed_length
P = Workload.from_preset

CASES: list[tuple[str, Workload, dict[str, Any]]] = [
    ("meta-llama/Llama-3.1-8B", F(16384, concurrent_conversations=32), {}),
    ("meta-llama/Llama-3.1-8B", F(4096, concurrent_conversations=1), {}),
    ("meta-llama/Llama-3.1-8B", F(131072, concurrent_conversations=8), {}),
    ("meta-llama/Llama-3.1-8B", P("support-chat", concurrent_conversations=100), {}),
    ("meta-llama/Llama-3.1-8B", P("support-chat", concurrent_conversations=100), {"overhead": "generic"}),
    ("meta-llama/Llama-3.1-8B", P("rag", requests_per_s=5.0, pricing="cloud"), {}),
    ("meta-llama/Llama-3.1-8B", F(8192, concurrent_conversations=4, engines=("llamacpp",), include_personal=True), {}),
    ("meta-llama/Llama-3.1-8B", F(8192, concurrent_conversations=16, engines=("sglang", "trtllm")), {}),
    ("meta-llama/Llama-3.1-8B", F(8192, concurrent_conversations=16, vendors=("AMD",)), {}),
    (
        "meta-llama/Llama-3.1-8B",
        F(2048, concurrent_conversations=64, budget_usd=50000.0, max_time_to_first_token_s=0.5),
        {},
    ),
    ("meta-llama/Llama-3.1-70B", F(16384, concurrent_conversations=32), {}),
    ("meta-llama/Llama-3.1-70B", P("coding-agent", concurrent_conversations=20), {}),
    ("meta-llama/Llama-3.1-70B", P("long-document", concurrent_conversations=5, pricing="cloud"), {}),
    ("meta-llama/Llama-3.1-70B", F(32768, concurrent_conversations=10, weights=("bf16",)), {}),
    ("Qwen/Qwen3-30B-A3B", F(16384, concurrent_conversations=32), {}),
    ("Qwen/Qwen3-30B-A3B", P("support-chat", concurrent_conversations=100), {}),
    ("Qwen/Qwen3-30B-A3B", F(4096, concurrent_conversations=200, include_personal=True), {}),
    ("mistralai/Mixtral-8x7B-v0.1", P("rag", concurrent_conversations=30), {}),
    ("deepseek-ai/DeepSeek-V3", F(8192, concurrent_conversations=8), {}),
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", F(32768, concurrent_conversations=16), {}),
    ("Qwen/Qwen3.5-27B", F(16384, concurrent_conversations=32), {}),
    ("google/gemma-3-27b-it", P("rag", concurrent_conversations=50), {}),
    ("google/gemma-2-9b", F(4096, concurrent_conversations=64, include_personal=True), {}),
    ("openai/gpt-oss-20b", F(16384, concurrent_conversations=32, include_personal=True, include_restricted=True), {}),
    ("openai/gpt-oss-120b", P("coding-agent", concurrent_conversations=10), {}),
    ("ibm-granite/granite-4.0-h-small", F(16384, concurrent_conversations=32), {}),
    ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", P("support-chat", concurrent_conversations=50), {}),
    ("meta-llama/Llama-3.1-405B", F(8192, concurrent_conversations=4), {}),
    ("Qwen/Qwen3-0.6B", F(2048, concurrent_conversations=500, form_factors=("card",)), {}),
    ("meta-llama/Llama-4-Scout-17B-16E", F(65536, concurrent_conversations=8), {"kv_dtypes": ("fp8",)}),
    ("Qwen/Qwen3-8B", F(16384, concurrent_conversations=32, plan_at="mean"), {"counts": (1, 2)}),
    (
        "Qwen/Qwen3-8B",
        P("support-chat", concurrent_conversations=40, plan_at="max", shared_prefix_tokens=1000),
        {"sort_by": "cost_per_conversation"},
    ),
]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m bench.advisor_snapshot OUT.jsonl", file=sys.stderr)
        return 2
    with open(argv[1], "w", encoding="utf-8") as out:
        for model_id, workload, options in CASES:
            kw = dict(options)
            if "overhead" in kw:
                kw["overhead"] = overhead_profile(kw["overhead"])
            ranking = rank(get_model(model_id).spec, workload, gpus=GPUS, **kw)
            out.write(ranking.model_dump_json() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
