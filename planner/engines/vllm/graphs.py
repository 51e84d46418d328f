"""The CUDA graphs vLLM captures and what its profiler estimates they take.

Capture sizes (``VllmConfig._set_cudagraph_sizes``, 0.24.0 ``config/vllm.py:1635-1790``): unless
``--max-cudagraph-capture-size`` is set, the largest size is ``min(max_num_seqs x (1 + k) x 2, 512)`` (``k``
speculative tokens; 1024 on compute capability 10 from 0.28.0, rule ``capture_cap_sm100``), capped by
``max_num_batched_tokens``; the sizes are ``[1, 2, 4] + 8..248 by 8 + 256.. by 16`` up to it, plus
``max_num_batched_tokens`` when it fits. From 0.29.0, with speculative decoding, every request count of the same
grid (and ``max_num_seqs`` itself) times ``1 + k`` is added (rule ``spec_capture_grid``, 0.29.0 ``:2002-2090``).

Which graphs (``v1/cudagraph_dispatcher.py`` ``initialize_cudagraph_keys``, 0.24.0 ``:166-233``): the default
mode FULL_AND_PIECEWISE captures a PIECEWISE graph of every size and a FULL decode graph of every size from
``1 + k`` to ``(1 + k) x max_num_seqs``; with speculative decoding and FULL graphs every size is first rounded up
to a multiple of ``1 + k`` (``config/compilation.py`` ``adjust_cudagraph_sizes_for_spec_decode``; club-3090 issue
#434: "PIECEWISE=3 (largest=16), FULL=2 (largest=8)" for 2 sequences and MTP 3). FlashInfer without TRT-LLM
attention (off compute capability 10) supports FULL graphs only for single-token decodes, so with speculative
decoding the mode drops to PIECEWISE ("CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for
FlashInferBackend; setting cudagraph_mode=PIECEWISE", GB10 and 4 x RTX 3090 logs). ``--enforce-eager`` captures none.

The estimate (``GPUModelRunner.profile_cudagraph_memory``, 0.24.0 ``v1/worker/gpu_model_runner.py:6447-6560``)
captures the two largest graphs of each mode into a scratch pool: ``first capture + per graph x (n - 1)`` per mode,
the first capture counted once. The planner's form: ``first = base + a x layers`` and ``per graph = b x layers``
(each captured graph holds one piece per layer), ``base``, ``a`` and ``b`` fitted by ``make calibrate`` to the
printed "Estimated CUDA graph memory" lines (H100 at 51 + 51 graphs, RTX 3090 / 5090 at 5 to 9). FULL graphs
through FlashInfer off compute capability 10 hold its decode wrapper's float workspace in FULL's first capture
(:data:`FLASHINFER_WORKSPACE_BYTES`), which the estimate takes by the larger of the modes' first captures.

With LoRA on, every size of each mode is captured for each LoRA case, ``[0, max_loras + 1]`` active adapters
(``cudagraph_specialize_lora``, default True, without ``--specialize-active-lora``; 0.27.1
``v1/cudagraph_dispatcher.py:111-130``, ``:181-233``, ``v1/worker/gpu/lora_utils.py:20-36``, ``lora/utils.py:49-64``):
twice the graphs, in the capture and in the V1 profiler's estimate (rules ``lora_graph_cases``, V1 from 0.11.1, and
``lora_graph_cases_v2``, Model Runner V2 from 0.24.0; :func:`lora_graph_cases`).
"""

from __future__ import annotations

import math
from functools import lru_cache

from planner.bounds.hashing import HashedOnce
from planner.engines.vllm.versions import VllmRules

MIN_PER_GRAPH = 1 << 20  # "Use at least 1 MiB per graph for driver overhead" (gpu_model_runner.py:6531)
# FlashInfer's float workspace, VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE's default (0.27.1 envs.py:205, :1667-1669; the
# same in 0.22.0 - 0.30.0). Off compute capability 10 its own decode wrapper serves FULL decode graphs on the metadata
# builder's workspace, allocated at the builder's first build (v1/attention/backends/flashinfer.py:938-961,
# :1013-1036, :1476-1485), which the profiler's first FULL capture makes (force_attention for FULL,
# v1/worker/gpu_model_runner.py:6013-6068) and reads from the free memory around it (:6730-6746); PIECEWISE graphs
# build no attention metadata. From 0.27 the workspace grows past 394 MiB when max_num_batched_tokens x query heads x
# head size x 16 bytes does (flashinfer.py:938-961), not planned: at the 2,048 batched tokens of cards under 70 GiB it
# stays below for every head layout up to 12,608 query-head dimensions.
FLASHINFER_WORKSPACE_BYTES = 394 * 1024 * 1024


class GraphSet(HashedOnce, frozen=True, extra="forbid"):
    """The capture sizes and how many graphs of each mode one rank captures."""

    sizes: tuple[int, ...] = ()
    full: int = 0
    piecewise: int = 0
    mode: str = "NONE"
    full_largest: int = 0  # tokens of the largest FULL graph (planner.engines.vllm.split_accum)
    hip: bool = False  # captured by HIP on a CDNA 3 device: each graph costs what planner.engines.vllm.hip_graphs says
    flashinfer_workspace: bool = False  # FULL graphs on FlashInfer's own decode wrapper (FLASHINFER_WORKSPACE_BYTES)
    lora_active: int = 0  # graphs captured with adapters active (planner.engines.vllm.lora_graphs)
    sm100: bool = False  # captured on compute capability 10.x: the estimate's fitted per-graph cost there (VllmGraphs)

    @property
    def total(self) -> int:
        return self.full + self.piecewise

    @property
    def extra_graphs(self) -> int:
        """Graphs beyond the first of each mode (what the per-graph estimate multiplies)."""
        return max(0, self.full - 1) + max(0, self.piecewise - 1)


def lora_graph_cases(rules: VllmRules, lora: bool, v2: bool) -> int:
    """The LoRA cases each size is captured for (module docstring): 2 with adapters where the runner (``v2``: Model
    Runner V2) keys its graphs by them, else 1."""
    keyed = rules.lora_graph_cases_v2 if v2 else rules.lora_graph_cases
    return 2 if lora and keyed else 1


def _grid(limit: int) -> list[int]:
    sizes = [n for n in (1, 2, 4) if n <= limit]
    if limit >= 8:
        sizes += list(range(8, min(limit + 1, 256), 8))
    if limit >= 256:
        sizes += list(range(256, limit + 1, 16))
    return sizes


def capture_sizes(
    rules: VllmRules, max_num_seqs: int, spec_tokens: int, batched: int, max_capture: int | None, sm100: bool
) -> tuple[int, ...]:
    """The capture sizes of one release (module docstring)."""
    query = 1 + spec_tokens
    ceiling = rules.capture_cap_sm100 if sm100 else 512
    limit = max_capture if max_capture is not None else min(max_num_seqs * query * 2, ceiling)
    uniform: set[int] = set()
    if max_capture is None and query > 1 and rules.spec_capture_grid == "requests":
        reqs = min(max_num_seqs, ceiling)
        counts = set(_grid(reqs)) | {reqs}
        uniform = {n * query for n in counts if n * query <= limit}
    limit = min(batched, limit)
    sizes = set(_grid(limit))
    if batched <= limit:
        sizes.add(batched)
    sizes |= {s for s in uniform if s <= batched}
    return tuple(sorted(sizes))


@lru_cache(maxsize=1024)  # pure in its few small arguments (none is a model or a length); asked per stage of a plan
def graph_set(
    rules: VllmRules,
    *,
    max_num_seqs: int,
    spec_tokens: int,
    batched: int,
    max_capture: int | None,
    sm100: bool,
    flashinfer: bool,
    enforce_eager: bool,
    hip: bool = False,
    lora_cases: int = 1,
) -> GraphSet:
    """The graphs one rank captures (module docstring; ``hip``: on a CDNA 3 device, :attr:`GraphSet.hip`; each size
    ``lora_cases`` times, :func:`lora_graph_cases`, all but one with adapters active)."""
    if enforce_eager:
        return GraphSet()
    sizes = capture_sizes(rules, max_num_seqs, spec_tokens, batched, max_capture, sm100)
    query = 1 + spec_tokens
    piecewise_only = spec_tokens > 0 and flashinfer and not sm100
    active = lora_cases - 1  # every LoRA case but the one of none
    if piecewise_only:
        pieces = len(sizes)
        return GraphSet(
            sizes=sizes, piecewise=pieces * lora_cases, mode="PIECEWISE", hip=hip, lora_active=pieces * active
        )
    if query > 1 and rules.spec_capture_grid == "tokens":  # adjust_cudagraph_sizes_for_spec_decode
        rounded = {math.ceil(size / query) * query for size in sizes}
        sizes = tuple(sorted(size for size in rounded if size <= sizes[-1]))
    decode = [s for s in sizes if query <= s <= query * max_num_seqs]
    top = max(decode, default=0)
    workspace = flashinfer and not sm100 and bool(decode)
    return GraphSet(
        sizes=sizes,
        full=len(decode) * lora_cases,
        piecewise=len(sizes) * lora_cases,
        mode="FULL_AND_PIECEWISE",
        full_largest=top,
        hip=hip,
        flashinfer_workspace=workspace,
        lora_active=(len(decode) + len(sizes)) * active,
        sm100=sm100,
    )


def graph_estimate_bytes(graphs: GraphSet, layers: int, base: int, first_per_layer: int, per_graph_layer: int) -> int:
    """``largest first capture + per graph x (n - 1)`` per mode for a rank with ``layers`` decoder layers (0 when
    nothing is captured). Where FlashInfer's decode wrapper serves the FULL graphs, FULL's first capture is its
    workspace and one graph, taken against the fitted shared first capture by the larger, not added to it: the
    estimate is ``max(first captures) + sum(per graph x (n - 1))`` (0.22.0 ``v1/worker/gpu_model_runner.py:6359-6364``,
    the same in 0.24.0 - 0.31.0), PIECEWISE captured first (``v1/cudagraph_dispatcher.py:330-337``)."""
    if graphs.total == 0:
        return 0
    per_graph = max(MIN_PER_GRAPH, per_graph_layer * layers)
    first = max(0, base + first_per_layer * layers)
    if graphs.flashinfer_workspace:
        first = max(first, FLASHINFER_WORKSPACE_BYTES + per_graph)
    return first + per_graph * graphs.extra_graphs


def graph_capture_total_bytes(
    graphs: GraphSet, layers: int, base: int, first_per_layer: int, per_graph_layer: int
) -> int:
    """What the capture after KV sizing takes: ``first capture + per graph x (n - 1)`` for a rank with ``layers``
    decoder layers, plus FlashInfer's decode workspace where it serves the FULL graphs (0 when nothing is captured).
    The capture is one drop of free memory over every mode's graphs (0.22.0 ``v1/worker/gpu_model_runner.py``
    :6416-6436), so the workspace the first FULL capture allocates adds to the graphs' pool rather than overlaying
    it as in the estimate's per-mode samples (:func:`graph_estimate_bytes`)."""
    if graphs.total == 0:
        return 0
    per_graph = max(MIN_PER_GRAPH, per_graph_layer * layers)
    workspace = FLASHINFER_WORKSPACE_BYTES if graphs.flashinfer_workspace else 0
    return max(0, base + first_per_layer * layers + per_graph * graphs.extra_graphs) + workspace
