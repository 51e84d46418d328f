"""Fitting the speed model's constants to the ``fit`` rows of ``planner/advisor/benchmarks/*.toml``, reproducibly.

:func:`fit_roofline` minimises the sum of squared log errors of the fit rows (held-out rows are never read) by
coordinate descent: each constant in turn takes the best value of its grid (:data:`GRIDS`, the others held), and
the sweep repeats until nothing changes. Every row's loads are computed once (:func:`planner.advisor.validation.case`),
so a sweep is arithmetic. ``python -m planner.advisor.fit`` prints the constants and the error table;
``tests/advisor/test_benchmarks.py`` checks that :data:`planner.advisor.engine_speed.FITTED` is what this returns.
"""

from __future__ import annotations

import math

from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.engine_speed import Roofline
from planner.advisor.validation import predict, scored, scores_report

# Where the descent starts: round, physically plausible values (no fitting behind them).
START = Roofline(
    cb_bw_hbm=0.80,
    trt_bw_hbm=0.80,
    cb_bw_gddr=0.80,
    cb_bw_lpddr=0.70,
    ll_bw_hbm=0.65,
    ll_bw_gddr=0.90,
    ll_bw_apple=0.60,
    ll_bw_lpddr=0.80,
    trt_step_s=0.002,
    vllm_step_s=0.003,
    ll_step_s=0.001,
    ll_layer_s=0.00005,
    ll_moe_layer_s=0.00005,
    ll_mfu_16=0.5,
    ll_mfu_quant=0.3,
    ll_mfu_alu=0.5,
    ar_nvlink_s=0.00001,
    trt_seq_s=0.00001,
    vllm_seq_s=0.00001,
    moe_locality=0.8,
    ll_moe_mfu=1.0,
    ll_mfu_quant_vulkan=0.3,
)
# (first, last, step) of each constant's grid; the step is the precision the constant is stated to.
GRIDS: dict[str, tuple[float, float, float]] = {
    "cb_bw_hbm": (0.40, 1.00, 0.01),
    "trt_bw_hbm": (0.40, 1.00, 0.01),
    "cb_bw_gddr": (0.40, 1.00, 0.01),
    "cb_bw_lpddr": (0.40, 1.00, 0.01),
    "ll_bw_hbm": (0.30, 1.00, 0.01),
    "ll_bw_gddr": (0.30, 1.00, 0.01),
    "ll_bw_apple": (0.30, 1.00, 0.01),
    "ll_bw_lpddr": (0.30, 1.00, 0.01),
    "trt_step_s": (0.0, 0.010, 0.0001),
    "vllm_step_s": (0.0, 0.010, 0.0001),
    "ll_step_s": (0.0, 0.010, 0.0001),
    "ll_layer_s": (0.0, 0.000200, 0.000002),
    "ll_moe_layer_s": (0.0, 0.000300, 0.000002),
    "ll_mfu_16": (0.05, 1.00, 0.01),
    "ll_mfu_quant": (0.05, 1.00, 0.01),
    "ll_mfu_alu": (0.05, 1.00, 0.01),
    "ar_nvlink_s": (0.0, 0.000100, 0.000001),
    "trt_seq_s": (0.0, 0.000050, 0.0000005),
    "vllm_seq_s": (0.0, 0.000050, 0.0000005),
    "moe_locality": (0.50, 1.00, 0.01),
    "ll_moe_mfu": (0.05, 1.00, 0.01),
    "ll_mfu_quant_vulkan": (0.05, 1.00, 0.01),
}


# Constants whose product sets a row's speed: llama.cpp's quantized matmul rate and the shares of it its expert
# matmuls reach (CUDA and Metal, Vulkan). The MoE prompts pin the products, so no one constant can move without the
# others; the descent also moves each group along its products (:func:`_ridge_moves`).
COUPLED = (("ll_moe_mfu", "ll_mfu_quant", "ll_mfu_quant_vulkan"),)
RIDGE_FACTORS = tuple(round(0.5 * 1.05**i, 4) for i in range(29))  # 0.5 to ~1.97: the first of a group scaled by


def _snap(name: str, value: float) -> float | None:
    """``value`` on the grid of ``name`` (``None``: outside it)."""
    first, last, step = GRIDS[name]
    if not first <= value <= last:
        return None
    digits = max(0, -math.floor(math.log10(step))) + 1
    return round(first + round((value - first) / step) * step, digits)


def _ridge_moves(current: Roofline) -> list[Roofline]:
    """Each :data:`COUPLED` group with its first constant scaled by a factor and the others by its inverse (all on
    their grids): the products kept."""
    out = []
    for first, *others in COUPLED:
        for k in RIDGE_FACTORS:
            moved = {first: _snap(first, float(getattr(current, first)) * k)}
            moved |= {name: _snap(name, float(getattr(current, name)) / k) for name in others}
            snapped = {name: v for name, v in moved.items() if v is not None}
            if len(snapped) == len(moved):
                out.append(current._replace(**snapped))
    return out


def _grid(name: str) -> list[float]:
    first, last, step = GRIDS[name]
    n = round((last - first) / step)
    digits = max(0, -math.floor(math.log10(step))) + 1
    return [round(first + i * step, digits) for i in range(n + 1)]


def loss(roofline: Roofline, rows: tuple[BenchmarkRow, ...]) -> float:
    """Sum of absolute log errors: the median error is what is minimised, and one outlier cannot drag every
    constant (a row without a prediction counts as a large miss)."""
    total = 0.0
    for row in rows:
        p = predict(row, roofline)
        total += 5.0 if p is None or p <= 0 else abs(math.log(p / row.value))
    return total


def fit_rows() -> tuple[BenchmarkRow, ...]:
    return tuple(r for r in load_rows() if r.role == "fit")


def fit_roofline(start: Roofline = START, sweeps: int = 12) -> Roofline:
    """The constants that minimise :func:`loss` over the fit rows (see the module docstring)."""
    rows = fit_rows()
    current, best = start, loss(start, rows)
    for _ in range(sweeps):
        before = current
        for name in Roofline._fields:
            for value in _grid(name):
                trial = current._replace(**{name: value})
                value_loss = loss(trial, rows)
                if value_loss < best - 1e-12:
                    current, best = trial, value_loss
        for trial in _ridge_moves(current):
            value_loss = loss(trial, rows)
            if value_loss < best - 1e-12:
                current, best = trial, value_loss
        if current == before:
            break
    return current


def main() -> int:
    fitted = fit_roofline()
    print("fitted constants:")
    for name, value in fitted._asdict().items():
        print(f"    {name}={value:g},")
    print(scores_report(scored(r=fitted)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
