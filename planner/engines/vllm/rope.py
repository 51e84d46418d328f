"""The rotary-embedding cache vLLM keeps on every GPU beside the weights.

vLLM's rotary embeddings precompute cos and sin for every position the model allows and keep them as a buffer
on the device (``RotaryEmbeddingBase.__init__``, ``vllm/model_executor/layers/rotary_embedding/base.py`` at
v0.19.0, lines 58-63: ``cache = self._compute_cos_sin_cache(); cache = cache.to(dtype);
self.register_buffer("cos_sin_cache", cache, persistent=False)``). The model is built on the GPU under the
model's dtype (``base_loader.py`` lines 53-54), inside the ``DeviceMemoryProfiler`` that prints "Model loading
took" (``v1/worker/gpu_model_runner.py`` lines 4746-4822), so the buffer is counted with the weights, on every
tensor-parallel rank (it is not split). ``get_rope`` returns one shared module per distinct set of arguments
(``rotary_embedding/__init__.py`` lines 26 and 68-78), so all the decoder layers of a model hold one cache.
"""

from __future__ import annotations

from planner.model import ATTENTION_KINDS, ModelSpec


def rope_cache_bytes(model: ModelSpec, dtype_bytes: int, layers: range | None = None) -> int:
    """Bytes of vLLM's cos/sin cache on one GPU: ``max_position_embeddings x rotary_dim x dtype bytes``.

    ``_compute_cos_sin_cache`` (``base.py`` lines 83-92) builds ``t = arange(max_position_embeddings)`` and
    concatenates cos and sin of ``rotary_dim / 2`` frequencies each, so one row is ``rotary_dim`` values, kept in
    the model's dtype (``dtype_bytes``: 2 for bf16/fp16 and every quantized checkpoint, 4 when served in fp32).
    The text decoder calls ``get_rope(head_dim, max_position=config.max_position_embeddings, ...)`` (``llama.py``,
    ``llama4.py`` lines 247-253, ``qwen2.py``, ...): rotary_dim is the head dim (MLA: ``qk_rope_head_dim``).
    Llama 4 Scout: 10,485,760 positions x 128 x 2 bytes = 2.5 GiB per GPU; Llama 3.1: 131,072 x 128 x 2 =
    32 MiB. YaRN and DeepSeek-YaRN caches hold ``original_max_position_embeddings x factor`` positions
    (``yarn_scaling_rope.py`` lines 75-79), which their configs set equal to ``max_position_embeddings``.

    Zero when the rank's decoder layers (``layers``, default all; a pipeline stage builds only its own) hold no
    attention layer, or the model has no rotary embedding (``ModelSpec.rope``: Nemotron-H's
    attention has none, ``nemotron_h.py``; Granite-4.0-H has ``position_embedding_type`` "nope",
    ``granitemoehybrid.py`` line 273). Not counted (the spec does not carry them): a partial rotary factor
    (phi-2, GLM-4: a smaller cache), a second cache for layers with other RoPE settings, and linear or dynamic
    scaling, whose cache holds ``factor`` times the positions (``linear_scaling_rope.py`` line 90; Gemma 3's
    global layers).
    """
    kinds = model.layers
    if not model.rope or not any(kinds[i] in ATTENTION_KINDS for i in layers or range(len(kinds))):
        return 0
    if model.mla is not None:
        rotary_dim = model.mla.qk_rope_head_dim
    elif model.head_dim is not None or (model.hidden_size is not None and model.num_attention_heads is not None):
        rotary_dim = model.resolved_head_dim
    else:
        return 0
    return model.max_position_embeddings * rotary_dim * dtype_bytes
