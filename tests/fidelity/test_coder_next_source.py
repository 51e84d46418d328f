"""Where Qwen3-Coder-Next's own +0.37 GiB on four L40S is not: Qwen3-Next's layers read in vLLM 0.24.0 against the
planner's profile terms (issue 20, read 2026-12-07, fifty-fourth session, helper ``codernext``; docs/fidelity.md
"Qwen3-Next's own share read at the source").

The boot's public source (aws-samples/sample-claude-code-multi-model, ``self-hosted/vllm/models/qwen3-coder-next.md``,
commit 45807e4a) quotes the refusal only; the repository holds no log (its ``self-hosted/vllm`` tree: docs, scripts,
clients, tests), so its 'Model loading took', peak-activation and 'Estimated CUDA graph memory' lines are not public.
Read from the source instead, at this boot's settings (TP 4, 2,048 batched tokens and 256 sequences, the L40S
defaults of ``engine/arg_utils.py:2414-2423``; chunked prefill on, :2461-2466; mode 'align'):

- The Gated DeltaNet layers run no kernel at the batched tokens in the profile run. ``profile_run`` runs
  ``_dummy_run(max_num_tokens, is_profile=True)`` (``v1/worker/gpu_model_runner.py:6299-6301``), which builds
  attention metadata only with ``force_attention`` or a FULL graph (:5846), so ``_forward_core`` finds none and
  returns after ``_warmup_prefill_kernels`` (``model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:1278-1280``):
  one 64-token pass (``FLA_CHUNK_SIZE``, ``fla/ops/utils.py:31``; :1107) to fill the FLA autotuner's cache, then
  ``empty_cache`` (:1195). The chunked path's buffers at this batch (256 requests of 8 tokens, :5762-5765; the
  chunk states ``h`` of B x NT x H x V x K and a float32 final state, ``fla/ops/chunk_delta_h.py:350-352``, the
  gathered initial states, :1513) are never allocated in the profile. The PIECEWISE warm-ups and captures run
  without metadata as well (:5846, :6663-6696); the FULL decode graphs update the state in place
  (``_forward_core_decode_non_spec``, :1644-1697, on by default: ``envs.py:1105-1107``).
- The warm-up's autotuning benchmarks each config with Triton's ``do_bench`` (``use_cuda_graph`` off unless
  ``FLA_USE_CUDA_GRAPH=1``, ``fla/ops/utils.py:155``), which flushes L2 with a 256 MiB torch tensor (Triton's NVIDIA
  driver ``get_empty_cache_for_benchmark``, search-index file id 729037370): torch memory, transient, at the first
  Gated DeltaNet layer, before any MoE layer has run, so below the sampler's peak the budget takes.
- The 512-expert MoE at TP 4: the Triton experts' two workspaces of M x topk x max(N, K) (``fused_moe/experts/
  triton_moe.py:181-196``) are the planned workspace to the byte; ``moe_align_block_size`` sizes its sorted ids by
  ``numel + experts x (block - 1)`` (``fused_moe/moe_align_block_size.py:74-87``), a third of a MiB even at a
  128-token block; the router logits are 2 MiB; the shared-expert gate is one 2,048-wide row.
- The MTP head is not loaded: ``Qwen3NextForCausalLM.load_weights`` skips ``mtp.`` (``models/qwen3_next.py:639-640``,
  :881-884).

So no term of the load, the profile run or the graph estimate that Qwen3-Next has and its Qwen3-Coder-30B-A3B sibling
lacks comes near 0.37 GiB; one thing the source shows it does that the sibling does not, and the planner has no term
for, is compile and load every autotuned FLA config during the profile (12 configs for ``chunk_gated_delta_rule_fwd_h``
alone, ``chunk_delta_h.py:32-41``; the fused MoE reads fixed configs): memory outside torch whose size the source does
not give (the public precedent, a TMA ``solve_tril`` config's ~22 MiB an SM on Blackwell, vllm#36973 / #37088, is off
by default in 0.24.0 and below capability 9, ``fla/ops/utils.py:151-162``). As a term it would be the device's, on
every Gated DeltaNet boot off SM 9.0, and the same L40S's Qwen3.8-27B boots are planned -0.35, -0.35 and +0.29:
nothing shipped.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest

from bench.fidelity import run_case
from bench.fidelity_cases import build_request, load_cases, setup_of
from bench.fidelity_result import CaseResult
from planner.core.units import GiB, MiB
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.terms import ProfileTerms, TermsInputs

CODER_NEXT = "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal"
SIBLING = "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k"
TP, TOKENS, SEQS = 4, 2048, 256  # the L40S defaults (engine/arg_utils.py:2414-2423)
HIDDEN, EXPERTS, TOPK, MOE_WIDTH = 2048, 512, 10, 512  # Qwen3-Next-80B-A3B's config
V_HEADS, K_DIM, V_DIM = 32, 128, 128  # its Gated DeltaNet: linear_num_value_heads, key / value head dims
TRITON_FLUSH = 256 * MiB  # Triton's do_bench L2 flush buffer (get_empty_cache_for_benchmark)
L40S_SMS = 142  # its multiprocessors (the catalog entry's multiprocessors): the Triton sampler's cached buffer rows


@cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in load_cases()}


def _result(case_id: str) -> CaseResult:
    return run_case(copy.deepcopy(_cases()[case_id]))


def _terms(case_id: str) -> ProfileTerms:
    case = _cases()[case_id]
    request = build_request(case, setup_of(case))
    profile = request.overhead
    assert isinstance(profile, VllmProfile)
    model = request.model
    layers = (0, model.num_hidden_layers or 0)
    inputs = TermsInputs(TP, "bf16", True, layers, True, False, TOKENS, SEQS, multiprocessors=L40S_SMS)
    return profile.terms_of(model, inputs)


def test_the_planned_moe_workspace_is_the_triton_experts_to_the_byte() -> None:
    """Two workspaces of M x topk x max(N, K) in bf16 (triton_moe.py:181-196; N = 2 x 512 / 4 = 256 < K = 2,048), and
    the routing buffers beside them negligible: sorted ids of ``numel + experts x (block - 1)`` int32 at the largest
    block (moe_align_block_size.py:74-87), the router logits of 2,048 x 512 in bf16."""
    terms = _terms(CODER_NEXT)
    n = 2 * MOE_WIDTH // TP
    assert terms.moe_workspace == 2 * TOKENS * TOPK * max(n, HIDDEN) * 2 == 167_772_160
    assert (TOKENS * TOPK + EXPERTS * (128 - 1)) * 4 == 342_016
    assert TOKENS * EXPERTS * 2 == 2_097_152


def test_the_chunked_gdn_buffers_the_profile_never_allocates() -> None:
    """What the chunked path would hold at the profile batch had it run (256 requests of 8 tokens, one 64-token
    chunk each; 8 value heads a rank): ``h`` in bf16, the float32 final state and the gathered bf16 initial state,
    0.25 GiB together. The profile finds no attention metadata (gpu_model_runner.py:5846), so
    ``_forward_core`` returns after its 64-token warm-up (qwen_gdn_linear_attn.py:1278-1280): none of it is in the
    printed pool's budget, and the warm-up's own state is a quarter MiB."""
    heads = V_HEADS // TP
    state = heads * V_DIM * K_DIM
    chunks = SEQS  # 2,048 tokens over min(2,048, 256) requests: 8 tokens, one chunk each (:5762-5765)
    would = chunks * state * 2 + SEQS * state * 4 + SEQS * state * 2
    assert would == 268_435_456
    assert 1 * state * 2 == 262_144  # the 64-token warm-up's chunk state (one chunk, one sequence)


def test_the_autotuner_flush_sits_below_the_planned_peak() -> None:
    """The warm-up's autotuning flushes L2 with 256 MiB of torch memory at the first Gated DeltaNet layer, before
    any MoE layer has run: even with the planner's whole forward term and the MoE workspace beside it the moment is
    0.24 GiB under the planned peak (the sampler's warm-up with the workspace held), so it does not move the budget
    (0.237 since a Gated DeltaNet layer's own profile peak, 2026-12-07, fifty-sixth session)."""
    terms = _terms(CODER_NEXT)
    # forward 55,613,535 until a Gated DeltaNet layer's own profile peak (Qwen3-Next's qkvz projection, its concatenated
    # q, k, v, the core and norm outputs and four hidden-wide buffers: 30,720 bytes a token at TP 4; 2026-12-07,
    # fifty-sixth session); the peak is the sampler's moment, unchanged
    # 586_112_972, 753_885_132 until coder3's Triton sampler buffer beside relout2's Gated DeltaNet layer peak (fifty-
    # sixth session)
    assert (terms.forward, terms.sampler, terms.peak) == (62_914_560, 652_358_040, 820_130_200)
    flush_moment = TRITON_FLUSH + terms.forward + terms.moe_workspace
    # 0.244 until a Gated DeltaNet layer's own profile peak (2026-12-07, fifty-sixth session)
    # 0.237 until coder3's Triton sampler buffer beside relout2's Gated DeltaNet layer peak (fifty-sixth session)
    assert (terms.peak - flush_moment) / GiB == pytest.approx(0.299, abs=0.001)


def test_what_stays_unplaced_is_qwen3_next_s_own() -> None:
    """Every planned term the Coder-Next boot has beyond its sibling's is read at the source above (weights and the
    MoE workspace differ, 33,554,432 bytes of workspace); the 0.37 GiB between the two boots' errors stays unplaced."""
    next_, sibling = _result(CODER_NEXT), _result(SIBLING)
    assert next_.kv_error_gib is not None and sibling.kv_error_gib is not None
    assert _terms(CODER_NEXT).moe_workspace - _terms(SIBLING).moe_workspace == 33_554_432
    assert next_.kv_error_gib - sibling.kv_error_gib == pytest.approx(0.37, abs=0.01)
