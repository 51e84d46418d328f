"""Issue 22, llama.cpp: what it prints and what the pages say match what it runs.

- The KV cache is stored as the planned dtype (``--cache-type-k/-v``, which the launch command passes): an INT8
  cache is q8_0, 8.5 bits a value (``block_q8_0``: 34 bytes per 32 values, ggml-common.h), not the f16 the start-up
  lines used to print whatever was planned.
- Several GPUs with every layer on them keep no weights in system RAM (the CLI's host figure is 0; the note used
  to subtract one GPU's weights from the whole model's: "System RAM holds 19.88 GiB").
- The split is named as llama.cpp does it (whole layers per GPU, ``--split-mode layer``), not "TP 2", its context
  flag is ``-c``, and any GPU count splits the layers (no head rule), so more GPUs come before "a GPU with more
  memory".
"""

from __future__ import annotations

import json

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess
from planner.assessment.words import split_label
from planner.cli import main
from planner.core.units import GiB, MiB
from planner.deploy.offload import embedding_bytes
from planner.engines.launch import launch_commands
from planner.engines.llamacpp.profile import llamacpp_kv_bytes
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest
from planner.sources.logs import parse_log

H100 = get_gpu("h100-sxm-80gb")
T4 = get_gpu("t4")
LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec


def _request(model: str, gpu_id: str, count: int, weights: str, kv: str, context: int) -> PlanRequest:
    gpu = get_gpu(gpu_id)
    return PlanRequest(
        model=get_model(model).spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=count,
        weights=weights,
        kv_dtype=kv,
        context_tokens=context,
        max_model_len=context,
        overhead=engine_profile("llamacpp"),
    )


def test_the_cache_type_printed_is_the_one_planned_and_launched() -> None:
    request = _request("meta-llama/Llama-3.1-70B", "h100-sxm-80gb", 2, "q4_k_m", "int8", 8192)
    a = assess(request, 32)
    assert a.report is not None and a.fits
    kv_line = next(line for line in a.report.lines if "llama_kv_cache: size" in line)
    assert "K (q8_0)" in kv_line and "V (q8_0)" in kv_line, kv_line  # was K (f16), V (f16)
    slots = 32
    per_device = llamacpp_kv_bytes(LLAMA_70B, 8192 * slots, "q8_0", "q8_0", range(0, 41), n_seq=slots, unified=False)
    assert per_device == 41 * 8 * 128 * 2 * 8192 * slots * 34 // 32  # llama.cpp puts 41 of the 80 layers on CUDA0
    assert f"CUDA0 KV buffer size = {per_device / MiB:.2f} MiB" in "\n".join(a.report.lines)  # 22304.00 MiB
    assert "--cache-type-k q8_0 --cache-type-v q8_0" in launch_commands(a.request, a.result)["llamacpp"]
    assert a.allocated.per_gpu.kv_cache_bytes == per_device  # the chart shows the buffer, not all that is free


@pytest.mark.parametrize(
    ("gpu_id", "device", "weights_label"),
    [("apple-m4-max", "MTL0", "MTL0_Mapped model"), ("amd-ryzen-ai-max-plus-395", "Vulkan0", "Vulkan0 model"),
     ("rtx-4090", "CUDA0", "CUDA0 model")],
)  # fmt: skip
def test_each_backend_names_its_device_as_its_logs_do(gpu_id: str, device: str, weights_label: str) -> None:
    """Metal and Vulkan builds name their buffers MTL0 / Vulkan0 (public llama-server logs); every GPU was CUDA0.
    What the report prints, the log reader reads back."""
    a = assess(_request("Qwen/Qwen3-8B", gpu_id, 1, "q4_k_m", "bf16", 4096))
    assert a.report is not None and a.fits
    text = "\n".join(a.report.lines)
    assert f"{weights_label} buffer size = " in text and f"{device} KV buffer size = " in text
    assert f"{device} compute buffer size = " in text and ("CUDA" in text) == (device == "CUDA0")
    parsed = parse_log(text)
    assert parsed.format == "llamacpp" and parsed.kv_cache_gib * GiB == pytest.approx(
        a.report.min_available_kv_cache_bytes, abs=MiB
    )


def test_an_allocation_failure_off_cuda_is_ggmls_own_line() -> None:
    a = assess(_request("meta-llama/Llama-3.1-70B", "amd-ryzen-ai-max-plus-395", 1, "bf16", "bf16", 4096))
    assert a.report is not None and not a.fits
    assert a.report.failure is not None and a.report.failure.startswith(
        "alloc_tensor_range: failed to allocate Vulkan0"
    )


def test_every_layer_on_the_gpus_keeps_only_the_input_embedding_in_system_ram(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """llama.cpp keeps token_embd in host memory whatever -ngl ('there is very little benefit to offloading the
    input layer', llama-model.cpp; a public log's 'CPU_Mapped model buffer'): every layer on the GPUs leaves it
    alone there (it had once counted 19.88 GiB, then none)."""
    a = assess(_request("meta-llama/Llama-3.1-70B", "h100-sxm-80gb", 2, "q4_k_m", "int8", 8192), 32)
    assert a.report is not None
    embedding = embedding_bytes(LLAMA_70B, "q4_k_m")
    assert any(f"System RAM holds {embedding / GiB:.2f} GiB of weights" in note for note in a.report.notes), a.report
    # (the stages count the vocabulary-parallel embedding's shards, so the two figures differ by its rounding)
    argv = ["fit", "--model", LLAMA_70B.id, "--gpu", "h100-sxm-80gb", "--gpus", "2", "--weights", "q4_k_m"]
    main([*argv, "--kv-dtype", "int8", "--engine", "llamacpp", "--context", "8192", "--users", "32", "--json"])
    assert json.loads(capsys.readouterr().out)["host_weights_bytes"] == pytest.approx(embedding, rel=0.002)


def test_the_split_and_the_context_are_named_as_llamacpp_names_them() -> None:
    a = assess(_request("meta-llama/Llama-3.1-70B", "h100-sxm-80gb", 2, "q4_k_m", "bf16", 8192))
    label = split_label(a.request, a.result)
    assert label == "layers split over 2 GPUs" and "TP" not in label  # was "TP 2"
    assert "-c" in get_engine("llamacpp").context_limit_words()  # was "--max-model-len"
    assert get_engine("vllm").context_limit_words() == "`--max-model-len`"


def test_a_gpu_count_tensor_parallel_cannot_use_is_a_layer_split() -> None:
    """phi-4's 40 heads and 10 KV heads allow TP 2 at most: on 3 GPUs vLLM runs 3 replicas, llama.cpp splits the
    layers over the 3 GPUs (it used to be planned as 3 replicas of a model that fits on none)."""
    a = assess(_request("microsoft/phi-4", "t4", 3, "bf16", "bf16", 4096))
    assert (a.result.tensor_parallel, a.result.pipeline_parallel, a.result.replicas) == (1, 3, 1)
    assert a.state is VerdictState.MEETS_TARGET
    assert "--split-mode layer --tensor-split 1,1,1" in launch_commands(a.request, a.result)["llamacpp"]


def test_more_gpus_come_before_a_gpu_with_more_memory() -> None:
    request = _request("microsoft/phi-4", "t4", 1, "bf16", "bf16", 4096)
    assert assess(request).state is VerdictState.WEIGHTS_DO_NOT_FIT
    found = nearest_fitting(request)
    # Phi-4's 27.3 GiB of BF16 weights, less the 0.98 GiB token_embd llama.cpp keeps in host memory, fit two T4s
    # of 14.56 GiB as CUDA reports them: more GPUs still come first.
    assert found[0].change == "2 GPUs (layers split over 2 GPUs)", [f.change for f in found]
    assert all("TP" not in f.change for f in found)


def test_a_hybrid_model_keeps_a_recurrent_state_per_slot() -> None:
    """Qwen3.5-27B in Q4_K_M on an RTX 4090 with 26 slots was planned to fit at 23.39 of 23.55 GiB without the
    F32 states of its 48 Gated DeltaNet layers (reviewer, 2026-12-05): llama.cpp's llama_memory_recurrent keeps one
    per slot, 149.625 MiB each here (a public b9849 start of Qwen3.8-27B, the same layers, prints 448.88 MiB for one
    slot and two MTP draft states: 3 x 149.625). 26 slots need 3.8 GiB more: 16 fit."""
    request = _request("Qwen/Qwen3.5-27B", "rtx-4090", 1, "q4_k_m", "bf16", 4096)
    full = assess(request, 26)
    assert full.report is not None
    slots = int(next(line for line in full.report.lines if "n_seq_max" in line).split("=")[1])
    assert slots == 18  # was 26
    text = "\n".join(full.report.lines)
    assert f"RS buffer size = {18 * 149.625:.2f} MiB" in text
    kv_line = next(line for line in full.report.lines if "CUDA0 KV buffer size" in line)
    assert kv_line.endswith("= 4608.00 MiB")  # the 16 full-attention layers only
    assert full.allocated.per_gpu.kv_cache_bytes == (4608 + 18 * 149.625) * MiB  # the chart's cache holds both


def test_a_dense_model_has_no_recurrent_state_line() -> None:
    a = assess(_request("Qwen/Qwen3-8B", "rtx-4090", 1, "q4_k_m", "bf16", 4096), 4)
    assert a.report is not None and not any("RS buffer" in line for line in a.report.lines)


def test_the_log_reader_counts_the_recurrent_states_as_cache() -> None:
    """The b9849 Vulkan start of Qwen3.8-27B: 2048 MiB of KV and 448.88 MiB of recurrent states."""
    parsed = parse_log(
        "llama_kv_cache:    Vulkan0 KV buffer size =  2048.00 MiB\n"
        "llama_memory_recurrent:    Vulkan0 RS buffer size =   448.88 MiB\n"
        "llama_memory_recurrent: size =  448.88 MiB (     1 cells,  64 layers,  1 seqs  2 rs_seq), R (f32):   16.88 "
        "MiB, S (f32):  432.00 MiB"
    )
    assert parsed.format == "llamacpp" and parsed.kv_cache_gib * 1024 == pytest.approx(2048 + 448.88)


def test_replicas_are_placed_as_each_backend_selects_its_gpus() -> None:
    """A Mac replica is a machine of its own; every backend said CUDA_VISIBLE_DEVICES (reviewer, 2026-12-05)."""
    from planner.engines.llamacpp.backend import device_selector

    for gpu_id, words in (("apple-m4-max", "each on its own machine"), ("rtx-4090", "(CUDA_VISIBLE_DEVICES)"),
                          ("amd-ryzen-ai-max-plus-395", "(GGML_VK_VISIBLE_DEVICES)")):  # fmt: skip
        request = _request("openai/gpt-oss-20b", gpu_id, 2, "mxfp4", "bf16", 8192)
        request = request.model_copy(update={"tensor_parallel": 1})
        a = assess(request)
        command = launch_commands(a.request, a.result)["llamacpp"]
        assert words in command.splitlines()[0], command
    assert device_selector("metal") == ""


def test_llamacpp_runs_f32_caches_and_f32_ggufs() -> None:
    """llama-server takes --cache-type-k/v f32 and loads F32 GGUFs (convert_hf_to_gguf.py --outtype f32); both were
    refused ("keeps a fp32 KV cache with bf16 weights nowhere on ada"), and fp32 weights were named a BF16 file."""
    a = assess(_request("meta-llama/Llama-3.2-1B", "rtx-4090", 1, "fp32", "fp32", 4096))
    assert a.report is not None and a.fits
    kv = 16 * 8 * 64 * 2 * 4096 * 4  # layers x KV heads x head_dim x (K, V) x tokens x 4 bytes
    assert f"llama_kv_cache: size = {kv / MiB:.2f} MiB, K (f32)" in "\n".join(a.report.lines)
    command = launch_commands(a.request, a.result)["llamacpp"]
    assert "Llama-3.2-1B-F32.gguf" in command and "--outtype f32" in command and "--cache-type-k f32" in command


def test_a_kv_dtype_not_kept_with_a_format_is_said_plainly() -> None:
    why = get_engine("llamacpp").support.kv_refusal("int8", "q4_k_m", "xe2")
    assert why == "llama.cpp keeps no int8 KV cache with q4_k_m weights on Intel Xe2 GPUs (it keeps bf16, fp16)"


def test_several_macs_are_replicas_not_one_layer_split() -> None:
    """2 x M3 Ultra under llama.cpp was planned as one llama-server with --tensor-split 1,1 (reviewer, 2026-12-05):
    each Mac is a machine; llama.cpp spans machines only through its RPC backend. Two Macs are two replicas by
    default, and an explicit split over them is refused; vLLM's two-node DGX Spark plans are not."""
    from planner.bounds.errors import PlannerError

    request = _request("openai/gpt-oss-20b", "apple-m4-max", 2, "mxfp4", "bf16", 8192)
    assert request.resolved_parallelism == (1, 1)
    a = assess(request)
    assert a.result.replicas == 2
    split = request.model_copy(update={"tensor_parallel": 1, "pipeline_parallel": 2})
    with pytest.raises(PlannerError, match=r"one GPU a machine: over 2 of them it needs its RPC backend"):
        assess(split)
    spark = get_gpu("dgx-spark-gb10")
    vllm = PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec, gpu=spark, gpu_memory_bytes=spark.memory_bytes_for(True), gpu_count=2,
        tensor_parallel=2, overhead=engine_profile("vllm"),
    )  # fmt: skip
    assert get_engine("vllm").refusal(vllm) is None


def test_llamacpp_caches_in_f16_unless_told_and_says_so() -> None:
    """A BF16 model under llama.cpp was labelled "KV cache bf16" while its command and predicted log used llama.cpp's
    default f16 cache (reviewer, 2026-12-05): with no KV dtype asked the plan is the engine's own, fp16."""
    request = _request("meta-llama/Llama-3.1-8B", "rtx-4090", 1, "bf16", "bf16", 4096).model_copy(
        update={"kv_dtype": None}
    )
    assert request.resolved_kv_dtype == "fp16"
    a = assess(request)
    assert a.result.kv_dtype == "fp16" and "K (f16)" in "\n".join(a.report.lines if a.report else ())


@pytest.mark.parametrize(
    ("build", "names"),
    [
        # b6000's public log (tests/fidelity/cases/llamacpp-partial-offload-mistral-7b.json)
        ("b6000", ("load_tensors: offloaded", "load_tensors:      CUDA0 model buffer size", "llama_kv_cache_unified:",
                   "llama_kv_cache_unified: size =", "llama_context:      CUDA0 compute buffer size")),
        # b9849's public logs (tests/fidelity/test_logparse.py, this file's recurrent-state start)
        ("b9849", ("load_tensors: offloaded", "load_tensors:      CUDA0 model buffer size", "llama_kv_cache:",
                   "llama_kv_cache: size =", "sched_reserve:      CUDA0 compute buffer size")),
    ],
)  # fmt: skip
def test_the_predicted_lines_are_named_as_the_build_prints_them(build: str, names: tuple[str, ...]) -> None:
    """The predicted lines mixed pre-2025 names (llm_load_tensors, llama_kv_cache_init, llama_new_context_with_model)
    with fields only newer builds print; a reader grepping a b9849 log for them found nothing (review, 2026-12-05)."""
    request = _request("Qwen/Qwen3-8B", "rtx-4090", 1, "q4_k_m", "fp16", 4096)
    request = request.model_copy(update={"overhead": engine_profile("llamacpp", version=build)})
    a = assess(request, 2)
    assert a.report is not None
    text = "\n".join(a.report.lines)
    for name in names:
        assert name in text, (name, text)
    for old in ("llm_load_tensors", "llama_kv_cache_init", "llama_new_context_with_model"):
        assert old not in text
    parsed = parse_log(text)  # the log reader reads what the planner predicts
    assert parsed.format == "llamacpp" and parsed.kv_cache_gib is not None


def test_token_embd_stays_in_host_memory_except_where_metal_maps_the_whole_file() -> None:
    """A public Qwen3-8B Q4_K_M start on CUDA prints 'CPU_Mapped model buffer size = 333.84 MiB' beside 'CUDA0 model
    buffer size = 4455.34 MiB'; one on an M4 prints 'MTL0_Mapped model buffer size = 4789.19 MiB', their sum
    (search-index file ids 52395031365, 67589188248)."""
    model = get_model("Qwen/Qwen3-8B").spec
    embedding = embedding_bytes(model, "q4_k_m")
    assert embedding / MiB == pytest.approx(333.84, rel=0.08)  # the planner's Q4_K_M bits for token_embd
    on_cuda = assess(_request("Qwen/Qwen3-8B", "rtx-4090", 1, "q4_k_m", "fp16", 4096))
    on_metal = assess(_request("Qwen/Qwen3-8B", "apple-m4-max", 1, "q4_k_m", "fp16", 4096))
    total = on_cuda.result.weights_bytes_total
    assert on_cuda.result.per_gpu.weights_bytes == total - embedding
    assert on_metal.result.per_gpu.weights_bytes == total
    assert (4455.34 + 333.84) / (total / MiB) == pytest.approx(1, abs=0.02)  # the file, as both logs add up
