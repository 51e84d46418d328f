"""The log parser on hostile text: linear time on long crafted lines, named errors for absurd numbers, and
nothing but a ParsedLog or a PlannerError on any input."""

from __future__ import annotations

import contextlib
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.sources.logs import MAX_LOG_CHARS, ParsedLog, parse_log

pytestmark = pytest.mark.fuzz  # part of the fuzz suite (tests/fuzz/conftest.py)

SIZE = 200_000  # what the dashboard's box accepts
PROFILING = (
    "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB "
    "memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB "
)
FRAGMENTS = (
    "Available KV cache memory: ",
    "GPU KV cache size: ",
    "Maximum concurrency for ",
    "Model loading took ",
    "Estimated CUDA graph memory: ",
    "Total non KV cache memory: 1GiB; torch peak memory increase: ",
    "Actual usage is 1 GiB for weight, ",
    "KV Cache is allocated. #tokens: ",
    "CUDA0 KV buffer size = ",
    "Using ",
    "max_total_num_tokens=",
    "Free memory on device (",
    "1,",
    "0.",
    "GiB",
    " tokens",
    "x",
    "\n",
)


def _fill(fragment: str) -> str:
    return (fragment * (SIZE // len(fragment) + 1))[:SIZE]


ADVERSARIAL = {
    "digits after the KV line": "Available KV cache memory: " + "9" * (SIZE - 27),
    "repeated V0 profiling fragment": _fill(PROFILING),
    "repeated V1 profiling fragment": _fill("Total non KV cache memory: 1.0GiB; torch peak memory increase: 1.0GiB; "),
    "commas": "GPU KV cache size: " + "1," * ((SIZE - 19) // 2),
    "dots": "Available KV cache memory: " + "1." * ((SIZE - 27) // 2),
    "repeated concurrency prefix": _fill("Maximum concurrency for 8,192 tokens per request: "),
    "repeated graph line": _fill("Graph capturing finished in 4 secs, took "),
    "repeated actual usage": _fill("Actual usage is 1.0 GiB for weight, 1.0 GiB for peak activation, "),
    "many short lines": _fill("GPU KV cache size: 1 tokens\n"),
    "sglang prefix": _fill("KV Cache is allocated. #tokens: 1, K size: 1"),
    "llama.cpp padding": "CUDA0 KV buffer size =" + " " * (SIZE - 40) + "1 MiB",
    "mixed fragments": _fill("".join(FRAGMENTS)),
    "repeated 0.34 pool line": _fill("Memory after warmup: 12 KV cache blocks (1.0 GiB) fi"),
    "digits before the 0.34 pool words": "9" * (SIZE - 30) + " KV cache blocks (1 GiB) fit",
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_lines_parse_in_linear_time(name: str) -> None:
    text = ADVERSARIAL[name]
    assert len(text) >= SIZE - 50
    start = time.perf_counter()
    with contextlib.suppress(PlannerError):
        parse_log(text)
    assert time.perf_counter() - start < 0.2, name


@pytest.mark.parametrize(
    "text",
    [
        "GPU KV cache size: " + "9" * 400 + " tokens",
        "Model loading took " + "9" * 400 + " GiB memory",
        "Available KV cache memory: " + "9" * 400 + " GiB",
        "KV Cache is allocated. #tokens: " + "9" * 400 + ", K size: 1 GB, V size: 1 GB",
        "CUDA0 KV buffer size = " + "9" * 400 + " MiB",
        "Maximum concurrency for 8,192 tokens per request: " + "9" * 40 + ".5x\nGPU KV cache size: 1 tokens",
    ],
)
def test_absurd_numbers_raise_a_named_error(text: str) -> None:
    with pytest.raises(PlannerError, match="digits"):
        parse_log(text)


def test_too_long_text_is_refused_before_work() -> None:
    with pytest.raises(PlannerError, match="characters"):
        parse_log("x" * (MAX_LOG_CHARS + 1))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_random_text_gives_a_parse_or_a_planner_error(text: str) -> None:
    with contextlib.suppress(PlannerError):
        assert isinstance(parse_log(text), ParsedLog)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.from_regex(r"-?[0-9,.]{1,30}", fullmatch=True),
            st.text(alphabet=" .,-x:()=GiBMGB0123456789", max_size=8),
        ),
        max_size=40,
    )
)
def test_crafted_fragments_give_a_parse_or_a_planner_error(parts: list[str]) -> None:
    try:
        parsed = parse_log("".join(parts))
    except PlannerError:
        return
    assert isinstance(parsed, ParsedLog)


def test_v019_graph_estimate_actual_usage_and_budget_lines() -> None:
    log = "\n".join(
        [
            "(EngineCore pid=283) INFO [v1/engine/core.py:105] Initializing a V1 LLM engine (v0.19.0) with config: x",
            "INFO [config/scheduler.py:238] Chunked prefill is enabled with max_num_batched_tokens=8192.",
            "INFO [v1/worker/gpu_model_runner.py:4820] Model loading took 12.56 GiB memory and 38.07 seconds",
            "INFO [v1/worker/gpu_model_runner.py:5955] Estimated CUDA graph memory: 0.84 GiB total",
            "DEBUG [v1/worker/gpu_worker.py:424] Initial free memory: 78.68 GiB; Requested memory: 0.950000 (util), "
            "75.23 GiB",
            "INFO [v1/worker/gpu_worker.py:436] Available KV cache memory: 61.66 GiB",
            "INFO [v1/worker/gpu_worker.py:470] In v0.19, CUDA graph memory profiling will be enabled by default "
            "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1), which more accurately ...",
            "INFO [v1/core/kv_cache_utils.py:1319] GPU KV cache size: 126,256 tokens",
            "DEBUG [v1/worker/gpu_worker.py:661] Free memory on device (78.68/79.19 GiB) on startup. Desired GPU "
            "memory utilization is (0.95, 75.23 GiB). Actual usage is 12.56 GiB for weight, 0.77 GiB for peak "
            "activation, 0.25 GiB for non-torch memory, and 0.89 GiB for CUDAGraph memory. Replace ...",
        ]
    )
    p = parse_log(log)
    assert p.engine_version == "0.19.0" and p.max_num_batched_tokens == 8192
    assert (p.weights_gib, p.activation_peak_gib, p.non_torch_gib) == (12.56, 0.77, 0.25)
    assert (p.cuda_graph_gib, p.cuda_graph_estimate_gib, p.cudagraph_in_budget) == (0.89, 0.84, False)
    assert (p.total_memory_gib, p.free_memory_gib, p.gpu_memory_utilization) == (79.19, 78.68, 0.95)
    assert p.kv_cache_gib == 61.66 and p.kv_cache_tokens == 126_256 and not p.fails


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (
            "ValueError: Free memory on device cuda:1 (60.87/79.19 GiB) on startup is less than desired GPU memory "
            "utilization (0.95, 75.23 GiB).",
            "free-memory",
        ),
        (
            "RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests.",
            "sampler-oom",
        ),
        ("(Worker_TP4 pid=446) ERROR AssertionError: 151936 is not divisible by 5", "tp-indivisible"),
        (
            "  Value error, User-specified max_model_len (8192) is greater than the derived max_model_len "
            "(max_position_embeddings=2048.0 or model_max_length=None in model's config.json).",
            "max-model-len",
        ),
    ],
)
def test_failures_are_named(line: str, kind: str) -> None:
    p = parse_log("INFO Initializing a V1 LLM engine (v0.19.0) with config: x\n" + line)
    assert p.fails and p.failure_kind == kind and p.failure is not None and p.engine_version == "0.19.0"


def test_newer_actual_usage_wording() -> None:
    """vLLM ~0.27 (club-3090 issue #1087) prints weights + non-torch together as consumed memory."""
    p = parse_log(
        "INFO Model loading took 14.5 GiB memory and 6.3 seconds\n"
        "INFO [gpu_worker.py:726] CUDA graph pool memory: 0.09 GiB (actual), 0.13 GiB (estimated)\n"
        "INFO [gpu_worker.py:789] Free memory on device (30.27/31.4 GiB) on startup. Desired GPU memory utilization is "
        "(0.92, 28.88 GiB). Actual usage is 15.03 GiB for consumed memory (weights + non-torch), 1.59 GiB for peak "
        "activation, and 0.09 GiB for CUDAGraph memory. Replace ...\n"
        "INFO Available KV cache memory: 12.26 GiB"
    )
    assert (p.activation_peak_gib, p.cuda_graph_gib, p.cuda_graph_estimate_gib) == (1.59, 0.09, 0.13)
    assert p.non_torch_gib == pytest.approx(0.53) and p.total_memory_gib == 31.4 and p.free_memory_gib == 30.27
