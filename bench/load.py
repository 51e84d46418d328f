"""The load test of ``make bench``: the dashboard on loopback, many concurrent visitors opening normal and hostile
links for a minute, and what the server did: errors, page-run times (p50 / p95) and its memory.

Each visitor is a Streamlit session driven the way the browser drives it: a websocket to ``/_stcore/stream``
speaking Streamlit's protobuf (``BackMsg.rerun_script`` with the link's query string and page; the server answers
with ``ForwardMsg`` deltas until ``script_finished``). A visit opens three links in one session, then the next
visitor connects. A page run is the time from the request to the run's end; an error is a run that did not
finish within :data:`RUN_TIMEOUT_S`, a connection that failed, a traceback element, or the dashboard's generic
apology (an unexpected exception caught by ``ui.guard``). The hostile links are the cases of issue 11: they must
end with a named note or error, quickly, like any other link.

``python -m bench.load --sessions 25 --seconds 60`` (the defaults); ``--json`` prints the figures as JSON. The attacker
mix (a visitor beside sessions looping the heaviest links) is :mod:`bench.attack`, which reuses :func:`_run_once`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from streamlit.components.v2.bidi_component.constants import EVENT_DELIM
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.typing import Origin, Subprotocol

from ui.custom_spec import pack_token

RUN_TIMEOUT_S = 40.0  # a page run's budget is 20 s (ui.frame.PAGE_BUDGET_SECONDS); queueing adds the rest
LINKS_PER_VISIT = 3
APOLOGY = "Something went wrong while drawing this view"  # ui.guard.guarded's message for an unexpected error
BUSY = "The server is busy"  # ui.turns: a run that got no turn within its budget, or stopped for lighter pages


def packed_spec(data: Any) -> str:
    """A link's ``spec`` for ``data`` (a config as JSON, a string as it is), packed as ui.custom_spec packs it."""
    raw = data.encode() if isinstance(data, str) else json.dumps(data).encode()
    return pack_token(raw)


LLAMA_8B = {
    "id": "x/y",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}
NORMAL: list[tuple[str, dict[str, str]]] = [
    ("", {"model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm-80gb", "gpus": "2", "context": "32768"}),
    ("", {"model": "deepseek-ai/DeepSeek-V3", "gpu": "h200-sxm-141gb", "gpus": "8", "engine": "vllm"}),
    ("", {"model": "Qwen/Qwen3-30B-A3B", "gpu": "rtx-4090", "engine": "llamacpp", "weights": "q4_k_m"}),
    ("what_if", {"model": "Qwen/Qwen3-30B-A3B"}),
    ("compare", {"model": "meta-llama/Llama-3.1-8B", "gpu": "rtx-4090"}),
    ("advisor", {"model": "meta-llama/Llama-3.1-70B", "users": "50"}),
    ("catalog", {}),
    ("custom", {"model": "meta-llama/Llama-4-Scout-17B-16E"}),
]
HOSTILE: list[tuple[str, dict[str, str]]] = [
    ("", {"spec": packed_spec({**LLAMA_8B, "num_hidden_layers": 1e6})}),  # the 189-character link
    ("", {"spec": packed_spec({**LLAMA_8B, "num_hidden_layers": 10**7, "layer_pattern": ["sliding", "full"]})}),
    ("", {"spec": packed_spec("[" * 3_000_000)}),  # 3M nested brackets in a 3.9 kB link
    ("", {"spec": packed_spec({**LLAMA_8B, "num_parameters": 16 * 10**9})}),  # a contradiction
    ("", {"spec": packed_spec({**LLAMA_8B, "max_position_embeddings": 2**60})}),
    ("", {"calib": "cal1~vllm~0.19.0~0.9~w\u00b2"}),
    ("", {"calib": "cal1~vllm~0.19.0~0.9~w" + "9" * 150}),
    ("", {"model": "<img src=x onerror=alert(1)>", "gpus": "NaN", "context": "-1", "junk": "1"}),
    ("what_if", {"context": "99999999999", "gpus": "1e9", "tp": "3", "curves": "nope/nope"}),
    ("advisor", {"users": "1e12", "ctx_mean": "0", "budget": "inf"}),
    ("custom", {"spec": packed_spec({**LLAMA_8B, "layer_pattern": ["full"] * 100_000})}),
]


@dataclass
class Stats:
    """What the visitors saw."""

    runs: list[float] = field(default_factory=list)  # seconds per page run
    hostile_runs: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    named_errors: int = 0  # st.error alerts (a hostile link's refusal is one)
    busy: int = 0  # of which the server's "busy" (ui.turns)
    visits: int = 0


async def _run_once(ws: ClientConnection, page: str, query: str, stats: Stats) -> float:
    """Ask for one page run with ``query``; the seconds until its end (a rerun the app asks for included, and the
    one a browser asks for once it has drawn a first paint's chart: :mod:`ui.first_paint`'s signal, answered here
    as soon as its run ends with the trigger a browser sends, :func:`drawn_signal`, so a cold link costs its two
    runs)."""
    message = BackMsg()
    message.rerun_script.query_string = query
    message.rerun_script.page_name = page
    start = time.perf_counter()
    await ws.send(message.SerializeToString())
    signalled = ""  # the first paint's signal (its element id), answered as a browser answers it
    async with asyncio.timeout(RUN_TIMEOUT_S):
        while True:
            data = await ws.recv()
            reply = ForwardMsg()
            reply.ParseFromString(data if isinstance(data, bytes) else data.encode())
            kind = reply.WhichOneof("type")
            if kind == "delta" and reply.delta.WhichOneof("type") == "new_element":
                element = reply.delta.new_element
                if element.WhichOneof("type") == "bidi_component":
                    signalled = element.bidi_component.id
                if element.WhichOneof("type") == "exception":
                    stats.errors["traceback shown"] += 1
                elif element.WhichOneof("type") == "alert" and element.alert.format == Alert.ERROR:
                    stats.named_errors += 1
                    stats.busy += BUSY in element.alert.body
                    if APOLOGY in element.alert.body:
                        stats.errors["unexpected exception (apology shown)"] += 1
            elif kind == "script_finished":
                if reply.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                if reply.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    stats.errors["script error"] += 1
                if signalled:  # the whole page, as the browser asks for it once the chart is drawn
                    await ws.send(drawn_signal(message, signalled).SerializeToString())
                    signalled = ""
                    continue
                return time.perf_counter() - start


def drawn_signal(asked: BackMsg, element_id: str) -> BackMsg:
    """The rerun a browser sends once it has drawn a first paint's chart: the page asked for again with the signal's
    trigger (``setTriggerValue("drawn")`` of :mod:`ui.first_paint`'s component, as Streamlit's frontend sends a
    component's events: a JSON list on the ``<prefix>_<id>__events`` trigger), so the server keeps the set-up's
    summary as it does for a browser (before 2026-12-06 the same request was sent again without it, and that run
    drew the set-up's whole editor)."""
    message = BackMsg()
    message.CopyFrom(asked)
    state = message.rerun_script.widget_states.widgets.add()
    state.id = f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{element_id}{EVENT_DELIM}events"
    state.json_trigger_value = json.dumps([{"event": "drawn", "value": True}])
    return message


Link = tuple[str, dict[str, str], bool]  # page, parameters, hostile


def mixed_links() -> list[Link]:
    """The default mix: every normal and every hostile link, each as likely."""
    return [(page, params, False) for page, params in NORMAL] + [(page, params, True) for page, params in HOSTILE]


async def _visitor(base: str, deadline: float, stats: Stats, rng: random.Random, links: list[Link]) -> None:
    stream = base.replace("http://", "ws://", 1) + "/_stcore/stream"
    while time.monotonic() < deadline:
        stats.visits += 1
        try:
            async with connect(
                stream, subprotocols=[Subprotocol("streamlit")], origin=Origin(base), max_size=None, open_timeout=30
            ) as ws:
                for _ in range(LINKS_PER_VISIT):
                    page, params, hostile = rng.choice(links)
                    seconds = await _run_once(ws, page, urlencode(params), stats)
                    (stats.hostile_runs if hostile else stats.runs).append(seconds)
                    if time.monotonic() >= deadline:
                        break
        except TimeoutError:
            stats.errors["run past the timeout"] += 1
        except (OSError, WebSocketException) as exc:
            stats.errors[f"connection: {type(exc).__name__}"] += 1


def _rss_mb(pid: int, field_name: str = "VmRSS") -> float:
    """A memory figure of process ``pid`` from /proc (MiB): VmRSS now, VmHWM its peak."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field_name}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _sample_memory(pid: int, until: float, samples: list[float]) -> None:
    while time.monotonic() < until:
        samples.append(_rss_mb(pid))
        await asyncio.sleep(0.5)


async def measure(base: str, sessions: int, seconds: float, links: list[Link], seed: int = 11) -> Stats:
    """``sessions`` concurrent visitors for ``seconds`` against the dashboard at ``base``, each opening ``links``
    at random; what they saw."""
    stats = Stats()
    deadline = time.monotonic() + seconds
    await asyncio.gather(*(_visitor(base, deadline, stats, random.Random(seed + i), links) for i in range(sessions)))
    return stats


def run_times(stats: Stats) -> dict[str, Any]:
    """The page-run figures of ``stats`` (milliseconds)."""
    every = stats.runs + stats.hostile_runs
    quantiles = statistics.quantiles(every, n=20, method="inclusive") if len(every) >= 2 else [float("nan")] * 19

    def ms(values: list[float]) -> float:
        return round(statistics.median(values) * 1000, 1) if values else float("nan")

    return {
        "visits": stats.visits,
        "page_runs": len(every),
        "hostile_runs": len(stats.hostile_runs),
        "errors": sum(stats.errors.values()),
        "errors_by_kind": dict(stats.errors),
        "named_errors_shown": stats.named_errors,
        "busy_shown": stats.busy,
        "page_run_p50_ms": ms(every),
        "page_run_p95_ms": round(quantiles[18] * 1000, 1),
        "page_run_max_ms": round(max(every) * 1000, 1) if every else float("nan"),
        "normal_p50_ms": ms(stats.runs),
        "hostile_p50_ms": ms(stats.hostile_runs),
    }


async def load(
    base: str, sessions: int, seconds: float, pid: int | None = None, seed: int = 11, links: list[Link] | None = None
) -> dict[str, Any]:
    """``sessions`` concurrent visitors for ``seconds`` against the dashboard at ``base`` (the mix of normal and
    hostile links unless ``links``); the figures, with the memory of process ``pid``."""
    start = time.monotonic()
    samples: list[float] = []
    rss_start = _rss_mb(pid) if pid else None
    sampler = asyncio.create_task(_sample_memory(pid, start + seconds + RUN_TIMEOUT_S, samples)) if pid else None
    stats = await measure(base, sessions, seconds, mixed_links() if links is None else links, seed)
    if sampler is not None:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
    return {
        "sessions": sessions,
        "seconds": round(time.monotonic() - start, 1),
        **run_times(stats),
        "server_rss_start_mb": round(rss_start, 1) if rss_start else None,
        "server_rss_max_sampled_mb": round(max(samples), 1) if samples else None,
        "server_peak_rss_mb": round(_rss_mb(pid, "VmHWM"), 1) if pid else None,
    }


def run(sessions: int = 25, seconds: float = 60) -> dict[str, Any]:
    """Start the dashboard on loopback, load it, stop it; the figures and the server's logged tracebacks."""
    from tests.browser.server import running_server

    with running_server() as server:
        figures = asyncio.run(load(server.base, sessions, seconds, server.process.pid))
        time.sleep(0.5)  # the last log lines
        figures["server_tracebacks_logged"] = sum("Traceback" in line for line in server.log)
    return figures


# The team's case (issue 24): everyone opens the same shared link (the 70B link of NORMAL).
SAME_LINK: list[Link] = [("", dict(NORMAL[0][1]), False)]
_REPLICA = re.compile(r"replica (\d+) pid (\d+) port (\d+)")


def same_link(sessions: int = 25, seconds: float = 60) -> dict[str, Any]:
    """``sessions`` visitors opening one link on one Streamlit process served as ``make serve`` serves it (the
    answer is planned once and shared, :mod:`ui.shared_cache`)."""
    from tests.browser.server import running_server

    with running_server(production=True) as server:
        figures = asyncio.run(load(server.base, sessions, seconds, server.process.pid, links=SAME_LINK))
        time.sleep(0.5)
        figures["server_tracebacks_logged"] = sum("Traceback" in line for line in server.log)
    return figures


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` (/proc/<pid>/stat, clock ticks of 1/100 s)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _replica_pids(server: Any, count: int) -> list[int]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [int(m.group(2)) for line in list(server.log) if (m := _REPLICA.search(line))]
        if len(found) >= count:
            return found[:count]
        time.sleep(0.1)
    raise RuntimeError("the replicas' pids were not logged")


def replicas_compared(
    counts: tuple[int, ...] = (1, 2), sessions: int = 25, seconds: float = 60, links: list[Link] | None = None
) -> dict[int, dict[str, Any]]:
    """The load test against ``make serve REPLICAS=n`` (nginx and n Streamlit processes) for each n of
    ``counts``, all started at once and loaded in turn, in two alternating rounds (1, 2, 2, 1) of half the time
    each so that the machine's other work weighs on both alike; each count's figures over both rounds, with the
    CPU seconds each replica used (how evenly the proxy spread the sessions)."""
    from deploy.config import serve_flags
    from tests.browser.server import free_port, running_server

    chosen = mixed_links() if links is None else links
    order = [*counts, *reversed(counts)]
    with contextlib.ExitStack() as stack:
        servers, pids = {}, {}
        for count in counts:
            port = free_port()
            command = [sys.executable, "-m", "deploy.serve", "--replicas", str(count), "--address", "127.0.0.1",
                       "--port", str(port), "--", *serve_flags()]  # fmt: skip
            servers[count] = stack.enter_context(running_server(command=command, port=port))
            pids[count] = _replica_pids(servers[count], count)
            asyncio.run(measure(servers[count].base, 3, 3, chosen))  # warm: imports, the catalog, the planner
        stats = {count: Stats() for count in counts}
        cpu = {count: [0.0] * count for count in counts}
        for round_index, count in enumerate(order):
            before = [_cpu_seconds(pid) for pid in pids[count]]
            got = asyncio.run(measure(servers[count].base, sessions, seconds / 2, chosen, seed=11 + 100 * round_index))
            cpu[count] = [c + _cpu_seconds(pid) - b for c, pid, b in zip(cpu[count], pids[count], before, strict=True)]
            _merge(stats[count], got)
        time.sleep(0.5)
        return {
            count: {
                "replicas": count,
                "sessions": sessions,
                "seconds": seconds,
                **run_times(stats[count]),
                "replica_cpu_seconds": [round(c, 1) for c in cpu[count]],
                "replica_peak_rss_mb": [round(_rss_mb(pid, "VmHWM"), 1) for pid in pids[count]],
                "server_tracebacks_logged": sum("Traceback" in line for line in servers[count].log),
            }
            for count in counts
        }


def _merge(into: Stats, more: Stats) -> None:
    into.runs += more.runs
    into.hostile_runs += more.hostile_runs
    into.errors.update(more.errors)
    into.named_errors += more.named_errors
    into.visits += more.visits


def print_figures(figures: dict[str, Any], as_json: bool) -> None:
    """A run's figures on stdout: as indented JSON, or a name a line with the values aligned (``bench.load``,
    ``bench.attack``)."""
    if as_json:
        print(json.dumps(figures, indent=2))
        return
    width = max(len(k) for k in figures)
    for name, value in figures.items():
        print(f"{name.ljust(width)}  {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load")
    parser.add_argument("--sessions", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = run(args.sessions, args.seconds)
    print_figures(figures, args.json)
    return 1 if figures["errors"] or figures["server_tracebacks_logged"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
