"""The machines of issue 16 ("The catalog people plan with today"): each is listed by ``python -m planner gpus
--json`` or named, with its reason, in docs/catalog.md's "Not catalogued" section; each new entry says when its
sources were read, how the machine is sold, and (unified memory) the GPU's default share."""

from __future__ import annotations

import datetime
import json
import tomllib

import pytest

from model_catalog import get_gpu, load_gpus
from model_catalog.docs import NOT_CATALOGUED, render
from planner.cli import main
from planner.core.units import GB, GiB

# Every machine the issue names, by the id it is planned with (None: planned through another entry, and named in
# not-catalogued.toml with the reason).
ISSUE_16: dict[str, str | None] = {
    "DGX Spark (GB10)": "dgx-spark-gb10",
    "RTX 5090": "rtx-5090",
    "RTX 5090 pairs": None,
    "RTX PRO 6000": "rtx-pro-6000-blackwell",
    "GB300": "gb300",
    "M3 Ultra": "apple-m3-ultra",
    "M4 Max": "apple-m4-max",
    "M5 Max": "apple-m5-max",
    "Ryzen AI Max+ 395 (Strix Halo)": "amd-ryzen-ai-max-plus-395",
    "MI350X": "mi350x",
    "MI355X": "mi355x",
    "L20": "l20",
    "H800": "h800-sxm-80gb",
    "A800": "a800-sxm-80gb",
    "Arc Pro B60": "intel-arc-pro-b60",
}
ADDED = [
    "dgx-spark-gb10",
    "gb300",
    "apple-m3-ultra",
    "apple-m5-max",
    "amd-ryzen-ai-max-plus-395",
    "mi350x",
    "l20",
    "h800-sxm-80gb",
    "a800-sxm-80gb",
    "intel-arc-pro-b60",
]


def _not_catalogued() -> dict[str, str]:
    data = tomllib.loads(NOT_CATALOGUED.read_text(encoding="utf-8"))
    return {item["name"]: item["reason"] for item in data.get("gpu", [])}


def test_every_machine_of_the_issue_is_listed_or_named_with_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gpus", "--json"]) == 0
    listed = set(json.loads(capsys.readouterr().out))
    left_out = _not_catalogued()
    page = render()
    for machine, gpu_id in ISSUE_16.items():
        if gpu_id is not None:
            assert gpu_id in listed, f"{machine}: {gpu_id} is not in `python -m planner gpus --json`"
            continue
        named = [name for name in left_out if name.startswith(machine)]
        assert named, f"{machine}: neither catalogued nor named in not-catalogued.toml"
        assert len(left_out[named[0]]) > 40 and named[0] in page


def test_machines_left_out_name_an_entry_to_plan_with() -> None:
    gpus = load_gpus()
    for name, reason in _not_catalogued().items():
        assert any(f"`{gpu_id}`" in reason for gpu_id in gpus), f"{name}: say which entry plans it"


@pytest.mark.parametrize("gpu_id", ADDED)
def test_new_entries_are_dated_and_sourced(gpu_id: str) -> None:
    gpu = get_gpu(gpu_id)
    assert gpu.read_on is not None and datetime.date(2026, 1, 1) <= gpu.read_on <= datetime.date.today()
    assert len(gpu.sources) >= 2 and gpu.compute.source and gpu.purchase.source
    assert gpu.bandwidth_bytes_per_s and gpu.tdp_watts and gpu.form_factor and gpu.architecture


@pytest.mark.parametrize("gpu_id", sorted(load_gpus()))
def test_read_dates_are_plausible(gpu_id: str) -> None:
    read_on = get_gpu(gpu_id).read_on
    assert read_on is None or datetime.date(2023, 1, 1) <= read_on <= datetime.date.today()


def test_how_each_machine_is_sold() -> None:
    units = {gpu_id: (get_gpu(gpu_id).purchase.kind, get_gpu(gpu_id).purchase.gpus_per_unit) for gpu_id in ADDED}
    assert units == {
        "dgx-spark-gb10": ("machine", 1),
        "gb300": ("rack", 72),
        "apple-m3-ultra": ("machine", 1),
        "apple-m5-max": ("machine", 1),
        "amd-ryzen-ai-max-plus-395": ("machine", 1),
        "mi350x": ("baseboard", 8),
        "l20": ("card", 1),
        "h800-sxm-80gb": ("cloud-only", 8),  # barred from sale since 2023-10-17
        "a800-sxm-80gb": ("cloud-only", 8),
        "intel-arc-pro-b60": ("card", 1),
    }
    assert get_gpu("apple-m3-ultra").price is None  # the 512 GB configuration is no longer sold


def test_unified_memory_shares() -> None:
    halo = get_gpu("amd-ryzen-ai-max-plus-395")
    assert halo.unified_memory is not None and halo.unified_memory.default_gpu_share == 0.5
    assert "amd-ttm" in halo.unified_memory.raise_command
    assert halo.usable_memory_bytes() == 64 * GiB  # half its 128 GiB of LPDDR5X (was 64 x 10^9)
    m5 = get_gpu("apple-m5-max")
    assert m5.unified_memory is not None and m5.unified_memory.default_gpu_share == 0.84  # 107.52 of 128 GiB
    # DRAM is sold in binary sizes: macOS reports 107.52 GiB on a 128 GB M5 Max (antirez/ds4#893), which the planner
    # had as 0.84 x 128 x 10^9 = 100.14 GiB; a 96 GB M2 Max's working set, 73,728 MiB, is 0.75 x 96 GiB
    assert m5.usable_memory_bytes() == round(0.84 * 128 * GiB) and round(m5.usable_memory_bytes() / GiB, 2) == 107.52
    assert get_gpu("apple-m4-max").usable_memory_bytes() == 96 * GiB  # 0.75 x 128 GiB (89.41 before)
    spark = get_gpu("dgx-spark-gb10")
    assert spark.unified_memory is None  # no OS share: CUDA sees what the OS leaves, 121.69 GiB
    assert spark.engine_visible_bytes == round(121.69 * GiB)
    assert spark.memory_bytes_for(engine=True) == round(121.69 * GiB)


def test_dense_figures_follow_the_vendors_sparse_ones() -> None:
    """NVIDIA prints with-sparsity figures: dense is half; AMD's platform figure is for 8 GPUs."""
    assert get_gpu("dgx-spark-gb10").compute.fp4 == 1000 / 2  # "1 PFLOP FP4 with sparsity"
    spark = get_gpu("dgx-spark-gb10")  # 16-bit: not published; NVIDIA's measured peak, marked unverified
    assert spark.compute.bf16 == 213 and "compute.bf16" in spark.unverified_fields
    assert get_gpu("rtx-5090").compute.fp4 == 3352 / 2  # 3,352 "AI TOPS" (FP4, sparse)
    assert get_gpu("rtx-pro-6000-blackwell").compute.fp4 == 2015  # The Register's dense table
    gb300 = get_gpu("gb300")
    assert (gb300.compute.bf16, gb300.compute.fp8, gb300.compute.fp4) == (2500, 5000, 15000)
    assert gb300.compute.int8 == 330 / 2  # NVIDIA's per-GPU row: 330 TOPS with sparsity (Blackwell Ultra cut)
    mi350x = get_gpu("mi350x")
    assert (mi350x.compute.bf16, mi350x.compute.fp8, mi350x.compute.fp4) == (18_500 / 8, 37_000 / 8, 74_000 / 8)
    h800, h100 = get_gpu("h800-sxm-80gb"), get_gpu("h100-sxm-80gb")
    assert h800.compute == h100.compute.model_copy(update={"source": h800.compute.source, "note": h800.compute.note})
    assert h800.interconnect_bandwidth_bytes_per_s == 400 * GB < (h100.interconnect_bandwidth_bytes_per_s or 0)


def test_engine_and_device_memory_facts() -> None:
    l20 = get_gpu("l20")
    assert l20.memory_reported_bytes == 46_068 * 2**20  # nvidia-smi with ECC on
    assert get_gpu("h800-sxm-80gb").memory_reported_bytes == get_gpu("h100-sxm-80gb").memory_reported_bytes
    assert get_gpu("a800-sxm-80gb").memory_reported_bytes == 81_920 * 2**20  # found 2026-12-05 (three tables)
    for gpu_id in ("gb300", "mi350x", "intel-arc-pro-b60"):
        assert get_gpu(gpu_id).memory_reported_bytes is None  # no public device total found


def test_an_edition_names_a_catalog_card_of_the_same_die_and_memory() -> None:
    """``variant_of``: another edition of a catalog card (the advisor offers the two as one pick): the same
    architecture, marketed memory and bandwidth; the RTX PRO 6000 Server Edition is the passive, datacenter one (no
    desktop cards' compile amount, as the L40S of AD102: planner.core.gpu DevicePlatform.desktop_card)."""
    from model_catalog import load_gpus

    gpus = load_gpus()
    editions = {g.id: g.variant_of for g in gpus.values() if g.variant_of is not None}
    assert editions == {
        "rtx-pro-6000-blackwell-server": "rtx-pro-6000-blackwell",
        "rtx-pro-6000-blackwell-max-q": "rtx-pro-6000-blackwell",
    }
    for gpu_id, card in editions.items():
        a, b = gpus[gpu_id], gpus[card]
        assert b.variant_of is None
        assert (a.architecture, a.memory_marketed_gb, a.bandwidth_bytes_per_s) == (
            b.architecture,
            b.memory_marketed_gb,
            b.bandwidth_bytes_per_s,
        )
    server, workstation = gpus["rtx-pro-6000-blackwell-server"], gpus["rtx-pro-6000-blackwell"]
    assert not server.platform.desktop_card and workstation.platform.desktop_card
    assert server.purchase.cooling == "passive"
    max_q = gpus["rtx-pro-6000-blackwell-max-q"]  # The Register's dense table: 300 W, 877 INT8 / 1,755 FP4
    assert (max_q.tdp_watts, workstation.tdp_watts, server.tdp_watts) == (300, 600, 600)
    assert (max_q.compute.int8, max_q.compute.fp4) == (877, 1755) and max_q.platform.desktop_card


def test_a_part_no_longer_sold_new_names_its_successor_and_date() -> None:
    """``discontinued``: Apple replaced the M2 Ultra Mac Studio with the M3 Ultra on 2025-03-05 (and ended the M2
    Ultra Mac Pro in 2026), the M3 Max MacBook Pro with the M4 Max on 2024-10-30; NVIDIA ended the RTX 4090 in
    2024-10; the 512 GB M3 Ultra left Apple's store in 2026-03. Each successor is a newer catalog part; only the
    4090's price is a used one."""
    from model_catalog import load_gpus

    gpus = load_gpus()
    gone = {g.id: g.discontinued for g in gpus.values() if g.discontinued is not None}
    assert {k: (d.since, d.replaced_by) for k, d in gone.items()} == {
        "apple-m2-ultra": ("2025-03", "apple-m3-ultra-96gb"),
        "apple-m3-max": ("2024-10", "apple-m4-max"),
        "apple-m3-ultra": ("2026-03", None),  # the 512 GB configuration; the 96 GB one is still sold
        "rtx-4090": ("2024-10", "rtx-5090"),
    }
    for gpu_id, d in gone.items():
        if d.replaced_by is None:
            continue
        successor = gpus[str(d.replaced_by)]
        assert (successor.launch_year or 0) > (gpus[gpu_id].launch_year or 0) and successor.discontinued is None
        assert d.source.count("http") >= 2, gpu_id
    assert [k for k, d in gone.items() if d.used_price(gpus[k].price)] == ["rtx-4090"]
