"""Read a pasted engine start-up log: each registered engine reads its own lines (the memory figures it prints and
why a start-up failed), and a calibrated overhead model is made from them.

The figures are :class:`planner.engines.logfigures.ParsedLog`'s (GiB per GPU as the printing rank sees them).
The parsers are linear in the size of the text: the text is bounded (:data:`MAX_LOG_CHARS`), scanned line by
line, only lines holding a keyword meet a regular expression, every expression is anchored on a literal and
has no nested or unbounded-backtracking part, and a number longer than :data:`MAX_NUMBER_DIGITS` digits is
refused with a :class:`PlannerError` (a real memory figure has a handful of digits;
:mod:`planner.engines.logscan`).
"""

from __future__ import annotations

from planner.bounds.errors import PlannerError
from planner.engines.base import CalibratedProfile
from planner.engines.logfigures import LogFormat, ParsedLog, parsed_log
from planner.engines.logscan import MAX_LOG_CHARS, MAX_NUMBER_DIGITS, Lines
from planner.engines.registry import engines, get_engine

__all__ = ["MAX_LOG_CHARS", "MAX_NUMBER_DIGITS", "LogFormat", "ParsedLog", "calibrate", "parse_log"]


def parse_log(text: str) -> ParsedLog:
    """The figures of a start-up log, read by the first registered engine that knows its lines (an engine whose
    reader also takes a bare failure line reads last: :attr:`planner.engines.base.Engine.log_fallback`).

    Raises :class:`PlannerError` when the text is longer than :data:`MAX_LOG_CHARS`, holds an absurd number,
    or none of the lines any engine looks for.
    """
    if not text or not text.strip():
        raise PlannerError("log: empty; paste the engine's start-up output")
    if len(text) > MAX_LOG_CHARS:
        raise PlannerError(
            f"log: {len(text):,} characters; paste at most {MAX_LOG_CHARS:,} (the start-up part of the log)"
        )
    lines = Lines(text)
    for engine in sorted(engines(), key=lambda e: e.log_fallback):  # stable: registration order otherwise
        fields = engine.parse_log(lines)
        if fields is not None:
            return parsed_log({"engine": engine.name, **fields})
    hints = "; ".join(f"{engine.label}: {engine.log_hint}" for engine in engines() if engine.log_hint)
    raise PlannerError(f"log: no memory figures found; expected a line such as {hints}")


def calibrate(
    parsed: ParsedLog, engine_version: str | None = None, gpu_memory_utilization: float | None = None
) -> CalibratedProfile:
    """A calibrated overhead model from a parsed log: the measured weights, activation peak, non-torch memory,
    CUDA-graph memory and device total replace the estimates. The log's own engine makes it when it calibrates,
    else the first registered engine that does (:meth:`planner.engines.base.Engine.calibrate`)."""
    for engine in (get_engine(parsed.engine), *engines()):
        profile = engine.calibrate(parsed, engine_version, gpu_memory_utilization)
        if profile is not None:
            return profile
    raise PlannerError(f"calibration: no registered engine calibrates from a {parsed.format} log")
