"""What the engines run, read from their sources (an outside maintainer's review, 2026-12-06): set-ups the planner
refused that the engine runs, and set-ups it planned with a launch command that the engine refuses at start-up.

- vLLM runs FP8 mixture-of-experts checkpoints below Ada as weight-only FP8 on Marlin: the FP8 MoE oracle lists
  MARLIN, whose experts support compute capability 7.5 and up (0.29.0 ``fused_moe/oracle/fp8.py:81-96``,
  ``fused_moe/experts/marlin_moe.py:605-624``; 0.22.0 the same), from 0.9.0 for every FP8 checkpoint (PR #18026).
- SGLang runs FP8 dense layers on Ampere with its own Marlin kernel from 0.5.6 (``fp8.py`` ``use_marlin`` from
  ``can_auto_enable_marlin_fp8``: 80 <= sm < 89); 0.5.2-0.5.5 import vLLM's operators for it ("marlin FP8 requires
  some operators from vllm. Please install vllm."). Its FP8 MoE method has no Marlin path (0.5.18).
- No CUDA MLA attention backend of vLLM stores an FP8 e5m2 cache (0.29.0 ``v1/attention/backends/mla/*.py``
  ``supported_kv_cache_dtypes``: auto, float16, bfloat16, fp8, fp8_e4m3 at most).
- SGLang asserts that pipeline parallelism runs without speculative decoding (0.5.18 ``server_args.py:9158-9161``,
  0.5.4 ``:3354-3358``).
"""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.registry import get_engine
from planner.engines.sglang import SglangProfile
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest


def _request(model: str, gpu: str, overhead: object, **kw: object) -> PlanRequest:
    card = get_gpu(gpu)
    base: dict[str, object] = {
        "model": get_model(model).spec,
        "gpu": card,
        "gpu_memory_bytes": card.engine_visible_bytes or card.memory_bytes,
        "context_tokens": 8192,
        "max_model_len": 8192,
        "overhead": overhead,
    }
    return PlanRequest(**(base | kw))  # type: ignore[arg-type]


def test_vllm_runs_fp8_experts_on_ampere_with_marlin_from_0_9() -> None:
    vllm = get_engine("vllm")
    for version in ("0.9.2", "0.19.1", "0.29.0"):
        request = _request("Qwen/Qwen3-30B-A3B", "a100-sxm-80gb", VllmProfile(engine_version=version), weights="fp8")
        assert vllm.refusal(request) is None, version
    old = _request("Qwen/Qwen3-30B-A3B", "a100-sxm-80gb", VllmProfile(engine_version="0.8.5"), weights="fp8")
    said = vllm.refusal(old) or ""
    assert said.startswith("vLLM 0.8.5 does not run fp8 weights of this model on Ampere before 0.9.0")
    assert "(vllm-project/vllm#18026)" in said
    dense = _request("meta-llama/Llama-3.1-8B", "a100-sxm-80gb", VllmProfile(engine_version="0.8.5"), weights="fp8")
    assert vllm.refusal(dense) is None  # dense FP8 on Marlin since vllm-project/vllm#5975 (2024)


def test_sglang_runs_fp8_dense_layers_on_ampere_from_0_5_6_and_not_fp8_experts() -> None:
    sglang = get_engine("sglang")
    dense = _request("meta-llama/Llama-3.1-8B", "a100-sxm-80gb", SglangProfile(engine_version="0.5.18"), weights="fp8")
    assert sglang.refusal(dense) is None
    old = dense.model_copy(update={"overhead": SglangProfile(engine_version="0.5.4")})
    assert "marlin FP8 requires some operators from vllm. Please install vllm." in (sglang.refusal(old) or "")
    moe = _request("Qwen/Qwen3-30B-A3B", "a100-sxm-80gb", SglangProfile(engine_version="0.5.18"), weights="fp8")
    assert "dense models only" in (sglang.refusal(moe) or "")


def test_vllm_stores_no_fp8_e5m2_latent_cache_on_nvidia() -> None:
    vllm = get_engine("vllm")
    for gpu in ("h100-sxm-80gb", "b200-sxm", "rtx-4090"):
        request = _request("deepseek-ai/DeepSeek-V2-Lite", gpu, VllmProfile(), kv_dtype="fp8_e5m2")
        assert "no CUDA MLA attention backend stores FP8 e5m2" in (vllm.refusal(request) or ""), gpu
        assert vllm.refusal(request.model_copy(update={"kv_dtype": "fp8"})) is None, gpu
    dense = _request("meta-llama/Llama-3.1-8B", "h100-sxm-80gb", VllmProfile(), kv_dtype="fp8_e5m2")
    assert vllm.refusal(dense) is None  # a model without a latent cache keeps its e5m2 cache


def test_sglang_refuses_speculative_decoding_under_pipeline_parallelism() -> None:
    draft = SpeculativeOptions(method="draft", draft_model=get_model("Qwen/Qwen3-0.6B").spec)
    request = _request(
        "Qwen/Qwen3-32B",
        "h100-sxm-80gb",
        SglangProfile(),
        gpu_count=2,
        pipeline_parallel=2,
        deployment=DeploymentOptions(speculative=draft),
    )
    said = get_engine("sglang").refusal(request) or ""
    assert "Pipeline parallelism is not compatible with overlap schedule, speculative decoding" in said
    assert get_engine("sglang").refusal(request.model_copy(update={"pipeline_parallel": 1})) is None


def test_tensorrt_llm_runs_block_scaled_fp8_checkpoints_only_on_hopper_and_datacenter_blackwell() -> None:
    """DeepSeek-V3's own FP8 checkpoint (128 x 128 block scales) under TensorRT-LLM 1.0 on 8 x RTX PRO 6000 (SM120)
    fails at load: 'Unsupported SM version for FP8 block scaling GEMM' (NVIDIA/TensorRT-LLM#5581, open; the same
    error on an RTX 5880 Ada, #4599); on B200 it runs since NVIDIA/TensorRT-LLM#5514 (2025-06). A per-tensor FP8
    checkpoint of a 16-bit model (ModelOpt's) is not held to it."""
    from planner.engines.trtllm import TrtllmProfile

    trtllm = get_engine("trtllm")
    for gpu in ("rtx-pro-6000-blackwell", "l40s"):
        request = _request("deepseek-ai/DeepSeek-V3", gpu, TrtllmProfile(), weights="fp8", gpu_count=8)
        assert "Unsupported SM version for FP8 block scaling GEMM" in (trtllm.refusal(request) or ""), gpu
    for gpu in ("h200-sxm-141gb", "b200-sxm"):
        request = _request("deepseek-ai/DeepSeek-V3", gpu, TrtllmProfile(), weights="fp8", gpu_count=8)
        assert trtllm.refusal(request) is None, gpu
    llama = _request("meta-llama/Llama-3.1-8B", "rtx-pro-6000-blackwell", TrtllmProfile(), weights="fp8")
    assert trtllm.refusal(llama) is None


def test_every_speed_reads_gpt_oss_as_its_gguf_stores_it() -> None:
    """ggml-org's gpt-oss GGUFs keep the tensors but the MXFP4 experts in Q8_0 (the platform row's other_bits):
    the Memory page's decode bound reads 3.56 GB a token, as the advisor does (0.96 B of attention and 0.58 B of
    output at 8.5 bits, 3.58 B of active experts at 4.25, 14 M of norms at 16), not 5.00 GB at 16 bits."""
    from planner.assessment.assess import assess
    from planner.assessment.summary import decode_bound
    from planner.deploy.options import DeploymentOptions
    from planner.engines.llamacpp.profile import LlamacppProfile

    options = DeploymentOptions(gpu_layers=20)
    request = _request(
        "openai/gpt-oss-120b", "rtx-pro-6000-blackwell", LlamacppProfile(), weights="mxfp4", deployment=options
    )
    bound = decode_bound(request, assess(request))
    assert bound is not None
    read = request.gpu.bandwidth_bytes_per_s / bound.tokens_per_s_all_on_gpu  # type: ignore[union-attr]
    assert abs(read / 3.562e9 - 1) < 0.005, read


def test_a_gpu_known_by_its_memory_alone_is_not_held_to_a_compute_capability() -> None:
    """``--gpu-memory-gb 141``: no catalog GPU, so no compute capability to refuse the block-scale GEMM on (a
    maintainer's review: DeepSeek-V3 over 8 such GPUs under TensorRT-LLM had fit, and then was refused)."""
    from planner.engines.trtllm import TrtllmProfile

    request = PlanRequest(
        model=get_model("deepseek-ai/DeepSeek-V3").spec,
        gpu_memory_bytes=141 * 10**9,
        gpu_count=8,
        weights="fp8",
        context_tokens=8192,
        overhead=TrtllmProfile(),
    )
    assert get_engine("trtllm").refusal(request) is None


def test_the_deployment_box_words_a_unified_memory_refusal_as_the_verdict_does() -> None:
    """The verdict named MemAvailable on a DGX Spark while the Deployment box said 'another process holds some of
    it' for the same assessment (a maintainer's review)."""
    from planner.assessment.assess import assess
    from planner.deploy.options import DeploymentOptions
    from ui.deployment import _answers

    said: list[str] = []

    class Box:
        def markdown(self, text: str) -> None:
            said.append(text)

    request = _request("Qwen/Qwen3-8B", "dgx-spark-gb10", VllmProfile(), deployment=DeploymentOptions())
    a = assess(request)
    assert a.report is not None and a.report.failure_kind == "free-memory"
    _answers(Box(), a)
    text = " ".join(said)
    assert "MemAvailable" in text and "another process holds some of it" not in text, text
