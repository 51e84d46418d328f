"""A link naming a model by a catalog alias (an instruct checkpoint with its entry's config shapes) opens the entry
and says so, as the CLI does (``model_catalog.resolve_model_id``; the review of 2026-12-07, finding 3)."""

from __future__ import annotations

from tests.app.conftest import run_page

NOTE = "Llama-3.1-70B-Instruct: planned as the catalog's Llama 3.1 70B (meta-llama/Llama-3.1-70B), same shapes"


def test_an_instruct_id_in_a_link_opens_its_catalog_entry_and_says_so() -> None:
    at = run_page("memory", {"model": "meta-llama/Llama-3.1-70B-Instruct"})
    assert not [w.value for w in at.warning if "ignored" in str(w.value)]
    assert any("Llama 3.1 70B" in str(t.value).replace("\\", "") for t in at.title)
    assert at.session_state["model"] == "meta-llama/Llama-3.1-70B"
    shown = [str(i.value).replace("\\", "") for i in at.info]
    assert NOTE in shown


def test_the_model_box_offers_an_entry_by_its_aliases_names() -> None:
    at = run_page("memory", {"model": "meta-llama/Llama-3.1-70B"}, editor=True)
    box = at.selectbox(key="model")
    assert box.value == "meta-llama/Llama-3.1-70B"
    assert "meta-llama/Llama-3.1-70B (also Llama-3.1-70B-Instruct, Meta-Llama-3.1-70B-Instruct)" in box.options
    assert not [i for i in at.info if "planned as the catalog's" in str(i.value)]
