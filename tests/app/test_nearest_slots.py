"""The nearest set-ups of a llama.cpp set-up that misses its target are searched from the set-up as the reader gave
it, not from the one slot it launched with.

llama-server gives each of its ``-np`` slots its own context, and the planner launches as many slots as fit, up to
the target users (:meth:`planner.engines.llamacpp.engine.LlamacppEngine.for_users`). Llama-3.1-70B in Q4_K_M on two
RTX 3090s holds one 16k slot (19.9 GiB of weights per card), so that set-up misses a target of four users. Three
cards hold four slots (13.3 GiB of weights and 6.7 GiB of KV per card; `planner fit --gpus 3 --users 4`), yet the
Memory page searched its levers from the launched request, whose ``-np 1`` no count of GPUs changes, and said
"Nothing close does ... more GPUs (up to 64) ...: try a GPU with more memory".
"""

from __future__ import annotations

import json
from typing import Any

from planner.cli import main
from tests.app.conftest import nearest_link, plain, run_page, texts

HOME_RIG = {
    "model": "meta-llama/Llama-3.1-70B", "gpu": "rtx-3090", "gpus": "2", "weights": "q4_k_m", "engine": "llamacpp",
    "context": "16384", "users": "4",
}  # fmt: skip


def test_more_cards_are_offered_for_more_llamacpp_slots(capsys: Any) -> None:
    at = run_page("memory", HOME_RIG)
    assert not at.exception
    assert any("1 concurrent conversation of 16k tokens" in w for w in texts(at.warning))
    assert not any("Nothing close does" in i for i in texts(at.info))  # was the only suggestion
    shown = "\n".join(plain(str(m.value)) for m in at.markdown)
    assert "- **3 GPUs (layers split over 3 GPUs)** → 4 conversations of 16k tokens" in shown
    params = nearest_link(shown, "3 GPUs")
    assert params["gpus"] == "3"
    opened = run_page("memory", params)
    assert any("4 concurrent conversations of 16k tokens" in s for s in texts(opened.success))
    assert main(["fit", "--model", params["model"], "--gpu", "rtx-3090", "--gpus", "3", "--weights", "q4_k_m",
                 "--engine", "llamacpp", "--context", "16384", "--users", "4", "--json"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["conversations_total"] == 4


def test_a_suggestion_claims_what_its_link_opens_for_the_target() -> None:
    """Qwen3-30B-A3B in BF16 (57 GiB) does not load on one RTX 5090, so any set-up that loads is offered; each was
    judged with one user (one llama.cpp slot: "→ 1 conversation") while its link opens the page for the reader's
    50 users, which launches as many slots as fit (2 on two cards, 4 in Q6_K on one)."""
    at = run_page("memory", {**HOME_RIG, "model": "Qwen/Qwen3-30B-A3B", "gpu": "rtx-5090", "gpus": "1",
                             "weights": "bf16", "users": "50"})  # fmt: skip
    assert any("do not fit" in e or "does not fit" in e for e in texts(at.error) + texts(at.warning)), texts(at.error)
    shown = "\n".join(plain(str(m.value)) for m in at.markdown)
    offered = [line for line in shown.splitlines() if line.startswith("- **") and "[open](" in line]
    assert len(offered) == 2, offered
    for line in offered:
        claimed = line.split("→ ")[1].split(" conversation")[0]
        opened = run_page("memory", nearest_link(shown, line.split("**")[1]))
        verdicts = texts(opened.warning)
        assert any(f"{claimed} concurrent conversation" in v for v in verdicts), (line, verdicts)
    # was → 1; → 3 with the split planned as even shards: llama.cpp puts 25 of the 48 layers on the first GPU
    assert "- **2 GPUs (layers split over 2 GPUs)** → 2 conversations of 16k tokens" in shown
