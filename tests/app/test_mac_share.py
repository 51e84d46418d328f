"""A Mac plan that misses its target offers the smallest GPU-share raise that meets it, with its sysctl command,
and the link opens that plan: the Deployment section's GPU share (``gpu_share``) plans the same memory (outside
review, 2026-12-05: the Memory page offered a second Mac, q6_k or a shorter context, never the free fix)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from tests.app.conftest import run_page

MAC = {
    "model": "meta-llama/Llama-3.1-70B", "gpu": "apple-m4-max", "engine": "llamacpp", "weights": "q8_0",
    "context": "32768", "users": "3",
}  # fmt: skip


def _share_line(at: object) -> str:
    lines = [m.value for m in at.markdown if "share of memory" in m.value]  # type: ignore[attr-defined]
    assert lines, "no GPU-share fix offered"
    return lines[0]


def test_the_share_fix_is_offered_and_its_link_plans_it() -> None:
    at = run_page("memory", MAC)
    assert not at.exception, [e.value for e in at.exception]
    line = _share_line(at)
    assert "79%" in line and "iogpu.wired" in line and "103547" in line, line
    link = line.split("](")[1].rstrip(")")
    params = {k: v[0] for k, v in parse_qs(urlparse(link).query).items()}
    assert params["gpu_share"] == "0.79", params
    opened = run_page("memory", params)
    assert not opened.exception, [e.value for e in opened.exception]
    assert not any("share of memory" in m.value for m in opened.markdown)  # it meets the target now
    assert any("3 concurrent conversations" in m.value.replace("\\", "") for m in opened.success)


def test_a_card_has_no_share_to_set() -> None:
    at = run_page("memory", {**MAC, "gpu": "rtx-4090", "gpu_share": "0.9"}, editor=True)
    assert not at.exception, [e.value for e in at.exception]
    assert at.query_params["gpu_share"] in ("0", ["0"])  # ignored, and said so
    assert any("has memory of its own" in w.value for w in at.warning)
