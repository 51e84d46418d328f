"""What an engine runs on a GPU is asked on every page run (the sidebar's engines and formats: ``runs_on``,
``weights_run``, ``kv_dtypes_run``; issue 24, the sliders' server time) and kept per engine, GPU family and model
kind (:mod:`planner.engines.formats_kept`): the engines' support tables are frozen class constants, so a kept answer
equals a fresh one."""

from __future__ import annotations

import itertools

import pytest

from model_catalog import load_gpus
from planner.core.gpu import GpuSpec
from planner.core.precision import WEIGHT_FORMATS
from planner.engines.formats_kept import formats_of, kv_dtypes_of
from planner.engines.registry import COMPARED_KV_DTYPES, engine_names, engines, formats_run, kv_dtypes_run, runs_on
from planner.engines.support import EngineSupport, ModelKind, as_kind, family

KINDS: tuple[bool | ModelKind, ...] = (False, True, ModelKind(False, True), ModelKind(True, True))
NAMES = (*engine_names(), "generic")


def test_kept_answers_equal_fresh_ones_for_every_engine_gpu_and_kind() -> None:
    gpus: list[GpuSpec | None] = [*load_gpus().values(), None]
    for name, gpu, moe in itertools.product(NAMES, gpus, KINDS):
        engine, fam, kind = {e.name: e for e in engines()}.get(name), family(gpu), as_kind(moe)
        for kv_also in (None, "fp16", "q8_0"):
            compared = COMPARED_KV_DTYPES + ((kv_also,) if kv_also and kv_also not in COMPARED_KV_DTYPES else ())
            assert formats_run(name, gpu, moe, kv_also) == formats_of.__wrapped__(engine, fam, kind, compared)
        for weights in WEIGHT_FORMATS:
            assert kv_dtypes_run(name, weights, gpu, moe) == kv_dtypes_of.__wrapped__(engine, weights, fam, kind)


def test_a_second_page_run_asks_no_support_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sidebar's questions asked twice (two page runs): the second reads no engine's support table (before, each
    run asked ~470 ``EngineSupport.runs`` for Llama-3.1-70B on an H100: ~10 ms of the page's run)."""
    gpu = load_gpus()["h100-sxm-80gb"]
    kind = ModelKind(False, False)

    def sidebar() -> tuple[object, ...]:
        engines = tuple(e for e in NAMES if runs_on(e, gpu))
        return engines, formats_run("vllm", gpu, kind, "fp8"), kv_dtypes_run("vllm", "fp8", gpu, kind)

    first = sidebar()
    asked: list[str] = []
    original = EngineSupport.runs

    def counted(self: EngineSupport, weights: str, kv: str, fam: object, moe: bool | ModelKind) -> bool:
        asked.append(self.label)
        return original(self, weights, kv, fam, moe)  # type: ignore[arg-type]

    monkeypatch.setattr(EngineSupport, "runs", counted)
    assert sidebar() == first
    assert asked == []
