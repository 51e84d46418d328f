"""Streamlit's "magic" is off (``.streamlit/config.toml``, ``[runner] magicEnabled``): no page relies on it. Its
transform (``streamlit.runtime.scriptrunner.magic.add_magic``) turns a bare expression into a write to the page;
over app.py and every page it turns none, so turning it off changes nothing a reader sees."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from streamlit.runtime.scriptrunner.magic import add_magic

from tests.browser.server import ROOT

SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def test_magic_is_off_in_the_served_config() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["magicEnabled"] is False


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_no_script_writes_by_magic(script: Path) -> None:
    tree = add_magic(script.read_text(encoding="utf-8"), str(script))
    writes = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "transparent_write"]
    assert writes == [], f"{script.name} has a bare expression that magic would write to the page"


def test_the_check_sees_a_bare_expression() -> None:
    """The check itself: a bare name is one magic writes."""
    tree = add_magic("x = 1\nx\n", "example.py")
    assert any(isinstance(n, ast.Attribute) and n.attr == "transparent_write" for n in ast.walk(tree))
