"""Model Runner V2's kernel warm-up after the KV pool (``warmup_kernels``), read at the source: what its sampler holds.

From 0.27 (read in 0.27.1, 0.28.0, 0.29.0, 0.30.0 and 0.31.0) ``compile_or_warm_up_model`` runs
``v1/worker/gpu/warmup.py`` ``warmup_kernels`` on Model Runner V2: after ``capture_model`` up to 0.29
(``v1/worker/gpu_worker.py`` 0.27.1 :717 then :795, 0.28.0 :732 then :810, 0.29.0 :788 then :866), before it from 0.30
(0.30.0 :811 then :816, 0.31.0 :876 then :883). It prefills ``num_reqs`` requests of ``decode_query_len + 1`` tokens
(0.27.1 ``warmup.py:166-170``; ``decode_query_len`` is one plus the speculative tokens), ``num_reqs = min(max_num_seqs,
max_num_batched_tokens // max(prompt_len, decode_query_len))`` (:215-219), capped by the KV blocks (:220-226), and
samples them with ``SamplingParams.for_sampler_warmup()`` (top-k, top-p, min-p, penalties, logprobs). Those parameters
need processing, so the sampler casts the logits to a new fp32 tensor (``sample/sampler.py`` 0.27.1 :159, 0.28.0 :196,
0.29.0 :222, 0.30.0 :224, 0.31.0 :239), and FlashInfer's ``top_k_top_p_sampling_from_logits`` (the default on CUDA)
adds its masked logits and softmax, two more fp32 copies (flashinfer ``sampling.py:1547-1548``); the Triton path
(``VLLM_USE_FLASHINFER_SAMPLER=0``) masks the copy in place. The peak was pinned against the one log that sizes it
(``tests/fidelity/test_v2_warmup_pin.py``: 0.51 GiB for Qwen3-4B at 256 rows, against the 0.52 the cold RTX 4090 boot
had left). Not planned: the Triton path's per-program buffer (``min(next_pow2(min(SMs, rows)), SMs) x vocab`` fp32,
``v1/sample/ops/topk_topp_triton.py:906-915``; the catalog holds no SM counts, 0.07 GiB for a 152k vocabulary on an
RTX 4090) and releases before 0.27, whose sampler keeps the input dtype or always copies (``versions.toml``
``v2_sampler_fp32_copy``) and were not read for this.

>>> from planner.core.model import ModelSpec
>>> m = ModelSpec(id="m", hidden_size=1024, num_hidden_layers=2, num_attention_heads=8, vocab_size=1000,
...               intermediate_size=4096)
>>> warmup_rows(256, 2048, 0, 10_000, 1, 16)
256
>>> warmup_rows(256, 2048, 3, 10_000, 1, 16)  # five-token prompts: 2,048 // 5
256
>>> warmup_rows(256, 256, 0, 10_000, 1, 16)
128
>>> warmup_peak_bytes(m, 256, 2, 0, "flashinfer") == 256 * 1000 * (2 + 12) + 3 * 256 * 1024 * 2
True
>>> warmup_peak_bytes(m, 256, 2, 0, "triton") == 256 * 1000 * (2 + 4) + 3 * 256 * 1024 * 2
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.core.model import ModelSpec
from planner.core.overhead import DEFAULT_HIDDEN, DEFAULT_VOCAB
from planner.engines.vllm.terms import activation_dtype_bytes
from planner.planning.context import speculative_method

if TYPE_CHECKING:
    from planner.engines.vllm.blocks import VllmStage
    from planner.engines.vllm.profile import VllmProfile
    from planner.planning.plan import PlanRequest

FIRST_RELEASE = (0, 27, 0)  # the releases read (module docstring)
BEFORE_CAPTURE = (0, 30, 0)  # from 0.30 the warm-up precedes the capture
DECODE_STEPS = (3, 5)  # warmup.py:172-175: decode steps without / with speculative decoding
FP32_COPIES = {"flashinfer": 3, "triton": 1}  # the cast, and FlashInfer's masked logits and softmax


def warms_kernels(version: tuple[int, int, int], runs_v2: bool) -> bool:
    """Whether the release's Model Runner V2 runs ``warmup_kernels`` as planned here (module docstring)."""
    return runs_v2 and version >= FIRST_RELEASE


def warms_before_capture(version: tuple[int, int, int]) -> bool:
    """Whether the warm-up precedes the CUDA-graph capture (0.30.0 ``gpu_worker.py:811``/``:816``)."""
    return version >= BEFORE_CAPTURE


def warmup_rows(seqs: int, tokens: int, spec: int, blocks: int, groups: int, block_size: int) -> int:
    """``num_reqs`` of ``warmup_kernels`` (0.27.1 ``warmup.py:166-226``): ``max_num_seqs`` and the batched tokens
    over the prompt length, capped by the pool's blocks (block 0 reserved) over a request's blocks at its longest
    (the prompt and every decode step, one block count a KV group)."""
    query = 1 + spec
    prompt = query + 1
    rows = min(seqs, tokens // max(prompt, query))
    decode_len = prompt + DECODE_STEPS[spec > 0] * query
    per_request = groups * -(-decode_len // max(1, block_size))
    if per_request > 0:
        rows = min(rows, max(1, (blocks - 1) // per_request))
    return max(1, rows)


def warmup_peak_bytes(model: ModelSpec, rows: int, act_bytes: int, spec: int, sampler: str) -> int:
    """The warm-up's sampler peak over ``rows`` requests: their logits in the activation dtype and the fp32 copies
    (:data:`FP32_COPIES`: FlashInfer's three, else the cast alone), beside the prefill's hidden states (``rows x
    prompt`` tokens) and the sampled rows' (module docstring)."""
    vocab = model.vocab_size or DEFAULT_VOCAB
    hidden = model.hidden_size or DEFAULT_HIDDEN
    copies = FP32_COPIES.get(sampler, 1)
    prompt = spec + 2
    return rows * vocab * (act_bytes + 4 * copies) + (prompt + 1) * rows * hidden * act_bytes


def warmup_bytes(
    request: PlanRequest, profile: VllmProfile, last: VllmStage, batch: tuple[int, int], graphs: int
) -> int:
    """Model Runner V2's ``warmup_kernels`` peak (:mod:`planner.engines.vllm.warmup`), less the capture where the
    warm-up precedes it (from 0.30); 0 where the release does not run it as planned there."""
    weights = request.resolved_weights
    if not warms_kernels(profile.version, profile.runs_v2(request.model, weights, speculative_method(request))):
        return 0
    tokens, seqs = batch
    spec = last.spec_tokens
    rows = warmup_rows(seqs, tokens, spec, last.blocks, len(last.groups), last.block_size)
    peak = warmup_peak_bytes(request.model, rows, activation_dtype_bytes(weights), spec, profile.sampler_kind)
    return peak - graphs if warms_before_capture(profile.version) else peak
