"""The set-up summary's "Launch" line writes vLLM's multimodal counts as its command does: one
``--limit-mm-per-prompt`` JSON with audio's own count as a key (review of the fifty-fifth session's merge: it wrote
``--limit-mm-per-prompt 2 --limit-mm-audio 0``, and vLLM has no ``--limit-mm-audio`` flag; 0.29.0
``config/multimodal.py`` reads one JSON of counts by modality)."""

from __future__ import annotations

from ui.setup_summary import lines
from ui.state import Selection

E2B = "google/gemma-4-E2B-it"


def _launch(**kw: object) -> str:
    sel = Selection.model_validate({"model_id": E2B, "engine": "vllm", **kw})
    return dict(lines(sel)).get("Launch", "")


def test_audio_count_is_a_key_of_the_one_json() -> None:
    words = _launch(limit_mm_per_prompt=2, limit_mm_audio=0)
    assert words == """--limit-mm-per-prompt '{"image": 2, "video": 2, "audio": 0}'"""
    assert "--limit-mm-audio" not in words


def test_audio_alone_and_other_flags_kept() -> None:
    assert _launch(limit_mm_audio=0, max_num_seqs=4) == """--max-num-seqs 4 --limit-mm-per-prompt '{"audio": 0}'"""


def test_language_model_only_writes_no_counts() -> None:
    assert _launch(language_model_only=True, limit_mm_per_prompt=2) == "--language-model-only"
