"""A link to Qwen3-32B at 131,072 tokens (the YaRN ceiling its card documents, past the config's 40,960): the
Memory page keeps the context (the slider reaches the ceiling, ui.state.context_range), plans it with YaRN, says
so with the card's caveat and prints the command that switches it on (planner.engines.yarn)."""

from __future__ import annotations

from tests.app.conftest import COMMANDS, run_page
from ui.state import Selection

LINK = {"model": "Qwen/Qwen3-32B", "gpu": "h100-sxm-80gb", "gpus": "2", "tp": "2", "engine": "vllm"}


def test_the_memory_page_plans_131072_tokens_with_yarn() -> None:
    at = run_page("memory", {**LINK, "context": "131072", "users": "2"}, open_keys=[COMMANDS])
    assert not at.exception, [e.value for e in at.exception]
    sel: Selection = at.session_state["_selection"]
    assert sel.context_tokens == 131_072 and sel.request().model.yarn_on
    assert any("YaRN switched on" in w for w in sel.assessment().result.warnings)
    commands = "\n".join(str(c.value) for c in at.code)
    assert "--max-model-len 131072" in commands and '"rope_type": "yarn"' in commands
