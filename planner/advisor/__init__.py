"""The GPU advisor: what to buy (or rent) to serve a model to a workload, what it costs, how fast it runs.

Modules: :mod:`~planner.advisor.workload` (who is served, presets, the buyer's constraints),
:mod:`~planner.advisor.ranking` (:func:`rank`: enumerate, evaluate, filter, sort), :mod:`~planner.advisor.evaluate`
(one candidate), :mod:`~planner.advisor.options` (the result types), :mod:`~planner.advisor.costs`,
:mod:`~planner.advisor.support` (which engine runs what, data in ``support.toml``),
:mod:`~planner.advisor.throughput` (memory/compute roofline), :mod:`~planner.advisor.validation` and
:mod:`~planner.advisor.fit` (against the published measurements in ``measurements.toml``),
:mod:`~planner.advisor.quality` (caveats for 4-bit and GGUF weights), :mod:`~planner.advisor.overflow` (average
or maximum?) and :mod:`~planner.advisor.recommend` (the verdict and the recommendation text). This package
re-exports what callers use.
"""

from planner.advisor.costs import AMORTISATION_YEARS, HOURS_PER_MONTH, POWER_USD_PER_KWH, Costs, costs
from planner.advisor.options import Option, Ranking, Rejected, RejectReason, SortKey, pareto_front
from planner.advisor.overflow import ContextDistribution, OverflowReport, overflow_report
from planner.advisor.ranking import DEFAULT_COUNTS, DEFAULT_KV_DTYPES, DEFAULT_WEIGHTS, rank
from planner.advisor.recommend import assumptions_line, overflow_for, recommendation, runner_up, verdict
from planner.advisor.support import ENGINE_LABELS, ENGINE_PREFERENCE
from planner.advisor.throughput import decode_estimate, prefill_seconds
from planner.advisor.validation import Measurement, ValidationRow, log_rms_error, measurements, validation_rows
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
    "AMORTISATION_YEARS",
    "DEFAULT_COUNTS",
    "DEFAULT_KV_DTYPES",
    "DEFAULT_MIN_TOKENS_PER_S_PER_USER",
    "DEFAULT_TOKENS_PER_S_PER_USER",
    "DEFAULT_WEIGHTS",
    "ENGINE_LABELS",
    "ENGINE_PREFERENCE",
    "FORM_FACTORS",
    "HOURS_PER_MONTH",
    "POWER_USD_PER_KWH",
    "PRESETS",
    "VENDORS",
    "ContextDistribution",
    "ContextPreset",
    "Costs",
    "Measurement",
    "Option",
    "OverflowReport",
    "Ranking",
    "RejectReason",
    "Rejected",
    "SortKey",
    "ValidationRow",
    "Workload",
    "assumptions_line",
    "costs",
    "decode_estimate",
    "log_rms_error",
    "measurements",
    "overflow_for",
    "overflow_report",
    "pareto_front",
    "prefill_seconds",
    "rank",
    "recommendation",
    "runner_up",
    "validation_rows",
    "verdict",
]
