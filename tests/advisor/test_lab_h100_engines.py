"""A third engine on GPUStack's single H100 (docs/advisor.md, 'the lab's single-H100 prompt misses read once more'):
TensorRT-LLM 1.2.0rc1's ShareGPT bursts on the same Performance Lab pages as the vLLM and SGLang rows of
unseen-2026-12b.toml. The planner times TensorRT-LLM's GEMMs and attention from NVIDIA aiconfigurator's own
measurements (planner/advisor/gemm_tables.py), not from the paged family's shares, so if the lab's H100 misses were
vLLM's or SGLang's Hopper kernels its TensorRT-LLM runs would not miss with them. They do, and on the lab's A100 they
do not: the lab's H100 (not an engine) runs below the rate measured for the card its pages name.

The TensorRT-LLM runs are not rows of any set (this module builds them from the pages' printed results, with the
lengths of the SGLang rows of the same page: the same ShareGPT file, 1,000 prompts, no concurrency cap). Every
figure is the model's reading of a public run: a change of the speed model that moves them past the bounds below must
say why."""

from __future__ import annotations

from pathlib import Path

from model_catalog import get_gpu
from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.validation import scored

BURSTS = Path(__file__).parent / "benchmarks" / "unseen-2026-12b.toml"
PAGES = "gpustack/gpustack@{commit} docs/performance-lab/{model}/{gpu}.md, 'Choosing the Inference Engine'"
# (page model, page GPU, SGLang row of the same page, TensorRT-LLM's output tokens/s, its benchmark duration in s,
# the commit the page was read at, 2026-12-07)
TRTLLM_SHAREGPT = (
    ("qwen3-14b", "a100", "gpustack-a100-qwen314b-sglang-sharegpt-max", 2770.99, 72.71, "10e9444a07c7"),
    ("qwen3-32b", "a100", "gpustack-a100-qwen332b-sglang-sharegpt-max", 987.91, 203.88, "10e9444a07c7"),
    ("qwen3-14b", "h100", "gpustack-h100-qwen314b-sglang-sharegpt-max", 4000.99, 50.39, "7ae332aaf057"),
    ("qwen3-32b", "h100", "gpustack-h100-qwen332b-sglang-sharegpt-max", 1280.04, 157.59, "10e9444a07c7"),
)


def _rows() -> dict[str, BenchmarkRow]:
    return {r.id: r for r in load_rows((BURSTS,))}


def _trtllm(model: str, gpu: str, like: BenchmarkRow, value: float, duration: float, commit: str) -> BenchmarkRow:
    """TensorRT-LLM's run of ``like``'s page: ``trtllm-serve Qwen/<model>`` at its defaults, same harness."""
    return like.model_copy(
        update={
            "id": f"gpustack-{gpu}-{model.replace('-', '')}-trtllm-sharegpt-max",
            "engine": "TensorRT-LLM v1.2.0rc1 (GPUStack Performance Lab)",
            "engine_version": "1.2.0rc1",
            "family": "fused",
            "value": value,
            "source": PAGES.format(commit=commit, model=model, gpu=gpu),
            "excerpt": f"trtllm-serve Qwen/{model}; Benchmark duration (s): {duration}; "
            f"Output token throughput (tok/s): {value}",
        }
    )


def _errors() -> dict[tuple[str, str, str], float]:
    """(GPU, model, engine) -> the model's error on the lab's ShareGPT burst."""
    rows = _rows()
    built = {(g, m, "trtllm"): _trtllm(m, g, rows[like], v, d, c) for m, g, like, v, d, c in TRTLLM_SHAREGPT}
    for m, g, like, *_ in TRTLLM_SHAREGPT:
        built[(g, m, "sglang")] = rows[like]
        built[(g, m, "vllm")] = rows[like.replace("-sglang-", "-vllm-")]
    results = scored(tuple(built.values()))
    return {key: s.error for key, s in zip(built, results, strict=True) if s.error is not None}


def test_every_engine_misses_on_the_lab_h100_and_none_on_its_a100() -> None:
    """At 6f541ba: A100 TensorRT-LLM -9.6 / -5.2 %, SGLang +2.0 / -8.3 %, vLLM +20.0 / -3.7 % (Qwen3-14B / -32B);
    H100 TensorRT-LLM +32.3 / +55.6 %, SGLang +28.8 / +41.8 %, vLLM +39.0 / -2.0 % (Qwen3-32B under vLLM, whose
    small pool keeps the burst decoding, the one exception). Bounds: within 25 % on the A100, over +25 % on the
    H100 for each engine's Qwen3-14B burst and TensorRT-LLM's two."""
    errors = _errors()
    assert len(errors) == 12
    for (gpu, model, engine), error in errors.items():
        if gpu == "a100":
            assert abs(error) < 0.25, (gpu, model, engine, error)
        elif model == "qwen3-14b" or engine == "trtllm":
            assert error > 0.25, (gpu, model, engine, error)


def test_the_lab_h100_over_its_a100_is_far_below_the_peaks() -> None:
    """Without the model: the pages' own durations put the H100 1.29x (Qwen3-32B) and 1.44x (Qwen3-14B) ahead of the
    A100 under TensorRT-LLM, and 1.54x / 1.87x for vLLM's 100 prompts of 32,000 tokens (a prompt-bound burst), where
    the catalog's dense 16-bit peaks differ 3.17x (989.4 / 312)."""
    rows = _rows()
    peaks = (get_gpu("h100-sxm-80gb").compute.bf16 or 0) / (get_gpu("a100-sxm-80gb").compute.bf16 or 1)
    durations = {(m, g): d for m, g, _, _, d, _ in TRTLLM_SHAREGPT}
    trtllm = [round(durations[(m, "a100")] / durations[(m, "h100")], 2) for m in ("qwen3-32b", "qwen3-14b")]
    vllm = []
    for size in ("32b", "14b"):  # output tokens / output rate = the burst's duration
        a100, h100 = (rows[f"gpustack-{g}-qwen3{size}-vllm-random-32000-100"] for g in ("a100", "h100"))
        vllm.append(round(h100.value / a100.value * _generated(a100) / _generated(h100), 2))
    assert round(peaks, 2) == 3.17
    assert trtllm == [1.29, 1.44]
    assert vllm == [1.54, 1.87]


def _generated(row: BenchmarkRow) -> float:
    """The run's generated tokens, as its excerpt prints them."""
    return float(row.excerpt.split("Total generated tokens:")[1].split()[0])
