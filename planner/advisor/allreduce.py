"""All-reduce over PCIe, as measured: NCCL's time for one fp16 all-reduce by message size, read off the source's own
curve instead of a line through two of its points.

NCCL between RTX PRO 6000s on PCIe Gen5 through Broadcom switches (voipmonitor/rtx6kpro@070506ff96a2
``hardware/asus-esc8000a-e13p-broadcom-switches.md``, "AllReduce: Custom vs NCCL", 4 and 8 GPUs, fp16): the time
flattens at a latency for small messages and grows with the bytes for large ones, at a rate that rises with the
size (4 GPUs: 1 MB more from 1 to 2 MB takes 43 us, 30 MB more from 2 to 32 MB 1,638 us, ~19 GB/s; the same page's
``nccl-tests`` bus bandwidth at 32 MB, 30.3 GB/s, is that rate x 2(G-1)/G). A line through 4 KB and 1 MB alone, as
before, gave 11.1 GB/s at every size and took a 32 MB prompt all-reduce at 3,029 us for the measured 1,790. Between
the measured sizes the time is interpolated linearly; below the first it is the first's, above the last the last
segment's rate goes on. A Gen4 link moves half the bytes: the time above the smallest message's doubles.

>>> round(pcie_allreduce_seconds(1_048_576, 4, 5) * 1e6, 1), round(pcie_allreduce_seconds(33_554_432, 4, 5) * 1e6)
(109.2, 1790)
>>> round(pcie_allreduce_seconds(1_000, 8, 5) * 1e6, 1), round(pcie_allreduce_seconds(33_554_432, 8, 4) * 1e6)
(65.6, 5886)
"""

from __future__ import annotations

from bisect import bisect_right

# (message bytes, microseconds) per GPU count, the source's NCCL column from 4 KB up (its 256-byte times, above its
# 4 KB ones, are left out: the curve starts at its latency floor).
PCIE_NCCL_ALLREDUCE_US: dict[int, tuple[tuple[int, float], ...]] = {
    4: (
        (4_096, 15.4),
        (16_384, 19.7),
        (32_768, 17.6),
        (65_536, 19.1),
        (131_072, 28.3),
        (262_144, 46.5),
        (524_288, 87.1),
        (1_048_576, 109.2),
        (2_097_152, 152.1),
        (33_554_432, 1790.0),
    ),
    8: (
        (4_096, 65.6),
        (8_192, 70.8),
        (16_384, 69.3),
        (65_536, 79.5),
        (262_144, 86.2),
        (33_554_432, 2976.0),
    ),
}


# The message sizes of each curve, for the bisection (read once, not per all-reduce: the speed model asks ~2,000 per
# ranking).
_SIZES: dict[int, tuple[int, ...]] = {
    gpus: tuple(size for size, _ in curve) for gpus, curve in PCIE_NCCL_ALLREDUCE_US.items()
}


def measured_us(message_bytes: float, curve: tuple[tuple[int, float], ...], sizes: tuple[int, ...]) -> float:
    """The curve's time at ``message_bytes`` (``sizes``: its message sizes): interpolated, the first point's below
    it, the last segment's rate beyond it."""
    if message_bytes <= sizes[0]:
        return curve[0][1]
    i = min(bisect_right(sizes, message_bytes), len(curve) - 1)
    (b0, t0), (b1, t1) = curve[i - 1], curve[i]
    return t0 + (message_bytes - b0) * (t1 - t0) / (b1 - b0)


def pcie_allreduce_seconds(message_bytes: float, gpus: int, generation: int) -> float:
    """One all-reduce of ``message_bytes`` over ``gpus`` on PCIe of ``generation``: the 4-GPU curve for two to
    four GPUs, the 8-GPU curve beyond (its time above the latency floor scaled by ``gpus / 8`` past eight), the part
    above the floor doubled per generation below Gen5."""
    measured = 4 if gpus <= 4 else 8
    curve = PCIE_NCCL_ALLREDUCE_US[measured]
    floor = curve[0][1]
    above = measured_us(message_bytes, curve, _SIZES[measured]) - floor
    if gpus > 8:
        above *= gpus / 8
    scale: float = 2.0 ** (5 - generation)
    return (floor + above * scale) * 1e-6
