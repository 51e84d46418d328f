"""A documented YaRN extension as each engine takes it on its command line, where the plan switches it on
(:func:`planner.core.model.for_context`: a context above the config's ``max_position_embeddings``, up to the card's
ceiling; the catalog's ``spec.yarn``, sourced by its ``yarn_source``).

Every override also sets ``max_position_embeddings`` to the ceiling, the form Qwen's own Transformers guide gives
(``"max_position_embeddings": 131072`` beside ``rope_scaling``, search-index file id 5067109374), so each engine
derives the ceiling as its longest context, whichever way it reads a YaRN config:

- vLLM ``--hf-overrides`` (in every release the planner offers; ``config.update`` of the loaded config before its
  RoPE fields are patched: 0.6.4 ``config.py:159-184``, 0.12.0 ``transformers_utils/config.py:648-655``, 0.34.0
  :1034-1043). The key is ``rope_scaling`` to 0.11.x (``patch_rope_scaling``, 0.11.1 :393, :682) and
  ``rope_parameters`` from 0.12.0 (``patch_rope_parameters``, 0.12.0 :301-325; vLLM's context-extension example
  gives ``rope_theta`` in it), the ``yarn_rope_parameters`` rule. To 0.29 the derived maximum is ``original x factor``
  (0.6.4 ``config.py:1953-1957``, 0.29.0 ``config/model.py:2457-2458``); from 0.30 YaRN leaves
  ``max_position_embeddings`` unscaled (0.31.0 :2546-2558, 0.34.0 :2655-2666), which the override sets. The cos/sin
  cache holds ``original x factor`` positions (``yarn_scaling_rope.py:78-79``), the ceiling.
- SGLang ``--json-model-override-args`` with ``rope_scaling``: ``get_context_length`` takes a factor of 1 when
  ``original_max_position_embeddings`` is given (``hf_transformers_utils.py``, search-index file id 51811575296), so
  without the override of ``max_position_embeddings`` it refuses a ``--context-length`` above 40,960.
- llama.cpp ``--rope-scaling yarn --rope-scale <factor> --yarn-orig-ctx <original>``, the card's own line for
  ``llama-server``; the GGUF's ``context_length`` stays the config's (llama.cpp warns past it, and serves).
- TensorRT-LLM: refused by name (:func:`trtllm_yarn_refusal`): no source read here shows how its LLM API takes a
  YaRN override of a checkpoint whose config has none.
"""

from __future__ import annotations

import json

from planner.core.model import ModelSpec
from planner.engines.commands import word


def _scaling(model: ModelSpec, with_theta: bool) -> dict[str, object]:
    yarn = model.yarn
    assert yarn is not None
    scaling: dict[str, object] = {
        "rope_type": "yarn",
        "factor": yarn.factor,
        "original_max_position_embeddings": yarn.original_max_position_embeddings,
    }
    if with_theta:
        scaling["rope_theta"] = yarn.rope_theta if yarn.rope_theta % 1 else int(yarn.rope_theta)
    return scaling


def vllm_yarn_flags(model: ModelSpec, rope_parameters: bool) -> str:
    """`` --hf-overrides '<json>'`` for a plan with YaRN on (``rope_parameters``: the release's key), else "".

    >>> from model_catalog import get_model
    >>> from planner.core.model import for_context
    >>> print(vllm_yarn_flags(for_context(get_model("Qwen/Qwen3-32B").spec, 131072), True))
     --hf-overrides '{"rope_parameters": {"rope_type": "yarn", "factor": 4.0, \
"original_max_position_embeddings": 32768, "rope_theta": 1000000}, "max_position_embeddings": 131072}'
    """
    if not model.yarn_on or model.yarn is None:
        return ""
    key = "rope_parameters" if rope_parameters else "rope_scaling"
    override = {key: _scaling(model, rope_parameters), "max_position_embeddings": model.yarn.ceiling}
    return f" --hf-overrides {word(json.dumps(override))}"


def sglang_yarn_flags(model: ModelSpec) -> str:
    """`` --json-model-override-args '<json>'`` for a plan with YaRN on, else ""."""
    if not model.yarn_on or model.yarn is None:
        return ""
    override = {"rope_scaling": _scaling(model, False), "max_position_embeddings": model.yarn.ceiling}
    return f" --json-model-override-args {word(json.dumps(override))}"


def llamacpp_yarn_flags(model: ModelSpec) -> str:
    """`` --rope-scaling yarn --rope-scale <factor> --yarn-orig-ctx <original>`` for a plan with YaRN on, else ""."""
    yarn = model.yarn
    if not model.yarn_on or yarn is None:
        return ""
    return f" --rope-scaling yarn --rope-scale {yarn.factor:g} --yarn-orig-ctx {yarn.original_max_position_embeddings}"


def trtllm_yarn_refusal(model: ModelSpec) -> str | None:
    """Why TensorRT-LLM is not planned with a YaRN the config does not ship (module docstring)."""
    if not model.yarn_on or model.yarn is None:
        return None
    return (
        f"TensorRT-LLM is not planned past the config's {model.max_position_embeddings:,} tokens with the YaRN the "
        "card documents: the planner has no source for how its LLM API takes a YaRN override of a checkpoint whose "
        "config has none (a checkpoint whose config.json carries the rope_scaling is the way to try)"
    )
