"""Issue 20, the launch settings people set (``--max-num-seqs``, ``--enforce-eager``, ``--kv-cache-memory`` …) on
the Memory page and in links: a link that carries them plans what ``fit`` plans with the same flags, the launch
command carries them, and an engine without the flag drops it and says why.

Before: the CLI took these flags but the dashboard could not be told them; a set-up run with ``--max-num-seqs 2``
on a 24 GB card was planned with vLLM's default batch (and its CUDA-graph memory).
"""

from __future__ import annotations

import json
from typing import Any

from planner.cli import main
from tests.app.conftest import COMMANDS, figures, nearest_link, plain, run_page, texts
from ui.setup_summary import lines
from ui.state import Selection

HOME = {"model": "Qwen/Qwen3-8B", "gpu": "rtx-3090", "engine": "vllm", "context": "8192", "users": "2"}
FLAGS = ["--model", "Qwen/Qwen3-8B", "--gpu", "rtx-3090", "--engine", "vllm", "--context", "8192", "--users", "2"]


def _metrics(at: Any) -> dict[str, str]:
    return dict(figures(at))


def _codes(at: Any) -> str:
    """The launch commands (drawn while their popover is open: run the page with ``open_keys=[COMMANDS]``)."""
    assert at.code, "the Launch commands popover is closed"
    return "\n".join(str(c.value) for c in at.code)


def _cli(capsys: Any, *flags: str) -> dict[str, Any]:
    assert main(["fit", *FLAGS, *flags, "--json"]) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)
    return answer


def test_a_link_with_launch_settings_plans_what_fit_plans_with_the_flags(capsys: Any) -> None:
    plain_run = run_page("memory", HOME)
    tuned = run_page(
        "memory", {**HOME, "max_num_seqs": "2", "enforce_eager": "true"}, editor=True, open_keys=[COMMANDS]
    )
    assert not tuned.exception and not tuned.error, texts(tuned.error)
    cli = _cli(capsys, "--max-num-seqs", "2", "--enforce-eager")
    default = _cli(capsys)
    assert cli["kv_budget_tokens"] > default["kv_budget_tokens"]  # no graph memory: a larger pool
    shown = _metrics(tuned)["KV budget"]
    assert f"{cli['kv_budget_tokens']:,} tokens" in shown, (shown, cli["kv_budget_tokens"])
    assert f"{default['kv_budget_tokens']:,} tokens" in _metrics(plain_run)["KV budget"]
    assert cli["verdict_sentence"] in texts(tuned.success) + texts(tuned.warning)
    command = _codes(tuned)
    assert "--max-num-seqs 2" in command and "--enforce-eager" in command
    assert tuned.number_input(key="max_num_seqs").value == 2 and tuned.checkbox(key="enforce_eager").value
    assert tuned.query_params["max_num_seqs"] == "2" and tuned.query_params["enforce_eager"] == "true"
    assert "max_num_seqs" not in plain_run.query_params  # unset: not in the link, the engine's default


def test_a_fixed_kv_cache_size_is_the_pool(capsys: Any) -> None:
    at = run_page("memory", {**HOME, "kv_cache_memory_gib": "4"}, open_keys=[COMMANDS])
    cli = _cli(capsys, "--kv-cache-memory-gib", "4")
    assert f"{cli['kv_budget_tokens']:,} tokens" in _metrics(at)["KV budget"]
    # the fraction still sets vLLM's start-up check of free memory (init_device's request_memory), so it is kept
    assert "--kv-cache-memory-bytes 4294967296" in _codes(at) and "--gpu-memory-utilization 0.92" in _codes(at)


def test_an_engine_without_the_flag_drops_it_and_says_why() -> None:
    """SGLang has no --kv-cache-memory (its cap is --max-total-tokens, in tokens): dropped and said; the sequences
    it takes as its own --max-running-requests."""
    at = run_page(
        "memory", {**HOME, "engine": "sglang", "max_num_seqs": "2", "kv_cache_memory_gib": "4"}, open_keys=[COMMANDS]
    )
    assert not at.exception
    notes = " ".join(texts(at.warning) + texts(at.info) + [plain(c.value) for c in at.caption])
    assert "SGLang has no --kv-cache-memory-bytes setting" in notes, notes
    assert "kv_cache_memory_gib" not in at.query_params and at.query_params["max_num_seqs"] == "2"
    assert "--kv-cache-memory-bytes" not in _codes(at) and "--max-running-requests 2" in _codes(at)


def test_sglang_runs_eager_and_caps_its_pool_under_its_own_flags() -> None:
    """A link's enforce_eager and max_total_tokens under SGLang: its --disable-cuda-graph (a larger pool) and
    --max-total-tokens (the pool capped), in the set-up summary, the command and the figures."""
    link = {**HOME, "engine": "sglang", "enforce_eager": "true", "max_total_tokens": "20000"}
    at = run_page("memory", link, open_keys=[COMMANDS])
    assert not at.exception and not at.error, texts(at.error)
    assert at.query_params["enforce_eager"] == "true" and at.query_params["max_total_tokens"] == "20000"
    commands = _codes(at)
    assert "--disable-cuda-graph" in commands and "--max-total-tokens 20000" in commands, commands
    assert "--enforce-eager" not in commands
    default = _metrics(run_page("memory", {**HOME, "engine": "sglang"}))["KV budget"]
    eager = _metrics(run_page("memory", {**HOME, "engine": "sglang", "enforce_eager": "true"}))["KV budget"]
    # The default 0.5.18 on a 24 GB card (nvidia-smi's 24,576 MiB): --disable-cuda-graph frees the graphs' share
    # (42 prefill sizes to 2,048 tokens x 8 MB + 24 x 2 MB = 384 MB): 0.016 of the 22.79 GiB free when the weights
    # start loading, 0.36 GiB more pool at 144 KiB a token
    assert (default, eager) == ("27,204 tokens", "29,860 tokens") and _metrics(at)["KV budget"] == "20,000 tokens"
    summary = "\n".join(plain(str(m.value)) for m in run_page("memory", link).markdown)
    assert "**Launch:** --disable-cuda-graph --max-total-tokens 20000" in summary, summary


def test_a_cold_link_says_its_launch_settings_in_the_set_up_summary() -> None:
    at = run_page("memory", {**HOME, "max_num_seqs": "2", "enforce_eager": "true", "kv_cache_memory_gib": "4.5"})
    summary = "\n".join(plain(str(m.value)) for m in at.markdown)
    assert "**Launch:** --max-num-seqs 2 --enforce-eager --kv-cache-memory-bytes 4831838208 (4.5 GiB)" in summary, (
        summary
    )
    assert "a fixed KV-cache size (the memory fraction is not used)" in summary and "fraction 0.92" not in summary


def test_a_fixed_kv_size_the_gpu_cannot_hold_offers_the_size_that_starts() -> None:
    """``--kv-cache-memory`` larger than the GPU: vLLM runs out of memory allocating the cache. The nearest set-up
    is a size that starts (not another memory fraction, which a fixed size ignores, nor "a GPU with more memory"),
    and its link opens a page that starts with that size."""
    at = run_page("memory", {**HOME, "model": "meta-llama/Llama-3.1-8B", "gpu": "h100-sxm-80gb", "users": "40",
                             "kv_cache_memory_gib": "500"})  # fmt: skip
    assert any("CUDA out of memory allocating the KV cache" in e for e in texts(at.error)), texts(at.error)
    assert not any("Nothing close does" in i for i in texts(at.info))
    shown = "\n".join(plain(str(m.value)) for m in at.markdown)
    offered = [line for line in shown.splitlines() if "[open](" in line]
    assert not any("memory fraction" in o for o in offered), offered
    params = nearest_link(shown, "--kv-cache-memory-bytes")
    assert any("--kv-cache-memory-bytes" in o and ": the largest that starts" in o for o in offered), offered
    opened = run_page("memory", params)
    assert not opened.error, texts(opened.error)
    assert float(params["kv_cache_memory_gib"]) < 500 and _metrics(opened)["Fits"] == "yes"


def test_a_hybrid_refused_for_its_mamba_blocks_offers_the_batch_vllm_advises() -> None:
    """2 x RTX 3090, Qwen3.6-27B in FP8 (issue 20's home set-up): vLLM refuses at its default 256 sequences for
    want of Mamba blocks and says to lower --max-num-seqs. The page offers it, and the link opens a page that
    starts with it in the launch command."""
    at = run_page("memory", {**HOME, "model": "Qwen/Qwen3.6-27B", "gpus": "2", "weights": "fp8", "users": "1"})
    assert any("exceeds available Mamba cache blocks" in e for e in texts(at.error)), texts(at.error)
    shown = "\n".join(plain(str(m.value)) for m in at.markdown)
    params = nearest_link(shown, "--max-num-seqs")
    opened = run_page("memory", params, open_keys=[COMMANDS])
    assert not opened.error and _metrics(opened)["Fits"] == "yes", texts(opened.error)
    assert f"--max-num-seqs {params['max_num_seqs']}" in _codes(opened)


def test_tensorrt_llm_windows_are_a_nearest_set_up_whose_link_plans_them(capsys: Any) -> None:
    """Gemma 3 27B under TensorRT-LLM on one H100 at 32k, 4 users: the engine's default keeps every token of the
    sliding-window layers (1 conversation); the first nearest set-up sets the attention window to the model's own,
    and its link opens the plan ``fit --max-attention-window`` makes (8 conversations), with the setting in the
    launch command."""
    gemma = {"model": "google/gemma-3-27b-it", "gpu": "h100-sxm-80gb", "engine": "trtllm", "context": "32768"}
    at = run_page("memory", {**gemma, "users": "4"})
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(str(m.value) for m in at.markdown)
    params = nearest_link(shown, "--max-attention-window")
    assert params["max_attention_window"] == "true" and params["engine"] == "trtllm", params
    opened = run_page("memory", params, open_keys=[COMMANDS])
    assert not opened.exception and not opened.error, texts(opened.error)
    flags = ["--model", gemma["model"], "--gpu", gemma["gpu"], "--engine", "trtllm", "--context", "32768"]
    assert main(["fit", *flags, "--users", "4", "--max-attention-window", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["conversations_total"] == 8
    assert cli["verdict_sentence"] in texts(opened.success)
    assert "max_attention_window: [1024, 1024, 1024, 1024, 1024, 32768" in _codes(opened)
    assert opened.checkbox(key="max_attention_window").value


def test_the_extensible_kv_cache_turned_off_on_0_34_and_refused_before_it(capsys: Any) -> None:
    """``--no-enable-extensible-kv-cache`` (vLLM 0.34.0 engine/arg_utils.py :1412-1415): on 0.34 the link plans
    what ``fit`` plans with the flag (0.33's sizing at 0.92) and the launch command carries it; on 0.31 the page
    says the release has no such flag and plans without the launch settings, as ``fit`` refuses it."""
    link = {**HOME, "engine_version": "0.34.0", "no_enable_extensible_kv_cache": "true"}
    at = run_page("memory", link, editor=True, open_keys=[COMMANDS])
    assert not at.exception and not at.error, texts(at.error)
    cli = _cli(capsys, "--engine-version", "0.34.0", "--no-enable-extensible-kv-cache")
    extensible = _cli(capsys, "--engine-version", "0.34.0")
    assert cli["kv_budget_tokens"] != extensible["kv_budget_tokens"]
    assert f"{cli['kv_budget_tokens']:,} tokens" in _metrics(at)["KV budget"]
    command = _codes(at)
    assert "--no-enable-extensible-kv-cache" in command and "--gpu-memory-utilization 0.92 " in command
    assert at.query_params["no_enable_extensible_kv_cache"] == "true"
    old = run_page("memory", {**link, "engine_version": "0.31.0"}, editor=True)
    assert not old.exception
    said = " ".join(texts(old.error))
    assert "vLLM 0.31.0 has no --no-enable-extensible-kv-cache" in said, said
    assert main(["fit", *FLAGS, "--engine-version", "0.31.0", "--no-enable-extensible-kv-cache"]) != 0


def test_ticking_it_moves_the_fraction_to_the_default_without_it(capsys: Any) -> None:
    """vLLM 0.34's default fraction is 1.0 only with the extensible KV cache (config/cache.py :495-501): ticked in
    the sidebar, the fraction follows to 0.92, and the page plans what ``fit`` plans with the flag (at 1.0 without
    the extensible cache vLLM would refuse: less is free at start than the whole GPU)."""
    at = run_page("memory", {**HOME, "engine_version": "0.34.0"}, editor=True, open_keys=["launch_open"])
    assert at.number_input(key="util").value == 1.0
    at.checkbox(key="no_enable_extensible_kv_cache").check().run()
    assert not at.exception and not at.error, texts(at.error)
    assert at.number_input(key="util").value == 0.92
    cli = _cli(capsys, "--engine-version", "0.34.0", "--no-enable-extensible-kv-cache")
    assert f"{cli['kv_budget_tokens']:,} tokens" in _metrics(at)["KV budget"]


def test_a_spark_link_with_a_loader_plans_what_fit_plans_with_it(capsys: Any) -> None:
    """On a DGX Spark vLLM's loader moves the KV pool (planner.engines.vllm.unified: the read-ahead loaders hold a
    larger share of the weights through the profile run): a link with ``load_format`` plans what ``fit
    --load-format fastsafetensors`` plans, smaller than the default loader's, says so in the set-up summary and
    the launch command, and a value the setting does not offer is dropped with a named message."""
    spark = {**HOME, "gpu": "dgx-spark-gb10", "model": "Qwen/Qwen3-14B", "context": "32768", "util": "0.8"}
    flags = ["--model", "Qwen/Qwen3-14B", "--gpu", "dgx-spark-gb10", "--engine", "vllm", "--context", "32768"]
    flags += ["--gpu-util", "0.8"]
    at = run_page("memory", {**spark, "load_format": "fastsafetensors"}, open_keys=[COMMANDS])
    assert not at.exception and not at.error, texts(at.error)
    assert main(["fit", *flags, "--users", "2", "--load-format", "fastsafetensors", "--json"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert main(["fit", *flags, "--users", "2", "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert fast["kv_budget_tokens"] < default["kv_budget_tokens"]
    assert f"{fast['kv_budget_tokens']:,} tokens" in _metrics(at)["KV budget"]
    assert "--load-format fastsafetensors" in _codes(at)
    summary = "\n".join(plain(str(m.value)) for m in at.markdown)
    assert "**Launch:** --load-format fastsafetensors" in summary, summary
    assert at.query_params["load_format"] == "fastsafetensors"
    bad = run_page("memory", {**spark, "load_format": "<b>pt</b>"})
    assert not bad.exception and "load_format" not in bad.query_params
    said = " ".join(texts(bad.warning) + texts(bad.info) + texts(bad.error) + [plain(c.value) for c in bad.caption])
    assert "--load-format" in said and "<b>" not in said, said


def test_tensorrt_llm_batch_settings_under_its_own_names(capsys: Any) -> None:
    """A link's ``max_num_seqs`` and ``max_num_batched_tokens`` under TensorRT-LLM are its ``--max_batch_size`` and
    ``--max_num_tokens``: the sidebar labels them so, the set-up summary and the launch command say them, and the
    page plans what ``fit --engine trtllm`` plans with the same settings."""
    link = {**HOME, "gpu": "h100-sxm-80gb", "engine": "trtllm", "max_num_seqs": "8", "max_num_batched_tokens": "4096"}
    at = run_page("memory", link, editor=True, open_keys=[COMMANDS, "launch_open"])
    assert not at.exception and not at.error, texts(at.error)
    assert at.number_input(key="max_num_seqs").label == "--max_batch_size"
    assert at.number_input(key="max_num_batched_tokens").label == "--max_num_tokens"
    assert "--max_batch_size 8 --max_num_tokens 4096" in _codes(at)
    flags = ["--model", "Qwen/Qwen3-8B", "--gpu", "h100-sxm-80gb", "--engine", "trtllm", "--context", "8192"]
    assert (
        main(["fit", *flags, "--users", "2", "--max-num-seqs", "8", "--max-num-batched-tokens", "4096", "--json"]) == 0
    )
    cli = json.loads(capsys.readouterr().out)
    assert f"{cli['kv_budget_tokens_per_replica']:,} tokens" in _metrics(at)["KV budget"]
    # the set-up summary a cold link shows (this one opens the editor: the release is extrapolated, an alert)
    sel = Selection(model_id="Qwen/Qwen3-8B", gpu_id="h100-sxm-80gb", engine="trtllm", max_num_seqs=8)
    assert ("Launch", "--max_batch_size 8") in lines(sel.model_copy(update={"max_num_batched_tokens": None}))


def test_a_binding_token_cap_offers_the_cap_that_holds_the_target() -> None:
    """SGLang's --max-total-tokens below the target's tokens: the nearest set-up raises it, and its link opens a
    page that meets the target with that cap."""
    link = {**HOME, "gpu": "h100-sxm-80gb", "engine": "sglang", "max_total_tokens": "20000", "users": "10"}
    at = run_page("memory", link)
    shown = "\n".join(plain(str(m.value)) for m in at.markdown)
    params = nearest_link(shown, "--max-total-tokens 81920")
    assert params["max_total_tokens"] == "81920" and params["engine"] == "sglang", params
    opened = run_page("memory", params)
    assert not opened.error and _metrics(opened)["KV budget"] == "81,920 tokens", _metrics(opened)


def test_prefix_caching_on_or_off_in_a_link_plans_what_fit_plans(capsys: Any) -> None:
    """Review 45c, finding 8: ``enable_prefix_caching=true`` on 0.27.1 (opt-in for hybrids there) and ``=false`` on
    0.28.0 (on by default) plan what ``fit --enable-prefix-caching`` / ``--no-enable-prefix-caching`` plan (Qwen3.8-27B
    FP8 on one H100, 256 sequences: 418,273 tokens with 'align's second state page, 507,904 without); the sidebar's
    box holds the side, the set-up summary and the launch command say it, and SGLang drops it naming its own
    --disable-radix-cache. Before, the link parameter was unknown and dropped."""
    hybrid = {**HOME, "model": "Qwen/Qwen3.8-27B", "weights": "fp8", "gpu": "h100-sxm-80gb", "max_num_seqs": "256"}
    flags = ["--model", "Qwen/Qwen3.8-27B", "--weights", "fp8", "--gpu", "h100-sxm-80gb", "--engine", "vllm"]
    flags += ["--context", "8192", "--users", "2", "--max-num-seqs", "256"]
    for version, value, flag, tokens in (
        # 418,273 and 507,904 until the mechanistic non-torc
        #  model (2026-12-07, fifty-third session): Qwen3.8-27B's vision encoder's amount; 409,600 and 497,371 until
        #  make calibrate refitted that amount without club-3090 #851's INT4 weights (2026-12-07, fifty-fourth session);
        #  411,045 and 499,126 until FlashInfer's workspace was placed in FULL's first capture and make calibrate
        #  refit the encoder amount to 46,417 B (2026-12-07); 410,563 and 498,541 until the MTP drafter's buffers and
        #  make calibrate's encoder refit to 41,312 B (2026-12-07, fifty-fifth session); 411,527 and 499,712 until the
        #  Triton sampler's cached buffer beside the Gated DeltaNet layer's peak (fifty-sixth session)
        ("0.27.1", "true", "--enable-prefix-caching", 412_009),
        ("0.28.0", "false", "--no-enable-prefix-caching", 500_297),
    ):
        link = {**hybrid, "engine_version": version, "enable_prefix_caching": value}
        at = run_page("memory", link, editor=True, open_keys=[COMMANDS, "launch_open"])
        assert not at.exception and not at.error, texts(at.error)
        assert main(["fit", *flags, "--engine-version", version, flag, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["kv_budget_tokens"] == tokens
        assert f"{tokens:,} tokens" in _metrics(at)["KV budget"], _metrics(at)
        vllm = next(line for line in _codes(at).splitlines() if line.startswith("vllm serve"))
        assert vllm.endswith(f"--max-num-seqs 256 {flag}"), vllm
        assert at.selectbox(key="enable_prefix_caching").value is (value == "true")
        assert at.query_params["enable_prefix_caching"] == value
        summary = "\n".join(plain(str(m.value)) for m in run_page("memory", link).markdown)
        assert f"**Launch:** --max-num-seqs 256 {flag}" in summary, summary
    dense = {**hybrid, "model": "Qwen/Qwen3-8B", "engine": "sglang"}
    sglang = run_page("memory", {**dense, "enable_prefix_caching": "false"})
    notes = " ".join(texts(sglang.warning) + texts(sglang.info) + [plain(c.value) for c in sglang.caption])
    assert "SGLang has no --enable-prefix-caching setting; its own --disable-radix-cache is not planned here" in notes
    assert "enable_prefix_caching" not in sglang.query_params


def test_an_align_step_refusal_offers_its_two_cures_whose_links_start() -> None:
    """Review 45c, finding 3: vLLM 0.26.0 with prefix caching on asserts the hybrid's attention block (1,056 tokens)
    fits a step (1,024 given): the page says vLLM's words, and the nearest set-ups are the step raised to the block
    and prefix caching off, each link opening a page that starts with it."""
    link = {**HOME, "model": "Qwen/Qwen3.6-35B-A3B", "gpu": "h100-sxm-80gb", "engine_version": "0.26.0",
            "max_num_batched_tokens": "1024", "max_num_seqs": "64", "enable_prefix_caching": "true"}  # fmt: skip
    at = run_page("memory", link)
    said = "In Mamba cache align mode, block_size (1056) must be <= max_num_batched_tokens (1024)."
    assert any(said in e for e in texts(at.error)), texts(at.error)
    shown = "\n".join(plain(str(m.value)) for m in at.markdown)
    for change, param, value in (
        ("--max-num-batched-tokens 1056", "max_num_batched_tokens", "1056"),
        ("--no-enable-prefix-caching", "enable_prefix_caching", "false"),
    ):
        params = nearest_link(shown, change)
        assert params[param] == value, params
        opened = run_page("memory", params)
        assert not opened.error and _metrics(opened)["Fits"] == "yes", texts(opened.error)


def test_the_model_runner_in_a_link_plans_what_fit_plans(capsys: Any) -> None:
    """``use_v2_model_runner=false`` (VLLM_USE_V2_MODEL_RUNNER=0): the public vLLM 0.26.0 boot of Gemma 4 31B on one
    B300 run with it (blind set f, 182.37 GiB printed) is planned as ``fit --no-use-v2-model-runner`` plans it,
    217,090 tokens (220,732 at the release's choice, Model Runner V2; 217,078 and 220,720 until the Gated DeltaNet
    layer's peak beside the Triton sampler's cached buffer, 2026-12-07, fifty-sixth session; 217,095 until the Triton
    sampler's cached buffer
    and the refit Triton copies, 2026-12-07, fifty-sixth session; 217,084 and 220,705 until the MTP drafter's
    buffers and make calibrate's encoder refit to 41,312 B, 2026-12-07, fifty-fifth session; 217,093 and 220,717
    until FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder amount to
    46,417 B, 2026-12-07; 217,066 and 220,691 until make calibrate
    refitted the encoder amount without club-3090 #851's INT4 weights, 2026-12-07, fifty-fourth session; 217,282 and
    220,903 until the mechanistic
    non-torch model planned Gemma 4's encoder amount, 2026-12-07, fifty-third session; 216,837 and 221,147 before Gemma
    4's V slot was
    planned, planner/engines/vllm/slots.py; 216,593 before the graph estimate's cost per graph on compute capability
    10.x was fitted on this boot, 2026-12-07); the sidebar's box holds the side, the set-up
    summary and the command say it. On 0.34.0, which has no such variable, the page names it, as ``fit`` does."""
    gemma = {**HOME, "model": "google/gemma-4-31B-it", "gpu": "b300-sxm", "context": "16384", "users": "1"}
    link = {**gemma, "engine_version": "0.26.0", "use_v2_model_runner": "false"}
    at = run_page("memory", link, editor=True, open_keys=[COMMANDS, "launch_open"])
    assert not at.exception and not at.error, texts(at.error)
    flags = ["fit", "--model", "google/gemma-4-31B-it", "--gpu", "b300-sxm", "--engine", "vllm", "--context", "16384"]
    assert main([*flags, "--engine-version", "0.26.0", "--no-use-v2-model-runner", "--json"]) == 0
    tokens = json.loads(capsys.readouterr().out)["kv_budget_tokens"]
    assert tokens == 217_090 and "217,090 tokens" in _metrics(at)["KV budget"], _metrics(at)
    assert "220,732 tokens" in _metrics(run_page("memory", {**gemma, "engine_version": "0.26.0"}))["KV budget"]
    vllm = next(line for line in _codes(at).splitlines() if "vllm serve" in line)
    assert vllm.startswith("VLLM_USE_V2_MODEL_RUNNER=0 vllm serve google/gemma-4-31B-it "), vllm
    assert at.selectbox(key="use_v2_model_runner").value is False
    assert at.query_params["use_v2_model_runner"] == "false"
    summary = "\n".join(plain(str(m.value)) for m in run_page("memory", link).markdown)
    assert "**Launch:** VLLM_USE_V2_MODEL_RUNNER=0" in summary, summary
    new = run_page("memory", {**link, "engine_version": "0.34.0"}, editor=True)
    assert not new.exception
    said = " ".join(texts(new.error))
    assert "vLLM 0.34.0 has no VLLM_USE_V2_MODEL_RUNNER" in said, said


def test_a_cold_compile_cache_in_a_link_plans_what_fit_plans(capsys: Any) -> None:
    """``compile_cache=cold`` (a first boot, a container without a kept ~/.cache/vllm, VLLM_DISABLE_COMPILE_CACHE=1):
    the Memory page plans what ``fit --compile-cache cold`` plans, the smaller pool (Qwen3-8B on one RTX 3090 under
    vLLM 0.31.0: 29,888 tokens, 36,576 warm; 22,288 and 28,976 until the mechanistic non-torch model planned no
    desktop share, 21,344 and 28,016 until the desktop cards' share was refitted beside FlashInfer's decode
    workspace, both 2026-12-07), its box holds it, the set-up summary says it and the launch command
    says what cold means above it. A value it does not offer is dropped, named; SGLang drops it, saying it has no
    such setting. Before, the link parameter was unknown and the page planned warm."""
    at = run_page("memory", {**HOME, "compile_cache": "cold"}, editor=True, open_keys=[COMMANDS, "launch_open"])
    assert not at.exception and not at.error, texts(at.error)
    cli = _cli(capsys, "--compile-cache", "cold")
    assert cli["kv_budget_tokens"] == 29_888 and "29,888 tokens" in _metrics(at)["KV budget"], _metrics(at)
    assert "36,576 tokens" in _metrics(run_page("memory", HOME))["KV budget"]
    lines = _codes(at).splitlines()
    vllm = next(i for i, line in enumerate(lines) if line.startswith("vllm serve"))
    assert lines[vllm - 1].startswith("# Planned with a cold torch.compile cache (--compile-cache cold)"), lines
    assert at.selectbox(key="compile_cache").value == "cold" and at.query_params["compile_cache"] == "cold"
    summary = "\n".join(plain(str(m.value)) for m in run_page("memory", {**HOME, "compile_cache": "cold"}).markdown)
    assert "**Launch:** --compile-cache cold" in summary, summary
    bad = run_page("memory", {**HOME, "compile_cache": "<b>lukewarm</b>"})
    assert not bad.exception and "compile_cache" not in bad.query_params
    said = " ".join(texts(bad.warning) + texts(bad.info) + texts(bad.error) + [plain(c.value) for c in bad.caption])
    assert "--compile-cache" in said and "<b>" not in said, said
    sglang = run_page("memory", {**HOME, "engine": "sglang", "compile_cache": "cold"})
    notes = " ".join(texts(sglang.warning) + texts(sglang.info) + [plain(c.value) for c in sglang.caption])
    assert "SGLang has no --compile-cache setting" in notes and "compile_cache" not in sglang.query_params, notes
