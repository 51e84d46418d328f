"""The rotary-embedding caches vLLM keeps on every GPU beside the weights.

vLLM's rotary embeddings precompute cos and sin for every position the model allows and keep them as a buffer
on the device (``RotaryEmbeddingBase.__init__``, ``vllm/model_executor/layers/rotary_embedding/base.py`` at
v0.19.0, lines 58-63: ``cache = self._compute_cos_sin_cache(); cache = cache.to(dtype);
self.register_buffer("cos_sin_cache", cache, persistent=False)``). The model is built on the GPU under the
model's dtype (``base_loader.py`` lines 53-54), inside the ``DeviceMemoryProfiler`` that prints "Model loading
took" (``v1/worker/gpu_model_runner.py`` lines 4746-4822), so the buffer is counted with the weights, on every
tensor-parallel rank (it is not split). ``get_rope`` returns one shared module per distinct set of arguments
(``rotary_embedding/__init__.py`` lines 26 and 68-78: head size, rotary dim, max position, style, RoPE parameters,
dtype), so the decoder layers of a model hold one cache per distinct RoPE: one for most models, two for Gemma 3
and Gemma 4, whose sliding layers have their own.

Not counted: the vision towers' own rotary tables (Qwen3-VL's ``get_rope`` over 8,192 positions, ``qwen3_vl.py``
line 368: under 1 MiB), and a dynamic-alpha or dual-chunk RoPE (no catalog model uses one).
"""

from __future__ import annotations

import math

from planner.core.blocks import ATTENTION_KINDS, LayerKind
from planner.core.model import ModelSpec


def rope_cache_bytes(model: ModelSpec, dtype_bytes: int, layers: range | None = None) -> int:
    """Bytes of vLLM's cos/sin caches on one GPU: the sum, over the distinct RoPEs the rank's decoder layers
    (``layers``, default all; a pipeline stage builds only its own) use, of ``positions x rotary_dim x bytes``.

    One row of a cache is ``rotary_dim`` values (``_compute_cos_sin_cache``, ``base.py`` lines 83-92, concatenates
    cos and sin of ``rotary_dim / 2`` frequencies). Llama 4 Scout: 10,485,760 positions x 128 x 2 bytes = 2.5 GiB
    per GPU; Llama 3.1: 131,072 x 128 x 2 = 32 MiB; Gemma 3 12B: 131,072 x 8 x 256 x 2 (global, linear x8) +
    131,072 x 256 x 2 (local) = 0.5625 GiB.

    Zero when those layers hold no attention layer, or the model has no rotary embedding (``ModelSpec.rope``:
    Nemotron-H's attention has none, ``nemotron_h.py``; Granite-4.0-H has ``position_embedding_type`` "nope",
    ``granitemoehybrid.py`` line 273).
    """
    kinds = model.layers
    present = {kinds[i] for i in layers or range(len(kinds))} & set(ATTENTION_KINDS)
    if not model.rope or not present:
        return 0
    if (
        model.mla is None
        and model.head_dim is None
        and (model.hidden_size is None or model.num_attention_heads is None)
    ):
        return 0
    caches = {(has_own_rope(model, kind), cached_positions(model, kind), rotary_dim(model, kind)) for kind in present}
    return sum(positions * dim for _, positions, dim in caches) * cache_dtype_bytes(model, dtype_bytes)


def has_own_rope(model: ModelSpec, kind: LayerKind) -> bool:
    """Whether layers of ``kind`` use the sliding layers' own, unscaled RoPE (``ModelSpec.sliding_rope``): Gemma 3's
    local layers ``get_rope(rope_parameters={"rope_type": "default", "rope_theta": rope_local_base_freq})``
    (``gemma3.py`` lines 168-179), Gemma 4's ``rope_parameters["sliding_attention"]`` (``gemma4.py`` lines
    321-328)."""
    return model.sliding_rope and kind is LayerKind.SLIDING


def rotary_dim(model: ModelSpec, kind: LayerKind) -> int:
    """Values per cached position: ``int(head_size x partial_rotary_factor)`` (``get_rope``,
    ``rotary_embedding/__init__.py`` lines 62-66), the factor coming from ``rope_parameters`` (phi-2 0.4; GLM-4 and
    GLM-4.5 0.5 by default, ``glm4.py`` line 97, ``glm4_moe.py`` line 287; Qwen3-Next and Qwen3.5 0.25; MiniMax-M2
    ``rotary_dim / head_dim``, ``minimax_m2.py`` line 204). The head size is the layer kind's (Gemma 4's global
    layers: ``global_head_dim``, cached whole by ``Gemma4RotaryEmbedding``, ``gemma4_rope.py`` lines 44-50); MLA
    rotates ``qk_rope_head_dim``. A sliding layer's own RoPE rotates its whole head."""
    if model.mla is not None:
        return model.mla.qk_rope_head_dim
    head = model.kv_geometry(kind)[1]
    if has_own_rope(model, kind):
        return head
    return int(head * model.partial_rotary_factor)


def cached_positions(model: ModelSpec, kind: LayerKind) -> int:
    """Rows of the cache: ``max_position_embeddings`` (``base.py`` line 86), times the factor of a linear or
    dynamic scaling (``linear_scaling_rope.py`` line 90, ``dynamic_ntk_scaling_rope.py`` line 56: ``max_len =
    max_position_embeddings x scaling_factor``, ``torch.arange`` of it), times 4 for multimodal RoPE
    (``MRotaryEmbedding``, ``mrope.py`` line 238: ``cache_max_position_num = max_position_embeddings * 4``).
    A sliding layer's own RoPE is unscaled. YaRN and DeepSeek-YaRN caches hold ``original_max_position_embeddings
    x factor`` positions (``yarn_scaling_rope.py`` lines 75-79), which their configs set equal to
    ``max_position_embeddings`` (gpt-oss: 4,096 x 32 = 131,072)."""
    positions = model.context_limit  # a YaRN switched on: the ceiling the launch command's override sets
    if has_own_rope(model, kind):
        return positions
    if model.rope_scaling is not None:
        positions = math.ceil(positions * model.rope_scaling.factor)
    return positions * 4 if model.mrope else positions


def cache_dtype_bytes(model: ModelSpec, dtype_bytes: int) -> int:
    """Bytes per cached value: the model's dtype (``dtype_bytes``: 2 for bf16/fp16 and every quantized checkpoint,
    4 when served in fp32), except gpt-oss, whose attention builds its RoPE with ``dtype=torch.float32``
    (``gpt_oss.py`` lines 82-98; ``base.py`` line 61 casts the cache to that dtype)."""
    return 4 if model.model_type == "gpt_oss" else dtype_bytes


def derived_max_model_len(model: ModelSpec) -> int:
    """The longest ``--max-model-len`` vLLM accepts without ``VLLM_ALLOW_LONG_MAX_MODEL_LEN``: the config's maximum
    times a linear or dynamic RoPE factor (``_get_and_verify_max_len``, ``vllm/config/model.py``: 0.19.0 :2106-2130,
    0.31.0 :2539-2570, read from the wheels; ``su``, ``longrope``, ``llama3`` and from 0.30.0 the YaRN types are not
    scaled, and the catalog carries none of those), except Gemma 3, whose maximum is already scaled ("gemma3" in
    the model type: skipped).

    >>> from model_catalog import get_model
    >>> derived_max_model_len(get_model("google/gemma-3-27b-it").spec)  # linear factor 8: not applied
    131072
    >>> from planner.core.blocks import RopeScaling
    >>> llama = get_model("meta-llama/Llama-3.1-8B").spec
    >>> derived_max_model_len(llama.model_copy(update={"rope_scaling": RopeScaling(rope_type="linear", factor=2)}))
    262144
    """
    scaling = model.rope_scaling
    if model.yarn_on:  # the override sets max_position_embeddings to the ceiling (planner.engines.vllm.yarn)
        return model.context_limit
    if scaling is None or "gemma3" in model.model_type:
        return model.max_position_embeddings
    return int(model.max_position_embeddings * scaling.factor)
