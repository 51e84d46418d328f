"""How close the planner's KV cache has been to what engines printed, by the kind of set-up.

A buyer reading "holds 3 conversations" needs to know how far such a figure has been off before. The public start-up
logs of ``tests/fidelity`` are grouped by what moved the error in them: the engine, the kind of device
(:func:`device_class`: a datacenter GPU (the L40S, L4 and A10 graphics dies among them), a GeForce or RTX card,
unified memory (DGX Spark), an AMD GPU under ROCm, anything else) and, for vLLM, the release era (before 0.22, from
0.22: Model Runner V2, hybrid models, graph estimates in the budget). For each group ``accuracy.toml`` (beside this
module, written by ``make docs`` from ``bench.fidelity``; ``tests/test_docs.py`` fails when it is stale) keeps how
many start-ups it holds, the median, the 90th percentile (nearest rank) and the worst absolute KV error per GPU, and
how many start / refuse verdicts were right. Each case's error is the one it gets when it is not fitted on: a case
the constants were fitted to is predicted by the constants fitted without its model family (``make calibrate``'s
leave-one-family-out), a case never fitted to by the shipped constants; so the figures are what a set-up the planner
has not seen should expect, not how well the fit reproduces its own data.

>>> device_class(None)
'datacenter'
>>> era("vllm", "0.31.0"), era("vllm", "0.19.0"), era("sglang", "0.5.18")
(('0.22.0', ''), ('', '0.22.0'), ('', ''))
"""

from __future__ import annotations

import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.core.gpu import GpuSpec
from planner.core.overhead import parse_version

ACCURACY_PATH = Path(__file__).with_name("accuracy.toml")
DeviceClass = Literal["datacenter", "graphics", "unified", "rocm", "other"]
DEVICE_WORDS: dict[str, str] = {
    "datacenter": "datacenter GPUs",
    "graphics": "GeForce and RTX cards",
    "unified": "unified-memory machines (DGX Spark)",
    "rocm": "AMD GPUs under ROCm",
    "other": "other devices",
}
FEW_CASES = 10  # below this many start-ups the 90th percentile is the worst case: the group's miss is its worst
# Where an engine's evidence splits by release: vLLM 0.22 brought Model Runner V2 and the hybrid models' rules.
ERA_SPLITS: dict[str, str] = {"vllm": "0.22.0"}

Bytes = Annotated[int, Field(ge=0)]


class KvAccuracy(BaseModel, frozen=True, extra="forbid"):
    """One group of public start-ups and how far the planner's KV cache per GPU was from the printed one."""

    engine: str
    device: DeviceClass
    since: str = ""  # the group's first release ("": from the first)
    until: str = ""  # the release the group stops before ("": to the newest)
    cases: Annotated[int, Field(ge=1)]  # start-ups with a printed (or derived) KV cache
    median_abs_bytes: Bytes
    p90_abs_bytes: Bytes
    worst_abs_bytes: Bytes
    verdicts_right: Bytes
    verdicts: Bytes  # start-ups whose start / refuse verdict is checked

    @model_validator(mode="after")
    def _ordered(self) -> KvAccuracy:
        if not self.median_abs_bytes <= self.p90_abs_bytes <= self.worst_abs_bytes:
            raise ValueError("accuracy: median <= 90th percentile <= worst")
        if self.verdicts_right > self.verdicts:
            raise ValueError("accuracy: more verdicts right than checked")
        return self

    @property
    def miss_bytes(self) -> int:
        """The miss a set-up of the group should plan for: the 90th percentile, the worst below :data:`FEW_CASES`."""
        return self.worst_abs_bytes if self.cases < FEW_CASES else self.p90_abs_bytes

    @property
    def miss_share(self) -> str:
        """Of the group's start-ups, how many were within :attr:`miss_bytes`, in words."""
        return "all" if self.cases < FEW_CASES else "nine in ten"

    @property
    def releases(self) -> str:
        """The releases the group covers, in words: ``"0.22.0 and later"``; ``""`` for every release."""
        if self.since and self.until:
            return f"{self.since} to before {self.until}"
        if self.since:
            return f"{self.since} and later"
        return f"before {self.until}" if self.until else ""


def device_class(gpu: GpuSpec | None) -> DeviceClass:
    """The kind of device ``gpu`` is, for its accuracy group (``None``: an unnamed GPU, taken as datacenter)."""
    if gpu is None:
        return "datacenter"
    if gpu.vendor == "AMD":
        return "rocm"
    if gpu.vendor != "NVIDIA":
        return "other"
    platform = gpu.platform
    if platform is not None and platform.integrated:
        return "unified"
    if platform is not None and platform.desktop_card:
        return "graphics"
    return "datacenter"


def era(engine: str, version: str) -> tuple[str, str]:
    """``(since, until)`` of the release era of ``version`` for ``engine`` (both ``""``: one era)."""
    split = ERA_SPLITS.get(engine)
    if split is None:
        return "", ""
    return (split, "") if parse_version(version) >= parse_version(split) else ("", split)


@cache
def accuracy_groups() -> tuple[KvAccuracy, ...]:
    """Every group of ``accuracy.toml``."""
    data = tomllib.loads(ACCURACY_PATH.read_text(encoding="utf-8"))
    return tuple(KvAccuracy.model_validate(group) for group in data.get("group", []))


@lru_cache(maxsize=256)  # every assessment asks it; a few engines, releases and catalog GPUs (frozen, hashable)
def kv_accuracy(engine: str, version: str, gpu: GpuSpec | None) -> KvAccuracy | None:
    """The group a set-up of ``engine`` ``version`` on ``gpu`` belongs to: its release era's, or the device's
    eras pooled where one of them had too few start-ups (``bench/accuracy.py``); ``None`` where no public start-up
    is like it."""
    device = device_class(gpu)
    since, until = era(engine, version)
    found = _by_key()
    return found.get((engine, device, since, until)) or found.get((engine, device, "", ""))


@cache
def widest_measured(device: DeviceClass) -> KvAccuracy | None:
    """The group with the widest miss measured on ``device``, any engine's: what stands in for the error of a
    set-up no public start-up is like (``None``: none measured on that kind of device)."""
    measured = [g for g in accuracy_groups() if g.device == device]
    return max(measured, key=lambda g: g.miss_bytes) if measured else None


@cache
def _by_key() -> dict[tuple[str, str, str, str], KvAccuracy]:
    return {(g.engine, g.device, g.since, g.until): g for g in accuracy_groups()}
