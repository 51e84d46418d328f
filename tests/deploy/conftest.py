from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def _required(what: str, install: str) -> None:
    message = f"{what} is not installed (apt-get install {install}); .ci/run installs it"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        _required("nginx", "nginx")
    assert found is not None
    return found


@pytest.fixture(scope="session")
def debian_yaml() -> str:
    """Debian's Python with its YAML parser (python3-yaml), to read the manifests as a container engine would."""
    python = "/usr/bin/python3"
    if not Path(python).exists() or os.system(f"{python} -c 'import yaml' 2>/dev/null") != 0:
        _required("Debian's python3-yaml", "python3-yaml")
    return python
