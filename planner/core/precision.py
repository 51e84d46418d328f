"""Number formats for weights and for the KV cache, as bits (never bytes), with their scale overheads.

One name per format, the same in the command line, the URL and the dashboard.

Weight formats say which parameters they quantize (their *scope*); the rest keeps 16 bits:
- ``linear``: every linear layer of the decoder blocks (attention, MLP, experts). Embeddings, the
  ``lm_head``, norms, biases and MoE routers stay in 16 bits, as AutoGPTQ / AutoAWQ / llm-compressor /
  vLLM's fp8 leave them (vLLM ``LinearBase`` layers are the only quantized layers), but for the W4A16
  checkpoints that store the lm_head, or the embeddings too, in int8 (``lm_head_bits`` / ``embedding_bits``:
  :mod:`planner.core.vocab_formats`).
- ``experts``: only the MoE expert weights (gpt-oss ships MXFP4 experts and BF16 attention; model card and
  ``config.json`` ``quantization_config.modules_to_not_convert``). On a dense model it acts as ``linear`` (dense
  MXFP4 W4A4 checkpoints exist); the layouts named for MoE checkpoints (``moe_only``) are refused there.
- ``mlp``: every feed-forward weight (dense MLPs, shared and routed experts) while attention keeps 16 bits, or
  ``attention_bits`` (NVIDIA ModelOpt NVFP4 checkpoints list ``*self_attn*`` in ``exclude_modules``; its
  ``MIXED_PRECISION`` ones store attention in FP8; unsloth's mixed export also its lm_head and the MLPs of its last
  layers, the format's ``tail_layers``).
- ``all``: every tensor but norms, with one effective bits-per-weight measured over the whole file
  (GGUF mixtures quantize embeddings and ``output.weight`` too).
- ``none``: a plain dtype for everything (fp32, bf16, fp16) and the seeds' idealised ``int4``/``int8``.
"""

from __future__ import annotations

from typing import Literal

from planner.bounds.errors import PlannerError
from planner.core.format_spec import WeightFormat, group_bits
from planner.core.mixed_formats import MIXED_FORMATS
from planner.core.vocab_formats import VOCAB_FORMATS

# The names, one per format: the same in the CLI, the URL and the UI (a test checks they match the tables).
WeightPrecision = Literal[
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "int4",
    "int4-int8vocab",
    "int4-int8head",
    "int4-gptq",
    "int4-awq",
    "int4-g32",
    "mxfp4",
    "nvfp4",
    "nvfp4-fp8attn",
    "nvfp4-fp8tail",
    "nvfp4-mlp",
    "nvfp4-experts",
    "int4-experts",
    "int4-autoround",
    "int4-mixed-autoround",
    "q8_0",
    "q6_k",
    "q5_k_m",
    "q4_k_m",
    "q3_k_m",
    "q2_k",
]


# llama.cpp's GGUF types: a file of one type holds every tensor as the type says (a drafter loaded beside a GGUF
# target is that draft model's file of the same type: ``--model-draft <draft>-Q4_K_M.gguf``).
GGUF_TYPES = ("q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k")


WEIGHT_FORMATS: dict[str, WeightFormat] = {
    f.name: f
    for f in [
        WeightFormat(
            name="fp32",
            label="FP32",
            bits_per_weight=32,
            scope="none",
            unquantized_bits=32,
            quality_note="Reference precision; no serving benefit over BF16.",
            source=(
                "IEEE 754 binary32: 4 bytes per parameter (The Memory Math of Serving a Model: fp32 = 4 bytes/param)."
            ),
        ),
        WeightFormat(
            name="bf16",
            label="BF16",
            bits_per_weight=16,
            scope="none",
            quality_note="The training precision of most current models: the quality baseline.",
            source="bfloat16: 2 bytes per parameter (The Memory Math of Serving a Model: bf16 is also 2).",
        ),
        WeightFormat(
            name="fp16",
            label="FP16",
            bits_per_weight=16,
            scope="none",
            quality_note="Same size as BF16; a BF16-trained model can overflow in FP16 (Gemma, large Llamas).",
            source=(
                "IEEE 754 binary16: 2 bytes per parameter (The Memory Math of Serving a Model: fp16 = 2 bytes/param)."
            ),
        ),
        WeightFormat(
            name="fp8",
            label="FP8 (block scales)",
            bits_per_weight=8 + 32 / (128 * 128),
            scope="linear",
            quality_note="Near-lossless on current models (DeepSeek-V3 and Qwen3 ship FP8 checkpoints).",
            source=(
                "FP8 e4m3 with one fp32 weight_scale_inv per 128x128 block (DeepSeek-V3 README_WEIGHTS; "
                "vLLM fp8.py block quant); embeddings, lm_head and norms stay BF16."
            ),
        ),
        WeightFormat(
            name="int8",
            label="INT8 W8A8",
            bits_per_weight=8,
            scope="linear",
            quality_note="Small loss with SmoothQuant-style calibration (W8A8).",
            source=(
                "llm-compressor / compressed-tensors W8A8 INT8 with a per-tensor weight scale: 1 byte per "
                "weight (Memory Planning for LLMs counts 8-bit as 1 byte/param); per-channel variants add one fp32 "
                "per output "
                "row, under 0.01 bit per weight."
            ),
        ),
        WeightFormat(
            name="int4",
            label="INT4 (plain)",
            bits_per_weight=4,
            scope="none",
            quality_note="Idealised 4 bits for every parameter, as the founding texts count it.",
            source=(
                "The Memory Math of Serving a Model: int4 = 0.5 byte/param; Memory Planning for LLMs' planner counts "
                "4-bit weights as 0.5 byte."
            ),
        ),
        # W4A16 with int8 vocabulary matrices, before the 4-bit formats of the same bits: they store less, and formats
        # of equal bits keep this order where they are ranked (as ModelOpt MIXED_PRECISION below)
        *VOCAB_FORMATS,
        WeightFormat(
            name="int4-gptq",
            label="INT4 GPTQ g128",
            bits_per_weight=group_bits(4, 128, 16, 4),
            scope="linear",
            quality_note="About 1 point of benchmark loss on 7B-70B models at group size 128.",
            source=(
                "GPTQ (Frantar et al. 2022), group size 128: 4-bit qweight + fp16 scale + 4-bit zero per "
                "128 weights = 4.156 bits (AutoGPTQ QuantLinear buffers)."
            ),
        ),
        WeightFormat(
            name="int4-awq",
            label="INT4 AWQ g128",
            bits_per_weight=group_bits(4, 128, 16, 4),
            scope="linear",
            quality_note="Activation-aware 4-bit; similar to or slightly better than GPTQ at g128.",
            source=(
                "AWQ (Lin et al. 2023), group size 128: 4-bit qweight + fp16 scales + 4-bit qzeros per "
                "128 weights = 4.156 bits (AutoAWQ WQLinear_GEMM buffers)."
            ),
        ),
        WeightFormat(
            name="int4-g32",
            label="INT4 W4A16 g32 (compressed-tensors)",
            bits_per_weight=group_bits(4, 32, 16, 4),
            scope="linear",
            mtp_bits=16,  # llm-compressor's Qwen3.5 recipes ignore "re:.*mtp.*": the shard sizes below need it
            quality_note="AWQ or GPTQ rounding at group size 32: finer scales than g128, 0.47 bit more per weight.",
            source=(
                "compressed-tensors pack-quantized W4A16, asymmetric, group 32 (llm-compressor's AWQ-INT4 exports, "
                "e.g. cyankiwi/Qwen3.8-27B-AWQ-INT4): int4 values packed in int32, one 16-bit weight_scale and one "
                "4-bit weight_zero_point (packed: compressed-tensors 0.20.1 compressors/pack_quantized/base.py "
                "104-106) per 32 = 4.625 bits; that checkpoint's 5 shards hold 21.02 GB where this format with BF16 "
                "embedding, lm_head, vision tower and MTP module counts 20.94 (20.34 with the MTP module quantized)."
            ),
        ),
        WeightFormat(
            name="mxfp4",
            label="MXFP4",
            bits_per_weight=4 + 8 / 32,
            scope="experts",
            quality_note="gpt-oss is trained for it (quantization-aware); post-hoc MXFP4 loses more.",
            source=(
                "OCP Microscaling spec v1.0: FP4 e2m1 values with one e8m0 scale per 32 = 4.25 bits; "
                "gpt-oss model card: MoE weights in MXFP4, the rest BF16."
            ),
        ),
        WeightFormat(
            name="nvfp4",
            label="NVFP4",
            bits_per_weight=4 + 8 / 16,
            scope="linear",
            quality_note="Blackwell FP4 with finer scales than MXFP4; ~1% loss reported by NVIDIA.",
            source="NVIDIA NVFP4: FP4 e2m1 values with one FP8 e4m3 scale per 16 (+ per-tensor fp32) = 4.5 bits.",
        ),
        # ModelOpt MIXED_PRECISION is listed before the NVFP4 formats of the same bits: it stores less (attention
        # in FP8), and formats of equal bits keep this order where they are ranked.
        WeightFormat(
            name="nvfp4-fp8attn",
            label="NVFP4 MLP + FP8 attention",
            bits_per_weight=4 + 8 / 16,
            scope="mlp",
            attention_bits=8,
            lm_head_bits=4 + 8 / 16,
            quality_note="NVIDIA's mixed checkpoints: NVFP4 (W4A16) feed-forward, FP8 attention, NVFP4 lm_head.",
            source=(
                "NVIDIA ModelOpt hf_quant_config.json quant_algo MIXED_PRECISION (nvidia/Qwen3.6-27B-NVFP4, "
                "nvidia/Qwen3.6-35B-A3B-NVFP4 in ai-dynamo/aiconfigurator model_configs): q/k/v/o and linear_attn "
                "projections FP8 (1 byte + per-tensor scales), mlp / experts / lm_head W4A16_NVFP4 group 16 (FP4 "
                "e2m1 + one FP8 e4m3 scale per 16 = 4.5 bits); embeddings, norms, gates BF16."
            ),
        ),
        WeightFormat(
            name="nvfp4-fp8tail",
            label="NVFP4 MLP + FP8 attention, lm_head and last 8 MLPs",
            bits_per_weight=4 + 8 / 16,
            scope="mlp",
            attention_bits=8,
            lm_head_bits=8,
            tail_layers=8,
            tail_bits=8,
            mtp_bits=16,
            dense_only=True,
            quality_note="unsloth's mixed NVFP4 export: the last layers' MLPs and the lm_head kept in FP8 for quality.",
            source=(
                "unsloth/Qwen3.8-27B-NVFP4, compressed-tensors format mixed-precision, as a public README of its vLLM "
                "0.27.1 start-ups tabulates it (search-index file id 60293000203): group_0 FP8 W8A8 (channel weights) "
                "on every self_attn and linear_attn projection, the lm_head and the MLPs of the last 8 layers (56-63), "
                "group_1 NVFP4 W4A4 group 16 (4.5 bits) on the other MLPs, the vision tower unquantized, the MTP "
                "module a separate BF16 file (811 MB); 22.5 GB stored, which this layout counts within 0.2 % "
                "(tests/core/test_weights.py). vLLM loads the FP8 lm_head as stored (0.27.1 "
                "compressed_tensors.py:180-187 gives ParallelLMHead its scheme)."
            ),
        ),
        WeightFormat(
            name="nvfp4-mlp",
            label="NVFP4 MLP (BF16 attention)",
            bits_per_weight=4 + 8 / 16,
            scope="mlp",
            quality_note="Attention kept in BF16; the usual layout of NVIDIA's published NVFP4 checkpoints.",
            source=(
                "NVIDIA ModelOpt hf_quant_config.json quant_algo NVFP4 group_size 16 with *self_attn* in "
                "exclude_modules (nvidia/DeepSeek-V3.2-NVFP4, nvidia/Gemma-4-31B-IT-NVFP4, "
                "nvidia/MiniMax-M2.5-NVFP4): every MLP and expert in NVFP4 (4.5 bits), attention, lm_head and "
                "embeddings BF16."
            ),
        ),
        WeightFormat(
            name="nvfp4-experts",
            label="NVFP4 experts only",
            bits_per_weight=4 + 8 / 16,
            scope="experts",
            moe_only=True,
            quality_note="Only the routed experts are quantized; shared experts and attention stay BF16.",
            source=(
                "NVIDIA ModelOpt hf_quant_config.json quant_algo NVFP4 group_size 16 excluding *self_attn*, "
                "*linear_attn*, *shared_expert* and dense layers (nvidia/Qwen3.5-397B-A17B-NVFP4, "
                "nvidia/Kimi-K2.6-NVFP4): routed experts 4.5 bits, the rest BF16."
            ),
        ),
        WeightFormat(
            name="int4-experts",
            label="INT4 g32 experts (compressed-tensors)",
            bits_per_weight=group_bits(4, 32, 16),
            scope="experts",
            moe_only=True,
            quality_note="Quantization-aware trained (Kimi-K2-Thinking ships it natively); attention stays BF16.",
            source=(
                "compressed-tensors pack-quantized W4A16: int4 symmetric, group 32, one BF16 weight_scale per 32 "
                "(no zero point) = 4.5 bits; Kimi-K2-Thinking config.json quantization_config targets the routed "
                "experts and ignores attention, shared experts, layer 0's dense MLP and lm_head."
            ),
        ),
        WeightFormat(
            name="int4-autoround",
            label="INT4 AutoRound g128",
            bits_per_weight=group_bits(4, 128, 16, 4),
            scope="linear",
            quality_note="Sign-gradient rounding (Intel AutoRound); usually at or above GPTQ at g128.",
            source=(
                "AutoRound (Cheng et al. 2023) exported in the auto_round / auto_gptq packing: 4-bit qweight, fp16 "
                "scales and 4-bit packed qzeros per group of 128 = 4.156 bits (quantization_config quant_method "
                "auto-round, bits 4, group_size 128)."
            ),
        ),
        *MIXED_FORMATS,
        WeightFormat(
            name="q8_0",
            label="GGUF Q8_0",
            bits_per_weight=8.5,
            scope="all",
            quality_note="Practically lossless (llama.cpp perplexity +0.0004 on Llama 2 7B).",
            source="ggml block_q8_0: 32 int8 + one fp16 scale = 34 bytes per 32 weights = 8.5 bits (ggml-common.h).",
        ),
        WeightFormat(
            name="q6_k",
            label="GGUF Q6_K",
            bits_per_weight=6.56,
            scope="all",
            quality_note="Very small loss; the largest K-quant.",
            source="llama.cpp tools/quantize/README.md, Llama 2 7B table: Q6_K 6.56 bits per weight.",
        ),
        WeightFormat(
            name="q5_k_m",
            label="GGUF Q5_K_M",
            bits_per_weight=5.68,
            scope="all",
            quality_note="Small loss; a common quality-first local choice.",
            source="llama.cpp tools/quantize/README.md, Llama 2 7B table: Q5_K_M 5.68 bits per weight.",
        ),
        WeightFormat(
            name="q4_k_m",
            label="GGUF Q4_K_M",
            bits_per_weight=4.84,
            scope="all",
            quality_note="The usual local default: noticeable but modest loss.",
            source="llama.cpp tools/quantize/README.md, Llama 2 7B table: Q4_K_M 4.84 bits per weight.",
        ),
        WeightFormat(
            name="q3_k_m",
            label="GGUF Q3_K_M",
            bits_per_weight=3.91,
            scope="all",
            quality_note="Clear quality loss, mostly for large models on small cards.",
            source="llama.cpp tools/quantize/README.md, Llama 2 7B table: Q3_K_M 3.91 bits per weight.",
        ),
        WeightFormat(
            name="q2_k",
            label="GGUF Q2_K",
            bits_per_weight=3.35,
            scope="all",
            quality_note="Large quality loss; a last resort.",
            source=(
                "llama.cpp tools/quantize/README.md, Llama 2 7B table: Q2_K 3.35 bits per weight "
                "(the mixture keeps some tensors above 2.625-bit block_q2_K)."
            ),
        ),
    ]
}


def weight_format(name: str) -> WeightFormat:
    """The weight format called ``name`` (``bf16``, ``int4-awq``, ``q4_k_m``, …).

    >>> weight_format("q4_k_m").bits_per_weight, weight_format("mxfp4").scope
    (4.84, 'experts')
    """
    try:
        return WEIGHT_FORMATS[name]
    except KeyError:
        raise PlannerError(f"weights: unknown precision {name!r}; choose one of {', '.join(WEIGHT_FORMATS)}") from None


# What a dense model's checkpoint of a MoE-only layout's arithmetic is called (WeightFormat.moe_only)
_DENSE_COUNTERPARTS = {
    "nvfp4-experts": "nvfp4",
    "int4-experts": "int4-g32 (W4A16 at group 32) or int4-gptq",
    "int4-mixed-autoround": "int4-autoround",
}


def dense_counterpart(name: str) -> str:
    """The format(s) of a dense checkpoint with the arithmetic of the MoE-only layout ``name``.

    >>> dense_counterpart("nvfp4-experts")
    'nvfp4'
    """
    return _DENSE_COUNTERPARTS.get(name, name)


# The native dtype names a Hugging Face config.json uses (torch_dtype / dtype), mapped to ours.
TORCH_DTYPE_NAMES: dict[str, str] = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
