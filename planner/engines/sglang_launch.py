"""SGLang's launch: the server command a plan is started with (:func:`server_command`), and what SGLang says at
launch about its own settings (:mod:`planner.engines.sglang`'s report adds these lines and notes): the warning for
a ``--max-total-tokens`` above the profiled pool, and what ``--disable-cuda-graph`` frees release by release
(:func:`planner.engines.sglang_rules.reserved_mb`)."""

from __future__ import annotations

from typing import Protocol

from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile
from planner.deploy.options import SpeculativeOptions
from planner.engines.base import Engine
from planner.engines.checkpoints import with_note
from planner.engines.commands import speculative_head, word
from planner.engines.sglang_rules import FractionInputs, reserved_mb, sglang_defaults
from planner.engines.yarn import sglang_yarn_flags
from planner.planning.request import PlanRequest
from planner.planning.results import PlanResult

# --enable-dp-attention: attention (and the embedding) at attn_tp = tp / dp, a rank a GPU at --dp = --tp; the MoE
# layers (routed and shared experts), the dense MLP layers and the vocabulary-parallel lm_head keep the whole --tp
# group (srt/layers/dp_attention.py compute_dp_attention_world_info; srt/models/deepseek_v2.py)
DP_ATTENTION_SPREAD = frozenset({"experts", "dense_mlp", "lm_head"})


def server_command(engine: Engine, request: PlanRequest, result: PlanResult, sg: EngineProfile, fraction: float) -> str:
    """``python -m sglang.launch_server`` for the plan: ``--tp`` a replica's TP, ``--dp`` its replicas (whole copies,
    SGLang's data-parallel controller), or with data-parallel attention ``--tp`` every GPU of the stage and ``--dp``
    its ranks (attention TP = tp / dp); the settings given under SGLang's names in the planned release."""
    tp, pp, dp = result.tensor_parallel, result.pipeline_parallel, result.replicas
    version = str(sg.engine_version)
    loading = engine.weight_loading(request.model, result.weights)
    dp_attention = sg.attends_per_gpu and dp > 1  # the profile's own --enable-dp-attention
    command = f"python -m sglang.launch_server --model-path {loading.model_argument}{loading.flags}"
    command += f" --tp {tp * dp if dp_attention else tp}"
    if pp > 1:
        command += f" --pp-size {pp}"
    if dp > 1:
        command += f" --dp {dp}"
    command += f" --mem-fraction-static {fraction:g} --context-length {result.max_model_len}"
    command += sglang_yarn_flags(request.model)  # a documented YaRN, switched on (planner.engines.yarn)
    for setting in engine.setting_flags:  # the settings given, under SGLang's names in the planned release
        value, flag = getattr(sg, engine.setting_fields[setting]), engine.flag_for(setting, version)
        if value is True:
            command += f" {flag}"
        elif value is not None and value is not False:
            command += f" {flag} {value}"
    command = " ".join((command, *engine.kv_cache_flags(result.kv_dtype)))
    return with_note(command, loading)


class SglangProfile(Protocol):
    """The launch settings these messages read (:class:`planner.engines.sglang.SglangProfile` has them)."""

    @property
    def engine_version(self) -> str: ...
    @property
    def max_total_tokens(self) -> int | None: ...
    @property
    def disable_cuda_graph(self) -> bool: ...
    @property
    def mem_fraction_static(self) -> float | None: ...
    @property
    def chunked_prefill_size(self) -> int | None: ...
    @property
    def cuda_graph_max_bs(self) -> int | None: ...


def launch_lines(profile: SglangProfile, profiled: int) -> list[str]:
    """SGLang's warning for a ``--max-total-tokens`` above the profiled pool (``model_runner.py:1691-1695``)."""
    cap = profile.max_total_tokens
    if cap is None or cap <= profiled:
        return []
    return [f"max_total_tokens={cap} is larger than the profiled value {profiled}. Use the profiled value instead."]


def launch_notes(
    profile: SglangProfile, gpu_memory_bytes: int, tensor_parallel: int, pipeline_parallel: int, inputs: FractionInputs
) -> list[str]:
    """What ``--disable-cuda-graph`` changes: no graph is captured (``model_runner.py:2046``), and the graphs' share
    of the default fraction's reserve (:func:`planner.engines.sglang_rules.reserved_mb`): kept until 0.5.13, the
    prefill graphs' dropped from 0.5.14, the decode graphs' too from 0.5.15."""
    if not profile.disable_cuda_graph:
        return []
    if profile.mem_fraction_static is not None:
        return ["--disable-cuda-graph: no CUDA graph is captured; the KV pool is the same (the fraction sizes it)"]
    version = profile.engine_version
    chunk, graph_bs = sglang_defaults(gpu_memory_bytes, tensor_parallel, version)
    chunk, graph_bs = profile.chunked_prefill_size or chunk, profile.cuda_graph_max_bs or graph_bs
    sizes = (gpu_memory_bytes, tensor_parallel, pipeline_parallel, version, chunk, graph_bs)
    freed = reserved_mb(*sizes, inputs._replace(disable_cuda_graph=False)) - reserved_mb(*sizes, inputs)
    if freed <= 0:
        return [
            f"--disable-cuda-graph: no CUDA graph is captured, but SGLang {version}'s default fraction reserves "
            f"memory for graphs either way ({graph_bs} x 2 MB for the decode graphs), so the KV pool is the same and "
            "that reserve stays free"
        ]
    return [
        f"--disable-cuda-graph: no CUDA graph is captured, and SGLang {version}'s default fraction reserves "
        f"{freed:,.0f} MB less for them (the prefill graphs' share from 0.5.14, the decode graphs' from 0.5.15): "
        "the KV pool grows by it"
    ]


# The planner's speculative methods as SGLang's server_args.py speculative_algorithm names them
SGLANG_ALGORITHMS = {"draft": "STANDALONE", "eagle": "EAGLE", "eagle3": "EAGLE3", "mtp": "NEXTN"}


def speculative_words(spec: SpeculativeOptions, model: ModelSpec) -> str:
    """``--speculative-algorithm`` (STANDALONE for a draft model, EAGLE, EAGLE3, NEXTN for MTP) with its draft
    path (the draft model, or the EAGLE head's repository as a placeholder; NEXTN drafts with the target's own
    layers) and a chain of ``k`` steps: ``--speculative-eagle-topk 1``, ``k + 1`` draft tokens (sgl-project
    docs ``advanced_features/speculative_decoding.md``, its STANDALONE and EAGLE-3 examples)."""
    k = spec.num_speculative_tokens
    flags = f"--speculative-algorithm {SGLANG_ALGORITHMS[spec.method]}"
    if spec.draft_model is not None:
        flags += f" --speculative-draft-model-path {word(spec.draft_model.id)}"
    elif spec.method != "mtp":
        flags += f" --speculative-draft-model-path {word(speculative_head(spec.method, model))}"
    return flags + f" --speculative-num-steps {k} --speculative-eagle-topk 1 --speculative-num-draft-tokens {k + 1}"
