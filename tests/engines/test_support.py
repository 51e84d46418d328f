"""Which engine runs what on each GPU: the engines' platform rows (planner.engines.support), as the advisor asks
them (planner.advisor.support)."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_gpu, load_gpus
from planner.advisor.support import ARCHITECTURE_FAMILIES, runner, support_rows, why_not
from planner.bounds.errors import PlannerError
from planner.engines.support import platform_rows


def test_every_catalog_architecture_has_a_family() -> None:
    for gpu in load_gpus().values():
        assert gpu.architecture in ARCHITECTURE_FAMILIES, f"{gpu.id}: add {gpu.architecture!r} to the support table"


def test_every_row_names_a_source() -> None:
    assert all(row.source.strip() for row in support_rows())


@pytest.mark.parametrize(
    ("gpu_id", "weights", "kv", "engine"),
    [
        ("h100-sxm-80gb", "fp8", "fp8", "vllm"),
        ("a100-sxm-80gb", "fp8", "bf16", "vllm"),  # weight-only FP8 (Marlin) on Ampere
        ("b200-sxm", "nvfp4", "fp8", "vllm"),
        ("mi300x", "fp8", "fp8", "vllm"),
        ("apple-m2-ultra", "q4_k_m", "bf16", "llamacpp"),
        ("gaudi3", "bf16", "bf16", "vllm"),  # the vLLM-Gaudi plugin (its rows name the variant)
        ("dgx-spark-gb10", "nvfp4", "fp8", "vllm"),  # GB10 is Blackwell (sm_121)
        ("gb300", "nvfp4", "fp8", "vllm"),
        ("mi350x", "fp8", "fp8", "vllm"),  # CDNA 4
        ("amd-ryzen-ai-max-plus-395", "bf16", "bf16", "vllm"),  # ROCm gfx1151
        ("amd-ryzen-ai-max-plus-395", "q4_k_m", "int8", "llamacpp"),
        ("intel-arc-pro-b60", "int4-awq", "bf16", "vllm"),  # vLLM XPU
        ("intel-arc-pro-b60", "q4_k_m", "bf16", "llamacpp"),  # llama.cpp SYCL, its default 16-bit cache
        ("l20", "fp8", "fp8", "vllm"),  # Ada
        ("h800-sxm-80gb", "fp8", "fp8", "vllm"),  # Hopper
    ],
)
def test_runner(gpu_id: str, weights: str, kv: str, engine: str) -> None:
    row = runner(get_gpu(gpu_id), weights, kv, moe=False)
    assert row is not None and row.engine == engine
    if gpu_id == "gaudi3":
        assert row.label == "vLLM (Gaudi plugin)"


def test_what_no_engine_runs_is_explained() -> None:
    mac = get_gpu("apple-m2-ultra")
    assert runner(mac, "int4-awq", "fp8", moe=False) is None  # the Mac set-up
    assert "int4-awq" in why_not(mac, "int4-awq", "fp8", moe=False)
    assert runner(mac, "q4_k_m", "fp8", moe=False) is None  # llama.cpp has no FP8 KV cache
    assert "fp8 KV cache" in why_not(mac, "q4_k_m", "fp8", moe=False)
    a100 = get_gpu("a100-sxm-80gb")
    row = runner(a100, "fp8", "bf16", moe=True)  # FP8 experts on Marlin (vLLM 0.29.0 fused_moe/oracle/fp8.py)
    assert row is not None and row.engine == "vllm"
    assert runner(a100, "fp8", "bf16", moe=True, engines=("sglang",)) is None  # SGLang's FP8 MoE has no Marlin path
    assert runner(get_gpu("mi300x"), "int4-awq", "bf16", moe=False, engines=("vllm",)) is None  # vLLM: no AWQ on ROCm
    row = runner(get_gpu("mi300x"), "int4-awq", "bf16", moe=False)
    assert row is not None and row.engine == "sglang"  # its docs: awq on MI300X, Triton dequantize
    assert runner(get_gpu("h100-sxm-80gb"), "fp8", "fp8", moe=False, engines=("llamacpp",)) is None


def test_what_no_engine_runs_on_the_new_architectures_is_explained() -> None:
    halo, b60 = get_gpu("amd-ryzen-ai-max-plus-395"), get_gpu("intel-arc-pro-b60")
    assert runner(halo, "fp8", "bf16", moe=False) is None
    assert why_not(halo, "fp8", "bf16", moe=False).startswith("no engine runs fp8 weights on RDNA 3.5")
    assert runner(halo, "bf16", "bf16", moe=True, engines=("vllm",)) is None  # vLLM MoE on gfx1151: not documented
    assert "mixture-of-experts" in why_not(halo, "bf16", "bf16", moe=True, engines=("vllm",))
    row = runner(halo, "bf16", "bf16", moe=True)
    assert row is not None and row.engine == "llamacpp"  # llama.cpp runs it (BF16 GGUF)
    assert runner(b60, "fp8", "bf16", moe=False) is None
    assert "Xe2 (Battlemage)" in why_not(b60, "fp8", "bf16", moe=False)
    assert runner(b60, "q4_k_m", "int8", moe=False) is None  # no quantized KV cache claimed for SYCL
    assert runner(b60, "bf16", "bf16", moe=False, engines=("sglang", "trtllm")) is None


def test_a_bad_platform_row_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "toy.toml"
    path.write_text('[[row]]\nfamilies = ["hopper"]\nweights = ["fp9"]\n', encoding="utf-8")
    with pytest.raises(PlannerError, match=r"toy\.toml: .*row\.0"):
        platform_rows.__wrapped__("toy", tmp_path)


@pytest.mark.parametrize("gpu_id", ["h100-sxm-80gb", "h200-sxm-141gb", "b200-sxm", "rtx-pro-6000-blackwell"])
def test_trtllm_runs_gpt_oss_mxfp4_experts_on_hopper_and_blackwell(gpu_id: str) -> None:
    """TensorRT-LLM serves gpt-oss's MXFP4 experts on Hopper (BF16 activations, TRITON or CUTLASS MoE) and Blackwell
    (MXFP8 activations; examples/models/core/gpt_oss/README.md 'MoE Support Matrix'; its quantization page's hardware
    matrix: MXFP4 on sm100/103 and sm120). The registry had no row and refused its flagship model."""
    row = runner(get_gpu(gpu_id), "mxfp4", "bf16", moe=True, engines=("trtllm",))
    assert row is not None and row.engine == "trtllm"
    assert runner(get_gpu("a100-sxm-80gb"), "mxfp4", "bf16", moe=True, engines=("trtllm",)) is None  # not Ampere


def test_trtllm_has_no_w4a16_awq_on_blackwell() -> None:
    """TensorRT-LLM's quantization page, hardware matrix: W4A16 AWQ on Ampere, Ada and Hopper, not on Blackwell
    (sm100/103, sm120)."""
    for gpu_id in ("b200-sxm", "rtx-5090", "rtx-pro-6000-blackwell"):
        assert runner(get_gpu(gpu_id), "int4-awq", "bf16", moe=False, engines=("trtllm",)) is None
        assert "int4-awq" in why_not(get_gpu(gpu_id), "int4-awq", "bf16", moe=False, engines=("trtllm",))
    assert runner(get_gpu("h100-sxm-80gb"), "int4-awq", "bf16", moe=False, engines=("trtllm",)) is not None


def test_vllm_runs_gpt_oss_on_ada_through_marlin() -> None:
    """gpt-oss-20b on an RTX 4090 was planned as INT4 GPTQ ('vLLM does not run mxfp4 weights on ada'); vLLM's Marlin
    MoE kernels build for sm_89 since vllm-project/vllm#28294 (2025-11), the path its recipe gives Ampere."""
    for gpu_id in ("rtx-4090", "l40s"):
        row = runner(get_gpu(gpu_id), "mxfp4", "bf16", moe=True, engines=("vllm",))
        assert row is not None and row.compute == "16-bit"


def test_an_engine_that_runs_nothing_on_a_family_says_so() -> None:
    """'vLLM does not run bf16 weights on apple (it runs nothing)' named a format for what is the engine's."""
    from planner.engines.registry import get_engine

    mac = get_gpu("apple-m3-ultra")
    for name in ("vllm", "sglang", "trtllm"):
        engine = get_engine(name)
        assert (
            engine.support.weights_refusal("bf16", "apple", False)
            == f"{engine.support.label} does not run on Apple GPUs"
        )
    assert runner(mac, "bf16", "bf16", moe=False, engines=("vllm",)) is None


def test_llama_cpp_offers_mxfp4_for_mixture_of_experts_models_only() -> None:
    """The Compare page offered MXFP4 for Llama 3.1 70B under llama.cpp (browser audit, 2026-12-05): its MXFP4 GGUF
    type quantizes MoE experts (llama-quantize MXFP4_MOE; gpt-oss's published files), a dense model has none."""
    from planner.engines.registry import get_engine, weights_run

    gpu = get_gpu("rtx-3090")
    assert "mxfp4" not in weights_run("llamacpp", gpu, moe=False)
    assert "mxfp4" in weights_run("llamacpp", gpu, moe=True)
    why = get_engine("llamacpp").support.weights_refusal("mxfp4", "ampere", False)
    assert why == "llama.cpp runs mxfp4 weights on ampere for mixture-of-experts models only (their experts)"


@pytest.mark.parametrize(("engine", "gpu_id"), [("vllm", "h100-sxm-80gb"), ("vllm", "a100-sxm-80gb"),
                                               ("sglang", "h100-sxm-80gb"), ("trtllm", "b200-sxm")])  # fmt: skip
def test_mxfp4_is_the_experts_format_on_nvidia_gpus(engine: str, gpu_id: str) -> None:
    """Llama 3.1 70B in MXFP4 under vLLM on 2 x H100 was planned at 18.92 GiB of weights a GPU (reviewer,
    2026-12-05): vLLM's Mxfp4Config quantizes FusedMoE layers only ("MXFP4 linear layer is not implemented"),
    SGLang's and TensorRT-LLM's MXFP4 paths are their MoE kernels (gpt-oss)."""
    from planner.engines.registry import get_engine, weights_run

    gpu = get_gpu(gpu_id)
    assert "mxfp4" not in weights_run(engine, gpu, moe=False)
    assert "mxfp4" in weights_run(engine, gpu, moe=True)
    fam = ARCHITECTURE_FAMILIES[gpu.architecture or ""]
    why = get_engine(engine).support.weights_refusal("mxfp4", fam, False)
    assert why is not None and why.endswith("for mixture-of-experts models only (their experts)")


def test_amd_quarks_dense_mxfp4_runs_on_cdna4_only() -> None:
    """AMD-Quark's W4A4 MXFP4 checkpoints of dense models run on MI350 / MI355 under vLLM (their model cards)."""
    from planner.engines.registry import weights_run

    assert "mxfp4" in weights_run("vllm", get_gpu("mi355x"), moe=False)
    assert "mxfp4" not in weights_run("vllm", get_gpu("mi300x"), moe=False)
    row = runner(get_gpu("mi355x"), "mxfp4", "fp8", moe=False, engines=("vllm",))
    assert row is not None and row.compute == "fp4"


def test_an_engine_that_runs_nothing_on_a_family_says_so_before_any_format() -> None:
    """GGUF on a Mac under vLLM said "vLLM's GGUF loader is experimental ...; plan GGUF with llama.cpp", as if
    another format would run there (reviewer, 2026-12-05)."""
    from planner.engines.registry import get_engine

    for name, label in (("vllm", "vLLM"), ("trtllm", "TensorRT-LLM"), ("sglang", "SGLang")):
        why = get_engine(name).support.weights_refusal("q4_k_m", "apple", False)
        assert why == f"{label} does not run on Apple GPUs"


def test_vllm_stores_no_fp8_latent_cache_below_ada() -> None:
    """DeepSeek-V2-Lite with an FP8 cache on an A100 was planned at 2.92 M tokens (reviewer, 2026-12-05): vLLM runs
    MLA there with Triton MLA, which raises "FP8 KV cache is not supported by the Triton MLA backend ... requires
    SM89+" (0.34.0 v1/attention/backends/mla/triton_mla.py:227-238). On Ada and Hopper it is planned."""
    from model_catalog import get_model
    from planner.assessment.assess import assess
    from planner.bounds.errors import PlannerError as Refused
    from planner.engines.registry import overhead_profile
    from planner.planning.plan import PlanRequest

    model = get_model("deepseek-ai/DeepSeek-V2-Lite").spec
    for gpu_id, refused in (("a100-sxm-80gb", True), ("l40s", False), ("h100-sxm-80gb", False)):
        gpu = get_gpu(gpu_id)
        request = PlanRequest(
            model=model, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), kv_dtype="fp8",
            overhead=overhead_profile("vllm"), context_tokens=8192, max_model_len=8192,
        )  # fmt: skip
        if refused:
            with pytest.raises(Refused, match="Triton MLA backend"):
                assess(request)
        else:
            assert assess(request).fits
    assert runner(get_gpu("a100-sxm-80gb"), "bf16", "fp8", moe=True, engines=("vllm",), mla=True) is None
    assert "Triton MLA" in why_not(get_gpu("a100-sxm-80gb"), "bf16", "fp8", True, ("vllm",), mla=True)
    assert runner(get_gpu("a100-sxm-80gb"), "bf16", "bf16", moe=True, engines=("vllm",), mla=True) is not None


def test_the_compare_grid_leaves_out_a_latent_cache_the_engine_does_not_store() -> None:
    """The Compare page of DeepSeek-V2-Lite on an A100 showed vLLM's refusal as an error for its FP8 column
    (tests/app/test_pages.py mla-compare): the grid's KV dtypes are the ones vLLM stores for an MLA model there."""
    from planner.engines.registry import formats_run, not_offered
    from planner.engines.support import ModelKind

    a100 = get_gpu("a100-sxm-80gb")
    assert "fp8" in formats_run("vllm", a100, ModelKind(moe=True))[1]
    assert formats_run("vllm", a100, ModelKind(moe=True, mla=True))[1] == ("bf16",)
    assert "Triton MLA" in not_offered("vllm", "kv", "fp8", "bf16", a100, ModelKind(moe=True, mla=True))
    assert formats_run("vllm", get_gpu("h100-sxm-80gb"), ModelKind(moe=True, mla=True))[1] == ("bf16", "fp8")


def test_an_mla_models_16_bit_cache_below_ampere_is_planned_as_fp16() -> None:
    """DeepSeek-V2-Lite on a V100 was refused for a BF16 cache (reviewer, 2026-12-05): below Ampere a 'bf16' plan
    runs as FP16 (--dtype half), which Triton MLA stores; only its FP8 cache needs sm_89."""
    from planner.engines.registry import get_engine

    support = get_engine("vllm").support
    assert support.mla_kv_refusal("bf16", "volta") is None and support.mla_kv_refusal("fp16", "turing") is None
    assert support.mla_kv_refusal("fp8", "turing") is not None


def test_why_not_names_what_stops_it_for_the_model_it_is_asked_about() -> None:
    """gpt-oss-120b (experts) in MXFP4 with an FP8 cache on an M4 Max: llama.cpp runs MXFP4 experts there but has
    no FP8 cache. The reason had been "no engine runs mxfp4 weights on Apple silicon (there: ... mxfp4 ...)", its
    weight check made for a dense model (an outside review, 2026-12-05)."""
    mac = get_gpu("apple-m4-max")
    assert why_not(mac, "mxfp4", "fp8", moe=True) == (
        "no engine runs mxfp4 weights with fp8 KV cache on Apple silicon (only bf16 / fp16 / int4 / int8)"
    )
    # A dense model in MXFP4: the format runs there for experts only, and the reason says so.
    assert why_not(mac, "mxfp4", "fp16", moe=False) == "no engine runs mxfp4 weights for a dense model on Apple silicon"
