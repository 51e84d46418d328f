"""``make serve REPLICAS=N``: N Streamlit processes on loopback behind nginx on the team's address.

``python -m deploy.serve --replicas 2 --address 0.0.0.0 --port 8501 -- <Streamlit options>`` starts each process
with the given options (the Makefile's ``SERVE_FLAGS``, and ``SERVE_OPTIONS``) on a free loopback port, waits until
each is healthy, writes the nginx configuration (:func:`deploy.config.nginx_config`) to a private directory and
runs Debian's nginx in the foreground with it. Every process gets one cookie secret (Streamlit's XSRF tokens and
cookies then hold on every replica). It logs one line per replica (``replica 1 pid 1234 port 40123``) and stops
everything when it is stopped (SIGTERM, SIGINT) or when any process exits. ``--print-config`` prints the nginx
configuration it would use and exits.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from deploy import launch
from deploy.config import COOKIE_SECRET_ENV, HEALTH, ROOT, base_path, nginx_config

STARTUP_TIMEOUT_S = 90.0
LOOPBACK = "127.0.0.1"


def nginx_binary() -> str:
    """Debian's nginx (``apt-get install nginx``; ``.ci/run`` installs it)."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)
    if found is None:
        raise SystemExit("nginx is not installed (apt-get install nginx); REPLICAS=1 serves without it")
    return found


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (held open together while chosen)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in sockets:
            sock.bind((LOOPBACK, 0))
        return [int(sock.getsockname()[1]) for sock in sockets]


def replica_command(port: int, options: Sequence[str]) -> list[str]:
    return launch.command(ROOT / "app.py", [*options, "--server.address", LOOPBACK, "--server.port", str(port)])


def _healthy(port: int, prefix: str) -> bool:
    url = f"http://{LOOPBACK}:{port}{'/' + prefix if prefix else ''}{HEALTH}"
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.read() == b"ok")
    except OSError:
        return False


def _wait_healthy(processes: Sequence[subprocess.Popen[bytes]], ports: Sequence[int], prefix: str) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    waiting = list(zip(processes, ports, strict=True))
    while waiting:
        if any(process.poll() is not None for process, _ in waiting) or time.monotonic() > deadline:
            raise SystemExit("a Streamlit process did not start (its log is above)")
        waiting = [(process, port) for process, port in waiting if not _healthy(port, prefix)]
        time.sleep(0.2)


def _stop(processes: Sequence[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    deadline = time.monotonic() + 10
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def serve(replicas: int, address: str, port: int, options: Sequence[str]) -> int:
    """Run until stopped; the exit status of the first process that ended (0 when stopped by a signal)."""
    nginx = nginx_binary()
    prefix = base_path(options)
    ports = free_ports(replicas)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.setdefault(COOKIE_SECRET_ENV, secrets.token_hex(32))  # from the environment, never on a command line
    processes: list[subprocess.Popen[bytes]] = []
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with tempfile.TemporaryDirectory(prefix="headroom-nginx-") as run_dir:
        try:
            for index, replica_port in enumerate(ports, start=1):
                processes.append(subprocess.Popen(replica_command(replica_port, options), cwd=ROOT, env=env))
                print(f"replica {index} pid {processes[-1].pid} port {replica_port}", file=sys.stderr, flush=True)
            _wait_healthy(processes, ports, prefix)
            config = Path(run_dir) / "nginx.conf"
            servers = [f"{LOOPBACK}:{p}" for p in ports]
            config.write_text(nginx_config(servers, f"{address}:{port}", run_dir, prefix), encoding="utf-8")
            processes.append(
                subprocess.Popen([nginx, "-e", "stderr", "-p", run_dir, "-c", str(config), "-g", "daemon off;"])
            )
            print(f"nginx pid {processes[-1].pid} on {address}:{port}", file=sys.stderr, flush=True)
            while not stopping and all(process.poll() is None for process in processes):
                time.sleep(0.2)
            return 0 if stopping else next(p.returncode for p in processes if p.returncode is not None)
        finally:
            _stop(processes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--address", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--print-config", action="store_true", help="print the nginx configuration and exit")
    parser.add_argument("options", nargs="*", help="Streamlit options (after --)")
    args = parser.parse_args(argv)
    if args.replicas < 1:
        parser.error("--replicas must be at least 1")
    if args.print_config:
        servers = [f"{LOOPBACK}:{p}" for p in free_ports(args.replicas)]
        print(nginx_config(servers, f"{args.address}:{args.port}", "/tmp", base_path(args.options)), end="")
        return 0
    return serve(args.replicas, args.address, args.port, args.options)


if __name__ == "__main__":
    raise SystemExit(main())
