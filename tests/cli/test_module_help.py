"""The maintainers' ``python -m`` tools (``make docs`` runs them) read their arguments before they act: ``--help``
prints the usage and changes no file, an unknown option is refused (status 2), as ``python -m planner`` does."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("planner.cli.examples", "planner.advisor.examples", "planner.advisor.validation", "model_catalog.docs")


def _main(module: str) -> Callable[[list[str]], int]:
    main: Callable[[list[str]], int] = importlib.import_module(module).main
    return main


def _snapshot() -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in (ROOT / "README.md", ROOT / "docs" / "catalog.md")}


@pytest.mark.parametrize("module", MODULES)
def test_help_prints_usage_and_changes_nothing(
    module: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    before = _snapshot()
    with pytest.raises(SystemExit) as done:
        _main(module)(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m {module}")
    assert _snapshot() == before and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("module", MODULES)
def test_an_unknown_option_is_refused(module: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        _main(module)(["--no-such-option"])
    assert done.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
