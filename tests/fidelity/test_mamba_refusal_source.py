"""The Mamba-block refusal as vLLM 0.24.0 / 0.25.1 / 0.27.1 make it, and what the two refusals still off are made of
(issue 20, read 2026-12-07; docs/fidelity.md "The Mamba-block refusals read at the source").

Source facts pinned here:

- A refusing boot prints its pool first. The worker prints "Available KV cache memory" (0.27.1
  ``v1/worker/gpu_worker.py:544-564``, the budget ``requested - non_kv_cache_memory - cudagraph estimate``), the
  engine core sizes every rank's pool and prints "GPU KV cache size" / "Maximum concurrency" (``v1/engine/core.py``
  ``_initialize_kv_caches`` :293-316, ``v1/core/kv_cache_utils.py:2213-2237``, the smallest rank's blocks), and only
  then ``initialize_from_config`` -> ``initialize_kv_cache`` -> ``initialize_attn_backend`` (``gpu_model_runner.py``
  :7640, before the tensors are allocated at :7659) -> ``resolve_cudagraph_mode_and_sizes`` (:7188-7197) refuses
  (``config/compilation.py:1497-1512``; 0.24.0 :1441-1458). The blocks it names are the final pool's, so a budget
  derived from them (``bench.derived``) is the pool's.
- The threshold: ``max_num_reqs > kv_cache_config.num_blocks`` with FULL graphs and not while profiling (0.27.1
  ``config/compilation.py:1499-1504``): as many sequences as blocks start. The minimal KV cache of
  ``min(max_num_reqs, max_cudagraph_capture_size)`` blocks that the graph profiling allocates (0.27.1
  ``gpu_model_runner.py:6508-6535``; 0.22.0 :6179-6199 took the capture size alone) is initialized with
  ``is_profiling=True``, so it never refuses, and it is freed before the budget is taken (:6574-6605, :6645-6665).
- Qwen3-Next's Gated DeltaNet state on a rank: ``conv_dim / tp`` x (kernel - 1) and ``value heads / tp`` x value
  dim x key dim (``model_executor/layers/mamba/mamba_utils.py:213-234`` in 0.24.0 and 0.25.1), in the model dtype:
  the hook that reads a config's ``mamba_ssm_dtype`` is mapped to the Qwen3.5 architectures only (0.24.0
  ``model_executor/models/config.py:603-627`` and :704-705; 0.25.1 :744-770 and :845-846).
- Read again 2026-12-07 (fifty-second session), 0.24.0 at TP 4: a rank's GDN state (conv ``(conv_dim / tp, kernel -
  1)``, temporal ``(value heads / tp, v dim, k dim)``, ``mamba_utils.py:212-234``, ``qwen3_next.py:848-868``) in
  the model dtype (``qwen3_next.py:838-846``), one KV head a rank (``max(1, 2 // 4)``), the attention block padded to
  the state page in mode 'align' (``platforms/interface.py:633-800``; Qwen3-Next does not support mode 'all':
  ``models/config.py:416-421``), one group of 12 attention layers and three of 12 GDN layers
  (``v1/core/kv_cache_utils.py:1176-1225``), ``available // page // 12`` blocks (:972-989, :1377-1385), and the
  check ``max_num_reqs > num_blocks`` (``config/compilation.py:1435-1458``): every factor as planned.
- 0.24.0 profiles the graphs inside ``memory_profiling`` (``v1/worker/gpu_worker.py:434-474``; 0.27.1 after it),
  on a minimal KV cache of ``max_cudagraph_capture_size`` blocks (``gpu_model_runner.py:6314-6336``; 0.27.1 takes
  ``min(max_num_reqs, ...)``), 512 here: 1.59 GiB of this rank's pages. It is torch memory, released by
  ``_cleanup_profiling_kv_cache`` (:6376-6408) before the after-profile snapshot, and the 0.24.0 budget takes
  torch's peak from before the graphs (``profile_torch_peak``, ``gpu_worker.py:440-463``): not in the printed pool.
- So the 0.44 GiB (0.41 until the KV-head replication was counted in the attention layers only, 2026-12-07,
  fifty-fourth session) is the budget's. Its L40S rank at TP 4 carries no desktop-card share since the desktop-card
  rule (``planner.engines.vllm.non_torch.graphics_compile_bytes``); the fitted share a rank at TP 4 is larger than the
  20 blocks between the planned pool and a refusal (the verdict was right with it when found), and the same machine's
  Qwen3-Coder-30B-A3B boot is +0.07 without it (+0.12 before its own 262,144 RoPE positions), -0.14 with it (as
  found): the verdict turns on that share's rule.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest

from bench.derived import block_bytes
from bench.fidelity import run_case
from bench.fidelity_cases import build_request, load_cases, setup_of
from bench.fidelity_result import CaseResult
from model_catalog import get_model
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.blocks import VllmStage
from planner.engines.vllm.mamba import hybrid_block_size, state_page_bytes
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.planning.plan import plan

H100_REFUSAL = "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-mamba-refusal"
H100_SIBLING = "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-seqs256"
H100_022 = "vllm-0.22-h100-qwen36-27b-fp8-mamba-refusal-recipes551"
L40S_TP4 = "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal"
L40S_SIBLING = "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k"


@cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in load_cases()}


def _result(case_id: str, max_num_seqs: int | None = None) -> CaseResult:
    case = copy.deepcopy(_cases()[case_id])
    if max_num_seqs is not None:
        case["setup"]["profile"]["max_num_seqs"] = max_num_seqs
    return run_case(case)


def _stage(case_id: str) -> VllmStage:
    case = _cases()[case_id]
    request = build_request(case, setup_of(case))
    return vllm_stage(request, plan(request), request.overhead, 0, engine_total_bytes(request))  # type: ignore[arg-type]


def test_a_refusing_boot_prints_its_pool_before_it_refuses() -> None:
    report = _result(H100_REFUSAL).report
    assert report is not None and report.failure_kind == "mamba-blocks"
    assert [line.split(":")[0] for line in report.lines] == [
        "Available KV cache memory",
        "GPU KV cache size",
        "Maximum concurrency for 8,192 tokens per request",
        "ValueError",
    ]
    assert f"exceeds available Mamba cache blocks ({report.gpu_blocks})" in report.lines[-1]


def test_as_many_sequences_as_blocks_start() -> None:
    # 784 sequences leave 784 blocks (785 and 785 until FlashInfer's workspace was placed in FULL's first capture and
    # make calibrate refit the encoder amount to 46,417 B, 2026-12-07; 782 until make calibrate refitted the encoder
    # amount without club-3090 #851's
    # under-counted INT4 weights, 2026-12-07, fifty-fourth session; the sampler's rows and the graphs move the pool
    # with max_num_seqs; 798 until
    # the mechanistic non-torch model (2026-12-07, fifty-third session), whose vision encoder's non-torch amount takes
    # 0.79 GiB; 799 until the allocator's segment tails were
    # counted with the weights); 785 sequences leave 785 blocks since the MTP drafter's buffers and the encoder refit to
    # 41,312 B (2026-12-07, fifty-fifth session)
    # 786 sequences leave 787 blocks, 787 leave 786, since a Gated DeltaNet layer's own profile peak and the encoder
    # refit to 37,217 B (2026-12-07, fifty-sixth session; 785 / 785 and 786 / 785 before)
    at, above = _result(H100_REFUSAL, 786).report, _result(H100_REFUSAL, 787).report
    assert at is not None and above is not None
    # 786 sequences leave 786 blocks, 787 leave 786 (a refusal), since the Triton sampler's cached buffer beside the
    # Gated DeltaNet layer's own peak (fifty-sixth session, coder3 with relout2; 787 at 786 before)
    assert (at.gpu_blocks, at.failure_kind) == (786, None)
    assert (above.gpu_blocks, above.failure_kind) == (786, "mamba-blocks")


def test_the_h100_refusal_is_its_sibling_plus_a_step_the_planner_does_not_take() -> None:
    """+3.39 GiB = the 256-sequence sibling's -0.56 and 3.95 GiB of the step from 256 to 1,024 sequences: the
    printed step is 829 - 694 = 135 blocks of 16 x 784 x 4,096 bytes (6.46 GiB), the planned one 2.51 GiB (the
    sampler's 1,024 rows +2.30 GiB of peak, the FULL graphs up to 512 sequences +0.21). +4.24 and +0.29 until the
    allocator's segment tails were counted with the weights (2026-12-07: 0.06 GiB more weights); +4.18 and +0.23
    until the mechanistic non-torch model (2026-12-07, fifty-third session): the vision encoder's non-torch amount, 0.79
    GiB in both); +3.53 and -0.42 since make calibrate refitted that amount without club-3090 #851's under-counted
    INT4 weights (2026-12-07, fifty-fourth session: 0.14 GiB less in both, the step unchanged); +3.47 and -0.48 since
    FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder amount to 46,417 B
    (2026-12-07: 0.06 GiB more in both, the step unchanged); +3.55 and -0.40 since make calibrate refit it to 41,312 B
    beside the MTP drafter's buffers (2026-12-07, fifty-fifth session: 0.08 GiB less in both, the step unchanged)."""
    stage = _stage(H100_REFUSAL)
    assert (stage.block_size, stage.page_bytes, stage.group_size) == (784, 784 * 4096, 16)
    refusal, sibling = _result(H100_REFUSAL), _result(H100_SIBLING)
    assert refusal.reported_blocks == 694 and sibling.reported_kv_gib is not None
    assert int(sibling.reported_kv_gib * GiB / block_bytes(stage)) == 829  # 485,083 tokens at 59.21x
    assert 135 * block_bytes(stage) / GiB == pytest.approx(6.46, abs=0.005)
    # -0.56 until the encoder refit; -0.42 until FlashInfer's workspace was placed in FULL's first capture and make
    # calibrate refit the encoder amount to 46,417 B, 2026-12-07; -0.48 until its refit to 41,312 B (above)
    # -0.4 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert sibling.kv_error_gib == pytest.approx(-0.34, abs=0.01)
    # +3.39 until the encoder refit; +3.53, +3.47 (above)
    # 3.55 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert refusal.kv_error_gib == pytest.approx(3.61, abs=0.01)
    assert refusal.report is not None and sibling.report is not None
    planned = sibling.report.available_kv_cache_bytes_per_gpu - refusal.report.available_kv_cache_bytes_per_gpu
    assert planned / GiB == pytest.approx(2.51, abs=0.01)
    assert (refusal.report.activation_bytes - sibling.report.activation_bytes) / GiB == pytest.approx(2.30, abs=0.01)
    assert (refusal.report.cuda_graph_bytes - sibling.report.cuda_graph_bytes) / GiB == pytest.approx(0.21, abs=0.01)
    # 3.55 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert (sibling.kv_error_gib or 0.0) + 6.46 - planned / GiB == pytest.approx(3.61, abs=0.01)  # 3.53, 3.47


def test_the_same_model_on_the_same_card_at_1024_sequences_on_0_22_is_as_planned() -> None:
    """recipes PR #551 (Qwen3.6-27B-FP8, the same shapes and weights as planned, util 0.95): 856 blocks printed,
    848 planned, -0.40 GiB (864 and +0.39 until the mechanistic non-torch model (2026-12-07, fifty-third session), its
    vision encoder's non-torch amount; 865 and +0.45 until
    the allocator's segment tails were counted with the weights); its 1,024 sequences run the same sampler rows and
    graphs as the 0.27.1 refusal's. 851 and -0.26 since make calibrate refitted the encoder amount without
    club-3090 #851's under-counted INT4 weights (2026-12-07, fifty-fourth session); 849 and -0.32 since the encoder
    refit to 46,417 B with FlashInfer's workspace in FULL's first capture (2026-12-07); 851 and -0.24 since its refit to
    41,312 B beside the MTP drafter's buffers (2026-12-07, fifty-fifth session)."""
    boot = _result(H100_022)
    assert boot.report is not None and boot.report.failure_kind == "mamba-blocks"
    # 848 until the encoder refit; 851 until FlashInfer's workspace was placed in FULL's first capture and make
    # calibrate refit the encoder amount to 46,417 B, 2026-12-07; 849 until its refit to 41,312 B
    # (856, 851) until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert (boot.reported_blocks, boot.report.gpu_blocks) == (856, 852)
    # -0.40 until the encoder refit; -0.26, -0.32 (above)
    # -0.24 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert boot.kv_error_gib == pytest.approx(-0.18, abs=0.01)
    assert boot.report.activation_bytes == _result(H100_REFUSAL).report.activation_bytes  # type: ignore[union-attr]


def test_qwen3_next_state_page_at_tp_4_is_split_by_heads_in_the_model_dtype() -> None:
    model = get_model("Qwen/Qwen3-Next-80B-A3B-Instruct").spec
    conv = 3 * (2 * 16 * 128 + 32 * 128) // 4 * 2  # (kernel - 1) x conv_dim / tp, bf16
    temporal = 32 // 4 * 128 * 128 * 2  # value heads / tp x value dim x key dim, bf16
    assert state_page_bytes(model, 4, 0) == conv + temporal == 274_432
    # one KV head a rank (two over four ranks, replicated): 1,024 bytes a token; FLASH_ATTN's 16-token multiple
    assert hybrid_block_size(16, 274_432, 1024) == 272
    stage = _stage(L40S_TP4)
    # 265 blocks until the KV-head replication was counted in the 12 attention layers only (2026-12-07, fifty-fourth
    # session: 0.035 GiB less weights a rank, tests/core/test_weights.py); 276 until the Triton sampler's cached buffer
    # (2026-12-07, fifty-sixth session: tests/fidelity/test_sampler_triton_buffer.py)
    assert (stage.block_size, stage.page_bytes, stage.group_size, stage.blocks) == (272, 278_528, 12, 256)


def test_the_l40s_refusal_needs_0_38_gib_less_pool_than_planned() -> None:
    """The planned 256 blocks are as many as the default 256 sequences (one block more than a refusal allows: it needs
    fewer blocks than sequences); the printed 134 are half. A float32 temporal state would give 132 (a 528-token
    block), but neither candidate release keeps Qwen3-Next's state in float32 (module docstring), so the page stands
    and the 0.38 GiB is memory held elsewhere. (265 blocks, 9 above, +0.41 GiB and 136 until the KV-head replication
    was counted in the attention layers only, 2026-12-07, fifty-fourth session; 276 blocks, 20 above, +0.44 GiB and
    142 until the Triton sampler's cached buffer, 2026-12-07, fifty-sixth session.)"""
    refusal = _result(L40S_TP4)
    assert refusal.report is not None and refusal.report.failure_kind is None
    assert (refusal.reported_blocks, refusal.report.max_running) == (134, 256)
    assert refusal.report.gpu_blocks == refusal.report.max_running == 256
    assert refusal.kv_error_gib == pytest.approx(0.38, abs=0.01)
    float32_page = 3 * 2048 * 2 + 8 * 128 * 128 * 4
    block = hybrid_block_size(16, float32_page, 1024)
    assert (block, refusal.report.available_kv_cache_bytes_per_gpu // (block * 1024 * 12)) == (528, 132)


def test_the_l40s_verdict_turns_on_the_desktop_share_its_ranks_no_longer_take() -> None:
    """The fitted desktop-card share a rank at TP 4 (``VllmConstants.graphics_extra // 4``) against the 20 blocks
    between the planned pool and the refusal (none since the Triton sampler's cached buffer, 2026-12-07, fifty-sixth
    session: 256 blocks for 256 sequences, one block from it); 0.24.0's graph profiling pool of 512 blocks (1.59 GiB)
    is not in it.
    Since the mechanistic non-torch model (2026-12-07, fifty-third session) the share is fitted 0 on every card, so no
    plan of this model refuses here: the verdict stays wrong
    (listed), 0.44 GiB of pool held elsewhere than any term of the planner's (the 0.26 GiB a rank the desktop
    share gave before would have refused it, as the log; 9 blocks and 0.41 GiB until the KV-head replication was
    counted in the attention layers only, 2026-12-07, fifty-fourth session)."""
    refusal, stage = _result(L40S_TP4), _stage(L40S_TP4)
    assert refusal.report is not None
    case = _cases()[L40S_TP4]
    profile = build_request(case, setup_of(case)).overhead
    assert isinstance(profile, VllmProfile)
    share = profile.fitted.graphics_extra // 4
    available = refusal.report.available_kv_cache_bytes_per_gpu
    assert available // block_bytes(stage) - 256 == 0  # 20 until the sampler's cached buffer
    assert share == 0  # 0.26 GiB a rank before, more than the 20 blocks: the plan refused, as the log
    assert (available - share) // block_bytes(stage) - 256 == 0
    assert 512 * block_bytes(stage) / GiB == pytest.approx(1.59, abs=0.005)


def test_the_l40s_residual_is_qwen3_next_s_own_not_the_machine_s() -> None:
    """The same repository's Qwen3-Coder-30B-A3B boot on the same four L40S under the same release (util 0.90, TP 4,
    256 sequences, 2,048 batched tokens, prefix caching, the non-FlashInfer sampler) is planned with the same
    budget, sampler warm-up, graph estimate (48 layers each, 51 PIECEWISE + 35 FULL) and non-torch memory (NCCL-only
    TP 4); the two differ in the weights and the persistent MoE workspace only, 2,048 tokens x (10 - 8) experts a
    token x 2,048 x 2 bytes x 2 buffers (read 2026-12-07, fifty-fourth session). The sibling is +0.07 GiB since
    Qwen3-Coder-30B-A3B-Instruct is catalogued with its 262,144 positions (+0.12 on Qwen3-30B-A3B's 40,960,
    56,623,104 bytes of RoPE cache too few, ``planner.engines.vllm.rope``): the machine leaves about +0.07 GiB, and
    some +0.37 GiB of the Qwen3-Next boot's +0.44 is a term of its own (its Gated DeltaNet or 512-expert layers in
    the load, the profile or the graph estimate), which its unprinted 'Model loading took', 'Estimated CUDA graph
    memory' and 'Available KV cache memory' lines would place."""
    next_, sibling = _result(L40S_TP4), _result(L40S_SIBLING)
    a, b = next_.report, sibling.report
    assert a is not None and b is not None
    same = ("budget_bytes", "cuda_graph_bytes", "non_torch_bytes", "max_running")
    assert [getattr(a, name) for name in same] == [getattr(b, name) for name in same]
    assert a.activation_bytes - b.activation_bytes == 2048 * (10 - 8) * 2048 * 2 * 2 == 33_554_432
    assert (262_144 - 40_960) * 128 * 2 == 56_623_104
    # +0.07 and +0.44 until the Triton sampler's cached buffer (142 rows of the one vocabulary both boots share, on
    # the L40S) and the refit Triton copies (2026-12-07, fifty-sixth session): the 0.37 between them stays
    assert sibling.kv_error_gib == pytest.approx(0.01, abs=0.01)
    assert next_.kv_error_gib == pytest.approx(0.38, abs=0.01)
