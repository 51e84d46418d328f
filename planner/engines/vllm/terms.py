"""The terms of vLLM's profile run on one rank (:mod:`planner.engines.vllm.profile` adds them up): the forward,
the sampler warm-up, the rejection sampler's warm-up with speculative decoding, the fused-MoE workspace."""

from __future__ import annotations

import math
from typing import NamedTuple

from pydantic import BaseModel

from planner.core.model import ModelSpec
from planner.core.overhead import DEFAULT_HIDDEN, DEFAULT_VOCAB
from planner.core.units import GiB
from planner.engines.vllm.versions import VllmConstants, VllmRules

# MLA prefill (vLLM ``MLACommonImpl._forward_prefill``) expands the latent per head in 16 bits: q, k, v padded
# to the qk head size and the attention output (4 x qk_head_dim), the kv_b_proj output (nope + v) and the
# output sliced back to v (v).
MLA_QK_BUFFERS = 4

# The dense MLP's peak per token and unit of width on one rank: the gate_up GEMM output (2 x width x 2 bytes)
# alive while SiluAndMul writes its output (width x 2 bytes) (vllm/model_executor/layers/activation.py
# SiluAndMul, llama.py LlamaMLP). Derived, not fitted; the rest of the forward scales with the hidden size.
FORWARD_BYTES_PER_MLP = 6.0

# V0 profiles one long prefill without the V1 sampler buffers: its peak per token is 0.765 x the layer formula
# of planner.core.overhead (vllm#10517: Llama-3.1-8B peak_torch 17.06 GiB at 20,000 tokens and 17.98 GiB at 29,000
# tokens with 14.99 GiB of weights: ~110 KB per token). Fitted to that two V0 logs.
VLLM_V0_ACTIVATION_SCALE = 0.765
VLLM_V0_NON_TORCH = round(0.35 * GiB)  # vllm#10517 (v0.6.4, RTX 3090): non_torch_memory=0.35GiB


class TermsInputs(NamedTuple):
    """What the profile run's terms of one rank read besides the profile and the model
    (:meth:`planner.engines.vllm.profile.VllmProfile.terms_of`): the split, the weight format, whether the rank
    holds the first and the last stage, its decoder layers, whether a drafter proposes tokens, the profile batch
    (tokens and sequences) and the fused-MoE backend. The key its answers are kept by
    (:mod:`planner.engines.vllm.kept`)."""

    tensor_parallel: int
    weights_format: str
    first: bool
    layers: tuple[int, int]
    last: bool
    speculative: bool
    tokens: int
    seqs: int
    method: str | None = None  # the drafter's (planner.deploy.options.SpeculativeOptions): it picks the runner
    moe_backend: str = "triton"  # the experts backend (planner.engines.vllm.moe_backend.moe_backend_of)
    multiprocessors: int | None = None  # the device's SMs (the Triton sampler's buffer: triton_buffer_rows)


class ProfileTerms(BaseModel, frozen=True, extra="forbid"):
    """The activation peak of one rank, by term (bytes)."""

    forward: int = 0
    sampler: int = 0
    moe_workspace: int = 0  # persistent (counted on top of the peak) or transient (inside forward)
    encoder: int = 0
    pp_buffers: int = 0
    rejection: int = 0  # the rejection sampler's warm-up after the sampler's (speculative decoding, V1 runner)
    compile_copy: int = 0  # a cold compile's random embedding table, before the forward (vllm.compile_copy)

    @property
    def peak(self) -> int:
        run = self.pp_buffers + max(self.forward, self.sampler, self.rejection) + self.moe_workspace + self.encoder
        return max(self.compile_copy, run)


def mla_bytes_per_token(model: ModelSpec, tensor_parallel: int) -> float:
    """MLA prefill's per-head K/V expansion per token on one GPU (16 bits; :data:`MLA_QK_BUFFERS`)."""
    if model.mla is None or model.num_attention_heads is None:
        return 0.0
    heads = max(1, model.num_attention_heads // tensor_parallel)
    qk = model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim
    return 2 * heads * (MLA_QK_BUFFERS * qk + model.mla.qk_nope_head_dim + 2 * model.mla.v_head_dim)


def activation_dtype_bytes(weights_format: str) -> int:
    """Bytes of one activation value: an fp32 checkpoint runs in fp32, every other format in 16 bits.

    >>> activation_dtype_bytes("fp32"), activation_dtype_bytes("fp8")
    (4, 2)
    """
    return 4 if weights_format == "fp32" else 2


def dense_mlp_width(model: ModelSpec) -> int:
    """The MLP width the forward runs as ordinary matmuls: the dense ``intermediate_size``; for MoE models the
    shared experts (and the dense layers of models mixing both), the routed experts being in the MoE workspace."""
    hidden = model.hidden_size or DEFAULT_HIDDEN
    if model.moe is None:
        return model.intermediate_size or 4 * hidden
    moe = model.moe
    mixed = moe.first_k_dense_replace > 0 or moe.moe_layer_period > 1
    return max(moe.shared_width, (model.intermediate_size or 0) if mixed else 0)


def gdn_profile_layer_bytes_per_token(model: ModelSpec, tp: int) -> int:
    """What a Gated DeltaNet layer holds per token at its peak in vLLM's profile run, in 16-bit activations, on one
    rank (0 without such layers). The profile builds no attention metadata, so the mixer's core returns at once
    after a 64-token autotuning warm-up (0.24.0 ``model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:1278-1280``,
    ``:1068-1120``; the chunked prefill's tensors are never allocated) and the layer holds what ``forward_cuda``
    builds around it (:908-968, :851-869): the ``in_proj_qkvz`` output ``(2K + 2V) / tp`` (q, k, v, z; ``z`` stays a
    view of it until the gated norm), Qwen3-Next's concatenated ``q, k, v`` ``(2K + V) / tp`` (its interleaved
    layout, :926-934), the zeroed core output and the gated norm's output ``V / tp`` each, the ``out_proj`` result,
    and the decoder layer's residual, normalized input and ``torch.empty_like`` output buffer, ``hidden`` each
    (``models/qwen3_next.py:466-478``); ``K`` / ``V`` the key / value heads x their head size. Read from the source,
    nothing fitted; the same structure in 0.22.0, 0.25.1, 0.27.1, 0.29.0 and 0.31.0 (the early return, the zeroed
    output, the projections).

    >>> from model_catalog import get_model
    >>> gdn_profile_layer_bytes_per_token(get_model("Qwen/Qwen3.6-35B-A3B").spec, 1)
    57344
    """
    gdn = model.linear_attention
    if gdn is None or gdn.kind != "gated_deltanet":
        return 0
    key = gdn.linear_num_key_heads * gdn.linear_key_head_dim
    value = gdn.linear_num_value_heads * gdn.linear_value_head_dim
    concatenated = 2 * key + value if model.model_type == "qwen3_next" else 0
    per_rank = (2 * key + 2 * value + concatenated + 2 * value) / tp
    return round(2 * (per_rank + 4 * (model.hidden_size or DEFAULT_HIDDEN)))


def forward_bytes(model: ModelSpec, tokens: int, tp: int, act_bytes: int, constants: VllmConstants) -> int:
    """The forward's own peak: ``tokens x (a x hidden + 6 x dense MLP width / tp)`` in 16-bit activations
    (doubled for fp32), plus MLA's per-head expansion; ``a`` fitted (``forward_bytes_per_hidden``), 6 derived
    (:data:`FORWARD_BYTES_PER_MLP`); a Gated DeltaNet layer's own where it holds more
    (:func:`gdn_profile_layer_bytes_per_token`: a hybrid MoE's dense part is small, its mixer's projections wide)."""
    hidden = model.hidden_size or DEFAULT_HIDDEN
    mlp = FORWARD_BYTES_PER_MLP * dense_mlp_width(model) / tp
    per_token = constants.forward_bytes_per_hidden * hidden + mlp + mla_bytes_per_token(model, tp)
    per_token = max(per_token, gdn_profile_layer_bytes_per_token(model, tp))
    return round(tokens * per_token * act_bytes / 2)


def sampler_bytes(model: ModelSpec, tokens: int, seqs: int, act_bytes: int, copies: float) -> int:
    """``_dummy_sampler_run``: ``copies`` fp32 arrays of ``min(max_num_seqs, tokens) x vocab`` while the batch's
    hidden states (``tokens x hidden``) are held by ``profile_run``."""
    vocab = model.vocab_size or DEFAULT_VOCAB
    hidden = model.hidden_size or DEFAULT_HIDDEN
    return round(min(seqs, tokens) * vocab * 4 * copies + tokens * hidden * act_bytes)


def moe_workspace_bytes(model: ModelSpec, tokens: int, tp: int, act_bytes: int, layers: range) -> int:
    """The fused-MoE scratch of ``TritonExperts``: ``tokens x topk x (max(I/tp, H) + max(2I/tp, H))`` activations
    (``workspace13`` and ``workspace2`` of ``fused_moe/modular_kernel.py``); zero without MoE layers."""
    moe = model.moe
    if moe is None or not any(model.is_moe_layer(i) for i in layers):
        return 0
    hidden = model.hidden_size or DEFAULT_HIDDEN
    inter = math.ceil(moe.moe_intermediate_size / tp)
    return tokens * moe.num_experts_per_tok * (max(inter, hidden) + max(2 * inter, hidden)) * act_bytes


# Model Runner V2's ``_dummy_sampler_run`` (0.22.0 - 0.34.0 ``v1/worker/gpu/model_runner.py``, e.g. 0.28.0
# :771-782) samples a dummy batch no request was added to: every row greedy (temperature 0) with top-k / top-p
# off and no logprobs (``SamplingStates`` fills top_k with the vocabulary and top_p with 1.0, ``states.py``
# 0.28.0 :31-35), so the Gumbel kernel reads the logits in place (``gumbel.py``: two ``rows x vocab / 1024``
# buffers). What it holds is the logits ``compute_logits`` returns in the head's dtype
# (``logits_processor.py`` 0.28.0 :97-116): one copy on one GPU; under tensor parallelism the rank's
# ``vocab / tp`` slice, the gathered ``rows x vocab`` and its contiguous reshape (``all_gather``: a copy after
# ``movedim``), so ``2 + 1 / tp`` copies. Up to 0.25.1 ``apply_sampling_params`` also copied them to fp32 first
# (``torch.empty_like(logits, dtype=torch.float32).copy_(logits)``, 0.22.0 ``sample/sampler.py`` :133, 0.25.1
# :157); 0.26.0 mutates them in place (:162-168) and 0.27.0 on returns them untouched when no request needs
# processing (0.27.1 :155-156, 0.28.0 :192-193; rule ``v2_sampler_fp32_copy``). Derived from the source, not fitted.


def v2_sampler_bytes(model: ModelSpec, tokens: int, seqs: int, act_bytes: int, tp: int, fp32_copy: bool) -> int:
    """Model Runner V2's sampler warm-up (the comment above) over ``min(max_num_seqs, tokens)`` rows, while
    ``profile_run`` holds the batch's hidden states.

    >>> from planner.core.model import ModelSpec
    >>> m = ModelSpec(id="m", hidden_size=1024, num_hidden_layers=2, num_attention_heads=8, vocab_size=1000,
    ...               intermediate_size=4096)
    >>> v2_sampler_bytes(m, 2048, 256, 2, 1, False) - 2048 * 1024 * 2  # the bf16 logits
    512000
    >>> v2_sampler_bytes(m, 2048, 256, 2, 1, True) - 2048 * 1024 * 2  # and their fp32 copy
    1536000
    >>> v2_sampler_bytes(m, 2048, 256, 2, 4, False) - 2048 * 1024 * 2  # slice, gathered, reshaped
    1152000
    """
    vocab = model.vocab_size or DEFAULT_VOCAB
    hidden = model.hidden_size or DEFAULT_HIDDEN
    rows = min(seqs, tokens) * vocab
    gathered = rows * act_bytes * (1 if tp == 1 else 2 + 1 / tp)
    copied = rows * act_bytes + rows * 4 if fp32_copy else 0
    return round(max(gathered, copied) + tokens * hidden * act_bytes)


def triton_buffer_rows(multiprocessors: int | None, rows: int) -> int:
    """The fp32 vocabulary rows the Triton top-k / top-p kernel caches for good on its first call over ``rows``
    rows: one a program, ``min(next_power_of_2(n), SMs)`` with ``n = min(SMs, rows)`` (vLLM 0.24.0
    ``v1/sample/ops/topk_topp_triton.py:906-917``, the module-level cache at :19; 0.17.0 :993-1001, 0.28.0
    :908-916); below 8 rows the sampler sorts in PyTorch instead (``topk_topp_sampler.py:356-360``). ``None``: the
    device's multiprocessors are not known, no buffer counted.

    >>> triton_buffer_rows(142, 256), triton_buffer_rows(170, 100), triton_buffer_rows(132, 7)
    (142, 128, 0)
    """
    if multiprocessors is None or rows < 8:
        return 0
    programs = min(multiprocessors, rows)
    return min(1 << (programs - 1).bit_length(), multiprocessors)


def sampler_term(
    kind: str,
    model: ModelSpec,
    batch: tuple[int, int, int, int],
    constants: VllmConstants,
    rules: VllmRules,
    multiprocessors: int | None = None,
) -> int:
    """The sampler warm-up of sampler ``kind`` over ``batch`` (tokens, max_num_seqs, activation bytes, TP):
    Model Runner V2's derived from the source (:func:`v2_sampler_bytes`), the V1 runner's with its fitted copies
    (:func:`sampler_bytes`; FlashInfer's warm-up also runs the Triton path where ``sampler_warms_native``) and,
    where the Triton path runs, its cached buffer (:func:`triton_buffer_rows` on the device's
    ``multiprocessors``)."""
    tokens, seqs, act, tp = batch
    if kind == "v2":
        return v2_sampler_bytes(model, tokens, seqs, act, tp, rules.v2_sampler_fp32_copy)
    copies = constants.copies(kind)
    triton = kind == "triton"
    if kind == "flashinfer" and rules.sampler_warms_native:
        copies, triton = max(copies, constants.copies("triton")), True
    rows = triton_buffer_rows(multiprocessors, min(seqs, tokens)) if triton else 0
    return sampler_bytes(model, tokens, seqs, act, copies) + rows * (model.vocab_size or DEFAULT_VOCAB) * 4


# With speculative decoding the V1 runner's ``_dummy_sampler_run`` then warms the rejection sampler on R requests
# of one draft token each (``gpu_model_runner.py`` 0.27.1 :6313-6343; the same branch 0.19.0 :5609-5631, 0.28.0
# :6423-6468; Model Runner V2's ``_dummy_sampler_run``, 0.29.0 ``v1/worker/gpu/model_runner.py`` :832-843, has
# none). When ``rejection_sample`` draws the recovered tokens, R x vocab rows are held in the logits' dtype: the
# dummy logits of 2R rows (``torch.randn(num_tokens + num_reqs, ...)``, 0.27.1 :6332-6337) and the R bonus rows
# (``rejection_sampler.py`` 0.27.1 :133); and in fp32: the bonus sampler's raw logits, kept for the full-vocab
# logprobs (``max_num_logprobs=-1`` with ``raw_logits``, ``sampler.py`` 0.27.1 :93 and :125), the target rows
# (:152-154), their clone (:160), ``target_probs`` (:472) and the exponential draws ``q`` (:682-687).
REJECTION_ACT_ROWS = 3
REJECTION_FP32_ROWS = 5


def rejection_bytes(model: ModelSpec, tokens: int, seqs: int, act_bytes: int) -> int:
    """The rejection sampler's warm-up (:data:`REJECTION_FP32_ROWS`, :data:`REJECTION_ACT_ROWS`) over
    ``min(max_num_seqs, tokens)`` requests, while ``profile_run`` holds the batch's hidden states. Derived from the
    source, not fitted; its top-k/top-p pass (an fp32 copy under the Triton kernel) ends before these are all
    held."""
    vocab = model.vocab_size or DEFAULT_VOCAB
    hidden = model.hidden_size or DEFAULT_HIDDEN
    rows = min(seqs, tokens) * vocab
    return rows * (REJECTION_ACT_ROWS * act_bytes + REJECTION_FP32_ROWS * 4) + tokens * hidden * act_bytes


def penalty_state_bytes(model: ModelSpec, seqs: int) -> int:
    """Model Runner V2's penalty statistics, on the GPU from ``load_model`` on: ``output_bin_counts`` (``max_num_reqs
    x vocab`` int32) and ``prompt_bin_mask`` (``max_num_reqs x ceil(vocab / 32)`` int32) (``v1/worker/gpu/sample/
    penalties.py`` 0.25.1-0.30.0 :32-42, 0.31.0 :40-47; the sampler that makes them is built after "Model loading
    took" is measured, 0.29.0 ``v1/worker/gpu/model_runner.py`` :405 and :437). Derived, not fitted."""
    vocab = model.vocab_size or DEFAULT_VOCAB
    return seqs * (vocab + math.ceil(vocab / 32)) * 4
