"""Thirty-odd malformed links: every page still opens, names the ignored parameters, and raises nothing."""

from __future__ import annotations

import pytest

from tests.app.conftest import PAGES, run_page
from ui.frame import safe_name

# (parameters, names that must be reported as ignored)
MALFORMED: list[tuple[dict[str, str | list[str]], set[str]]] = [
    ({"model": "no-such/model"}, {"model"}),
    ({"model": ""}, {"model"}),
    ({"model": "<script>alert(1)</script>"}, {"model"}),
    ({"model": "meta-llama/Llama-3.1-8B'; DROP TABLE"}, {"model"}),
    ({"gpu": "h100"}, {"gpu"}),
    ({"gpu": "H100-SXM-80GB-X"}, {"gpu"}),
    ({"gpus": "-1"}, {"gpus"}),
    ({"gpus": "0"}, {"gpus"}),
    ({"gpus": "65"}, {"gpus"}),  # any count up to 64 is a setting (3 used to be refused: issue 22)
    ({"gpus": "1e9"}, {"gpus"}),
    ({"gpus": "NaN"}, {"gpus"}),
    ({"gpus": "two"}, {"gpus"}),
    ({"tp": "3"}, {"tp"}),
    ({"tp": "8"}, {"tp"}),
    ({"pp": "0"}, {"pp"}),
    ({"weights": "int3"}, {"weights"}),
    ({"weights": "BF16X"}, {"weights"}),
    ({"kv": "fp4"}, {"kv"}),
    ({"kv": "**bold**"}, {"kv"}),
    ({"engine": "tensorrt"}, {"engine"}),
    ({"context": "-4096"}, {"context"}),
    ({"context": "0"}, {"context"}),
    ({"context": "99999999999"}, {"context"}),
    ({"context": "NaN"}, {"context"}),
    ({"context": "inf"}, {"context"}),
    ({"context": "4.5k"}, {"context"}),
    ({"context": "4kb"}, {"context"}),
    ({"context": "4096.5"}, {"context"}),
    ({"users": "-3"}, {"users"}),
    ({"users": "1e12"}, {"users"}),
    ({"users": "many"}, {"users"}),
    ({"unit": "MB"}, {"unit"}),
    ({"utm_source": "newsletter"}, {"utm_source"}),
    ({"<b>x</b>": "1"}, {"<b>x</b>"}),
    ({"model": "Qwen/Qwen3-8B", "gpu": "not-a-gpu", "context": "abc", "kv": "fp8"}, {"gpu", "context"}),
    ({"gpus": "8", "tp": "5", "weights": "fp8"}, {"tp"}),
]


def test_names_in_another_case_are_read_as_offered() -> None:
    """Catalog ids and option names in another letter case (``H100-SXM-80GB``, ``BF16``) are read as the offered
    name, as ``fit`` and ``advise`` read them; nothing is ignored."""
    at = run_page("memory", {"gpu": "H100-SXM-80GB", "weights": "BF16", "model": "META-LLAMA/LLAMA-3.1-8B"})
    assert not at.exception and not [w.value for w in at.warning if "ignored" in w.value]
    assert "8B on 1 × H100 SXM5 80GB" in at.title[0].value


def _ignored_note(at) -> str:
    notes = [w.value for w in at.warning if "ignored" in w.value]
    assert len(notes) == 1, [w.value for w in at.warning]
    return notes[0]


@pytest.mark.parametrize(("params", "ignored"), MALFORMED, ids=[str(i) for i in range(len(MALFORMED))])
def test_malformed_link_on_memory_page(params, ignored) -> None:
    at = run_page("memory", params)
    assert not at.exception, [e.value for e in at.exception]
    note = _ignored_note(at)
    for name in ignored:
        assert f"`{safe_name(name)}`" in note, (name, note)
    assert at.title, "the page still draws its content"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_page_survives_a_hostile_link(page: str) -> None:
    params = {
        "model": "<img src=x onerror=alert(1)>",
        "gpus": "NaN",
        "context": "-1",
        "unit": "%00",
        "curves": ["nope/nope"],
        "combos": ["x/y"],
        "junk": "1",
    }
    at = run_page(page, params)
    assert not at.exception
    note = _ignored_note(at)
    for name in ("model", "gpus", "context", "unit", "junk"):
        assert name in note
    rendered = " ".join(str(m.value) for m in at.markdown)
    assert "<img" not in rendered


def test_an_experts_only_layout_on_a_dense_model_says_why() -> None:
    """A link asking a dense model for a MoE checkpoint's layout (nvfp4-experts) opens with nvfp4 and says the model
    has no experts, not that the engine does not run the format."""
    at = run_page("memory", {"model": "meta-llama/Llama-3.1-8B", "weights": "nvfp4-experts", "gpu": "b200-sxm"})
    assert not at.exception
    note = _ignored_note(at)
    assert "mixture\\-of\\-experts checkpoint's layout, and this model has no experts" in note, note
    assert "planned with nvfp4" in note, note


def test_a_negative_number_is_named_as_below_the_least() -> None:
    """'gpus=-3' and 'users=-5' were noted as '(not a whole number)' (browser audit, 2026-12-05)."""
    at = run_page("memory", {"gpus": "-3", "users": "-5"})
    note = _ignored_note(at).replace("\\", "")
    assert "`gpus` = `-3` (below the least, 1)" in note and "`users` = `-5` (below the least, 1)" in note, note


def test_a_number_too_large_is_named_as_outside_the_range() -> None:
    """'users=1000000000000' and 'users=1e12' were noted as '(not a whole number)' (a review, 2026-12-07): a number
    of ASCII digits beyond the range is outside it, and one written with an exponent is a number in a form the link
    does not take, each said so."""
    at = run_page("memory", {"users": "1000000000000"})
    note = _ignored_note(at).replace("\\", "")
    assert "`users` = `1000000000000` (outside 1–100,000)" in note, note
    at = run_page("memory", {"users": "1e12"})
    note = _ignored_note(at).replace("\\", "")
    assert "`users` = `1e12` (not a whole number in digits: no exponent or decimal point)" in note, note


def test_a_pue_below_one_is_named_not_dropped() -> None:
    """'pue=0.1' on the advisor was planned at the catalog's PUE with no word (outside review, 2026-12-05): a PUE
    is 0 (the catalog's) or at least 1, and the link says which it ignored and why."""
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-8B", "users": "4", "pue": "0.1"})
    assert not at.exception
    note = _ignored_note(at).replace("\\", "")
    assert "`pue` = `0.1` (0 (the default) or 1–5)" in note, note


def test_a_context_as_the_slider_labels_it_is_read_and_a_bad_value_is_named() -> None:
    """``context=32k`` (the slider's own label) had been ignored for the default 8,192, flipping the verdict, and the
    notice named the parameter but not the value (a manager's review, 2026-12-06)."""
    at = run_page("memory", {"model": "Qwen/Qwen3-8B", "context": "32k"})
    assert not [w.value for w in at.warning if "ignored" in w.value]
    assert "32k tokens" in " ".join(str(m.value) for m in at.markdown) + " ".join(str(s.value) for s in at.success)
    note = _ignored_note(run_page("memory", {"context": "32 K<b>"}))
    assert "`context` = `32?K?b?`" in note and "<b>" not in note, note


def test_a_repeated_parameter_is_named_by_the_value_read() -> None:
    """``?context=32k&context=abc``: the last value is the one read, so the notice names it (it had named the first,
    a valid one)."""
    note = _ignored_note(run_page("memory", {"context": ["32k", "abc"]}))
    assert "`context` = `abc` (not a token count" in note, note
