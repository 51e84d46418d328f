"""Pins for the H100 Llama 4 FP8 misses (``HOPPER_FULL_MEMORY``, issue 21; helper ``llama4h``): what the speed model
charges a TensorRT-LLM FP8 decode step's routed experts on Hopper, beside the fused MoE aiconfigurator measured for
the same shape, which is read and not priced (docs/advisor.md, fifty-sixth, ``llama4h``).

Measured: ai-dynamo/aiconfigurator@095f58a51 ``aic-core/src/aiconfigurator_core/systems/data/h100_sxm/moe/trtllm/
1.3.0rc20/moe_perf.parquet``, ``kernel_source`` moe_torch_flow_cutlass, ``moe_dtype`` fp8 (per tensor, the
NVIDIA Llama 4 FP8 checkpoints' format), ``distribution`` power_law_1.01 (the extract's, planner/advisor/
trtllm_gemm_tables.toml), hidden 5120, ``inter_size`` 8192, top-1: Maverick's 128 experts at ``moe_ep_size`` 8 take
0.6417 ms a layer at 512 tokens and 0.6516 at 768; Scout's 16 at ``moe_ep_size`` 4 take 0.2368 ms at 512 and 0.3024 at
768. The H200 file (same path, ``h200_sxm``) has Maverick at 0.4116 / 0.4091 ms (H100 / H200 = 1.56 / 1.59, about
their bandwidth ratio, 3.35 / 4.8 TB/s) but Scout at EP 4 at 0.8893 / 0.9720 ms, four times the H100's on the same
die with more bandwidth: the row that keeps the mechanism from shipping on its own (docs/advisor.md).
"""

from __future__ import annotations

from pathlib import Path

from planner.advisor.benchmarks import load_rows
from planner.advisor.engine_speed import FITTED, experts_roofline_seconds, step
from planner.advisor.kernel_grid import along
from planner.advisor.paged_moe import paged_moe_seconds
from planner.advisor.validation import case

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"
MEASURED_MS = {  # aiconfigurator, H100 SXM, 1.3.0rc20, FP8 fused MoE (module docstring): tokens -> ms a layer
    "trtllm-h100x8-llama4-maverick-fp8-128-4096": ((512, 768), (0.6417, 0.6516)),
    "trtllm-h100x4-llama4-scout-fp8-128-4096": ((256, 512, 768), (0.2126, 0.2368, 0.3024)),
}


def test_the_decode_step_prices_hopper_fp8_experts_below_the_measured_kernel() -> None:
    """At the batch the H100 pool holds (608 Maverick sequences over 8 GPUs, 511 Scout over 4), the speed model
    charges the routed experts their touched bytes (``moe_locality`` 0.76: 64 % of Maverick's experts at 608 tokens)
    at the fitted bandwidth share: 0.393 ms a layer for Maverick, 0.153 for Scout. The measured kernel takes 1.64x and
    1.55x that. No table times these steps (``paged_moe_seconds`` is vLLM's and SGLang's; no measured transfer), so
    the figure is the roofline's; pricing the table here moves the fit's vLLM ridge (docs/advisor.md)."""
    rows = {row.id: row for row in load_rows((UNSEEN,))}
    expected = {  # batch, roofline ms a layer, measured / roofline
        "trtllm-h100x8-llama4-maverick-fp8-128-4096": (608, 0.393, 1.64),
        "trtllm-h100x4-llama4-scout-fp8-128-4096": (511, 0.153, 1.55),
    }
    for row_id, (batch, per_layer_ms, ratio) in expected.items():
        c = case(rows[row_id])
        assert c.decode is not None and c.decode.matmuls is not None
        layers = c.decode.matmuls.moe_layers
        roofline = experts_roofline_seconds(c.setup, c.decode, FITTED) / layers * 1e3
        tokens, ms = MEASURED_MS[row_id]
        measured = along(tokens, ms, c.batch)
        assert c.batch == batch, row_id
        assert abs(roofline - per_layer_ms) < 0.002, (row_id, roofline)
        assert abs(measured / roofline - ratio) < 0.01, (row_id, measured / roofline)
        assert paged_moe_seconds(c.setup, c.decode) is None
        assert step(c.setup, c.decode, FITTED).transfer is None
