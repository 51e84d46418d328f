"""AutoRound W4A16 checkpoints with their vocabulary matrices requantized to int8 (planner.core.vocab_formats),
against the weights their vLLM start-ups print ("Model loading took X GiB").

- the syv-ai RTX 3090 image (lm_head and embed_tokens int8, --language-model-only, vLLM 0.28.0): 14.26 GiB printed,
  planned 16.65 with the published BF16 matrices until 2026-12-07;
- the Talos home lab's int8-lm_head copy (embeddings BF16, --language-model-only, vLLM 0.27.1): 15.43 GiB printed,
  planned 16.65 until then;
- Twu31/Qwen3.6-35B-A3B-GPTQ-INT4-W4A16-LowLatency (lm_head int8 g128, MTP module and vision tower BF16) with MTP 1
  on a rented RTX 3090 (vLLM 0.27.1): 20.17 GiB printed, planned 19.57 as int4-gptq until then.

Tolerance 0.1 GiB, the loaded-weights tolerance of tests/engines/test_vllm_02x.py; they are planned 0.05, 0.05 and
0.10 GiB over, with the 4-bit layers at int4-gptq's 4.156 bits as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.core.units import GiB
from planner.engines.registry import engine_report
from planner.planning.plan import plan

CASES = {c["id"]: c for c in load_cases()}
SYVAI = "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util0972"
INT8_HEAD = "vllm-0.27-rtx3090-qwen38-27b-w4a16-autoround-int8lmhead-180k-seqs3-util0972"
TWU31 = "vllm-0.27-rtx3090-vast-qwen36-35b-a3b-gptq-mtp1-131k-kv-refusal"


def _planned_weights_gib(case: dict[str, Any]) -> float:
    request = build_request(case, setup_of(case))
    return engine_report(request, plan(request)).weights_bytes / GiB


@pytest.mark.parametrize(
    ("case_id", "weights", "printed"),
    [(SYVAI, "int4-int8vocab", 14.26), (INT8_HEAD, "int4-int8head", 15.43), (TWU31, "int4-int8head", 20.17)],
)
def test_the_requantized_vocabulary_loads_as_printed(case_id: str, weights: str, printed: float) -> None:
    case = CASES[case_id]
    assert case["reported"]["weights_gib"] == printed
    assert setup_of(case).weights == weights
    assert _planned_weights_gib(case) == pytest.approx(printed, abs=0.1)


def test_each_int8_matrix_is_what_the_scripts_write() -> None:
    """248,320 x 5,120 int8 values and one 16-bit scale per 128: 1.2025 GiB where BF16 holds 2.3682, so the head
    saves 1.166 GiB and head plus embeddings 2.331 (planned 16.65 -> 15.49 and 14.32 GiB loaded)."""
    from model_catalog import get_model
    from planner.core.params import parameter_breakdown
    from planner.core.weights import weights_bytes

    b = parameter_breakdown(get_model("Qwen/Qwen3.8-27B").spec)
    assert b.lm_head == b.embedding == 248_320 * 5_120
    plain = weights_bytes(b, "int4-autoround")
    head = plain - weights_bytes(b, "int4-int8head")
    both = plain - weights_bytes(b, "int4-int8vocab")
    assert head == pytest.approx(b.lm_head * (16 - 8.125) / 8, abs=1)
    assert both == pytest.approx(2 * head, abs=1)
    assert head / GiB == pytest.approx(1.166, abs=0.001)


def test_twu31s_card_gives_the_head_alone() -> None:
    """The card's own vLLM figures without a drafter: 18.6 GiB with the int8 head, 19.0 with a BF16 one (one decimal);
    planned 18.69 and 19.16 on the same set-up with MTP off (the vision tower loaded)."""
    case = CASES[TWU31]
    request = build_request(case, setup_of(case))
    plain = request.model_copy(update={"deployment": request.deployment.model_copy(update={"speculative": None})})
    for weights, card in (("int4-int8head", 18.6), ("int4-gptq", 19.0)):
        one = plain.model_copy(update={"weights": weights})
        assert engine_report(one, plan(one)).weights_bytes / GiB == pytest.approx(card, abs=0.2)
