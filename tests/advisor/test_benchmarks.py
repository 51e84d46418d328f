"""The speed model against public measurements: the data is complete and sourced, the split into fit and
held-out rows is nobody's choice, the fitted constants are reproducible, and the errors meet the targets of
issue 21 on the rows the fit never saw (median |error| <= 20 % per engine and decode regime)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import get_args

import pytest

from planner.advisor.benchmarks import Family, assigned_role, excluded_rows, load_rows
from planner.advisor.engine_speed import FITTED
from planner.advisor.fit import fit_roofline
from planner.advisor.validation import group_errors, main, scored, summary
from tests.advisor.unseen_2026_12 import KNOWN_UNSEEN, Unseen

ROWS = load_rows()
UNSEEN_DIR = Path(__file__).parent / "benchmarks"
RESULTS = scored()
DECODE_REGIMES = ("single_stream", "batched", "long_context")
FAMILIES = get_args(Family)  # "fused" (TensorRT-LLM), "paged" (vLLM, SGLang), "layer-split" (llama.cpp)
# Held-out decode rows missed by more than 50 %, each with its reason (docs/advisor.md, "Speed"); a new one fails.
# (vLLM's gpt-oss-20b on an H100, +65 %, was one until its Triton MoE kernels were modelled: planner.advisor.kernels.)
# llama.cpp's prompt processing is reported, not held to the bound (docs/advisor.md: the H100 PCIe and RTX 6000 Ada
# F16 prompts, gpt-oss-120b's prompts on DGX Spark and Metal's quantized prompts are what is left); TensorRT-LLM's
# prompts are held to it (tests/advisor/test_speed_rules.py).
KNOWN_MISSES: set[str] = set()


def test_every_published_row_is_scored_or_excluded_with_a_reason() -> None:
    assert len(ROWS) == 179 and len(excluded_rows()) == 29
    for row in ROWS:
        assert row.source and row.source_date and row.value > 0
    assert all(e.reason for e in excluded_rows())


def test_roles_are_the_hash_of_the_id() -> None:
    assert all(row.role == assigned_role(row.id) for row in ROWS)
    held = sum(row.role == "held-out" for row in ROWS)
    assert 0.4 < held / len(ROWS) < 0.7


def test_fitted_constants_are_what_the_fit_returns() -> None:
    assert fit_roofline() == FITTED, "run python -m planner.advisor.fit and paste its constants into FITTED"


@pytest.mark.parametrize("regime", DECODE_REGIMES)
def test_held_out_median_error_per_engine_and_decode_regime(regime: str) -> None:
    checked = 0
    for family in FAMILIES:
        errors = [
            abs(s.error)
            for s in RESULTS
            if s.family == family and s.regime == regime and s.role == "held-out" and s.error is not None
        ]
        if len(errors) >= 2:  # a single row is reported, not a median
            checked += 1
            assert statistics.median(errors) <= 0.20, (family, regime, statistics.median(errors))
    assert checked >= 2, "the engine families named here must be the rows' (benchmarks.Family)"


def test_overall_errors_and_the_named_misses() -> None:
    for role in ("fit", "held-out"):
        _, median, _ = summary(RESULTS, role)
        assert median <= 0.20, role
    misses = {
        s.id
        for s in RESULTS
        if s.role == "held-out" and s.regime in DECODE_REGIMES and s.error is not None and abs(s.error) > 0.5
    }
    assert misses <= KNOWN_MISSES, misses - KNOWN_MISSES
    assert all(s.predicted is not None for s in RESULTS)


def test_another_file_is_scored_the_same_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cases the fit never saw, in a file of the same schema: python -m planner.advisor.validation FILE."""
    row = next(r for r in ROWS if r.id == "xd-2x3090-70b-q4km-tg512")
    data = row.model_dump(
        exclude_defaults=True,
        include={
            "regime",
            "engine",
            "family",
            "model_id",
            "gpu_id",
            "gpu_count",
            "gpus_per_replica",
            "split",
            "weights",
            "kv_dtype",
            "output_tokens",
            "metric",
            "value",
        },
    )
    data |= {"id": "unseen-2x3090-70b", "role": "held-out", "source": "a test", "source_date": "2026"}
    lines = ["[[row]]"] + [f"{k} = {json.dumps(v)}" for k, v in data.items()]
    path = tmp_path / "unseen.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "llama.cpp | single_stream" in out and "held-out: 1 rows" in out


def check_unseen(path: Path, known: Unseen | None = None) -> None:
    """Rows of one file scored as the held-out rows are: median <= 20 % per engine and decode regime, none worse
    than 50 %, except the cells and rows ``known`` names with their reasons (tests/advisor/unseen_2026_12.py): a
    named cell may not get worse than its pinned median, a row not named may not miss by more than 50 %, and a named
    row that no longer misses fails, so the names go when a mechanism is modelled."""
    over, misses = (known.over_target, known.misses) if known else ({}, {})
    results = scored(load_rows((path,)))
    for family in FAMILIES:
        for regime in DECODE_REGIMES:
            errors = [
                abs(s.error) for s in results if s.family == family and s.regime == regime and s.error is not None
            ]
            if len(errors) >= 2:
                median = statistics.median(errors)
                assert median <= over.get((family, regime), 0.20), (path.name, family, regime, median)
                assert (family, regime) not in over or median > 0.20, (path.name, family, regime, "stale")
    assert all(s.predicted is not None for s in results), path.name
    bound = [s for s in results if s.regime in DECODE_REGIMES or s.family == "fused" or s.id in misses]
    worst = {s.id for s in bound if s.error is not None and abs(s.error) > 0.5}
    assert worst == set(misses), (path.name, sorted(worst - set(misses)), sorted(set(misses) - worst))


def test_unseen_rows_meet_the_same_targets(tmp_path: Path) -> None:
    """Rows dropped in tests/advisor/benchmarks/ (see its README) are scored as the held-out rows are, less the
    misses named with their reasons; a file of the package's own held-out decode rows that meet the bound shows
    the check works."""
    own = tmp_path / "own.toml"
    picked = [s.id for s in RESULTS if s.role == "held-out" and s.regime in DECODE_REGIMES and abs(s.error or 1) <= 0.5]
    rows = [r for r in ROWS if r.id in picked]
    own.write_text("\n".join(_toml(r.model_dump(exclude_defaults=True)) for r in rows), encoding="utf-8")
    check_unseen(own)
    for path in sorted(UNSEEN_DIR.glob("*.toml")):
        check_unseen(path, KNOWN_UNSEEN.get(path.name))


def test_the_unseen_set_of_2026_12() -> None:
    """What the speed model earns on cases it never saw (tests/advisor/benchmarks/unseen-2026-12.toml: 624 public
    rows read after the constants were fitted, scored with them unchanged): per engine and regime the rows, median
    and worst |error|, pinned to a tenth of a percent so the docs' table is this one."""
    path = UNSEEN_DIR / "unseen-2026-12.toml"
    assert len(load_rows((path,))) == 624 and len(excluded_rows((path,))) == 71
    figures = {
        (g.family, g.regime): (g.rows, round(g.median_abs_error, 3), round(g.worst_abs_error, 3))
        for g in group_errors(scored(load_rows((path,))))
        if g.role == "held-out"
    }
    # before the refit of 2026-12-07 (TensorRT-LLM's own HBM share, its prompts' all-reduce bytes without their
    # latency): fused batched (289, 0.158, 1.726), long context (194, 0.152, 2.147), prefill (133, 0.13, 1.191), paged
    # batched (5, 0.079, 0.163), single stream (1, 0.127, 0.127); before a TensorRT-LLM prompt's experts took the
    # measured fused MoE (2026-12-07, fifty-third): fused batched (289, 0.124, 1.465), long context (194, 0.137, 1.895),
    # prefill (133, 0.139, 1.061); before an attention-DP step's collectives were TensorRT-LLM's all-gather and
    # reduce-scatter a MoE layer, on the RTX PRO server's measured NCCL times (planner/advisor/collectives.py,
    # 2026-12-07, fifty-fourth): fused batched (289, 0.123, 1.563), long context (194, 0.131, 1.977), prefill (133,
    # 0.121, 0.703); before an attention-DP step waited for its busiest rank's prompts (planner/advisor/rank_balance.py,
    # 2026-12-07, fifty-fourth): fused batched (289, 0.123, 1.942), long context (194, 0.125, 2.37), prefill (133,
    # 0.113, 1.186); before a prompt's chunked layers attended within their chunks (planner/advisor/attended.py,
    # 2026-12-07, fifty-fourth): long context (194, 0.127, 2.312); before each attention-DP rank read its own layers
    # whole (planner/advisor/rank_balance.py, 2026-12-08, fifty-seventh): fused batched (289, 0.119, 1.804), long
    # context (194, 0.126, 2.312), prefill (133, 0.112, 0.577)
    assert figures == {
        ("fused", "batched"): (289, 0.118, 1.553),
        ("fused", "long_context"): (194, 0.125, 1.907),
        ("fused", "prefill"): (133, 0.112, 0.548),
        ("layer-split", "single_stream"): (2, 0.026, 0.033),
        ("paged", "batched"): (5, 0.078, 0.163),
        ("paged", "single_stream"): (1, 0.04, 0.04),
    }


def test_the_unseen_set_of_2026_12b() -> None:
    """A second blind set (tests/advisor/benchmarks/unseen-2026-12b.toml: 118 public rows read after the constants
    were fitted, llama.cpp's scoreboards and vLLM / SGLang serving runs, scored with them unchanged): per engine and
    regime over all its rows (the roles of a blind file mean nothing) the rows, median and worst |error|, pinned to a
    tenth of a percent."""
    path = UNSEEN_DIR / "unseen-2026-12b.toml"
    assert len(load_rows((path,))) == 118 and len(excluded_rows((path,))) == 21
    cells: dict[tuple[str, str], list[float]] = {}
    for s in scored(load_rows((path,))):
        assert s.error is not None
        cells.setdefault((s.family, s.regime), []).append(abs(s.error))
    figures = {k: (len(v), round(statistics.median(v), 3), round(max(v), 3)) for k, v in cells.items()}
    assert figures == {
        # 0.094 before llama.cpp's MMQ took an SM's consumer-line int8 rate (planner.advisor.kernels.llamacpp_mmq_share:
        # the H100 Q4_0 pp512 +143 -> -0.3 %, 2026-12-08)
        ("layer-split", "prefill"): (20, 0.085, 1.738),
        ("layer-split", "single_stream"): (11, 0.092, 0.184),
        # 0.329 before vLLM 0.11.0's per-request chat-template parse was priced (planner.advisor.frontend, 2026-12-06);
        # 0.301 before a vLLM burst's pool held the --max-model-len its command states (2026-12-07); 0.285 (worst
        # 26.515) before the refit with TensorRT-LLM's own HBM share (vLLM's 0.92 -> 0.82, 2026-12-07); 0.219 before
        # vLLM's and SGLang's fused MoE took aiconfigurator's measured times (planner.advisor.paged_moe, 2026-12-07);
        # worst 26.481 before an SGLang row took SGLang's MoE kernels, not vLLM's (Triton on Ampere, 2026-12-07); 0.193
        # before a prompt's routed experts took the measured fused-MoE time at the chunk's tokens (prompt_moe: the
        # H100 Qwen3-235B-A22B ShareGPT runs, already under-predicted, -19.1 / -1.8 -> -21.1 / -4.5 %); worst 23.588
        # before a prompt's sliding-window layers scored each token's whole window (planner/advisor/attended.py); 0.198
        # before a gpt-oss chat burst's prompts counted the 69 tokens vLLM's Harmony rendering adds (2026-12-08); 0.196
        # before a request vLLM preempts resumed from its cached prefix (planner/advisor/drain.py, 2026-12-08)
        ("paged", "batched"): (38, 0.198, 23.585),
        # 0.659 before each GPU's KV copy was read (2026-12-05); 0.642 (worst 3.283) before the chat-template parse;
        # 0.634 (worst 1.989) before the stated --max-model-len pool; 0.544 (worst 2.068) before the refit; 0.486
        # before the measured fused MoE; 0.466 before vLLM 0.11.0's FP8 GEMMs took aiconfigurator's 0.14.0 rate; 0.392
        # before a prompt's routed experts took the measured fused-MoE time at the chunk's tokens (prompt_moe); 0.359
        # before gpt-oss on vLLM 0.11.0's Triton attention on Ampere took that kernel's rate (triton_attention); worst
        # 2.002 before a gpt-oss chat burst's prompts counted Harmony's 69 tokens (frontend.chat_prompt_tokens); 0.22
        # before a request vLLM preempts resumed from its cached prefix (planner/advisor/drain.py, 2026-12-08)
        ("paged", "prefill"): (48, 0.223, 1.158),
        ("paged", "single_stream"): (1, 0.116, 0.116),  # 0.171 before the refit
    }


def test_the_unseen_set_of_2026_12c() -> None:
    """A third blind set (tests/advisor/benchmarks/unseen-2026-12c.toml: 15 public bursts found after the drain was
    built, planner.advisor.drain, and scored with it unchanged): the rows, median and worst |error|."""
    path = UNSEEN_DIR / "unseen-2026-12c.toml"
    assert len(load_rows((path,))) == 15 and len(excluded_rows((path,))) == 5
    errors = [abs(s.error) for s in scored(load_rows((path,))) if s.error is not None]
    # worst 2.863 before each GPU's KV copy was read (planner.advisor.engine_speed.kv_copies, 2026-12-05); 0.535 /
    # 2.788 before the refit with TensorRT-LLM's own HBM share (2026-12-07); 0.499 before vLLM's and SGLang's fused MoE
    # took aiconfigurator's measured times (planner.advisor.paged_moe, 2026-12-07); 0.234 before a prompt's routed
    # experts did, at the chunk's tokens (planner.advisor.prompt_moe); 0.229 / 2.681 before Qwen3-Next's eager prefill
    # passes on 8 x B200 were priced (planner.engines.graphs, 2026-12-08)
    assert (len(errors), round(statistics.median(errors), 3), round(max(errors), 3)) == (15, 0.213, 0.731)


def test_the_unseen_amd_instinct_rows() -> None:
    """AMD Instinct under vLLM (tests/advisor/benchmarks/unseen-2026-12d.toml, an outside buyer review's finding 2):
    AMD's own batch-2 run of Llama 3.1 70B FP8 on 8 x MI300X and OCI's Llama 3.1 405B FP8 runs, scored unchanged;
    AMD's batch-1 row is a package row (held out by its id's hash), within the model's typical error."""
    path = UNSEEN_DIR / "unseen-2026-12d.toml"
    errors = {s.id: round(s.error or 0, 3) for s in scored(load_rows((path,)))}
    assert errors == {  # 0.135, 0.439, 0.486, 0.555 before the refit of 2026-12-07 (vLLM's HBM share 0.92 -> 0.82)
        "amd-mi300x8-llama31-70b-fp8-tp8-bs2-128-2048": 0.059,
        "oci-mi300x8-llama31-405b-fp8-bs1-128-128": 0.303,
        "oci-mi300x8-llama31-405b-fp8-bs8-128-128": 0.354,
        "oci-mi300x8-llama31-405b-fp8-bs64-128-128": 0.454,
    }
    amd = next(s for s in RESULTS if s.id == "amd-mi300x8-llama31-70b-fp8-tp8-bs1-128-2048")
    # 129.7 modelled (+9.2 %) before the refit
    assert amd.role == "held-out" and round(amd.error or 0, 3) == 0.018  # 120.9 modelled against 118.8 measured


def test_the_unseen_rows_of_2026_buyers_hardware() -> None:
    """DGX Spark (GB10) under SGLang and vLLM, an RTX 5090 under vLLM and an RTX 3090 under llama.cpp
    (tests/advisor/benchmarks/unseen-2026-12e.toml, found 2026-12-06), scored with the constants unchanged: each row's
    error to a tenth of a percent. The dense GB10 decode rows land within 13 %, the three gpt-oss rows on GB10 are
    under-predicted by 27-37 % (each moved by at most a point with the refit of 2026-12-07: the shared constants'
    step and per-sequence times)."""
    path = UNSEEN_DIR / "unseen-2026-12e.toml"
    assert len(load_rows((path,))) == 10 and len(excluded_rows((path,))) == 19
    errors = {s.id: round(s.error or 0, 3) for s in scored(load_rows((path,)))}
    assert errors == {
        "lmsys-gb10-llama31-8b-fp8-sglang-bs1-decode": 0.098,  # 22.5 modelled against 20.5 tokens/s
        "lmsys-gb10-llama31-8b-fp8-sglang-bs1-prefill": -0.193,  # 6,445 against 7,991
        "lmsys-gb10-llama31-70b-fp8-sglang-bs1-decode": -0.009,  # 2.67 against 2.7
        "lmsys-gb10-llama31-70b-fp8-sglang-bs1-prefill": -0.116,  # 710 against 803
        "lmsys-gb10-gptoss120b-sglang-c1-decode": -0.266,  # 36.7 against ~50
        "lmsys-gb10-gptoss20b-sglang-c1-decode": -0.301,  # 49.0 against ~70
        "conselara-gb10-gptoss120b-vllm0190-c1-decode": -0.373,  # 36.7 against 57-60
        "sparkplaybooks79-gb10-llama33-70b-nvfp4-vllm0151-c1": 0.129,  # 4.63 against 4.0-4.2
        "cloudlinuxer-rtx5090-qwen3-8b-bf16-vllm-c1-3000": -0.077,  # 74.6 against 80.84
        "atlas-rtx3090-qwen3-8b-q4km-llamacpp-b7000-c1": -0.017,  # 127.1 against 129.3 (llama.cpp)
    }


def _toml(data: dict[str, object]) -> str:
    return "\n".join(["[[row]]", *(f"{k} = {json.dumps(v)}" for k, v in data.items())]) + "\n"


def test_held_out_moe_prompts_under_llamacpp() -> None:
    """llama.cpp's MoE prompts run its expert matmuls at a share of its quantized rate (the rate per backend, the
    share fitted on the fit rows: gpt-oss-20b on DGX Spark over CUDA, gpt-oss-120b on Strix Halo over Vulkan); the
    held-out MoE prompts of each backend land within the 50 % bound (Qwen3-30B-A3B over Vulkan was +376 % without
    it)."""
    errors = {s.id: s.error for s in RESULTS}
    for held in ("strix-qwen3-30b-a3b-pp512-vulkan", "llamacpp-gb10-gptoss120b-pp2048"):
        assert next(s.role for s in RESULTS if s.id == held) == "held-out"
        assert abs(errors[held] or 1.0) <= 0.5, (held, errors[held])


@pytest.mark.slow
def test_the_module_prints_the_table_when_run() -> None:
    """``python -m planner.advisor.validation`` (the docs' command) runs the module as ``__main__``: everything
    ``main`` uses must be defined before the module's last statement calls it."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "planner.advisor.validation"], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "held-out:" in done.stdout
