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

from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile
from planner.core.parallel import NODE_GPUS
from planner.deploy.offload import LLAMACPP_OUTPUT_FIRST_BUILD, llamacpp_build
from planner.deploy.options import SpeculativeOptions
from planner.engines.base import Engine, EngineReport, own_profile
from planner.engines.checkpoints import CHECKPOINT_KIND, GGUF, WeightLoading, gguf_file, with_note
from planner.engines.commands import placeholder, replicas_note
from planner.engines.first_release import model_releases
from planner.engines.llamacpp.backend import device_selector, llamacpp_backend
from planner.engines.llamacpp.logparse import parse_llamacpp
from planner.engines.llamacpp.profile import LLAMACPP_DEFAULT_BUILD, LlamacppProfile
from planner.engines.llamacpp.report import llamacpp_max_model_len, llamacpp_report, llamacpp_slots_that_fit
from planner.engines.logscan import Lines
from planner.engines.support import EngineSupport, platform_rows
from planner.engines.yarn import llamacpp_yarn_flags
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

# llama-server's flags by the build that added them (``common/arg.cpp``), so that a command is one its build parses.
# ``-fa`` took a value (on|off|auto, default auto) with the flash-attention type of late August 2025 (PR "llama: use
# max. GPU layers by default, auto -fa"; downstream syncs to b6327 of 2025-08-31 name flash_attn_type, WasmEdge's to
# b6343 "changed from bool to string"; approximate: the tag list is not in reach here); before it a bare switch, and
# after it a bare ``-fa`` takes the next argument as its value. ``--n-cpu-moe``: PR #15077, in b6089 (2025-08-04).
LLAMACPP_FA_VALUE_FIRST_BUILD = 6327
LLAMACPP_N_CPU_MOE_FIRST_BUILD = 6089
# The draft's token count: ``--draft-max`` until PR #22397 ("spec : refactor params", merged 2026-04-26), which
# removed it (llama-server exits "the argument has been removed. use --spec-draft-n-max or --spec-ngram-mod-n-max")
# for ``--spec-draft-n-max``; ``--model-draft`` and ``--cache-type-k-draft`` / ``-v-draft`` stayed as aliases of
# ``--spec-draft-model`` / ``--spec-draft-type-k`` / ``-v``. Approximate: b8925 (2026-04-24) is before the merge,
# b9464 after it; the tag list is not in reach here, so the first build after b8925 is taken. PR #23988 (b9464,
# 2026-06-01: its release notes) dropped the draft-simple type a draft model used to turn on by itself: from it
# ``--spec-type`` (default none) names it.
LLAMACPP_SPEC_DRAFT_FIRST_BUILD = 8926
LLAMACPP_SPEC_TYPE_FIRST_BUILD = 9464


def flash_attn_flag(version: str) -> str:
    """``-fa`` as the build spells flash attention on.

    >>> flash_attn_flag("b6000"), flash_attn_flag("b7470")
    ('-fa', '-fa on')
    """
    return "-fa on" if llamacpp_build(version) >= LLAMACPP_FA_VALUE_FIRST_BUILD else "-fa"


def draft_model_flags(version: str, draft: str, tokens: int) -> str:
    """The draft model and how many tokens it proposes, as the build spells them
    (:data:`LLAMACPP_SPEC_DRAFT_FIRST_BUILD`, :data:`LLAMACPP_SPEC_TYPE_FIRST_BUILD`).

    >>> draft_model_flags("b7470", "d.gguf", 4), draft_model_flags("b9849", "d.gguf", 4)
    ('--model-draft d.gguf --draft-max 4', '--spec-type draft-simple --model-draft d.gguf --spec-draft-n-max 4')
    """
    build = llamacpp_build(version)
    if build < LLAMACPP_SPEC_DRAFT_FIRST_BUILD:
        return f"--model-draft {draft} --draft-max {tokens}"
    named = "--spec-type draft-simple " if build >= LLAMACPP_SPEC_TYPE_FIRST_BUILD else ""
    return f"{named}--model-draft {draft} --spec-draft-n-max {tokens}"


def has_n_cpu_moe(profile: LlamacppProfile) -> bool:
    """Whether the planned build takes ``--n-cpu-moe`` (:data:`LLAMACPP_N_CPU_MOE_FIRST_BUILD`)."""
    return llamacpp_build(profile.engine_version) >= LLAMACPP_N_CPU_MOE_FIRST_BUILD


def machine_split_refusal(request: PlanRequest) -> str | None:
    """llama-server splits layers over the GPUs of its own machine (``--split-mode layer``); a Mac, DGX Spark or
    Strix Halo box holds one, a server :data:`planner.core.parallel.NODE_GPUS`: over more, llama.cpp needs its RPC
    backend (``rpc-server`` on each, ``--rpc``), whose network hops are not planned here. Each machine is then a
    replica of its own."""
    gpu = request.gpu
    tp, pp = request.resolved_parallelism
    if gpu is None or tp * pp == 1 or (request.deployment and request.deployment.stage_gpus):
        return None
    if gpu.one_per_machine:
        return (
            f"llama.cpp splits a model over the GPUs of one machine; {gpu.name} is one GPU a machine: over {tp * pp} "
            "of them it needs its RPC backend (rpc-server, --rpc), not planned here; plan one machine a replica"
        )
    if tp * pp > NODE_GPUS:
        return (
            f"llama.cpp splits a model over the GPUs of one machine; {tp * pp} GPUs are more than one server's "
            f"{NODE_GPUS}: across servers it needs its RPC backend (rpc-server, --rpc), not planned here; plan at most "
            f"{NODE_GPUS} GPUs a replica"
        )
    return None


LLAMACPP_SUPPORT = EngineSupport(
    label="llama.cpp",
    platforms=platform_rows("llamacpp"),
    model_releases=model_releases("llamacpp"),
    # llama-server --cache-type-k/-v (tools/server/README.md): f32, f16, bf16, q8_0, q4_0, ...; 16-bit caches are
    # its default f16 (same size).
    kv_cache_names={"bf16": "f16", "fp16": "f16", "fp32": "f32", "int8": "q8_0", "int4": "q4_0"},
    kv_refusals={
        kv: "llama.cpp has no FP8 KV cache; its 8-bit cache is q8_0 (int8 here, 8.5 bits a value)"
        for kv in ("fp8", "fp8_e4m3", "fp8_e5m2")
    },
    weight_refusals={
        "int4": "llama.cpp has no plain 4-bit weights; the nearest GGUF types are Q4_0 (4.5 bits) and Q4_K_M",
        "fp8": "llama.cpp has no FP8 weights; the nearest GGUF type is Q8_0",
        "int8": "llama.cpp has no W8A8 weights; the nearest GGUF type is Q8_0",
        "int4-awq": "llama.cpp does not load AWQ checkpoints; the nearest GGUF type is Q4_K_M",
        "int4-gptq": "llama.cpp does not load GPTQ checkpoints; the nearest GGUF type is Q4_K_M",
        "int4-g32": "llama.cpp does not load compressed-tensors checkpoints; the nearest GGUF type is Q4_K_M",
        "nvfp4": "llama.cpp has no NVFP4 weights; the nearest GGUF type is Q4_K_M",
    },
    parallelism="layer-split",  # --split-mode layer (default): whole layers per device, run one after another
    context_flag="-c",  # the whole context, split over -np slots
    layer_offload_flags=("-ngl", "--n-cpu-moe"),
    speculative_methods=("draft",),  # llama-server --model-draft
    stage_split="tensor-split",
    speed_family="layer-split",
    advised_max_users=4,
    advised_max_users_reason=(
        "its slots each hold a fixed share of the context (-c split over -np), its layer split runs the GPUs one "
        "after another, and it has no paged KV pool that lets conversations share memory"
    ),
)


def quantized_v_refusal(request: PlanRequest) -> str | None:
    """A block-quantized V cache (q8_0, q4_0) with flash attention off: llama.cpp ``src/llama-context.cpp``
    ``llama_init_from_model`` logs "quantized V cache requires flash_attn to be enabled" and returns no context
    (flash attention on auto is turned on for it; the constructor throws "quantized V cache was requested, but this
    requires Flash Attention"; older builds: "V cache quantization requires flash_attn"): without flash attention
    the V cache is stored transposed, one value a row, which a 32-value block cannot hold."""
    profile = request.overhead
    if not isinstance(profile, LlamacppProfile) or profile.flash_attn:
        return None
    cache = profile.for_kv_dtype(request.resolved_kv_dtype).cache_type_v
    if cache not in ("q8_0", "q4_0"):
        return None
    return (
        f"llama.cpp quantizes the V cache ({cache}) only with flash attention on (src/llama-context.cpp: "
        "'quantized V cache requires flash_attn'): turn flash attention on (-fa on) or keep an f16 cache"
    )


class LlamacppEngine(Engine):
    name: ClassVar[str] = "llamacpp"
    label: ClassVar[str] = "llama.cpp"
    description: ClassVar[str] = "llama.cpp: contiguous KV for the whole context, compute buffers"
    report_terms: ClassVar[tuple[str, str]] = ("Compute buffers", "CUDA context")
    profile_type: ClassVar[type[EngineProfile]] = LlamacppProfile
    fraction_flag: ClassVar[str | None] = None
    default_fraction: ClassVar[float | None] = None
    fixed_slots: ClassVar[bool] = True
    log_hint: ClassVar[str] = "'CUDA0 KV buffer size = X MiB'"
    full_pool_behaviour: ClassVar[str] = (
        "llama-server splits its context (-c) into fixed slots (-np): each conversation owns ctx/np tokens and "
        "cannot borrow from another, so the pool never overflows as a whole. A conversation that reaches its slot "
        "size is stopped (or, with context shift on, loses its oldest tokens); requests beyond the number of slots "
        "wait for a free one. It plans for the maximum by construction and pays for it in idle memory."
    )

    setting_fields: ClassVar[dict[str, str]] = {}  # no memory fraction: -c and -np size the cache
    # its slots (the conversations run at once) are -np, which for_users sets from the target users
    setting_counterparts: ClassVar[dict[str, str]] = {"max_num_seqs": "-np"}
    running_flag: ClassVar[str] = "-np"
    support: ClassVar[EngineSupport] = LLAMACPP_SUPPORT

    def kv_cache_flags(self, kv_dtype: str) -> tuple[str, ...]:
        cache = self.support.kv_cache_names.get(kv_dtype, "f16")
        return () if cache == "f16" else ("--cache-type-k", cache, "--cache-type-v", cache)

    def weight_loading(self, model: ModelSpec, weights: str) -> WeightLoading:
        """llama.cpp loads GGUF files only: a 16-bit checkpoint is converted, a GGUF type downloaded or quantized."""
        if weights in GGUF:
            return WeightLoading(
                model_argument=gguf_file(model, weights.upper()),
                flags="",
                note=f"{CHECKPOINT_KIND[weights]} of {model.id}",
                supported=True,
            )
        if weights in ("bf16", "fp16", "fp32"):
            outtype = {"bf16": "bf16", "fp16": "f16", "fp32": "f32"}[weights]
            name = gguf_file(model, outtype.upper())
            note = f"convert the checkpoint with llama.cpp's convert_hf_to_gguf.py --outtype {outtype} to {name}"
            return WeightLoading(model_argument=name, flags="", note=note, supported=True)
        if weights == "mxfp4":  # gpt-oss: its GGUF keeps the MXFP4 experts (ggml type MXFP4, PR 15091)
            name = gguf_file(model, "MXFP4")
            note = (
                f"an MXFP4 GGUF of {model.id} (ggml-org publishes gpt-oss's; convert_hf_to_gguf.py keeps the "
                f"MXFP4 experts) saved as {name}"
            )
            return WeightLoading(model_argument=name, flags="", note=note, supported=True)
        loading = super().weight_loading(model, weights)
        if loading.supported:
            return loading
        # -m takes a local GGUF file: a format it has no GGUF of keeps a placeholder, not the repository id
        return loading.model_copy(update={"model_argument": placeholder(f"a GGUF file of {model.id}")})

    def parse_log(self, lines: Lines) -> dict[str, object] | None:
        return parse_llamacpp(lines)

    def releases(self) -> tuple[str, ...]:
        """The older logs' build, the first the planner plans differently (:data:`planner.deploy.offload.
        LLAMACPP_OUTPUT_FIRST_BUILD`: the output layer on the GPU first), which also takes ``-fa on`` and
        ``--n-cpu-moe``, and the default, the newest build with a public log (:data:`LLAMACPP_DEFAULT_BUILD`)."""
        return ("b6000", f"b{LLAMACPP_OUTPUT_FIRST_BUILD}", LLAMACPP_DEFAULT_BUILD)

    def refusal(self, request: PlanRequest) -> str | None:
        """:meth:`Engine.refusal`, ``--n-cpu-moe`` on a build before it (:data:`LLAMACPP_N_CPU_MOE_FIRST_BUILD`),
        a layer split over machines of one GPU each (:func:`machine_split_refusal`) and a quantized V cache without
        flash attention (:func:`quantized_v_refusal`)."""
        found = super().refusal(request) or machine_split_refusal(request) or quantized_v_refusal(request)
        options, profile = request.deployment, request.overhead
        moe_offload = options is not None and options.cpu_moe_layers > 0
        if found is None and moe_offload and isinstance(profile, LlamacppProfile) and not has_n_cpu_moe(profile):
            return (
                f"llama.cpp {profile.engine_version} has no --n-cpu-moe (it came with "
                f"b{LLAMACPP_N_CPU_MOE_FIRST_BUILD}); its -ot / --override-tensor keeps expert tensors on the CPU"
            )
        return found

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

    def slots_room(self, request: PlanRequest, result: PlanResult, profile: EngineProfile, most: int) -> int | None:
        """The most ``-np`` slots, up to ``most``, that fit (:func:`llamacpp_slots_that_fit`)."""
        return llamacpp_slots_that_fit(
            request, result, self._own(profile).model_copy(update={"n_parallel": None}), most
        )

    def speculative_flags(self, spec: SpeculativeOptions, request: PlanRequest, result: PlanResult) -> list[str]:
        """llama-server's draft model (``--model-draft``, its GGUF at the planned weight type), how many tokens it
        proposes (``--draft-max``; later builds: :func:`draft_model_flags`) and, with a quantized cache, the draft's
        cache type (``--cache-type-k-draft`` /
        ``-v-draft``, f16 by default) set to the target's, as planned (ggml-org/llama.cpp ``tools/server/README.md``,
        ``common/arg.cpp``)."""
        if spec.draft_model is None:
            return []  # a draft model is the only method llama.cpp runs (support.speculative_methods)
        draft = self.weight_loading(spec.draft_model, result.weights).model_argument
        version = self.planned_version(request) or LLAMACPP_DEFAULT_BUILD
        flags = draft_model_flags(version, draft, spec.num_speculative_tokens)
        cache = LLAMACPP_SUPPORT.kv_cache_names.get(request.resolved_kv_dtype, "f16")
        if cache != "f16":  # the draft's cache is f16 unless told (common/arg.cpp); the plan gives it the target's
            flags += f" --cache-type-k-draft {cache} --cache-type-v-draft {cache}"
        return [flags]

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        lc = self._own(profile)
        tp, pp = result.tensor_parallel, result.pipeline_parallel
        ngl = 99 if lc.n_gpu_layers is None else lc.n_gpu_layers
        loading = self.weight_loading(request.model, result.weights)
        kv_flags = "".join(f" {flag}" for flag in self.kv_cache_flags(result.kv_dtype))
        command = (
            f"llama-server -m {loading.model_argument} -c {result.max_model_len * lc.slots}"
            f" -np {lc.slots} -ngl {ngl}{' -kvu' if lc.kv_unified else ''}"
            f"{' ' + flash_attn_flag(lc.engine_version) if lc.flash_attn else ''}{kv_flags}"
            f"{llamacpp_yarn_flags(request.model)}"
        )
        if tp > 1 or pp > 1:
            command += f" --split-mode layer --tensor-split {','.join(['1'] * (tp * pp))}"
        command = with_note(command, loading)
        if result.replicas == 1:
            return command
        why = "llama-server serves one replica a process"
        return replicas_note(why, result.replicas, tp * pp, device_selector(llamacpp_backend(request.gpu))) + command

    def context_limit_words(self) -> str:
        return "context per slot (`-c` ÷ `-np`)"

    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        return llamacpp_max_model_len(request, result, self._own(profile))


ENGINE = LlamacppEngine()
