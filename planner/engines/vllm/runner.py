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
``v1/worker/gpu/model_runner.py:832-880``): the planner gives it its own sampler term (kind ``v2``), fitted to
the logs that print the post-capture "peak activation" (``make calibrate``).
"""

from __future__ import annotations

from planner.core.model import ModelSpec
from planner.engines.vllm.versions import VllmRules

LISTED_022 = ("qwen3",)  # Qwen3ForCausalLM (0.22.0 DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES)
LISTED_023 = ("qwen3", "llama", "mistral")  # + LlamaForCausalLM, MistralForCausalLM (0.23.0)
# DeepseekV2ForCausalLM, Qwen2MoeForCausalLM, GraniteMoeForCausalLM: listed from 0.24.0 through 0.28.0
LISTED_MOE_024 = ("deepseek_v2", "qwen2_moe", "granitemoe")
UNQUANTIZED = ("bf16", "fp16", "fp32")


def uses_model_runner_v2(rules: VllmRules, model: ModelSpec, weights: str) -> bool:
    """Whether ``model`` in ``weights`` starts on Model Runner V2 in the release of ``rules``."""
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
