"""A speculative method an engine does not start with one of its launch settings on, in every release: the method
(the planner's: ``draft``, ``eagle``, ``eagle3``, ``mtp``), the setting's generic name
(:mod:`planner.engines.settings`) and the engine's reason, declared in its support data
(:attr:`planner.engines.support.EngineSupport.speculation_setting_refusals`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field


class SpeculationRefusal(BaseModel, frozen=True, extra="forbid"):
    """``method`` is refused with ``setting`` on, for ``reason``.

    >>> r = SpeculationRefusal(method="draft", setting="enable_dp_attention", reason="no")
    >>> r.method, r.setting
    ('draft', 'enable_dp_attention')
    """

    method: Annotated[str, Field(min_length=1)]
    setting: Annotated[str, Field(min_length=1)]
    reason: Annotated[str, Field(min_length=1)]
