"""Every generated file and section of the documentation is what the code computes now (:mod:`bench.docs`):
``make docs`` rewrites them all."""

from __future__ import annotations

import pytest

from bench import docs


@pytest.mark.slow
def test_every_generated_file_is_current() -> None:
    assert docs.stale() == [], "stale generated documentation: run make docs"


def test_the_list_names_every_file_a_generator_writes() -> None:
    """Each generated path exists in the repository (a generator added without its entry would go unchecked)."""
    for item in docs.GENERATED:
        assert (docs.ROOT / item.path).exists(), item.path
