"""The engine offered is one that runs on the chosen GPU: a Mac link planned vLLM, which runs nothing on Apple GPUs,
showed only the refusal, and opening the set-up's editor raised ("'bf16' is not in list": no weight format to
offer) and cut the address bar to four settings (browser audit, 2026-12-05)."""

from __future__ import annotations

from tests.app.conftest import run_page

MAC = {"model": "meta-llama/Llama-3.1-8B", "gpu": "apple-m3-ultra", "context": "8192", "users": "2"}


def test_a_mac_link_plans_an_engine_that_runs_there() -> None:
    for editor in (False, True):
        at = run_page("memory", MAC, editor=editor)
        assert not at.exception, [e.value for e in at.exception]
        assert at.query_params["engine"] in ("llamacpp", ["llamacpp"])
        assert at.title and "M3 Ultra" in at.title[0].value
        for key in ("weights", "kv", "users", "context"):
            assert key in at.query_params, key
    at = run_page("memory", MAC, editor=True)
    assert "vllm" not in at.selectbox(key="engine").options


def test_a_link_asking_an_engine_that_runs_nothing_there_says_so() -> None:
    at = run_page("memory", {**MAC, "engine": "vllm"}, editor=True)
    assert not at.exception, [e.value for e in at.exception]
    notes = " ".join(w.value for w in at.warning if "ignored" in w.value)
    assert "vLLM runs nothing on Apple M3 Ultra" in notes.replace("\\", ""), notes
    assert at.query_params["engine"] in ("llamacpp", ["llamacpp"])
