"""vLLM's Mamba cache mode 'all' (prefix caching on a Mamba-2 hybrid, 0.26.0-0.27.1 by default): the attention
block is a multiple of the model's Mamba chunk size, not of 16 tokens (0.27.1 ``platforms/interface.py:890-899``:
``chunk = lcm(mamba_chunk_size, kernel alignment)``, ``block = chunk x cdiv(cdiv(state page, attention bytes per
token), chunk)``), and the chunk size is the config's ``mamba_chunk_size`` / ``chunk_size``
(``config/model.py:1531-1546``), 256 by its config class's default."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.blocks import Mamba2Spec
from planner.engines.registry import engine_report
from planner.engines.vllm.mamba import CONFIG_CHUNK_TOKENS, chunk_tokens, hybrid_block_size, state_page_bytes
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan
from planner.sources.config import spec_from_hf_config

GRANITE = get_model("ibm-granite/granite-4.0-h-small").spec
# granite-4.0-h-small, one rank: conv 3 x (128 x 64 + 2 x 128) x 2 bytes + temporal 128 x 64 x 128 x 2 bytes
STATE = 3 * (128 * 64 + 2 * 128) * 2 + 128 * 64 * 128 * 2
PER_TOKEN_LAYER = 8 * 128 * 2 * 2  # 8 KV heads x 128 x K and V x bf16


def _report(version: str, context: int = 32768, prefix: bool | None = None):  # type: ignore[no-untyped-def]
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=GRANITE,
        gpu=gpu,
        gpu_memory_bytes=gpu.engine_visible_bytes or gpu.memory_bytes,
        context_tokens=context,
        max_model_len=context,
        overhead=VllmProfile(engine_version=version, enable_prefix_caching=prefix),
    )
    return engine_report(request, plan(request))


def test_the_state_page_and_the_two_blocks() -> None:
    assert state_page_bytes(GRANITE, 1, 0) == STATE == 2_147_840
    assert hybrid_block_size(16, STATE, PER_TOKEN_LAYER) == 528  # 'align' / 'none': 16 x cdiv(524.4, 16)
    assert hybrid_block_size(16, STATE, PER_TOKEN_LAYER, chunk=256) == 768  # 'all': 256 x cdiv(525, 256)
    assert hybrid_block_size(16, STATE, PER_TOKEN_LAYER, chunk=48) == 528  # lcm(48, 16) = 48: 48 x 11
    assert hybrid_block_size(32, STATE, PER_TOKEN_LAYER, chunk=48) == 576  # lcm(48, 32) = 96: 96 x 6


def test_the_release_that_caches_prefixes_in_mode_all_pads_to_the_chunk() -> None:
    """0.27.1 with --enable-prefix-caching (opt-in there for hybrids; mode 'all' for a model that supports it)
    against 0.28.0 (on by default, 'align' always): 768 against 528 tokens. The larger block leaves 759 blocks at
    the defaults on an H100, fewer than the 1,024 sequences whose full decode graphs need one Mamba block each
    (0.27.1 ``config/compilation.py:1490-1512``), so 0.27.1 refuses where 0.28.0 starts (with 528-token blocks it
    had 1,109; 762 and 1,109 before the allocator's segment tails were counted with the weights, 2026-12-07)."""
    all_mode, aligned = _report("0.27.1", prefix=True), _report("0.28.0")
    assert (all_mode.block_size, aligned.block_size) == (768, 528)
    assert all_mode.failure_kind == "mamba-blocks" and aligned.failure_kind is None
    assert "max_num_seqs (1024) exceeds available Mamba cache blocks (759)" in (all_mode.failure or "")


def test_the_chunk_size_comes_from_the_config() -> None:
    assert GRANITE.linear_attention is not None and chunk_tokens(GRANITE) == 256
    base = {
        "model_type": "granitemoehybrid",
        "num_hidden_layers": 4,
        "hidden_size": 512,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "vocab_size": 1000,
        "intermediate_size": 1024,
        "layer_types": ["mamba", "mamba", "mamba", "attention"],
        "mamba_n_heads": 16,
        "mamba_d_head": 64,
        "mamba_d_state": 128,
    }
    assert chunk_tokens(spec_from_hf_config({**base, "mamba_chunk_size": 128})) == 128
    assert chunk_tokens(spec_from_hf_config(base)) == CONFIG_CHUNK_TOKENS == 256
    with pytest.raises(PlannerError, match="mamba_chunk_size is 1,000,000,000; at most 16,777,216"):
        spec_from_hf_config({**base, "mamba_chunk_size": 10**9})  # bounded like every count of a config
    spec = spec_from_hf_config({**base, "mamba_chunk_size": 0})  # no chunk stated: the config class's default
    assert isinstance(spec.linear_attention, Mamba2Spec) and spec.linear_attention.mamba_chunk_size is None
    nemotron = {**base, "model_type": "nemotron_h", "hybrid_override_pattern": "MM-*"}
    nemotron |= {"mamba_num_heads": 16, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 2}
    assert chunk_tokens(spec_from_hf_config({**nemotron, "chunk_size": 128})) == 128
    assert math.lcm(128, 16) == 128


def test_nemotron_takes_the_chunk_its_config_states() -> None:
    """Nemotron 3 Nano's config states 128 (a public copy of its config.json fields): its fp32 state page of
    2,134,016 bytes over 1,024 bytes a token (two KV heads of 128 in bf16) makes 2,096-token blocks in 'align' and
    2,176 (17 x 128) in 'all', not 2,304 (9 x 256). Nemotron Nano 9B v2's entry states none: the class's 256."""
    nano3 = get_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").spec
    state = state_page_bytes(nano3, 1, 0)
    assert (state, chunk_tokens(nano3)) == (2_134_016, 128)
    assert hybrid_block_size(16, state, 1024) == 2096
    assert hybrid_block_size(16, state, 1024, chunk=chunk_tokens(nano3)) == 2176
    assert chunk_tokens(get_model("nvidia/NVIDIA-Nemotron-Nano-9B-v2").spec) == CONFIG_CHUNK_TOKENS
