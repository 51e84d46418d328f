"""The 4 x L40S Qwen3-Coder-Next refusal read again at the profile's peak (issue 20; helper ``coder3``, read
2026-12-07 in vLLM 0.24.0; docs/fidelity.md "The Triton sampler's per-program buffer").

Four angles the brief named, each against the source at this boot's settings (TP 4, the L40S defaults of 2,048
batched tokens and 256 sequences, ``engine/arg_utils.py:2404-2423``: 44.52 GiB is under the 70 GiB of the larger
defaults):

(a) The chunked Gated DeltaNet kernels do not run in the profile: ``_dummy_run`` builds attention metadata only with
    ``force_attention`` or a FULL graph (``v1/worker/gpu_model_runner.py:5845-5846``) and ``_forward_core`` returns
    after its one-chunk warm-up when it finds none (``model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:
    1278-1280``). Had a single sequence of the batch's tokens run, its chunk states ``h`` (``k.new_empty(B, NT, H, V,
    K)``, bf16, ``fla/ops/chunk_delta_h.py:350``) would be tokens / 64 x 8 value heads x 128 x 128 x 2 bytes a rank:
    8 MiB at 2,048 tokens, 32 at 8,192, 64 at 16,384, and the causal-conv1d pre-pass's output tokens x 2,048 x 2
    (8 MiB at 2,048): none of it the 0.065 GiB the verdict needed, and none of it allocated.
(b) ``profile_run`` runs ``_dummy_sampler_run`` on the 256 last rows (:6306) inside ``memory_profiling``, before
    the torch peak is read (``v1/worker/gpu_worker.py:434-442``): FlashInfer's call, then the seeded
    ``forward_native`` call (:6086-6104) through the Triton top-k / top-p (``topk_topp_sampler.py:356-357``). Its
    held copies are the bf16 logits (half an fp32 copy), their fp32 cast (``sample/sampler.py:96``), the softmax and
    the exponential draws (``topk_topp_sampler.py:141``, :456): 3.5 copies, the refit fitted 3.58; beside them the
    kernel's cached buffer, shipped (tests/fidelity/test_sampler_triton_buffer.py). Under TP the gathered logits
    (``all_gather``: slice, gathered and reshaped, 2.25 bf16 copies) are freed before the sampler's peak.
(c) The custom all-reduce is off on four PCIe GPUs (``distributed/device_communicators/custom_all_reduce.py:
    149-156``), torch's symmetric memory has no 8.9 entry (``all_reduce_utils.py:52-64``), NCCL's symmetric memory
    is off by default (``envs.py:1784-1786``) and FlashInfer's all-reduce too (:1675-1677): each row-parallel
    all-reduce is pynccl's out-of-place one, a ``torch.empty_like`` output (``pynccl.py:183-184``) of 2,048 x 2,048
    x 2 bytes, 8 MiB freed within the layer.
(d) The checkpoint is BF16 (the source's '~160 GB of weights on 4x46 GB'; Qwen/Qwen3-Coder-Next, not its -FP8): no
    FP8 weight processing applies. The planned weights a rank are vLLM's layer shapes to 0.0002 GiB: the 512
    experts' w13 / w2 split by TP, the replicated router and shared-expert gate (``models/qwen3_next.py:129-147``),
    the Gated DeltaNet projections (``qwen_gdn_linear_attn.py:467-550``), one whole KV head a rank in the 12
    attention layers (:246-256), the vocabulary split four ways (:535, :807) and the RoPE cache over 262,144
    positions.
"""

from __future__ import annotations

import copy

from bench.fidelity import run_case
from bench.fidelity_cases import load_cases
from planner.core.units import GiB, MiB

CODER_NEXT = "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal"
TP, HIDDEN, LAYERS, GDN, ATTENTION = 4, 2048, 48, 36, 12
V_HEADS, K_HEADS, HEAD_DIM, CHUNK = 32, 16, 128, 64  # linear_num_value / key heads, their dims; FLA_CHUNK_SIZE
VOCAB, EXPERTS, MOE_WIDTH, SHARED = 151_936, 512, 512, 512


def _case() -> dict[str, object]:
    return next(c for c in load_cases() if c["id"] == CODER_NEXT)


def chunk_states_bytes(tokens: int) -> int:
    """``h`` of one sequence of ``tokens`` on one rank: tokens / 64 chunks x heads / TP x V x K, bf16."""
    return tokens // CHUNK * (V_HEADS // TP) * HEAD_DIM * HEAD_DIM * 2


def test_the_chunked_path_would_hold_megabytes_at_any_batch() -> None:
    assert [chunk_states_bytes(t) // MiB for t in (2048, 8192, 16384)] == [8, 32, 64]
    conv_dim = (2 * K_HEADS * HEAD_DIM + V_HEADS * HEAD_DIM) // TP
    assert conv_dim == 2048 and 2048 * conv_dim * 2 == 8 * MiB
    assert chunk_states_bytes(16384) / GiB < 0.065  # the pool the verdict needed


def test_the_gathered_logits_are_under_the_sampler_s_peak() -> None:
    """The all-gather's slice, gathered tensor and reshape (2.25 bf16 copies of 256 x 151,936) against the sampler's
    3.5 held copies in fp32 terms."""
    rows = 256 * VOCAB
    gathered = rows * 2 * (2 + 1 / TP)
    held = rows * 4 * 3.5
    assert gathered < held and round(gathered / MiB) == 167 and round(held / MiB) == 519


def test_the_all_reduce_output_is_eight_mib() -> None:
    assert 8 * MiB == 2048 * HIDDEN * 2


def test_the_planned_bf16_weights_are_vllm_s_layer_shapes() -> None:
    moe = EXPERTS * 3 * HIDDEN * (MOE_WIDTH // TP) + HIDDEN * EXPERTS + 3 * HIDDEN * (SHARED // TP) + HIDDEN
    norms = 2 * HIDDEN
    qkvz = (2 * K_HEADS * HEAD_DIM + 2 * V_HEADS * HEAD_DIM) // TP * HIDDEN
    gdn = qkvz + 2 * V_HEADS // TP * HIDDEN + 2048 * 4 + 2 * 8 + HEAD_DIM + V_HEADS * HEAD_DIM // TP * HIDDEN
    heads = 16 * 256 * 2 // TP  # the query doubled for the output gate
    attention = heads * HIDDEN + 2 * 256 * HIDDEN + 16 * 256 // TP * HIDDEN + 2 * 256
    vocab = 2 * VOCAB // TP * HIDDEN + HIDDEN
    params = LAYERS * (moe + norms) + GDN * gdn + ATTENTION * attention + vocab
    rope = 262_144 * 64 * 2  # partial_rotary_factor 0.25 of the 256-dim head
    case = copy.deepcopy(_case())
    assert case["setup"]["weights"] == "bf16"  # type: ignore[index]
    report = run_case(case).report
    assert report is not None
    assert abs(report.weights_bytes - (params * 2 + rope)) / GiB < 0.0002  # 144,000 bytes over 37.2 GiB
