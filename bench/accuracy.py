"""``planner/engines/accuracy.toml``: how far the planner's KV cache per GPU was from the printed one, by group
of public start-ups (:mod:`planner.engines.accuracy`), from one run of every fidelity case
(:func:`bench.fidelity.run_all`).
``make docs`` writes it; ``tests/test_docs.py`` fails when it is stale.

Each case counts with its held-out error: predicted by the constants fitted without its model family where the
constants were fitted on vLLM V1 cases (``CaseResult.cv_error_gib``), else as planned (nothing fitted on it).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable

from bench.fidelity_result import CaseResult
from model_catalog import get_gpu
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.units import GiB
from planner.engines.accuracy import FEW_CASES, DeviceClass, KvAccuracy, device_class, era

HEADER = (
    "# Written by `make docs` (bench/accuracy.py) from the public start-up logs in tests/fidelity: per engine,\n"
    "# kind of device and release era, the held-out |KV cache error| per GPU (bytes) and the verdicts right.\n"
)


def held_out_error_gib(r: CaseResult) -> float | None:
    """The case's KV error when it is not fitted on (module docstring)."""
    return r.cv_error_gib if r.cv_error_gib is not None else r.kv_error_gib


def _gpu(gpu_id: str | None) -> GpuSpec | None:
    if not gpu_id:
        return None
    try:
        return get_gpu(gpu_id)
    except PlannerError:
        return None


Key = tuple[str, DeviceClass, str, str]  # engine, kind of device, era (since, until)


def group_key(r: CaseResult) -> Key:
    since, until = era(r.engine, r.engine_version or "0")
    return r.engine, device_class(_gpu(r.setup.gpu)), since, until


def nearest_rank(values: list[float], share: float) -> float:
    """The ``share`` percentile of ``values`` by nearest rank.

    >>> nearest_rank([1.0, 2.0, 3.0, 4.0], 0.9), nearest_rank([5.0], 0.9)
    (4.0, 5.0)
    """
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _pooled(members: dict[Key, list[CaseResult]]) -> dict[Key, list[CaseResult]]:
    """An engine's eras on one kind of device in one group (``since``, ``until`` empty) where any of them holds
    fewer than :data:`FEW_CASES` start-ups with a KV error: a handful of cases says little about a release era,
    and the device's other era is the nearest evidence."""
    eras: dict[tuple[str, DeviceClass], list[Key]] = {}
    for key in members:
        eras.setdefault(key[:2], []).append(key)
    pooled: dict[Key, list[CaseResult]] = {}
    for (engine, device), keys in eras.items():
        few = any(sum(held_out_error_gib(r) is not None for r in members[k]) < FEW_CASES for k in keys)
        if few and len(keys) > 1:
            pooled[(engine, device, "", "")] = [r for k in keys for r in members[k]]
        else:
            pooled.update({k: members[k] for k in keys})
    return pooled


def groups(results: Iterable[CaseResult]) -> tuple[KvAccuracy, ...]:
    """One :class:`KvAccuracy` per group with at least one KV error, in a fixed order (:func:`_pooled`)."""
    members: dict[Key, list[CaseResult]] = {}
    for r in results:
        if r.setup.out_of_scope:
            continue
        members.setdefault(group_key(r), []).append(r)
    members = _pooled(members)
    found = []
    for (engine, device, since, until), rs in sorted(members.items()):
        errors = [abs(e) * GiB for e in map(held_out_error_gib, rs) if e is not None]
        if not errors:
            continue
        checked = [r.verdict_right for r in rs if r.verdict_right is not None]
        found.append(
            KvAccuracy(
                engine=engine,
                device=device,
                since=since,
                until=until,
                cases=len(errors),
                median_abs_bytes=round(statistics.median(errors)),
                p90_abs_bytes=round(nearest_rank(errors, 0.9)),
                worst_abs_bytes=round(max(errors)),
                verdicts_right=sum(checked),
                verdicts=len(checked),
            )
        )
    return tuple(found)


def toml_text(found: Iterable[KvAccuracy]) -> str:
    """The file's text."""
    blocks = []
    for g in found:
        lines = ["[[group]]"]
        for name, value in g.model_dump().items():
            lines.append(f'{name} = "{value}"' if isinstance(value, str) else f"{name} = {value}")
        blocks.append("\n".join(lines))
    return HEADER + "\n" + "\n\n".join(blocks) + "\n"


def accuracy_toml() -> str:
    """``accuracy.toml`` as the cases give it now."""
    from bench.fidelity import run_all

    return toml_text(groups(run_all()))
