"""How sure a set-up's KV figures are: the public start-ups like it (:mod:`planner.engines.accuracy`) and what its
pool would hold after a miss as large as nine in ten of them stayed within. One sentence, built here, for every
surface (``fit``, ``fit --json``, the Memory page, its report)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from planner.assessment.assess import Assessment, unchecked_clause, unchecked_words
from planner.assessment.words import mem, stand_in_words
from planner.engines.accuracy import DEVICE_WORDS, KvAccuracy
from planner.engines.registry import get_engine

Count = Annotated[int, Field(ge=0)]


class AccuracyNote(BaseModel, frozen=True, extra="forbid"):
    """A set-up's accuracy group and what its pool holds after that group's 90th-percentile miss."""

    group: KvAccuracy
    conversations: Count  # whole conversations at once as planned, all replicas
    conversations_after_miss: Count | None  # with p90_abs_bytes less KV cache per GPU; None: not a paged pool
    sentence: str


def _sentence(a: Assessment, group: KvAccuracy, after: int | None, unit: str) -> str:
    label = get_engine(group.engine).label
    within = f"within {mem(group.median_abs_bytes, unit)} of the planner's for half of them and " + (
        f"{mem(group.worst_abs_bytes, unit)} at worst"
        if group.miss_share == "all"
        else f"within {mem(group.p90_abs_bytes, unit)} for nine in ten (worst {mem(group.worst_abs_bytes, unit)})"
    )
    text = (
        f"On {group.cases} public start-up{'s' if group.cases != 1 else ''} of {label}"
        f"{' ' + group.releases if group.releases else ''} on "
        f"{DEVICE_WORDS[group.device]}, the KV cache the engine printed was {within}; {group.verdicts_right} of "
        f"{group.verdicts} start-or-refuse verdicts were right."
    )
    if after is None or not a.fits:
        return text
    miss = mem(group.miss_bytes, unit)
    if after >= a.conversations:
        return f"{text} With {miss} less KV cache per GPU this set-up would still hold its {a.conversations:,}."
    return (
        f"{text} With {miss} less KV cache per GPU this set-up would hold {after:,} conversation"
        f"{'s' if after != 1 else ''} at once instead of {a.conversations:,}."
    )


def accuracy_of(a: Assessment, unit: str = "GiB") -> AccuracyNote | None:
    """The accuracy note of an engine's set-up (:attr:`Assessment.accuracy`); ``None`` for a generic profile or a
    set-up no public start-up is like."""
    group = a.accuracy
    if group is None:
        return None
    after = a.conversations_after_miss
    return AccuracyNote(
        group=group,
        conversations=a.conversations,
        conversations_after_miss=after,
        sentence=_sentence(a, group, after, unit),
    )


def _unchecked(a: Assessment) -> bool:
    """Whether ``a`` is an engine set-up that starts and no group of public start-ups is like."""
    return a.accuracy is None and a.report is not None and a.fits


def unchecked_margin(a: Assessment, replicas: int, target: int, unit: str = "GiB") -> tuple[str, bool] | None:
    """For an engine set-up no public start-up is like (no :attr:`Assessment.accuracy`: TensorRT-LLM's today, and
    data-parallel ranks sharing the experts on any engine), a clause saying its memory figure is unchecked, and
    whether the widest miss measured on that kind of device, for any engine (:attr:`Assessment.unchecked_miss`, the
    stand-in for its unknown error), would leave the target short (``True``: it undermines the option, and its
    verdict is a warning: :attr:`Assessment.margin_within_error`); ``None`` where a group measures it or no engine
    plans it."""
    if not _unchecked(a):
        return None
    after = a.conversations_after_miss
    if a.unchecked_miss is None or after is None or after * replicas >= target:
        return unchecked_words(a), False
    return unchecked_clause(a, unit, after * replicas, target), True


def unchecked_sentence(a: Assessment, unit: str = "GiB") -> str | None:
    """That the memory figure of ``a``'s engine set-up is unchecked, as the Memory page and ``fit`` say it beside
    the verdict: where the stand-in miss leaves a target short the verdict itself says what it would hold
    (:func:`planner.assessment.assess.thin_margin`), so this says only that; without a target, what the set-up would
    hold after that miss instead of what it holds. ``None`` where a group measures the set-up (its
    :func:`accuracy_of` note) or no engine plans it."""
    if not _unchecked(a):
        return None
    clause, after, widest = unchecked_words(a), a.conversations_after_miss, a.unchecked_miss
    if a.target_users is None and widest is not None and after is not None and after < a.conversations:
        words = stand_in_words(widest, get_engine(widest.engine).label, unit)
        clause += f", and {words} it would hold {after:,} conversations instead of {a.conversations:,}"
    return f"{clause[:1].upper()}{clause[1:]}."
