"""Start the dashboard on a free loopback port and drive Debian's Chromium with Playwright (no downloads)."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from deploy import launch
from deploy.config import serve_flags as production_flags
from ui import first_paint

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


# Every widget kind of the sidebar's set-up is drawn (in the DOM: a phone's collapsed sidebar holds them too). Not the
# text box: the Hub import box is not drawn while a custom model is planned (ui.sidebar._custom_model comes first).
SETUP_KINDS = ("stSelectbox", "stNumberInput", "stSlider", "stButtonGroup")
SETUP_DRAWN = (
    f"() => {list(SETUP_KINDS)}"
    ".every(kind => document.querySelector(`[data-testid='stSidebar'] [data-testid=${kind}]`))"
)
# The set-up's summary and the expander that opens the editor (ui.setup_summary): at the top of the sidebar on a cold
# link's first run, at the main column's end while a cold link to the Memory page keeps its sidebar collapsed
# (ui.first_paint.sidebar_state).
SUMMARY = ".st-key-setup_summary"
SUMMARY_OPEN = f"{SUMMARY} [data-testid='stExpander'] summary"
SETUP_SHOWN = f'() => !!document.querySelector("{SUMMARY}") || ({SETUP_DRAWN})()'
# No first-paint signal left on the page (ui.first_paint: the answer-only run's, gone once the page is whole).
PAGE_WHOLE = f"() => !document.querySelector('[{first_paint.MARK}]')"


def chromium_path() -> str | None:
    return CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_flags(port: int, address: str) -> list[str]:
    """The options ``make serve`` passes to ``streamlit run`` (the Makefile's ``SERVE_FLAGS``, read by
    :func:`deploy.config.serve_flags`, so that a test serves the dashboard exactly as a team would), with the port
    and the address filled in."""
    return ["--server.address", address, "--server.port", str(port), *production_flags()]


@contextlib.contextmanager
def running_app(
    timeout_s: float = 60,
    script: Path = ROOT / "app.py",
    address: str = "127.0.0.1",
    production: bool = False,
    base_path: str = "",
) -> Iterator[str]:
    """``streamlit run <script>`` (the dashboard by default) on ``address``:<free port>; yields the base URL
    (on ``address``; 127.0.0.1 when it binds every interface; with ``base_path``, the prefix a reverse proxy
    would add) and stops it afterwards. ``production``: with the options of ``make serve``."""
    with running_server(timeout_s, script, address, production, base_path) as server:
        yield server.base


@dataclasses.dataclass
class Server:
    """A running dashboard: its base URL, its process, and the last lines it logged (stderr is drained, so a
    chatty server never blocks on a full pipe)."""

    base: str
    process: subprocess.Popen[bytes]
    log: collections.deque[str] = dataclasses.field(default_factory=lambda: collections.deque(maxlen=2_000))

    def drain(self) -> None:
        assert self.process.stderr is not None
        with contextlib.suppress(ValueError, OSError):  # the pipe closed under the thread
            for line in self.process.stderr:
                self.log.append(line.decode("utf-8", errors="replace").rstrip())


def streamlit_command(
    port: int, script: Path = ROOT / "app.py", address: str = "127.0.0.1", production: bool = False, base_path: str = ""
) -> list[str]:
    """``python -m deploy.launch run <script>`` (Streamlit with TCP_NODELAY) on ``address``:``port``, with the
    options of ``make serve`` when ``production``."""
    flags = [
        *("--server.port", str(port), "--server.address", address, "--server.headless", "true"),
        *("--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"),
    ]
    return launch.command(
        script,
        [
            *(serve_flags(port, address) if production else flags),
            *(["--server.baseUrlPath", base_path] if base_path else []),
        ],
    )


def make_command(target: str, port: int, address: str = "127.0.0.1", *variables: str) -> list[str]:
    """``make <target>`` as a person types it (``make run``, ``make serve``, with ``variables`` such as
    ``REPLICAS=2``), on ``port``, with this interpreter's virtual environment as the Makefile's ``VENV`` (it is
    already installed, so make only starts the server)."""
    venv = Path(sys.executable).resolve().parents[1] if sys.prefix != sys.base_prefix else ROOT / ".venv"
    return ["make", "-s", "-C", str(ROOT), target, f"PORT={port}", f"ADDRESS={address}", f"VENV={venv}", *variables]


@contextlib.contextmanager
def running_server(
    timeout_s: float = 60,
    script: Path = ROOT / "app.py",
    address: str = "127.0.0.1",
    production: bool = False,
    base_path: str = "",
    command: list[str] | None = None,
    port: int | None = None,
) -> Iterator[Server]:
    """As :func:`running_app`, yielding the :class:`Server` (the load test reads its memory and its log).
    ``command`` (with its ``port``) replaces ``streamlit run`` (a ``make`` target); the whole process group is
    stopped afterwards."""
    port = port or free_port()
    command = command or streamlit_command(port, script, address, production, base_path)
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,  # make's child streamlit is stopped with it
    )
    base = f"http://{'127.0.0.1' if address == '0.0.0.0' else address}:{port}" + (f"/{base_path}" if base_path else "")
    drain: threading.Thread | None = None
    try:
        _wait_until_healthy(base, process, timeout_s)
        server = Server(base, process)
        drain = threading.Thread(target=server.drain, daemon=True)
        drain.start()
        yield server
    finally:
        _stop(process)
        if drain is not None:
            drain.join(timeout=5)  # the pipe reaches its end once the process has exited
        if process.stderr is not None:
            with contextlib.suppress(ValueError, OSError):
                process.stderr.close()


def _wait_until_healthy(base: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                error = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"the dashboard did not start: {error[-2000:]}") from None
            time.sleep(0.2)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group (make and the server it started), then SIGKILL after 10 s."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


# A chart drawn: a Plotly chart's SVG, or the advisor's Vega-Lite chart (ui/pareto.py) once its marks are in.
CHART_DRAWN = (
    "[data-testid='stPlotlyChart'] .main-svg, "
    "[data-testid='stVegaLiteChart'] svg .role-mark, [data-testid='stVegaLiteChart'] canvas"
)


def wait_for_chart(page: Any, timeout_ms: int = 30_000) -> None:
    """Until Streamlit has finished the run, a chart is drawn (:data:`CHART_DRAWN`), the page is whole (a cold link's
    first run draws the answer alone and reruns once the chart is drawn: :mod:`ui.first_paint`) and the set-up is
    drawn: its summary
    (a cold link's first run) or the editor's widgets (the frame draws them after the page's answer,
    :mod:`ui.deferred`, and each widget kind's script is fetched when it is first drawn, so on a cold link they may
    come a moment after the chart)."""
    page.wait_for_selector(CHART_DRAWN, timeout=timeout_ms)
    page.wait_for_function(PAGE_WHOLE, timeout=timeout_ms)
    page.wait_for_function("() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=timeout_ms)
    page.wait_for_function(SETUP_SHOWN, timeout=timeout_ms)


def setup_visible(page: Any) -> bool:
    """Whether the shared set-up is on screen: its summary (a cold link) or the editor (its Model box)."""
    return bool(page.locator(SUMMARY).is_visible() or page.get_by_role("combobox", name="Model").is_visible())


def open_setup(page: Any, timeout_ms: int = 30_000) -> None:
    """Open the set-up's editor the way a reader does (one click on the summary's expander, when the summary is
    shown) and wait until its widgets are drawn and the run has finished. Every test that drives a sidebar widget
    calls it first."""
    if page.locator(SUMMARY).count():
        page.locator(SUMMARY_OPEN).click()
        page.wait_for_function(f'() => !document.querySelector("{SUMMARY}")', timeout=timeout_ms)  # the editor's run
    page.wait_for_function(SETUP_DRAWN, timeout=timeout_ms)
    page.get_by_role("combobox", name="Model").wait_for(state="visible", timeout=timeout_ms)  # the sidebar open
    page.wait_for_function("() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=timeout_ms)


def share_link(page: Any) -> str:
    """The link in the page's "Share and export" box, opened the way a reader opens it."""
    page.get_by_text("Share and export", exact=True).click()
    code = page.locator("[data-testid='stCode']").filter(has_text="?model=").first
    code.wait_for(timeout=30_000)
    return str(code.inner_text()).strip()
