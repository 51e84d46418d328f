"""SGLang's own launch settings for the two knobs its users set on small cards and in benchmarks, planned as SGLang
runs them (0.5.4 wheel, read 2026-12-04):

- ``--disable-cuda-graph`` (the generic ``--enforce-eager``): no graph is captured
  (``srt/model_executor/model_runner.py:2046``), but the default ``mem_fraction_static`` reserves
  ``cuda_graph_max_bs x 2`` MB for graphs whether or not they are captured (``srt/server_args.py:762-790``,
  ``_handle_gpu_memory_settings``), so the KV pool is the same and that reserve stays free.
- ``--max-total-tokens``: the pool is ``min(profiled, max_total_tokens)``, and a cap above the profiled pool is
  dropped with a warning (``model_runner.py:1690-1697``).
"""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
QWEN = get_model("Qwen/Qwen3-8B").spec
SGLANG = get_engine("sglang")


def _planned(**settings: object) -> tuple[PlanRequest, object]:
    request = PlanRequest(
        model=QWEN,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192,
        max_model_len=8192,
        overhead=overhead_profile("sglang", **settings),
    )
    result = plan(request)
    return request, result


def _report(**settings: object):  # type: ignore[no-untyped-def]
    request, result = _planned(**settings)
    return SGLANG.report(request, result, request.overhead)  # type: ignore[arg-type]


def _command(**settings: object) -> str:
    request, result = _planned(**settings)
    return SGLANG.launch_command(request, result, request.overhead)  # type: ignore[arg-type]


def test_disable_cuda_graph_is_sglangs_eager_mode_and_keeps_the_pool() -> None:
    profile = overhead_profile("sglang", enforce_eager=True)
    assert profile.disable_cuda_graph is True  # type: ignore[attr-defined]
    assert SGLANG.flag_for("enforce_eager") == "--disable-cuda-graph"
    default, eager = _report(version="0.5.4"), _report(version="0.5.4", enforce_eager=True)
    # the H100's default fraction from nvidia-smi's 81,559 MiB: (81,559 - max(512 + 8,192 x 1.5 + 256 x 2 + 1/8 x
    # 1,024, 10,240)) / 81,559 = 0.835
    assert default.notes[0].startswith("mem_fraction_static = 0.835") and eager.notes[0] == default.notes[0]
    assert eager.kv_cache_tokens == default.kv_cache_tokens > 350_000  # 147,456 bytes a token
    said = " ".join(eager.notes)
    assert "--disable-cuda-graph" in said and "the KV pool is the same" in said and "2 MB" in said, said
    # The default release (0.5.18) frees the graphs' share: 58 prefill sizes x 8 MB + 256 x 2 MB = 976 MB, 0.830 ->
    # 0.841 of nvidia-smi's 81,559 MiB, applied to the 78.43 GiB free when the weights load: 6,282 tokens of 147,456 B
    default, eager = _report(), _report(enforce_eager=True)
    assert default.notes[0].startswith("mem_fraction_static = 0.830") and eager.notes[0].startswith(
        "mem_fraction_static = 0.841"
    )
    assert eager.kv_cache_tokens - default.kv_cache_tokens == 6_282
    assert any("reserves 976 MB less" in n and "the KV pool grows by it" in n for n in eager.notes), eager.notes
    command = _command(enforce_eager=True)
    assert " --disable-cuda-graph" in command and "--enforce-eager" not in command
    assert "--disable-cuda-graph" not in _command()


def test_max_total_tokens_caps_the_pool() -> None:
    default, capped = _report(), _report(max_total_tokens=100_000)
    assert default.kv_cache_tokens > 100_000
    assert capped.kv_cache_tokens == 100_000 and capped.gpu_blocks == 100_000
    assert "max_total_num_tokens=100000, max_running_requests=4096, context_len=8192" in capped.lines
    assert capped.max_concurrency == pytest.approx(100_000 / 8192)
    assert " --max-total-tokens 100000" in _command(max_total_tokens=100_000)


def test_a_cap_above_the_profiled_pool_is_dropped_as_sglang_warns() -> None:
    default = _report()
    above = default.kv_cache_tokens + 1_000
    report = _report(max_total_tokens=above)
    assert report.kv_cache_tokens == default.kv_cache_tokens
    warning = (
        f"max_total_tokens={above} is larger than the profiled value {default.kv_cache_tokens}. "
        "Use the profiled value instead."
    )
    assert warning in report.lines, report.lines


@pytest.mark.parametrize(
    ("engine", "counterpart"),
    [("vllm", "--num-gpu-blocks-override"), ("trtllm", "kv_cache_config.max_tokens")],
)
def test_other_engines_name_their_own_cap(engine: str, counterpart: str) -> None:
    with pytest.raises(PlannerError) as refused:
        overhead_profile(engine, max_total_tokens=100_000)
    message = str(refused.value)
    assert "has no --max-total-tokens setting" in message and f"its own {counterpart}" in message, message


def test_a_fixed_kv_size_on_sglang_points_to_its_token_cap() -> None:
    with pytest.raises(PlannerError) as refused:
        overhead_profile("sglang", kv_cache_memory_bytes=2**34)
    message = str(refused.value)
    assert message == (
        "engine: SGLang has no --kv-cache-memory-bytes setting; its own cap is --max-total-tokens (tokens, planned)"
    ), message


def test_the_graphs_batch_flag_is_renamed_from_0_5_20() -> None:
    """``--cuda-graph-max-bs`` until 0.5.19; from 0.5.20 ``--cuda-graph-max-bs-decode`` (the old flag is gone, and as
    a prefix of the decode and prefill flags argparse refuses it: tests/fixtures/reference/engine-flags.json)."""
    for version, flag in (("0.5.19", "--cuda-graph-max-bs 64"), ("0.5.20", "--cuda-graph-max-bs-decode 64")):
        request, result = _planned(max_cudagraph_capture_size=64)
        profile = overhead_profile("sglang", version=version, max_cudagraph_capture_size=64)
        command = SGLANG.launch_command(request, result, profile)
        assert f" {flag}" in command and command.count("--cuda-graph-max-bs") == 1, command
        assert SGLANG.flag_for("max_cudagraph_capture_size", version) == flag.split()[0]
