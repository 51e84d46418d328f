"""Start-ups that are the first of their model or of their ``--max-model-len`` on a machine compile cold.

vLLM keys its torch.compile cache by a hash of the config: ``VllmConfig.compute_hash`` takes
``ModelConfig.compute_hash`` (0.29.0 ``config/vllm.py:461``, 0.30.0 :486), which hashes every field of the model
config but an ignored list (``config/utils.py:360-378`` ``get_hash_factors``) that holds neither ``model`` nor
``max_model_len`` (0.29.0 ``config/model.py:412-470``, 0.30.0 :420-478; ``gpu_memory_utilization`` is ignored,
``config/cache.py:264-287``); the AOT cache directory is ``torch_compile_cache/torch_aot_compile/{hash}`` of that
(``compilation/caching.py:573-583``, ``compilation/decorators.py:527-550`` in both releases), with Inductor's own
cache under it. So the first boot of a model, or of a model at a new ``--max-model-len``, finds no compiled graph
and runs the cold compile whose random copy of the embedding table is the profile's transient
(:mod:`planner.engines.vllm.compile_copy`).

Read this way from their own documents, not from their errors:

- the home RTX 5090's Qwen3-4B-Instruct-2507 (search-index file ids 69057007511 / 69477724907, vLLM 0.29): FP8 is a
  new model (its first boot crashed at load on DeepGEMM, before any compile; the 32k boot is its first that
  compiled), and both 131,072-token boots are 'Restarted vLLM with --max-model-len 131072 instead of the original
  32,768'; the BF16 32k boot printed the budget of the BF16 131k first boot to 0.01 GiB
  (``test_blind_2026_12r.py::test_the_131k_boots_hold_the_32k_budget``), which a warm boot could not: it holds the
  copy less its forward, 0.55 GiB more;
- the one-RTX-3090 document's Llama 3.2 3B (file id 71124810209, 'Small models', vLLM 0.30.0): a model downloaded for
  that study on the document's pinned server, whose method runs every preset in a new container ('so torch.compile
  and CUDA graphs are rebuilt'; only ``~/.cache/huggingface`` is shared with it).
"""

from __future__ import annotations

import pytest

from bench.fidelity import run_all
from bench.fidelity_cases import load_cases, setup_of

FIRST_BOOTS = {
    # planned warm before: +0.97 / +0.97 / +1.03 / +1.03 / +1.17 GiB
    "vllm-0.29-rtx5090-qwen3-4b-instruct-2507-bf16-32k-util092": 0.42,
    "vllm-0.29-rtx5090-qwen3-4b-instruct-2507-bf16-131k-util092": 0.42,
    "vllm-0.29-rtx5090-qwen3-4b-instruct-2507-fp8-32k-util092": 0.48,
    "vllm-0.29-rtx5090-qwen3-4b-instruct-2507-fp8-131k-util092": 0.48,
    "vllm-0.30-rtx3090-llama-3-2-3b-instruct-8k": 0.52,
}


@pytest.mark.parametrize("case_id", sorted(FIRST_BOOTS))
def test_first_boots_are_planned_cold(case_id: str) -> None:
    case = next(c for c in load_cases() if c["id"] == case_id)
    setup = setup_of(case)
    assert setup.profile.get("compile_cache") == "cold"
    assert "first boot" in setup.mapping_note


@pytest.mark.parametrize("case_id", sorted(FIRST_BOOTS))
def test_first_boots_kv_error(case_id: str) -> None:
    """The KV error (planned - printed, GiB) with the cold compile's copy planned, to the printed precision."""
    result = next(r for r in run_all() if r.id == case_id)
    assert result.kv_error_gib == pytest.approx(FIRST_BOOTS[case_id], abs=0.01)
