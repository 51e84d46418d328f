"""The twenty-second blind set's misses (tests/fidelity/cases/vllm-blind-2026-12u.json, found 2026-12-07), with the
term read from each source's own figures against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. Two set-ups: Qwen2.5-0.5B-Instruct under Model Runner V1 on an RTX PRO
6000 Blackwell Server Edition (vLLM 0.26.0, an A/B of the two runners in vllm issue #50159); Intel's
Qwen3.6-35B-A3B int4-mixed AutoRound on one RTX 3090 (vLLM 0.22.0, club-3090 pull request #323) matches since."""

from __future__ import annotations

# The V1 runner's sampler warm-up: the planner's 1,024-row peak against the A/B's equal eager pools
V1_SAMPLER = (
    "The comment's eager boots print the same 6,908,880 tokens under Model Runner V1 and V2, so V1's profile peak "
    "is V2's; the planner holds V1's dummy sampler run at 2.18 GiB (1,024 rows x the 151,936-token vocabulary "
    "through the Triton top-k/top-p path, VLLM_USE_FLASHINFER_SAMPLER=0) where V2's peak is the forward's 0.62 GiB, "
    "and V2 lands within 0.14 GiB. Read in 0.26.0's source, the planner's figure is the source's: "
    "_dummy_sampler_run samples min(max_num_seqs, tokens) = 1,024 rows (v1/worker/gpu_model_runner.py:6170-6243, "
    "the rows from _dummy_run's min(num_tokens, max_num_seqs)), holding the bf16 logits (0.29 GiB), their fp32 "
    "copy (v1/sample/sampler.py:96, 0.58), the Triton kernel's min(SMs, rows) x vocab fp32 buffer "
    "(v1/sample/ops/topk_topp_triton.py:906-919, 0.11 at 188 SMs), the probabilities (topk_topp_sampler.py:141, "
    "0.58) and the exponential noise (:457, 0.58): 2.13 GiB, inside a profile whose peak counter is reset first "
    "(utils/mem_utils.py:284-294). So the A/B's V1 row is not the stated set-up at 1,024 sequences: the pools match "
    "V2's if V1 sampled at most ~280 rows (the planner at 256 sequences gives the V2 pool exactly); not fitted, "
    "the comment's own script or its 'Actual usage' lines would settle it"
)
TWENTY_SECOND: dict[str, str] = {
    "vllm-0.26-rtxpro6000se-qwen25-05b-instruct-util085-eager-mr1": (
        "KV -1.70 GiB (77.37 planned, 79.07 from the 6,908,880 tokens; twenty-second blind set, 2026-12-07; as "
        "found): Qwen2.5-0.5B-Instruct in eager mode under Model Runner V1 at util 0.85. " + V1_SAMPLER
    ),
    "vllm-0.26-rtxpro6000se-qwen25-05b-instruct-util085-graphs-mr1": (
        "KV -2.12 GiB (76.75 planned, 78.86 from the 6,891,296 tokens; twenty-second blind set, 2026-12-07; as "
        "found): the same under V1 with CUDA graphs, 0.42 GiB more than eager: the planner's graph estimate is "
        "0.62 GiB where the comment reads ~0.21 GiB of capture headroom from the V1 logs (the eager and graph "
        "pools differ by 17,584 tokens, 0.20 GiB). " + V1_SAMPLER
    ),
    # The RTX 3090 Intel int4-mixed twins (club-3090 pull request #323) match since 2026-12-07 (fifty-fourth
    # session): int4-mixed-autoround weights (19.82 GiB), the encoder refit, and FlashInfer's decode workspace inside
    # FULL's first capture (0.22.0 v1/worker/gpu_model_runner.py:6359-6364): the 0.92 boot plans 0.01 GiB of KV
    # and is refused as 'too small' (KV -0.06), the 0.95 boot 0.71 GiB / 28,672 tokens (-0.07, -7.9 %)
}
