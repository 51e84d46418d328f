"""SGLang's default ``mem_fraction_static`` by release, 0.5.2 to 0.5.23, as read in the PyPI wheels (2026-12-04;
:mod:`planner.engines.sglang_rules` cites the lines). Before: every release after 0.5.4 was planned with 0.5.4's
rule, and the UI offered none of them though PyPI has nineteen more.

The GPUs' totals are nvidia-smi's, as SGLang reads them (``get_device_memory_capacity``): H100 SXM 81,559 MiB,
RTX 5090 32,607 MiB, RTX 4090 24,564 MiB (the catalog's ``memory_reported_bytes``).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model
from planner.core.gpu import GpuSpec
from planner.deploy.options import DeploymentOptions
from planner.engines.base import EngineReport
from planner.engines.logscan import Lines
from planner.engines.registry import get_engine, overhead_profile, supported_versions, version_warning
from planner.engines.sglang import SGLANG_LOAD_OVERHEAD_TP1, sglang_default_mem_fraction
from planner.engines.sglang_rules import FractionInputs, prefill_graph_tokens, sglang_defaults
from planner.planning.plan import PlanRequest, plan

H100, RTX5090, RTX4090 = get_gpu("h100-sxm-80gb"), get_gpu("rtx-5090"), get_gpu("rtx-4090")
SGLANG = get_engine("sglang")


def _fraction(gpu_id: str, version: str, inputs: FractionInputs | None = None, tp: int = 1) -> float:
    return sglang_default_mem_fraction(get_gpu(gpu_id).memory_bytes, tp, 1, version, inputs=inputs)


def test_every_pypi_release_is_offered_and_said_to_rest_on_its_source() -> None:
    versions = [v.version for v in supported_versions("sglang")]
    assert versions[0] == "0.5.2" and versions[-1] == "0.5.23" and len(versions) == 22
    warning = version_warning("sglang", "0.5.23")
    assert warning is not None and "its rules come from the engine's source" in warning


@pytest.mark.parametrize(
    ("gpu_id", "expected"),
    [
        # reserved MB = 512 + 1.5 x max(chunk, 2048) + 2 x graph batch + tp / 8 x 1024 (+ 8 x prefill graphs from
        # 0.5.10), at least 10,240 above 60 GiB
        ("h100-sxm-80gb", {"0.5.4": 0.835, "0.5.9": 0.835, "0.5.10": 0.830, "0.5.23": 0.830}),
        ("rtx-5090", {"0.5.4": 0.885, "0.5.9": 0.885, "0.5.10": 0.874, "0.5.19": 0.874, "0.5.20": 0.777}),
        # 0.5.20 on a 24 GB card: (24,564 - (512 + 6,144 + 96 + 128 + 400)) / 24,564 = 0.704
        ("rtx-4090", {"0.5.4": 0.848, "0.5.5": 0.847, "0.5.10": 0.833, "0.5.20": 0.704}),
    ],
)
def test_the_default_fraction_by_release(gpu_id: str, expected: dict[str, float]) -> None:
    assert {v: _fraction(gpu_id, v) for v in expected} == expected


def test_chunk_and_graph_batch_by_release_on_a_32_gb_card() -> None:
    memory = RTX5090.memory_bytes
    assert sglang_defaults(memory, 1, "0.5.4") == (2048, 16)
    assert sglang_defaults(memory, 1, "0.5.5") == (2048, 24)
    assert sglang_defaults(memory, 1, "0.5.20") == (4096, 48)
    assert sglang_defaults(memory, 4, "0.5.19") == (2048, 80) and sglang_defaults(memory, 4, "0.5.20") == (4096, 160)


def test_prefill_graphs_by_release_and_model() -> None:
    assert len(prefill_graph_tokens(8192)) == 58  # 464 MB on an H100 (8,192-token chunk)
    mla = FractionInputs(mla=True)
    # an MLA model reserves a flat 1.5 GiB; the default (breakable) prefill graphs are off for it in 0.5.15-0.5.17
    assert [_fraction("h100-sxm-80gb", v, mla) for v in ("0.5.10", "0.5.15", "0.5.18")] == [0.816, 0.835, 0.816]
    assert _fraction("h100-sxm-80gb", "0.5.23", FractionInputs(multimodal=True)) == 0.835  # none for a VLM
    assert _fraction("h100-sxm-80gb", "0.5.16", FractionInputs(lora=True)) == 0.835  # LoRA: none until 0.5.17
    assert _fraction("h100-sxm-80gb", "0.5.17", FractionInputs(lora=True)) == 0.830


def _report(version: str, **settings: object):  # type: ignore[no-untyped-def]
    request = PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=overhead_profile("sglang", version=version, **settings),
    )  # fmt: skip
    return SGLANG.report(request, plan(request), request.overhead)  # type: ignore[arg-type]


def test_disable_cuda_graph_grows_the_pool_from_0_5_14() -> None:
    """0.5.13: the pool the same; 0.5.14: the prefill graphs' 464 MB freed; 0.5.15 on: the decode graphs' 512 MB
    too (the H100's reserve stays above its 10 GiB floor)."""
    for version, freed_mb in (("0.5.13", 0), ("0.5.14", 464), ("0.5.23", 976)):
        default, eager = _report(version), _report(version, enforce_eager=True)
        note = " ".join(eager.notes)
        if freed_mb:
            assert f"reserves {freed_mb:,} MB less for them" in note, note
            assert eager.budget_bytes > default.budget_bytes and eager.kv_cache_tokens > default.kv_cache_tokens
        else:
            assert "so the KV pool is the same" in note and eager.kv_cache_tokens == default.kv_cache_tokens, note


def _by_release(model: str, gpu: GpuSpec, versions: tuple[str, ...]) -> dict[str, EngineReport]:
    """SGLang's report for ``model`` in FP8 on one ``gpu`` at 8k, by release."""
    request = PlanRequest(
        model=get_model(model).spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, weights="fp8",
    )  # fmt: skip
    reports = {}
    for version in versions:
        profiled = request.model_copy(update={"overhead": overhead_profile("sglang", version=version)})
        reports[version] = SGLANG.report(profiled, plan(profiled), profiled.overhead)  # type: ignore[arg-type]
    return reports


def test_a_24_gb_card_holds_less_from_0_5_20() -> None:
    """Qwen3-8B on an RTX 4090 at 8k: 0.5.20 reserves 7.1 GB where 0.5.19 reserved 3.5 GB (a 4,096-token chunk,
    48 graphs, 400 MB of prefill graphs): the fraction 0.833 -> 0.704 of the memory free when the weights start
    loading (its 23.55 GiB less the 0.76 SGLang holds by then), about 2.9 GiB less of KV."""
    reports = _by_release("Qwen/Qwen3-8B", RTX4090, ("0.5.19", "0.5.20"))
    pools = {version: report.kv_cache_tokens for version, report in reports.items()}
    assert pools["0.5.19"] > pools["0.5.20"] > 0
    before = (RTX4090.engine_visible_bytes or 0) - SGLANG_LOAD_OVERHEAD_TP1
    assert (pools["0.5.19"] - pools["0.5.20"]) * 147_456 == pytest.approx((0.833 - 0.704) * before, rel=0.002)


def test_running_requests_asked_for_are_capped_as_each_release_caps_them() -> None:
    """--max-running-requests 5000 on a pool of ~366k tokens at 8k: capped at the request pool's estimate (4,096)
    until 0.5.13, at half the pool's tokens from 0.5.14 (``model_runner_kv_cache_mixin.py:981-1019``)."""
    assert _report("0.5.13", max_num_seqs=5000).max_running == 4096
    assert _report("0.5.14", max_num_seqs=5000).max_running == 5000


def test_nothing_left_for_the_pool_says_what_the_release_says() -> None:
    reports = _by_release("meta-llama/Llama-3.1-70B", H100, ("0.5.13", "0.5.14"))
    failures = {version: report.failure for version, report in reports.items()}
    assert failures["0.5.13"] == "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    assert str(failures["0.5.14"]).startswith(
        "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.83. "
        "Raise --mem-fraction-static above 0.863"
    )


def test_the_pool_line_of_newer_releases_is_printed_and_read_back() -> None:
    """From 0.5.13 the line names the cache's dtype first; a public one (sgl-project/sglang PR #18263, Qwen3-30B-A3B
    on an MI355X) is read back by the log reader as the older form is."""
    assert _report("0.5.23").lines[0].startswith("KV Cache is allocated. dtype: torch.bfloat16, #tokens: ")
    assert _report("0.5.12").lines[0].startswith("KV Cache is allocated. #tokens: ")
    line = (
        "[2026-07-15 13:14:54] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1669816, K size: 76.44 GB, "
        "V size: 76.44 GB"
    )
    parsed = SGLANG.parse_log(Lines(line))
    assert parsed is not None and parsed["kv_cache_tokens"] == 1_669_816
    assert parsed["kv_cache_gib"] == pytest.approx(152.88)


def test_a_pool_shorter_than_the_context_starts_and_holds_no_full_length_conversation() -> None:
    """SGLang does not refuse to start when its pool is shorter than --context-length: requests are capped at
    ``min(context_len - 1, pool - 1)`` tokens (``managers/tp_worker.py``, 0.5.4 :293-300 to 0.5.23 :568-571), and
    0.5.23 warns (:557-566). Before: the planner said SGLang would refuse to start. Qwen3-8B BF16 on an RTX 4090 at
    8k under 0.5.23: ~5.1k tokens of pool."""
    request = PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec, gpu=RTX4090, gpu_memory_bytes=RTX4090.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=overhead_profile("sglang", version="0.5.23"),
    )  # fmt: skip
    report = SGLANG.report(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert report.fits and report.failure is None and 4_000 < report.kv_cache_tokens < 8192
    assert not report.fits_max_model_len and report.estimated_max_model_len == report.kv_cache_tokens - 1
    warning = f"KV pool holds {report.kv_cache_tokens} tokens, fewer than --context-length 8192."
    assert any(line.startswith(warning) for line in report.lines), report.lines
    from planner.assessment.assess import VerdictState, assess

    found = assess(request, 2)
    assert found.state is VerdictState.NO_ROOM and "cannot hold one conversation of 8k tokens" in found.sentence()
    older = request.model_copy(update={"overhead": overhead_profile("sglang", version="0.5.22")})
    old_report = SGLANG.report(older, plan(older), older.overhead)  # type: ignore[arg-type]
    assert old_report.fits and not any("fewer than --context-length" in line for line in old_report.lines)


@given(held_gib=st.floats(min_value=0.0, max_value=40.0), fraction=st.floats(min_value=0.3, max_value=0.95))
@settings(max_examples=40, deadline=None)
def test_memory_other_processes_hold_shrinks_the_pool_by_the_fraction_of_it(held_gib: float, fraction: float) -> None:
    """SGLang reserves (1 - f) of the memory free when its weights start loading (``pre_model_load_memory``; 0.5.18
    ``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes``), so each byte another process holds costs
    the pool f bytes, not one: the blind set's shared H100 NVL (36.54 GiB free of 93.09) was planned 7.58 GiB under
    when the reserve was a share of the card."""
    held = round(held_gib * 2**30)
    base = PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192,
        overhead=overhead_profile("sglang", fraction=fraction, version="0.5.18"),
    )  # fmt: skip
    shared = base.model_copy(update={"deployment": DeploymentOptions(used_memory_bytes=held)})
    pools = [SGLANG.report(r, plan(r), r.overhead).kv_cache_tokens for r in (base, shared)]  # type: ignore[arg-type]
    assume(pools[1] > 0)  # while the pool holds anything
    assert (pools[0] - pools[1]) * 147_456 == pytest.approx(fraction * held, abs=2 * 147_456)


def test_sglang_refuses_a_context_longer_than_the_models() -> None:
    """SGLang raises at start-up on a --context-length above the model's own unless
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (model_config.py); it was planned to fit with a warning."""
    from model_catalog import get_gpu, get_model
    from planner.engines.registry import engine_profile, engine_report
    from planner.planning.plan import PlanRequest, plan

    h100 = get_gpu("h100-sxm-80gb")
    for context, kind in ((200_000, "max-model-len"), (131_072, None)):
        request = PlanRequest(
            model=get_model("meta-llama/Llama-3.1-8B").spec,
            gpu=h100,
            gpu_memory_bytes=h100.memory_bytes_for(True),
            context_tokens=context,
            overhead=engine_profile("sglang"),
        )
        report = engine_report(request, plan(request))
        assert report.failure_kind == kind
        assert ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in (report.failure or "")) == (kind is not None)
