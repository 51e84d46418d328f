"""Which registered engine runs a set-up on a GPU, for the advisor: the engines' own platform rows
(:class:`planner.engines.support.EngineSupport`), asked in the registry's order.

:func:`runners` answers "which engines run these weights with this KV dtype on this GPU, and how do their matmuls
run?" with each engine's first row that covers the set-up, engines in the registry's order (or only those asked
for); :func:`runner` is the first of them, the engine the advisor plans with unless it cannot serve the workload
(then the next, :meth:`planner.advisor.evaluate.Evaluator.finish`); :func:`why_not` says why none does. Every row
names its source. :data:`ENGINE_PREFERENCE` and :data:`ENGINE_LABELS` are live views of the registry, so an engine
registered later (a plug-in) is offered too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import overload

from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.engines.registry import engine_names, get_engine, overhead_profile
from planner.engines.registry import engines as registered
from planner.engines.support import ARCHITECTURE_FAMILIES, ComputePath, Family, PlatformRow, family

__all__ = [
    "ARCHITECTURE_FAMILIES",
    "ENGINE_LABELS",
    "ENGINE_PREFERENCE",
    "ComputePath",
    "Family",
    "SupportRow",
    "family",
    "runner",
    "runners",
    "runners_or_why",
    "support_rows",
    "why_not",
]


class _Preference(Sequence[str]):
    """The registered engines' names, in the registry's order (the order the advisor tries them)."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return engine_names()[index]

    def __len__(self) -> int:
        return len(engine_names())


class _Labels(Mapping[str, str]):
    """Each registered engine's label by its name."""

    def __getitem__(self, name: str) -> str:
        if name not in engine_names():
            raise KeyError(name)
        return get_engine(name).label

    def __iter__(self) -> Iterator[str]:
        return iter(engine_names())

    def __len__(self) -> int:
        return len(engine_names())


ENGINE_PREFERENCE: Sequence[str] = _Preference()
ENGINE_LABELS: Mapping[str, str] = _Labels()


class SupportRow(PlatformRow, frozen=True, extra="forbid"):
    """A platform row of one engine, with the engine's registry name and label (the variant's, where named)."""

    engine: str
    label: str


def _with_engine(name: str, row: PlatformRow) -> SupportRow:
    label = get_engine(name).label + (f" ({row.variant})" if row.variant else "")
    return SupportRow(engine=name, label=label, **row.model_dump())


def support_rows() -> tuple[SupportRow, ...]:
    """Every registered engine's platform rows, in the registry's order."""
    return tuple(_with_engine(e.name, row) for e in registered() for row in e.support.platforms)


def runners(
    gpu: GpuSpec,
    weights: str,
    kv_dtype: str,
    moe: bool,
    engines: tuple[str, ...] | None = None,
    prefer: str | None = None,
    state_layers: bool = False,
    mla: bool = False,
    model_type: str = "",
) -> tuple[SupportRow, ...]:
    """Each engine's first row that runs the set-up (engines in the registry's order, ``prefer`` first, or only
    ``engines``): the engines a set-up may fall back to, in the order they are tried. An engine that refuses the
    weights or KV dtype outright (its ``weight_refusals``/``kv_refusals``), or a model with linear-attention /
    state-space layers (``state_layers``; its ``state_layers_refusal``), or an MLA model's KV dtype its MLA
    attention does not store on the family (``mla``; its ``mla_kv_refusals``), or a model type its default release
    does not load (``model_type``; its ``model_releases``), runs nothing."""
    fam = family(gpu)
    if fam is None:
        return ()
    found: list[SupportRow] = []
    for engine in sorted(registered(), key=lambda e: e.name != prefer):
        if engines is not None and engine.name not in engines:
            continue
        support = engine.support
        if weights in support.weight_refusals or kv_dtype not in support.kv_cache_names:
            continue
        if state_layers and support.state_layers_refusal:
            continue
        if mla and support.mla_kv_refusal(kv_dtype, fam):
            continue
        if model_type and support.model_refusal(model_type, engine.profile().engine_version):
            continue
        row = next((r for r in support.platforms if r.covers(fam, weights, kv_dtype, moe)), None)
        if row is not None:
            found.append(_with_engine(engine.name, row))
    return tuple(found)


def runner(
    gpu: GpuSpec,
    weights: str,
    kv_dtype: str,
    moe: bool,
    engines: tuple[str, ...] | None = None,
    prefer: str | None = None,
    state_layers: bool = False,
    mla: bool = False,
    model_type: str = "",
) -> SupportRow | None:
    """The first of :func:`runners`: the engine that runs the set-up unless it cannot serve it."""
    found = runners(gpu, weights, kv_dtype, moe, engines, prefer, state_layers, mla, model_type)
    return found[0] if found else None


def why_not(
    gpu: GpuSpec,
    weights: str,
    kv_dtype: str,
    moe: bool,
    engines: tuple[str, ...] | None = None,
    state_layers: bool = False,
    mla: bool = False,
) -> str:
    """Why no engine (of ``engines``) runs the set-up, in one line."""
    arch = gpu.architecture or "unknown"
    fam = family(gpu)
    if fam is None:
        return f"architecture {arch!r} is not in any engine's platform table"
    allowed = [e for e in registered() if engines is None or e.name in engines]
    refusals = [e.support.state_layers_refusal for e in allowed if state_layers and e.support.state_layers_refusal]
    if refusals and len(refusals) == len(allowed):
        return refusals[0]
    mla_refusals = [r for e in allowed if mla and (r := e.support.mla_kv_refusal(kv_dtype, fam))]
    if mla_refusals and len(mla_refusals) == len(allowed):
        return mla_refusals[0]
    scope = "" if engines is None else f" of {', '.join(e.label for e in allowed) or 'those asked for'}"
    rows = [r for e in allowed for r in e.support.platforms if fam in r.families]
    if not rows:
        return f"no engine{scope} runs on {arch}"
    kind = "a mixture-of-experts" if moe else "a dense"
    if not any(row_runs(r, weights, either) for r in rows for either in (False, True)):
        formats = ", ".join(sorted({w for r in rows for w in r.weights}))
        return f"no engine{scope} runs {weights} weights on {arch} (there: {formats})"
    with_weights = [r for r in rows if row_runs(r, weights, moe)]
    if not with_weights:  # the format runs there, for the other kind of model only (MXFP4: experts)
        return f"no engine{scope} runs {weights} weights for {kind} model on {arch}"
    with_kv = [r for r in with_weights if r.covers(fam, weights, kv_dtype, moe)]
    if not with_kv:
        kvs = " / ".join(sorted({k for r in with_weights for k in r.kv_dtypes}))
        return f"no engine{scope} runs {weights} weights with {kv_dtype} KV cache on {arch} (only {kvs})"
    return f"no engine{scope} runs {weights} weights with {kv_dtype} KV cache for {kind} model like this on {arch}"


def row_runs(row: PlatformRow, weights: str, moe: bool) -> bool:
    """Whether the row runs ``weights`` on any of its families and KV dtypes, for a model with experts or not."""
    return any(row.covers(family_, weights, kv, moe) for family_ in row.families for kv in row.kv_dtypes)


def runners_or_why(
    gpu: GpuSpec, weights: str, kv_dtype: str, model: ModelSpec, engines: tuple[str, ...] | None
) -> tuple[SupportRow, ...] | str:
    """:func:`runners` for ``model`` (its experts, state layers, latent cache and type), or :func:`why_not`."""
    moe, state, mla = model.moe is not None, model.linear_attention is not None, model.mla is not None
    rows = runners(gpu, weights, kv_dtype, moe, engines, state_layers=state, mla=mla, model_type=model.model_type)
    return rows if rows else why_not(gpu, weights, kv_dtype, moe, engines, state, mla)


SIXTEEN_BIT_KV = ("bf16", "fp16")


def engine_kv(kv_dtype: str, engine: str) -> str:
    """The 16-bit cache ``engine`` keeps when the advice asks for one: its own default when it has one (llama.cpp's
    f16, ``--cache-type-k/v`` in common/common.h; the same bytes as BF16), so the option, its launch command and
    its Memory-page link name the cache the engine runs; any other dtype as asked.

    >>> engine_kv("bf16", "llamacpp"), engine_kv("bf16", "vllm"), engine_kv("fp8", "llamacpp")
    ('fp16', 'bf16', 'fp8')
    """
    if kv_dtype not in SIXTEEN_BIT_KV or engine not in engine_names():
        return kv_dtype
    default = overhead_profile(engine).default_kv_dtype
    return default if default in SIXTEEN_BIT_KV else kv_dtype
