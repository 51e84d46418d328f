"""What a vLLM profile provides to the code written beside it: the graph and held-memory mixins
(:class:`planner.engines.vllm.profile_graphs.VllmGraphs`, :class:`planner.engines.vllm.profile_held.VllmHeld`) and the
drafter's buffers (:func:`planner.engines.vllm.drafter_buffers.stage_drafter_buffers`) read these members of
:class:`planner.engines.vllm.profile.VllmProfile`, declared once here so that none of them imports the profile (which
imports them).

The settings are read-only properties: the profile's frozen pydantic fields satisfy them (a field may override a
read-only property; a plain attribute here would ask for a writable one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from planner.core.model import ModelSpec
    from planner.core.overhead import StageContext
    from planner.engines.vllm.terms import ProfileTerms
    from planner.engines.vllm.versions import VllmConstants, VllmRules


class VllmProfileView(Protocol):
    """The members of a vLLM profile its mixins and helpers read (``VllmProfile`` provides them)."""

    @property
    def max_cudagraph_capture_size(self) -> int | None:
        """``--max-cudagraph-capture-size``; None: from ``max_num_seqs``."""

    @property
    def enforce_eager(self) -> bool:
        """``--enforce-eager``: no CUDA graphs."""

    @property
    def skip_mm_profiling(self) -> bool:
        """``--skip-mm-profiling``: the tower loaded, no encoder profile."""

    @property
    def rules(self) -> VllmRules:
        """The release's rules (``versions.toml``)."""

    @property
    def is_v1(self) -> bool:
        """Whether the release runs the V1 engine."""

    @property
    def fitted(self) -> VllmConstants:
        """The fitted constants in force."""

    def runs_v2(self, model: ModelSpec, weights: str, speculative: str | None = None) -> bool:
        """Whether Model Runner V2 runs ``model``."""

    def extensible(self, runtime: str = "cuda") -> bool:
        """Whether the KV cache is the extensible one on ``runtime``."""

    def loads_encoder(self, model: ModelSpec) -> bool:
        """Whether the multimodal encoder is loaded and profiled."""

    def stage_terms(self, ctx: StageContext) -> ProfileTerms:
        """The profile run's terms on one rank of ``ctx``'s stage."""

    def batch(
        self,
        gpu_memory_bytes: int,
        gpu_name: str | None = None,
        max_model_len: int | None = None,
        model: ModelSpec | None = None,
    ) -> tuple[int, int]:
        """The batched tokens and sequences vLLM settles."""
