"""The launch flags and deployment options a vLLM release defines: ``vllm serve`` of a release before a flag
stops at it ("unrecognized arguments", argparse), and a speculative method it does not define at its config's
check, so a set-up that asks an older release for one is refused by name instead of planned as if it had worked.
Each first release is a ``versions.toml`` rule, read in the ``engine/arg_utils.py`` and ``config`` of
the wheels on PyPI (``pip download --no-deps vllm==X``): the release before it has no such argument.

>>> from planner.engines.vllm.versions import vllm_rules
>>> missing_flag(vllm_rules("0.16.0"), {"language_model_only": True, "max_num_seqs": 4})
MissingFlag(words='--language-model-only', rule='flag_language_model_only', what='the flag')
>>> missing_flag(vllm_rules("0.17.0"), {"language_model_only": True}) is None
True
>>> missing_flag(vllm_rules("0.8.5"), {"language_model_only": False}) is None  # a flag not given
True
>>> missing_flag(vllm_rules("0.17.0"), {"safetensors_load_strategy": "prefetch"})
MissingFlag(words='--safetensors-load-strategy prefetch', rule='safetensors_prefetch', what='the value')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from planner.core.model import ModelSpec
from planner.core.overhead import parse_version
from planner.deploy.options import LoraOptions
from planner.engines.lora_flags import restricted
from planner.engines.settings import BY_NAME
from planner.engines.vllm.draft_slots import step_fix
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import VllmRules, first_release_with
from planner.planning.request import PlanRequest

# The launch setting (planner.engines.settings) -> the versions.toml rule that is on from the release that added
# its flag. Settings not listed are in every release the planner offers (0.6.4 on).
FLAG_RULES: dict[str, str] = {
    "kv_cache_memory_bytes": "flag_kv_cache_memory_bytes",
    "max_cudagraph_capture_size": "flag_max_cudagraph_capture_size",
    "language_model_only": "flag_language_model_only",
    "skip_mm_profiling": "flag_skip_mm_profiling",
    "no_enable_extensible_kv_cache": "extensible_kv_cache",
    "safetensors_load_strategy": "flag_safetensors_load_strategy",
    "enable_dp_attention": "flag_data_parallel_size",  # --data-parallel-size (--enable-expert-parallel is older)
}
# vLLM's own spelling of a setting whose generic flag is another engine's (SGLang's --enable-dp-attention)
OWN_WORDS: dict[str, str] = {"enable_dp_attention": "--data-parallel-size (for data-parallel attention)"}
# A choice's values a release may not take yet: (setting, value) -> the versions.toml rule on from the release that
# does (vLLM checks --load-format and --safetensors-load-strategy values when it loads the weights)
VALUE_RULES: dict[tuple[str, str], str] = {
    ("load_format", "fastsafetensors"): "load_format_fastsafetensors",
    ("load_format", "instanttensor"): "load_format_instanttensor",
    ("safetensors_load_strategy", "prefetch"): "safetensors_prefetch",
}


class MissingFlag(NamedTuple):
    words: str  # as typed: "--language-model-only", "--load-format fastsafetensors"
    rule: str  # the versions.toml rule on from the release that takes it
    what: str  # "the flag" or "the value"


def missing_flag(rules: VllmRules, settings: Mapping[str, object]) -> MissingFlag | None:
    """The first setting of ``settings`` given (not ``None``, not ``False``) whose flag, or value, the release
    lacks."""
    for setting, rule in FLAG_RULES.items():
        if settings.get(setting) not in (None, False) and not getattr(rules, rule):
            return MissingFlag(OWN_WORDS.get(setting, BY_NAME[setting].flag), rule, "the flag")
    for (setting, value), rule in VALUE_RULES.items():
        if settings.get(setting) == value and not getattr(rules, rule):
            return MissingFlag(f"{BY_NAME[setting].flag} {value}", rule, "the value")
    return None


# Speculative methods by the versions.toml rule that says whether a release runs them, and why not when it does not
SPECULATIVE_RULES = {
    "eagle3": ("speculative_eagle3", "EAGLE-3 comes with {since}"),
    "mtp": ("speculative_mtp", "the generic 'mtp' method comes with {since}; earlier releases name MTP per model"),
    "medusa": ("speculative_medusa", "Medusa was removed in 0.33.0"),
}


def batch_refusal(profile: VllmProfile, slots: int = 0) -> str | None:
    """``--max-num-batched-tokens`` below ``--max-num-seqs``, both given: every release's scheduler config stops there
    (0.8.5 ``config.py`` :2033, 0.19.0 ``config/scheduler.py`` :273-278, 0.31.0 :329-334); a defaulted one of them
    settles below the other instead (:func:`planner.engines.vllm.defaults.settled_batch`). The fix leaves room for
    the ``slots`` a draft model takes per sequence where the release takes them off the step
    (:func:`planner.engines.vllm.draft_slots.step_fix`).

    >>> from planner.engines.vllm.profile import VllmProfile
    >>> batch_refusal(VllmProfile(max_num_batched_tokens=512, max_num_seqs=1024)).split("; ")[1]
    'raise --max-num-batched-tokens to 1024 or lower --max-num-seqs to 512'
    >>> batch_refusal(VllmProfile(max_num_batched_tokens=512)) is None  # 512 sequences by default then
    True
    """
    tokens, seqs = profile.max_num_batched_tokens, profile.max_num_seqs
    if tokens is None or seqs is None or tokens >= seqs:
        return None
    return (
        f"vLLM stops at its arguments: max_num_batched_tokens ({tokens}) must be greater than or equal to max_num_seqs "
        f"({seqs}); {step_fix(tokens, seqs, slots)}"
    )


def release_refusal(profile: VllmProfile, request: PlanRequest) -> str | None:
    """Why the planned release does not run the request's deployment options: speculative decoding under pipeline
    parallelism before 0.30, a speculative method it does not define (``SPECULATIVE_RULES``), a KV offload tier
    before ``--kv-offloading-size`` (0.11.1), or LoRA slots it does not make as planned
    (:func:`lora_release_refusal`)."""
    options, rules = request.deployment, profile.rules
    if options is None:
        return None
    spec = options.speculative
    if spec is not None and request.resolved_parallelism[1] > 1 and parse_version(profile.engine_version) < (0, 30, 0):
        return (
            f"vLLM {profile.engine_version} does not start speculative decoding under pipeline parallelism: its "
            "stages' sampled-token broadcast asserts one token a request (_pp_broadcast_prev_sampled_token_ids, "
            "vllm-project/vllm#57755, in the 0.28.0 and 0.29.0 sources; MTP under PP fails on 0.25, #49355); plan "
            "PP 1, or one of 0.30 and later (Model Runner V2 passes drafts between stages, PR #46994)"
        )
    if spec is not None and spec.method in SPECULATIVE_RULES:
        rule, why = SPECULATIVE_RULES[spec.method]
        if not getattr(rules, rule):
            reason = why.format(since=first_release_with(rule))
            return f"vLLM {profile.engine_version} does not run {spec.method} speculative decoding ({reason})"
    if options.kv_offload is not None and not rules.kv_offloading_flags:
        since = first_release_with("kv_offloading_flags")
        return f"vLLM {profile.engine_version} has no --kv-offloading-size (the flag came with {since})"
    return None if options.lora is None else lora_release_refusal(profile, options.lora, request.model)


def lora_release_refusal(profile: VllmProfile, lora: LoraOptions, model: ModelSpec) -> str | None:
    """A ``--max-lora-rank`` the release's choices do not hold (``lora_ranks``), a restricted set of modules
    before ``--lora-target-modules`` (0.19.0), where every module is wrapped, or the experts of a MoE ``model``
    targeted before they got adapter slots (0.11.1).

    >>> from planner.engines.vllm.profile import VllmProfile
    >>> model = ModelSpec.model_construct(id="m", moe=None)
    >>> lora_release_refusal(VllmProfile(engine_version="0.34.0"), LoraOptions(max_lora_rank=48), model)
    'vLLM 0.34.0 takes --max-lora-rank 1, 8, 16, 32, 64, 128, 256, 320 or 512, not 48: plan 64'
    """
    rules, version = profile.rules, profile.engine_version
    ranks = rules.lora_ranks
    if lora.max_lora_rank not in ranks:
        choices = ", ".join(map(str, ranks[:-1])) + f" or {ranks[-1]}"
        above = [r for r in ranks if r > lora.max_lora_rank]
        fix = f": plan {above[0]}" if above else ""
        return f"vLLM {version} takes --max-lora-rank {choices}, not {lora.max_lora_rank}{fix}"
    if restricted(model, lora) and not rules.flag_lora_target_modules:
        since = first_release_with("flag_lora_target_modules")
        return f"vLLM {version} has no --lora-target-modules (the flag came with {since}): it wraps every module"
    if model.moe is not None and "experts" in lora.target_modules and not rules.lora_moe_experts:
        since = first_release_with("lora_moe_experts")
        return f"vLLM {version} gives MoE experts no LoRA slots (they came with {since}); the plan counts them"
    return None
