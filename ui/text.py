"""Words and numbers for people, shared by the pages: the planner's own wording (:mod:`planner.assess`) with
the dashboard's unit choice. Every memory figure names its unit (GiB = 2^30 bytes, GB = 10^9)."""

from __future__ import annotations

from planner.assess import context_label, mem, setup_label, verdict_sentence

__all__ = ["context_label", "mem", "setup_label", "verdict_sentence"]
