"""docs/catalog.md is generated from the catalog and kept current; every entry cites its sources with dates."""

from __future__ import annotations

import datetime
import re
import tomllib

import pytest

from model_catalog import load_gpus, load_models
from model_catalog.docs import DOCS_PATH, NOT_CATALOGUED, main, render

MODELS = load_models()
GPUS = load_gpus()


def test_catalog_page_is_current() -> None:
    """Fails when a catalog file changed and `make docs` was not run."""
    assert DOCS_PATH.read_text(encoding="utf-8") == render(), "docs/catalog.md is stale: run `make docs`"


def test_page_lists_every_model_and_gpu_with_its_sources() -> None:
    page = render()
    for model_id, entry in MODELS.items():
        assert f"### {model_id}\n" in page
        assert all(source in page for source in entry.sources)
    for gpu_id, gpu in GPUS.items():
        assert f"### {gpu_id}\n" in page
        assert all(source in page for source in gpu.sources)


@pytest.mark.parametrize("model_id", sorted(MODELS))
def test_model_entry_names_sources_and_dates(model_id: str) -> None:
    entry = MODELS[model_id]
    assert entry.sources and all(len(s.strip()) > 8 for s in entry.sources)
    assert len(entry.reference.source.strip()) > 8
    today = datetime.date.today()
    assert datetime.date(2023, 1, 1) <= entry.read_on <= today
    assert datetime.date(2023, 1, 1) <= entry.reference.read_on <= today


@pytest.mark.parametrize("gpu_id", sorted(GPUS))
def test_gpu_entry_names_sources(gpu_id: str) -> None:
    gpu = GPUS[gpu_id]
    assert gpu.sources and all(len(s.strip()) > 8 for s in gpu.sources)
    if gpu.price is not None:
        assert gpu.price.source and gpu.price.date


def test_main_writes_the_page(tmp_path) -> None:
    target = tmp_path / "catalog.md"
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == render()


def test_models_left_out_name_a_reason() -> None:
    """The issue's families that are not catalogued are listed on the page with the reason."""
    left_out = tomllib.loads(NOT_CATALOGUED.read_text(encoding="utf-8"))["model"]
    page = render()
    for item in left_out:
        assert len(item["reason"]) > 20
        assert item["name"] in page


def test_machines_left_out_name_a_reason() -> None:
    """Machines of issue 16 without an entry of their own are listed on the page with the reason."""
    left_out = tomllib.loads(NOT_CATALOGUED.read_text(encoding="utf-8")).get("gpu", [])
    page = render()
    for item in left_out:
        assert len(item["reason"]) > 20
        assert item["name"] in page


@pytest.mark.parametrize("page", ["README.md", "docs/dashboard.md"])
def test_readme_counts_match_the_catalog(page: str) -> None:
    """Every count of models and GPUs the README and the dashboard's page guide state is the catalog's (the guide
    said 92 models where the catalog and README had 93: a review, 2026-12-07)."""
    readme = (DOCS_PATH.parents[1] / page).read_text(encoding="utf-8")
    stated = re.findall(r"(\d+) models and (\d+) GPUs", readme)
    assert stated, f"{page}: no 'N models and M GPUs' line"
    assert all((int(m), int(g)) == (len(MODELS), len(GPUS)) for m, g in stated), stated
    for count in re.findall(r"all (\d+) catalog models", readme):
        assert int(count) == len(MODELS)


def test_help_prints_usage_and_writes_nothing(tmp_path, monkeypatch, capsys) -> None:
    """``--help`` is an option, not a file name to write the page to."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and "PATH" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
