"""Coverage test of the GPU catalog: every reference GPU (plus H20 96GB, H20-3e and RTX A5000) is present,
every entry validates and cites a source, and the memory, bandwidth and TFLOPS figures equal the reference
survey exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import model_catalog
from model_catalog import CatalogError, load_gpus
from planner.core.gpu import GpuSpec

REFERENCE = Path(__file__).parents[1] / "fixtures" / "reference" / "gpus-reference.json"
GPU_DIR = model_catalog.CATALOG_DIR / "gpus"
EXTRA_IDS = ["h20-96gb", "h20-141gb", "rtx-a5000"]

GPUS = load_gpus()


def _reference() -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in json.loads(REFERENCE.read_text(encoding="utf-8"))}


REF = _reference()
REF_IDS = sorted(REF)


def test_reference_has_32_entries() -> None:
    assert len(REF) == 32


def test_catalog_has_every_reference_gpu() -> None:
    missing = [gpu_id for gpu_id in REF_IDS if gpu_id not in GPUS]
    assert not missing, f"missing GPUs: {missing}"


def test_catalog_has_the_added_gpus() -> None:
    missing = [gpu_id for gpu_id in EXTRA_IDS if gpu_id not in GPUS]
    assert not missing, f"missing GPUs: {missing}"


def test_ids_are_unique_slugs_matching_file_names() -> None:
    files = sorted(GPU_DIR.glob("*.toml"))
    assert len(files) == len(GPUS)  # _index raises on a duplicate id, so equal counts mean one id per file
    for path in files:
        gpu_id = path.stem
        assert re.fullmatch(r"[a-z0-9][a-z0-9.-]*", gpu_id), gpu_id
        assert gpu_id in GPUS, f"{path.name}: id does not match the file name"
        assert GPUS[gpu_id].id == gpu_id


def test_every_entry_validates_fresh() -> None:
    # load_gpus is cached; load the directory again without the cache.
    fresh = load_gpus.__wrapped__(GPU_DIR)
    assert set(fresh) == set(GPUS)
    for gpu in fresh.values():
        assert isinstance(gpu, GpuSpec)


@pytest.mark.parametrize("gpu_id", sorted(GPUS))
def test_every_entry_has_sources(gpu_id: str) -> None:
    gpu = GPUS[gpu_id]
    assert gpu.sources and all(s.strip() for s in gpu.sources)
    if gpu.memory_reported_bytes is not None:
        assert gpu.memory_reported_source
    if gpu.engine_visible_bytes is not None:
        assert gpu.engine_visible_source
        assert gpu.memory_reported_bytes is None or gpu.engine_visible_bytes <= gpu.memory_reported_bytes
    if gpu.multiprocessors is not None:  # the Triton sampler's cached rows (planner.engines.vllm.terms)
        assert gpu.multiprocessors_source and "read 2026-" in gpu.multiprocessors_source
    if gpu.price is not None:
        assert gpu.price.source.strip() and re.fullmatch(r"\d{4}(-\d{2})?", gpu.price.date)
    for cloud in gpu.cloud_prices:
        assert cloud.source.strip() and re.fullmatch(r"\d{4}(-\d{2})?", cloud.date)


@pytest.mark.parametrize("gpu_id", sorted(GPUS))
def test_unverified_fields_name_fields_that_hold_a_value(gpu_id: str) -> None:
    gpu = GPUS[gpu_id]
    for field in gpu.unverified_fields:
        head, _, tail = field.partition(".")
        assert head in GpuSpec.model_fields, f"{gpu_id}: {field!r} is not a GpuSpec field"
        value = getattr(getattr(gpu, head), tail) if tail else getattr(gpu, head)
        assert value not in (None, (), "unknown", "none"), f"{gpu_id}: {field} is unverified but empty"


# Figures the reference survey left null that issue 16 sourced since (each entry names the source).
COMPLETED_SINCE_SURVEY: dict[str, dict[str, float]] = {
    "rtx-5090": {"bf16": 209.5, "fp4": 1676, "fp8": 419, "int8": 838},
    "rtx-pro-6000-blackwell": {"bf16": 503.8, "fp8": 1010, "int8": 1007, "fp4": 2015},
    # Issue 21 (read 2026-12-01, /work/research/advisor/tflops.toml): NVIDIA datasheets' sparse figures halved.
    "b300-sxm": {"fp4": 14000, "int8": 153.5},
    "h100-nvl-94gb": {"bf16": 835.5, "fp8": 1670.5, "int8": 1670.5},
    "rtx-6000-ada": {"bf16": 364.2, "fp8": 728.5, "int8": 728.5},
}
# Cloud prices added since the survey (issue 21) name the research file they were read from.
ISSUE_21_SOURCE = "; read 2026-12-01"  # the cloud offers read for issue 21 (their sources say so)
# Prices a buyer pays now, where the survey had a launch MSRP (each entry names its source and date).
PRICED_SINCE_SURVEY: dict[str, float] = {
    "rtx-3090": 1343,  # used, September 2026 (ResalePrices / BestValueGPU)
    "rtx-4090": 2500,  # used, September 2026 (GetPCParts eBay average / BestValueGPU)
    "rtx-5090": 4899,  # new, September 2026 (median of five trackers)
    "dgx-spark-gb10": 4699,  # NVIDIA's Founders Edition price from 2026-02-23
}


def _survey(gpu_id: str, fmt: str, value: float | None) -> float | None:
    """The survey's figure, or the one sourced since where the survey had none."""
    return COMPLETED_SINCE_SURVEY.get(gpu_id, {}).get(fmt) if value is None else value


@pytest.mark.parametrize("gpu_id", REF_IDS)
def test_entry_matches_reference(gpu_id: str) -> None:
    ref, gpu = REF[gpu_id], GPUS[gpu_id]
    assert gpu.vendor == ref["vendor"]
    assert gpu.memory_marketed_gb == ref["memory_marketed_gb"]
    mib = ref["memory_reported"]["nvidia_smi_total_mib"]
    if mib is None:
        assert gpu.memory_reported_bytes is None
    else:
        assert gpu.memory_reported_bytes == mib * 2**20
    torch_bytes = ref["memory_reported"]["torch_total_memory_bytes"]
    if torch_bytes is not None:
        assert gpu.memory_reported_bytes == torch_bytes
    gbps = ref["memory_bandwidth_gbps"]
    assert gpu.bandwidth_bytes_per_s == (None if gbps is None else round(gbps * 10**9))
    assert gpu.bf16_dense_tflops == _survey(gpu_id, "bf16", ref["bf16_dense_tflops"])
    assert gpu.fp8_dense_tflops == _survey(gpu_id, "fp8", ref["fp8_dense_tflops"])
    assert gpu.fp4_dense_tflops == _survey(gpu_id, "fp4", ref.get("fp4_dense_tflops"))
    assert gpu.int8_dense_tops == _survey(gpu_id, "int8", ref["int8_dense_tops"])
    assert gpu.tdp_watts == ref["tdp_w"]
    assert gpu.launch_year == ref["launch_year"]
    if ref["price"]["usd"] is None:
        assert gpu.price is None
    else:
        assert gpu.price is not None and gpu.price.usd == PRICED_SINCE_SURVEY.get(gpu_id, ref["price"]["usd"])
    dated = [c for c in ref["cloud_on_demand_usd_per_gpu_hour"] if re.fullmatch(r"\d{4}(-\d{2})?", c["date"])]
    expected = sorted((c["usd"], 0.0) if "usd" in c else tuple(c["usd_range"]) for c in dated)
    surveyed = [c for c in gpu.cloud_prices if ISSUE_21_SOURCE not in c.source]
    assert sorted((c.usd_per_gpu_hour, c.usd_per_gpu_hour_high or 0.0) for c in surveyed) == expected
    for note in ref["notes"]:
        assert note in gpu.notes


def test_pinned_memory_facts() -> None:
    assert GPUS["h100-sxm-80gb"].memory_reported_bytes == 81_559 * 2**20 == 85_520_809_984
    assert GPUS["h200-sxm-141gb"].memory_reported_bytes == 150_754_820_096
    assert GPUS["a100-sxm-80gb"].memory_reported_bytes == 85_899_345_920
    # Engine-visible totals (vLLM start-up logs), GiB x 2^30 rounded.
    assert GPUS["h100-sxm-80gb"].engine_visible_bytes == round(79.19 * 2**30)
    assert GPUS["rtx-3090"].engine_visible_bytes == round(23.56 * 2**30)  # 2026 drivers (the 0.6.4 log: 23.58)
    assert GPUS["rtx-5090"].engine_visible_bytes == round(31.36 * 2**30)
    assert GPUS["rtx-pro-6000-blackwell"].engine_visible_bytes == round(94.97 * 2**30)
    assert GPUS["dgx-spark-gb10"].engine_visible_bytes == round(121.69 * 2**30)
    assert GPUS["rtx-4090"].engine_visible_bytes == round(23.55 * 2**30)
    assert GPUS["h20-141gb"].engine_visible_bytes == round(139.72 * 2**30)
    # read 2026-12-04 from PyTorch's own lines naming the part (torch prints whole MiB)
    assert GPUS["rtx-6000-ada"].engine_visible_bytes == 48_622 * 2**20  # 47.48 GiB, ECC off
    assert GPUS["h100-pcie-80gb"].engine_visible_bytes == 81_008 * 2**20  # 79.11 GiB
    assert GPUS["a10g"].engine_visible_bytes == round(22.06 * 2**30)


# Discrete CUDA cards whose engine-visible total no public line naming the part was found for (2026-12-04): the
# planner uses nvidia-smi's figure for them, ~0.45-0.75 GiB above what CUDA reports on the cards where both are known
NO_ENGINE_TOTAL = {
    "a100-pcie-80gb": "no PyTorch or vLLM total beside 'A100 80GB PCIe' (vllm#5711's body is the lead)",
    "a800-sxm-80gb": "79.33 GiB is printed beside 'A800' but never the SXM4 part",
}


def test_every_discrete_cuda_card_has_its_engine_total_or_says_why_not() -> None:
    """The device total vLLM budgets from is CUDA's, not nvidia-smi's (the RTX 4090: 23.55 GiB against 23.99): every
    discrete CUDA card in the catalog carries it, sourced, or is named in :data:`NO_ENGINE_TOTAL` with why."""
    missing = {
        gpu_id
        for gpu_id, gpu in GPUS.items()
        if gpu.platform.runtime == "cuda" and not gpu.platform.integrated and gpu.engine_visible_bytes is None
    }
    assert missing == set(NO_ENGINE_TOTAL), "add the card's engine_visible_bytes with its source, or say why not here"


def test_added_gpus() -> None:
    h20, h20e, a5000 = GPUS["h20-96gb"], GPUS["h20-141gb"], GPUS["rtx-a5000"]
    assert h20.memory_reported_bytes == 97_871 * 2**20
    assert h20e.memory_reported_bytes == 143_771 * 2**20 == GPUS["h200-sxm-141gb"].memory_reported_bytes
    assert a5000.memory_reported_bytes == 24_564 * 2**20
    assert h20.bandwidth_bytes_per_s == 4_000_000_000_000
    assert h20.bf16_dense_tflops == 148
    assert a5000.bandwidth_bytes_per_s == 768_000_000_000
    assert a5000.tdp_watts == 230
    assert all(g.vendor == "NVIDIA" for g in (h20, h20e, a5000))


def test_vendors() -> None:
    for gpu_id, gpu in GPUS.items():
        if gpu_id.startswith("apple-"):
            assert gpu.vendor == "Apple"
        elif gpu_id.startswith(("mi3", "amd-")):
            assert gpu.vendor == "AMD"
        elif gpu_id.startswith(("gaudi", "intel-")):
            assert gpu.vendor == "Intel"
        else:
            assert gpu.vendor == "NVIDIA"


def test_memory_bytes_prefers_reported() -> None:
    assert GPUS["h100-sxm-80gb"].memory_bytes == 85_520_809_984
    assert GPUS["mi300x"].memory_bytes == GPUS["mi300x"].engine_visible_bytes  # no reported total: the engine's


_GOOD = """\
id = "{id}"
name = "Test GPU"
vendor = "NVIDIA"
memory_marketed_gb = 80
sources = ["test"]
compute = {{ bf16 = 100, fp16 = 100, fp8 = "none", int8 = "unknown", fp4 = "none", source = "test" }}
purchase.kind = "card"
purchase.gpus_per_unit = 1
purchase.description = "one card"
purchase.source = "test"
purchase.cooling = "active"
purchase.cooling_source = "test"
purchase.slot_width = 2
purchase.slot_width_source = "test"
"""


def test_malformed_entry_names_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "fine.toml").write_text(_GOOD.format(id="fine"), encoding="utf-8")
    (tmp_path / "broken.toml").write_text(_GOOD.format(id="broken") + "tdp_watts = -5\n", encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        model_catalog._load_dir(tmp_path, GpuSpec)
    assert "broken.toml" in str(info.value) and "tdp_watts" in str(info.value)


def test_unknown_field_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "extra.toml").write_text(_GOOD.format(id="extra") + "memory_bandwidth_gbps = 3350\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"extra\.toml.*memory_bandwidth_gbps"):
        model_catalog._load_dir(tmp_path, GpuSpec)


def test_engine_visible_above_reported_is_rejected(tmp_path: Path) -> None:
    body = _GOOD.format(id="over") + (
        'memory_reported_bytes = 85520809984\nmemory_reported_source = "x"\n'
        'engine_visible_bytes = 85520809985\nengine_visible_source = "y"\n'
    )
    (tmp_path / "over.toml").write_text(body, encoding="utf-8")
    with pytest.raises(CatalogError, match=r"over\.toml.*engine_visible_bytes"):
        model_catalog._load_dir(tmp_path, GpuSpec)


def test_missing_sources_and_bad_toml_are_rejected(tmp_path: Path) -> None:
    (tmp_path / "nosrc.toml").write_text(_GOOD.format(id="nosrc").replace('sources = ["test"]\n', ""), encoding="utf-8")
    with pytest.raises(CatalogError, match=r"nosrc\.toml.*sources"):
        model_catalog._load_dir(tmp_path, GpuSpec)
    (tmp_path / "nosrc.toml").unlink()
    (tmp_path / "garbled.toml").write_text("id = \n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"garbled\.toml.*not valid TOML"):
        model_catalog._load_dir(tmp_path, GpuSpec)


def test_duplicate_id_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(_GOOD.format(id="same"), encoding="utf-8")
    (tmp_path / "b.toml").write_text(_GOOD.format(id="same"), encoding="utf-8")
    with pytest.raises(CatalogError, match="duplicate id 'same'"):
        load_gpus.__wrapped__(tmp_path)


# --- completeness: what the advisor needs from every GPU file (another engineer adds GPUs with this schema) --------

TENSOR_FORMATS = ("bf16", "fp16", "fp8", "int8", "fp4")


def _raw(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", sorted(GPU_DIR.glob("*.toml")), ids=lambda p: p.name)
def test_every_gpu_file_is_complete(path: Path) -> None:
    """Compute per format (a figure, "none" or "unknown"), a purchase unit, and for unified-memory machines the
    GPU's default share: each missing piece is named with its file, table and field."""
    data = _raw(path)
    compute = data.get("compute")
    assert isinstance(compute, dict), f"{path.name}: add a [compute] table (dense TFLOPS per format, see GpuSpec)"
    for fmt in TENSOR_FORMATS:
        assert fmt in compute, (
            f"{path.name}: [compute] {fmt} is missing: give the dense TFLOPS (halve NVIDIA's with-sparsity figure), "
            '"none" if the GPU has no such format, or "unknown" if no source gives it'
        )
    assert str(compute.get("source", "")).strip(), (
        f"{path.name}: [compute] source is missing: where the figures come from"
    )
    purchase = data.get("purchase")
    assert isinstance(purchase, dict), (
        f"{path.name}: add a [purchase] table (kind = card / pair / baseboard / machine / rack / cloud-only, "
        "gpus_per_unit, description, source)"
    )
    for field in ("kind", "gpus_per_unit", "description", "source"):
        assert field in purchase, f"{path.name}: [purchase] {field} is missing"
    if purchase.get("kind") in ("card", "pair"):
        for field in ("cooling", "cooling_source"):
            assert purchase.get(field), (
                f"{path.name}: [purchase] {field} is missing: a card's cooler decides the machine it goes in "
                '(cooling = "active" for its own fans, "passive" for a bare heat sink the server cools; the source '
                "that says so, e.g. the product brief's thermal solution)"
            )
        for field in ("slot_width", "slot_width_source"):
            assert purchase.get(field), (
                f"{path.name}: [purchase] {field} is missing: the expansion slots one card's cooler takes decide the "
                "hosts it fits (slot_width = 2 for a dual-slot card; the source that says so, e.g. the datasheet's "
                "form factor)"
            )
    if data.get("vendor") == "Apple":
        unified = data.get("unified_memory")
        assert isinstance(unified, dict), (
            f"{path.name}: add a [unified_memory] table (default_gpu_share, source, raise_command)"
        )


@pytest.mark.parametrize("gpu_id", sorted(GPUS))
def test_compute_agrees_with_purchase_and_vendor(gpu_id: str) -> None:
    gpu = GPUS[gpu_id]
    if gpu.purchase.kind == "baseboard":
        assert gpu.purchase.gpus_per_unit in (4, 8), f"{gpu_id}: SXM/OAM baseboards carry 4 or 8 GPUs"
    if gpu.purchase.kind == "card":
        assert gpu.purchase.gpus_per_unit == 1
    known = [f for f in TENSOR_FORMATS if gpu.compute.status(f) == "known"]
    if not known:  # nothing known: ranked last, and the reason must be visible
        assert gpu.compute.note or "not verified" in gpu.compute.source, f"{gpu_id}: say why compute is unknown"


def test_unknown_compute_is_a_state_not_a_number(tmp_path: Path) -> None:
    body = _GOOD.format(id="bad").replace('fp8 = "none"', 'fp8 = "n/a"')
    (tmp_path / "bad.toml").write_text(body, encoding="utf-8")
    with pytest.raises(CatalogError, match=r"bad\.toml.*compute\.fp8"):
        model_catalog._load_dir(tmp_path, GpuSpec)
    body = _GOOD.format(id="nounit")
    body = "\n".join(line for line in body.splitlines() if not line.startswith("purchase"))
    (tmp_path / "bad.toml").unlink()
    (tmp_path / "nounit.toml").write_text(body + "\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"nounit\.toml.*purchase"):
        model_catalog._load_dir(tmp_path, GpuSpec)


def test_apple_needs_unified_memory(tmp_path: Path) -> None:
    body = _GOOD.format(id="mac").replace('vendor = "NVIDIA"', 'vendor = "Apple"')
    (tmp_path / "mac.toml").write_text(body, encoding="utf-8")
    with pytest.raises(CatalogError, match=r"mac\.toml.*unified_memory"):
        model_catalog._load_dir(tmp_path, GpuSpec)


def test_unified_memory_share_is_planned() -> None:
    mac = GPUS["apple-m2-ultra"]
    assert mac.unified_memory is not None and mac.unified_memory.default_gpu_share == 0.75
    assert mac.usable_memory_bytes() == round(mac.memory_bytes * 0.75)
    assert mac.usable_memory_bytes(0.9) == round(mac.memory_bytes * 0.9)
    assert "iogpu.wired_limit_mb" in mac.unified_memory.raise_command
    assert GPUS["h100-sxm-80gb"].usable_memory_bytes() == GPUS["h100-sxm-80gb"].memory_bytes


@pytest.mark.parametrize("gpu_id", sorted(g for g, spec in GPUS.items() if spec.engine_visible_bytes is not None))
def test_every_engine_total_is_the_figure_its_source_quotes(gpu_id: str) -> None:
    """The total an engine sees (vLLM's "Free memory on device (x/Y GiB)", PyTorch's "total capacity of Y GiB", or
    a figure derived from a quoted notice) is the Y its source quotes, to the hundredth of a GiB it prints: a value
    edited without its source, or a source without its value, fails here."""
    gpu = GPUS[gpu_id]
    assert gpu.engine_visible_bytes is not None and gpu.engine_visible_source
    assert f"{gpu.engine_visible_bytes / 2**30:.2f}" in gpu.engine_visible_source, gpu_id


def test_no_device_holds_less_than_an_engine_sees() -> None:
    """The device figure the catalog, the sidebar and the generic profile show is never below what an engine prints:
    MI300X showed '178.81 GiB (marketed 192 GB); engines see 191.69 GiB' (the label read as 10^9 bytes where its
    eight 24 GiB stacks are GiB-sized), MI355X 268.22 beside 287.98 (browser audit, 2026-12-05)."""
    from model_catalog import get_gpu, load_gpus
    from planner.core.units import GiB

    for gpu in load_gpus().values():
        if gpu.engine_visible_bytes is not None:
            assert gpu.memory_bytes >= gpu.engine_visible_bytes, gpu.id
    assert round(get_gpu("mi300x").memory_bytes / GiB, 2) == 191.69
    assert round(get_gpu("mi355x").memory_bytes / GiB, 2) == 287.98


def test_the_a800_reports_what_the_a100_80gb_does() -> None:
    """nvidia-smi on an A800 SXM4 80GB: 81920MiB (three public tables); it was planned at 74.51 GiB."""
    from model_catalog import get_gpu

    assert get_gpu("a800-sxm-80gb").memory_bytes == get_gpu("a100-sxm-80gb").memory_bytes == 81920 * 2**20
