"""The twenty-fifth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12x.json: the fourteenth blind check's
start-ups of 2026-12-06, fixtures from 2026-12-08), with the term read from the source's own figures against the
planner's: merged into :data:`bench.fidelity_unmatched.UNMATCHED`. One box: Qwen/Qwen3-32B BF16 at util 0.426 on RTX
PRO 6000 Blackwell Server Edition cards under vLLM 0.27.1 (Model Runner V2, whose CUDA-graph estimate is not in the
budget), the same post's TP 1 and PP 2 start-ups; its TP 2 one is within 0.28 GiB."""

from __future__ import annotations

# What the post's own figures leave per rank beside the weights and the KV cache (0.426 x 95.01 = 40.47 GiB)
_ONE_RANK = (
    "the post's budget of 0.426 x 95.01 = 40.47 GiB less the printed weights and KV leaves {left} GiB of activation "
    "and non-torch memory on this rank, where the planner puts {planned}; the same box at TP 2 leaves 1.66 against "
    "the planner's 1.94 (-0.28), so a rank holding whole layers (TP 1) holds ~1.3 GiB more than planned there"
)

TWENTY_FIFTH: dict[str, str] = {
    "vllm-0.27-rtxpro6000-server-qwen3-32b-bf16-tp1-util0426-32k-no-kv-memory": (
        "KV +1.32 GiB, verdict right (the refusal: -24.42 printed, -23.10 planned): "
        + _ONE_RANK.format(left="3.86", planned="2.52 (1.68 activation, 0.85 non-torch)")
    ),
    "vllm-0.27-2xrtxpro6000-server-qwen3-32b-bf16-pp2-util0426-32k": (
        "KV +1.27 GiB, tokens +7.5 % (the first stage's printed 6.92 GiB; the pool's 56,640 tokens are the last "
        "stage's 3,540 blocks of 128 KiB a token, 6.91 GiB, so both stages hold about the same): "
        + _ONE_RANK.format(left="3.03", planned="1.75 (1.68 activation, 0.07 non-torch)")
        + "; the post's nvidia-smi shows 40,701 and 43,667 MiB on the two cards"
    ),
}
