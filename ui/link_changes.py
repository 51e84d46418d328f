"""The link parameters a nearest set-up changes beyond the sidebar's own fields (the Memory page's "open" links): the
launch settings its engine starts with and a Mac's GPU share."""

from __future__ import annotations

from planner.engines.registry import launch_values
from planner.engines.settings import ENGINE_SETTINGS, profile_shown, shown_name
from planner.planning.plan import PlanRequest
from ui import settings
from ui.settings.parsing import show_flag, show_number


def launch_changes(before: PlanRequest, after: PlanRequest) -> dict[str, str]:
    """The link parameters of the launch settings ``after`` starts its engine with differently from ``before``
    (a nearest set-up's ``--kv-cache-memory-bytes`` or ``--max-num-seqs``), by the names a link uses."""
    changes: dict[str, str] = {}
    was, now = launch_values(before.overhead), launch_values(after.overhead)
    for declared in ENGINE_SETTINGS:
        value = now.get(declared.name)
        if value is not None and value != was.get(declared.name) and isinstance(value, int | bool | str):
            shown = profile_shown(declared, value)
            changes[shown_name(declared)] = show_flag(shown) if isinstance(shown, bool) else show_number(shown)
    return changes


def share_change(before: PlanRequest, after: PlanRequest) -> dict[str, str]:
    """The link parameter of a unified-memory machine's GPU share ``after`` plans differently from ``before``."""
    share = after.deployment.unified_share if after.deployment else None
    was = before.deployment.unified_share if before.deployment else None
    return {settings.GPU_SHARE.url: f"{share:g}"} if share is not None and share != was else {}
