"""Hybrid attention + Mamba / Gated-DeltaNet models in vLLM V1: state pages, block size, cache mode, pages a request
holds.

- State page of one linear layer on one rank (``MambaSpec.page_size_bytes`` from
  ``get_mamba_state_shape_from_config`` / ``..._dtype_from_config``, 0.24.0
  ``model_executor/layers/mamba/mamba_utils.py:162-234``): a conv state of ``(kernel - 1 + k) x conv_dim / tp`` (``k``
  speculative tokens) in the model dtype and a temporal state of ``heads / tp x head_dim x state`` in
  ``mamba_ssm_cache_dtype``. Gated DeltaNet: conv_dim = 2 x key heads x key dim + value heads x value dim, temporal
  ``v_heads x v_dim x k_dim``; Mamba-2: conv_dim = heads x head dim + 2 x groups x state, temporal ``heads x
  head_dim x state``. The temporal dtype is float32 for Qwen3.5 / 3.6 / 3.8 (their configs' ``mamba_ssm_dtype``,
  read by ``Qwen3_5ForConditionalGenerationConfig``, 0.24.0 ``model_executor/models/config.py:603-627``; the GB10 log's
  1,600-token block with MTP 2 and the RTX A6000 log's 1,568-token block and "Padding mamba page size by 0.13%"
  follow only from it) and for Nemotron-H (``NemotronHForCausalLMConfig.DEFAULT_MAMBA_SSM_CACHE_DTYPE =
  "float32"``, :464-489); other models keep the model dtype.
- Block size (``Platform._align_hybrid_block_size``, 0.24.0 ``platforms/interface.py:633-800``): the attention
  block grows to ``16 x cdiv(state page, 16 x attention bytes per token and layer)`` tokens so that one attention
  page holds one state ("Setting attention block size to N tokens"); the state page is padded to it. In mode
  ``all`` the block is a multiple of ``lcm(chunk, 16)`` instead, the model's Mamba chunk size (0.27.1
  ``platforms/interface.py:890-899``, the same in 0.22.0-0.29.0: ``chunk x cdiv(cdiv(state page, attention bytes
  per token and layer), chunk)``), which vLLM reads as the config's ``mamba_chunk_size``, else ``chunk_size``
  (``config/model.py:1531-1546``). Where the config states neither, its config class gives 256: transformers'
  ``mamba_chunk_size=256`` (``configuration_granitemoehybrid.py:177``, ``configuration_bamba.py:137``,
  ``configuration_falcon_h1.py:160``; ``chunk_size=256`` in Mamba2's and Zamba2's) and Nemotron-H's Hub config
  class, loaded with ``trust_remote_code`` (0.27.1 registers none of its own for ``nemotron_h``; its adapted copy,
  ``transformers_utils/configs/nemotron_h.py:189``, keeps the default 256; Nemotron 3 Nano's config states 128).
- Cache mode: ``none`` without prefix caching; with it ``align`` (or ``all`` where the model supports Mamba
  prefix caching, until 0.28.0; rule ``mamba_align_always``). Prefix caching is off by default for hybrids until
  0.27.1 (unsupported until 0.25.1, opt-in from 0.26.0) and on from 0.28.0 (rule ``hybrid_prefix_caching``).
- Pages a running request holds per linear layer (``MambaSpec.max_memory_usage_bytes``, 0.21.0
  ``v1/kv_cache_interface.py:543-569``): ``1 + k`` (``none``), ``2 + k`` (``align``), one per block of the context
  (``all``).
"""

from __future__ import annotations

import math
from typing import Literal

from planner.core.blocks import GatedDeltaNetSpec, Mamba2Spec
from planner.core.model import ModelSpec
from planner.engines.vllm.versions import VllmRules

MambaMode = Literal["none", "align", "all"]
KERNEL_BLOCK_ALIGNMENT = 16  # FlashAttention / FlashInfer: blocks of a multiple of 16 tokens
FP32_STATE_MODEL_TYPES = ("qwen3_5", "nemotron_h")  # temporal state kept in float32 (module docstring)
CONFIG_CHUNK_TOKENS = 256  # the Mamba-2 config classes' default chunk size (module docstring)


def supports_mamba_prefix_caching(model: ModelSpec) -> bool:
    """``SupportsMambaPrefixCaching``: the Mamba-2 models (0.24.0 ``model_executor/models/nemotron_h.py``,
    ``granitemoehybrid.py``, ``bamba.py``, ...); not Qwen3.5 / Qwen3-Next's Gated DeltaNet."""
    return isinstance(model.linear_attention, Mamba2Spec)


def mamba_mode(rules: VllmRules, model: ModelSpec, prefix_caching: bool | None) -> MambaMode:
    """The Mamba cache mode a start-up uses (``prefix_caching`` None: the release's default)."""
    on = rules.hybrid_prefix_caching if prefix_caching is None else prefix_caching
    if not on:
        return "none"
    if supports_mamba_prefix_caching(model) and not rules.mamba_align_always:
        return "all"
    return "align"


def state_page_bytes(model: ModelSpec, tensor_parallel: int, spec_tokens: int, dtype_bytes: int = 2) -> int:
    """One linear layer's state on one rank (module docstring); 0 for a model without linear layers."""
    spec = model.linear_attention
    temporal_bytes = 4 if model.model_type.startswith(FP32_STATE_MODEL_TYPES) else dtype_bytes
    if isinstance(spec, GatedDeltaNetSpec):
        key = spec.linear_num_key_heads * spec.linear_key_head_dim
        conv_dim = 2 * key + spec.linear_num_value_heads * spec.linear_value_head_dim
        rows = spec.linear_conv_kernel_dim - 1 + spec_tokens
        temporal = spec.linear_num_value_heads * spec.linear_value_head_dim * spec.linear_key_head_dim
    elif isinstance(spec, Mamba2Spec):
        conv_dim = spec.mamba_n_heads * spec.mamba_d_head + 2 * spec.mamba_n_groups * spec.mamba_d_state
        rows = spec.mamba_d_conv - 1 + spec_tokens
        temporal = spec.mamba_n_heads * spec.mamba_d_head * spec.mamba_d_state
    else:
        return 0
    conv = rows * math.ceil(conv_dim / tensor_parallel) * dtype_bytes
    return conv + math.ceil(temporal / tensor_parallel) * temporal_bytes


def chunk_tokens(model: ModelSpec) -> int:
    """The Mamba chunk size vLLM aligns mode ``all``'s block to: the config's, else its class's default (module
    docstring)."""
    spec = model.linear_attention
    stated = spec.mamba_chunk_size if isinstance(spec, Mamba2Spec) else None
    return stated or CONFIG_CHUNK_TOKENS


def hybrid_block_size(block_size: int, state_bytes: int, attention_bytes_per_token: int, chunk: int = 0) -> int:
    """The attention block that holds one state page (module docstring); ``block_size`` when it already does.
    ``chunk``: mode ``all``'s Mamba chunk size (:func:`chunk_tokens`), 0 in the other modes.

    >>> hybrid_block_size(16, 2_147_840, 4096), hybrid_block_size(16, 2_147_840, 4096, chunk=256)
    (528, 768)
    """
    if state_bytes <= 0 or attention_bytes_per_token <= 0:
        return block_size
    align = max(KERNEL_BLOCK_ALIGNMENT, block_size)
    if chunk:
        step = math.lcm(chunk, align)
        return max(block_size, step * math.ceil(math.ceil(state_bytes / attention_bytes_per_token) / step))
    needed = align * math.ceil(state_bytes / (align * attention_bytes_per_token))
    return max(block_size, needed)


def state_pages_per_request(mode: MambaMode, spec_tokens: int, max_model_len: int, block: int) -> int:
    """Pages one running request holds in one linear layer (module docstring)."""
    if mode == "all":
        return math.ceil(max_model_len / block)
    return (2 if mode == "align" else 1) + spec_tokens
