"""The raised memory fraction's lever (planner.advisor.levers.LaunchLevers.fraction_raised) bounds a pool by the
fraction its report says is in force before it builds the request: that fraction must be the one
planner.assessment.search.current_fraction reads from the request, wherever the latter has one (vLLM's
gpu_memory_utilization and TensorRT-LLM's free-memory fraction; SGLang's heuristic is the report's alone, and the
lever does not apply to it)."""

from __future__ import annotations

from typing import Any

import pytest

from model_catalog import get_model
from planner.advisor import Workload, kept_memory, rank, reuse
from planner.assessment.search import current_fraction


@pytest.mark.parametrize(
    ("model_id", "context"),
    [("meta-llama/Llama-3.1-70B", 131072), ("meta-llama/Llama-3.1-8B", 4096), ("Qwen/Qwen3-30B-A3B", 32768)],
)
def test_the_reported_fraction_is_the_requests(monkeypatch: pytest.MonkeyPatch, context: int, model_id: str) -> None:
    seen: list[tuple[float, float | None]] = []
    original = kept_memory.assess

    def checked(request: Any, *args: Any, **kwargs: Any) -> Any:
        a = original(request, *args, **kwargs)
        if a.report is not None and a.report.fraction is not None:
            seen.append((a.report.fraction, current_fraction(request)))
        return a

    monkeypatch.setattr(kept_memory, "assess", checked)
    reuse.clear()
    rank(get_model(model_id).spec, Workload.fixed_length(context, concurrent_conversations=40))
    reuse.clear()
    assert len(seen) > 100
    assert all(ours is None or ours == pytest.approx(reported, abs=1e-12) for reported, ours in seen)
    assert any(ours is not None for _, ours in seen)
