"""One-line quality caveats for 4-bit and GGUF weights, each with its source (shown with every such pick), and the
note every FP8 or block-quantized (llama.cpp q8_0 / q4_0) KV cache carries (:func:`kv_note`)."""

from __future__ import annotations

_GGUF_PPL = (
    "XiongjieDai/GPU-Benchmarks-on-LLM-Inference README, perplexity table on Llama 3 70B (wiki.test, credit "
    "dranger003, ggml-org/llama.cpp#6745)"
)
_GGUF_DELTA = {"q8_0": 0.03, "q6_k": 0.47, "q5_k_m": 1.23, "q4_k_m": 4.83, "q3_k_m": 18.75, "q2_k": 68.73}

CAVEATS: dict[str, str] = {
    **{
        name: f"GGUF {name.upper()}: perplexity +{delta:g} % against F16 on Llama 3 70B ({_GGUF_PPL})"
        for name, delta in _GGUF_DELTA.items()
    },
    "int4-awq": (
        "4-bit AWQ weights: a small, model-dependent quality loss; check your own evaluations (Lin et al. 2023, AWQ, "
        "arXiv:2306.00978, INT4 group-128 perplexity tables)"
    ),
    "int4-gptq": (
        "4-bit GPTQ weights: a small, model-dependent quality loss; check your own evaluations (Frantar et al. "
        "2022, GPTQ, arXiv:2210.17323)"
    ),
    "int4-g32": (
        "4-bit weights at group size 32 (AWQ or GPTQ rounding): a small, model-dependent quality loss; check your own "
        "evaluations (Lin et al. 2023, AWQ, arXiv:2306.00978)"
    ),
    "int4": "idealised 4-bit weights (no calibration method): expect a quality loss; not a servable checkpoint",
    "nvfp4": (
        "NVFP4 weights: NVIDIA reports accuracy close to FP8, and advises evaluating your use case before deploying "
        "(https://build.nvidia.com/playbooks/nvfp4-quantization/overview)"
    ),
    "mxfp4": (
        "MXFP4 weights: lossless only for models trained for it (gpt-oss ships MXFP4 experts, model card); "
        "post-hoc MXFP4 loses more"
    ),
    **dict.fromkeys(
        ("int4-autoround", "int4-mixed-autoround"),
        "4-bit AutoRound weights: a small, model-dependent quality loss; check your own evaluations (Cheng et al. "
        "2023, AutoRound, arXiv:2309.05516)",
    ),
    # W4A16 with int8 vocabulary matrices (planner.core.vocab_formats): the 4-bit body's caveat
    **dict.fromkeys(
        ("int4-int8head", "int4-int8vocab"),
        "4-bit weights with an int8 lm_head: a small, model-dependent quality loss; check your own evaluations "
        "(Frantar et al. 2022, GPTQ, arXiv:2210.17323)",
    ),
    "int4-experts": (
        "4-bit routed experts: lossless only for models trained for it (Kimi-K2-Thinking is quantization-aware "
        "trained, model card); post-hoc INT4 experts lose more"
    ),
}
# An 8-bit float cache is a note, not a caveat: the seeds call its loss negligible on most models, and the engines
# scale it by 1.0 unless the checkpoint carries calibrated scales.
FP8_KV_NOTE = (
    "FP8 KV cache: scaled by 1.0 unless the checkpoint carries calibrated scales (vLLM's docs recommend calibrating, "
    "docs.vllm.ai features/quantization/quantized_kvcache); negligible loss on most models (The Memory Math of "
    "Serving a Model), more at long contexts: check your own evaluations"
)
# llama.cpp's block caches (--cache-type-k/v, ggml block_q8_0 / block_q4_0: one fp16 scale per 32 values): q8_0 the
# common advice, q4_0 lossier. Sources: ikawrakow (author of llama.cpp's k-quants) calls a Q8_0 KV cache "basically
# lossless while reducing required memory by 2X" (ikawrakow/ik_llama.cpp#173, 2025-01-19); a user thread on
# llama.cpp's Gemma 4 cache (lmstudio-ai/lmstudio-bug-tracker#1740, 2026-04-08) points to a KL-divergence measurement
# showing q8_0 degrades measurably (ggml-org/llama.cpp#21038, comment 4150413357) and calls q4_0 impractical.
INT8_KV_NOTE = (
    "q8_0 KV cache (llama.cpp --cache-type-k/v q8_0, 8.5 bits a value): near-lossless by perplexity "
    "(ikawrakow/ik_llama.cpp#173: 'basically lossless'), a measurable KL-divergence shift on some models "
    "(ggml-org/llama.cpp#21038): check your own evaluations; its speed is modelled from the bytes read, unmeasured "
    "(no llama.cpp run with a quantized cache in the speed model's validation)"
)
INT4_KV_NOTE = (
    "q4_0 KV cache (llama.cpp --cache-type-k/v q4_0, 4.5 bits a value): a clear quality loss, worse at long contexts "
    "(users report degraded output, lmstudio-ai/lmstudio-bug-tracker#1740; KL-divergence, ggml-org/llama.cpp#21038): "
    "check your own evaluations"
)
KV_NOTES = {"int8": INT8_KV_NOTE, "int4": INT4_KV_NOTE}
# NVIDIA's NVFP4 layouts that keep attention (or everything but the routed experts) in 8 or 16 bits: the same note.
CAVEATS.update({name: CAVEATS["nvfp4"] for name in ("nvfp4-fp8attn", "nvfp4-fp8tail", "nvfp4-mlp", "nvfp4-experts")})


def quality_caveat(weights: str) -> str | None:
    """The caveat for ``weights`` (``None``: 8 bits or more outside GGUF, no caveat; every format under 8 bits has
    one, tests/advisor/test_quality.py)."""
    return CAVEATS.get(weights)


def kv_note(kv_dtype: str) -> str | None:
    """The note a KV cache below 16 bits carries: :data:`FP8_KV_NOTE` for the FP8 caches, :data:`KV_NOTES` for
    llama.cpp's block caches (``None``: a 16- or 32-bit cache).

    >>> kv_note("bf16") is None, kv_note("fp8_e5m2") == FP8_KV_NOTE, kv_note("int8").startswith("q8_0")
    (True, True, True)
    """
    return FP8_KV_NOTE if kv_dtype.startswith("fp8") else KV_NOTES.get(kv_dtype)
