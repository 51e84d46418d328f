"""Each page's planning in one piece, shared by every visitor asking the same question (:mod:`ui.shared_cache`).

A page draws from its answer and plans nothing else: the Memory page's assessment (its chart's rows are read from it:
:mod:`ui.memory_chart`), its nearest set-ups that fit, the engine's largest max-model-len and launch commands; the
Compare page's grid of every weight precision by KV dtype. The answer is keyed by the whole selection and the page's
own options, so a link opened by 25 people is planned once.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.assessment.accuracy import AccuracyNote, accuracy_of, unchecked_sentence
from planner.assessment.alternatives import nearest_for
from planner.assessment.assess import Assessment, VerdictState, assess
from planner.assessment.other_engines import engines_that_start
from planner.assessment.trial import Alternative
from planner.deploy.options import DeploymentOptions
from planner.engines.base import Engine
from planner.engines.launch import launch_commands
from planner.engines.registry import max_model_len_allowed, release_that_loads
from ui.shared_cache import ANSWERS, key_of
from ui.state import Selection


class MemoryAnswer(NamedTuple):
    """What the Memory page shows for one set-up and deployment."""

    assessment: Assessment
    nearest: list[Alternative]  # the nearest set-ups that fit (or meet the target); none when it is met
    max_model_len: int | None  # the largest --max-model-len, under an engine profile
    commands: dict[str, str] | None  # launch commands per engine, under an engine profile
    accuracy: AccuracyNote | None = None  # how close public start-ups like it came (planner.assessment.accuracy)
    unchecked: str | None = None  # where none is like it: that its figure is unchecked (unchecked_sentence)


def _memory(sel: Selection, options: DeploymentOptions | None) -> MemoryAnswer:
    asked = sel.request(deployment=options)
    a = assess(asked, sel.users)
    nearest = nearest_for(asked, a, sel.users)
    engine = a.report is not None
    return MemoryAnswer(
        assessment=a,
        nearest=nearest,
        max_model_len=max_model_len_allowed(a.request, a.result) if engine else None,
        commands=launch_commands(a.request, a.result, a.report) if engine else None,
        accuracy=accuracy_of(a, sel.unit),
        unchecked=unchecked_sentence(a, sel.unit),
    )


def memory(sel: Selection, options: DeploymentOptions | None) -> MemoryAnswer:
    """The Memory page's answer for ``sel`` with the deployment ``options`` (planned once per distinct pair)."""
    return ANSWERS.get(key_of("memory", sel, options), lambda: _memory(sel, options))


class CompareAnswer(NamedTuple):
    """The Compare page's grid: the weight formats (rows) and KV dtypes (columns) the engine runs on the GPU, and
    each pair's assessment (``None`` where the engine does not run that pair: "not run")."""

    weights: list[str]
    kv_dtypes: list[str]
    grid: list[list[Assessment | None]]


def _grid(sel: Selection) -> CompareAnswer:
    weights, kvs = sel.grid_formats()
    runs = sel.runnable_pairs()
    grid = [[sel.assessment(weights=w, kv_dtype=kv) if f"{w}/{kv}" in runs else None for kv in kvs] for w in weights]
    return CompareAnswer(weights, kvs, grid)


def compare_grid(sel: Selection) -> CompareAnswer:
    """What the engine runs on this GPU (:meth:`ui.state.Selection.grid_formats`), every pair assessed once per
    distinct selection; raises the planner's error when the split itself is invalid (every pair shares it)."""
    return ANSWERS.get(key_of("compare", sel), lambda: _grid(sel))


def engines_running(sel: Selection, options: DeploymentOptions | None) -> tuple[Engine, ...]:
    """Where the selection's engine refuses its set-up: the engines that run it as asked and start with it
    (:func:`planner.assessment.other_engines.engines_that_start`); none when the set-up is invalid whatever the
    engine (its split, a value out of range: the page says that error)."""
    try:
        request = sel.request(deployment=options)
    except ValueError:  # PlannerError, or pydantic's ValidationError of a request no engine could take
        return ()
    return engines_that_start(request)


def release_loading(sel: Selection) -> str | None:
    """Where the selection's release does not load its model: the oldest release of the same engine offered that
    does (:func:`planner.engines.registry.release_that_loads`)."""
    try:
        return release_that_loads(sel.request())
    except ValueError:  # a request no engine could take: the page says that error
        return None


def report_sections(answer: MemoryAnswer, unit: str) -> list[tuple[str, list[str]]]:
    """What the page says beside its figures, for the report: the result's warnings and the nearest set-ups (each
    change with its verdict), as the page shows them."""
    a = answer.assessment
    sections = [("Warnings", list(a.result.warnings))] if a.result.warnings else []
    heading = "Nearest set-ups that meet the target" if a.state is VerdictState.MISSES_TARGET else "Nearest set-ups"
    nearest = [f"{alt.change}: {alt.assessment.sentence(unit)}" for alt in answer.nearest]
    return sections + ([(heading, nearest)] if nearest and a.state is not VerdictState.MEETS_TARGET else [])
