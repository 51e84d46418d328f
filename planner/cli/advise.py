"""``advise``: the ranking of :func:`planner.advisor.rank` as a table or as JSON.

Registered by :mod:`planner.cli`; errors are one line on stderr and exit status 2 (handled there). Exit status
1 when no set-up meets the workload, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, get_args

from model_catalog import get_model, load_gpus, load_hosts, running_costs
from planner.advisor import (
    PRESETS,
    ContextDistribution,
    Option,
    Ranking,
    Workload,
    caveats,
    rank,
    recommendation,
    summary_lines,
    top_picks,
    verdict,
    why_beats,
)
from planner.advisor.pick_lines import PICKS_HEADING, pick_line, pick_lines
from planner.advisor.suitability import EIGHT_BIT, FEW_USERS, FOUR_BIT
from planner.advisor.support import ENGINE_PREFERENCE
from planner.advisor.workload import DEFAULT_MIN_TOKENS_PER_S_PER_USER, FORM_FACTORS, VENDORS, PlanAt
from planner.bounds.collector import freeze_long_lived
from planner.bounds.errors import PlannerError
from planner.bounds.limits import MAX_BUDGET_USD, MAX_CONTEXT, MAX_PARALLEL, MAX_USERS
from planner.cli.args import decimal, tokens, whole
from planner.cli.schema import SCHEMA_VERSION
from planner.cli.table import print_table
from planner.core.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_USERS, default_context_tokens
from planner.core.precision import WEIGHT_FORMATS
from planner.core.sale import DEFAULT_CLOUD_TIER, CloudTier


def add_advise_parser(sub: Any) -> None:
    """Add the ``advise`` sub-command to ``sub`` (an argparse sub-parsers action)."""
    p = sub.add_parser("advise", help="what to buy for a model and a number of users, and what it costs")
    p.add_argument("--model", required=True, help="catalog model id or alias (a Hugging Face repo id)")
    _add_workload_arguments(p)
    p.add_argument(
        "--gpus-max",
        type=whole(1, MAX_PARALLEL),
        default=8,
        help="largest GPU count to consider: 1, 2, 4, 8 … (default 8)",
    )
    p.add_argument(
        "--budget", type=decimal(0, MAX_BUDGET_USD), help="USD: total purchase, or per month with --pricing cloud"
    )
    p.add_argument("--pricing", choices=["purchase", "cloud"], default="purchase")
    p.add_argument(
        "--cloud-tier",
        choices=list(get_args(CloudTier)),
        default=DEFAULT_CLOUD_TIER,
        help=f"with --pricing cloud: the tier rentals are priced in, offers compared only within it (default "
        f"{DEFAULT_CLOUD_TIER}; community: a marketplace of third-party hosts; reserved: capacity booked ahead)",
    )
    p.add_argument("--gpu", action="append", help="only this catalog GPU id (repeatable)")
    p.add_argument(
        "--shared-prefix",
        type=tokens(0, MAX_CONTEXT),
        default=0,
        help="tokens of a system prompt every conversation shares",
    )
    p.add_argument(
        "--weights",
        action="append",
        choices=list(WEIGHT_FORMATS),
        help=f"only this weight precision (repeatable; default: the model's own and the 8-bit formats "
        f"{', '.join(EIGHT_BIT)}; the 4-bit {', '.join(FOUR_BIT)} only when nothing else serves the workload)",
    )
    p.add_argument(
        "--engine", action="append", choices=list(ENGINE_PREFERENCE), help="only this serving engine (repeatable)"
    )
    p.add_argument("--vendor", action="append", choices=list(VENDORS), help="only GPUs of this vendor (repeatable)")
    p.add_argument(
        "--form-factor",
        action="append",
        choices=list(FORM_FACTORS),
        help="only GPUs sold this way: card (PCIe), pair (NVLink pair), baseboard (SXM/OAM), machine (Mac), rack",
    )
    _add_target_arguments(p)
    p.add_argument(
        "--unified-memory-share",
        type=decimal(0, 1, above_low=True),
        help="the GPU's share of a Mac's memory (default: the macOS default, 0.75; raise it with sudo sysctl "
        "iogpu.wired_limit_mb=<MB>)",
    )
    _add_offer_arguments(p)
    p.add_argument(
        "--limit", type=whole(1, 10_000), default=10, help="rows of the table (default 10; JSON lists every option)"
    )
    p.add_argument("--json", action="store_true")


def _add_workload_arguments(p: Any) -> None:
    """The users and their conversations' lengths, each by default as the dashboard opens the advisor
    (:mod:`planner.core.defaults`)."""
    p.add_argument(
        "--users",
        type=whole(1, MAX_USERS),
        default=DEFAULT_USERS,
        help=f"concurrent conversations to serve (default {DEFAULT_USERS}, as the dashboard)",
    )
    p.add_argument(
        "--context",
        type=tokens(1, MAX_CONTEXT),
        help="tokens per conversation, in digits or as 32k = 32,768 (every conversation this long; default "
        f"{DEFAULT_CONTEXT_TOKENS:,} or the model's maximum where shorter, as the dashboard); with --preset: the cap "
        "(max_model_len)",
    )
    p.add_argument("--preset", choices=list(PRESETS), help="a context-length distribution instead of one length")


def _add_target_arguments(p: Any) -> None:
    """The page's targets: the speed floor, a time-to-first-token bound and the length each option is sized for."""
    p.add_argument(
        "--min-speed",
        type=decimal(0, 10_000),
        default=DEFAULT_MIN_TOKENS_PER_S_PER_USER,
        help=f"tokens/s per user an option must reach (default {DEFAULT_MIN_TOKENS_PER_S_PER_USER:g}, about reading "
        "speed; 0: no floor)",
    )
    p.add_argument(
        "--max-ttft",
        type=decimal(0, 600, above_low=True),
        help="seconds to the first token of a typical prompt, alone; slower set-ups are left out (default: none, a "
        "set-up slower than 6 s, or 6 s per 9,500 tokens of a longer prompt, keeps a caveat)",
    )
    p.add_argument(
        "--plan-at",
        choices=list(get_args(PlanAt)),
        default="p95",
        help="the conversation length each option is sized for, with --preset (default p95)",
    )


def _add_offer_arguments(p: Any) -> None:
    """What is offered only when asked for, and the running-cost assumptions."""
    p.add_argument(
        "--include-restricted",
        action="store_true",
        help="also offer parts sold in one market only (China's H20, L20, H800, A800)",
    )
    p.add_argument(
        "--include-personal",
        action="store_true",
        help="also offer desktops and laptops (Macs, DGX Spark, Strix Halo), and hosts that are not rack-mounted "
        f"beyond {FEW_USERS} users (up to {FEW_USERS} a workstation or an open frame is offered anyway)",
    )
    p.add_argument("--usd-per-kwh", type=decimal(0, 10, above_low=True), help="electricity price (default: catalog)")
    p.add_argument("--pue", type=decimal(1, 5), help="data-centre PUE for rack-mounted hosts (default: catalog)")
    p.add_argument(
        "--life-years", type=decimal(0, 20, above_low=True), help="years the purchase is planned over (default 3)"
    )


def workload_from_args(args: argparse.Namespace, max_position_embeddings: int) -> Workload:
    """The :class:`Workload` the ``advise`` arguments describe; without a context or a preset, every conversation
    of the dashboard's default length for a model of ``max_position_embeddings`` (:mod:`planner.core.defaults`)."""
    common: dict[str, Any] = {
        "concurrent_conversations": args.users,
        "pricing": args.pricing,
        "cloud_tier": args.cloud_tier,
        "budget_usd": args.budget,
        "gpu_ids": tuple(args.gpu) if args.gpu else None,
        "shared_prefix_tokens": args.shared_prefix,
        "weights": tuple(args.weights) if args.weights else None,
        "engines": tuple(args.engine) if args.engine else None,
        "vendors": tuple(args.vendor) if args.vendor else None,
        "form_factors": tuple(args.form_factor) if args.form_factor else None,
        "unified_memory_share": args.unified_memory_share,
        "include_restricted": args.include_restricted,
        "include_personal": args.include_personal,
        "usd_per_kwh": args.usd_per_kwh,
        "pue": args.pue,
        "life_years": args.life_years,
        "min_tokens_per_s_per_user": args.min_speed or None,
        "max_time_to_first_token_s": args.max_ttft,
        "plan_at": args.plan_at,
    }
    if args.preset:
        preset = PRESETS[args.preset]
        context = preset.context
        if args.context is not None:
            if args.context < context.p95_tokens:  # a cap below the preset's 95th percentile: not this preset
                raise PlannerError(
                    f"context: --context {args.context:,} caps conversations below the {args.preset} preset's 95th "
                    f"percentile of {context.p95_tokens:,} tokens; drop --preset for one length, or give a cap of at "
                    f"least {context.p95_tokens:,}"
                )
            context = ContextDistribution(
                mean_tokens=context.mean_tokens, p95_tokens=context.p95_tokens, max_tokens=args.context
            )
        return Workload.from_preset(args.preset, context=context, **common)
    return Workload.fixed_length(args.context or default_context_tokens(max_position_embeddings), **common)


def ranking_data(ranking: Ranking) -> dict[str, Any]:
    """What ``advise --json`` prints: the ranking, its verdict and recommendation, the summary and the top picks
    with why each beats the next (the same words the page shows)."""
    data = {"schema_version": SCHEMA_VERSION, **ranking.model_dump(mode="json")}
    cloud, tokens = ranking.workload.pricing == "cloud", ranking.workload.mean_output_tokens
    picks = top_picks(ranking)
    data["recommendation"] = recommendation(ranking)
    data["verdict"] = verdict(ranking)
    data["caveats"] = caveats(ranking)
    data["summary"] = summary_lines(ranking)
    data["top_picks"] = [
        {
            "label": o.label,
            "line": pick_line(i + 1, o, cloud),
            "why": why_beats(o, picks[i + 1], cloud, tokens) if i + 1 < len(picks) else None,
        }
        for i, o in enumerate(picks)
    ]
    data["rejection_counts"] = ranking.rejection_counts()
    return data


def _fmt(value: float | None, spec: str, prefix: str = "") -> str:
    return "?" if value is None else f"{prefix}{value:{spec}}"


def _row(i: int, o: Option, cloud: bool) -> tuple[str, ...]:
    return (
        str(i),
        o.label,
        o.engine,
        f"{o.conversations:,}",
        f"{o.headroom:+.0%}",
        _fmt(o.decode_tokens_per_s_per_user, ",.0f"),
        _fmt(o.prefill_seconds, ".2f"),
        _fmt(o.usd_per_hour if cloud else o.purchase_usd, ",.2f" if cloud else ",.0f", "$"),
        "" if cloud else _fmt(o.tco_usd, ",.0f", "$"),
        _fmt(o.usd_per_conversation, ",.4f" if cloud else ",.2f", "$"),  # a rental: cents an hour and below
        f"{len(o.undermining)} (below)" if o.undermining else "",
    )


def _caveat_lines(options: Sequence[Option]) -> list[str]:
    """Each listed row's caveats (what keeps it from green) and notes, by its number: the table's column counts them."""
    lines = []
    for i, o in enumerate(options, start=1):
        notes = [w for w in o.warnings if w not in o.undermining]
        if o.undermining:
            lines.append(f"#{i} caveats: {'; '.join(o.undermining)}")
        if notes:
            lines.append(f"#{i} notes: {'; '.join(notes)}")
    return lines


def cmd_advise(args: argparse.Namespace) -> int:
    if args.gpus_max < 1:
        raise PlannerError("gpus-max: must be at least 1")
    if args.limit < 1:
        raise PlannerError("limit: must be at least 1")
    if args.unified_memory_share is not None and not 0 < args.unified_memory_share <= 1:
        raise PlannerError("unified-memory-share: a fraction in (0, 1]")
    spec = get_model(args.model).spec
    workload = workload_from_args(args, spec.max_position_embeddings)
    counts = [c for c in (1, 2, 4, 8, 16, 32, 64) if c <= args.gpus_max]
    load_gpus(), load_hosts(), running_costs()  # the catalogs the ranking reads, loaded (and cached) first
    freeze_long_lived()  # python -m planner: one ranking, then the process ends (planner.bounds.collector)
    ranking = rank(spec, workload, counts=counts)
    if args.json:
        print(json.dumps(ranking_data(ranking), indent=2))
        return 0 if ranking.options else 1
    cloud = workload.pricing == "cloud"
    header = (
        "#",
        "set-up",
        "engine",
        "conversations",
        "headroom",
        "tok/s/user",
        "TTFT s",
        "$/hour" if cloud else "purchase",
        "" if cloud else "TCO",
        "$/conv-hour" if cloud else "$/conv",
        "caveats",
    )
    print(f"{spec.display_name}: {ranking.target_note}, {ranking.context_tokens:,} tokens each")
    if ranking.options:
        listed = ranking.options[: args.limit]
        print_table([header, *[_row(i + 1, o, cloud) for i, o in enumerate(listed)]])
        print(f"({len(ranking.options):,} feasible, {len(ranking.rejected):,} rejected: {ranking.rejection_counts()})")
        print("\n".join(_caveat_lines(listed)))
    for warning in ranking.warnings:
        print(f"warning: {warning}")
    if ranking.left_out:  # what --include-restricted / --include-personal (or naming a GPU) would add
        print("offered only when asked for (--include-restricted, --include-personal): " + "; ".join(ranking.left_out))
    print()
    print(f"verdict: {verdict(ranking)}")
    if ranking.best is not None:  # with none, the summary is the recommendation itself: printed once, below
        for line in summary_lines(ranking):
            print(line)
        print()
        picks = pick_lines(ranking)
        if picks:  # each pick with its whole-system price and why each beats the next, as the page and the report
            print("\n".join([PICKS_HEADING, *picks, ""]))
    print(recommendation(ranking))
    return 0 if ranking.options else 1
