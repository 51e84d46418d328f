"""The twenty-second blind set's misses (tests/fidelity/cases/vllm-blind-2026-12u.json, found 2026-12-07), with the
term read from each source's own figures against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. Two set-ups: Qwen2.5-0.5B-Instruct under Model Runner V1 on an RTX PRO
6000 Blackwell Server Edition (vLLM 0.26.0, an A/B of the two runners in vllm issue #50159), and Intel's
Qwen3.6-35B-A3B int4-mixed AutoRound on one RTX 3090 (vLLM 0.22.0, club-3090 pull request #323)."""

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
# Intel's int4-mixed checkpoint on one RTX 3090 at 8,192 tokens and one sequence
A3B = (
    "Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound on one RTX 3090 under stock 0.22.0 (the compose at 195bd470: 8,192 "
    "tokens, one sequence, 4,096 batched tokens, fp8_e5m2 KV, prefix caching in 'align' mode, the vision tower "
    "loaded as video is not limited): the planner leaves 0.16-0.17 GiB more KV than the PR's figures (eight "
    "2,096-token blocks of the 47 planned at 0.95), with 19.16 GiB of int4-autoround weights for a 'mixed' "
    "checkpoint whose higher-precision tensors the catalog's format does not list, 1.04 GiB of non-torch memory "
    "(0.79 of it the vision encoder's amount; 1.30 with the GeForce share before) and a 0.50 GiB graph estimate "
    "where the PR's quoted notice implies 0.41 "
    "(0.95 - 0.9325 = 0.0175 of 23.56 GiB). The PR prints no 'Model loading took', so weights and non-torch "
    "memory cannot be told apart. Read 2026-12-07 (fifty-fourth session): Intel's int4-mixed MoE layout keeps the "
    "attention, Gated DeltaNet projections and shared expert in INT8 g128 (int4-mixed-autoround, "
    "planner.core.mixed_formats), 19.82 GiB, 0.66 more; mapped so, both boots plan 0.24 GiB under (0.10 under once "
    "make calibrate refits the encoder amount without the 0.33 GiB a rank club-3090 #851's INT4 weights left in it, "
    "a 14-point median: 51,796 -> 42,337 bytes a token), and the 0.92 boot plans -0.03 GiB: refused, but for no "
    "memory at all rather than 'too small'. The notice's 0.41 GiB graph estimate (0.22.0 v1/worker/gpu_worker.py:"
    "472-490: util less the estimate over the total) against the planner's 0.50 (the fitted first capture 0.11 and "
    "FlashInfer's 394 MiB workspace) is the one sourced term left that would plan +0.06 GiB at 0.92. Mapped so "
    "since the remap (4c96c4a) and make calibrate's refit (6f541ba) of 2026-12-07, the pins they moved restated"
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
    "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util092-kv-refusal": (
        "verdict (planned to refuse with -0.03 GiB of KV, 'No available memory', since the int4-mixed remap and "
        "refit, 2026-12-07, fifty-fourth session; to start with 0.49 GiB before them, 0.24 until the mechanistic "
        "non-torch model, fifty-third session; the PR: 'leaves only 0.07 GiB for KV at mem_util=0.92, so it can't "
        "even serve its 8K window'), KV -0.10 GiB (+0.42 before the remap and refit; +0.17 as found, "
        "twenty-second blind set, 2026-12-07). " + A3B
    ),
    "vllm-0.22-rtx3090-qwen36-35b-a3b-autoround-int4-8k-util095": (
        "tokens -10.5 % (27,852 planned, 31,129 printed; KV 0.68 planned, 0.78 printed, -0.10 GiB since the "
        "int4-mixed remap and refit, 2026-12-07, fifty-fourth session; +0.42 GiB before them; as found: tokens "
        "+23.7 %, 38,502 planned, KV 0.94 planned, +0.16 GiB; twenty-second "
        "blind set, 2026-12-07; as found): the token miss is the KV one on a pool of a few blocks. " + A3B
    ),
}
