"""What the slider's re-ranking reads again without making it again equals what it made: the levers read a set-up's
request off its assessment (:meth:`planner.advisor.levers.LaunchLevers._request_of`) and the evaluator keeps each
candidate's key on its GPU (:meth:`planner.advisor.kept_memory.KeptMemory._on_gpu`). Each ranking of a slider's
sequence (a context, another context, another user count) is the same JSON with both made afresh at every ask."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from model_catalog import get_model
from planner.advisor import Workload, rank, reuse
from planner.advisor.kept_memory import KeptMemory
from planner.advisor.levers import LaunchLevers
from planner.advisor.options import Candidate
from planner.assessment.assess import Assessment
from planner.planning.plan import PlanRequest

# dense (its fraction raised at long contexts), MoE (ranks sharing the experts), hybrid (--max-num-seqs), windows
# (--max-num-batched-tokens), each at the slider's moves: a context, another, another user count
CASES = (
    ("meta-llama/Llama-3.1-70B", ((8192, 32), (131072, 32), (131072, 33), (512, 33))),
    ("Qwen/Qwen3-30B-A3B", ((4096, 50), (32768, 50), (32768, 51))),
    ("ibm-granite/granite-4.0-h-small", ((8192, 8), (65536, 8), (65536, 9))),
    ("google/gemma-3-27b-it", ((8192, 16), (131072, 16), (131072, 17))),
)


def _made_again(self: LaunchLevers, c: Candidate, engine: str, a: Assessment) -> PlanRequest:
    return self._planned_request(c, engine)


@contextmanager
def _making_every_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as patched:
        patched.setattr(LaunchLevers, "_request_of", _made_again)
        patched.setattr(KeptMemory, "_on_gpu", KeptMemory._new_on_gpu)
        yield


def _sequence(model_id: str, moves: tuple[tuple[int, int], ...]) -> list[str]:
    reuse.clear()
    spec = get_model(model_id).spec
    made = [rank(spec, Workload.fixed_length(c, concurrent_conversations=u)).model_dump_json() for c, u in moves]
    reuse.clear()
    return made


@pytest.mark.parametrize(("model_id", "moves"), CASES, ids=[m for m, _ in CASES])
def test_the_slider_rankings_are_those_made_afresh(
    model_id: str, moves: tuple[tuple[int, int], ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = _sequence(model_id, moves)
    with _making_every_time(monkeypatch):
        afresh = _sequence(model_id, moves)
    assert kept == afresh
