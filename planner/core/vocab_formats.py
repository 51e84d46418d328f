"""W4A16 group-128 checkpoints that keep their vocabulary matrices in int8 rather than BF16, and their MTP module in
BF16.

Published W4A16 quants usually keep ``lm_head`` and ``embed_tokens`` in 16 bits (Qwen3.8-27B: 248,320 x 5,120
each, 2.37 GiB). Some store them as int8, symmetric, group 128, packed in int32 with one 16-bit scale a group:
8 + 16 / 128 = 8.125 bits.

- **int4-int8head**: the lm_head alone. Twu31/Qwen3.6-35B-A3B-GPTQ-INT4-W4A16-LowLatency (llm-compressor GPTQ,
  symmetric g128 on every text-decoder linear; "lm_head en INT8 g128"; MTP head, vision tower, router and GDN a/b
  gates BF16; its card: 18.6 GiB loaded by vLLM, 19.0 with a BF16 head), and dbirks/Qwen3.8-27B-W4A16-AutoRound after
  syv-ai/qwen38-27b-rtx3090's ``prepare/quant_lm_head.py`` (fp16 scales, a ``group_1`` targeting
  ``re:.*lm_head$``), which also puts the MTP module's projections, stored in BF16, in the ``ignore`` list.
- **int4-int8vocab**: the embedding too (the same repository's ``prepare/quant_embed.py``: bf16 scales, a
  ``group_2`` targeting ``re:.*embed_tokens$``), as the ``ghcr.io/syv-ai/qwen38-27b-rtx3090`` image serves it.

vLLM loads them as stored: the LM head through compressed-tensors' scheme for a ``ParallelLMHead`` (0.28.0
``quantization/compressed_tensors/compressed_tensors.py:180-187``; W4A16 and W8A16 are both ``CompressedTensorsWNA16``,
``schemes/compressed_tensors_wNa16.py:38-48``, repacked by Marlin at the same size), the embedding through
``CompressedTensorsEmbeddingWNA16Int`` (from 0.24.0; 0.28.0 ``compressed_tensors.py:189-205``: the packed int32
values and a ``params_dtype`` scale per group, ``compressed_tensors_embedding.py:94-150``), which Qwen3.5's model
builds only with syv-ai's patch passing ``quant_config`` (0.28.0 ``models/qwen3_5.py:244-247`` passes none;
``patches/0001-qwen3_5-embed-quant.patch``). The 4-bit layers are W4A16 symmetric group 128 in both (Twu31's card:
"symmetric"; dbirks' compressed-tensors export), which stores no zero point: 4 + 16 / 128 = 4.125 bits, not
int4-gptq's 4.156 (0.28.0 ``schemes/compressed_tensors_wNa16.py:130`` ``zero_points=not self.symmetric``, ``:196-227``
the ``weight_zero_point`` built and registered only when not symmetric). The three start-ups that print their
weights load 0.03-0.04 GiB more than planned at 4.125 bits, 0.05-0.10 less than at 4.156
(tests/fidelity/test_int8_vocab.py).
"""

from __future__ import annotations

from planner.core.format_spec import WeightFormat, group_bits

W4A16_SYM_G128 = group_bits(4, 128, 16)  # int4 values and one 16-bit scale per 128 (symmetric: no zero point)
INT8_G128 = group_bits(8, 128, 16)  # int8 values and one 16-bit scale per 128 (symmetric: no zero point)
_QUALITY = "4-bit linear layers (GPTQ or AutoRound rounding); the lm_head{also} in int8 group 128."
_SOURCE = (
    "W4A16 symmetric group 128 (compressed-tensors: 4.125 bits, no zero point) with {what} in int8 symmetric group "
    "128 with 16-bit scales (8.125 bits) and the MTP module in BF16: {who}; vLLM loads {how} "
    "(planner.core.vocab_formats)."
)

# The one storing less first (formats of equal bits are ranked in this order: planner.core.precision)
VOCAB_FORMATS: tuple[WeightFormat, ...] = (
    WeightFormat(
        name="int4-int8vocab",
        label="INT4 W4A16 g128, int8 lm_head and embeddings",
        bits_per_weight=W4A16_SYM_G128,
        scope="linear",
        lm_head_bits=INT8_G128,
        embedding_bits=INT8_G128,
        mtp_bits=16,
        quality_note=_QUALITY.format(also=" and embeddings"),
        source=_SOURCE.format(
            what="the lm_head and embed_tokens",
            who="dbirks/Qwen3.8-27B-W4A16-AutoRound after syv-ai's prepare/quant_lm_head.py and quant_embed.py",
            how="the head as a W8A16 ParallelLMHead and the embedding through CompressedTensorsEmbeddingWNA16Int "
            "(0.28.0 compressed_tensors.py:180-205; Qwen3.5's only with the image's embed-quant patch)",
        ),
    ),
    WeightFormat(
        name="int4-int8head",
        label="INT4 W4A16 g128, int8 lm_head",
        bits_per_weight=W4A16_SYM_G128,
        scope="linear",
        lm_head_bits=INT8_G128,
        mtp_bits=16,
        quality_note=_QUALITY.format(also=""),
        source=_SOURCE.format(
            what="the lm_head",
            who="Twu31/Qwen3.6-35B-A3B-GPTQ-INT4-W4A16-LowLatency, dbirks/Qwen3.8-27B-W4A16-AutoRound after "
            "syv-ai's prepare/quant_lm_head.py",
            how="the head as a W8A16 ParallelLMHead (0.28.0 compressed_tensors.py:180-187)",
        ),
    ),
)
