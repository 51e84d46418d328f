"""The engine's start-up refusal kept at every length (:class:`planner.advisor.reuse.KeptRefusal`): for the
advisor's requests (no deployment options) it reads no length, so a request at drawn lengths is refused as it is
at another, and a slider's rankings, which ask it once per set-up, equal cold ones."""

from __future__ import annotations

import random
from itertools import product

import pytest
from pydantic import ValidationError

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, kept_memory, rank, reuse
from planner.bounds.errors import PlannerError
from planner.core.overhead import OverheadModel
from planner.engines.registry import engine_of, engine_profile
from planner.planning.plan import PlanRequest
from tests.advisor.advisor_requests import advisor_request

GPUS = load_gpus()
MODELS = (
    "meta-llama/Llama-3.1-70B",  # dense, full attention
    "deepseek-ai/DeepSeek-V3",  # MLA, its own FP8 checkpoint
    "openai/gpt-oss-20b",  # attention sinks, windows, MXFP4
    "Qwen/Qwen3-Next-80B-A3B-Instruct",  # linear attention
    "nvidia/NVIDIA-Nemotron-Nano-9B-v2",  # a Mamba hybrid
    "Qwen/Qwen3-30B-A3B",  # MoE
)
GPU_IDS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s", "rtx-4090", "mi300x", "b200-sxm", "t4", "dgx-spark-gb10")
WEIGHTS = ("bf16", "fp8", "int4-awq", "mxfp4", "gguf-q4_k_m")
KV_DTYPES = ("bf16", "fp8", "fp8_e5m2")


def _profiles() -> tuple[OverheadModel, ...]:
    """Every engine's defaults, and the levers' profiles the advisor plans (fewer sequences, a step, a fraction,
    an old release of vLLM)."""
    return (
        engine_profile("vllm"),
        engine_profile("vllm", max_num_seqs=8),
        engine_profile("vllm", max_num_batched_tokens=2048),
        engine_profile("vllm", fraction=0.8),
        engine_profile("vllm", version="0.10.1"),
        engine_profile("sglang"),
        engine_profile("trtllm"),
        engine_profile("llamacpp"),
    )


def _request(model: str, gpu: str, tp: int, weights: str, kv: str, overhead: OverheadModel) -> PlanRequest | None:
    """The advisor's request (:func:`advisor_request`) at 4,096 tokens; ``None`` where the combination is not a
    valid request."""
    try:
        return advisor_request(model, gpu, tp, weights, kv, overhead, 4096)
    except (PlannerError, ValidationError):
        return None


def test_the_refusal_of_an_advisor_request_reads_no_length() -> None:
    """Over models, GPUs, splits, precisions and profiles, a request at drawn lengths (256 tokens to the model's
    limit) is refused for the same reason, or not at all, as the request at 4,096 tokens; some are refused, for
    reasons of each kind the grid reaches."""
    rng = random.Random(20261207)
    refused, compared = set(), 0
    for model, gpu, tp, weights, kv, overhead in product(MODELS, GPU_IDS, (1, 4), WEIGHTS, KV_DTYPES, _profiles()):
        if gpu not in GPUS:
            continue
        request = _request(model, gpu, tp, weights, kv, overhead)
        if request is None:
            continue
        engine = engine_of(overhead)[0]
        reason = engine.refusal(request)
        limit = request.model.context_limit
        for length in (rng.randint(256, limit), rng.randint(256, 8192), limit):
            assert engine.refusal(request.at_context(length)) == reason, (model, gpu, tp, weights, kv, length)
            compared += 1
        if reason is not None:
            refused.add(reason)
    assert compared > 1000
    assert len(refused) >= 10


@pytest.mark.parametrize(
    ("model_id", "moves", "users", "refuses"),
    [
        ("deepseek-ai/DeepSeek-V3", (4096, 30000, 9000), 20, True),  # some set-ups past the screen are refused
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", (8192, 20000, 60000, 8192), 40, False),
    ],
)
def test_a_slider_ranking_with_refusals_kept_equals_a_cold_one(
    model_id: str, moves: tuple[int, ...], users: int, refuses: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The slider's rankings (each refusal asked once, then kept at every length) equal rankings made cold at each
    length; each later ranking asked the engines fewer times than the first (and, where ``refuses``, some set-ups
    were refused: the kept refusal raised again)."""
    reasons: list[str | None] = []
    original = kept_memory.engine_of

    def counted(overhead: OverheadModel) -> tuple[object, object]:
        engine, profile = original(overhead)  # type: ignore[arg-type]

        class Counted:
            def refusal(self, request: PlanRequest) -> str | None:
                reasons.append(engine.refusal(request))
                return reasons[-1]

        return Counted(), profile

    spec = get_model(model_id).spec
    reuse.clear()
    monkeypatch.setattr(kept_memory, "engine_of", counted)
    kept, asked = [], []
    for c in moves:
        kept.append(rank(spec, Workload.fixed_length(c, concurrent_conversations=users)).model_dump_json())
        asked.append(len(reasons) - sum(asked))
    monkeypatch.undo()
    cold = []
    for c in moves:
        reuse.clear()
        cold.append(rank(spec, Workload.fixed_length(c, concurrent_conversations=users)).model_dump_json())
    reuse.clear()
    assert kept == cold
    assert any(r is not None for r in reasons) == refuses
    assert all(n < asked[0] for n in asked[1:]), asked
