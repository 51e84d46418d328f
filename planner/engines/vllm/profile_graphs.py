"""The CUDA graphs of a vLLM profile (:class:`planner.engines.vllm.profile.VllmProfile` takes these methods from
:class:`VllmGraphs`): which graphs a rank captures at the profile's settings (:mod:`planner.engines.vllm.graphs`) and
what the fitted constants say they take, estimated by the profiler and captured after KV sizing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.core.platform import DevicePlatform
from planner.core.units import GiB
from planner.engines.platform import platform_of
from planner.engines.vllm.graphs import (
    GraphSet,
    graph_capture_total_bytes,
    graph_estimate_bytes,
    graph_set,
    lora_graph_cases,
)
from planner.engines.vllm.hip_graphs import hip_graph_bytes
from planner.engines.vllm.lora_graphs import lora_graph_bytes, lora_graph_kernels
from planner.engines.vllm.split_accum import split_accum_bytes

if TYPE_CHECKING:
    from planner.core.model import ModelSpec
    from planner.core.overhead import StageContext
    from planner.engines.platform import VllmPlatform
    from planner.engines.vllm.profile_view import VllmProfileView as _Profile
    from planner.engines.vllm.versions import VllmConstants
else:
    _Profile = object  # the protocol types the mixin; at run time VllmProfile provides its members


class VllmGraphs(_Profile):
    """The graph methods of a vLLM profile, reading its release's rules, its graph settings and its fitted constants."""

    __slots__ = ()

    def lora_wraps_vocabulary(self) -> bool:
        """Rule ``lora_vocab_wrappers`` (kept here: planner.deploy.lora.vocab_slot_bytes)."""
        return self.rules.lora_vocab_wrappers

    def graphs(
        self,
        seqs: int,
        batched: int,
        spec_tokens: int = 0,
        sm100: bool = False,
        flashinfer: bool = False,
        hip: bool = False,
        lora_cases: int = 1,
    ) -> GraphSet:
        """The CUDA graphs one rank captures (:mod:`planner.engines.vllm.graphs`; ``hip``: on a CDNA 3 device; each
        size for ``lora_cases`` LoRA cases)."""
        return graph_set(
            self.rules,
            max_num_seqs=seqs,
            spec_tokens=spec_tokens,
            batched=batched,
            max_capture=self.max_cudagraph_capture_size,
            sm100=sm100,
            flashinfer=flashinfer,
            enforce_eager=self.enforce_eager or not self.is_v1,
            hip=hip,
            lora_cases=lora_cases,
        )

    def lora_cases(self, lora: bool, model: ModelSpec, weights: str, speculative: str | None = None) -> int:
        """The LoRA cases each graph size is captured for, with adapters served or not (``lora``), on the runner
        ``model`` in ``weights`` takes (:func:`planner.engines.vllm.graphs.lora_graph_cases`)."""
        return lora_graph_cases(self.rules, lora, lora and self.runs_v2(model, weights, speculative))

    def default_graphs(
        self,
        total: int,
        gpu_name: str | None,
        device: DevicePlatform | None = None,
        kv: str = "auto",
        drafted: int = 0,
        sinks: bool = False,
        lora_cases: int = 1,
    ) -> GraphSet:
        """The graphs a rank of a ``total``-byte device captures at this profile's batch settings: on ``device``
        (``None``: a datacenter one) with a ``kv`` cache (FlashInfer's graphs where it serves it,
        :meth:`VllmPlatform.attention_backend`, which a model with attention ``sinks`` may not take) and ``drafted``
        tokens proposed per step, each size for ``lora_cases`` LoRA cases."""
        batched, seqs = self.batch(total, gpu_name)
        platform = platform_of(device)
        flashinfer = platform.attention_backend(kv.startswith("fp8"), sinks) == "flashinfer"
        return self.graphs(seqs, batched, drafted, platform.sm100_family, flashinfer, platform.cdna3, lora_cases)

    def context_graphs(self, ctx: StageContext) -> GraphSet:
        """:meth:`default_graphs` of the rank ``ctx`` describes."""
        kv, drafted, sinks = ctx.kv_dtype, ctx.speculative_tokens, ctx.model.attention_sinks
        cases = self.lora_cases(ctx.lora, ctx.model, ctx.weights_format, ctx.speculative_method)
        return self.default_graphs(ctx.gpu_memory_bytes, ctx.gpu_name, ctx.platform, kv, drafted, sinks, cases)

    def cudagraph_estimate_bytes(self, layers: int, graphs: GraphSet | None = None) -> int:
        """What vLLM's CUDA-graph profiling estimates for a rank with ``layers`` decoder layers capturing
        ``graphs`` (fitted to the printed "Estimated CUDA graph memory"; None: the graphs of an 80 GiB device at
        this profile's settings); subtracted from the budget when :attr:`cudagraph_in_budget`. On a CDNA 3 device,
        HIP's fitted cost per graph captured where one was fitted (:mod:`planner.engines.vllm.hip_graphs`); on
        compute capability 10.x the per-graph cost fitted on the estimates printed there (``graph_estimate_sm100``,
        ``bench/calibrate_graphs.py`` ``sm100_graph_fit``: the B300 Gemma 4 31B start-up's 0.76 GiB at 51 + 51
        graphs; vLLM's profiler has no device branch, 0.26.0 ``v1/worker/gpu_model_runner.py:6660-6680``, so a
        graph's cost is the driver's and the attention kernels')."""
        c = self.fitted
        graphs = graphs if graphs is not None else self.default_graphs(80 * GiB, None)
        if graphs.hip and c.hip_graph_bytes:
            return hip_graph_bytes(graphs, layers, c.hip_graph_bytes)
        per_graph = (
            c.graph_estimate_sm100 if graphs.sm100 and c.graph_estimate_sm100 else c.graph_estimate_per_graph_layer
        )
        return graph_estimate_bytes(graphs, layers, c.graph_estimate_base, c.graph_estimate_per_layer, per_graph)

    def cudagraph_capture_bytes(self, layers: int, graphs: GraphSet | None = None, split: int = 0) -> int:
        """What capturing the graphs takes after KV sizing ("Graph capturing finished ... took X GiB"; ``graphs``
        as for :meth:`cudagraph_estimate_bytes`): the fitted graph terms plus ``split``, FlashAttention 3's
        split-KV accumulators the FULL graphs' pool holds on Hopper (:mod:`planner.engines.vllm.split_accum`); on a
        CDNA 3 device HIP's fitted cost per graph captured instead of the graph terms."""
        c = self.fitted
        graphs = graphs if graphs is not None else self.default_graphs(80 * GiB, None)
        if graphs.hip and c.hip_graph_capture_bytes:
            return hip_graph_bytes(graphs, layers, c.hip_graph_capture_bytes) + split
        fitted = graph_capture_total_bytes(
            graphs, layers, c.graph_capture_base, c.graph_capture_per_layer, c.graph_capture_per_graph_layer
        )
        return fitted + split if graphs.total else 0

    def rank_capture_bytes(
        self, layers: int, graphs: GraphSet, model: ModelSpec, tp: int, platform: VllmPlatform, kv_dtype: str
    ) -> int:
        """:meth:`cudagraph_capture_bytes` of a rank of ``tp`` serving ``model`` on ``platform``: with FlashAttention
        3's split-KV accumulators where that rank runs them (:func:`split_accum_bytes`), on compute capability 9.x
        what the Hopper capture lines hold beyond the others' base (:func:`hopper_capture_bytes`), and the LoRA
        kernels of the graphs captured with adapters active (:mod:`planner.engines.vllm.lora_graphs`)."""
        split = split_accum_bytes(model, tp, platform, graphs, kv_dtype)
        lora = lora_graph_bytes(graphs, lora_graph_kernels(model, layers)) if graphs.lora_active else 0
        return self.cudagraph_capture_bytes(
            layers, graphs, split + hopper_capture_bytes(self.fitted, graphs, platform) + lora
        )


def hopper_capture_bytes(constants: VllmConstants, graphs: GraphSet, platform: VllmPlatform) -> int:
    """The fitted ``graph_capture_hopper`` where a CUDA device of compute capability 9.x captures graphs, else 0.

    Every capture line fitted before 0.27 but one is an H100's, all at the same 51 + 51 graphs, so their base and
    their per-graph cost are one intercept; the capture lines of other cards (RTX 3090 / 4090 / 5090, RTX PRO 6000,
    L4, A100, an A10-class 8.6 card; FlashAttention 2 on 8.x and 12.x, 0.27.1 ``v1/attention/backends/fa_utils.py
    :163-171``) print ~0.3 GiB less at the same graph counts, and 0.08-0.14 GiB with 3 to 11 graphs. Where the source
    differs for Hopper, FlashAttention 3 (``_cudagraph_support`` ALWAYS against UNIFORM_BATCH, ahead-of-time
    scheduling and 32 fixed splits with FULL graphs, 0.27.1 ``flash_attn.py:352-356``, ``:389-431``), the split
    accumulators are planned (:mod:`planner.engines.vllm.split_accum`) and the scheduler metadata is ``1 + 4 x
    round_up(batch, 4)`` int32 (``:421-425``, a few KiB); the rest is fitted (``bench/calibrate_graphs.py``), kept on
    every Hopper rank that captures (MLA models too: their H100 lines print more still)."""
    capability = platform.capability
    hopper = capability is not None and capability[0] == 9 and not graphs.hip
    return constants.graph_capture_hopper if hopper and graphs.total else 0
