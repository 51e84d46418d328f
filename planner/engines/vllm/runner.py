"""Which model runner a vLLM release starts for a model (rule ``model_runner`` in ``versions.toml``).

- ``v1``: ``v1/worker/gpu_model_runner.py`` (0.19.0 - 0.21.0);
- ``v2-listed`` (0.22.0 - 0.24.0): Model Runner V2 for ``DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`` only
  (Qwen3ForCausalLM from 0.22.0, Llama and Mistral from 0.23.0), non-MoE and unquantized (0.22.0
  ``config/vllm.py:69``, ``:493-532``; 0.23.0 ``:544-556``); 0.24.0 lists DeepseekV2, Qwen2Moe and GraniteMoe too
  and takes every listed architecture, quantized or MoE (``:68-77``, ``:550-562``);
- ``v2-dense`` (0.25.0 - 0.28.0): V2 for every generative model that is neither hybrid (attention + Mamba/GDN) nor
  MoE, quantized or not, and for the listed MoE architectures (0.25.1 ``config/vllm.py:68-74``, ``:557-575``;
  0.27.0 ``:637-658`` ``_is_default_v2_model_runner_model``; 0.28.0 ``:69-80``, ``:691-711``);
- ``v2-all`` (0.29.0 on): V2 for everything on CUDA (0.29.0 ``config/vllm.py:645-677``).

Model Runner V2's profile run skips attention and runs its own sampler once (0.29.0
``v1/worker/gpu/model_runner.py:832-880``): the planner gives it its own sampler term (kind ``v2``), derived from
the source (:func:`planner.engines.vllm.terms.v2_sampler_bytes`: the logits in the head's dtype, and their fp32 copy
up to 0.25.1), and no CUDA-graph estimate in the budget before 0.29.0 (rule ``v2_cudagraph_estimate``).
``VLLM_USE_V2_MODEL_RUNNER`` (``VllmProfile.use_v2_model_runner``) overrides the release's choice.
"""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.engines.vllm.versions import VllmRules

LISTED_022 = ("qwen3",)  # Qwen3ForCausalLM (0.22.0 DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES)
LISTED_023 = ("qwen3", "llama", "mistral")  # + LlamaForCausalLM, MistralForCausalLM (0.23.0)
# DeepseekV2ForCausalLM, Qwen2MoeForCausalLM, GraniteMoeForCausalLM: listed from 0.24.0 through 0.28.0
LISTED_MOE_024 = ("deepseek_v2", "qwen2_moe", "granitemoe")
UNQUANTIZED = ("bf16", "fp16", "fp32")
# The environment that starts the V1 runner where the release would run Model Runner V2 (every release with V2:
# 0.22.0 envs.py:1897, config/vllm.py:494; 0.27.1 envs.py:1954, config/vllm.py:579; VllmProfile.use_v2_model_runner)
V1_RUNNER_ENVIRONMENT = "VLLM_USE_V2_MODEL_RUNNER=0"


# The first release whose Model Runner V2 runs each of the planner's speculative methods; before it, "Model Runner
# V2 does not yet support speculative method '...'; using the V1 model runner instead"
# (VllmConfig._get_v2_model_runner_unsupported_features: 0.22.0 config/vllm.py:2002 takes eagle, eagle3, mtp only,
# as 0.27.0 :2197-2203 and 0.29.0 :2566-2573 (with dflash, dspark); 0.30.0 :2839-2850 lists draft_model and medusa
# as unsupported, 0.31.0 :3074-3083 medusa only, 0.33.0 :3067 neither; 0.34.0 has no V1 runner). Read after an
# outside review, 2026-12-06.
V2_SPECULATIVE_SINCE = {
    "eagle": (0, 0, 0),
    "eagle3": (0, 0, 0),
    "mtp": (0, 0, 0),
    "draft": (0, 31, 0),
    "medusa": (0, 33, 0),
}


def uses_model_runner_v2(
    rules: VllmRules, model: ModelSpec, weights: str, forced: bool | None = None, speculative: str | None = None
) -> bool:
    """Whether ``model`` in ``weights`` starts on Model Runner V2 in the release of ``rules``; ``forced``:
    ``VLLM_USE_V2_MODEL_RUNNER`` set, which the release obeys before its own choice (``VllmConfig.
    use_v2_model_runner``: 0.26.0 ``config/vllm.py:550-553``, 0.29.0 :645-648, 0.31.0 :718-720). A
    ``speculative`` method V2 does not run yet (:data:`V2_SPECULATIVE_SINCE`) keeps the release on V1.

    >>> from planner.engines.vllm.versions import vllm_rules
    >>> from model_catalog import get_model
    >>> gemma = get_model("google/gemma-4-31B-it").spec
    >>> [uses_model_runner_v2(vllm_rules("0.26.0"), gemma, "bf16", forced) for forced in (None, False)]
    [True, False]
    >>> uses_model_runner_v2(vllm_rules("0.21.0"), gemma, "bf16", True)  # no V2 in the release's rules
    False
    """
    if forced is not None and rules.model_runner != "v1":
        return forced
    if speculative is not None and rules.version < V2_SPECULATIVE_SINCE.get(speculative, (0, 0, 0)):
        return False
    hybrid = model.linear_attention is not None
    moe = model.moe is not None
    if rules.model_runner == "v2-all":
        return True
    if rules.model_runner == "v2-dense":
        return not hybrid and (not moe or model.model_type in LISTED_MOE_024)
    if rules.model_runner == "v2-listed" and rules.version >= (0, 24, 0):
        return model.model_type in LISTED_023 + LISTED_MOE_024
    if rules.model_runner == "v2-listed":
        listed = LISTED_023 if rules.version >= (0, 23, 0) else LISTED_022
        return model.model_type in listed and not moe and not hybrid and weights in UNQUANTIZED
    return False


def environment_problem(rules: VllmRules, forced: bool | None, version: str) -> str | None:
    """Why ``VLLM_USE_V2_MODEL_RUNNER`` set to ``forced`` is not planned in the release of ``rules`` (rule
    ``v2_runner_environment``): from 0.34.0 the variable is gone (Model Runner V2 is the only runner), and before
    0.22.0 a 1 starts an experimental runner the planner does not model; a 0 there is the release's own runner.

    >>> from planner.engines.vllm.versions import vllm_rules
    >>> [environment_problem(vllm_rules(v), False, v) is None for v in ("0.19.1", "0.26.0", "0.33.0", "0.34.0")]
    [True, True, True, False]
    >>> environment_problem(vllm_rules("0.19.1"), True, "0.19.1")  # doctest: +ELLIPSIS
    'vLLM 0.19.1 runs Model Runner V2 only as an experiment...'
    """
    if forced is None or rules.v2_runner_environment or (rules.model_runner == "v1" and not forced):
        return None
    if rules.model_runner == "v1":
        return (
            f"vLLM {version} runs Model Runner V2 only as an experiment (VLLM_USE_V2_MODEL_RUNNER=1, from 0.12.0), "
            "which the planner does not plan: its runner is V1; Model Runner V2 is planned from 0.22.0"
        )
    return (
        f"vLLM {version} has no VLLM_USE_V2_MODEL_RUNNER: Model Runner V2 is its only runner (the V1 runner and the "
        "variable are gone from 0.34.0): leave it out"
    )
