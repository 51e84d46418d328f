"""Ten worked workloads for the README: the advisor's top pick for each and why, and the speed model's error per
GPU family. ``python -m planner.advisor.examples`` prints both tables; ``tests/advisor/test_examples.py``
checks that the README holds exactly what this prints, so a change in a pick shows up as a failing test.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.advisor.options import Ranking
from planner.advisor.ranking import rank
from planner.advisor.recommend import runner_up, verdict
from planner.advisor.support import ENGINE_LABELS
from planner.advisor.validation import family_errors, validation_rows
from planner.advisor.workload import Workload


class Example(NamedTuple):
    name: str
    model_id: str
    users: int
    context: int | None  # every conversation this long; None: the preset's distribution
    fields: dict[str, object]


EXAMPLES: tuple[Example, ...] = (
    Example("small model on a budget", "meta-llama/Llama-3.1-8B", 20, 4_096, {"budget_usd": 5_000}),
    Example("team assistant on a Mac", "Qwen/Qwen3-8B", 4, 8_192, {"vendors": ("Apple",)}),
    Example("70B chat, long context (issue 12)", "meta-llama/Llama-3.1-70B", 50, 32_768, {}),
    Example("70B support chat, 200 users", "meta-llama/Llama-3.3-70B-Instruct", 200, None, {"preset": "support-chat"}),
    Example("70B chat, no 4-bit weights", "meta-llama/Llama-3.1-70B", 50, 8_192, {"weights": ("bf16", "fp8", "int8")}),
    Example("long-document RAG", "Qwen/Qwen2.5-72B", 10, None, {"preset": "long-document"}),
    Example("small MoE, RAG", "Qwen/Qwen3-30B-A3B", 100, None, {"preset": "rag"}),
    Example("large MoE, RAG", "Qwen/Qwen3-235B-A22B", 50, None, {"preset": "rag"}),
    Example("MoE coding agent", "Qwen/Qwen3-Coder-480B-A35B-Instruct", 8, None, {"preset": "coding-agent"}),
    Example("DeepSeek-class", "deepseek-ai/DeepSeek-V3", 32, 8_192, {}),
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


def _constraint(name: str, value: object) -> str:
    if name == "budget_usd" and isinstance(value, int | float):
        return f"budget ${value:,.0f}"
    if isinstance(value, tuple):
        return f"{name} {' / '.join(str(v) for v in value)} only"
    return f"{name} {value}"


def _row(example: Example, ranking: Ranking) -> str:
    best = ranking.best
    w = ranking.workload
    what = f"{example.model_id.split('/')[-1]}, {example.users} users, " + (
        f"{example.context:,} tokens" if example.context else f"{w.preset} ({w.context_tokens:,} at p95)"
    )
    constraints = ", ".join(_constraint(k, v) for k, v in example.fields.items() if k != "preset")
    if constraints:
        what += f"; {constraints}"
    if best is None:
        return f"| {example.name} | {what} | nothing fits | {', '.join(ranking.rejection_counts())} |"
    cost = "price unknown" if best.cost is None else f"${best.cost:,.0f}" + ("/h" if w.pricing == "cloud" else "")
    speed = (
        "speed not estimated (no compute figure)"
        if best.decode_tokens_per_s_per_user is None
        else f"{best.decode_tokens_per_s_per_user:.0f} tok/s/user, {best.decode_bound}-bound"
    )
    alt = runner_up(ranking)
    why = (
        f"{verdict(ranking)}: cheapest of {len(ranking.options):,} that hold the target; {best.concurrency:,.0f} "
        f"conversations, {speed}, {cost}; {ENGINE_LABELS[best.engine]}"
        + (f"; runner-up {alt.gpu_count} x {alt.gpu_name} {alt.weights}" if alt else "")
    )
    pick = f"{best.gpu_count} x {best.gpu_name}, {best.weights} / {best.kv_dtype} KV ({best.purchase_kind})"
    return f"| {example.name} | {what} | {pick} | {why} |"


def examples_table() -> str:
    """The markdown table of :data:`EXAMPLES`."""
    lines = ["| workload | model, users, context | top pick | why |", "|---|---|---|---|"]
    lines += [_row(example, example_ranking(example)) for example in EXAMPLES]
    return "\n".join(lines)


def errors_table() -> str:
    """The markdown table of the speed model's log-RMS error per GPU family (fit and held-out rows)."""
    lines = [
        "| GPU family | fit rows (log-RMS) | held-out rows (log-RMS) | worst held-out row |",
        "|---|---|---|---|",
    ]
    for fam in family_errors(validation_rows()):
        fit = "none" if fam.fit_log_rms is None else f"{fam.fit_rows} ({fam.fit_log_rms:.3f})"
        held = "none" if fam.held_out_log_rms is None else f"{fam.held_out_rows} ({fam.held_out_log_rms:.3f})"
        worst = f"{fam.worst_label}: {fam.worst_error:+.0%}" if fam.worst_error is not None else ""
        lines.append(f"| {fam.gpu_family} | {fit} | {held} | {worst} |")
    return "\n".join(lines)


def main() -> int:
    print(examples_table())
    print()
    print(errors_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
