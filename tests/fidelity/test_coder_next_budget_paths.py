"""The 4 x L40S Qwen3-Coder-Next refusal read along the budget's four paths in vLLM 0.24.0 (issue 20, read
2026-12-08, fifty-seventh session, helper ``codernext4``; docs/fidelity.md "The Coder-Next refusal along the budget's
four paths"). Nothing here closes the 0.38 GiB; each test pins what one path does and does not do.

(a) The pool arithmetic. With the count the block rule gives (tests/fidelity/test_coder_next_block_rule.py), two
    consequences of the printed 134 blocks are fixed by 0.24.0's own functions. The admission check
    (``_check_enough_kv_cache_memory``, ``v1/core/kv_cache_utils.py:733-771``, called at :2101) needs one request of
    16,384 tokens: ``_max_memory_usage_bytes_from_groups``' general case (:1850-1861) sums each group's pages,
    ``cdiv(16,384, 272)`` = 61 for the attention group (``v1/kv_cache_interface.py:236-244``) and 2 for each of the
    three Gated DeltaNet groups in mode 'align' (:648-657), 67 blocks of 12 pages, 0.209 GiB: under the printed pool,
    so a boot with 134 blocks passes it and reaches the Mamba check, as the quote says. The "Maximum concurrency" line
    such a pool prints is 134 / 67 = 2.00x (``get_max_concurrency_for_kv_cache_config``, :919-936).
(b) The weights. The vocabulary needs no padding at TP 4 (151,936 = 64 x 2,374 and divides by 4;
    ``DEFAULT_VOCAB_PADDING_SIZE`` 64, ``model_executor/layers/vocab_parallel_embedding.py:32``, :87-89, :261, :302),
    and the Gated DeltaNet's ``A_log``, the one parameter built in float32 (``qwen_gdn_linear_attn.py:519-523``;
    ``dt_bias`` takes the default dtype, :516-518), is 576 bytes a rank more than a 16-bit count: the planned weights
    stay vLLM's layer shapes.
(c) The graph estimate. The throwaway KV cache it builds holds ``max_cudagraph_capture_size`` blocks
    (``gpu_model_runner.py:6323``; min(2 x 256, 512) = 512, ``config/vllm.py:1684-1694``): 1.59 GiB a rank here, ten
    times the sibling's 0.19, allocated before the first sample's ``mem_get_info`` (:6449, :6513) and freed with
    ``empty_cache`` in the ``finally`` (:6576, :6405-6406) before ``memory_profiling`` takes its after-snapshot
    (``utils/mem_utils.py:298-301``), the torch peak read before it (``v1/worker/gpu_worker.py:440-442``): in no term.
    The shared experts, which Qwen3-Next has and its Qwen3-Coder-30B-A3B sibling lacks, run on the auxiliary stream
    only at 256 tokens or fewer (``fused_moe/runner/shared_experts.py:99-106``, ``envs.py:256``), so inline in the
    2,048-token profile; in the FULL captures their tensors are at most 48 x 1.19 MiB. Closing the gap through the
    estimate would take each captured graph 45 % dearer than planned, where the one Gated DeltaNet boot on this card
    that prints its estimate (Qwen3.8-27B FP8, vLLM 0.26.0, the same 51 + 35 graphs) prints 0.09 GiB under the plan.
(d) Between the profile and the pool. The count is ``(requested - weights - torch peak increase - non-torch increase
    - graph estimate) // (12 x 278,528)``, every term measured inside ``determine_available_memory``
    (``gpu_worker.py:434-493``) before the engine core sizes the pool (``v1/engine/core.py:283-306``); what is
    allocated after it (the KV tensors, the capture, ``compile_or_warm_up_model``'s sampler warm-up) cannot move 134.
    The planner's pool is that formula over its own terms to the byte, so the 0.38 GiB sits in one of the four terms.
"""

from __future__ import annotations

import math

import pytest

from bench.derived import block_bytes
from bench.fidelity_cases import build_request, setup_of
from planner.core.units import GiB, MiB
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.stage import vllm_stage
from planner.planning.plan import plan
from tests.fidelity import by_id

CODER_NEXT = "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal"
SIBLING = "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k"  # the same repository's boot on the same four L40S
L40S_GDN = "vllm-0.26-l40s-qwen38-27b-fp8-util086-131k-kv-refusal"  # prints "Estimated CUDA graph memory"
PRINTED_BLOCKS, SEQS, MAX_MODEL_LEN, TP = 134, 256, 16_384, 4
PAGE, GROUP = 278_528, 12  # 272 tokens x 1,024 bytes; 12 tensors, each shared by one layer of the 4 groups
VOCAB, GDN_LAYERS, V_HEADS = 151_936, 36, 32


def test_the_printed_pool_passes_the_admission_check_and_prints_two_requests() -> None:
    """(a): 61 attention pages and 2 'align' state pages in each of three Gated DeltaNet groups make one request."""
    case = by_id.case(CODER_NEXT)
    request = build_request(case, setup_of(case))
    stage = vllm_stage(request, plan(request), request.overhead, 0, engine_total_bytes(request))  # type: ignore[arg-type]
    assert (stage.page_bytes, stage.group_size, block_bytes(stage)) == (PAGE, GROUP, PAGE * GROUP)
    per_request = math.ceil(MAX_MODEL_LEN / stage.block_size) + 3 * 2
    assert per_request == 67
    needed, printed_pool = per_request * PAGE * GROUP, PRINTED_BLOCKS * PAGE * GROUP
    assert needed == 223_936_512 and needed / GiB == pytest.approx(0.2086, abs=0.0001)
    assert needed < printed_pool  # the refusal is the Mamba check's, not "To serve at least one request ..."
    assert PRINTED_BLOCKS / per_request == 2.0  # the "Maximum concurrency for 16,384 tokens" such a pool prints


def test_the_vocabulary_needs_no_padding_and_the_float32_decay_is_bytes() -> None:
    """(b): ``pad_vocab_size`` to 64, then ``divide`` by TP: 37,984 rows a rank, none padded; ``A_log`` (8 value heads
    a rank) in float32 is 576 bytes beyond a 16-bit count over the 36 layers."""
    case = by_id.case(CODER_NEXT)
    model = build_request(case, setup_of(case)).model
    assert (model.vocab_size, model.num_hidden_layers) == (VOCAB, 48)
    assert VOCAB % 64 == 0 and VOCAB // TP == 37_984 and (VOCAB // TP) * TP == VOCAB
    assert GDN_LAYERS * (V_HEADS // TP) * (4 - 2) == 576


def test_the_profiling_kv_cache_is_ten_times_the_sibling_s_and_in_no_term() -> None:
    """(c): 512 blocks of the profile's throwaway cache: 1.59 GiB a rank for Coder-Next's 12 x 278,528-byte blocks,
    0.19 for the sibling's 48 layers of 16 tokens x one KV head of 128 (4 KV heads over TP 4) x 2 x 2 bytes; freed
    before the budget's after-snapshot, so the planner plans none of it for either boot."""
    blocks = min(2 * SEQS, 512)
    coder_next, sibling = blocks * PAGE * GROUP, blocks * 48 * 16 * 1 * 128 * 2 * 2
    assert (coder_next, sibling) == (1_711_276_032, 201_326_592)
    assert (round(coder_next / GiB, 2), round(sibling / GiB, 2)) == (1.59, 0.19)
    # both boots plan the same graphs and the same estimate: the cache is not in it
    next_report, sibling_report = by_id.result(CODER_NEXT).report, by_id.result(SIBLING).report
    assert next_report is not None and sibling_report is not None
    assert next_report.cuda_graph_bytes == sibling_report.cuda_graph_bytes == 1_008_717_636


def test_the_shared_experts_fork_only_at_256_tokens_or_fewer() -> None:
    """(c): at the profile's 2,048 tokens the shared expert runs inline; in a 256-token FULL capture its gate_up
    (256 x 2 x 512 / 4), activation (256 x 128) and down (256 x 2,048) outputs in bf16 are 1.19 MiB a layer, 57 MiB
    over 48 layers even if none were freed before the capture's end: 15 % of the gap."""
    threshold, profile_tokens = 256, 2048  # VLLM_SHARED_EXPERTS_STREAM_TOKEN_THRESHOLD; the L40S batched tokens
    assert profile_tokens > threshold
    per_layer = 256 * (2 * 512 // TP) * 2 + 256 * (512 // TP) * 2 + 256 * 2048 * 2
    assert per_layer == 1_245_184 and round(per_layer / MiB, 2) == 1.19
    assert 48 * per_layer / GiB == pytest.approx(0.0557, abs=0.0001)
    gap = by_id.result(CODER_NEXT).kv_error_gib
    assert gap is not None and 48 * per_layer / GiB / gap == pytest.approx(0.146, abs=0.002)


def test_closing_the_gap_through_the_estimate_needs_each_graph_45_percent_dearer() -> None:
    """(c): the planned estimate is a first capture (0.094 GiB) and 84 graphs at 48 layers (0.845); the gap is 45 % of
    the graphs' part, 41 % of the whole. The L40S Gated DeltaNet boot that prints its estimate (1.11 GiB, 64 layers,
    51 + 35 graphs) is planned at 1.20: its Gated DeltaNet layers' graphs cost no more than the fit says."""
    profile = by_id.vllm_profile(CODER_NEXT)
    graphs = profile.graphs(SEQS, 2048)
    assert (graphs.piecewise, graphs.full, graphs.extra_graphs) == (51, 35, 84)
    total = profile.cudagraph_estimate_bytes(48, graphs)
    first = profile.cudagraph_estimate_bytes(48, GraphSet(piecewise=1, mode="PIECEWISE"))  # no graph beyond the first
    per_graphs = total - first
    gap = by_id.result(CODER_NEXT).kv_error_gib
    assert gap is not None
    assert (total / GiB, per_graphs / GiB) == pytest.approx((0.939, 0.845), abs=0.001)
    assert gap * GiB / per_graphs == pytest.approx(0.451, abs=0.002)
    assert gap * GiB / total == pytest.approx(0.406, abs=0.002)
    l40s = by_id.result(L40S_GDN).report
    assert l40s is not None and by_id.case(L40S_GDN)["reported"]["cuda_graph_estimate_gib"] == 1.11
    assert l40s.cuda_graph_bytes / GiB == pytest.approx(1.203, abs=0.001)


def test_the_planned_pool_is_vllm_s_formula_over_the_four_terms() -> None:
    """(d): requested - weights - peak - non-torch - estimate, to the byte; 256 blocks of 3,342,336 bytes. What the
    printed 134 needs beyond it is 0.38 GiB in one of the four: +1.0 % of the weights, +50 % of the profile's peak,
    +109 % of the non-torch increase or +40 % of the graph estimate."""
    report = by_id.result(CODER_NEXT).report
    assert report is not None
    terms = (report.weights_bytes, report.activation_bytes, report.non_torch_bytes, report.cuda_graph_bytes)
    assert terms == (39_959_148_032, 820_130_200, 375_809_638, 1_008_717_636)
    assert report.budget_bytes - sum(terms) == report.available_kv_cache_bytes_per_gpu == 858_881_897
    assert report.available_kv_cache_bytes_per_gpu // (PAGE * GROUP) == report.gpu_blocks == 256
    short = report.available_kv_cache_bytes_per_gpu - (PRINTED_BLOCKS + 1) * PAGE * GROUP
    assert short / GiB == pytest.approx(0.380, abs=0.001)  # at least this much more non-KV memory a rank
    shares = [round(short / term, 3) for term in terms]
    assert shares == [0.010, 0.497, 1.085, 0.404]
