"""TensorRT-LLM keeps every token of a model's sliding-window and chunked layers unless its attention window is set
at run time (planner/engines/trtllm.py's docstring: ``KvCacheConfig.max_attention_window`` defaults to
``max_seq_len`` for every layer; the model's ``sliding_window`` is not read into it). The plan (Memory page, CLI
``fit``), the engine's report and the advisor's pool and speed follow that one rule."""

from __future__ import annotations

import subprocess
from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import load_rows
from planner.advisor.risk import cost_curve
from planner.advisor.validation import scored
from planner.assessment.assess import assess
from planner.core.kv import every_token_cached
from planner.engines.registry import engine_report, get_engine
from planner.engines.trtllm import TrtllmProfile
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
MISTRAL = get_model("mistralai/Mistral-7B-v0.1").spec  # 32 layers x 8 KV heads x 128, sliding window 4096
# One token of Mistral-7B-v0.1 in FP16 over its 32 layers: 2 (K and V) x 8 heads x 128 x 2 bytes x 32 = 131,072.
PER_TOKEN = 2 * 8 * 128 * 2 * 32
UNSEEN = Path(__file__).parents[1] / "advisor" / "benchmarks" / "unseen-2026-12.toml"


def _request(overhead: object, context: int = 22_000) -> PlanRequest:
    return PlanRequest(
        model=MISTRAL,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        weights="bf16",
        kv_dtype="fp16",
        context_tokens=context,
        max_model_len=context,
        overhead=overhead,  # type: ignore[arg-type]
    )


def test_mistral_sequence_holds_every_token_under_trtllm() -> None:
    """A 22,000-token Mistral-7B-v0.1 sequence: 32 x 8 x 128 x 2 x 2 bytes x 22,000 = 2,883,584,000 under
    TensorRT-LLM's default window, the 4,096-token window's 536,870,912 under vLLM's hybrid manager or with
    TensorRT-LLM's attention window set."""
    assert MISTRAL.sliding_window == 4096 and MISTRAL.num_hidden_layers == 32
    trt = plan(_request(TrtllmProfile()))
    assert trt.capacity.kv_bytes_per_sequence == PER_TOKEN * 22_000 == 2_883_584_000
    assert assess(_request(TrtllmProfile())).result.capacity.kv_bytes_per_sequence == 2_883_584_000
    assert plan(_request(VllmProfile())).capacity.kv_bytes_per_sequence == PER_TOKEN * 4096 == 536_870_912
    windowed = plan(_request(TrtllmProfile(attention_windows=True)))
    assert windowed.capacity.kv_bytes_per_sequence == 536_870_912


def test_the_attention_window_option_sizes_the_report_by_the_window() -> None:
    """Same pool, blocks of 32 tokens: by default a 22,000-token sequence takes ceil(22,000 / 32) = 688 blocks of
    every layer; with the window set its layers keep 4,096 tokens, 128 blocks' worth: 688 / 128 = 5.375 times the
    conversations."""
    full = engine_report(_request(TrtllmProfile()), plan(_request(TrtllmProfile())))
    window = TrtllmProfile(attention_windows=True)
    windowed = engine_report(_request(window), plan(_request(window)))
    assert full.gpu_blocks == windowed.gpu_blocks > 0
    assert full.max_concurrency == full.gpu_blocks / 688
    assert windowed.max_concurrency == windowed.gpu_blocks / 128
    assert windowed.max_concurrency / full.max_concurrency == 688 / 128


def test_the_advisors_pool_curve_follows_the_engine() -> None:
    """The advisor's cost of a conversation in the pool: TensorRT-LLM's grows with every token past the window;
    vLLM's stops at it."""
    trt = get_engine("trtllm").profile().kv_model(MISTRAL)
    assert trt == every_token_cached(MISTRAL) and trt.sliding_window != 4096
    assert cost_curve(trt, "fp16", 1).at(22_000) == PER_TOKEN * 22_000
    vllm = get_engine("vllm").profile().kv_model(MISTRAL)
    assert vllm is MISTRAL and cost_curve(vllm, "fp16", 1).at(22_000) == PER_TOKEN * 4096


def test_trtllm_017_mistral_long_context_cells_within_the_bound() -> None:
    """TensorRT-LLM 0.17's Mistral-7B-v0.1 cells at 20000/2000 (perf-overview v0.17) equal Llama-3.1-8B's
    (H100 1,373 vs 1,401 tokens/s): scored with the 4,096-token window they were +96 to +106 %; with every token
    cached and read, -16 to +6 % (L40S -15.8 %, H100 -3.5 %, H200 -3.8 %, A100 +5.5 %)."""
    rows = tuple(r for r in load_rows((UNSEEN,)) if "mistral-7b" in r.id and r.id.endswith("-20000-2000"))
    assert len(rows) == 4
    errors = {s.id: s.error for s in scored(rows)}
    assert all(e is not None and abs(e) <= 0.2 for e in errors.values()), errors


def test_the_launch_command_carries_the_windows_it_was_planned_with() -> None:
    """With the window set, the command carries it (trtllm-serve has no flag for it: the LLM API's
    ``kv_cache_config.max_attention_window`` in the ``--extra_llm_api_options`` file the shell writes), one window per
    layer: Mistral's 32 layers at 4,096. Before, a comment line named it and the pasted command ran without it."""
    engine = get_engine("trtllm")
    window = TrtllmProfile(attention_windows=True)
    request = _request(window)
    (serve,) = engine.launch_command(request, plan(request), window).split("\n")
    assert serve.startswith("trtllm-serve ")
    windows = "  max_attention_window: [" + ", ".join(["4096"] * 32) + "]"
    chunked = "enable_chunked_prefill: true"  # 22,000 tokens at 8,192 a step
    assert options_file(serve) == ["kv_cache_config:", "  free_gpu_memory_fraction: 0.9", windows, chunked]
    plain = _request(TrtllmProfile(), context=8192)
    assert "extra_llm_api_options" not in engine.launch_command(plain, plan(plain), TrtllmProfile())


def options_file(command: str) -> list[str]:
    """The lines of the ``--extra_llm_api_options <(...)`` file a command's shell writes."""
    flag = command[command.index("--extra_llm_api_options ") :]
    substitution = flag.split(" ", 1)[1]
    written = subprocess.run(["bash", "-c", f"cat {substitution}"], capture_output=True, text=True, check=True)
    return written.stdout.splitlines()


def test_the_kv_dtype_goes_in_the_options_file() -> None:
    """trtllm-serve 1.0 has no ``--kv_cache_dtype`` (NVIDIA/TensorRT-LLM PR #11487 added it, merged 2026-03-03, in the
    1.3 line): an FP8 cache is the LLM API's ``kv_cache_config.dtype`` (``tensorrt_llm/llmapi/llm_args.py``
    ``KvCacheConfig.dtype``), in the same file as the windows."""
    engine = get_engine("trtllm")
    window = TrtllmProfile(attention_windows=True)
    request = _request(window).model_copy(update={"kv_dtype": "fp8"})
    (serve,) = engine.launch_command(request, plan(request), window).split("\n")
    assert "--kv_cache_dtype" not in serve
    lines = options_file(serve)
    assert lines[:3] == ["kv_cache_config:", "  free_gpu_memory_fraction: 0.9", "  dtype: fp8"]
    assert lines[3].startswith("  max_attention_window: [4096")


def test_the_report_says_what_the_windows_would_give() -> None:
    """The default report names the setting and what it changes: 688 blocks a sequence against 128 with the
    window, 21.5 conversations of 22,000 tokens against 115.7 (5.375x) in the same pool; no note once the window is
    set, nor for a model without one."""
    full = engine_report(_request(TrtllmProfile()), plan(_request(TrtllmProfile())))
    (note,) = [n for n in full.notes if "attention window" in n]
    assert "sliding-window layers (4,096 tokens)" in note and "kv_cache_config.max_attention_window" in note
    assert f"{full.max_concurrency:,.1f}" == "21.5" and "holds 115.7 conversations of 22,000 tokens, not 21.5" in note
    engine_build = TrtllmProfile(engine_version="0.17.0")
    old = engine_report(_request(engine_build), plan(_request(engine_build)))
    assert any("--max_attention_window_size" in n for n in old.notes)
    window = TrtllmProfile(attention_windows=True)
    assert not any("attention window" in n for n in engine_report(_request(window), plan(_request(window))).notes)
    llama = _request(TrtllmProfile()).model_copy(update={"model": get_model("meta-llama/Llama-3.1-8B").spec})
    assert not any("attention window" in n for n in engine_report(llama, plan(llama)).notes)


GEMMA3 = get_model("google/gemma-3-27b-it").spec  # 5 of every 6 layers slide over 1,024 tokens


def _gemma_request(overhead: object, context: int = 32_768) -> PlanRequest:
    return _request(overhead, context).model_copy(update={"model": GEMMA3})


def test_the_attention_window_is_a_launch_setting_of_tensorrt_llm_alone() -> None:
    """``--max-attention-window`` (link ``max_attention_window``) is declared once with the other launch settings:
    TensorRT-LLM takes it into its profile; vLLM, SGLang and llama.cpp, which size windowed layers by their windows
    already, refuse it with their own reason."""
    from planner.bounds.errors import PlannerError
    from planner.engines.registry import overhead_profile, settings_taken

    taken = [s.name for s in settings_taken("trtllm")]
    # the batch ones under its own names; data-parallel attention is its enable_attention_dp
    assert taken == ["max_num_batched_tokens", "max_num_seqs", "enable_dp_attention", "max_attention_window"]
    assert overhead_profile("trtllm", max_attention_window=True) == TrtllmProfile(attention_windows=True)
    for engine in ("vllm", "sglang", "llamacpp"):
        assert "max_attention_window" not in {s.name for s in settings_taken(engine)}
        try:
            overhead_profile(engine, max_attention_window=True)
        except PlannerError as exc:
            assert "--max-attention-window" in str(exc), exc
        else:
            raise AssertionError(f"{engine} took --max-attention-window")


def test_fit_plans_the_window_when_asked(capsys: object) -> None:
    """Gemma 3 27B on one H100 at 32k under TensorRT-LLM: 1 conversation (1.53) by default, 8 with the window set
    (the report's 8.1: 5 of 6 layers keep 1,024 tokens instead of 32,768)."""
    from planner.cli import main

    args = ["fit", "--model", "google/gemma-3-27b-it", "--gpu", "h100-sxm-80gb", "--engine", "trtllm"]
    args += ["--context", "32768", "--json"]
    import json

    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert main([*args, "--max-attention-window"]) == 0
    windowed = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert (default["conversations_total"], round(default["max_concurrency_total"], 2)) == (1, 1.53)
    assert windowed["conversations_total"] == 8


def test_the_nearest_set_up_sets_the_window_before_buying_more() -> None:
    """Short of a 4-user target, the first nearest set-up is the window setting on the same GPU (it holds 8), before
    a higher memory fraction, more GPUs or a smaller format."""
    from planner.assessment.alternatives import nearest_fitting

    request = _gemma_request(TrtllmProfile())
    assert assess(request, 4).result.capacity.conversations == 1
    first = nearest_fitting(request, 4)[0]
    assert first.change.startswith("--max-attention-window"), first.change
    assert first.request.overhead == TrtllmProfile(attention_windows=True)
    assert first.assessment.result.capacity.conversations == 8
    windowed = _gemma_request(TrtllmProfile(attention_windows=True))  # set already; no window in Llama 3.1
    assert not any(a.change.startswith("--max-attention-window") for a in nearest_fitting(windowed, 40))
    llama = _request(TrtllmProfile()).model_copy(update={"model": get_model("meta-llama/Llama-3.1-8B").spec})
    assert not any(a.change.startswith("--max-attention-window") for a in nearest_fitting(llama, 400))


def test_the_window_set_on_a_model_without_windows_says_it_changes_nothing() -> None:
    """``--max-attention-window`` on Llama 3.1 8B (every layer full attention): the same plan, a note that says the
    setting changes nothing, and no ``max_attention_window`` list in the launch command."""
    llama = _request(TrtllmProfile()).model_copy(update={"model": get_model("meta-llama/Llama-3.1-8B").spec})
    windowed = llama.model_copy(update={"overhead": TrtllmProfile(attention_windows=True)})
    default_plan, windowed_plan = plan(llama), plan(windowed)
    assert windowed_plan.capacity == default_plan.capacity
    notes = engine_report(windowed, windowed_plan).notes
    assert any("no sliding-window or chunked-attention layers" in n and "changes nothing" in n for n in notes), notes
    command = get_engine("trtllm").launch_command(windowed, windowed_plan, windowed.overhead)  # type: ignore[arg-type]
    assert "max_attention_window" not in command
    assert not any("changes nothing" in n for n in engine_report(llama, default_plan).notes)


def test_the_advisor_says_tensorrt_llm_keeps_every_token_of_windowed_layers(capsys: object) -> None:
    """Each TensorRT-LLM option for Gemma 3 27B (5 of 6 layers slide over 1,024 tokens) is planned at the engine's
    default window and says so, naming the setting; a vLLM option and a TensorRT-LLM option for a model without
    windows do not."""
    import json

    from planner.cli import main

    def options(model: str, engine: str) -> list[dict[str, object]]:
        argv = ["advise", "--model", model, "--context", "32768", "--users", "8", "--engine", engine, "--json"]
        assert main([*argv, "--gpu", "h100-sxm-80gb", "--gpu", "l40s"]) == 0
        found: list[dict[str, object]] = json.loads(capsys.readouterr().out)["options"]  # type: ignore[attr-defined]
        assert found
        return found

    note = "--max-attention-window"
    for option in options("google/gemma-3-27b-it", "trtllm"):
        assert any(note in str(w) and "every token" in str(w) for w in option["warnings"]), option["warnings"]  # type: ignore[attr-defined]
        assert not any(note in str(w) for w in option["undermining"])  # type: ignore[attr-defined]
    for option in options("google/gemma-3-27b-it", "vllm") + options("meta-llama/Llama-3.1-8B", "trtllm"):
        assert not any(note in str(w) for w in option["warnings"])  # type: ignore[attr-defined]


def test_the_options_file_keeps_the_planned_fraction() -> None:
    """The file's ``kv_cache_config`` replaces the command line's whole object (``update_llm_args_with_extra_dict``:
    ``llm_args | llm_args_dict``), so a planned fraction of 0.7 beside an FP8 cache went back to the class's 0.9
    (an outside review, 2026-12-06): the file carries the fraction too."""
    engine = get_engine("trtllm")
    profile = TrtllmProfile(kv_cache_free_gpu_mem_fraction=0.7)
    request = _request(profile).model_copy(update={"kv_dtype": "fp8"})
    (serve,) = engine.launch_command(request, plan(request), profile).split("\n")
    assert "--kv_cache_free_gpu_memory_fraction 0.7" in serve
    assert options_file(serve)[:3] == ["kv_cache_config:", "  free_gpu_memory_fraction: 0.7", "  dtype: fp8"]


def test_prompts_longer_than_a_step_are_chunked() -> None:
    """Without ``enable_chunked_prefill`` (off by default) the PyTorch flow answers a prompt over ``max_num_tokens``
    with a 400 (``llm.py`` ``_check_arguments``): a plan of 32,768-token conversations at 8,192 tokens a step turns
    it on; at 8,192 it is not needed."""
    engine = get_engine("trtllm")
    profile = TrtllmProfile()
    long = _request(profile).model_copy(update={"context_tokens": 32768, "max_model_len": 32768})
    (serve,) = engine.launch_command(long, plan(long), profile).split("\n")
    assert "--max_seq_len 32768" in serve and "--max_num_tokens 8192" in serve
    assert options_file(serve) == ["enable_chunked_prefill: true"]
    short = _request(profile).model_copy(update={"context_tokens": 8192, "max_model_len": 8192})
    assert "extra_llm_api_options" not in engine.launch_command(short, plan(short), profile)
