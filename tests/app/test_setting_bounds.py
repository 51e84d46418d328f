"""Every numeric setting at both ends of its declared range and one past each, on every page it appears on (issue 25
finding 4: ``/?prefix_tokens=100001`` passed the link's parser, whose range was the UI's own, and crashed the
Memory page when the planner refused it). A value in range draws the page without an error from the frame; a value
one past is named among the ignored link parameters."""

from __future__ import annotations

from decimal import Decimal

import pytest

from planner.bounds.limits import field_range
from planner.core.units import GB, GiB
from planner.deploy.options import DeploymentOptions, KvOffloadOptions, LoraOptions, SpeculativeOptions
from tests.app.conftest import PAGES, run_page, texts
from ui import settings
from ui.settings import SIDEBAR, Setting

APOLOGY = "Something went wrong"
NUMERIC = [s for s in settings.SETTINGS if s.bounds is not None]


def _text(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _values(setting: Setting) -> dict[str, tuple[str, bool]]:
    """The values walked: name -> (link text, inside the range)."""
    assert setting.bounds is not None
    step = Decimal(1) if setting.bounds.whole else Decimal("1e-9")  # the parsers read up to nine decimals
    low, high = Decimal(str(setting.bounds.low)), Decimal(str(setting.bounds.high))
    return {
        "low": (_text(low), True),
        "high": (_text(high), True),
        "below": (_text(low - step), False),
        "above": (_text(high + step), False),
    }


CASES = [
    pytest.param(page, setting, which, id=f"{page or 'memory'}-{setting.url}-{which}")
    for setting in NUMERIC
    for page in (sorted(PAGES) if setting.scope == SIDEBAR else [setting.scope])
    for which in ("low", "high", "below", "above")
]


@pytest.mark.parametrize(("page", "setting", "which"), CASES)
def test_a_setting_at_and_past_its_bounds(page: str, setting: Setting, which: str) -> None:
    text, inside = _values(setting)[which]
    at = run_page(page or "memory", {setting.url: text})
    assert not at.exception, [e.value for e in at.exception]
    errors = texts(at.error)
    assert not any(APOLOGY in e for e in errors), errors
    ignored = " ".join(w.value for w in at.warning if "ignored" in w.value)
    if not inside:
        assert f"`{setting.url}`" in ignored, (text, ignored)


def test_every_deployment_setting_at_its_top_at_once_with_another_engine_beside() -> None:
    """Each is within its option's range; the memory in use and another engine's add up past it: a named error,
    the deployment left out."""
    params = {s.url: _values(s)["high"][0] for s in settings.DEPLOYMENT_SETTINGS if s.bounds is not None}
    params |= {settings.COLOCATE.url: "meta-llama/Llama-3.1-8B", settings.SPEC_METHOD.url: "eagle", "engine": "vllm"}
    at = run_page("memory", params)
    assert not at.exception, [e.value for e in at.exception]
    errors = texts(at.error)
    assert not any(APOLOGY in e for e in errors), errors
    assert any("used_memory_bytes" in e and "left out of the plan" in e for e in errors), errors


# Each Deployment setting and the planner option it fills: the setting's range is the option's (in its unit).
PLANNER_FIELDS = {
    settings.GPU_LAYERS.url: (DeploymentOptions, "gpu_layers", 1),
    settings.CPU_MOE.url: (DeploymentOptions, "cpu_moe_layers", 1),
    settings.CPU_OFFLOAD.url: (DeploymentOptions, "cpu_offload_bytes", GiB),
    settings.HOST_BANDWIDTH.url: (DeploymentOptions, "host_bandwidth_bytes_per_s", GB),
    settings.KV_OFFLOAD.url: (KvOffloadOptions, "size_bytes", GiB),
    settings.PREFIX_TOKENS.url: (KvOffloadOptions, "prefix_tokens", 1),
    settings.HIT_RATE.url: (KvOffloadOptions, "hit_rate", 1),
    settings.MAX_LORAS.url: (LoraOptions, "max_loras", 1),
    settings.LORA_RANK.url: (LoraOptions, "max_lora_rank", 1),
    settings.SPEC_TOKENS.url: (SpeculativeOptions, "num_speculative_tokens", 1),
    settings.USED_MEMORY.url: (DeploymentOptions, "used_memory_bytes", GiB),
    settings.GPU_SHARE.url: (DeploymentOptions, "unified_share", 1),
}


@pytest.mark.parametrize("url", sorted(PLANNER_FIELDS))
def test_a_deployment_settings_range_is_the_planners(url: str) -> None:
    model, field, unit = PLANNER_FIELDS[url]
    bounds = settings.BY_URL[url].bounds
    assert bounds is not None
    low, high, _ = field_range(model, field)
    if url == settings.MAX_LORAS.url:
        low = 0  # 0: no LoRA, the option left out
    assert (bounds.low, bounds.high) == (low / unit if unit != 1 else low, high / unit if unit != 1 else high)


def test_every_deployment_setting_with_a_number_is_checked_against_the_planner() -> None:
    numeric = {s.url for s in settings.DEPLOYMENT_SETTINGS if s.bounds is not None}
    assert numeric - set(PLANNER_FIELDS) == {settings.COLOCATE_UTIL.url}  # within EngineProfile's (0, 1]
