"""The team layout as containers and pods (deploy/compose.yaml, deploy/kubernetes.yaml): what is committed is what
deploy/manifests.py writes, it parses as YAML (Debian's parser), and it serves the dashboard as ``make serve
REPLICAS=N`` does: the Makefile's Streamlit options, one cookie secret for every replica, the health check, one core
a replica, and a proxy with the same sticky cookie, upload limit and websocket timeout."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from deploy import manifests
from deploy.config import COOKIE, COOKIE_SECRET_ENV, HEALTH, MAX_BODY, READ_TIMEOUT_S, ROOT, serve_flags

DEPLOY = ROOT / "deploy"


def _parsed(python: str, path: Path) -> list[Any]:
    reader = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
    return list(json.loads(subprocess.run([python, "-c", reader, str(path)], check=True, capture_output=True).stdout))


@pytest.mark.parametrize("name", sorted(manifests.FILES))
def test_the_committed_files_are_what_the_generator_writes(name: str) -> None:
    assert (DEPLOY / name).read_text(encoding="utf-8") == manifests.FILES[name](), "run python -m deploy.manifests"


def test_the_files_parse_as_the_generator_means_them(debian_yaml: str) -> None:
    assert _parsed(debian_yaml, DEPLOY / "compose.yaml") == [manifests.compose()]
    assert _parsed(debian_yaml, DEPLOY / "kubernetes.yaml") == manifests.kubernetes()


def test_make_serve_and_its_replicas_use_the_flags_every_manifest_uses() -> None:
    flags = " ".join(serve_flags())
    for replicas in ("1", "2"):
        dry = subprocess.run(
            ["make", "-n", "-s", "-C", str(ROOT), "serve", f"REPLICAS={replicas}", "VENV=/nonexistent"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert flags in " ".join(dry.replace("\\\n", " ").split()), dry
        assert ("deploy.serve --replicas 2" in dry) == (replicas == "2"), dry
    options = dict(zip(serve_flags()[::2], serve_flags()[1::2], strict=True))
    assert options["--server.enableXsrfProtection"] == "true" and options["--client.showErrorDetails"] == "none"
    assert manifests.streamlit_args()[: len(serve_flags())] == serve_flags()


def test_compose_runs_the_replicas_behind_the_same_nginx() -> None:
    services = manifests.compose()["services"]
    replicas = {name: service for name, service in services.items() if name.startswith("headroom-")}
    proxy = services["proxy"]
    assert len(replicas) == manifests.REPLICAS >= 2
    conf = (DEPLOY / "nginx.compose.conf").read_text()
    for app in replicas.values():
        assert app["command"] == manifests.streamlit_args()
        assert app["deploy"]["resources"]["limits"]["cpus"] == "1"
        assert COOKIE_SECRET_ENV in app["environment"] and ":?" in app["environment"][COOKIE_SECRET_ENV]  # required
        assert HEALTH in " ".join(app["healthcheck"]["test"])
        address = app["networks"]["headroom"]["ipv4_address"]
        assert re.search(rf"upstream headroom_\d+ {{\n        server {re.escape(address)}:8501 ", conf), address
    assert proxy["volumes"] == ["./nginx.compose.conf:/etc/headroom/nginx.conf:ro"] and "listen 8501;" in conf
    assert proxy["ports"] == ["8501:8501"]
    assert all(proxy["depends_on"][name]["condition"] == "service_healthy" for name in replicas)


def test_kubernetes_runs_the_pods_behind_an_ingress_with_the_same_stickiness() -> None:
    deployment, service, ingress = manifests.kubernetes()
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert container["args"] == manifests.streamlit_args()
    assert deployment["spec"]["replicas"] >= 2
    assert container["resources"]["requests"]["cpu"] == container["resources"]["limits"]["cpu"] == "1"
    assert container["readinessProbe"]["httpGet"]["path"] == HEALTH
    [env] = container["env"]
    assert env["name"] == COOKIE_SECRET_ENV and env["valueFrom"]["secretKeyRef"]["name"] == manifests.SECRET
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    notes = ingress["metadata"]["annotations"]
    nginx = "nginx.ingress.kubernetes.io"
    assert notes[f"{nginx}/affinity"] == "cookie" and notes[f"{nginx}/session-cookie-name"] == COOKIE
    assert notes[f"{nginx}/proxy-body-size"] == MAX_BODY
    assert notes[f"{nginx}/proxy-read-timeout"] == notes[f"{nginx}/proxy-send-timeout"] == str(READ_TIMEOUT_S)
    [path] = ingress["spec"]["rules"][0]["http"]["paths"]
    assert path["backend"]["service"]["name"] == service["metadata"]["name"]


def test_the_nginx_template_carries_the_same_settings() -> None:
    conf = manifests.compose_nginx()
    assert f"$cookie_{COOKIE}" in conf and "least_conn;" in conf
    assert f"client_max_body_size {MAX_BODY};" in conf and f"proxy_read_timeout {READ_TIMEOUT_S}s;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf


def _local_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        found |= {name.split(".")[0] for name in names if (ROOT / name.split(".")[0]).is_dir()}
    return found


def test_the_image_copies_every_package_the_dashboard_imports() -> None:
    copied = {line.split()[1] for line in (DEPLOY / "Dockerfile").read_text().splitlines() if line.startswith("COPY")}
    sources = [
        ROOT / "app.py",
        *(p for d in ("pages", "ui", "planner", "model_catalog") for p in (ROOT / d).rglob("*.py")),
    ]
    needed = set().union(*(_local_packages(path) for path in sources))
    assert needed <= copied, needed - copied
    assert {"app.py", ".streamlit", "requirements.txt"} <= copied
