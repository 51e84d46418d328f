"""Every generated file and section of the documentation is what the code computes now (:mod:`bench.docs`):
``make docs`` rewrites them all."""

from __future__ import annotations

import re

import pytest

from bench import docs


@pytest.mark.slow
def test_every_generated_file_is_current() -> None:
    assert docs.stale() == [], "stale generated documentation: run make docs"


def test_the_list_names_every_file_a_generator_writes() -> None:
    """Each generated path exists in the repository (a generator added without its entry would go unchecked)."""
    for item in docs.GENERATED:
        assert (docs.ROOT / item.path).exists(), item.path


def test_the_readmes_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The "Command line and library" example of the README, run as written."""
    readme = (docs.ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "README.md: no python example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "concurrent conversations" in capsys.readouterr().out
