"""The launch flags a vLLM release defines: ``vllm serve`` of a release before a flag stops at it ("unrecognized
arguments", argparse), so a set-up that asks an older release for one is refused by name instead of planned as if
the flag had worked. Each flag's first release is a ``versions.toml`` rule, read in the ``engine/arg_utils.py`` of
the wheels on PyPI (``pip download --no-deps vllm==X``): the release before it has no such argument.

>>> from planner.engines.vllm.versions import vllm_rules
>>> missing_flag(vllm_rules("0.16.0"), {"language_model_only": True, "max_num_seqs": 4})
'language_model_only'
>>> missing_flag(vllm_rules("0.17.0"), {"language_model_only": True}) is None
True
>>> missing_flag(vllm_rules("0.8.5"), {"language_model_only": False}) is None  # a flag not given
True
"""

from __future__ import annotations

from collections.abc import Mapping

from planner.engines.vllm.versions import VllmRules

# The launch setting (planner.engines.settings) -> the versions.toml rule that is on from the release that added
# its flag. Settings not listed are in every release the planner offers (0.6.4 on).
FLAG_RULES: dict[str, str] = {
    "kv_cache_memory_bytes": "flag_kv_cache_memory_bytes",
    "max_cudagraph_capture_size": "flag_max_cudagraph_capture_size",
    "language_model_only": "flag_language_model_only",
    "no_enable_extensible_kv_cache": "extensible_kv_cache",
}


def missing_flag(rules: VllmRules, settings: Mapping[str, object]) -> str | None:
    """The first setting of ``settings`` given (not ``None``, not ``False``) whose flag the release lacks."""
    for setting, rule in FLAG_RULES.items():
        if settings.get(setting) not in (None, False) and not getattr(rules, rule):
            return setting
    return None
