"""llama.cpp (``llama-server``): no memory fraction; the KV cache for ``n_ctx`` tokens is allocated at load,
split over ``--parallel`` slots; ``-ngl`` layers live on the GPU, the rest (weights and their KV) in system RAM.

Source: ``src/llama-kv-cache.cpp`` (``llama_kv_cache``, ``llama_kv_cache_iswa``), ``src/llama-context.cpp``
(``n_ctx`` padding; ``n_ctx_seq = n_ctx / n_seq_max`` unless ``kv_unified``), ``ggml/src/ggml-common.h`` (cache
type block sizes). Current builds keep ``kv_unified`` false by default, so each of the ``-np`` slots gets its own
KV stream of ``n_ctx / np`` cells, padded to 256 (a b10644 launch prints ``n_seq_max = 4``, ``n_ctx = 8192``,
``n_ctx_seq = 2048``, ``kv_unified = false``; public test fixture, find_string id 70266260822); with
``--kv-unified`` (``-kvu``) the slots share one stream of the padded ``n_ctx``.
"""

from __future__ import annotations

from typing import ClassVar

from planner.core.overhead import EngineProfile
from planner.engines.base import Engine, EngineReport, own_profile
from planner.engines.checkpoints import weight_loading, with_note
from planner.engines.llamacpp.profile import LLAMACPP_CACHE_NAMES, LlamacppProfile
from planner.engines.llamacpp.report import llamacpp_max_model_len, llamacpp_report, llamacpp_slots_that_fit
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult


class LlamacppEngine(Engine):
    name: ClassVar[str] = "llamacpp"
    label: ClassVar[str] = "llama.cpp"
    description: ClassVar[str] = "llama.cpp: contiguous KV for the whole context, compute buffers"
    profile_type: ClassVar[type[EngineProfile]] = LlamacppProfile
    fraction_flag: ClassVar[str | None] = None
    default_fraction: ClassVar[float | None] = None
    fixed_slots: ClassVar[bool] = True
    full_pool_behaviour: ClassVar[str] = (
        "llama-server splits its context (-c) into fixed slots (-np): each conversation owns ctx/np tokens and "
        "cannot borrow from another, so the pool never overflows as a whole. A conversation that reaches its slot "
        "size is stopped (or, with context shift on, loses its oldest tokens); requests beyond the number of slots "
        "wait for a free one. It plans for the maximum by construction and pays for it in idle memory."
    )

    def profile(
        self,
        *,
        fraction: float | None = None,
        version: str | None = None,
        max_num_batched_tokens: int | None = None,
    ) -> EngineProfile:
        return LlamacppProfile.model_validate({"engine_version": version} if version else {})

    def _own(self, profile: EngineProfile | None) -> LlamacppProfile:
        return own_profile(profile, LlamacppProfile, "a llama.cpp profile")

    def for_users(
        self, request: PlanRequest, result: PlanResult, profile: EngineProfile, users_per_replica: int
    ) -> EngineProfile:
        """``-np``: one slot per target user, or the most that fit (each slot holds ``-c / -np`` tokens; the KV
        of all of them is allocated at start). Without ``-np`` llama-server starts one slot, or in builds since
        late 2025 four sharing one context (ggml-org/llama.cpp#16736, #17300): neither is sized for a target."""
        lc = self._own(profile)
        if lc.n_parallel is not None:
            return lc
        return lc.model_copy(update={"n_parallel": llamacpp_slots_that_fit(request, result, lc, users_per_replica)})

    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        return llamacpp_report(request, result, self._own(profile))

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        lc = self._own(profile)
        tp, pp = result.tensor_parallel, result.pipeline_parallel
        ngl = 99 if lc.n_gpu_layers is None else lc.n_gpu_layers
        loading = weight_loading(self.name, request.model, result.weights)
        cache = LLAMACPP_CACHE_NAMES.get(result.kv_dtype, "f16")
        kv_flags = "" if cache == "f16" else f" --cache-type-k {cache} --cache-type-v {cache}"
        command = (
            f"llama-server -m {loading.model_argument} -c {result.max_model_len * lc.slots}"
            f" -np {lc.slots} -ngl {ngl}{' -kvu' if lc.kv_unified else ''}"
            f"{' -fa on' if lc.flash_attn else ''}{kv_flags}"
        )
        if tp > 1 or pp > 1:
            command += f" --split-mode layer --tensor-split {','.join(['1'] * (tp * pp))}"
        return with_note(command, loading)

    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        return llamacpp_max_model_len(request, result, self._own(profile))


ENGINE = LlamacppEngine()
