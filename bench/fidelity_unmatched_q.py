"""The eighteenth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12q.json, found 2026-12-06), with the
reason read from vLLM's source at the release and what would settle each: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`."""

from __future__ import annotations

from bench.fidelity_unmatched_o import HEADLESS_GEFORCE

# The single RTX 3090 of the Baseline B boots (180,000 tokens and the 150,000 probe)
INT8_HEAD = (
    "Qwen3.8-27B W4A16 AutoRound with its lm_head re-quantized to int8 group 128 by syv-ai's quant_lm_head.py "
    "(embeddings left BF16) on one headless RTX 3090 (a Talos VM under Proxmox), vLLM 0.27.1, util 0.972, 3 "
    "sequences, 2,048 batched tokens, --language-model-only, fp8 KV, capture size 4. The README's boot summary gives "
    "15.43 GiB of weights where the planner loads 16.65: the catalog's int4-autoround keeps the published BF16 head "
    "(248,320 x 5,120), whose int8 copy is 1.2 GiB smaller; no catalog format describes that local requantization "
    "(the sixteenth set's syv-ai image, which requantizes the embeddings too, is 2.39 over). The rest, 0.89 GiB: "
    "the summary's 0.75 GiB of peak activation (0.27.1 counts the graph estimate in it, v1/worker/gpu_worker.py:"
    "527-529) leaves 22.90 - 15.43 - 6.50 - 0.75 = 0.22 GiB of non-torch where the plan has 1.43: "
    + HEADLESS_GEFORCE
    + ". The same box's two TP 2 FP8 boots (the fourteenth blind check, docs/fidelity.md) are within 0.26 GiB "
    "with that share, so one constant does not hold both. The two gaps together plan a 'kv-cache-too-small' "
    "refusal (4.39 GiB, 135,371 tokens) where the card started with 6.50 GiB"
)

EIGHTEENTH: dict[str, str] = {
    "vllm-0.27-rtx3090-qwen38-27b-w4a16-autoround-int8lmhead-180k-seqs3-util0972": (
        "weights +1.22 GiB, KV -2.11 GiB, tokens -33 %, verdict (eighteenth blind set, 2026-12-06; as found): "
        + INT8_HEAD
    ),
    "vllm-0.27-rtx3090-qwen38-27b-w4a16-autoround-int8lmhead-150k-seqs3-util0972-probe": (
        "KV -2.10 GiB (from the 198,529 tokens), tokens -33 %, verdict (the 150,000-token probe of the same "
        "deployment, as its commit message gives the boot log's tokens; eighteenth blind set, 2026-12-06; as "
        "found): " + INT8_HEAD
    ),
}
