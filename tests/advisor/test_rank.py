"""rank(): agreement with plan(), invariants (hypothesis), costs, Pareto fronts, the recommendation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model, load_gpus
from planner.advisor import (
    PRESETS,
    ContextDistribution,
    Option,
    Workload,
    overflow_for,
    pareto_front,
    rank,
    recommendation,
)
from planner.advisor.order import one_price
from planner.advisor.suitability import FOUR_BIT
from planner.assessment.assess import Assessment, assess
from planner.bounds.errors import PlannerError
from planner.core.overhead import Estimate
from planner.engines.registry import engine_names, engine_profile
from planner.planning.plan import PlanRequest, plan

LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec
LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec
SMALL_GPUS = [get_gpu(g) for g in ("rtx-4090", "l40s", "h100-sxm-80gb", "a100-sxm-80gb", "a10g")]
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def workload(users: int = 50, context: int = 4_096, **fields: object) -> Workload:
    dist = ContextDistribution(mean_tokens=context, p95_tokens=context, max_tokens=context)
    return Workload.model_validate({"concurrent_conversations": users, "context": dist, **fields})


def keys(options: tuple[Option, ...]) -> set[tuple[str, int, int, str, str]]:
    return {(o.gpu_id, o.gpu_count, o.tensor_parallel, o.weights, o.kv_dtype) for o in options}


def assessed(model_id: str, option: Option, users: int) -> Assessment:
    """The Memory page's answer for the option: its engine's profile at the defaults (a memory fraction the advice
    lowered because the default does not start it, as its link carries), one replica."""
    gpu = get_gpu(option.gpu_id)
    engine = option.engine if option.engine in engine_names() else "vllm"
    request = PlanRequest(
        model=get_model(model_id).spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=option.gpu_count,
        tensor_parallel=option.tensor_parallel,
        weights=option.weights,  # type: ignore[arg-type]
        kv_dtype=option.kv_dtype,  # type: ignore[arg-type]
        context_tokens=option.context_tokens,
        max_model_len=option.context_tokens,
        overhead=engine_profile(
            engine,
            version=option.engine_version,
            fraction=option.engine_fraction if option.engine_fraction_lowered else None,  # the advice's lowered one
        ),
    )
    return assess(request, users)


@pytest.mark.parametrize("model_id", ["meta-llama/Llama-3.1-8B", "google/gemma-3-27b-it", "Qwen/Qwen3-30B-A3B"])
def test_every_option_is_what_assess_gives(model_id: str) -> None:
    """Every option's count and pool are assess() of the same set-up under its engine's own profile: the figures
    the Memory page shows when the row's link opens it."""
    model = get_model(model_id).spec
    w = workload(users=3, context=8_192, min_tokens_per_s_per_user=None)
    ranking = rank(model, w, gpus=list(load_gpus().values()), counts=(1, 2, 4))
    checked = 0
    for option in ranking.options[::9]:
        a = assessed(model_id, option, 3)
        assert a.conversations == option.conversations, option.label
        assert a.kv_budget_tokens == option.kv_budget_tokens, option.label
        assert a.result.per_gpu.weights_bytes == option.weights_bytes_per_gpu
        checked += 1
    assert checked > 10


def test_a_fixed_overhead_model_plans_as_plan_does() -> None:
    """With one overhead model for every set-up the counts are plan()'s."""
    w = workload(users=1, context=8_192, min_tokens_per_s_per_user=None)
    ranking = rank(LLAMA_8B, w, gpus=SMALL_GPUS, counts=(1, 2), overhead=Estimate())
    for option in ranking.options[::5]:
        result = plan(
            PlanRequest(
                model=LLAMA_8B,
                gpu_memory_bytes=get_gpu(option.gpu_id).usable_memory_bytes(),
                gpu_count=option.gpu_count,
                tensor_parallel=option.tensor_parallel,
                weights=option.weights,  # type: ignore[arg-type]
                kv_dtype=option.kv_dtype,  # type: ignore[arg-type]
                context_tokens=8_192,
                overhead=Estimate(),
            )
        )
        assert result.capacity.sequences == pytest.approx(option.concurrency)
        assert result.kv_budget_tokens == option.kv_budget_tokens


@FAST
@given(
    users=st.integers(1, 400),
    context=st.sampled_from([512, 2_048, 8_192, 32_768]),
    extra=st.sampled_from([2, 4, 8]),
)
def test_adding_a_gpu_count_never_removes_an_option(users: int, context: int, extra: int) -> None:
    """With the formats named (the 4-bit fallback is offered only when nothing else fits, so a second GPU that lets
    8-bit fit rightly withdraws it), a larger count only adds options."""
    w = workload(users, context)
    formats = ["bf16", "fp8", "int8", "int4-awq", "nvfp4"]
    base = rank(LLAMA_8B, w, gpus=SMALL_GPUS, counts=(1,), weights=formats)
    more = rank(LLAMA_8B, w, gpus=SMALL_GPUS, counts=(1, extra), weights=formats)
    assert keys(base.options) <= keys(more.options)


@FAST
@given(
    users=st.integers(1, 300),
    budget=st.floats(1_000, 200_000),
    factor=st.floats(1.0, 10.0),
    pricing=st.sampled_from(["purchase", "cloud"]),
)
@example(users=245, budget=30_608.0, factor=1.0, pricing="purchase")  # the 4-bit fallback under the budget only
def test_a_larger_budget_never_shrinks_the_feasible_set(users: int, budget: float, factor: float, pricing: str) -> None:
    """A larger budget keeps every option a smaller one offers, except the 4-bit fallback: offered only when
    nothing at 8 bits or more serves (within the budget too), it gives way to the 8-bit options a larger budget
    admits (users 245 at $30,608: 4-bit L40S set-ups under the budget, 8-bit ones without it)."""
    small = rank(LLAMA_8B, workload(users, 4_096, budget_usd=budget, pricing=pricing), gpus=SMALL_GPUS)
    large = rank(LLAMA_8B, workload(users, 4_096, budget_usd=budget * factor, pricing=pricing), gpus=SMALL_GPUS)
    unlimited = rank(LLAMA_8B, workload(users, 4_096, pricing=pricing), gpus=SMALL_GPUS)
    for a, b in ((small, large), (large, unlimited)):
        if a.four_bit_fallback and not b.four_bit_fallback:
            assert b.options and not any(o.weights in FOUR_BIT for o in b.options)
        else:
            assert keys(a.options) <= keys(b.options)


@FAST
@given(short=st.integers(256, 60_000), longer=st.integers(0, 60_000))
def test_a_longer_context_never_raises_concurrency(short: int, longer: int) -> None:
    """Under one engine a set-up holds no more at a longer context. A set-up its first engine no longer serves at
    the longer one may be served by the next (:meth:`planner.advisor.evaluate.Evaluator.finish`: llama.cpp holds
    one 52,737-token conversation of Llama 3.1 8B in BF16 on an RTX 4090 where vLLM's pool at its defaults holds
    none), and says so."""

    def capacity(context: int) -> dict[tuple[str, int, int, str, str], Option]:
        ranking = rank(LLAMA_8B, workload(1, context, min_tokens_per_s_per_user=None), gpus=SMALL_GPUS, counts=(1, 2))
        return dict(zip(keys_list(ranking.options), ranking.options, strict=True))

    a, b = capacity(short), capacity(short + longer)
    for k, option in b.items():
        before = a.get(k)
        if before is not None and before.engine == option.engine:
            assert option.concurrency <= before.concurrency
        else:  # served by an engine after the one that served it at the shorter context, or newly
            assert any("does not serve it as planned" in w for w in option.warnings), k


def keys_list(options: tuple[Option, ...]) -> list[tuple[str, int, int, str, str]]:
    return [(o.gpu_id, o.gpu_count, o.tensor_parallel, o.weights, o.kv_dtype) for o in options]


def test_options_meet_the_target_and_are_sorted() -> None:
    ranking = rank(LLAMA_70B, workload(40, 8_192))
    assert ranking.options
    known = [o for o in ranking.options if o.compute_known]
    # priced set-ups first (2026-12-06), then those no caveat undermines, fewer caveats first, each group cheapest
    for caveats in {len(o.undermining) for o in known}:
        priced = [o for o in known if len(o.undermining) == caveats and o.cost is not None]
        # cheapest first; purchases one price within what their GPU quotes leave open (order.one_price) go by the
        # sooner reply (2026-12-08: 8 x RTX 5090 TP 4 x 2 at $107,066 +-$4 before slower Max-Q set-ups at
        # $106,918 +-$400; before, ``costs == sorted(costs)``)
        assert all(
            (a.cost or 0.0) <= (b.cost or 0.0) or one_price(a, b) for at, a in enumerate(priced) for b in priced[at:]
        )
    order = [(o.cost is None, bool(o.undermining), len(o.undermining)) for o in known]
    assert order == sorted(order)
    for o in ranking.options:
        assert o.conversations >= 40
        assert o.decode_tokens_per_s_per_user is None or o.decode_tokens_per_s_per_user >= 10
        assert set(o.assumptions) >= {"memory", "decode", "prefill", "cost"}
        assert o.engine != "llamacpp" and o.vendor != "Apple"  # 40 users: neither offered unless asked


def test_every_reason_appears() -> None:
    w = workload(200, 8_192, budget_usd=20_000, max_time_to_first_token_s=1.0)
    ranking = rank(LLAMA_70B, w)
    assert set(ranking.rejection_counts()) >= {
        "not-for-sale",
        "no-engine",
        "engine-unsuited",
        "does-not-fit",
        "below-target",
        "over-budget",
    }
    fallback = rank(LLAMA_70B, workload(1, 8_192), gpus=[get_gpu("rtx-4090")], counts=(2,))
    assert fallback.four_bit_fallback and all(o.weights in ("int4-awq", "q4_k_m", "nvfp4") for o in fallback.options)
    assert any("4-bit" in w for w in fallback.warnings)


def test_unknown_prices_are_kept_without_a_budget_and_rejected_with_one() -> None:
    mi325x = [get_gpu("mi325x")]  # no price in the catalog: rent-only
    kept = rank(LLAMA_8B, workload(4, 2_048), gpus=mi325x, counts=(8,))
    assert kept.options and all(o.cost is None and o.usd_per_conversation is None for o in kept.options)
    assert all(
        o.undermining[-1].startswith("price unknown: no sourced price")
        and o.purchase_unit.endswith(", at no sourced price")
        for o in kept.options
    )
    refused = rank(LLAMA_8B, workload(4, 2_048, budget_usd=1e9), gpus=mi325x, counts=(8,))
    assert not refused.options and refused.rejection_counts().get("unknown-price")


def test_cloud_uses_the_cheapest_dated_on_demand_price() -> None:
    h100 = get_gpu("h100-sxm-80gb")
    ranking = rank(LLAMA_8B, workload(10, 4_096, pricing="cloud"), gpus=[h100], counts=(1,))
    option = ranking.options[0]
    offers = [c for c in h100.cloud_prices if c.tier == "on-demand" and not c.usd_per_gpu_hour_high]  # no range
    cheapest = min(offers, key=lambda c: c.usd_per_gpu_hour)
    assert option.usd_per_hour == cheapest.usd_per_gpu_hour
    assert cheapest.provider in option.price_basis and cheapest.date in option.price_basis
    assert option.usd_per_million_output_tokens is not None


def test_pareto_fronts_are_non_dominated() -> None:
    ranking = rank(LLAMA_8B, workload(100, 4_096))
    for front, figure in (
        (ranking.pareto_cost_capacity, lambda o: o.conversations),
        (ranking.pareto_cost_throughput, lambda o: o.decode_tokens_per_s_total),
    ):
        assert front
        for p in front:
            for o in ranking.options:
                if o.cost is None or figure(o) is None:
                    continue
                # nothing is both cheaper-or-equal and better, with one of the two strictly
                assert not (o.cost <= p.cost and figure(o) > figure(p))
                assert not (o.cost < p.cost and figure(o) >= figure(p))
    assert pareto_front([], "capacity") == ()


def test_pareto_front_is_pure() -> None:
    ranking = rank(LLAMA_8B, workload(100, 4_096), gpus=SMALL_GPUS)
    reversed_front = pareto_front(tuple(reversed(ranking.options)), "capacity")
    assert [(o.cost, o.conversations) for o in reversed_front] == [
        (o.cost, o.conversations) for o in ranking.pareto_cost_capacity
    ]


def test_recommendation_text() -> None:
    ranking = rank(LLAMA_70B, workload(50, 8_192))
    text = recommendation(ranking)
    assert text.startswith("Buy ") and ranking.options[0].gpu_name in text and "$" in text
    cloud = recommendation(rank(LLAMA_8B, workload(50, 4_096, pricing="cloud")))
    assert cloud.startswith("Rent ")
    impossible = recommendation(rank(LLAMA_70B, workload(10_000, 32_768), counts=(1,)))
    assert impossible.startswith("No set-up")


def test_presets_and_little_law() -> None:
    for name, preset in PRESETS.items():
        w = Workload.from_preset(name, concurrent_conversations=10)
        assert w.context == preset.context and preset.justification
    w = Workload.from_preset("support-chat", requests_per_s=2.0, min_tokens_per_s_per_user=30.0)
    assert w.target_concurrency == 20  # 2/s x 300 tokens / 30 tokens/s
    with pytest.raises(PlannerError):
        Workload.from_preset("nope", concurrent_conversations=1)
    with pytest.raises(ValueError, match="exactly one"):
        Workload(context=PRESETS["rag"].context)


def test_context_longer_than_the_model_is_an_error() -> None:
    with pytest.raises(PlannerError, match="exceeds"):
        rank(get_model("meta-llama/Llama-2-7b-hf").spec, workload(1, 8_192))


def test_overflow_for_an_option() -> None:
    w = Workload.from_preset("support-chat", concurrent_conversations=100)
    ranking = rank(LLAMA_8B, w, gpus=SMALL_GPUS)
    report = overflow_for(ranking.options[0], w, LLAMA_8B)
    assert report.conversations == 100
    assert report.conversations_at_1pct >= 100  # sized at p95, the target is safe
    assert report.probability < 0.01


def test_a_speed_difference_nobody_sees_does_not_outrank_capacity() -> None:
    """Equal cost: the faster set-up first only when it is faster as the page shows speed (whole tokens/s per
    user); below that the one holding more goes first. Before, 40.879 against 40.863 tokens/s (SGLang INT8 against
    vLLM FP8 on 8 x MI300X, a 0.04 % difference inside a speed model whose median error is 13 %) put the set-up
    holding 152 conversations above the one holding 160."""
    from planner.advisor.order import sort_options

    spec = get_model("meta-llama/Llama-3.1-8B").spec
    base = rank(spec, Workload.fixed_length(8192, concurrent_conversations=8), gpus=[get_gpu("h100-sxm-80gb")]).best
    assert base is not None
    fewer = base.model_copy(update={"decode_tokens_per_s_per_user": 40.879, "headroom": 0.9, "conversations": 152})
    more = base.model_copy(update={"decode_tokens_per_s_per_user": 40.863, "headroom": 1.0, "conversations": 160})
    assert sort_options([fewer, more], "cost") == [more, fewer]
    # faster by what a reply shows (whole seconds of a 300-token reply: 7.3 s at 41 tokens/s, 5.0 s at 60)
    faster = fewer.model_copy(update={"decode_tokens_per_s_per_user": 60.0})
    assert sort_options([more, faster], "cost") == [faster, more]
    barely = fewer.model_copy(update={"decode_tokens_per_s_per_user": 42.0})  # 7.1 s: within the same second
    assert sort_options([barely, more], "cost") == [more, barely]


def test_the_headline_names_each_format_once() -> None:
    """The cloud headline read 'Rent 1 x H200 SXM 141GB (TP 1), mxfp4 weights, fp8 KV, mxfp4 weights on vLLM'
    (browser audit, 2026-12-05): the option's label already names its formats."""
    from planner.advisor.recommend import headline

    for pricing in ("cloud", "purchase"):
        ranking = rank(LLAMA_8B, workload(50, 4_096, pricing=pricing))
        text, best = headline(ranking), ranking.best
        assert best is not None and text.count(f"{best.weights} weights") == 1, text
        assert f"on {best.engine_label}" in text


def test_no_caveat_ends_in_a_full_stop() -> None:
    """Caveats are clauses the pages join and end: 'would hold 1 conversation..' (browser audit, 2026-12-05)."""
    for users, context in ((4, 8_192), (50, 32_768)):
        ranking = rank(LLAMA_70B, workload(users, context))
        for option in ranking.options:
            assert not any(c.endswith(".") or c[:1].isupper() for c in option.undermining), option.undermining


def test_a_tie_goes_to_the_reply_that_comes_sooner() -> None:
    """Llama 3.3 70B for one user at 32k on $10,000: llama.cpp at 17 tokens/s after a 26 s first token had
    outranked vLLM at 16 after 10 s on the same card at the same price (an expert review, 2026-12-05): a 300-token
    reply comes in 44 s against 29. Equal price: the reply a user waits for sooner goes first."""
    model = get_model("meta-llama/Llama-3.3-70B-Instruct").spec
    workload = Workload.fixed_length(32_768, concurrent_conversations=1, budget_usd=10_000, include_personal=True)
    best = rank(model, workload).best
    assert best is not None and best.engine == "vllm" and best.prefill_seconds == pytest.approx(10.21, abs=0.01)


def test_a_reply_within_the_speed_models_error_does_not_outrank_room_and_a_sooner_first_token() -> None:
    """Llama 3.1 70B for 2 users at 8,192 tokens: llama.cpp in Q8_0 on one RTX PRO 6000 Max-Q (2 slots, exactly
    the target, first token after 4.3 s) had outranked vLLM in FP8 on the same card at the same price (11
    conversations, first token after 2.2 s) because its 1,000-token reply came 1.2 s sooner, 59.9 s against 61.0:
    2 %, inside a speed model whose held-out median error is 11 %. Within a price run, a reply within that error of
    the soonest is no sooner, and the set-up with more room goes first (four of 108 workloads over six models moved).
    Since TensorRT-LLM's HBM share is its own and the shared constants were refitted (2026-12-07) the pair is 59.9
    against 64.7 s (vLLM's 16.42 tokens/s per user shown as 16), 8 % apart: past the hand-set 5 %, inside the
    model's held-out median error (10.7 %), which the tolerance now is (``order.REPLY_TOLERANCE``)."""
    moved = (
        ("meta-llama/Llama-3.1-70B", 2),
        ("meta-llama/Llama-3.1-70B", 4),
        ("Qwen/Qwen2.5-7B", 1),
        ("Qwen/Qwen2.5-7B", 2),
    )
    for model, users in moved:  # the caches these pairs were found with (16-bit and FP8; q8_0 below)
        work = Workload.fixed_length(8_192, concurrent_conversations=users)
        ranking = rank(get_model(model).spec, work, kv_dtypes=("bf16", "fp8"))
        best = ranking.options[0]
        assert best.engine == "vllm" and best.headroom > 1, (model, users, best.label, best.headroom)
    # With llama.cpp's q8_0 cache offered (issue 21) its modelled decode for 70B at 2 users is 18.75 tokens/s
    # (shown 19): the ranking had compared the figures as shown, 4.3 + 1000/19 = 56.9 s against vLLM's 2.2 +
    # 1000/16 = 64.7 s (13.6 % apart, past the tolerance), and put llama.cpp first. As modelled, 4.28 + 1000/18.75
    # = 57.6 s against 2.19 + 1000/16.42 = 63.1 s: 9.5 % apart, within the tolerance, so vLLM's 11 conversations go
    # first; rounding had moved the pair 4 points apart.
    ranking = rank(get_model("meta-llama/Llama-3.1-70B").spec, Workload.fixed_length(8_192, concurrent_conversations=2))
    best = ranking.options[0]
    assert (best.engine, best.weights, best.kv_dtype) == ("vllm", "fp8", "fp8") and best.headroom > 1, best.label


def test_the_reply_is_timed_on_the_modelled_figures_not_the_shown_ones() -> None:
    """:func:`order.reply_seconds` reads the first token and the speed as modelled: 18.75 tokens/s shown as 19 had
    made a 1,000-token reply 1.3 s sooner (52.6 -> 53.3 s of decode), and 16.42 shown as 16 2.6 s later (60.9 ->
    62.5 s), enough to move the Llama 3.1 70B pair above across the tolerance."""
    from types import SimpleNamespace

    from planner.advisor.order import reply_seconds

    llamacpp = SimpleNamespace(prefill_seconds=4.2825, decode_tokens_per_s_per_user=18.748)
    vllm = SimpleNamespace(prefill_seconds=2.1929, decode_tokens_per_s_per_user=16.416)
    assert reply_seconds(llamacpp, 1_000) == pytest.approx(4.2825 + 1_000 / 18.748, rel=1e-9)  # 57.62 s
    assert reply_seconds(vllm, 1_000) == pytest.approx(2.1929 + 1_000 / 16.416, rel=1e-9)  # 63.11 s
    assert reply_seconds(SimpleNamespace(prefill_seconds=1.0, decode_tokens_per_s_per_user=0.4), 10) == 26.0


def _timed(base: Option, first_s: float, speed: float, headroom: float) -> Option:
    return base.model_copy(
        update={"prefill_seconds": first_s, "decode_tokens_per_s_per_user": speed, "headroom": headroom}
    )


def test_the_reply_tolerance_is_the_speed_models_held_out_median_error() -> None:
    """1,000-token replies: 4.3 s + 1,000 / 18 = 59.9 s against 2.2 s + 1,000 / 17 = 61.0 s (2 % apart, different
    whole seconds) count as one, so the set-up with more room goes first; so do 59.9 s against 2.2 s + 1,000 / 16 =
    64.7 s (8 %, the Llama 3.1 70B pair since the refit of 2026-12-07); 51.0 s against 61.0 s (20 %) do not. The
    tolerance is the median |error| of the package's held-out rows (10.65 % over 109), not a hand-set share: a
    constant checked here against the rows' scoring, as FITTED is against the fit, so no ranking scores the rows."""
    from planner.advisor.order import REPLY_TOLERANCE, sort_options
    from planner.advisor.validation import held_out_median_error, scored, summary

    spec = get_model("meta-llama/Llama-3.1-8B").spec
    base = rank(spec, Workload.fixed_length(8192, concurrent_conversations=8), gpus=[get_gpu("h100-sxm-80gb")]).best
    assert base is not None
    slots = _timed(base, 4.3, 18.0, 0.0)
    room = _timed(base, 2.2, 17.0, 4.5)
    assert sort_options([slots, room], "cost", 1_000) == [room, slots]
    slower_room = _timed(base, 2.2, 16.0, 4.5)  # 64.7 s, 8 % after 59.9 s
    assert sort_options([slots, slower_room], "cost", 1_000) == [slower_room, slots]
    sooner = _timed(base, 1.0, 20.0, 0.0)  # 51.0 s
    assert sort_options([room, sooner], "cost", 1_000) == [sooner, room]
    n, median, _ = summary(scored(), "held-out")
    assert held_out_median_error() == median and n == 109
    assert round(median, 4) == REPLY_TOLERANCE, "set REPLY_TOLERANCE to the held-out median |error| (4 places)"
    assert 64.7 / 59.9 - 1 < REPLY_TOLERANCE < 61.0 / 51.0 - 1


def test_where_room_and_gpus_tie_the_sooner_reply_goes_before_the_label() -> None:
    """A reply within the tolerance does not outrank room, but where the room and the GPUs are the same it is still the
    model's best guess, not the alphabet's: 0.8 s + 1,000 / 70 = 15.1 s against 1.9 s + 1,000 / 69 = 16.4 s (9 %
    apart, within the held-out error), both holding 20 conversations, the sooner first though its label ("int8")
    sorts after the other's ("fp8"). FP8 here is weight-only (``compute_path`` "16-bit", as on the RTX 3090): on a
    card whose FP8 tensor cores run it, two formats within the tolerance go FP8 first
    (tests/advisor/test_format_tie.py)."""
    from planner.advisor.order import REPLY_TOLERANCE, sort_options

    spec = get_model("meta-llama/Llama-3.1-8B").spec
    base = rank(spec, Workload.fixed_length(8192, concurrent_conversations=8), gpus=[get_gpu("h100-sxm-80gb")]).best
    assert base is not None
    sooner = _timed(base.model_copy(update={"weights": "int8", "compute_path": "int8"}), 0.77, 70.0, 19.0)
    later = _timed(base.model_copy(update={"weights": "fp8", "compute_path": "16-bit"}), 1.92, 69.0, 19.0)
    assert later.label < sooner.label and REPLY_TOLERANCE > 16.4 / 15.1 - 1
    assert sort_options([later, sooner], "cost", 1_000) == [sooner, later]


def test_llama_8b_on_one_rtx_3090_is_int8_first() -> None:
    """Llama-3.1-8B for one user at 8,192 tokens: on one RTX 3090 under vLLM, INT8 weights (W8A8: first token 0.77 s,
    69.8 tokens/s per user) and FP8 (weight-only on Ampere: 1.92 s, 69.0) hold the same 20 conversations at the same
    price; INT8's reply is the sooner (15.1 against 16.4 s for 1,000 tokens), so it is the pick, as before the
    tolerance was the held-out error."""
    work = Workload.fixed_length(8192, concurrent_conversations=1)
    ranking = rank(get_model("meta-llama/Llama-3.1-8B").spec, work, kv_dtypes=("bf16", "fp8"))  # the pair's caches
    first, second = ranking.options[:2]
    assert first.label == "1 x GeForce RTX 3090 (TP 1), int8 weights, fp8 KV" and first.engine == "vllm"
    # the same room until FlashInfer's decode workspace sat in FULL's first capture (2026-12-07, fifty-fourth session):
    # 0.09 GiB less estimate, one conversation more for INT8 (23 against 22), so INT8 leads on room as well
    assert second.label == "1 x GeForce RTX 3090 (TP 1), fp8 weights, fp8 KV"
    assert (first.conversations, second.conversations) == (23, 22)


def test_a_whole_second_tie_with_the_soonest_still_goes_to_the_room() -> None:
    """The tolerance widens the whole-second tie, never narrows it: 6.6 s against 7.4 s (7 s both, a 300-token
    reply) puts the set-up with more room first, as before the tolerance."""
    from planner.advisor.order import sort_options

    spec = get_model("meta-llama/Llama-3.1-8B").spec
    base = rank(spec, Workload.fixed_length(8192, concurrent_conversations=8), gpus=[get_gpu("h100-sxm-80gb")]).best
    assert base is not None
    faster = _timed(base, 0.1, 46.0, 0.1)  # 0.1 + 300 / 46 = 6.6 s
    roomier = _timed(base, 0.1, 41.0, 5.0)  # 0.1 + 300 / 41 = 7.4 s
    assert sort_options([faster, roomier], "cost") == [roomier, faster]


def test_a_set_up_without_a_speed_in_a_price_run_goes_last_without_an_error() -> None:
    """A speed that rounds to 0 tokens/s shows no reply time (``inf``); beside a finite one in the same run it sorts
    after it (it raised OverflowError when the run's key rounded it)."""
    from planner.advisor.order import sort_options

    spec = get_model("meta-llama/Llama-3.1-8B").spec
    base = rank(spec, Workload.fixed_length(8192, concurrent_conversations=8), gpus=[get_gpu("h100-sxm-80gb")]).best
    assert base is not None
    stalled = _timed(base, 0.1, 0.3, 9.0)
    moving = _timed(base, 0.1, 40.0, 0.0)
    assert sort_options([stalled, moving], "cost") == [moving, stalled]
