"""The log parser on the verbatim lines of every public log, its errors, and calibration."""

from __future__ import annotations

import pytest

from bench.fidelity import reported_failure
from bench.fidelity_cases import load_cases
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.vllm.calibrated import Calibrated
from planner.sources.logs import calibrate, parse_log

CASES = load_cases()
LOGGED = [c for c in CASES if c.get("verbatim")]  # the run summaries of other cases print no log lines
FIELDS = (
    "kv_cache_gib",
    "kv_cache_tokens",
    "gpu_blocks",
    "max_concurrency",
    "weights_gib",
    "non_torch_gib",
    "activation_peak_gib",
    "total_gpu_memory_gib",
    "cuda_graph_estimate_gib",
    "consumed_gib",
)


@pytest.mark.parametrize("case", LOGGED, ids=[c["id"] for c in LOGGED])
def test_parses_every_printed_figure(case: dict) -> None:
    """Each figure the reference records from a printed line is parsed back (the DEBUG total line and the
    figures the issue texts paraphrase are not among the verbatim lines and may stay unknown), and a failed
    start-up is read as failing for the same reason."""
    try:
        parsed = parse_log("\n".join(case["verbatim"]))
    except PlannerError:
        assert reported_failure(case) == "other"  # a gated download or a launcher error prints no figures
        return
    reported = case["reported"]
    names = {"total_gpu_memory_gib": "total_memory_gib"}
    found = 0
    for field in FIELDS:
        want = reported.get(field)
        got = getattr(parsed, names.get(field, field))
        if want is None or got is None:
            continue
        found += 1
        assert got == pytest.approx(want, abs=0.006), field
    kind = reported_failure(case)
    assert found >= 1 or kind is not None
    assert parsed.fails == (kind is not None)
    if kind is not None and kind != "other":
        assert parsed.failure_kind == kind


def test_vllm_v1_lines() -> None:
    log = "\n".join(
        [
            "(EngineCore pid=242) DEBUG 04-22 00:04:20 [v1/worker/gpu_worker.py:435] Memory profiling takes 17.96 "
            "seconds. Total non KV cache memory: 17.12GiB; torch peak memory increase: 1.89GiB; non-torch forward "
            "increase memory: 0.25GiB; weights memory: 14.99GiB.",
            "(EngineCore pid=242) INFO 04-22 00:04:20 [v1/worker/gpu_worker.py:436] "
            "Available KV cache memory: 58.11 GiB",
            "(EngineCore pid=242) INFO 04-22 00:04:20 [v1/core/kv_cache_utils.py:1319] "
            "GPU KV cache size: 476,016 tokens",
            "(EngineCore pid=242) INFO 04-22 00:04:20 [v1/core/kv_cache_utils.py:1324] Maximum concurrency for 8,192 "
            "tokens per request: 58.11x",
            "DEBUG worker init memory copy total_memory=79.19GiB",
        ]
    )
    p = parse_log(log)
    assert p.format == "vllm-v1"
    assert (p.weights_gib, p.activation_peak_gib, p.non_torch_gib, p.kv_cache_gib) == (14.99, 1.89, 0.25, 58.11)
    assert (p.kv_cache_tokens, p.max_concurrency, p.max_concurrency_at_tokens) == (476_016, 58.11, 8192)
    assert p.total_memory_gib == 79.19 and not p.fails


def test_vllm_v1_too_long_and_v065_lines() -> None:
    log = (
        "model weights take 13.95GiB; non_torch_memory takes 0.25GiB; PyTorch activation peak memory takes "
        "0.19GiB; the rest of the memory reserved for KV Cache is 8.69GiB.\n"
        "the current vLLM instance can use total_gpu_memory (23.55GiB) x gpu_memory_utilization (0.98) = 23.08GiB\n"
        "ValueError: To serve at least one request with the models's max seq len (131072), (24.00 GiB KV cache is "
        "needed, which is larger than the available KV cache memory (8.69 GiB). Based on the available memory, the "
        "estimated maximum model length is 94912."
    )
    p = parse_log(log)
    assert p.fails and p.estimated_max_model_len == 94_912
    assert (p.weights_gib, p.non_torch_gib, p.activation_peak_gib, p.kv_cache_gib) == (13.95, 0.25, 0.19, 8.69)
    assert (p.total_memory_gib, p.gpu_memory_utilization) == (23.55, 0.98)


def test_sglang_and_llamacpp_and_trtllm() -> None:
    sg = parse_log(
        "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB\n"
        "max_total_num_tokens=367404, chunked_prefill_size=8192, max_running_requests=4096, context_len=40960"
    )
    assert sg.format == "sglang" and sg.kv_cache_tokens == 367_404 and sg.kv_cache_gib == pytest.approx(16.46)
    assert sg.max_concurrency == pytest.approx(367404 / 40960)
    lc = parse_log(
        "llama_kv_cache_init:      CUDA0 KV buffer size =  1952.00 MiB\n"
        "llama_new_context_with_model:      CUDA0 compute buffer size =   306.00 MiB"
    )
    assert lc.format == "llamacpp" and lc.kv_cache_gib == pytest.approx(1.90625)
    assert lc.compute_buffer_gib == pytest.approx(306 / 1024)
    trt = parse_log(
        "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 5.23 GiB for max tokens in paged KV cache (10718)."
    )
    assert trt.format == "trtllm" and trt.kv_cache_tokens == 10718 and trt.kv_cache_gib == 5.23


# Metal and Vulkan builds name their devices MTL0 / Vulkan0 (public llama-server logs: an M1 Max "MTL0_Mapped model
# buffer size = 2375.91 MiB ... MTL0 KV buffer size = 288.00 MiB", a Vulkan Strix Halo "Vulkan0 KV buffer size =
# 512.00 MiB"); they were not read as llama.cpp logs at all.
@pytest.mark.parametrize(
    ("device", "weights_label"), [("MTL0", "MTL0_Mapped model"), ("Vulkan0", "Vulkan0 model"), ("ROCm0", "ROCm0 model")]
)
def test_llamacpp_logs_of_every_backend(device: str, weights_label: str) -> None:
    lc = parse_log(
        f"load_tensors:  {weights_label} buffer size =  2375.91 MiB\n"
        "llama_context: n_ctx         = 2048\n"
        f"llama_kv_cache:       {device} KV buffer size =   288.00 MiB\n"
        f"sched_reserve:       {device} compute buffer size =   301.75 MiB"
    )
    assert lc.format == "llamacpp" and lc.kv_cache_gib == pytest.approx(288 / 1024)
    assert lc.weights_gib == pytest.approx(2375.91 / 1024) and lc.compute_buffer_gib == pytest.approx(301.75 / 1024)
    assert lc.kv_cache_tokens == 2048


@pytest.mark.parametrize("text", ["", "   ", "hello world", "INFO Starting server on port 8000"])
def test_unparseable_text_names_what_was_expected(text: str) -> None:
    with pytest.raises(PlannerError) as err:
        parse_log(text)
    message = str(err.value)
    assert "log:" in message
    if text.strip():
        assert "Available KV cache memory" in message and "KV Cache is allocated" in message


def test_calibration_round_trips_and_drives_a_plan() -> None:
    from model_catalog import get_gpu, get_model
    from planner.engines.registry import engine_report
    from planner.planning.plan import PlanRequest, plan

    case = next(c for c in CASES if c["id"] == "vllm-0.19-h100-deepseek-v2-lite-chat-tp1pp1-8192")
    parsed = parse_log("\n".join(case["verbatim"]))
    cal = calibrate(parsed, engine_version="0.19.0", gpu_memory_utilization=0.95)
    token = cal.to_token()
    assert len(token) < 120 and Calibrated.from_token(token) == cal
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=get_model("deepseek-ai/DeepSeek-V2-Lite").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.engine_visible_bytes or gpu.memory_bytes,
        weights="bf16",
        context_tokens=8192,
        max_model_len=8192,
        overhead=cal,
    )
    report = engine_report(request, plan(request))
    # With the measured weights, activation and non-torch memory the only difference is rounding (0.01 GiB).
    assert report.available_kv_cache_bytes_per_gpu / GiB == pytest.approx(43.61, abs=0.02)
    assert report.kv_cache_tokens == pytest.approx(1_505_552, rel=0.002)


@pytest.mark.parametrize("bad", ["cal2~vllm~0.19~0.9", "cal1~vllm", "cal1~vllm~0.19~0.9~x12", "cal1~vllm~0.19~2"])
def test_bad_calibration_tokens(bad: str) -> None:
    with pytest.raises(PlannerError):
        Calibrated.from_token(bad)


def test_vllm_027_and_later_lines() -> None:
    """0.27's DEBUG line measures total consumed (utils/mem_utils.py:220-230); the post-capture line's 'peak
    activation' adds the graph estimate the budget subtracted, so a calibration does not count it twice; 0.28
    prints tokens and concurrency on one line (kv_cache_utils.py:1869)."""
    log = "\n".join(
        [
            "(EngineCore pid=326) INFO 10-06 17:00:11 [model_runner.py:407] Model loading took 15.0 GiB memory and "
            "5.420225 seconds",
            "(EngineCore pid=326) INFO 10-06 17:00:33 [kv_cache_utils.py:2464] GPU KV cache size: 460,496 tokens, "
            "Maximum concurrency for 131,072 tokens per request: 3.51x",
            "(EngineCore pid=326) INFO 10-06 17:00:41 [gpu_worker.py:955] Free memory on device (78.84/79.25 GiB) on "
            "startup. Desired GPU memory utilization is (0.92, 72.91 GiB). Actual usage is 15.26 GiB for consumed "
            "memory (weights + non-torch), 1.44 GiB for peak activation, and 0.23 GiB for CUDAGraph memory.",
            "(EngineCore pid=326) INFO 10-06 17:00:33 [gpu_worker.py:692] Available KV cache memory: 56.21 GiB",
        ]
    )
    p = parse_log(log)
    assert (p.kv_cache_tokens, p.max_concurrency, p.max_concurrency_at_tokens) == (460_496, 3.51, 131_072)
    assert (p.consumed_gib, p.weights_gib, p.non_torch_gib) == (15.26, 15.0, pytest.approx(0.26))
    assert p.activation_peak_gib == 1.44 and p.peak_includes_graphs and p.cuda_graph_gib == 0.23
    assert (p.total_memory_gib, p.free_memory_gib) == (79.25, 78.84)
    cal = calibrate(p, engine_version="0.31.0", gpu_memory_utilization=0.92)
    assert cal.cuda_graph_bytes == 0 and cal.activation_bytes == round(1.44 * GiB)
    debug = parse_log(
        "DEBUG 08-01 10:00:00 [gpu_worker.py:560] Memory profiling takes 9.10 seconds. Total non KV cache memory: "
        "12.50GiB; torch peak memory increase: 1.10GiB; total consumed (from mem_get_info): 11.40GiB; weights "
        "memory: 10.20GiB.\nINFO 08-01 10:00:00 [gpu_worker.py:563] Available KV cache memory: 7.15 GiB"
    )
    assert (debug.activation_peak_gib, debug.consumed_gib, debug.weights_gib) == (1.10, 11.40, 10.20)
    assert debug.non_torch_gib == pytest.approx(1.20) and not debug.peak_includes_graphs


def test_mamba_refusal_and_kv_in_use() -> None:
    refusal = parse_log(
        "(EngineCore pid=9) ERROR 09-03 10:00:00 [core.py:1346] ValueError: max_num_seqs (1024) exceeds available "
        "Mamba cache blocks (969). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot "
        "proceed. Please lower max_num_seqs to at most 969 or increase gpu_memory_utilization."
    )
    assert refusal.fails and refusal.failure_kind == "mamba-blocks"
    assert (refusal.gpu_blocks, refusal.max_num_seqs) == (969, 1024)
    in_use = parse_log(
        "INFO [gpu_worker.py:789] Free memory on device (22.45/23.99 GiB) on startup. Desired GPU memory utilization "
        "is (0.85, 20.39 GiB). Actual usage is 1.49 GiB for consumed memory (weights + non-torch), 0.25 GiB for peak "
        "activation, and 0.37 GiB for CUDAGraph memory. Current kv cache memory in use is 18.65 GiB."
    )
    assert in_use.kv_cache_gib == 18.65 and in_use.consumed_gib == 1.49


# A traceback as Python prints it (0.27.1 v1/worker/gpu_worker.py:717 and :795, v1/worker/gpu/sample/sampler.py:252)
CAPTURE_TRACEBACK = (
    "Capturing CUDA graphs (mixed prefill-decode, FULL):  64%|######4   | 45/70\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 717, in '
    "compile_or_warm_up_model\n"
    "    cuda_graph_memory_bytes = self.model_runner.capture_model()\n"
    "torch.AcceleratorError: CUDA error: out of memory"
)
V2_SAMPLER_TRACEBACK = (
    "INFO [topk_topp_sampler.py:63] Using FlashInfer for top-p & top-k sampling.\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 795, in '
    "compile_or_warm_up_model\n"
    "    warmup_kernels(self.model_runner, self.execute_model, self.sample_tokens)\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu/sample/sampler.py", line 252, in sample\n'
    "    sampled = flashinfer_sample(processed_logits, top_k, top_p).to(torch.int64)\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 150.00 MiB. GPU 0 has a total capacity of 23.52 "
    "GiB of which 146.44 MiB is free."
)


def test_after_the_pool_the_traceback_names_the_failing_step() -> None:
    """An out-of-memory error in the CUDA-graph capture reads 'graph-capture-oom', one in Model Runner V2's sampler
    warm-up 'sampler-oom', each with the error's own line; V2's warm-up failing outside its sampler (the model's
    forward) stays a bare 'out-of-memory', and so does an OOM where the log only names the sampler in an INFO line."""
    capture = parse_log(CAPTURE_TRACEBACK)
    assert (capture.failure_kind, capture.failure) == (
        "graph-capture-oom",
        "torch.AcceleratorError: CUDA error: out of memory",
    )
    sampler = parse_log(V2_SAMPLER_TRACEBACK)
    assert sampler.failure_kind == "sampler-oom"
    assert sampler.failure is not None and sampler.failure.startswith(
        "torch.OutOfMemoryError: CUDA out of memory. Tried"
    )
    forward = V2_SAMPLER_TRACEBACK.replace("gpu/sample/sampler.py", "gpu/model_runner.py")
    assert parse_log(forward).failure_kind == "out-of-memory"
    info_only = V2_SAMPLER_TRACEBACK.replace("warmup_kernels", "load_model")
    assert parse_log(info_only).failure_kind == "out-of-memory"
