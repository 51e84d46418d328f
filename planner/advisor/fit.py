"""Fitting the speed model's constants to the ``fit`` rows of ``measurements.toml``, reproducibly.

:func:`fit_roofline` fixes the constants of :class:`~planner.advisor.throughput.Roofline` one group at a time, in
:data:`FIT_ORDER`, each by a grid search over :data:`GRIDS` that minimises the sum of squared log errors of the
fit rows naming that constant in their ``fixes`` field (the other constants held at their current values),
and repeats the sweep until nothing changes. Held-out rows are never read. ``python -m planner.advisor.fit``
prints the fitted constants and the error per GPU family; ``tests/advisor/test_fit.py`` checks that
:data:`planner.advisor.throughput.FITTED` is what this returns.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from planner.advisor.throughput import FITTED, Roofline
from planner.advisor.validation import Measurement, family_errors, measurements, validation_rows

# Groups fitted together, in this order: prefill (compute only) first, then decode.
FIT_ORDER: tuple[tuple[str, ...], ...] = (
    ("mfu_16bit",),
    ("mfu_low_bit",),
    ("bandwidth_efficiency", "step_overhead_s"),
    ("allreduce_s",),
    ("unified_bandwidth_efficiency",),
)
# (first, last, step) of each constant's grid; the step is the precision the constant is stated to.
GRIDS: dict[str, tuple[float, float, float]] = {
    "mfu_16bit": (0.20, 1.00, 0.01),
    "mfu_low_bit": (0.20, 1.00, 0.01),
    "bandwidth_efficiency": (0.50, 1.00, 0.01),
    "step_overhead_s": (0.0, 0.0060, 0.0001),
    "allreduce_s": (0.0, 0.000200, 0.000001),
    "unified_bandwidth_efficiency": (0.40, 1.00, 0.01),
}


def _grid(name: str) -> list[float]:
    first, last, step = GRIDS[name]
    n = round((last - first) / step)
    digits = max(0, -math.floor(math.log10(step)))
    return [round(first + i * step, digits) for i in range(n + 1)]


def _loss(roofline: Roofline, rows: tuple[Measurement, ...]) -> float:
    errors = [r.error for r in validation_rows(roofline, rows)]
    if any(e is None for e in errors):
        return math.inf
    return sum(math.log(1 + e) ** 2 for e in errors if e is not None)


def _candidates(current: Roofline, group: tuple[str, ...]) -> Iterator[Roofline]:
    if len(group) == 1:
        for value in _grid(group[0]):
            yield current._replace(**{group[0]: value})
        return
    first, second = group
    for a in _grid(first):
        for b in _grid(second):
            yield current._replace(**{first: a, second: b})


def fit_roofline(start: Roofline = FITTED, rounds: int = 3) -> Roofline:
    """The constants that minimise the log error of the fit rows, group by group (see the module docstring)."""
    fit_rows = tuple(m for m in measurements() if m.role == "fit")
    current = start
    for _ in range(rounds):
        before = current
        for group in FIT_ORDER:
            rows = tuple(m for m in fit_rows if set(m.fixes) & set(group))
            current = min(_candidates(current, group), key=lambda r: _loss(r, rows))
        if current == before:
            break
    return current


def main() -> int:
    fitted = fit_roofline()
    print("fitted constants:")
    for name, value in fitted._asdict().items():
        print(f"  {name} = {value:g}")
    print("log-RMS error by GPU family (fit rows / held-out rows; worst held-out row):")
    for fam in family_errors(validation_rows(fitted)):
        fit = "-" if fam.fit_log_rms is None else f"{fam.fit_log_rms:.3f} ({fam.fit_rows})"
        held = "-" if fam.held_out_log_rms is None else f"{fam.held_out_log_rms:.3f} ({fam.held_out_rows})"
        worst = f"{fam.worst_label}: {fam.worst_error:+.0%}" if fam.worst_label and fam.worst_error is not None else ""
        print(f"  {fam.gpu_family:10} fit {fit:12} held-out {held:12} {worst}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
