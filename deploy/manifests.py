"""The layout of ``make serve REPLICAS=N`` as containers (``deploy/compose.yaml``) and as pods behind an ingress
(``deploy/kubernetes.yaml``): N Streamlit processes with the Makefile's ``SERVE_FLAGS``, one cookie secret, a
health check, one core each, and sticky sessions on the ``headroom_replica`` cookie in front.

The files are written from here (``python -m deploy.manifests``), so they cannot drift from the Makefile or the
nginx template; ``tests/deploy`` checks that the committed files are what this writes and parses them with
Debian's YAML parser. Neither is run here (no container engine on the build machine).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deploy.config import (
    COOKIE,
    COOKIE_SECRET_ENV,
    HEALTH,
    MAX_BODY,
    READ_TIMEOUT_S,
    ROOT,
    STREAMLIT_PORT,
    nginx_config,
    serve_flags,
)

DEPLOY = ROOT / "deploy"
REPLICAS = 2  # one per core of a 2-core host (kubectl scale; for compose, change it and rerun this module)
SUBNET = "172.28.0.0/24"  # the compose network (change it if the host already routes it)
IMAGE = "headroom:latest"  # built from deploy/Dockerfile
PROXY_IMAGE = "nginx:1.22"  # the release Debian 12 ships (make serve uses Debian's)
SECRET = "headroom-cookie-secret"
CPU = "1"  # a Streamlit process uses about one core (one interpreter lock)
MEMORY = "1Gi"  # peak RSS under the load test: ~0.35 GB per process (README, make bench)
_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_./-]+$")


def streamlit_args() -> list[str]:
    """The container's Streamlit options: the Makefile's, on every interface of the container, on its port."""
    return [*serve_flags(), "--server.address", "0.0.0.0", "--server.port", str(STREAMLIT_PORT)]


def _health_command() -> list[str]:
    probe = f"import urllib.request; urllib.request.urlopen('http://127.0.0.1:{STREAMLIT_PORT}{HEALTH}', timeout=2)"
    return ["CMD", "python", "-c", probe]


def _replica_address(index: int) -> str:
    """Replica ``index`` (from 1)'s fixed address on the compose network: nginx names a session's replica by it."""
    return f"{SUBNET.rsplit('.', 1)[0]}.{10 + index}"


def _replica_service(index: int) -> dict[str, Any]:
    return {
        "build": {"context": "..", "dockerfile": "deploy/Dockerfile"},
        "image": IMAGE,
        "command": streamlit_args(),
        "environment": {COOKIE_SECRET_ENV: "${HEADROOM_COOKIE_SECRET:?one secret for every replica}"},
        "expose": [str(STREAMLIT_PORT)],
        "networks": {"headroom": {"ipv4_address": _replica_address(index)}},
        "healthcheck": {"test": _health_command(), "interval": "10s", "timeout": "3s", "retries": 3},
        "deploy": {"resources": {"limits": {"cpus": CPU, "memory": "1g"}}},
        "restart": "unless-stopped",
    }


def compose() -> dict[str, Any]:
    """``docker compose -f deploy/compose.yaml up``: :data:`REPLICAS` replicas, each a service at a fixed address
    (nginx pins a session to its replica by address), and nginx in front on port 8501."""
    replicas = {f"headroom-{i}": _replica_service(i) for i in range(1, REPLICAS + 1)}
    proxy = {
        "image": PROXY_IMAGE,
        "command": ["nginx", "-c", "/etc/headroom/nginx.conf", "-g", "daemon off;"],
        "volumes": ["./nginx.compose.conf:/etc/headroom/nginx.conf:ro"],
        "ports": [f"8501:{STREAMLIT_PORT}"],
        "networks": ["headroom"],
        "depends_on": {name: {"condition": "service_healthy"} for name in replicas},
        "restart": "unless-stopped",
    }
    network = {"ipam": {"config": [{"subnet": SUBNET}]}}
    return {"name": "headroom", "services": {**replicas, "proxy": proxy}, "networks": {"headroom": network}}


def compose_nginx() -> str:
    """nginx in the compose file: every replica at its fixed address."""
    servers = [f"{_replica_address(i)}:{STREAMLIT_PORT}" for i in range(1, REPLICAS + 1)]
    return nginx_config(servers, str(STREAMLIT_PORT), "/tmp")


def _deployment() -> dict[str, Any]:
    container = {
        "name": "headroom",
        "image": IMAGE,
        "args": streamlit_args(),
        "ports": [{"name": "http", "containerPort": STREAMLIT_PORT}],
        "env": [{"name": COOKIE_SECRET_ENV, "valueFrom": {"secretKeyRef": {"name": SECRET, "key": "cookie-secret"}}}],
        "readinessProbe": {"httpGet": {"path": HEALTH, "port": "http"}, "periodSeconds": 10},
        "livenessProbe": {"httpGet": {"path": HEALTH, "port": "http"}, "periodSeconds": 30, "failureThreshold": 4},
        "resources": {"requests": {"cpu": CPU, "memory": "512Mi"}, "limits": {"cpu": CPU, "memory": MEMORY}},
    }
    labels = {"app": "headroom"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "headroom", "labels": labels},
        "spec": {
            "replicas": REPLICAS,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


def kubernetes() -> list[dict[str, Any]]:
    """``kubectl apply -f deploy/kubernetes.yaml``: the pods, their service, and an ingress-nginx ingress with
    cookie affinity (the same cookie, body limit and websocket timeout as the nginx of ``make serve``)."""
    port = {"name": "http", "port": STREAMLIT_PORT, "targetPort": "http"}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "headroom"},
        "spec": {"selector": {"app": "headroom"}, "ports": [port]},
    }
    prefix = "nginx.ingress.kubernetes.io"
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "headroom",
            "annotations": {
                f"{prefix}/affinity": "cookie",
                f"{prefix}/session-cookie-name": COOKIE,
                f"{prefix}/session-cookie-path": "/",
                f"{prefix}/proxy-body-size": MAX_BODY,
                f"{prefix}/proxy-read-timeout": str(READ_TIMEOUT_S),
                f"{prefix}/proxy-send-timeout": str(READ_TIMEOUT_S),
            },
        },
        "spec": {
            "ingressClassName": "nginx",
            "rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {
                "service": {"name": "headroom", "port": {"name": "http"}}}}]}}],
        },
    }  # fmt: skip
    return [_deployment(), service, ingress]


def _scalar(value: Any) -> str:
    return json.dumps(value)  # a JSON scalar is a YAML flow scalar (strings double-quoted, escapes alike)


def _key(key: str) -> str:
    return key if _PLAIN_KEY.match(key) else json.dumps(key)


def to_yaml(value: Any, indent: int = 0) -> str:
    """Block-style YAML of dicts, lists and JSON scalars (what the manifests hold), two spaces a level."""
    pad = "  " * indent
    if isinstance(value, dict) and value:
        lines = []
        for key, item in value.items():
            nested = isinstance(item, dict | list) and item
            lines.append(
                f"{pad}{_key(key)}:\n{to_yaml(item, indent + 1)}" if nested else f"{pad}{_key(key)}: {_scalar(item)}"
            )
        return "\n".join(lines)
    if isinstance(value, list) and value:
        lines = []
        for item in value:
            if isinstance(item, dict | list) and item:
                block = to_yaml(item, indent + 1)
                lines.append(f"{pad}- {block[len(pad) + 2 :]}")
            else:
                lines.append(f"{pad}- {_scalar(item)}")
        return "\n".join(lines)
    return f"{pad}{_scalar(value)}"


HEADER = (
    "# Written by `python -m deploy.manifests` from the Makefile's SERVE_FLAGS and deploy/config.py; do not edit.\n"
)
FILES: dict[str, Callable[[], str]] = {
    "compose.yaml": lambda: HEADER + to_yaml(compose()) + "\n",
    "kubernetes.yaml": lambda: HEADER + "---\n".join(to_yaml(doc) + "\n" for doc in kubernetes()),
    "nginx.compose.conf": compose_nginx,
}


def main() -> int:
    for name, build in FILES.items():
        Path(DEPLOY / name).write_text(build(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
