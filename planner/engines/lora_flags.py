"""LoRA adapter slots as an engine is told them (:class:`planner.engines.support.LoraSupport` declares its
flags), and the models whose adapter pool an engine sizes otherwise than the planner counts it.

vLLM (0.34.0 ``engine/arg_utils.py`` :1628-1650): ``--enable-lora --max-loras N --max-lora-rank R``, the host cache
``--max-cpu-loras`` and, from 0.19.0, ``--lora-target-modules`` (every supported module is wrapped unless told;
the release checks are :func:`planner.engines.vllm.flags.release_refusal`'s). SGLang (0.5.4 ``srt/server_args.py``
:2291-2331): ``--enable-lora`` (without it, or ``--lora-paths``, no adapter pool is made),
``--max-loras-per-batch``, ``--max-lora-rank``, ``--lora-target-modules`` (required without ``--lora-paths``,
:3511-3513; ``all`` for every module) and ``--max-loaded-loras``.

The modules are named as the engines wrap them: the packed ``qkv_proj`` and ``gate_up_proj`` when any of their
parts is targeted (as :func:`planner.deploy.lora.lora_slot_bytes` counts them), ``o_proj``, ``down_proj`` and the
fused MoE ``experts``. vLLM matches a wrapped module by its suffix (0.19.0 ``lora/utils.py`` :260-280, no child
names until later releases) and SGLang normalises q/k/v and gate/up to the packed names
(``srt/lora/utils.py`` get_normalized_target_modules), so both take these names.
"""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.deploy.lora import wrapped_linears
from planner.deploy.options import LoraOptions
from planner.engines.support import EngineSupport, LoraSupport

KIND_WORDS = {"moe": "MoE", "mla": "MLA-attention"}
# The ranks a dashboard offers: what vLLM's --max-lora-rank takes from 0.11.1 (config/lora.py MaxLoRARanks, to
# 0.34.0; older releases take fewer and refuse the rest by name, versions.toml lora_ranks). SGLang takes any.
LORA_RANKS: tuple[int, ...] = (1, 8, 16, 32, 64, 128, 256, 320, 512)


def target_names(model: ModelSpec, lora: LoraOptions) -> tuple[str, ...]:
    """The modules the engine is told to wrap, in the model's order: those of :func:`wrapped_linears` with a
    targeted part.

    >>> from model_catalog import get_model
    >>> llama = get_model("meta-llama/Llama-3.1-8B").spec
    >>> target_names(llama, LoraOptions(target_modules=("v_proj", "down_proj", "gate_proj")))
    ('qkv_proj', 'gate_up_proj', 'down_proj')
    """
    names: dict[str, None] = {}
    for index in range(model.num_hidden_layers):
        for linear in wrapped_linears(model, index):
            if any(part in lora.target_modules for part in linear.parts):
                names[linear.module] = None
    return tuple(names)


def restricted(model: ModelSpec, lora: LoraOptions) -> bool:
    """Whether the targets leave out a module of ``model`` the engine wraps by default (every module: a dense model
    has no experts to leave out).

    >>> from model_catalog import get_model
    >>> llama = get_model("meta-llama/Llama-3.1-8B").spec
    >>> restricted(llama, LoraOptions(target_modules=("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
    ...     "down_proj"))), restricted(llama, LoraOptions(target_modules=("q_proj",)))
    (False, True)
    """
    return not lora.every_module and target_names(model, lora) != target_names(model, LoraOptions())


def lora_refusal(support: EngineSupport, model: ModelSpec, lora: LoraOptions) -> str | None:
    """Why the engine's adapter pool for ``model`` is not planned (:attr:`LoraSupport.refused_models`), or why a
    restricted set of modules is not (MLA's projections are not the q/k/v the options name), else ``None``."""
    assert support.lora is not None
    kinds = {"moe": model.moe is not None, "mla": model.mla is not None}
    for kind, why in support.lora.refused_models.items():
        if kinds[kind]:
            return f"{support.label}'s LoRA adapter pool for {KIND_WORDS[kind]} models is not planned: {why}"
    if not lora.every_module and not target_names(model, lora):
        return f"LoRA targets none of {model.id}'s modules ({', '.join(lora.target_modules)})"
    if model.mla is not None and restricted(model, lora):
        return (
            "LoRA on some modules of MLA attention is not planned (its projections are not the q/k/v the options "
            "name: DeepSeek's kv_a_proj_with_mqa and kv_b_proj, fused by release): plan every module"
        )
    return None


def lora_arguments(flags: LoraSupport, model: ModelSpec, lora: LoraOptions) -> str:
    """The launch arguments of the adapter slots (module docstring).

    >>> from model_catalog import get_model
    >>> from planner.engines.registry import get_engine
    >>> llama = get_model("meta-llama/Llama-3.1-8B").spec
    >>> lora_arguments(get_engine("sglang").support.lora, llama, LoraOptions(max_loras=2))
    '--enable-lora --max-loras-per-batch 2 --max-lora-rank 16 --lora-target-modules all'
    """
    out = f"--enable-lora {flags.slots_flag} {lora.max_loras} --max-lora-rank {lora.max_lora_rank}"
    if lora.max_cpu_loras is not None:
        out += f" {flags.host_flag} {lora.max_cpu_loras}"
    if restricted(model, lora):
        out += f" --lora-target-modules {' '.join(target_names(model, lora))}"
    elif flags.all_targets is not None:
        out += f" --lora-target-modules {flags.all_targets}"
    return out
