"""The advisor's HTML report (pure): what a VP receives. The recommended set-up's own figures and the workload
first, five lines to forward (what to buy, the total price, the users held, the speed per user, the main caveat),
the verdict in its colour, the top picks with why each beats the next, the alternatives on another vendor and
form factor, every caveat; no figure library and no rejected set-ups (those are in the CSV), so it stays small
(a few tens of kB)."""

from __future__ import annotations

from collections.abc import Mapping

from planner.advisor import (
    Option,
    Ranking,
    alternative_text,
    alternatives,
    caveats,
    out_of_reach_text,
    recommendation,
    speed_text,
    summary_lines,
    verdict,
)
from planner.advisor.pick_lines import pick_lines
from planner.advisor.picks import other_hardware
from planner.assessment.words import plural, seconds
from ui import report
from ui.advisor_rows import option_keys, option_row

TONES = {"met": "success", "caution": "warning", "none": "error"}
# The verdict box of a report that has a pick: one line, the five-line summary under it, the reasoning further
# down (a 250-word paragraph had come first, the summary 1.5 phone screens below: outside review, 2026-12-05).
VERDICT_WORDS = {
    "met": "Meets the workload.",
    "caution": "Meets the workload, with a caveat (the last line below).",
    "none": "No set-up meets the workload.",
}


def _usd(value: float | None, spec: str, unit: str = "") -> str:
    """A price tile: the dollars, or that no price is sourced (never $0 for an unknown price).

    >>> _usd(27_200.0, ",.0f"), _usd(None, ",.0f")
    ('$27,200', 'unknown: no sourced price')
    """
    return "unknown: no sourced price" if value is None else f"${value:{spec}}{unit}"


def _headline(ranking: Ranking) -> list[tuple[str, str]]:
    best = ranking.best
    if best is None:
        return []
    cloud = ranking.workload.pricing == "cloud"
    price = (
        [("Cloud cost", _usd(best.usd_per_hour, ",.2f", " per hour"))]
        if cloud
        else [("Purchase", _usd(best.purchase_usd, ",.0f")), ("Total cost of ownership", _usd(best.tco_usd, ",.0f"))]
    )
    return [
        *price,
        ("Users held", f"{best.conversations:,} conversations of {best.context_tokens:,} tokens"),
        (
            "Tokens/s per user",
            f"{best.decode_tokens_per_s_per_user:.0f} with {plural(ranking.target_concurrency, 'conversation')} at once"
            if best.decode_tokens_per_s_per_user is not None
            else speed_text(best),
        ),
        ("First token", seconds(best.prefill_seconds) if best.prefill_seconds is not None else "not estimated"),
        *_what_it_is(best),
    ]


def _what_it_is(best: Option) -> list[tuple[str, str]]:
    """A purchase's power and rack space; a rental's provider, GPUs and rate (no power or rack space is the
    renter's: an outside review, 2026-12-06, read 'Power 4,800 W' and 'Rack space: not rack-mounted' for one)."""
    if best.power_watts is None:
        return [("Rented", best.purchase_unit)]
    return [
        ("Power", f"{best.power_watts:,.0f} W"),
        ("Rack space", f"{best.rack_units}U" if best.rack_units else "not rack-mounted"),
    ]


def _inputs(ranking: Ranking, model_name: str) -> dict[str, str]:
    w = ranking.workload
    inputs = {
        "Model": model_name,
        "Users": ranking.target_note,
        "Conversation length": ranking.assumptions["context"],
        "Buy or rent": w.pricing + (f" ({w.cloud_tier})" if w.pricing == "cloud" else ""),
        "Speed floor": f"{w.min_tokens_per_s_per_user:g} tokens/s per user" if w.min_tokens_per_s_per_user else "none",
    }
    if w.budget_usd:
        inputs["Budget"] = f"${w.budget_usd:,.0f}" + (" per month" if w.pricing == "cloud" else "")
    inputs |= {f"Assumption: {k}": v for k, v in ranking.assumptions.items() if k not in ("target", "context")}
    return inputs


def _sections(ranking: Ranking) -> list[tuple[str, list[str]]]:
    cloud = ranking.workload.pricing == "cloud"
    sections: list[tuple[str, list[str]]] = []
    picks = pick_lines(ranking)
    if picks:
        sections.append(("Top picks and why each beats the next", picks))
    others = other_hardware(ranking)  # one scan for both sections
    alts = alternatives(ranking, others=others)
    if alts:
        sections.append(
            (
                "On another vendor or form factor",
                [f"{alternative_text(o, cloud)}." for o in alts],
            )
        )
    elif far := out_of_reach_text(ranking, others):
        sections.append(("On another vendor or form factor", [far]))
    best = ranking.best
    notes = [*caveats(ranking), *([] if best is None else [w for w in best.warnings if w not in best.undermining])]
    if ranking.left_out:
        notes.append("Offered only when asked for: " + "; ".join(ranking.left_out))
    if notes:
        sections.append(("Caveats and notes", notes))
    return sections


def advisor_report_html(ranking: Ranking, model_name: str, link: str, option_links: Mapping[int, str]) -> str:
    """The report of one ranking (see the module docstring); ``option_links``: the Memory-page link of the first
    options, by position."""
    cloud = ranking.workload.pricing == "cloud"
    shown = ranking.options[:10]
    rows = [
        option_row(i, o, cloud, option_links.get(i), key)
        for i, (o, key) in enumerate(zip(shown, option_keys(ranking.options), strict=False), start=1)
    ]
    state = verdict(ranking)
    reasoning = [("The recommendation in full", [recommendation(ranking)])] if ranking.best is not None else []
    return report.html_report(
        f"Which GPU to {'rent' if cloud else 'buy'} for {model_name}",
        VERDICT_WORDS[state] if ranking.best is not None else recommendation(ranking),
        _inputs(ranking, model_name),
        [],
        {"the ten best set-ups (every option and every rejected one: the CSVs)": rows} if rows else {},
        headline=_headline(ranking),
        link=link,
        tone=TONES[state],
        summary=summary_lines(ranking) if ranking.best is not None else (),
        sections=[*reasoning, *_sections(ranking)],
    )
