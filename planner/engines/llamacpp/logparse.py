"""What a ``llama-server`` start-up log prints: the first device's model, KV and compute buffers and ``n_ctx``
(``llama-model.cpp``, ``llama-kv-cache.cpp``, ``llama-context.cpp``). The device is named by its backend: CUDA0,
ROCm0 (HIP builds), MTL0 (Metal; ``Metal`` in older builds, ``MTL0_Mapped`` for mapped weights), Vulkan0, SYCL0."""

from __future__ import annotations

from planner.core.units import GiB, MiB
from planner.engines.logscan import Lines, pattern

Fields = dict[str, object]

_DEVICE = r"(?:(?:CUDA|ROCm|MTL|Vulkan|SYCL)0|Metal)"
_LC_KV = pattern(_DEVICE + r" KV buffer size = {0,20}NUM MiB")
_LC_RS = pattern(_DEVICE + r" RS buffer size = {0,20}NUM MiB")  # a hybrid model's recurrent states
_LC_SELF = pattern(r"KV self size {0,20}= {0,20}NUM MiB")
_LC_WEIGHTS = pattern(_DEVICE + r"(?:_Mapped)? (?:model )?buffer size = {0,20}NUM MiB")
_LC_COMPUTE = pattern(_DEVICE + r" compute buffer size = {0,20}NUM MiB")
_LC_CTX = pattern(r"n_ctx {0,20}= {0,20}NUM")


def parse_llamacpp(lines: Lines) -> Fields | None:
    kv = lines.number("KV buffer size", _LC_KV, "KV buffer size")
    if kv is None:
        kv = lines.number("KV self size", _LC_SELF, "KV self size")
    if kv is None:
        return None
    states = lines.number("RS buffer size", _LC_RS, "RS buffer size")
    fields: dict[str, object] = {"kv_cache_gib": (kv + (states or 0.0)) * MiB / GiB}
    weights = lines.number("buffer size", _LC_WEIGHTS, "model buffer size")
    if weights is not None:
        fields["weights_gib"] = weights * MiB / GiB
    compute = lines.number("compute buffer size", _LC_COMPUTE, "compute buffer size")
    if compute is not None:
        fields["compute_buffer_gib"] = compute * MiB / GiB
    n_ctx = lines.number("n_ctx", _LC_CTX, "n_ctx")
    if n_ctx is not None:
        fields.update(kv_cache_tokens=int(n_ctx), max_model_len=int(n_ctx))
    return {"format": "llamacpp", **fields}
