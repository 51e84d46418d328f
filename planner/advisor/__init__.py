"""The GPU advisor: what to buy (or rent) to serve a model to a workload, what it costs, how fast it runs.

Modules: :mod:`~planner.advisor.workload` (who is served, presets, the buyer's constraints),
:mod:`~planner.advisor.ranking` (:func:`rank`: enumerate, evaluate, filter, sort), :mod:`~planner.advisor.evaluate`
(one candidate under its engine's own profile), :mod:`~planner.advisor.build` (its speed, costs and warnings),
:mod:`~planner.advisor.options` (the result types), :mod:`~planner.advisor.suitability` (the defaults: precisions,
GPUs and engines offered), :mod:`~planner.advisor.costs` (GPUs + hosts + power over the life, or cloud
instances), :mod:`~planner.advisor.support` (which engine runs what, data in ``support.toml``),
:mod:`~planner.advisor.throughput` and :mod:`~planner.advisor.engine_speed` (the speed model per engine),
:mod:`~planner.advisor.benchmarks`, :mod:`~planner.advisor.validation` and :mod:`~planner.advisor.fit` (public
measurements in ``benchmarks/``, the error per engine and regime, the fitted constants),
:mod:`~planner.advisor.quality` (caveats for 4-bit and GGUF weights), :mod:`~planner.advisor.overflow` /
:mod:`~planner.advisor.risk` (average or maximum?) and :mod:`~planner.advisor.recommend` (the verdict, the top picks
and the summary). This package re-exports what callers use.
"""

from planner.advisor.costs import HOURS_PER_MONTH, Assumptions, SystemCost
from planner.advisor.engine_speed import FITTED, Roofline
from planner.advisor.options import Option, Ranking, Rejected, RejectReason, SortKey, pareto_front
from planner.advisor.overflow import ContextDistribution, OverflowReport, overflow_report
from planner.advisor.picks import dominates, top_picks
from planner.advisor.ranking import DEFAULT_COUNTS, DEFAULT_KV_DTYPES, rank
from planner.advisor.recommend import (
    Verdict,
    alternative_text,
    alternatives,
    assumptions_line,
    caveats,
    cost_text,
    headline,
    out_of_reach_text,
    passed_over,
    passed_over_text,
    recommendation,
    runner_up,
    summary_lines,
    verdict,
    why_beats,
)
from planner.advisor.risk import overflow_for
from planner.advisor.speed_words import speed_text
from planner.advisor.suitability import EIGHT_BIT, FEW_USERS, FOUR_BIT
from planner.advisor.support import ENGINE_LABELS, ENGINE_PREFERENCE
from planner.advisor.workload import (
    DEFAULT_MIN_TOKENS_PER_S_PER_USER,
    DEFAULT_TOKENS_PER_S_PER_USER,
    FORM_FACTORS,
    PRESETS,
    VENDORS,
    ContextPreset,
    Workload,
)

__all__ = [
    "DEFAULT_COUNTS",
    "DEFAULT_KV_DTYPES",
    "DEFAULT_MIN_TOKENS_PER_S_PER_USER",
    "DEFAULT_TOKENS_PER_S_PER_USER",
    "EIGHT_BIT",
    "ENGINE_LABELS",
    "ENGINE_PREFERENCE",
    "FEW_USERS",
    "FITTED",
    "FORM_FACTORS",
    "FOUR_BIT",
    "HOURS_PER_MONTH",
    "PRESETS",
    "VENDORS",
    "Assumptions",
    "ContextDistribution",
    "ContextPreset",
    "Option",
    "OverflowReport",
    "Ranking",
    "RejectReason",
    "Rejected",
    "Roofline",
    "SortKey",
    "SystemCost",
    "Verdict",
    "Workload",
    "alternative_text",
    "alternatives",
    "assumptions_line",
    "caveats",
    "cost_text",
    "dominates",
    "headline",
    "out_of_reach_text",
    "overflow_for",
    "overflow_report",
    "pareto_front",
    "passed_over",
    "passed_over_text",
    "rank",
    "recommendation",
    "runner_up",
    "speed_text",
    "summary_lines",
    "top_picks",
    "verdict",
    "why_beats",
]
