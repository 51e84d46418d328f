"""The eighteenth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12q.json, found 2026-12-06), with the
reason read from vLLM's source at the release and what would settle each: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`."""

from __future__ import annotations

from bench.fidelity_unmatched_o import HEADLESS_GEFORCE

# The single RTX 3090 of the Baseline B boots (180,000 tokens and the 150,000 probe)
INT8_HEAD = (
    "Qwen3.8-27B W4A16 AutoRound with its lm_head re-quantized to int8 group 128 by syv-ai's quant_lm_head.py "
    "(embeddings left BF16) on one headless RTX 3090 (a Talos VM under Proxmox), vLLM 0.27.1, util 0.972, 3 "
    "sequences, 2,048 batched tokens, --language-model-only, fp8 KV, capture size 4. Its weights are planned as the "
    "script writes them since 2026-12-07 (int4-int8head, planner.core.vocab_formats: 15.39 GiB against the README's "
    "15.43, the 4-bit body symmetric at 4.125 bits; 16.65 with the catalog's BF16 head before, KV -2.11 then). "
    "The rest, 1.11 GiB: the summary's 0.75 GiB of peak activation (0.27.1 counts the graph estimate in it, "
    "v1/worker/gpu_worker.py:527-529; planned 0.83 with it) leaves 22.90 - 15.43 - 6.50 - 0.75 = 0.22 GiB of "
    "non-torch where the plan has 1.30 (the era's 0.25 and the desktop share's 1.05): "
    + HEADLESS_GEFORCE
    + ". The same box's two TP 2 FP8 boots (the fourteenth blind check, docs/fidelity.md) are within 0.26 GiB "
    "with that share, so one constant does not hold both. The need, 5.79 GiB, is the engine's: 6.50 / 5.79 = "
    "1.12x, the README's concurrency at 180,000 tokens"
)

# Empty since the mechanistic non-torch model (2026-12-07, fifty-third session): its start-ups meet their targets
EIGHTEENTH: dict[str, str] = {}
