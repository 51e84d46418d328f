"""The README's example figures, computed rather than typed: each lives between ``<!-- name -->`` and
``<!-- /name -->`` markers and is what :func:`planner.assessment.assess.assess` says today.
``python -m planner.cli.examples`` rewrites them; ``tests/cli/test_examples.py`` fails when one is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import assess
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import default_engine, engine_profile
from planner.planning.plan import PlanRequest

README = Path(__file__).resolve().parents[2] / "README.md"


def _llama_70b_fp8(used_gib: float = 0.0) -> PlanRequest:
    """The README's running example: Llama-3.1-70B, FP8 weights and KV cache, 32k tokens, 2 x H100 SXM, the default
    engine."""
    gpu = get_gpu("h100-sxm-80gb")
    return PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=2,
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=32768,
        max_model_len=32768,
        overhead=engine_profile(default_engine()),  # the first registered engine (vLLM)
        deployment=DeploymentOptions(used_memory_bytes=round(used_gib * GiB)) if used_gib else None,
    )


def verdict_example() -> str:
    """The verdict sentence of the running example."""
    return f'("{assess(_llama_70b_fp8()).sentence()}")'


def refusal_example() -> str:
    """The running example with 10 GiB already in use per GPU: the refusal and the set-up that fixes it."""
    request = _llama_70b_fp8(used_gib=10.0)
    refused = assess(request)
    fix = nearest_fitting(request)[0]
    return f'"{refused.sentence()}" The nearest set-up that starts: {fix.change}, "{assess(fix.request).sentence()}"'


EXAMPLES: dict[str, Callable[[], str]] = {"verdict-example": verdict_example, "refusal-example": refusal_example}


def section(text: str, name: str) -> str:
    """What the README holds between the markers of ``name``."""
    match = re.search(rf"<!-- {name} -->(.*?)<!-- /{name} -->", text, re.S)
    if match is None:
        raise KeyError(f"README.md: the {name} markers are missing")
    return match.group(1)


def rewrite(text: str) -> str:
    """``text`` with every example section replaced by what the planner says now."""
    for name, example in EXAMPLES.items():
        section(text, name)  # the markers exist
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        before, _, rest = text.partition(start)
        _, _, after = rest.partition(end)
        text = f"{before}{start}{example()}{end}{after}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m planner.cli.examples",
        description="Rewrite the README's CLI examples from real runs.",
    )
    parser.parse_args(argv)
    README.write_text(rewrite(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"{README}: {', '.join(EXAMPLES)} rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
