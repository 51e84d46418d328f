"""The launch settings an engine names as the cure of its own refusal
(:meth:`planner.engines.base.Engine.setting_cures`), offered first among the nearest set-ups, each that starts:
vLLM's Mamba 'align' check of the attention block against the step is cured by a step of one whole block, or by
prefix caching off (:mod:`planner.engines.vllm.align_step`)."""

from __future__ import annotations

from planner.assessment.assess import Assessment
from planner.assessment.trial import Alternative, Goal, attempt
from planner.core.overhead import EngineProfile
from planner.engines.registry import get_engine, setting_flag
from planner.engines.settings import BY_NAME, SettingValue, switch_words
from planner.planning.plan import PlanRequest


def setting_words(overhead: EngineProfile, name: str, value: SettingValue) -> str:
    """A launch setting's value as the engine is started with it: ``--max-num-batched-tokens 1056``,
    ``--no-enable-prefix-caching``."""
    flag, kind = setting_flag(overhead, name), BY_NAME[name].kind
    if kind == "switch":
        return switch_words(flag, bool(value))
    if kind == "flag":
        return flag
    return f"{flag} {value}"


def setting_cures(request: PlanRequest, goal: Goal, found: Assessment) -> list[Alternative]:
    """Each cure the engine names for ``found``'s refusal, applied to ``request`` (as asked), that meets ``goal``."""
    overhead = request.overhead
    if found.report is None or not isinstance(overhead, EngineProfile):
        return []
    engine = get_engine(overhead.engine_name)
    cured: list[Alternative] = []
    for cure in engine.setting_cures(found.report):
        update = {engine.setting_fields[name]: value for name, value in cure.settings.items()}
        changed = request.model_copy(update={"overhead": overhead.model_copy(update=update)})
        words = " ".join(setting_words(overhead, name, value) for name, value in cure.settings.items())
        alternative = attempt(changed, f"{words} ({cure.why})", goal)
        if alternative is not None:
            cured.append(alternative)
    return cured
