"""What a cold torch.compile adds to vLLM's profile run: a full-size random copy of the embedding table.

From 0.22.0 vLLM turns on Inductor's combo kernels with ``benchmark_combo_kernel`` (rule
``compile_benchmarks_inputs``, ``versions.toml``). While it compiles a graph, Inductor then times each kernel of a
group of independent nodes on the GPU (``torch/_inductor/scheduler.py`` ``Scheduler.create_combo_kernel_nodes`` ->
``speedup_by_combo_kernel`` -> ``benchmark_fused_nodes``), on inputs its benchmark module makes at full size
(``torch/_inductor/codegen/triton.py`` ``codegen_kernel_benchmark``: ``get_args()`` is ``rand_strided`` of every
buffer the kernel reads, graph inputs such as weights included). The embedding gather reads only graph inputs, so it
is in the first such group, and its random table is the largest input any kernel has: vocab x hidden in the model's
dtype. vLLM compiles on the profile run's first forward, inside ``memory_profiling`` (0.28.0
``v1/worker/gpu_worker.py:513-517``), whose transient is torch's peak less what torch still holds after it
(``utils/mem_utils.py:323-325``); the copy is allocated before the forward's activations and freed after the
benchmark, so the printed transient is the larger of the two.

Not on every start-up: a warm compile cache loads the compiled graph and compiles nothing ("Directly load AOT
compilation", 0.28.0 ``compilation/decorators.py:562-566``; "Directly load the compiled graph(s)",
``compilation/backends.py:293``); ``--enforce-eager`` compiles nothing; a model whose runner takes multimodal input
looks the embeddings up outside the compiled graph and passes ``inputs_embeds`` (0.28.0 ``v1/worker/gpu_model_runner.py
:3638-3675``, Model Runner V2 ``v1/worker/gpu/model_runner.py:1551-1585``); ranks after the first pipeline stage hold
no embedding. Logged: the RTX 5090 Qwen3-14B / -32B AWQ first boots print 1.46 GiB of peak activation (their table,
151,936 x 5,120 in bf16, is 1.449 GiB), the restart of the 32B that kept its cache 0.33
(``tests/engines/test_vllm_compile_copy.py``).
"""

from __future__ import annotations

from typing import Literal, NamedTuple, Protocol

from planner.core.model import ModelSpec
from planner.core.overhead import DEFAULT_HIDDEN
from planner.engines.vllm.versions import VllmRules

VOCAB_PADDING = 64  # vLLM pads the vocabulary to a multiple of 64 (0.28.0 vocab_parallel_embedding.py:32, :87-89)


class CompilingProfile(Protocol):
    """What :func:`compile_inputs` reads of a profile (:class:`planner.engines.vllm.profile.VllmProfile`)."""

    @property
    def rules(self) -> VllmRules: ...

    @property
    def compile_cache(self) -> Literal["cold", "warm"]: ...

    @property
    def enforce_eager(self) -> bool: ...

    def loads_encoder(self, model: ModelSpec) -> bool: ...


class CompileInputs(NamedTuple):
    """What decides whether the profile run compiles with the embedding table in its graph."""

    rules: VllmRules
    cold: bool  # no compile cache for this model and settings (a first boot): ``VllmProfile.compile_cache``
    enforce_eager: bool
    first_stage: bool  # the rank holds the embedding (the first pipeline stage)
    embeds_outside: bool  # the runner takes multimodal input: ``inputs_embeds`` are looked up outside the graph


def compile_copy_bytes(model: ModelSpec, tensor_parallel: int, act_bytes: int, inputs: CompileInputs) -> int:
    """The cold compile's random copy of one rank's embedding shard (vLLM's ``VocabParallelEmbedding``:
    the vocabulary padded to 64 rows, split over TP, 0.28.0 ``vocab_parallel_embedding.py:269-313``) x hidden x the
    activation dtype's bytes; 0 where no compile with the table in its graph runs (module docstring)."""
    if not inputs.rules.compile_benchmarks_inputs or not inputs.rules.v1:
        return 0
    if not inputs.cold or inputs.enforce_eager or not inputs.first_stage or inputs.embeds_outside:
        return 0
    padded = -(-model.vocab_size // VOCAB_PADDING) * VOCAB_PADDING if model.vocab_size else 0
    return padded // tensor_parallel * (model.hidden_size or DEFAULT_HIDDEN) * act_bytes


def compile_inputs(profile: CompilingProfile, model: ModelSpec, first_stage: bool) -> CompileInputs:
    """:class:`CompileInputs` of ``profile`` for ``model`` on a rank of the first stage or not: the runner takes
    multimodal input where it loads the encoder (``VllmProfile.loads_encoder``)."""
    cold = profile.compile_cache == "cold"
    return CompileInputs(profile.rules, cold, profile.enforce_eager, first_stage, profile.loads_encoder(model))
