"""The base formats of the platform rows: a weight format or KV dtype that is a variant of another is looked up as
that one (:mod:`planner.engines.support`).

>>> base_weights("nvfp4-fp8tail"), base_kv("fp8_e5m2"), base_weights("bf16")
('nvfp4', 'fp8', 'bf16')
"""

from __future__ import annotations

# Formats looked up in the platform rows by the format they are a variant of: the same kernels load them (NVFP4
# with FP8 or 16-bit attention, MoE-only NVFP4 are ModelOpt NVFP4 checkpoints, unsloth's mixed NVFP4 / FP8 export a
# compressed-tensors one the same NVFP4 and FP8 kernels load; AutoRound and expert-only INT4
# export the GPTQ layout Marlin loads, auto-round README "export formats", as do compressed-tensors W4A16 group-32
# checkpoints (vLLM CompressedTensorsWNA16 -> Marlin) and W4A16 ones with an int8 vocabulary (its W8A16 head the same
# scheme, planner.core.vocab_formats); the seeds' idealised int4 is a 4-bit
# GPTQ/AWQ checkpoint in practice), and the FP8 KV variants are FP8 caches.
BASE_WEIGHTS: dict[str, str] = {
    "nvfp4-fp8attn": "nvfp4",
    "nvfp4-fp8tail": "nvfp4",
    "nvfp4-mlp": "nvfp4",
    "nvfp4-experts": "nvfp4",
    "int4-autoround": "int4-gptq",
    "int4-mixed-autoround": "int4-gptq",
    "int4-int8head": "int4-gptq",
    "int4-int8vocab": "int4-gptq",
    "int4-experts": "int4-gptq",
    "int4-g32": "int4-gptq",
    "int4": "int4-gptq",
}
BASE_KV: dict[str, str] = {"fp8_e4m3": "fp8", "fp8_e5m2": "fp8"}


def base_weights(name: str) -> str:
    """The weight format ``name`` is looked up as in the platform rows (itself for a base format)."""
    return BASE_WEIGHTS.get(name, name)


def base_kv(name: str) -> str:
    """The KV dtype ``name`` is looked up as in the platform rows (itself for a base dtype)."""
    return BASE_KV.get(name, name)
