"""Intel's ``int4-mixed`` AutoRound layout of a mixture-of-experts checkpoint: INT4 routed experts, the other
decoder linear layers in INT8.

Intel publishes its MoE AutoRound checkpoints in two layouts: ``-int4-AutoRound`` (every decoder linear layer INT4)
and ``-int4-mixed-AutoRound``, whose non-expert layers fall back to higher bits. Intel's recipe, in its maintainer's
words: "fall back non-exprert module to higher bits for moe models" (intel/auto-round issue #1799, 2026-05-11).
The higher width is 8: Intel's gemma-4-26B-A4B-it-int4-mixed-AutoRound "packs to ``uint8b128``" (vLLM's scalar
type of symmetric 8-bit GPTQ weights; noonghunna/club-3090 ``models/gemma-4-26b-a4b/vllm/compose/dual/awq/mtp.yml``,
archived for it). So the experts keep AutoRound's INT4 group 128 (auto_round:auto_gptq packing: 4-bit values, an
fp16 scale and a packed 4-bit zero per 128, 4.156 bits) and the attention, Gated DeltaNet projections and shared
expert are INT8 group 128 in the same packing (8 + (16 + 8) / 128 = 8.1875 bits); routers, the shared-expert gate,
embeddings, lm_head and the vision tower stay 16-bit, as in Intel's Qwen3.5 AutoRound ``extra_config``
(``shared_expert_gate``: bits 16, Intel/Qwen3.5-397B-A17B-int4-AutoRound quantization_config.json).

The checkpoint's own ``quantization_config`` is not in the sources read. 16-bit non-expert layers are ruled out by
its start-up on one RTX 3090 (club-3090 pull request #323: 0.78 GiB of KV cache left at util 0.95, where 16 bits
would need 1.94 GiB more than INT4); the shared expert's width (8 assumed; 16 would add 0.11 GiB on
Qwen3.6-35B-A3B) is the open part. vLLM loads the INT8 layers through the same GPTQ-Marlin path as the INT4 ones
(0.22.0 ``model_executor/layers/quantization/inc.py:141-178`` ``get_layer_config``: ``bits`` per layer from
``extra_config``; ``:323-366`` ``apply_gptq_quant_layer`` -> Marlin when ``(bits, sym)`` is in ``auto_gptq.py:99-101``
``TYPE_MAP``, (8, True) -> ``scalar_types.uint8b128``), repacked at the same size.
"""

from __future__ import annotations

from planner.core.format_spec import WeightFormat, group_bits

MIXED_FORMATS: tuple[WeightFormat, ...] = (
    WeightFormat(
        name="int4-mixed-autoround",
        label="INT4 AutoRound experts, INT8 elsewhere (Intel int4-mixed)",
        bits_per_weight=group_bits(4, 128, 16, 4),
        scope="experts",
        non_expert_bits=group_bits(8, 128, 16, 8),
        moe_only=True,
        quality_note="Routed experts in 4-bit AutoRound, attention and shared experts in 8-bit: above plain INT4.",
        source=(
            "Intel's int4-mixed AutoRound MoE checkpoints (Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound): routed "
            "experts INT4 g128 (4.156 bits), the other decoder linear layers INT8 g128 in the auto_gptq packing "
            "(8.1875 bits), routers, embeddings, lm_head and vision tower 16-bit (planner.core.mixed_formats)."
        ),
    ),
)
