"""How vLLM settles ``max_num_batched_tokens`` and ``max_num_seqs`` from its defaults and the flags given
(``EngineArgs._set_default_max_num_seqs_and_batched_tokens_args``), as the planner's profile run and launch commands
use them:

- from 0.12.0, defaulted tokens are capped at ``max_num_seqs x max_model_len`` (0.12.0 ``engine/arg_utils.py``
  :2000-2006, 0.19.0 :2224-2230, 0.31.0 :3099-3105); a defaulted ``max_num_seqs`` never exceeds the tokens
  (0.11.0 :1676-1678 on the default tokens or the given ones, 0.12.0 :2014-2016 on the settled tokens);
- from 0.22.0, a multimodal prefix-LM model (Gemma 4 26B-A4B and 31B: ``use_bidirectional_attention`` "vision")
  raises defaulted tokens to its largest multimodal item, a 32-frame video of 78 tokens a frame: 2,496 (0.22.0
  :2525-2540, ``gemma4_mm.py`` :232-259). A public vLLM 0.27.1 log of a Gemma 4 12B prints "Raising
  max_num_batched_tokens from 2048 to 2496 to accommodate 'video' input" (search-index file id 66805527220), and the
  printed tokens of public start-ups, which count each sliding-window layer's ``window - 1 + batched tokens``, show
  it: Gemma 4 26B-A4B's at 2,496, the E4B's (no prefix LM) at 2,048.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from bench.fidelity_cases import build_request, load_cases, setup_of
from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.registry import engine_report, get_engine
from planner.engines.vllm.defaults import GEMMA4_ITEM_TOKENS, mm_prefix_item_tokens, settled_batch
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan

GEMMA = get_model("google/gemma-4-26B-A4B-it").spec
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec
H100 = get_gpu("h100-sxm-80gb")
L4 = get_gpu("l4")


def _batch(gpu: str, model: str, version: str, max_model_len: int, **settings: object) -> tuple[int, int]:
    card = get_gpu(gpu)
    profile = VllmProfile(engine_version=version, **settings)  # type: ignore[arg-type]
    total = card.engine_visible_bytes or card.memory_bytes
    return profile.batch(total, card.name, max_model_len, get_model(model).spec)


def test_the_video_item_is_the_largest_gemma4_item() -> None:
    """32 frames (``_VIDEO_MAX_FRAMES``) x (70 soft tokens + boi + eoi + ~6 timestamp tokens), above the image's
    280 default soft tokens (1,120 at most) and the audio's 750."""
    assert GEMMA4_ITEM_TOKENS == 32 * (70 + 2 + 6) == 2496
    assert mm_prefix_item_tokens(GEMMA) == mm_prefix_item_tokens(get_model("google/gemma-4-31B-it").spec) == 2496
    assert mm_prefix_item_tokens(get_model("google/gemma-4-E4B-it").spec) == 0  # no bidirectional vision
    assert mm_prefix_item_tokens(LLAMA) == 0


@pytest.mark.parametrize(
    ("version", "settings", "expected"),
    [
        ("0.21.0", {}, (2048, 256)),  # before the raise
        ("0.22.0", {}, (2496, 256)),
        ("0.31.0", {}, (2496, 256)),
        ("0.31.0", {"language_model_only": True}, (2048, 256)),  # no multimodal input: not a prefix-LM serve
        ("0.26.0", {"language_model_only": True}, (2496, 256)),  # before 0.27.0 the floor is raised all the same
        ("0.26.0", {"limit_mm_per_prompt": 0}, (2496, 256)),
        ("0.27.0", {"language_model_only": True}, (2048, 256)),
        ("0.31.0", {"limit_mm_per_prompt": 0}, (2048, 256)),
        ("0.31.0", {"max_num_batched_tokens": 1024}, (1024, 256)),  # given: kept
        ("0.31.0", {"max_num_seqs": 1}, (2048, 1)),  # raised, then capped at 1 x 2,048 tokens
    ],
)
def test_gemma4_on_a_small_tier_card(version: str, settings: dict[str, object], expected: tuple[int, int]) -> None:
    assert _batch("l40s", "google/gemma-4-26B-A4B-it", version, 2048, **settings) == expected


def test_the_raise_leaves_larger_defaults_and_the_e_models() -> None:
    assert _batch("h100-sxm-80gb", "google/gemma-4-26B-A4B-it", "0.31.0", 32768) == (8192, 1024)
    assert _batch("l4", "google/gemma-4-E4B-it", "0.31.0", 32768) == (2048, 256)


# (case, batched tokens the printed tokens show): each case's KV budget pinned to the printed one
PRINTED = [
    ("vllm-0.25-l40s-gemma4-26b-a4b-fp8-32k-util092", 2496),
    ("vllm-0.25-gb10-gemma4-26b-a4b-bf16-lora4-util055-32k", 2496),
    ("vllm-0.22-rtx3090ti-gemma4-e4b-it-32k-util09", 2048),
    ("vllm-0.25-l40s-gemma4-e4b-it-bf16-16k-util085", 2048),
    ("vllm-0.28-l4-ollama-gemma4-e4b-qat-w4a16-32k-util062", 2048),
]


@pytest.mark.parametrize(("case_id", "batched"), PRINTED)
def test_the_printed_tokens_show_the_batch(case_id: str, batched: int) -> None:
    """With the printed KV budget, the planner's tokens are the printed ones within 0.1 % (the budget is printed to
    0.01 GiB); at the other batch they are 2.9-7.0 % off, the sliding layers' pages changing with it."""
    case = next(c for c in load_cases() if c["id"] == case_id)
    setup = setup_of(case)
    kv_bytes = round(case["reported"]["kv_cache_gib"] * GiB)
    pinned = setup.model_copy(update={"profile": {**setup.profile, "kv_cache_memory_bytes": kv_bytes}})
    request = build_request(case, pinned)
    profile = request.overhead
    assert isinstance(profile, VllmProfile)
    name = request.gpu.name if request.gpu else None
    assert profile.batch(engine_total_bytes(request), name, request.max_model_len, request.model)[0] == batched
    report = engine_report(request, plan(request))
    assert report.kv_cache_tokens == pytest.approx(case["reported"]["kv_cache_tokens"], rel=1e-3)


@pytest.mark.parametrize(
    ("version", "expected"),
    [("0.11.0", (8192, 1)), ("0.12.0", (4096, 1)), ("0.19.0", (4096, 1)), ("0.31.0", (4096, 1))],
)
def test_one_sequence_of_a_short_context_caps_the_tokens(version: str, expected: tuple[int, int]) -> None:
    """One 4,096-token sequence on an H100: vLLM's 8,192 default tokens become 1 x 4,096 from 0.12.0."""
    assert _batch("h100-sxm-80gb", "meta-llama/Llama-3.1-8B", version, 4096, max_num_seqs=1) == expected


def test_default_sequences_never_exceed_the_tokens() -> None:
    """--max-num-batched-tokens 512 on an H100: the default 1,024 sequences become 512 (in every V1 release)."""
    for version in ("0.11.0", "0.19.0", "0.31.0"):
        assert _batch("h100-sxm-80gb", "meta-llama/Llama-3.1-8B", version, 8192, max_num_batched_tokens=512) == (
            512,
            512,
        )


def test_settled_batch_keeps_what_is_given() -> None:
    assert settled_batch((8192, 1024), None, None, 2048, 0, capped=True) == (8192, 1024)
    assert settled_batch((8192, 1024), 16384, 4, 1024, 0, capped=True) == (16384, 4)
    assert settled_batch((2048, 256), None, 2, 512, 2496, capped=True) == (1024, 2)


def test_the_profile_run_takes_the_capped_tokens() -> None:
    """The report's profile run and its activation follow: 4,096 tokens, one sampler row, less activation."""

    def report(version: str):  # type: ignore[no-untyped-def]
        request = PlanRequest(
            model=LLAMA,
            gpu=H100,
            gpu_memory_bytes=H100.engine_visible_bytes or H100.memory_bytes,
            context_tokens=4096,
            max_model_len=4096,
            overhead=VllmProfile(engine_version=version, max_num_seqs=1),
        )
        return engine_report(request, plan(request))

    capped, uncapped = report("0.19.0"), report("0.11.0")
    assert any("(4096 tokens, 1 sampler rows" in note for note in capped.notes)
    assert any("(8192 tokens, 1 sampler rows" in note for note in uncapped.notes)
    assert capped.activation_bytes < uncapped.activation_bytes


def _lines(gpu: str, model: str, **settings: object) -> list[str]:
    card = get_gpu(gpu)
    request = PlanRequest(
        model=get_model(model).spec,
        gpu=card,
        gpu_memory_bytes=card.engine_visible_bytes or card.memory_bytes,
        context_tokens=8192,
        max_model_len=8192,
        weights="fp8",  # 26B-A4B: 48 GiB in BF16, over an L40S
        overhead=VllmProfile(engine_version="0.31.0", **settings),  # type: ignore[arg-type]
    )
    return list(engine_report(request, plan(request)).lines)


def test_the_report_prints_the_raise_as_vllm_logs_it() -> None:
    """What vLLM logs as it reads its arguments ("Raising max_num_batched_tokens from 2048 to 2496 to accommodate
    'video' input for prefix-LM model ..."), first among the lines it prints; nowhere the floor is not raised."""
    lines = _lines("l40s", "google/gemma-4-26B-A4B-it")
    assert lines[0] == (
        "Raising max_num_batched_tokens from 2048 to 2496 to accommodate 'video' input for prefix-LM model "
        "google/gemma-4-26B-A4B-it."
    )
    assert lines[1].startswith("Available KV cache memory")
    for gpu, model, settings in (
        ("l40s", "google/gemma-4-26B-A4B-it", {"language_model_only": True}),
        ("l40s", "google/gemma-4-26B-A4B-it", {"max_num_batched_tokens": 2048}),
        ("h100-sxm-80gb", "google/gemma-4-26B-A4B-it", {}),
        ("l4", "google/gemma-4-E4B-it", {}),
    ):
        assert not any(line.startswith("Raising") for line in _lines(gpu, model, **settings)), (gpu, model, settings)


SIZES = st.integers(min_value=1, max_value=1 << 20)


@examples(max_examples=300, deadline=None)
@given(
    default_tokens=st.sampled_from([2048, 8192, 16384]),
    default_seqs=st.sampled_from([256, 1024]),
    tokens=st.none() | SIZES,
    seqs=st.none() | st.integers(min_value=1, max_value=4096),
    max_model_len=st.none() | SIZES,
    floor=st.sampled_from([0, 2496]),
    capped=st.booleans(),
)
def test_settled_batch_invariants(
    default_tokens: int,
    default_seqs: int,
    tokens: int | None,
    seqs: int | None,
    max_model_len: int | None,
    floor: int,
    capped: bool,
) -> None:
    """What is given is kept; defaulted tokens stay within the default (or the floor) and the length cap; defaulted
    sequences never exceed the tokens; a longer context never settles fewer tokens."""
    got_tokens, got_seqs = settled_batch((default_tokens, default_seqs), tokens, seqs, max_model_len, floor, capped)
    assert got_tokens >= 1 and got_seqs >= 1
    if tokens is not None:
        assert got_tokens == tokens
    else:
        assert got_tokens <= max(default_tokens, floor)
        if capped and max_model_len:
            assert got_tokens <= (seqs or default_seqs) * max_model_len
            longer = settled_batch((default_tokens, default_seqs), None, seqs, max_model_len + 1, floor, capped)
            assert longer[0] >= got_tokens
    assert got_seqs == seqs if seqs is not None else got_seqs == min(default_seqs, got_tokens)


@examples(max_examples=200, deadline=None)
@given(
    seqs=st.none() | st.integers(min_value=1, max_value=64),
    max_model_len=st.integers(min_value=1, max_value=32768) | st.integers(min_value=1, max_value=1 << 20),
    gpu=st.sampled_from(["l4", "l40s", "h100-sxm-80gb", "b200-sxm", "dgx-spark-gb10"]),
)
def test_a_length_the_batch_reads_not_is_one_it_does_not(seqs: int | None, max_model_len: int, gpu: str) -> None:
    """Where :meth:`VllmProfile.batch_length` says the batch reads no length, it is the batch of any length that
    reads none (what keeps a stage across context changes relies on it)."""
    profile = VllmProfile(engine_version="0.31.0", max_num_seqs=seqs)
    card = get_gpu(gpu)
    total = card.engine_visible_bytes or card.memory_bytes
    if profile.batch_length(max_model_len) is None:
        assert profile.batch(total, card.name, max_model_len, GEMMA) == profile.batch(total, card.name, 1 << 22, GEMMA)


def test_a_batch_below_the_sequences_is_refused_by_name() -> None:
    """Both given, tokens under sequences: vLLM's scheduler config stops (every release read, 0.8.5-0.31.0), and the
    planner refuses the set-up with vLLM's words and both cures; one of them defaulted settles instead."""

    def request(**settings: object) -> PlanRequest:
        return PlanRequest(
            model=LLAMA,
            gpu=H100,
            gpu_memory_bytes=H100.engine_visible_bytes or H100.memory_bytes,
            context_tokens=8192,
            overhead=VllmProfile(engine_version="0.31.0", **settings),  # type: ignore[arg-type]
        )

    refused = get_engine("vllm").refusal(request(max_num_batched_tokens=512, max_num_seqs=1024))
    assert refused is not None
    assert "max_num_batched_tokens (512) must be greater than or equal to max_num_seqs (1024)" in refused
    assert "raise --max-num-batched-tokens to 1024 or lower --max-num-seqs to 512" in refused
    for settings in (
        {"max_num_batched_tokens": 512},
        {"max_num_seqs": 1024},
        {"max_num_batched_tokens": 1024, "max_num_seqs": 1024},
    ):
        assert get_engine("vllm").refusal(request(**settings)) is None, settings
