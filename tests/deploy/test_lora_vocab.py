"""vLLM's vocabulary-sized LoRA slots (rule ``lora_vocab_wrappers``; planner.deploy.lora.vocab_wrappers): a model
class declaring ``embedding_modules`` (0.27.1 ``model_executor/models/qwen3.py:279-282``) has ``embed_tokens`` wrapped
by ``VocabParallelEmbeddingWithLoRA`` (``lora/layers/vocal_parallel_embedding.py:49-67``: A ``(max_loras,
org_vocab_size, rank)``, B ``(max_loras, 1, embedding_dim, rank)``) and ``lm_head`` by ``LogitsProcessorWithLoRA``
(``lora/layers/logits_processor.py:93-112``: A ``(max_loras, 1, rank, hidden)``, B ``(max_loras, 1, vocab, rank)``);
a tied ``lm_head`` is the embedding module itself and is wrapped a second time (``lora/model_manager.py:401``
``named_modules(remove_duplicate=False)``, ``:432`` lets ``lm_head`` through the already-wrapped check,
``lora/utils.py:106-124`` ``from_layer``, ``:127-142`` ``from_layer_logits_processor``).

The check: the twenty-first blind set's Qwen3-4B (vocab 151,936, hidden 2,560, tied) boots at rank 16 on an RTX 4090
(vLLM 0.27.1) print "Model loading took" 7.63 / 8.78 / 12.49 GiB at 1 / 16 / 64 slots (the torch bytes allocated
while loading, ``platforms/cuda.py:351-356``). Each slot is 63.0 MiB of linear stacks plus 3 x 16 x (151,936 +
2,560) x 2 bytes = 14.14 MiB of vocabulary stacks: 77.14 MiB, where the prints step 78.5 (1 -> 16) and 79.1 MiB
(16 -> 64) a slot; the 1.4-2.0 MiB left a slot is not read from the source."""

from __future__ import annotations

from typing import Any

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.core.units import GiB, MiB
from planner.deploy.lora import lora_slot_bytes, vocab_slot_bytes, vocab_wrappers
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import plan

LORA = {
    1: "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util080",
    16: "vllm-0.27-rtx4090-runpod-qwen3-4b-lora16-8k-util080",
    64: "vllm-0.27-rtx4090-runpod-qwen3-4b-lora64-8k-util080",
}


def _case(case_id: str) -> dict[str, Any]:
    return next(c for c in load_cases() if c["id"] == case_id)


def test_the_releases_that_wrap_the_vocabulary() -> None:
    assert not vllm_rules("0.21.0").lora_vocab_wrappers
    assert vllm_rules("0.22.0").lora_vocab_wrappers and vllm_rules("0.27.1").lora_vocab_wrappers


def test_the_wrappers_by_stage() -> None:
    """Tied: embed_tokens, lm_head (the same module) and the logits processor on one stage; untied: the
    embedding and the logits processor (``ParallelLMHead`` is no ``VocabParallelEmbedding``,
    ``vocal_parallel_embedding.py:129-136``); a model class without ``embedding_modules`` (Gemma 4): none."""
    request = build_request(_case(LORA[1]), setup_of(_case(LORA[1])))
    qwen = request.model
    assert qwen.tie_word_embeddings and qwen.model_type == "qwen3"
    assert vocab_wrappers(qwen, first=True, last=True) == 3
    assert vocab_wrappers(qwen.model_copy(update={"tie_word_embeddings": False}), first=True, last=True) == 2
    assert vocab_wrappers(qwen, first=True, last=False) == 1
    assert vocab_wrappers(qwen.model_copy(update={"model_type": "gemma4"}), first=True, last=True) == 0


def test_a_slot_of_qwen3_4b() -> None:
    """63.0 MiB of linear stacks and 14.14 MiB of vocabulary stacks a rank-16 slot (to 0.01 MiB)."""
    request = build_request(_case(LORA[1]), setup_of(_case(LORA[1])))
    options = request.deployment.lora if request.deployment else None
    assert options is not None and options.max_lora_rank == 16
    model = request.model
    assert lora_slot_bytes(model, options, 1, range(36), 1) / MiB == pytest.approx(63.0, abs=0.01)
    assert vocab_slot_bytes(model, options, True, True, 1) == 3 * 16 * (151936 + 2560) * 2


@pytest.mark.parametrize("slots", sorted(LORA))
def test_the_loads_as_printed(slots: int) -> None:
    """Planned 7.63 / 8.76 / 12.38 GiB against 7.63 / 8.78 / 12.49 printed (-0.00 / -0.02 / -0.11, to 0.005 GiB;
    7.58 / 8.71 / 12.32 before the allocator's segment tails counted with the loaded weights, 2026-12-07); without
    the vocabulary stacks -0.07 / -0.29 / -1.05 before the tails."""
    case = _case(LORA[slots])
    request = build_request(case, setup_of(case))
    stage = plan(request).stages[0]
    loaded = (stage.weights_bytes + stage.lora_bytes + stage.draft_bytes) / GiB
    expected = {1: 7.63, 16: 8.76, 64: 12.38}[slots]
    assert loaded == pytest.approx(expected, abs=0.005)
    assert case["reported"]["weights_gib"] - loaded == pytest.approx({1: 0.00, 16: 0.02, 64: 0.11}[slots], abs=0.006)
