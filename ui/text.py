"""Words and numbers for people, shared by the pages: the planner's own wording (:mod:`planner.assess`) with
the dashboard's unit choice. Every memory figure names its unit (GiB = 2^30 bytes, GB = 10^9)."""

from __future__ import annotations

from planner.assess import context_label, mem, setup_label, verdict_sentence

__all__ = ["context_label", "mem", "sentence", "setup_label", "verdict_sentence"]


def sentence(text: str) -> str:
    """``text`` ending like a sentence (a message from elsewhere may lack its full stop).

    >>> sentence("the Hub did not answer"), sentence("done.")
    ('the Hub did not answer.', 'done.')
    """
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else text + "."
