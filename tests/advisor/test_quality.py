"""Every weight format under 8 bits carries a quality caveat (shown with every such pick, in the verdict, the table
and the CSV): a format added to planner.core.precision without one would be offered as if lossless."""

from __future__ import annotations

from planner.advisor.quality import quality_caveat
from planner.core.precision import WEIGHT_FORMATS, weight_format


def test_every_format_under_8_bits_has_a_quality_caveat() -> None:
    missing = [w for w in WEIGHT_FORMATS if weight_format(w).bits_per_weight < 8 and not quality_caveat(w)]
    assert not missing, f"add a caveat with its source to planner/advisor/quality.py CAVEATS for: {missing}"


def test_8_and_16_bit_formats_have_none() -> None:
    assert [w for w in ("fp32", "bf16", "fp16", "fp8", "int8") if quality_caveat(w)] == []
