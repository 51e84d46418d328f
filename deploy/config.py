"""The one source of how Headroom is served: Streamlit's production options (the Makefile's ``SERVE_FLAGS``) and
the nginx configuration (``deploy/nginx.conf.template``), for ``make serve``, the compose file and the manifest."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
COOKIE = "headroom_replica"  # the sticky-session cookie (nginx here, the ingress's affinity cookie in Kubernetes)
MAX_BODY = "2m"  # Streamlit's 1 MB upload limit (.streamlit/config.toml) and the multipart envelope
READ_TIMEOUT_S = 3600  # an idle websocket (an open tab) is kept this long by the proxy
STREAMLIT_PORT = 8501  # inside a container or pod
_ADDRESS = re.compile(r"\d{1,3}(\.\d{1,3}){3}:\d{1,5}")
HEALTH = "/_stcore/health"
COOKIE_SECRET_ENV = "STREAMLIT_SERVER_COOKIE_SECRET"  # one secret for every replica (XSRF tokens, cookies)


def serve_flags() -> list[str]:
    """Streamlit's production options, as ``make serve`` passes them (the Makefile's ``SERVE_FLAGS``), without
    the address and the port."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^SERVE_FLAGS :=(.*?)(?<!\\)\n", makefile, flags=re.MULTILINE | re.DOTALL)
    if match is None:
        raise RuntimeError("the Makefile defines no SERVE_FLAGS")
    return match.group(1).replace("\\\n", " ").split()


def base_path(flags: Sequence[str]) -> str:
    """The path prefix among Streamlit options (``--server.baseUrlPath headroom`` -> ``headroom``), or ``''``."""
    for index, flag in enumerate(flags):
        if flag == "--server.baseUrlPath" and index + 1 < len(flags):
            return flags[index + 1].strip("/")
        if flag.startswith("--server.baseUrlPath="):
            return flag.split("=", 1)[1].strip("/")
    return ""


def nginx_config(servers: Sequence[str], listen: str, run_dir: str, prefix: str = "") -> str:
    """The nginx configuration for ``servers`` (``IPv4:port`` of each Streamlit process, as nginx names the
    upstream that answered), listening on ``listen`` (``address:port`` or a port), its pid and temporary files
    under ``run_dir``; with a path ``prefix``, the bare root redirects to it."""
    if not servers or any(not _ADDRESS.fullmatch(server) for server in servers):
        raise ValueError(f"Streamlit processes as IPv4:port, at least one: {list(servers)}")
    redirect = f"        location = / {{\n            return 302 /{prefix}/;\n        }}\n" if prefix else ""
    fields = {
        "@SERVERS@": "\n".join(f"        server {server} max_fails=3 fail_timeout=10s;" for server in servers),
        "@PINNED@": "\n".join(_pinned(index, servers) for index in range(len(servers))),
        "@PINNED_MAP@": "\n".join(f'        "{i + 1}" headroom_{i + 1};' for i in range(len(servers))),
        "@ADDRESS_MAP@": "\n".join(f'        "{server}" "{i + 1}";' for i, server in enumerate(servers)),
        "@LISTEN@": listen,
        "@RUN_DIR@": run_dir,
        "@COOKIE@": COOKIE,
        "@MAX_BODY@": MAX_BODY,
        "@READ_TIMEOUT@": f"{READ_TIMEOUT_S}s",
        "@ROOT_REDIRECT@\n": redirect,
    }
    text = TEMPLATE.read_text(encoding="utf-8")
    for field, value in fields.items():
        text = text.replace(field, value)
    if "@" in re.sub(r"#.*", "", text):
        raise RuntimeError("a field of the nginx template was left unfilled")
    return text


def _pinned(index: int, servers: Sequence[str]) -> str:
    """Replica ``index + 1``'s own upstream: its sessions go there, to the next replicas only while it is down."""
    others = [*servers[index + 1 :], *servers[:index]]
    lines = [f"        server {servers[index]} max_fails=3 fail_timeout=10s;"]
    lines += [f"        server {other} backup;" for other in others]
    return f"    upstream headroom_{index + 1} {{\n" + "\n".join(lines) + "\n        keepalive 4;\n    }"
