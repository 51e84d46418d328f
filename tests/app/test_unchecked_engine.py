"""The Memory page says a TensorRT-LLM figure is unchecked, as the advice and `fit` do
(planner.assessment.accuracy.unchecked_sentence); its "How close" caption had nothing for it."""

from __future__ import annotations

from tests.app.conftest import plain, run_page


def test_the_memory_page_says_the_figure_is_unchecked() -> None:
    link = {"model": "meta-llama/Llama-3.3-70B-Instruct", "gpu": "b200-sxm", "gpus": "2", "weights": "fp8", "kv": "fp8"}
    at = run_page("memory", {**link, "context": "32768", "users": "50", "engine": "trtllm"})
    assert not at.exception
    captions = [plain(c.value) for c in at.caption]
    assert "How close: No public start-up of TensorRT-LLM on datacenter GPUs checks its memory figure." in captions
    at = run_page("memory", {**link, "context": "32768", "users": "50", "engine": "vllm"})
    assert not any("checks its memory figure" in plain(c.value) for c in at.caption)


def test_the_memory_page_verdict_is_the_advices_colour() -> None:
    """Where the widest miss measured on datacenter GPUs would leave the target short (51 of 51 at 32,832 tokens, 50
    after it), the Memory page's verdict is a warning that says so, as the advice undermines that option; one user
    fewer and it is a success again."""
    link = {"model": "meta-llama/Llama-3.3-70B-Instruct", "gpu": "b200-sxm", "gpus": "2", "weights": "fp8", "kv": "fp8"}
    at = run_page("memory", {**link, "context": "32832", "users": "51", "engine": "trtllm"})
    assert not at.exception and not at.success
    captions = [plain(c.value) for c in at.caption]  # said once: the caption does not repeat the verdict's clause
    assert "How close: No public start-up of TensorRT-LLM on datacenter GPUs checks its memory figure." in captions
    assert (
        # 0.93 GiB until the mechanistic non-torch model (2026-12-07, fifty-third session); 1.15 GiB of 32 until the
        # twenty-fourth blind set's A100 boot and make calibrate's encoder refit (2026-12-07, fifty-fourth session);
        # 1.09 until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder
        # amount to 46,417 B (2026-12-07, planner/engines/accuracy.toml); 1.29 until the Triton sampler's cached
        # buffer and the refit Triton copies (2026-12-07, fifty-sixth session); 1.36 until the Gated DeltaNet layer's
        # own peak beside it (the same session); 1.15 of 33 until the twenty-fifth blind set (2026-12-08)
        "with the widest miss measured there (1.34 GiB per GPU, within which nine in ten of 37 public start-ups of "
        "vLLM stayed) it would hold 50 against the target of 51" in (plain(at.warning[0].value))
    )
    at = run_page("memory", {**link, "context": "32832", "users": "50", "engine": "trtllm"})
    assert at.success and "widest miss" not in plain(at.success[0].value)
