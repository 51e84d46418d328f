"""The Memory page with a deployment in its link: the section's figures are the planner's and the CLI's."""

from __future__ import annotations

from planner.cli import main
from tests.app.conftest import run_page
from ui.deployment import options_from
from ui.settings import DEPLOYMENT_SETTINGS


def test_lora_link_shows_the_component_and_the_clis_bytes(capsys) -> None:
    at = run_page("memory", {"engine": "vllm", "loras": "4", "context": "4096"})
    assert not at.exception, [e.value for e in at.exception]
    sel = at.session_state["_selection"]
    values = {s.url: at.session_state[s.url] for s in DEPLOYMENT_SETTINGS}
    options = options_from(sel, values).options
    assert options is not None and options.lora is not None and options.lora.max_loras == 4
    assert at.query_params["loras"] in ("4", ["4"])
    a = sel.assessment(deployment=options)
    argv = ["fit", "--model", sel.model_id, "--gpu", sel.gpu_id, "--engine", "vllm", "--context", "4096"]
    assert main([*argv, "--max-loras", "4", "--json"]) == 0
    assert f'"lora_bytes_per_gpu": {a.result.per_gpu.lora_bytes}' in capsys.readouterr().out
    assert any(a.sentence(sel.unit).split(":")[0] in str(s.value).replace("\\", "") for s in at.success)


def test_mig_and_bad_combination_on_the_page() -> None:
    at = run_page("memory", {"engine": "vllm", "mig": "3g.40gb", "gpu": "h100-sxm-80gb"})
    assert not at.exception
    assert any("MIG 3g.40gb" in t.value.replace("\\", "") for t in at.title)
    bad = run_page("memory", {"engine": "vllm", "spec_method": "mtp"})
    assert not bad.exception
    assert any("left out of the plan" in e.value.replace("\\", "") for e in bad.error)
