"""The advisor's rows (pure): one option as a table row and a CSV row, the Memory-page link that reproduces it,
the rejected set-ups. Every figure is the option's own (:class:`planner.advisor.Option`), so the table, the CSV,
the report and ``advise --json`` agree."""

from __future__ import annotations

from collections.abc import Sequence

from model_catalog import get_gpu
from planner.advisor import Option, Ranking
from planner.advisor.options import Rejected
from planner.engines.registry import default_engine, engine_names
from ui import links, settings
from ui.state import Selection, splits_layers


def option_selection(sel: Selection, option: Option) -> Selection:
    """The sidebar set to the option: its GPUs and split, precisions, context, the users it was planned for
    (llama.cpp's -np), its engine with the release, memory fraction and --max-num-seqs it was planned with, its
    data-parallel ranks' setting (``--enable-dp-attention``) where they share the experts; every other launch
    setting at the engine's default, as the option was planned (one the sidebar still carries from the Memory page,
    ``--kv-cache-memory-bytes`` or ``--enforce-eager``, would open another count); every other setting (the model,
    the unit) kept, a calibration dropped (it belongs to another set-up)."""
    engine = option.engine if option.engine in engine_names() else default_engine()
    return sel.model_copy(
        update={
            **{s.field: None for s in settings.LAUNCH_SETTINGS},  # the engine's defaults, the option's below
            "gpu_id": option.gpu_id,
            "gpu_count": option.gpu_count,
            "tensor_parallel": None if splits_layers(engine) else option.tensor_parallel,  # llama.cpp: no TP
            "pipeline_parallel": 1,
            "weights": option.weights,
            "kv_dtype": option.kv_dtype,
            "context_tokens": option.context_tokens,
            "users": option.target_concurrency,
            "engine": engine,
            "engine_version": option.engine_version,
            "util": option.engine_fraction,
            "max_num_seqs": option.engine_max_num_seqs,  # None: the engine's default, as the option was planned
            "max_num_batched_tokens": option.engine_max_num_batched_tokens,
            # ranks sharing the experts: the page plans them so under any engine it is switched to
            "enable_dp_attention": True if option.experts_shared else None,
            "calibration": None,
        }
    )


def option_link(sel: Selection, option: Option, base_url: str | None, share: float | None = None) -> str:
    """The Memory page with this option's set-up (absolute when the address the reader used is known); ``share``:
    the GPU share of a unified-memory machine the advice planned with (``--unified-memory-share``), carried as the
    Memory page's deployment setting so the page plans the same memory."""
    unified = share is not None and get_gpu(option.gpu_id).unified_memory is not None
    extra = {settings.GPU_SHARE.url: f"{share:g}"} if unified else {}
    return links.share_url(base_url, "", links.query_string(option_selection(sel, option), extra))


def _rounded(value: float | None, digits: int = 0) -> float | None:
    return None if value is None else round(value, digits)


CLOUD_COST_COLUMN = "USD / hour (all its GPUs)"


def gpu_words(gpu_ids: Sequence[str]) -> dict[str, str]:
    """Each GPU id as a row key names it among ``gpu_ids``: its variant words, the leading words it shares with
    another listed id dropped (the id whole where it shares none, or where nothing would be left). The RTX PRO 6000
    Max-Q and Server Edition rows had differed only after the 55 characters a 390 px screen shows of the key column
    ("... vLLM · 8 x rtx-pro-6000-blackwell-max-q" / "-server": a user review, 2026-12-08). Words that would name
    two GPUs are the ids whole: a CSV of every option had named the A100 SXM4 and the H100 SXM5 both "sxm-80gb", each
    sharing its first word with its PCIe card (review57b, 2026-12-08).

    >>> ids = ["rtx-pro-6000-blackwell-max-q", "rtx-pro-6000-blackwell-server", "h200-sxm-141gb", "rtx-5090"]
    >>> list(gpu_words(ids).values())
    ['max-q', 'server', 'h200-sxm-141gb', '5090']
    >>> list(gpu_words(["a100-sxm-80gb", "a100-pcie-40gb", "h100-sxm-80gb", "h100-nvl"]).values())
    ['a100-sxm-80gb', 'pcie-40gb', 'h100-sxm-80gb', 'nvl']
    """
    words = {g: g.split("-") for g in dict.fromkeys(gpu_ids)}
    named: dict[str, str] = {}
    for g, mine in words.items():
        shared = max((_shared(mine, theirs) for other, theirs in words.items() if other != g), default=0)
        named[g] = "-".join(mine[shared:]) if 0 < shared < len(mine) else g
    while clashes := [g for g, n in named.items() if n != g and list(named.values()).count(n) > 1]:
        named |= {g: g for g in clashes}  # ids are unique: each pass leaves fewer shortened names
    return named


def _shared(a: list[str], b: list[str]) -> int:
    """How many leading words two ids share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def option_key(o: Option, gpu: str | None = None) -> str:
    """What tells a set-up apart from the ones ranked beside it, most telling first: its split, weight and KV
    formats, engine, then its GPUs (``gpu``: the id as :func:`gpu_words` names it among the rows; by default the
    id). The label begins with the GPUs' full name, the same in the top rows, and a 390 px screen shows the first
    ~55 characters of the key column (the review of 2026-12-08; the review of 2026-12-07 had read ~25 of the label's
    column): every top row had read "2 x RTX PRO 6000 Blackwell Max-Q Workstation Edit..." (an outside review,
    2026-12-07).

    >>> from types import SimpleNamespace as O
    >>> option_key(O(split="tp", tensor_parallel=2, replicas=4, experts_shared=False, weights="mxfp4", kv_dtype="fp8",
    ...     engine_label="vLLM", gpu_count=8, gpu_id="h100-sxm-80gb"))
    'TP 2 x 4 · MXFP4 · FP8 KV · vLLM · 8 x h100-sxm-80gb'
    """
    split = f"layers {o.tensor_parallel}" if o.split == "layer" and o.tensor_parallel > 1 else f"TP {o.tensor_parallel}"
    if o.replicas > 1:
        split += f" x {o.replicas}" + (" DP" if o.experts_shared else "")
    gpus = f"{o.gpu_count} x {gpu or o.gpu_id}"
    return " · ".join((split, o.weights.upper(), f"{o.kv_dtype.upper()} KV", o.engine_label, gpus))


def option_keys(options: Sequence[Option]) -> list[str]:
    """Each option's :func:`option_key`, its GPUs named among the options' (:func:`gpu_words`)."""
    named = gpu_words([o.gpu_id for o in options])
    return [option_key(o, named[o.gpu_id]) for o in options]


def option_row(
    position: int, o: Option, cloud: bool, link: str | None = None, key: str | None = None
) -> dict[str, object]:
    """One option in words and figures (units in the column names), its caveats included; its short key first
    (``key``, as :func:`option_keys` makes it among the ranking's options; by default :func:`option_key`), so a phone's
    narrow first column tells the rows apart."""
    row: dict[str, object] = {
        "#": position,
        "key": key or option_key(o),
        "set-up": o.label,
        # a rental's price is for all its GPUs (USD / hour), not per GPU-hour (an outside review, 2026-12-06)
        "rent" if cloud else "buy": f"{o.gpu_count} x {o.gpu_name}, by the hour" if cloud else o.purchase_unit,
        "engine": f"{o.engine_label} {o.engine_version or ''}".strip(),
        "GPUs": o.gpu_count,
        "conversations": o.conversations,
        "headroom": f"{o.headroom:+.0%}",
        "tokens/s per user": _rounded(o.decode_tokens_per_s_per_user),
        "tokens/s total": _rounded(o.decode_tokens_per_s_total),
        "first token (s)": _rounded(o.prefill_seconds, 2),
        "bound": o.decode_bound or "?",
    }
    if cloud:
        row[CLOUD_COST_COLUMN] = _rounded(o.usd_per_hour, 2)
    else:
        row |= {
            "GPUs (USD)": _rounded(o.gpus_usd),
            "hosts (USD)": _rounded(o.hosts_usd),
            "purchase (USD)": _rounded(o.purchase_usd),
            "power over the life (USD)": _rounded(o.energy_usd),
            "total cost of ownership (USD)": _rounded(o.tco_usd),
            "power (W)": round(o.power_watts or 0),
            "rack units": o.rack_units if o.rack_units is not None else "not rack-mounted",
        }
    row |= {
        # cloud: dollars an hour per conversation held, cents and below (a rental of 200 read 0.0)
        ("USD per conversation-hour" if cloud else "USD per conversation"): _rounded(
            o.usd_per_conversation, 4 if cloud else 2
        ),
        "USD per M output tokens": _rounded(o.usd_per_million_output_tokens, 3),
        "caveats": "; ".join(o.undermining),
        "notes": "; ".join(w for w in o.warnings if w not in o.undermining),
        "quality": o.quality_caveat or "",
        "price basis": o.price_basis,
    }
    if link is not None:
        row["open"] = link
    return row


def ranking_rows(
    ranking: Ranking, sel: Selection, base_url: str | None, limit: int | None = None
) -> list[dict[str, object]]:
    """The options as rows, each with its Memory-page link (``limit``: the first ones); with none, one row that
    says so (a CSV of zero bytes read as a failed download)."""
    cloud = ranking.workload.pricing == "cloud"
    options = ranking.options if limit is None else ranking.options[:limit]
    if not options and limit is None:
        return [{"note": "no set-up meets every condition; the rejected set-ups' CSV gives each with its reason"}]
    share = ranking.workload.unified_memory_share
    keys = option_keys(ranking.options)  # named among every option: the page's rows and the CSV's agree (review57b)
    return [
        option_row(i, o, cloud, option_link(sel, o, base_url, share), key)
        for i, (o, key) in enumerate(zip(options, keys, strict=False), start=1)
    ]


def report_links(ranking: Ranking, sel: Selection, base_url: str | None, first: int = 10) -> dict[int, str]:
    """The Memory-page link of each of the ``first`` options, by position (1-based): the report's rows."""
    share = ranking.workload.unified_memory_share
    return {i: option_link(sel, o, base_url, share) for i, o in enumerate(ranking.options[:first], start=1)}


def rejected_rows(rejected: tuple[Rejected, ...]) -> list[dict[str, object]]:
    return [
        {
            "GPU": r.gpu_id,
            "GPUs": r.gpu_count,
            "TP": r.tensor_parallel,
            "weights": r.weights,
            "KV": r.kv_dtype,
            "reason": r.reason,
            "detail": r.detail,
        }
        for r in rejected
    ]
