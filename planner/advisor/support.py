"""What each engine runs on each GPU: the support table (``support.toml``), its schema, and the look-ups.

:func:`runner` answers "which engine runs these weights with this KV dtype on this GPU, and how do its matmuls
run?" with the first :class:`SupportRow` that covers the set-up, engines tried in :data:`ENGINE_PREFERENCE`
order (or only those asked for); :func:`why_not` says why none does. Every row names its source.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.kv_formats import KV_FORMATS
from planner.core.precision import WEIGHT_FORMATS
from planner.engines.registry import engines

SUPPORT_FILE = Path(__file__).with_name("support.toml")

Engine = Literal["vllm", "sglang", "trtllm", "llamacpp", "vllm-gaudi"]
ENGINE_PREFERENCE: tuple[Engine, ...] = ("vllm", "sglang", "trtllm", "llamacpp", "vllm-gaudi")
# Labels from the engine registry (one place per engine), plus vLLM's Gaudi plugin, which the support table
# names apart because it is its own install (vllm-project/vllm-gaudi) and is not planned as an engine profile.
ENGINE_LABELS: dict[str, str] = {
    **{engine.name: engine.label for engine in engines()},
    "vllm-gaudi": "vLLM (Gaudi plugin)",
}
Family = Literal[
    "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3", "cdna4", "rdna35", "gaudi3", "xe2", "apple"
]
ComputePath = Literal["16-bit", "fp8", "int8", "fp4"]

# The catalog's architecture names, by family.
ARCHITECTURE_FAMILIES: dict[str, Family] = {
    "Volta": "volta",
    "Turing": "turing",
    "Ampere": "ampere",
    "Ada Lovelace": "ada",
    "Hopper": "hopper",
    "Blackwell": "blackwell",
    "Blackwell Ultra": "blackwell",
    "Blackwell (GB202)": "blackwell",
    # DGX Spark's GB10 (sm_121): NVIDIA's DGX Spark playbooks run vLLM, SGLang, TensorRT-LLM and llama.cpp on it
    # (NVIDIA/dgx-spark-playbooks@019acc6a README.md), and vLLM verifies NVFP4 on it (vllm-project/recipes#632).
    "Blackwell (GB10)": "blackwell",
    "CDNA 3": "cdna3",
    "CDNA 4": "cdna4",
    "RDNA 3.5": "rdna35",  # Strix Halo's Radeon 8060S (gfx1151)
    "Gaudi 3": "gaudi3",
    "Xe2 (Battlemage)": "xe2",  # Intel Arc B-series and Arc Pro B60 (BMG-G21)
    "Apple silicon": "apple",
}


class SupportRow(BaseModel, frozen=True, extra="forbid"):
    """One engine on some architecture families: the weight formats and KV dtypes it runs, and how."""

    engine: Engine
    families: Annotated[tuple[Family, ...], Field(min_length=1)]
    weights: Annotated[tuple[str, ...], Field(min_length=1)]
    kv_dtypes: Annotated[tuple[str, ...], Field(min_length=1)]
    compute: ComputePath  # the arithmetic of the matmuls: 16-bit (weight-only dequantisation) or the format's own
    moe: bool = True  # mixture-of-experts models covered
    source: Annotated[str, Field(min_length=1)]
    note: str = ""

    @model_validator(mode="after")
    def _check(self) -> SupportRow:
        unknown = [w for w in self.weights if w not in WEIGHT_FORMATS]
        unknown += [k for k in self.kv_dtypes if k not in KV_FORMATS]
        if unknown:
            raise ValueError(f"unknown weight format or KV dtype {', '.join(unknown)}")
        return self

    def covers(self, family: Family, weights: str, kv_dtype: str, moe: bool) -> bool:
        return (
            family in self.families and weights in self.weights and kv_dtype in self.kv_dtypes and (self.moe or not moe)
        )


class _SupportFile(BaseModel, frozen=True, extra="forbid"):
    row: tuple[SupportRow, ...]


@cache
def support_rows(path: Path = SUPPORT_FILE) -> tuple[SupportRow, ...]:
    """Every row of the support table, validated (a bad row raises :class:`PlannerError` naming it)."""
    try:
        return _SupportFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8"))).row
    except tomllib.TOMLDecodeError as exc:
        raise PlannerError(f"{path.name}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise PlannerError(f"{path.name}: {problems}") from None


def family(gpu: GpuSpec) -> Family | None:
    """The GPU's architecture family, ``None`` when the support table does not know its architecture."""
    return ARCHITECTURE_FAMILIES.get(gpu.architecture or "")


def runner(
    gpu: GpuSpec, weights: str, kv_dtype: str, moe: bool, engines: tuple[str, ...] | None = None
) -> SupportRow | None:
    """The first row (engines in :data:`ENGINE_PREFERENCE` order, or only ``engines``) that runs the set-up."""
    fam = family(gpu)
    return None if fam is None else _runner(fam, weights, kv_dtype, moe, engines)


@cache
def _runner(fam: Family, weights: str, kv_dtype: str, moe: bool, engines: tuple[str, ...] | None) -> SupportRow | None:
    rows = support_rows()
    for engine in ENGINE_PREFERENCE:
        if engines is not None and engine not in engines:
            continue
        for row in rows:
            if row.engine == engine and row.covers(fam, weights, kv_dtype, moe):
                return row
    return None


def why_not(gpu: GpuSpec, weights: str, kv_dtype: str, moe: bool, engines: tuple[str, ...] | None = None) -> str:
    """Why no engine (of ``engines``) runs the set-up, in one line."""
    return _why_not(gpu.architecture or "unknown", weights, kv_dtype, moe, engines)


@cache
def _why_not(arch: str, weights: str, kv_dtype: str, moe: bool, engines: tuple[str, ...] | None) -> str:
    fam = ARCHITECTURE_FAMILIES.get(arch)
    if fam is None:
        return f"architecture {arch!r} is not in the support table"
    allowed = [e for e in ENGINE_PREFERENCE if engines is None or e in engines]
    scope = "" if engines is None else f" of {', '.join(ENGINE_LABELS[e] for e in allowed) or 'those asked for'}"
    rows = [r for r in support_rows() if r.engine in allowed and fam in r.families]
    if not rows:
        return f"no engine{scope} runs on {arch}"
    with_weights = [r for r in rows if weights in r.weights]
    if not with_weights:
        formats = ", ".join(sorted({w for r in rows for w in r.weights}))
        return f"no engine{scope} runs {weights} weights on {arch} (there: {formats})"
    with_kv = [r for r in with_weights if kv_dtype in r.kv_dtypes]
    if not with_kv:
        kvs = " / ".join(sorted({k for r in with_weights for k in r.kv_dtypes}))
        return f"no engine{scope} runs {weights} weights with a {kv_dtype} KV cache on {arch} (only {kvs})"
    return f"no engine{scope} runs {weights} weights for a mixture-of-experts model on {arch}"
