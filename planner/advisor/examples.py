"""Five worked workloads for docs/advisor.md: the advisor's top three picks for each, their whole-system prices
and why each beats the next; and the speed model's error per engine and regime. ``python -m
planner.advisor.examples`` prints both; ``tests/advisor/test_examples.py`` checks that docs/advisor.md holds
exactly what this prints (``make docs`` rewrites it), so a change in a pick shows up as a failing test.
"""

from __future__ import annotations

import argparse
import itertools
from typing import NamedTuple

from planner.advisor.options import Option, Ranking
from planner.advisor.picks import top_picks
from planner.advisor.ranking import rank
from planner.advisor.recommend import caveats, cost_text, verdict, why_beats
from planner.advisor.speed_words import speed_text
from planner.advisor.validation import errors_table as speed_errors_table
from planner.advisor.validation import scored, summary
from planner.advisor.workload import Workload


class Example(NamedTuple):
    name: str
    model_id: str
    users: int
    context: int | None  # every conversation this long; None: the preset's distribution
    fields: dict[str, object]
    reasoning: str  # what an engineer would weigh, in a sentence


EXAMPLES: tuple[Example, ...] = (
    Example(
        "70B chat, 50 users, 32k context",
        "meta-llama/Llama-3.1-70B",
        50,
        32_768,
        {},
        "50 conversations of 32k tokens need ~270 GB of FP8 KV cache besides 70 GB of FP8 weights, and every "
        "decode step reads that cache: capacity and bandwidth decide, and 4-bit weights are not needed",
    ),
    Example(
        "120B MoE chat, 50 users, 32k context",
        "openai/gpt-oss-120b",
        50,
        32_768,
        {},
        "gpt-oss ships MXFP4 experts (63 GB) and attends over full context on half its layers only, so its KV cache "
        "is small; at 50 users a step reads most experts, not its 5 B active parameters",
    ),
    Example(
        "Team assistant on a Mac, 4 users",
        "Qwen/Qwen3-8B",
        4,
        8_192,
        {"vendors": ("Apple",)},
        "a few users on one machine: the buyer asks for a Mac, so desktops and llama.cpp are in play",
    ),
    Example(
        "70B support chat, 200 users",
        "meta-llama/Llama-3.3-70B-Instruct",
        200,
        None,
        {"preset": "support-chat"},
        "short conversations (6k tokens at p95) but many of them: batching decides the speed per user",
    ),
    Example(
        "235B MoE over documents (RAG), 50 users",
        "Qwen/Qwen3-235B-A22B",
        50,
        None,
        {"preset": "rag"},
        "470 GB of BF16 weights (235 GB in FP8) before any cache: four 141 GB GPUs hold it in FP8, eight in BF16, "
        "and prompts of 5k tokens per 400-token answer take about a third of the GPU time",
    ),
)


def example_workload(example: Example) -> Workload:
    fields = dict(example.fields)
    preset = fields.pop("preset", None)
    if preset is not None:
        return Workload.from_preset(str(preset), concurrent_conversations=example.users, **fields)
    assert example.context is not None
    return Workload.fixed_length(example.context, concurrent_conversations=example.users, **fields)


def example_ranking(example: Example) -> Ranking:
    from model_catalog import get_model  # the catalog imports the planner: import late

    return rank(get_model(example.model_id).spec, example_workload(example))


def _pick_line(position: int, o: Option) -> str:
    return (
        f"{position}. **{o.purchase_unit}**, {o.engine_label}, {o.weights} weights / {o.kv_dtype} KV ({o.split_text}): "
        f"{cost_text(o, False)}; holds {o.conversations:,}; {speed_text(o)}; first token {o.prefill_seconds or 0:.1f} s"
        + (f"; caveat: {o.undermining[0]}" if o.undermining else "")
    )


def example_section(example: Example, ranking: Ranking) -> str:
    """One workload: what it is, the reasoning, the top three and why each beats the next."""
    w = ranking.workload
    what = f"{example.model_id}, {example.users} users, " + (
        f"every conversation {example.context:,} tokens"
        if example.context
        else f"{w.preset} ({w.context_tokens:,} at p95)"
    )
    constraints = ", ".join(
        f"{k} {' / '.join(map(str, v)) if isinstance(v, tuple) else v} only"
        for k, v in example.fields.items()
        if k != "preset"
    )
    lines = [f"**{example.name}** — {what}" + (f"; {constraints}" if constraints else "") + ".", ""]
    lines.append(f"Reasoning: {example.reasoning}.")
    picks = top_picks(ranking)
    if not picks:
        lines += ["", f"Nothing fits: {ranking.rejection_counts()}."]
        return "\n".join(lines)
    found = caveats(ranking)
    lines += ["", f"Verdict: {verdict(ranking)}" + (f" ({'; '.join(found)})" if found else "") + ".", ""]
    lines += [_pick_line(i, o) for i, o in enumerate(picks, start=1)]
    lines.append("")
    lines += [f"- {why_beats(a, b, False, ranking.workload.mean_output_tokens)}" for a, b in itertools.pairwise(picks)]
    return "\n".join(lines)


def examples_text() -> str:
    """The markdown of every example, separated by blank lines."""
    return "\n\n".join(example_section(e, example_ranking(e)) for e in EXAMPLES)


def errors_text() -> str:
    """The speed model's error per engine and regime, fit and held-out rows apart, and the totals."""
    results = scored()
    lines = [speed_errors_table(results), ""]
    for role in ("fit", "held-out"):
        n, median, worst = summary(results, role)
        lines.append(f"- {role} rows: {n}, median |error| {median:.1%}, worst {worst:.0%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m planner.advisor.examples",
        description="Print the advisor's worked examples and the speed model's errors.",
    )
    parser.parse_args(argv)
    print(examples_text())
    print()
    print(errors_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
