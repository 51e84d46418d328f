"""What vLLM runs and takes (:class:`planner.engines.support.EngineSupport`): its platforms (``platforms/vllm.toml``),
KV-cache dtypes, online quantization and deployment flags."""

from __future__ import annotations

from planner.engines.checkpoints import GGUF
from planner.engines.first_release import model_releases
from planner.engines.support import EngineSupport, FormatRelease, LoraSupport, MlaKvRefusal, SpeedGap, platform_rows

VLLM_SUPPORT = EngineSupport(
    label="vLLM",
    platforms=platform_rows("vllm"),
    # vllm/config/cache.py CacheDType: "auto" keeps the model's dtype; fp8 (= fp8_e4m3 on CUDA), fp8_e5m2.
    kv_cache_names={
        "bf16": "auto",
        "fp16": "auto",
        "fp32": "auto",  # --dtype float32: "auto" caches in the model's dtype (platforms/vllm.toml)
        "fp8": "fp8",
        "fp8_e4m3": "fp8_e4m3",
        "fp8_e5m2": "fp8_e5m2",
    },
    # vLLM 0.20 added per-token-head INT8, TurboQuant (4- and 3-bit) and NVFP4 caches (0.20.0 config/cache.py:
    # CacheDType); their scales lie per token and head, not in llama.cpp's 32-value blocks that the planner's INT8
    # and INT4 formats are (planner/core/kv_formats.py), so they are refused as not modelled rather than sized wrong.
    kv_refusals={
        "int8": "vLLM's INT8 KV cache (--kv-cache-dtype int8_per_token_head, from 0.20) is not modelled: its scales "
        "are per token and head, not the 32-value blocks of this INT8 format; plan FP8 (--kv-cache-dtype fp8)",
        "int4": "vLLM's 4-bit KV caches (TurboQuant, NVFP4, from 0.20) are not modelled: their scales are per token "
        "and head, not the 32-value blocks of this INT4 format; plan FP8 (--kv-cache-dtype fp8)",
    },
    # Online quantization of a 16-bit checkpoint while loading (docs.vllm.ai "FP8 W8A8": --quantization fp8).
    # vLLM's GGUF loader (docs.vllm.ai features/quantization/gguf: "highly experimental and under-optimized",
    # single-file only): GGUF is planned with llama.cpp.
    weight_refusals={
        g: "vLLM's GGUF loader is experimental (single-file, under-optimized); plan GGUF with llama.cpp" for g in GGUF
    },
    online_quantization={"fp8": "--quantization fp8", "fp16": "--dtype float16", "bf16": "--dtype bfloat16"},
    context_flag="--max-model-len",
    cpu_offload_flag="--cpu-offload-gb",
    # docs/serving/parallelism_scaling.md ("Running vLLM on multiple nodes"): a Ray cluster, the command on its head
    multi_node="{servers} servers: start a Ray cluster over them first (ray start --head on one, ray start "
    "--address=<head>:6379 on the others), then run this on the head node",
    # 0.31.0 engine/arg_utils.py:2428-2429: the local data-parallel size defaults to the global one (every rank on
    # the node the command runs on); :2356-2358: a dense model over several servers runs only as "independent vLLM
    # instances without --data-parallel-* arguments"
    replicas_flag="--data-parallel-size",
    # engine/arg_utils.py (0.34.0 :1628-1650): --enable-lora --max-loras --max-lora-rank --max-cpu-loras; every
    # supported module wrapped unless --lora-target-modules (from 0.19.0) names them; fused MoE experts get slots
    lora=LoraSupport(slots_flag="--max-loras", host_flag="--max-cpu-loras"),
    kv_offload_backends=("native", "lmcache"),
    # vllm/config/speculative.py SpeculativeMethod: draft_model, eagle, eagle3, medusa, mtp (and n-gram).
    speculative_methods=("draft", "eagle", "eagle3", "medusa", "mtp"),
    stage_split="partition",
    # MXFP4 experts (gpt-oss) take the first backend of a priority list the device supports: FlashInfer TRT-LLM
    # (SM100 only), then the Triton kernels, which support (9, 0) <= capability < (11, 0), before Marlin: on
    # Hopper, Triton (0.19.1 model_executor/layers/fused_moe/oracle/mxfp4.py:169-184, :346-357,
    # fused_moe/gpt_oss_triton_kernels_moe.py:555-564; the same order at 0.33.0, oracle/mxfp4.py:402).
    triton_mxfp4_moe=((9, 0),),
    # FP8 GEMMs on Hopper at about half the later rate until 0.18: aiconfigurator (ai-dynamo/aiconfigurator@095f58a51
    # aic-core/src/aiconfigurator_core/systems/data/{h100_sxm,h200_sxm}/gemm/vllm/0.14.0/gemm_perf.parquet, the
    # oldest vLLM it measured) puts the prompt-sized shapes (m 1,024-8,192, n and k 2,048-16,384) at a median share
    # of the FP8 peak of 0.281 per-tensor and 0.230 block-scaled on H100, 0.307 and 0.241 on H200; 0.18.0 (H200)
    # 0.556 / 0.447, 0.19.0 0.493 / 0.438 (H100) and 0.547 / 0.429 (H200), 0.24.0 0.431-0.464; the 16-bit GEMMs did
    # not move (0.811 / 0.793 at 0.14.0). The median of the four 0.14.0 figures, to 0.14 (0.15-0.17 not measured).
    hopper_fp8_gemm_until=("0.14.99", (0.241 + 0.281) / 2),
    # Attention sinks (0.10.2 on) or an FP8 KV cache (0.11.0) on capability >= 8.0 but 9.0 (10.0 takes FlashInfer
    # first): the Triton backend (0.10.2 platforms/cuda.py:355-358, 0.11.0 :358-361); later releases not traced.
    triton_attention_releases=("0.10.2", "0.11.0", "0.11.0"),
    # gpt-oss (MXFP4 experts) on Ampere: below compute capability 9 vLLM runs its experts with Marlin W4A16
    # (0.11.0 model_executor/layers/quantization/mxfp4.py:59-107 get_mxfp4_backend, :785-799 fused_marlin_moe) and
    # its attention with sinks on Triton. vLLM PR 22428 (the PR that added MXFP4 to Marlin, 2025-08-07) prints A100
    # decode throughput by batch: gpt-oss-20b on one GPU 125.8 / 477.6 / 1,398 / 5,888 tok/s and gpt-oss-120b on
    # two 117.5 / 427.1 / 1,283 / 4,172 at batch 1 / 4 / 16 / 128, the model +41 to +147 % over them; its Triton
    # MoE column matches Marlin's at batch 1, so the missing time is not the MoE kernel's (docs/advisor.md, "What
    # is left"). Measured on the A100 only: stated for Ampere, not for Ada or Blackwell.
    model_releases=model_releases("vllm"),
    # MLA below Hopper runs Triton MLA (0.34.0 platforms/cuda.py:146-151: FlashAttention MLA and FlashMLA need
    # sm_90, FlashInfer MLA sm_100), which stores an FP8 latent cache from sm_89 only (v1/attention/backends/mla/
    # triton_mla.py:227-238; before, "TritonMLA V1 with FP8 KV cache not yet supported"). Its BF16 check (sm_80,
    # :240-247) is not met below Ampere because a "bf16" plan there runs as FP16 (--dtype half, platforms/vllm.toml).
    mla_kv_refusals=(
        MlaKvRefusal(
            kv_dtypes=("fp8",),
            families=("volta", "turing", "ampere"),
            reason="vLLM's MLA attention below Ada (Triton MLA) stores no FP8 cache: 'FP8 KV cache is not supported "
            "by the Triton MLA backend ... native FP8 (fp8e4nv) requires SM89+'; plan a 16-bit KV cache",
        ),
        # Every CUDA MLA backend's supported_kv_cache_dtypes stop at fp8 / fp8_e4m3 (0.29.0 v1/attention/backends/
        # mla/flashmla.py:49-55, cutlass_mla.py:40-46, flashinfer_mla.py:153-159, triton_mla.py:132-138,
        # flashattn_mla.py:45-49 16-bit only; 0.22.0 alike), so platforms/cuda.py:456-459 finds no backend; ROCm's
        # AITER MLA takes e5m2.
        MlaKvRefusal(
            kv_dtypes=("fp8_e5m2",),
            families=("ada", "hopper", "blackwell"),
            reason="no CUDA MLA attention backend stores FP8 e5m2 (FlashMLA, CUTLASS, FlashInfer and Triton MLA take "
            "fp8 / fp8_e4m3): vLLM stops with 'No valid attention backend found'; plan --kv-cache-dtype fp8",
        ),
    ),
    # FP8 experts on Marlin below Ada (platforms/vllm.toml): vllm-project/vllm#18026 (2025-05-12, in 0.9.0) made them
    # run for every FP8 checkpoint; before it "vLLM supports FP8 MoE models only on Ada Lovelace or Hopper GPUs".
    format_releases=(
        FormatRelease(
            weights="fp8",
            families=("turing", "ampere"),
            since="0.9.0",
            moe_only=True,
            why="its FP8 experts reach Marlin below Ada in 0.9.0 (vllm-project/vllm#18026); plan 0.9 or later",
        ),
    ),
    speed_gaps=(
        SpeedGap(
            model_types=("gpt_oss",),
            weights="mxfp4",
            families=("ampere",),
            low=0.40,
            high=0.75,
            source="vLLM PR 22428's A100 decode figures, batch 1-128",
        ),
        SpeedGap(
            # One request at TP 8 (an outside review, 2026-12-06: 167 tokens/s planned on 8 x H20); any batch, TP and
            # release are held to it, the only public measurement found.
            model_types=("deepseek_v32",),  # the model measured; V3's layers without the indexer are not held to it
            weights=None,  # measured in its FP8; the step's kernels, not its read, are the gap
            families=("hopper",),
            low=0.27,  # 0.18 against 167 until the experts took a measured fused-MoE efficiency (moe_transfer)
            high=0.27,
            source="vllm-project/vllm#30832: DeepSeek-V3.2, V3's layers with a sparse indexer, one request at TP 8 "
            "on 8 x H20 under vLLM 0.13, 30 tokens/s against the 111 modelled",
        ),
        SpeedGap(
            # The blind set's DeepSeek-R1 rows (decode at 4 users and at full load; their prompt rows run at
            # 0.71-0.94x too; 0.68-0.86x before their routed experts took the measured fused-MoE time,
            # planner.advisor.prompt_moe; 0.29-0.55x before vLLM 0.11's FP8 GEMMs took aiconfigurator's measured
            # 0.14.0 rate, planner.advisor.kernels.gemm_efficiency): every public DeepSeek-V3-architecture row under
            # vLLM is over-predicted. The step's MoE and MLA kernels are the cause, so other families, unmeasured,
            # carry the caveat too (an outside review, 2026-12-06: DeepSeek-V3 green on 8 x MI300X).
            model_types=("deepseek_v3",),
            weights=None,
            families=("hopper",),
            # 0.37-0.49 before the burst's wait on vLLM 0.11.0's chat-template parse (planner.advisor.frontend);
            # 0.37-0.58 before the routed experts took vLLM's measured fused-MoE time (planner.advisor.paged_moe);
            # 0.53-0.72 before TensorRT-LLM's HBM share was its own and the shared constants refitted (2026-12-07);
            # 0.54-0.73 before a vLLM 0.14-or-older run's FP8 GEMMs took that release's measured rate (kernels);
            # 0.54-0.75 before a prompt's routed experts took the measured fused-MoE time (planner.advisor.prompt_moe)
            low=0.54,
            high=0.77,
            source="GPUStack Performance Lab, vLLM 0.11, DeepSeek-R1 on 8 x H200: 52 tokens/s per user at 4 users "
            "against 97 modelled, 2,621 tokens/s in all at full load against 3,407",
            other_families=True,
        ),
        SpeedGap(
            # AMD's own latency tables (tests/advisor/benchmarks/unseen-2026-12f.toml; issue 21): the model is within
            # 2-21 % of them at batch 1 (AMD's batch-1 row is a package row, +1.8 %) and further above them the larger
            # the batch, with no mechanism a source shows (docs/advisor.md, the MI300X misses read). From the batch
            # past the largest whose median |error| over the tables' rows is within issue 21's 20 % target (4: 16.1 %;
            # 8: 22.5 %; 5-7 unmeasured); low / high are the least and most measured / modelled over the 40 rows at
            # batch 8-128 (tests/advisor/test_cdna3_gap.py). The step's growth with the batch on the family, not
            # one model's kernels: every model on CDNA 3 carries it, naming the models measured.
            model_types=None,
            weights=None,
            families=("cdna3",),
            low=0.57,
            high=0.92,
            from_batch=5,
            measured_on="Llama 3.1 70B and 405B FP8 at TP 8",
            source="AMD's vLLM 0.6.6 and 0.10.0 latency tables on 8 x MI300X, ROCm/vllm docs/dev-docker/README.md: "
            "batch 8-128, 128 or 2,048 prompt tokens and 2,048 output, measured at 0.57-0.92x the modelled tokens/s "
            "(405B at batch 128: 2,240-2,257 tokens/s against 3,811-3,940 modelled)",
        ),
    ),
)
