"""vLLM's device-dependent terms, each from the source or fitted by device class: the attention backend by compute
capability and KV dtype, the tensor-parallel collectives by device (vLLM's NVLink collectives only on 9.0 / 10.x),
the graphics-die share of non-torch memory, unified memory's share of the loaded weights, and the fits behind them
(bench/calibrate_terms.py)."""

from __future__ import annotations

import pytest

from bench.calibrate_terms import NonTorchPoint, base_constants, fit_graphs, fit_non_torch
from model_catalog import get_gpu
from planner.core.units import GiB
from planner.engines.platform import VllmPlatform, vllm_platform
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import NonTorchEra


@pytest.mark.parametrize(
    ("gpu", "graphics", "nvlink"),
    [
        ("rtx-3090", True, False),
        ("rtx-4090", True, False),
        ("rtx-5090", True, False),
        ("rtx-pro-6000-blackwell", True, False),
        ("l40s", True, False),
        ("a100-sxm-80gb", False, False),
        ("h100-sxm-80gb", False, True),
        ("h200-sxm-141gb", False, True),
        ("b200-sxm", False, True),
        ("dgx-spark-gb10", False, False),
    ],
)
def test_device_classes(gpu: str, graphics: bool, nvlink: bool) -> None:
    """Graphics dies are the GA10x / AD10x / GB20x parts; vLLM's NVLink collectives (FlashInfer all-reduce
    fusion, symmetric-memory all-reduce) exist on compute capability 9.0 and 10.x only."""
    platform = vllm_platform(get_gpu(gpu))
    assert (platform.graphics_die, platform.nvlink_collectives) == (graphics, nvlink)


def test_attention_backend_by_capability_and_kv_dtype() -> None:
    """FlashAttention first except on 10.x; FlashInfer where FlashAttention 2 cannot take an FP8 cache (0.27.1
    platforms/cuda.py:145-161, fa_utils.py:296-316). A BF16 cache on an RTX PRO 6000 runs FlashAttention, which
    keeps FULL graphs with speculative decoding (the recipe's MTP runs captured FULL_AND_PIECEWISE)."""
    pro6000 = vllm_platform(get_gpu("rtx-pro-6000-blackwell"))
    assert pro6000.attention_backend(kv_fp8=False) == "flash_attn"
    assert pro6000.attention_backend(kv_fp8=True) == "flashinfer"
    assert vllm_platform(get_gpu("h100-sxm-80gb")).attention_backend(kv_fp8=True) == "flash_attn"  # FA3
    assert vllm_platform(get_gpu("b200-sxm")).attention_backend(kv_fp8=False) == "flashinfer"
    assert vllm_platform(get_gpu("rtx-3090")).attention_backend(kv_fp8=True) == "flashinfer"


def _constants() -> VllmProfile:
    era = NonTorchEra(since="0.20.0", tp1=round(0.25 * GiB), tp2=round(2.07 * GiB), tp2_nccl=round(0.3 * GiB), pp=0)
    constants = base_constants(
        non_torch=[era], graphics_extra=round(1.2 * GiB), uma_weights_share=0.3, uma_weights_share_lazy=0.1
    )
    return VllmProfile(engine_version="0.28.0", constants=constants)


def test_non_torch_by_device_class() -> None:
    """TP 2 takes the NVLink class on an H100 and NCCL alone on GeForce cards; graphics dies add their share,
    divided by TP; unified memory adds its loader class's share of the weights the GPU loaded."""
    profile = _constants()

    def gib(gpu: str, tp: int, weights: float = 0.0) -> float:
        platform = vllm_platform(get_gpu(gpu))
        return profile.non_torch_bytes(tp, 1, platform, round(weights * GiB)) / GiB

    assert gib("h100-sxm-80gb", 1) == pytest.approx(0.25)
    assert gib("h100-sxm-80gb", 2) == pytest.approx(2.07)
    assert gib("a100-sxm-80gb", 2) == pytest.approx(0.3)  # no NVLink collectives on Ampere
    assert gib("rtx-3090", 1) == pytest.approx(0.25 + 1.2)
    assert gib("rtx-3090", 2) == pytest.approx(0.3 + 0.6)
    assert gib("dgx-spark-gb10", 1, weights=20.0) == pytest.approx(0.25 + 2.0)  # vLLM's default loader
    fast = profile.model_copy(update={"load_format": "fastsafetensors"})
    spark = vllm_platform(get_gpu("dgx-spark-gb10"))
    assert fast.non_torch_bytes(1, 1, spark, 20 * GiB) / GiB == pytest.approx(0.25 + 6.0)
    assert profile.non_torch_bytes(2) == round(2.07 * GiB)  # no platform: a datacenter device


def _point(version: str, gpu: str, tp: int, gib: float, weights: float = 10.0, ahead: bool = False) -> NonTorchPoint:
    return NonTorchPoint(version, tp, 1, vllm_platform(get_gpu(gpu)), gib, weights, read_ahead=ahead)


def test_fit_non_torch_separates_the_classes() -> None:
    """The datacenter base per era, the graphics share over it at TP 1, NCCL-only TP 2 at the era's TP 1 base
    whatever its own figures (tests/fidelity/test_family_folds.py), unified memory as a share of the weights per
    loader class, a class of fewer than two start-ups at the median of all of them."""
    points = [
        _point("0.24.0", "h100-sxm-80gb", 1, 0.25),
        _point("0.24.0", "h100-sxm-80gb", 1, 0.25),
        _point("0.24.0", "h100-sxm-80gb", 2, 2.07),
        _point("0.24.0", "h100-sxm-80gb", 2, 2.07),
        _point("0.24.0", "rtx-5090", 1, 1.45),
        _point("0.24.0", "rtx-3090", 1, 1.45),
        _point("0.24.0", "rtx-5090", 2, 0.95),
        _point("0.24.0", "rtx-3090", 2, 0.95),
        _point("0.24.0", "dgx-spark-gb10", 1, 6.25, weights=20.0, ahead=True),
        _point("0.24.0", "dgx-spark-gb10", 1, 12.25, weights=40.0, ahead=True),
        _point("0.24.0", "dgx-spark-gb10", 1, 2.25, weights=20.0),
        _point("0.24.0", "dgx-spark-gb10", 1, 0.85, weights=6.0),
    ]
    eras, uma_share, graphics = fit_non_torch(points)
    era = next(e for e in eras if e.since == "0.20.0")
    assert era.tp1 == round(0.25 * GiB) and era.tp2 == round(2.07 * GiB)
    assert graphics == round(1.2 * GiB)
    assert era.tp2_nccl == era.tp1
    assert uma_share.read_ahead == pytest.approx(0.3) and uma_share.lazy == pytest.approx(0.1)
    one_lazy = fit_non_torch(points[:-1])[1]
    assert one_lazy.read_ahead == pytest.approx(0.3) and one_lazy.lazy == pytest.approx(0.3)  # median of 0.3, 0.3, 0.1
    low = [*points[:4], _point("0.24.0", "rtx-3090", 1, 1.45), _point("0.24.0", "rtx-3090", 1, 1.45)]
    low += [_point("0.24.0", "rtx-3090", 2, 0.4), _point("0.24.0", "rtx-3090", 2, 0.4)]
    assert next(e for e in fit_non_torch(low)[0] if e.since == "0.20.0").tp2_nccl == era.tp1


def test_graph_fit_gives_one_graph_count_to_the_graphs() -> None:
    """With every printed estimate at one graph count, the slope is per graph and layer, not per layer: a
    start-up capturing a few graphs is not charged the many graphs of the fitted ones."""
    points = [(32, 100, 0.70), (64, 100, 1.38), (40, 100, 0.87)]
    base, per_layer, per_graph = fit_graphs(points)
    assert per_layer == 0 and per_graph > 0
    few = base + per_graph * 64 * 2
    assert few / GiB < 0.1 < 1.38


def test_an_unnamed_device_is_the_datacenter_default() -> None:
    assert not VllmPlatform().graphics_die and VllmPlatform().nvlink_collectives
