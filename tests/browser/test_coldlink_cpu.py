"""``python -m bench.coldlink_cpu`` counts the renderer's main-thread CPU of a cold link in a Chrome trace: its
phases end in order in the page's clock, and the CPU it counts is the page's own work (a fixed amount of script
before the mark is counted in the last phase, whatever the machine's load; the idle wait before it is not; by
file, in V8's profile, the script before the mark is counted and the script after it is not)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from bench.coldlink_cpu import PHASES, cold_cpu, cold_profile

# A stand-in for each phase: the first websocket message noted at once, a "chart script" requested at ~50 ms (any
# URL of that name: the resource timing finds it), at ~400 ms a fixed amount of script (~0.1-0.3 s of one core on
# this machine), then the mark.
PAGE = (
    "<body><script>window.__headroomWs.push(performance.now());"
    "setTimeout(() => fetch('%s/ArrowVegaLiteChart.js', {mode: 'no-cors'}).catch(() => 0), 50);"
    "setTimeout(() => { let x = 0; for (let i = 0; i < 3e8; i++) { x = (x + i) %% 1000003; } window.__x = x;"
    " const mark = document.createElement('p'); mark.id = 'mark'; document.body.appendChild(mark); }, 400);"
    "</script></body>"
)


def test_the_phases_end_in_order_and_the_busy_script_is_counted(browser: Any, app_url: str) -> None:
    found = cold_cpu(browser, "data:text/html," + quote(PAGE % app_url), {"chart": "#mark"})
    walls = [found[f"wall {name}"] for name in PHASES]
    assert walls == sorted(walls) and walls[-1] >= 400
    cpu = sum(found.get(f"phase {name}", 0.0) for name in PHASES)
    assert cpu == pytest.approx(found["kind total"])
    assert found["phase to chart"] >= 50  # the script's work
    assert cpu < walls[-1] - 300  # not the 400 ms the page waited


def busy(steps: str) -> str:
    """A busy loop of ``steps`` steps (one core on this machine: ~0.1-0.3 s for 3e8)."""
    return f"let x = 0; for (let i = 0; i < {steps}; i++) {{ x = (x + i) % 1000003; }} window.__x = x;"


# The loop, the mark, then ten times as much.
PROFILED = (
    f"<body><script>setTimeout(() => {{ {busy('3e8')}"
    " const mark = document.createElement('p'); mark.id = 'mark'; document.body.appendChild(mark);"
    f" setTimeout(() => {{ {busy('3e9')} }}, 0); }}, 100);</script></body>"
)


def test_the_profile_counts_the_script_before_the_mark_alone(browser: Any) -> None:
    found = cold_profile(browser, "data:text/html," + quote(PROFILED), {"chart": "#mark"})
    before = sum(ms for name, ms in found.items() if not name.startswith("("))
    assert before >= 50  # the loop before the mark
    assert sum(found.values()) < 10 * before / 2  # not the loop after it, ten times as long
