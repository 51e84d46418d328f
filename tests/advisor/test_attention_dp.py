"""Which benchmark rows ran TensorRT-LLM with attention data parallelism: the rows say it (``attention_dp``), from
the source's stated configuration (the v1.0 perf overview's MoE options), never from how far the speed model misses
them."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_model
from planner.advisor.benchmarks import load_rows
from planner.bounds.errors import PlannerError

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"
PERF_OVERVIEW_V1 = "NVIDIA/TensorRT-LLM@00f37686aa85 docs/source/performance/perf-overview.md"


def _states_attention_dp(source: str, model_id: str) -> bool:
    """The v1.0 perf overview runs every MoE model with ``enable_attention_dp: true`` ("For MoE models")."""
    return source.startswith(PERF_OVERVIEW_V1) and get_model(model_id).spec.moe is not None


def test_the_perf_overview_moe_rows_and_only_they_state_attention_dp() -> None:
    package, unseen = load_rows(), load_rows((UNSEEN,))
    for row in package + unseen:
        assert row.attention_dp == _states_attention_dp(row.source, row.model_id), row.id
    # The package's Qwen3 rows of that table (one fit row at TP 8) and 146 unseen cells: Llama 4 Scout and Maverick,
    # Qwen3-235B-A22B and Qwen3-30B-A3B on B200, GB200, H200, H100 and RTX PRO 6000.
    assert sum(r.attention_dp for r in package) == 3 and sum(r.attention_dp for r in unseen) == 146
    # TensorRT-LLM 0.17's Mixtral cells (its TensorRT backend, no attention DP) stay tensor parallel.
    assert not any(r.attention_dp for r in unseen if r.id.startswith("trtllm017-") and "mixtral" in r.id)


@pytest.mark.parametrize("changes", [{"family": "paged"}, {"split": "pipeline"}])
def test_attention_dp_only_on_a_trtllm_tensor_parallel_row(tmp_path: Path, changes: dict[str, str]) -> None:
    row = next(r for r in load_rows((UNSEEN,)) if r.attention_dp and r.gpus_per_replica == 8)
    data = row.model_dump(exclude_defaults=True) | changes | {"id": "bad-attention-dp"}
    lines = ["[[row]]"] + [f"{key} = {_toml_value(value)}" for key, value in data.items()]
    path = tmp_path / "bad.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PlannerError, match="attention_dp"):
        load_rows((path,))


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return str(value)
