"""Headroom's planner: how much GPU memory a served LLM takes, and how many conversations fit.

Pure Python (no Streamlit): pydantic models in and out, bytes as integers, one
:class:`~planner.bounds.errors.PlannerError` for invalid input; "does not fit" is a result. The public API is
re-exported here (``from planner import assess, PlanRequest``); everything else is an implementation detail whose
path may change. See ``docs/architecture.md`` for the layers and where each formula lives.

The names are loaded on first use, so importing one submodule (``planner.core.kv``) does not import the advisor.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from model_catalog import get_gpu, get_model
    from planner.advisor.options import Option, Ranking
    from planner.advisor.ranking import rank as advise
    from planner.advisor.workload import Workload
    from planner.assessment.assess import Assessment, assess, verdict_sentence
    from planner.bounds.errors import PlannerError
    from planner.core.gpu import GpuSpec
    from planner.core.inspection import ModelInspection, inspect
    from planner.core.model import ModelSpec
    from planner.deploy.options import DeploymentOptions
    from planner.engines.launch import launch_commands
    from planner.engines.registry import engine_profile, engine_report, engines
    from planner.planning.plan import plan
    from planner.planning.request import PlanRequest
    from planner.planning.results import PlanResult

# public name -> (module, attribute)
_EXPORTS: dict[str, tuple[str, str]] = {
    "plan": ("planner.planning.plan", "plan"),
    "PlanRequest": ("planner.planning.request", "PlanRequest"),
    "PlanResult": ("planner.planning.results", "PlanResult"),
    "assess": ("planner.assessment.assess", "assess"),
    "Assessment": ("planner.assessment.assess", "Assessment"),
    "verdict_sentence": ("planner.assessment.assess", "verdict_sentence"),
    "advise": ("planner.advisor.ranking", "rank"),
    "Workload": ("planner.advisor.workload", "Workload"),
    "Ranking": ("planner.advisor.options", "Ranking"),
    "Option": ("planner.advisor.options", "Option"),
    "inspect": ("planner.core.inspection", "inspect"),
    "ModelInspection": ("planner.core.inspection", "ModelInspection"),
    "ModelSpec": ("planner.core.model", "ModelSpec"),
    "GpuSpec": ("planner.core.gpu", "GpuSpec"),
    "DeploymentOptions": ("planner.deploy.options", "DeploymentOptions"),
    "PlannerError": ("planner.bounds.errors", "PlannerError"),
    "engines": ("planner.engines.registry", "engines"),
    "engine_profile": ("planner.engines.registry", "engine_profile"),
    "engine_report": ("planner.engines.registry", "engine_report"),
    "launch_commands": ("planner.engines.launch", "launch_commands"),
    "get_model": ("model_catalog", "get_model"),
    "get_gpu": ("model_catalog", "get_gpu"),
}

__all__ = [
    "Assessment",
    "DeploymentOptions",
    "GpuSpec",
    "ModelInspection",
    "ModelSpec",
    "Option",
    "PlanRequest",
    "PlanResult",
    "PlannerError",
    "Ranking",
    "Workload",
    "advise",
    "assess",
    "engine_profile",
    "engine_report",
    "engines",
    "get_gpu",
    "get_model",
    "inspect",
    "launch_commands",
    "plan",
    "verdict_sentence",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'planner' has no attribute {name!r}") from None
    value = getattr(import_module(module), attribute)
    globals()[name] = value
    return value
