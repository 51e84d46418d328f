"""The small things people notice (issue 14): what the dashboard says about a GPU's memory, empty cells that
are empty, the TP box that says "auto", the same words for the same thing on every page."""

from __future__ import annotations

import json
import math

from model_catalog import get_gpu
from tests.app.conftest import SOURCES, plain, run_page, vega_rows
from ui.memory_chart import CAPACITY


def _captions(at) -> list[str]:
    """The sidebar's captions (the set-up's editor: the tests open it)."""
    return [plain(c.value) for c in at.sidebar.caption]


def test_sidebar_says_where_a_gpus_memory_comes_from() -> None:
    at = run_page("memory", {"gpu": "l40"}, editor=True)
    captions = _captions(at)
    assert any("marketed 48 GB; the device's own total is not in the catalog" in c for c in captions), captions
    assert not any("as the device reports" in c for c in captions)
    reported = _captions(run_page("memory", {"gpu": "a100-pcie-80gb"}, editor=True))
    assert "A100 PCIe 80GB · 80.00 GiB as the device reports it" in reported  # nvidia-smi's 81,920 MiB
    both = _captions(run_page("memory", {"gpu": "h100-pcie-80gb"}, editor=True))  # nvidia-smi's and CUDA's
    assert "H100 PCIe 80GB · 79.65 GiB as the device reports it; engines see 79.11 GiB" in both


def test_memory_page_does_not_claim_an_engine_total_it_does_not_have() -> None:
    # "Where the numbers come from", for a GPU whose device and engine totals the catalog does not have
    at = run_page("memory", {"gpu": "intel-arc-pro-b60", "engine": "vllm"}, open_keys=[SOURCES])
    sources = " ".join(plain(m.value) for m in at.markdown if "GPU memory:" in m.value)
    assert "marketed 24 GB; the device's own total is not in the catalog" in sources
    assert "the total the engine reports" not in sources
    for gpu in ("h100-sxm-80gb", "mi300x"):  # MI300X: vLLM's 191.69 GiB on ROCm, from public start-ups
        page = run_page("memory", {"gpu": gpu, "engine": "vllm"}, open_keys=[SOURCES])
        assert "the total the engine reports at start-up" in " ".join(plain(m.value) for m in page.markdown)


def test_sidebar_memory_follows_the_unit() -> None:
    captions = _captions(run_page("memory", {"gpu": "a100-pcie-80gb", "unit": "GB"}, editor=True))
    assert (
        f"A100 PCIe 80GB · {get_gpu('a100-pcie-80gb').memory_bytes / 1e9:,.2f} GB as the device reports it" in captions
    )


def test_auto_tensor_parallel_shows_auto_not_a_placeholder() -> None:
    at = run_page("memory", {"model": "meta-llama/Llama-3.1-70B", "gpus": "2"}, editor=True)
    tp = at.selectbox(key="tp")
    assert tp.value is None and tp.proto.placeholder == "auto (2)"


def test_catalog_cells_without_a_figure_are_empty() -> None:
    """Numbers stay numbers (the grid sorts and formats them), a missing one is an empty cell (the grid's
    placeholder), and no text cell reads "None" or "nan"."""
    at = run_page("catalog", {"q": "h100"})
    for frame in at.dataframe:
        assert frame.proto.placeholder == ""
        formats = json.loads(frame.proto.columns)
        for name, column in frame.value.items():
            if column.dtype.kind in "if":
                assert formats[name]["type_config"] == {"type": "number", "format": "localized"}, name
            else:
                assert not {"None", "nan"} & {str(v) for v in column}, name
    gpus = at.dataframe[1].value
    nvl = gpus[gpus["id"] == "h100-nvl-94gb"].iloc[0]
    assert math.isnan(nvl["price (USD)"]), "the H100 NVL is not sold alone: no price, an empty cell"
    assert gpus["price (USD)"].dtype.kind == "f" and gpus["memory (GiB, reported)"].max() > 90


def test_sidebar_names_the_total_engine_profiles_plan_with() -> None:
    """The H100 SXM's device total (81,559 MiB) and the total vLLM prints (79.19 GiB) differ; the chart's capacity
    under an engine profile is the second, so the sidebar names both."""
    at = run_page("memory", {"gpu": "h100-sxm-80gb", "engine": "vllm"}, editor=True)
    captions = _captions(at)
    assert "H100 SXM5 80GB · 79.65 GiB as the device reports it; engines see 79.19 GiB" in captions, captions
    (chart,) = at.get("vega_lite_chart")
    assert [row["line"] for row in vega_rows(chart.proto)[CAPACITY]] == ["Capacity: 79.2 GiB per GPU"]
