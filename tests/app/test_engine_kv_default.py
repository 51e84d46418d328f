"""The KV cache a set-up plans when none is chosen is the engine's own: llama.cpp caches in f16 whatever the model
(``--cache-type-k/v`` default f16, common/common.h), so a llama.cpp link planned BF16, which the CLI plans as f16
and whose launch command asked ``--cache-type-k bf16`` (review, 2026-12-05). A choice the reader made is kept when
the engine changes; the previous engine's default gives way to the new engine's."""

from __future__ import annotations

from tests.app.conftest import run_page

LLAMA = {"model": "Qwen/Qwen3-8B", "gpu": "rtx-4090", "engine": "llamacpp", "context": "8192", "users": "2"}


def _kv(at: object) -> str:
    value = at.query_params["kv"]  # type: ignore[attr-defined]
    return value if isinstance(value, str) else value[0]


def test_a_llamacpp_link_caches_in_f16_by_default() -> None:
    for editor in (False, True):
        at = run_page("memory", LLAMA, editor=editor)
        assert not at.exception, [e.value for e in at.exception]
        assert _kv(at) == "fp16"
    at = run_page("memory", {**LLAMA, "engine": "vllm"}, editor=True)
    assert _kv(at) == "bf16"  # vLLM: --kv-cache-dtype auto, the model's BF16


def test_the_engine_default_follows_the_engine_and_a_choice_stays() -> None:
    at = run_page("memory", {**LLAMA, "engine": "vllm"}, editor=True)
    at.selectbox(key="engine").select("llamacpp").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _kv(at) == "fp16" and at.selectbox(key="kv").value == "fp16"
    at.selectbox(key="engine").select("vllm").run()
    assert _kv(at) == "bf16"
    at.selectbox(key="kv").select("fp8").run()  # chosen: not the default of vLLM, so it stays
    at.selectbox(key="engine").select("sglang").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _kv(at) == "fp8"


DSA = {"model": "deepseek-ai/DeepSeek-V3.2", "gpu": "b200-sxm", "gpus": "8", "engine": "sglang", "context": "32768"}


def test_sglang_caches_deepseek_sparse_attention_in_fp8_on_blackwell_as_the_cli_does() -> None:
    """A maintainer's review (2026-12-06): the CLI planned SGLang's FP8 e4m3 default for DeepSeek-V3.2 on B200s (its
    auto on compute capability 10+), the page BF16, twice the cache. The default follows the GPU as the engine."""
    at = run_page("memory", DSA, editor=True)
    assert not at.exception, [e.value for e in at.exception]
    assert _kv(at) == "fp8_e4m3"
    at.selectbox(key="gpu").select("h200-sxm-141gb").run()
    assert not at.exception, [e.value for e in at.exception]
    assert _kv(at) == "bf16"  # Hopper: the model's own dtype
