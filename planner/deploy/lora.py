"""LoRA adapter slots: the GPU buffers an engine allocates for ``max_loras`` adapters of ``max_lora_rank``.

vLLM (``vllm/lora/layers/base_linear.py`` ``BaseLinearLayerWithLoRA.create_lora_weights``,
``vllm/lora/layers/column_parallel_linear.py``, ``vllm/lora/layers/fused_moe.py``; ``vllm/lora/model_manager.py``
``LoRAModelManager``: ``lora_slots = max_loras``, ``capacity = max_cpu_loras``): every wrapped linear layer holds,
per slice, ``lora_a_stacked = (max_loras, 1, rank, input_size)`` and ``lora_b_stacked = (max_loras, 1, output_size,
rank)`` in ``lora_dtype`` (``auto``: the model's 16-bit dtype). Column-parallel layers (q/k/v, gate/up) keep the
whole input and shard the output by TP; row-parallel ones (o, down) shard the input and keep the whole output.
The packed ``qkv_proj`` has three slices (q, k, v), ``gate_up_proj`` two. Without ``--lora-target-modules`` every
supported module is wrapped. Fused MoE experts get per-expert slots: ``w13`` A ``(max_loras, E, rank, hidden)``
and B ``(max_loras, E, I/tp, rank)`` for gate and up, ``w2`` A ``(max_loras, E, rank, I/tp)`` and B
``(max_loras, E, hidden, rank)``. The buffers are created when the model loads, before the profile run, so V1
counts them in the non-KV memory ("LoRA is not taken into account when determining the number of KV cache blocks"
was V0's bug, vllm#14450). The CPU cache holds ``max_cpu_loras`` whole adapters in host memory.

vLLM from 0.22.0 (rule ``lora_vocab_wrappers``) also gives vocabulary-sized slots to a model class that declares
``embedding_modules`` (:func:`vocab_wrappers`, :func:`vocab_slot_bytes`): ``VocabParallelEmbeddingWithLoRA`` and
``LogitsProcessorWithLoRA`` each hold ``rank x (vocab + hidden)`` values a slot, unsplit by TP (0.27.1
``lora/layers/vocal_parallel_embedding.py:49-67``, ``lora/layers/logits_processor.py:93-112``).

SGLang (``python/sglang/srt/lora/mem_pool.py`` ``LoRAMemoryPool.get_lora_A_shape`` / ``get_lora_B_shape``): A
``(max_loras_per_batch, rank x stacked, input_dim)`` with row-parallel inputs divided by TP, B ``(max_loras_per_batch,
output_dim, rank)``; the same bytes as vLLM's with ``max_loras_per_batch`` (default 8) slots. The pool is made by
``init_lora_manager`` before ``init_memory_pool``, so it comes out of the KV pool.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.core.blocks import ATTENTION_KINDS
from planner.core.model import ModelSpec
from planner.deploy.options import LoraOptions

LORA_DTYPE_BYTES = 2  # lora_dtype "auto": the model's 16-bit activation dtype


class Linear(NamedTuple):
    """One LoRA-wrapped linear layer: its input, its output slices, how TP splits it, and how many copies."""

    module: str  # the PEFT name that selects it (a packed module is wrapped when any of its parts is targeted)
    parts: tuple[str, ...]
    input_size: int
    output_slices: tuple[int, ...]
    row_parallel: bool  # input split by TP (o_proj, down_proj); else column-parallel (output split)
    copies: int = 1  # experts per layer


def _attention(model: ModelSpec) -> list[Linear]:
    h = model.hidden_size or 0
    d = model.resolved_head_dim
    heads = model.num_attention_heads or 0
    if model.mla is not None:  # DeepseekV2 MLA: q (or q_b after q_a), kv_a_proj_with_mqa, kv_b_proj, o
        mla = model.mla
        qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim
        kv_parts = ("k_proj", "v_proj")  # kv_a / kv_b are what a PEFT "k_proj"/"v_proj" target means here
        kv_b_out = heads * (mla.qk_nope_head_dim + mla.v_head_dim)
        return [
            Linear("q_proj", ("q_proj",), mla.q_lora_rank or h, (heads * qk,), False),
            Linear("kv_a_proj", kv_parts, h, (mla.kv_lora_rank + mla.qk_rope_head_dim,), False),
            Linear("kv_b_proj", kv_parts, mla.kv_lora_rank, (kv_b_out,), False),
            Linear("o_proj", ("o_proj",), heads * mla.v_head_dim, (h,), True),
        ]
    kv = model.resolved_kv_heads
    qkv = (heads * d, kv * d, kv * d)
    return [
        Linear("qkv_proj", ("q_proj", "k_proj", "v_proj"), h, qkv, False),
        Linear("o_proj", ("o_proj",), heads * d, (h,), True),
    ]


def _mlp(model: ModelSpec, index: int) -> list[Linear]:
    h = model.hidden_size or 0
    gated = model.mlp_gated
    up = ("gate_proj", "up_proj") if gated else ("up_proj",)
    out: list[Linear] = []
    moe = model.moe
    if moe is not None and model.is_moe_layer(index):
        width = moe.moe_intermediate_size
        slices = (width, width) if gated else (width,)
        out.append(Linear("experts", ("experts",), h, slices, False, moe.num_experts))
        out.append(Linear("experts", ("experts",), width, (h,), True, moe.num_experts))
        dense = moe.shared_width
    else:
        dense = model.intermediate_size or 0
    if dense and model.has_ffn(index):
        out.append(Linear("gate_up_proj", up, h, (dense, dense) if gated else (dense,), False))
        out.append(Linear("down_proj", ("down_proj",), dense, (h,), True))
    return out


def wrapped_linears(model: ModelSpec, index: int) -> list[Linear]:
    """The linear layers of decoder layer ``index`` vLLM wraps (attention of softmax layers; MLP or experts)."""
    kind = model.layers[index]
    return (_attention(model) if kind in ATTENTION_KINDS else []) + _mlp(model, index)


def _sharded(size: int, tp: int, kv_slice: bool, model: ModelSpec) -> int:
    if kv_slice:  # QKVParallelLinear: num_kv_heads per rank, whole heads replicated when TP exceeds them
        return max(1, model.resolved_kv_heads // tp) * model.resolved_head_dim
    return -(-size // tp)


def linear_slot_values(model: ModelSpec, linear: Linear, rank: int, tp: int) -> int:
    """Values of one slot of ``linear`` on one GPU: ``sum over slices of rank x input + output x rank``."""
    total = 0
    for i, size in enumerate(linear.output_slices):
        kv_slice = linear.module == "qkv_proj" and i > 0
        inputs = -(-linear.input_size // tp) if linear.row_parallel else linear.input_size
        outputs = size if linear.row_parallel else _sharded(size, tp, kv_slice, model)
        total += rank * inputs + outputs * rank
    return total * linear.copies


def _targeted(linear: Linear, options: LoraOptions) -> bool:
    return any(part in options.target_modules for part in linear.parts)


def lora_slot_bytes(model: ModelSpec, options: LoraOptions, tensor_parallel: int, layers: range, slots: int) -> int:
    """GPU bytes of ``slots`` adapter slots on one GPU holding decoder ``layers`` (module docstring).

    >>> from planner.core.model import ModelSpec
    >>> m = ModelSpec(id="t", num_hidden_layers=1, hidden_size=8, num_attention_heads=2, num_key_value_heads=1,
    ...               head_dim=4, intermediate_size=16, vocab_size=10, max_position_embeddings=64)
    >>> # qkv 3x(2x8) + 2x(8+4+4) = 80, o 2x8 + 8x2 = 32, gate_up 2x(2x8) + 2x(16+16) = 96, down 2x16 + 8x2 = 48
    >>> lora_slot_bytes(m, LoraOptions(max_loras=1, max_lora_rank=2), 1, range(1), 1)  # 256 values x 2 bytes
    512
    """
    if model.hidden_size is None:
        return 0
    values = 0
    for index in layers:
        for linear in wrapped_linears(model, index):
            if _targeted(linear, options):
                values += linear_slot_values(model, linear, options.max_lora_rank, tensor_parallel)
    return slots * values * LORA_DTYPE_BYTES


def adapter_bytes(model: ModelSpec, options: LoraOptions) -> int:
    """One whole adapter of ``max_lora_rank`` (no TP split) as the host cache keeps it: an upper bound, an
    adapter of a lower rank takes proportionally less."""
    return lora_slot_bytes(model, options, 1, range(model.num_hidden_layers), 1)


# HF model types whose vLLM class declares embedding_modules {"embed_tokens", "lm_head"} at 0.22.0, 0.27.1 and 0.30.0
# (model_executor/models/<file>.py: llama, qwen3, qwen3_moe, mixtral, granite*, exaone*, minicpm, nemotron*, phimoe,
# jamba, solar, apertus, falcon_h1, lfm2*, commandr); mistral (0.30.0 on) and qwen3_5 (0.30.0 on) are left out.
VOCAB_WRAPPED = frozenset(
    {
        "llama", "qwen3", "qwen3_moe", "mixtral", "granite", "granitemoe", "granitemoeshared", "granitemoehybrid",
        "exaone", "exaone4", "minicpm", "nemotron", "nemotron_h", "phimoe", "jamba", "solar", "apertus",
        "falcon_h1", "lfm2", "lfm2_moe", "cohere",
    }
)  # fmt: skip


def vocab_wrappers(model: ModelSpec, first: bool, last: bool) -> int:
    """vLLM's vocabulary-sized LoRA wrappers on a stage: ``embed_tokens`` (the first stage, or the last when tied),
    a tied ``lm_head`` (the embedding module itself, wrapped a second time: 0.27.1 ``lora/model_manager.py:401``
    ``named_modules(remove_duplicate=False)``, ``:432`` lets ``lm_head`` past the already-wrapped check,
    ``lora/utils.py:106-124``), and the logits processor on the last stage (``model_manager.py:473-495``); an
    untied ``ParallelLMHead`` is no ``VocabParallelEmbedding`` (``vocal_parallel_embedding.py:129-136``).
    """
    if model.model_type not in VOCAB_WRAPPED:
        return 0
    tied = model.tie_word_embeddings
    return int(first or (tied and last)) + int(tied and last) + int(last)


def vocab_slot_bytes(model: ModelSpec, options: LoraOptions, first: bool, last: bool, slots: int) -> int:
    """GPU bytes of ``slots`` slots of :func:`vocab_wrappers` (each ``rank x (vocab + hidden)`` values in the LoRA
    dtype: embedding A ``(max_loras, org_vocab_size, rank)`` + B ``(max_loras, 1, embedding_dim, rank)``, 0.27.1
    ``lora/layers/vocal_parallel_embedding.py:49-67``; logits A ``(max_loras, 1, rank, hidden)`` + B ``(max_loras, 1,
    vocab_size, rank)``, ``lora/layers/logits_processor.py:93-112``; neither split by TP)."""
    if model.hidden_size is None or model.vocab_size is None:
        return 0
    values = options.max_lora_rank * (model.vocab_size + model.hidden_size)
    return slots * vocab_wrappers(model, first, last) * values * LORA_DTYPE_BYTES
