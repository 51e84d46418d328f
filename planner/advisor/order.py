"""The order the advisor ranks its options in (:func:`sort_options`): what counts compute first, then what has a
price, then what no caveat undermines, then the cheapest, with ties broken by what the reader sees."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from planner.advisor.options import Option, SortKey

PRICE_PRECISION_USD = 100  # catalog prices are approximate to hundreds of dollars (HF's MSRPs, street prices)
# The coarsest unit a GPU quote is read to: HF's hardware pages, the source of the data-centre prices, give them in
# thousands ("MSRP $32k" for the H200, "$15k" for the A100: huggingface.js@fe42e68017ff packages/tasks/src/hardware*.ts,
# model_catalog/gpus/*.toml [price]); a quote of $40,000 is not read as known to the $10,000.
QUOTE_UNIT_USD = 1000
# Among purchases one price apart, a reply within this share of the soonest is no sooner: the speed model's median
# |error| over its held-out rows (planner.advisor.validation.held_out_median_error, 10.65 % over 109 rows with the fit
# of 2026-12-07; tests/advisor/test_rank.py checks it is that figure, as test_benchmarks checks FITTED is the fit's, so
# no process scores the rows to rank), since two modelled replies closer than the error either carries are not told
# apart by the model. Whole seconds alone had put llama.cpp's 59.9 s reply (two slots, the first token after 4.3 s)
# above vLLM's 61.0 s (eleven conversations, 2.2 s) on the same card; a hand-set 5 % (a7d5643, "well inside" the
# then 11 % error) then missed the same pair at 59.9 against 64.7 s (8 %) once TensorRT-LLM's HBM share was its own
# and the shared constants were refitted.
REPLY_TOLERANCE = 0.1065


def _sort_value(option: Option, sort_by: SortKey) -> float | None:
    if sort_by == "cost":
        return option.cost
    if sort_by == "cost_per_conversation":
        return option.usd_per_conversation
    return option.usd_per_million_output_tokens


def reply_seconds(option: Option, output_tokens: int) -> float:
    """How long a user waits for a reply of ``output_tokens`` tokens, from the figures as modelled (unrounded): the
    first token, then the rest at the tokens/s per user (``inf`` without a speed). The figures as shown (tenths of a
    second, whole tokens/s) had been read here: at 1,000 tokens, 18.75 tokens/s shown as 19 is 1.3 s sooner and
    16.42 shown as 16 2.6 s later, enough to carry Llama 3.1 70B's llama.cpp q8_0 pick past vLLM's FP8 on the same
    card across :data:`REPLY_TOLERANCE` (tests/advisor/test_rank.py). What the model cannot tell apart is
    :func:`sort_options`' whole seconds and tolerance, not the rounding of its inputs.

    >>> from types import SimpleNamespace as O
    >>> reply_seconds(O(prefill_seconds=26.15, decode_tokens_per_s_per_user=17.0), 300)  # doctest: +ELLIPSIS
    43.79...
    >>> reply_seconds(O(prefill_seconds=10.21, decode_tokens_per_s_per_user=16.0), 300)
    28.96
    """
    speed, first = option.decode_tokens_per_s_per_user, option.prefill_seconds
    if speed is None or speed <= 0 or first is None:
        return math.inf
    return first + output_tokens / speed


def quote_margin_usd(option: Option) -> float:
    """How far an option's GPU price can lie from the catalog's quote: half the unit the card's quote is given to
    (a whole number of thousands, as HF's "$32k": to the $1,000, :data:`QUOTE_UNIT_USD`; $8,600 to the $100; $4,899
    to the dollar), times its GPUs; 0 without a GPU price. Eight A100s at "$15k" are known to +-$4,000.

    >>> from types import SimpleNamespace as O
    >>> quote_margin_usd(O(gpus_usd=128_000.0, gpu_count=4))
    2000.0
    """
    if not option.gpus_usd or option.gpu_count < 1:
        return 0.0
    card, unit = round(option.gpus_usd / option.gpu_count), 1
    while unit < QUOTE_UNIT_USD and card % (unit * 10) == 0:
        unit *= 10
    return unit / 2 * option.gpu_count


def one_price(a: Option, b: Option) -> bool:
    """Whether two purchases' costs are one price: within :data:`PRICE_PRECISION_USD`, or within what their GPU
    quotes tell apart (:func:`quote_margin_usd`, both margins: each quote may lie either way). Eight A100s
    ($185,504 over the life, +-$4,000) and four H200s ($188,093, +-$2,000) are one price (an outside review,
    2026-12-08: the A100s had ranked first for $2,589 less although the H200s ran 19 % faster)."""
    gap = abs((a.cost or 0.0) - (b.cost or 0.0))
    return gap <= max(PRICE_PRECISION_USD, quote_margin_usd(a) + quote_margin_usd(b))


def sort_options(
    options: list[Option], sort_by: SortKey, output_tokens: int = 300, native: str | None = None
) -> list[Option]:
    """Options whose speed counts compute first (a GPU without a compute figure is ranked last), then priced ones (a
    buyer is not told to buy what has no price while a priced set-up serves the target: two unpriced H100 NVLs had
    been the pick over a $27,200 pair of RTX PRO 6000s, an outside review), then those no caveat undermines, then
    those with fewer undermining caveats, then cheapest by ``sort_by`` (a
    purchase's cost to the nearest :data:`PRICE_PRECISION_USD`: two $5,000 Macs $32 of power apart cost the same;
    purchases within what their GPU quotes tell apart, :func:`one_price`, are one price too;
    an unpriced option by its GPU count, fewest first: eight unpriced H100s had outranked one for 8 users);
    ties: the reply a user waits for sooner (:func:`reply_seconds`: the first token, then ``output_tokens`` at the
    speed per user, as modelled, in whole seconds: 17 tokens/s after a 26 s first token had outranked 16 after 10 s, an
    expert review; 15.26 s against 15.29 is no difference; among purchases one price apart, a reply within
    :data:`REPLY_TOLERANCE` of the soonest is no difference either), more headroom, fewer GPUs, the sooner reply as
    modelled, the label; last, set-ups that differ only in their weight format go in the defaults' order where the
    model cannot tell them apart (:func:`formats_in_default_order`, ``native`` the model's own precision)."""

    groups = {id(o): _group(o, sort_by) for o in options}  # each option's keys made once (a label is a property)
    ties = {id(o): _tie(o, output_tokens) for o in options}

    def group(o: Option) -> tuple[bool, bool, bool, int]:
        return groups[id(o)]

    def tie(o: Option) -> tuple[float, float, int, float, str]:
        return ties[id(o)]

    def value(o: Option) -> float:  # an unpriced option by its GPU count: the fewest first, as a price would
        found = _sort_value(o, sort_by)
        return float(o.gpu_count) if found is None else found

    ordered = sorted(options, key=lambda o: (*group(o), value(o), *tie(o)))
    if sort_by == "cost":
        ordered = _ties_by_speed(ordered, group, partial(_run_tie, tie=tie, output_tokens=output_tokens))
    return formats_in_default_order(ordered, native, output_tokens)


def format_rank(option: Option, native: str | None) -> int:
    """Where a weight format goes among set-ups the model cannot tell apart: the model's own precision, then FP8
    where it runs on FP8 tensor cores (``compute_path`` "fp8": Ada, Hopper, Blackwell, CDNA 3), then INT8, then FP8
    run weight-only (a card without FP8 matmuls, where INT8's W8A8 is the native 8-bit path), then the rest: the
    order :func:`planner.advisor.suitability.default_weights` tries them (native, fp8, int8, q8_0), with FP8 after
    INT8 where the card has no FP8 tensor cores. Vendors publish FP8 checkpoints for those cards
    (nvidia/Llama-3.1-70B-Instruct-FP8, amd/Llama-3.1-70B-Instruct-FP8-KV), not INT8 ones."""
    if option.weights == native:
        return 0
    if option.weights == "fp8":
        return 1 if option.compute_path == "fp8" else 3
    return 2 if option.weights == "int8" else 4


def _same_but_weights(o: Option) -> tuple[object, ...]:
    """What two set-ups share when they differ only in their weight format (and hold the same conversations)."""
    return (o.gpu_id, o.gpu_count, o.split, o.kv_dtype, o.engine, o.engine_version, o.purchase_unit, o.hosts,
            o.conversations, o.cost, len(o.undermining), o.compute_known)  # fmt: skip


def formats_in_default_order(ordered: list[Option], native: str | None, output_tokens: int) -> list[Option]:
    """``ordered`` with each set of set-ups that differ only in their weight format, hold the same conversations and
    reply (:func:`reply_seconds`) within :data:`REPLY_TOLERANCE` of the set's soonest (the speed model's held-out
    median |error|: docs/advisor.md's validation, 10.7 % over 109 rows) re-ordered in the places they hold by
    :func:`format_rank`: INT8 had gone before FP8 on H200 by a 0.005 % modelled reply (Llama-3.1-70B, 50 x 32k, an
    outside review), a difference the model does not resolve. Out of the tolerance, the sooner reply keeps its place."""
    sets: dict[tuple[object, ...], list[int]] = {}
    for at, o in enumerate(ordered):
        sets.setdefault(_same_but_weights(o), []).append(at)
    out = list(ordered)
    for places in sets.values():
        replies = {at: reply_seconds(ordered[at], output_tokens) for at in places}
        soonest = min(replies.values())
        if len(places) < 2 or not math.isfinite(soonest):
            continue
        near = [at for at in places if replies[at] <= soonest * (1 + REPLY_TOLERANCE)]
        moved = sorted(near, key=lambda at: (format_rank(ordered[at], native), at))
        for place, at in zip(near, moved, strict=True):
            out[place] = ordered[at]
    return out


def _group(o: Option, sort_by: SortKey) -> tuple[bool, bool, bool, int]:
    """An option's group in :func:`sort_options`: compute counted, priced, not undermined, fewest caveats."""
    return (not o.compute_known, _sort_value(o, sort_by) is None, bool(o.undermining), len(o.undermining))


def _tie(o: Option, output_tokens: int) -> tuple[float, float, int, float, str]:
    """An option's tie-break in :func:`sort_options`: the sooner reply in whole seconds, more headroom, fewer GPUs,
    then the sooner reply as modelled, then the label. A reply no sooner by the whole second or by
    :data:`REPLY_TOLERANCE` does not outrank room or fewer GPUs, but where those tie too it is still the model's best
    guess, which the alphabet is not: with the tolerance at the held-out error, an RTX 3090's Llama-3.1-8B in FP8
    (first token 1.92 s, 1,000 tokens in 16.4 s) had gone before the same card's INT8 (0.77 s, 15.1 s, the same 20
    conversations) by its label."""
    reply = reply_seconds(o, output_tokens)
    return (round(reply) if math.isfinite(reply) else math.inf, -o.headroom, o.gpu_count, reply, o.label)


def _run_tie(run: list[Option], tie: Callable[[Option], tuple[object, ...]], output_tokens: int) -> list[Option]:
    """``run`` (purchases one price apart) by ``tie``, a reply in the same whole second as the run's soonest or within
    :data:`REPLY_TOLERANCE` of it counted as that soonest (then more headroom first). The tolerance is anchored to the
    run's soonest reply, so a set-up filtered out of the run can reorder the ones left, as a new soonest would."""
    replies = [reply_seconds(o, output_tokens) for o in run]
    soonest = min(replies, default=math.inf)
    if not math.isfinite(soonest):
        return sorted(run, key=tie)
    anchor = round(soonest)

    def key(pair: tuple[float, Option]) -> tuple[object, ...]:
        reply, o = pair
        if not math.isfinite(reply):  # no speed shown: after every reply, as tie() puts it
            return (math.inf, *tie(o)[1:])
        near = reply <= soonest * (1 + REPLY_TOLERANCE) or round(reply) <= anchor
        return (anchor if near else round(reply), *tie(o)[1:])

    return [o for _, o in sorted(zip(replies, run, strict=True), key=key)]


def _ties_by_speed(
    ordered: list[Option],
    group: Callable[[Option], tuple[object, ...]],
    order_run: Callable[[list[Option]], list[Option]],
) -> list[Option]:
    """Runs of purchases in one caveat group at one price with the run's cheapest (:func:`one_price`: within
    :data:`PRICE_PRECISION_USD` or the GPU quotes' margins), re-ordered by ``order_run`` (the sooner reply first,
    :func:`_run_tie`): two $5,000 Macs $33 of power apart cost the same, wherever the hundreds fall."""
    out: list[Option] = []
    run: list[Option] = []
    for o in ordered:
        priced = o.cost is not None and o.price_basis.startswith("purchase")
        if run and priced and group(o) == group(run[0]) and one_price(o, run[0]):
            run.append(o)
            continue
        out += order_run(run)
        run = [o] if priced else []
        if not priced:
            out.append(o)
    return out + order_run(run)
