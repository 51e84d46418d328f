"""What to tell the buyer: the verdict and its colour, the recommendation paragraph, the top picks with why each
beats the next, the alternatives on other hardware, and the five-line summary a report leads with. Every figure is
the option's own (:class:`~planner.advisor.options.Option`), so the page, the CLI, the CSV and the report agree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from planner.advisor.near import clause, remedy, short_clause
from planner.advisor.options import Option, Ranking
from planner.advisor.order import PRICE_PRECISION_USD, one_price, quote_margin_usd, reply_seconds
from planner.advisor.picks import ALTERNATIVE_COST_RATIO, other_hardware, within_reach
from planner.advisor.speed_words import speed_sentence, speed_text
from planner.advisor.workload import Workload
from planner.assessment.words import plural, seconds

Verdict = Literal["met", "caution", "none"]
# An alternative "on other hardware" is one a buyer weighs against the pick: the same budget, give or take. At
# more than ALTERNATIVE_COST_RATIO times the recommendation's cost it is another budget (a $100k baseboard beside a
# $3k card), so it is not named as an alternative (planner.advisor.picks); the page says how far the nearest is.


def _money(value: float) -> str:
    return f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def caveats(ranking: Ranking) -> list[str]:
    """What keeps the best option's verdict from green, the one a reader acts on first (the "main caveat"): its
    undermining caveats (:attr:`Option.undermining`), which carry a 4-bit fallback (the model's quality) first, then
    a pool that runs out too often at the target, the speed, first token and memory margin, the catalog figures
    they rest on, and no sourced price last (:mod:`planner.advisor.row_caveats`): the verdict states no caveat the
    row does not carry."""
    best = ranking.best
    return [] if best is None else list(best.undermining)


def verdict(ranking: Ranking) -> Verdict:
    """``met`` (green): the best set-up holds the target and clears the speed floor with nothing that undermines
    either (:func:`caveats`); ``caution`` (amber): it does, with a caveat that casts doubt on it; ``none`` (red):
    nothing serves the workload."""
    if ranking.best is None:
        return "none"
    return "caution" if caveats(ranking) else "met"


def alternatives(ranking: Ranking, n: int = 2, others: Sequence[Option] | None = None) -> list[Option]:
    """The best options on another vendor or form factor than the recommendation (and than each other), each
    within :data:`ALTERNATIVE_COST_RATIO` of its cost; ``others``: :func:`other_hardware`'s answer, when the caller
    has it (a scan of every option)."""
    best = ranking.best
    if best is None:
        return []
    return [o for o in (other_hardware(ranking) if others is None else others) if within_reach(o, best)][:n]


def nearest_out_of_reach(ranking: Ranking, others: Sequence[Option] | None = None) -> Option | None:
    """When no alternative is within reach: the cheapest option on other hardware (``None``: there is none);
    ``others`` as for :func:`alternatives`."""
    best = ranking.best
    others = other_hardware(ranking) if others is None else others
    if best is None or alternatives(ranking, others=others):
        return None
    priced = [o for o in others if o.cost is not None]
    return min(priced, key=lambda o: o.cost or 0.0, default=None)


def runner_up(ranking: Ranking) -> Option | None:
    """The best set-up on a different vendor or form factor than the recommendation."""
    found = alternatives(ranking, 1)
    return found[0] if found else None


def cost_text(option: Option, cloud: bool) -> str:
    if option.cost is None:
        return "price unknown"
    if cloud:
        return f"{_money(option.usd_per_hour or 0)} per hour"
    return f"{_money(option.purchase_usd or 0)} to buy, {_money(option.tco_usd or 0)} with power over the life"


def why_beats(a: Option, b: Option, cloud: bool, output_tokens: int = 300) -> str:
    """Why ``a`` ranks above ``b``, in one sentence: the cost difference, then what ``b`` offers instead (speeds
    compared as each option is checked: :attr:`Option.counted_tokens_per_s_per_user`); ``output_tokens``: the reply
    the ranking timed (:func:`planner.advisor.order.reply_seconds`, the workload's mean output)."""
    reasons: list[str] = []
    if a.undermining and not b.undermining:
        reasons.append("cheaper, though with a caveat")
    if a.cost is not None and b.cost is not None:
        diff = b.cost - a.cost
        unit = " per hour" if cloud else " over the life"
        totals = f"{_money(a.cost)} against {_money(b.cost)}{' per hour' if cloud else ' with power'}"
        tie = _one_price(a, b, output_tokens)
        reasons.append(f"{_money(abs(diff))} {'less' if diff >= 0 else 'more'}{unit} ({totals}){tie}")
    if not a.undermining and b.undermining:
        reasons.append(f"{b.gpu_name} carries a caveat: {b.undermining[0]}")
    elif a.undermining and len(b.undermining) > len(a.undermining):
        reasons.append(f"fewer caveats ({b.gpu_name}: {'; '.join(b.undermining)})")
    if a.conversations > b.conversations:
        reasons.append(f"holds {a.conversations:,} against {b.conversations:,}")
    if (a.counted_tokens_per_s_per_user or 0) > (b.counted_tokens_per_s_per_user or 0) * 1.1:
        reasons.append(f"faster ({speed_text(a)} against {speed_text(b)})")
    gains = []
    if b.conversations > a.conversations:
        gains.append(f"holds {b.conversations:,} against {a.conversations:,}")
    if (b.counted_tokens_per_s_per_user or 0) > (a.counted_tokens_per_s_per_user or 0) * 1.1:
        gains.append(f"is faster ({speed_text(b)} against {speed_text(a)})")
    text = f"{a.gpu_count} x {a.gpu_name} over {b.gpu_count} x {b.gpu_name}: " + "; ".join(reasons or ["ranked first"])
    if gains:
        text += f"; the second {' and '.join(gains)}"
    return text + "."


def _one_price(a: Option, b: Option, output_tokens: int) -> str:
    """Why ``a`` goes first though it costs more (empty otherwise): the two purchases are one price within what
    their GPU quotes tell apart (:func:`planner.advisor.order.one_price`), so the sooner reply goes first; where
    ``a``'s reply is not the sooner, the run put it first for its room (:func:`planner.advisor.order.sort_options`:
    replies within the speed model's error, then more headroom). Eight A100s (31.5 s) had gone before four H100s
    (30.8 s) "so the sooner reply goes first" for gemma-2-27b at 200 x 4k (review57b, 2026-12-08)."""
    if not (a.price_basis.startswith("purchase") and b.price_basis.startswith("purchase")):
        return ""
    if (a.cost or 0.0) <= (b.cost or 0.0) + PRICE_PRECISION_USD or not one_price(a, b):
        return ""
    margin = quote_margin_usd(a) + quote_margin_usd(b)
    said = f", one price within the {_money(margin)} their GPU quotes leave open"
    if reply_seconds(a, output_tokens) <= reply_seconds(b, output_tokens):
        return f"{said}, so the sooner reply goes first"
    if a.headroom > b.headroom:
        return f"{said}, and replies the speed model does not tell apart, so the one holding more goes first"
    return f"{said}, and replies the speed model does not tell apart"


def passed_over(ranking: Ranking) -> Option | None:
    """The cheapest set-up that costs less than the recommendation and ranks after it for what weighs on it (no
    compute figure, or more undermining caveats: :func:`planner.advisor.order.sort_options`), the best ranked of
    those at that price (the same cards at another KV dtype or split, say); ``None`` when nothing cheaper is
    passed over."""
    best = ranking.best
    if best is None or best.cost is None:
        return None
    cost = best.cost
    behind = [
        o
        for o in ranking.options
        if o.cost is not None
        and o.cost < cost
        and ((not o.compute_known and best.compute_known) or len(o.undermining) > len(best.undermining))
    ]
    return min(behind, key=lambda o: o.cost or 0.0, default=None)  # the first of equals: options are in rank order


def passed_over_text(ranking: Ranking) -> str:
    """Why the cheapest set-up below the recommendation's price is not recommended (one sentence; empty when none
    is): the chart shows it cheaper, often with more conversations."""
    o = passed_over(ranking)
    if o is None:
        return ""
    cloud = ranking.workload.pricing == "cloud"
    why = list(o.undermining) or ["no compute figure for its GPU, so its speed is unknown"]
    return (
        f"A cheaper set-up, {o.label} ({cost_text(o, cloud)}; {plural(o.conversations, 'conversation')}), is "
        "ranked after it: "
        f"{'; '.join(why)}."
    )


def _passed_over(ranking: Ranking) -> str:
    text = passed_over_text(ranking)
    return f" {text}" if text else ""


def summary_lines(ranking: Ranking) -> list[str]:
    """Five lines for a VP: what to buy, the total price, users held, tokens/s per user, the main caveat."""
    best = ranking.best
    if best is None:
        return [recommendation(ranking)]
    cloud = ranking.workload.pricing == "cloud"
    found = caveats(ranking)
    note = best.quality_caveat or (best.warnings[0] if best.warnings else None)
    # a note is not a caveat (the table's caveats column counts only what undermines the verdict), but a purchase
    # price resting on assumed figures is what a reader forwarding it needs first (an outside review, 2026-12-06)
    assumed = best.assumed_costs if not cloud and best.cost is not None else ()
    if found:
        caveat = found[0]
    elif assumed:
        caveat = f"the price rests on assumed figures ({', '.join(assumed)}); nothing undermines the verdict"
    else:
        caveat = "none" + (f" (first note: {note})" if note else "")
    hourly = best.cost or 0.0  # a rental's cost is its dollars an hour
    monthly = f"{_money(hourly)} per hour ({_money(hourly * 730)} a month)"
    price = "unknown (no sourced price)" if best.cost is None else monthly if cloud else cost_text(best, cloud)
    return [
        f"What to {'rent' if cloud else 'buy'}: "
        + (f"{best.gpu_count} x {best.gpu_name} ({best.split_text})" if cloud else best.purchase_unit)
        + f", served with {best.engine_label}{ranks_words(best)} ({best.weights} weights, {best.kv_words} KV cache"
        f"{best.launch_text}).",
        f"Total price: {price}.",
        f"Users held: {plural(best.conversations, 'conversation')} of {best.context_tokens:,} tokens at once (target "
        f"{ranking.target_concurrency:,}).",
        f"Speed: {speed_text(best)} at the target's {plural(ranking.target_concurrency, 'conversation')} at once"
        + (f", first token after about {seconds(best.prefill_seconds)}" if best.prefill_seconds is not None else "")
        + ".",
        f"Main caveat: {caveat}.",
    ]


def _sized_words(workload: Workload) -> str:
    """What each conversation is sized at: its one length, or the length the workload plans at."""
    if workload.context.one_length:
        return f"every conversation {workload.context_tokens:,} tokens"
    return f"each conversation sized at its {workload.plan_at} length"


def assumptions_line(ranking: Ranking, option: Option) -> str:
    """The assumptions behind an option's figures, in one line: engine, batch, bandwidth share, memory."""
    return (
        f"Assumes: {option.engine_label} {option.engine_version or ''} with {option.compute_path} matmuls "
        f"({option.split_text}); {plural(option.batch_per_replica, 'conversation')} decoding together per "
        f"{option.replica_word}; "
        f"{option.bandwidth_efficiency:.0%} of the memory bandwidth reached; "
        f"{option.memory_bytes_per_gpu / 2**30:,.1f} GiB planned per GPU; {_sized_words(ranking.workload)}."
    ).replace("  ", " ")


def ranks_words(option: Option) -> str:
    """How an option of data-parallel ranks sharing the experts runs, for a sentence that names the purchase unit
    and not the split (empty otherwise)."""
    if not option.experts_shared:
        return ""
    return f" as {option.replicas} data-parallel ranks of TP {option.tensor_parallel} sharing the experts"


def headline(ranking: Ranking) -> str:
    """The verdict in one sentence a phone shows without scrolling: what to buy (or rent) and run, what it holds
    against the target, how fast for each user, what it costs; :func:`recommendation` has the details.

    With nothing that serves the target, the first sentence of :func:`recommendation`."""
    best = ranking.best
    if best is None and ranking.near_misses:
        first, *others = ranking.near_misses
        target, context, w = ranking.target_concurrency, ranking.context_tokens, ranking.workload
        # each other condition by name ("199 more fail other conditions" hid which)
        more = "".join(f"; {m.count:,} more {short_clause(m)}" for m in others)
        return (
            f"No set-up meets every condition: {first.count:,} hold {plural(target, 'conversation')} of "
            f"{context:,} tokens "
            f"but {clause(first, w)}{more}."
        )
    if best is None:
        return recommendation(ranking).split(". ")[0] + "."
    cloud = ranking.workload.pricing == "cloud"
    # the label already names the formats and the launch setting (Option.label); a purchase unit names neither
    what = (
        f"Rent {best.label} on {best.engine_label}"
        if cloud
        else f"Buy {best.purchase_unit}, {best.weights} weights and {best.kv_words} KV cache on {best.engine_label}"
        f"{ranks_words(best)}{best.launch_text}"
    )
    price = (
        f"{_money(best.usd_per_hour or 0)} per hour"
        if cloud
        else f"{_money(best.purchase_usd or 0)} ({_money(best.tco_usd or 0)} with power over the life)"
    )
    price = price if best.cost is not None else "price unknown"
    caveat = f"; caveat: {best.undermining[0]}" if best.undermining else ""
    return (
        f"{what}: "
        f"{plural(best.conversations, 'conversation')} against "
        f"{ranking.target_concurrency:,}, {speed_text(best)}, {price}{caveat}."
    )


def alternative_text(option: Option, cloud: bool) -> str:
    """An alternative in a clause: set-up, engine, cost, speed, and what ranks it lower (its undermining caveats)."""
    text = f"{option.label} with {option.engine_label} at {cost_text(option, cloud)}, {speed_text(option)}"
    return text + (f" (ranked lower: {'; '.join(option.undermining)})" if option.undermining else "")


def out_of_reach_text(ranking: Ranking, others: Sequence[Option] | None = None) -> str:
    """How far the nearest option on other hardware is, when none is within reach ("": some is, or none exists);
    ``others`` as for :func:`alternatives`."""
    best, near = ranking.best, nearest_out_of_reach(ranking, others)
    if best is None or near is None or near.cost is None or not best.cost:
        return ""
    cloud = ranking.workload.pricing == "cloud"
    ratio = near.cost / best.cost
    times = f"{ratio:.1f}" if ratio < 10 else f"{ratio:,.0f}"
    measure = "hourly rent" if cloud else "cost of ownership"
    return (
        f"No other vendor or form factor within {ALTERNATIVE_COST_RATIO:g} x its {measure}; the nearest, "
        f"{near.label} with {near.engine_label}, costs {times} x as much ({cost_text(near, cloud)})."
    )


def _alternatives_text(ranking: Ranking, cloud: bool) -> str:
    """The sentence on other hardware: the alternatives within reach, or how far the nearest is."""
    others = other_hardware(ranking)  # one scan for both sentences
    alts = alternatives(ranking, others=others)
    if alts:
        return f" On other hardware: {'; '.join(alternative_text(o, cloud) for o in alts)}."
    far = out_of_reach_text(ranking, others)
    return f" {far}" if far else ""


# What lets set-ups through, by the reason most of them were left out (the rejection's own words say which part).
REMEDIES: dict[str, str] = {
    "not-for-sale": "rent it (pricing cloud) or choose a GPU that is sold new",
    "illegal-split": "choose GPUs that split a model between them (one Mac, DGX Spark or Strix Halo box is a "
    "replica of its own: a model larger than one needs another GPU)",
    "does-not-fit": "allow more GPUs, a lower weight precision or an FP8 KV cache",
    "below-target": "allow more GPUs, a shorter context, or split the users over several deployments",
    "no-engine": "choose a weight precision and KV dtype an engine runs on these GPUs",
    "engine-unsuited": "name the engine if it is wanted for this many users",
    "no-host": "allow fewer GPUs a replica, choose a card no wider than two slots, ask for workstations and open "
    "frames (--include-personal; the page's desktops and workstations), or rent them",
    "idle-replicas": "serve more users, or allow fewer GPUs",
}
GENERAL_REMEDY = (
    "Allow more GPUs, a lower weight precision or an FP8 KV cache, a shorter context, a larger budget, or split the "
    "users over several deployments."
)


def _none_example(ranking: Ranking, common: str) -> str:
    """The rejection a verdict with nothing left names: a set-up that runs but holds fewer than the target (the
    closest, with its label), else the first of the most common reason (issue 21, review 2026-12-07: two RTX 3090s
    holding 2 of 3 conversations were passed over for an FP8-cache variant no engine runs on Ampere)."""
    from model_catalog import get_gpu  # the catalog imports the planner: import late

    close = [r for r in ranking.rejected if r.reason == "below-target"]
    if close:
        r = max(close, key=lambda r: int(r.detail.split()[1].replace(",", "")))  # "holds N ..." (misfits.short_of)
        name = get_gpu(r.gpu_id).name
        replicas = r.gpu_count // r.tensor_parallel  # llama.cpp's layer split is its engine's, not named here
        split = f" (TP {r.tensor_parallel} x {replicas} replicas)" if replicas > 1 else ""
        setup = f"{r.gpu_count} x {name}{split}, {r.weights} weights, {r.kv_dtype} KV"
        return f" The closest: {setup}: {r.detail}."
    first = next(r for r in ranking.rejected if r.reason == common)
    return f" The first {common.replace('-', ' ')}: {first.detail}."


def _remedy(ranking: Ranking, reason: str) -> str:
    """:data:`REMEDIES`' words for ``reason``, without the FP8 KV cache where every set-up with one was left out
    for want of an engine that runs it (llama.cpp has none; Ampere's engines run none with GGUF weights)."""
    fp8 = [r for r in ranking.rejected if r.kv_dtype.startswith("fp8")]
    if fp8 and all(r.reason == "no-engine" for r in fp8):
        return REMEDIES[reason].replace(" or an FP8 KV cache", "")
    return REMEDIES[reason]


def recommendation(ranking: Ranking) -> str:
    """One paragraph a manager can read: what to buy, the engine, what it holds, how fast, what it costs, the
    alternatives on other hardware, every caveat, and the assumptions."""
    w = ranking.workload
    target, context = ranking.target_concurrency, ranking.context_tokens
    best = ranking.best
    if best is None and ranking.near_misses:
        held = f"hold {plural(target, 'conversation')} of {context:,} tokens"
        misses = enumerate(ranking.near_misses)
        left = "; ".join(f"{m.count:,} {held if i == 0 else 'hold them'} but {clause(m, w)}" for i, m in misses)
        fixes = "; ".join(remedy(m, w) for m in ranking.near_misses)
        return f"No set-up meets every condition: {left}. Closest: {fixes}."
    if best is None:
        counts = Counter(ranking.rejection_counts()).most_common(3)
        common = ", ".join(f"{n:,} {reason.replace('-', ' ')}" for reason, n in counts)
        if ranking.beyond_reach:  # the binding fact, not the first rejection (planner.advisor.reach)
            return (
                f"No set-up in the catalog serves {plural(target, 'conversation')} of {context:,} tokens with "
                f"{ranking.model_id}: {ranking.beyond_reach}. The set-ups ranked: {common}."
            )
        example = _none_example(ranking, counts[0][0]) if counts else ""
        fixes = "; or ".join(dict.fromkeys(_remedy(ranking, reason) for reason, _ in counts if reason in REMEDIES))
        return (
            f"No set-up in the catalog serves {plural(target, 'conversation')} of {context:,} tokens with "
            f"{ranking.model_id} under these conditions ({common}).{example} "
            + (f"{fixes[0].upper()}{fixes[1:]}." if fixes else GENERAL_REMEDY)
        )
    cloud = w.pricing == "cloud"
    verb = "Rent" if cloud else "Buy"
    what = best.label if cloud else f"{best.purchase_unit} and run {best.label}"
    alternative = _alternatives_text(ranking, cloud)
    found = caveats(ranking)
    caveat_text = f" Caveats: {'; '.join(found)}." if found else ""
    notes = [x for x in best.warnings if x not in best.undermining]
    note_text = f" Notes: {'; '.join(notes)}." if notes else ""
    quality = f" Quality: {best.quality_caveat}." if best.quality_caveat else ""
    return (
        f"{verb} {what}, served with {best.engine_label}. It holds {plural(best.conversations, 'conversation')} of "
        f"{context:,} tokens at once against a target of {target:,} ({best.headroom:+.0%} headroom)."
        f"{speed_sentence(best, w)} "
        + (f"It costs {cost_text(best, cloud)}" if best.cost is not None else "Its price is unknown (none sourced)")
        + (
            f", about {_money(best.usd_per_million_output_tokens)} per million output tokens if it serves that load "
            "around the clock (idle hours raise it)"
            if best.usd_per_million_output_tokens
            else ""
        )
        + f".{alternative}{_passed_over(ranking)}{caveat_text}{note_text}{quality} {assumptions_line(ranking, best)}"
    )
