"""Defaults an inference engineer accepts: which GPUs, precisions and engines the advisor offers unless asked.

- **Precisions**: the model's own serving precision and 8-bit formats (:data:`EIGHT_BIT`); 4-bit formats
  (:data:`FOUR_BIT`) only when the buyer lists them, or when nothing serves the workload at 8 bits or more (the
  ranking then says so: :attr:`planner.advisor.options.Ranking.four_bit_fallback`).
- **KV caches**: 16-bit and FP8 (:data:`DEFAULT_KV`), and llama.cpp's q8_0 block cache (``int8``) where an engine
  that suits the workload stores it (:func:`default_kv_dtypes`: llama.cpp for a few users); its q4_0 cache
  (``int4``, :data:`FOUR_BIT_KV`) only when the buyer lists it, or when nothing serves the workload with an 8-bit
  cache or more (each such option then says so: :data:`planner.advisor.row_caveats.FOUR_BIT_KV_FALLBACK`).
- **GPUs**: parts sold in one market only (``restricted_market``: China's H20, L20, H800, A800) and desktops or
  laptops (purchase kind ``machine``: Macs, DGX Spark, Strix Halo) only when asked for: by a flag, by naming them
  in ``gpu_ids``, or by asking for their vendor (Apple) or their form factor (``machine``).
- **Hosts**: desktops, workstations and open frames only for a few users (:data:`FEW_USERS`) or when
  desktops are asked for; a serving deployment for more goes in a rack-mounted server.
- **Engines**: an engine that declares ``advised_max_users`` (llama.cpp: 4) only up to that unless the buyer
  names it: llama.cpp gives
  each conversation a fixed slot of the context (no shared paged pool), splits layers across GPUs (they run one
  after another: no bandwidth gained from a second GPU) and batches its slots without the continuous batching
  and chunked prefill of vLLM, SGLang or TensorRT-LLM.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.advisor.workload import Workload
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.precision import weight_format
from planner.core.serving import serving_weights
from planner.engines.registry import engine_names, get_engine

EIGHT_BIT = ("bf16", "fp8", "int8", "q8_0")
FOUR_BIT = ("int4-awq", "nvfp4", "q4_k_m")
DEFAULT_KV = ("bf16", "fp8")
EIGHT_BIT_KV = ("int8",)  # llama.cpp q8_0 (planner.core.kv_formats): tried where an engine that suits stores it
FOUR_BIT_KV = ("int4",)  # llama.cpp q4_0: only when asked or when nothing else serves
# llama-server's slots each hold a fixed share of the context and decode in one continuous batch; for more than a
# household or a small team the engines with a paged, shared KV pool hold more and run faster (the speed model's
# llama.cpp rows, planner/advisor/benchmarks/llamacpp.toml: layer split gives no extra bandwidth).
FEW_USERS = 4


def default_weights(model: ModelSpec) -> tuple[str, ...]:
    """The model's own serving precision, then the 8-bit formats that do not store more than it does (a model
    shipped in 4 bits, gpt-oss's MXFP4, is not inflated to 8)."""
    native = serving_weights(model)
    bits = weight_format(native).bits_per_weight
    if bits < 8:
        return (native,)
    return (native, *[w for w in EIGHT_BIT if w != native])


def fallback_weights(model: ModelSpec) -> tuple[str, ...]:
    """:func:`default_weights` and the 4-bit formats, tried when nothing serves at 8 bits or more."""
    return (*default_weights(model), *[w for w in FOUR_BIT if w not in default_weights(model)])


def _named(gpu: GpuSpec, workload: Workload) -> bool:
    return workload.gpu_ids is not None and gpu.id in workload.gpu_ids


def left_out(gpu: GpuSpec, workload: Workload) -> str | None:
    """Why ``gpu`` is not offered by default (``None``: offered)."""
    if _named(gpu, workload):
        return None
    if gpu.restricted_market and not workload.include_restricted:
        return f"{gpu.name}: sold only in {gpu.restricted_market}"
    personal = gpu.purchase.kind == "machine"
    asked = (
        workload.include_personal
        or (workload.form_factors is not None and "machine" in workload.form_factors)
        or (workload.vendors is not None and gpu.vendor == "Apple" and "Apple" in workload.vendors)
    )
    if personal and not asked:
        return f"{gpu.name}: a desktop or laptop"
    return None


def engine_problem(engine: str, workload: Workload) -> str | None:
    """Why ``engine`` does not suit the workload unless the buyer names it (``None``: it suits)."""
    asked = workload.engines is not None and engine in workload.engines
    chosen = get_engine(engine)
    most = chosen.support.advised_max_users
    if most is not None and workload.target_concurrency > most and not asked:
        reason = chosen.support.advised_max_users_reason
        return f"{chosen.label} is offered for up to {most} users unless asked for: {reason}"
    return None


def hosts_left_out(workload: Workload, gpus: Sequence[GpuSpec]) -> str | None:
    """The hosts not offered by default for ``gpus``, in the words of :attr:`planner.advisor.options.Ranking.left_out`
    (``None``: every host is offered, none is priced when renting, or no PCIe card is among ``gpus``)."""
    cards = any(g.purchase.kind in ("card", "pair") for g in gpus)
    if not rack_only(workload) or workload.pricing != "purchase" or not cards:
        return None
    return f"workstations and open frames for more than {FEW_USERS} users (PCIe cards are priced in rack servers)"


def rack_only(workload: Workload) -> bool:
    """Whether the GPUs go in rack-mounted servers (more than a few users, desktops not asked for)."""
    return workload.target_concurrency > FEW_USERS and not workload.include_personal


def _stored(kv_dtypes: tuple[str, ...], workload: Workload) -> tuple[str, ...]:
    """The dtypes of ``kv_dtypes`` that an engine the workload allows (``workload.engines``) and suits
    (:func:`engine_problem`) stores (its ``kv_cache_names``)."""
    allowed = [e for e in engine_names() if workload.engines is None or e in workload.engines]
    suited = [get_engine(e).support for e in allowed if engine_problem(e, workload) is None]
    return tuple(kv for kv in kv_dtypes if any(kv in s.kv_cache_names for s in suited))


def default_kv_dtypes(workload: Workload) -> tuple[str, ...]:
    """The KV caches tried unless the buyer lists them: :data:`DEFAULT_KV`, and an 8-bit block cache
    (:data:`EIGHT_BIT_KV`, llama.cpp's q8_0: ``--cache-type-k/v q8_0``, common/arg.cpp) where an engine that
    suits the workload stores it, as an expert running llama.cpp for a few users sets it."""
    return (*DEFAULT_KV, *_stored(EIGHT_BIT_KV, workload))


def fallback_kv_dtypes(workload: Workload) -> tuple[str, ...]:
    """The 4-bit caches (:data:`FOUR_BIT_KV`, llama.cpp's q4_0) an engine that suits the workload stores: tried
    only when nothing serves it with :func:`default_kv_dtypes`."""
    return _stored(FOUR_BIT_KV, workload)
