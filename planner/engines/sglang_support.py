"""What SGLang runs: its platforms, KV-cache dtypes, weight formats, flags and LoRA pool (:class:`EngineSupport`).

Read from SGLang 0.5.4's ``srt/server_args.py`` and its docs (each entry says where)."""

from __future__ import annotations

from planner.engines.checkpoints import GGUF
from planner.engines.first_release import model_releases
from planner.engines.speculation_refusals import SpeculationRefusal
from planner.engines.support import (
    EngineSupport,
    FormatRelease,
    LoraSupport,
    MlaKvRefusal,
    SpeedGap,
    platform_rows,
)

# srt/server_args.py (0.5.4 :2291-2331): --enable-lora, --max-loras-per-batch, --max-lora-rank, --max-loaded-loras,
# --lora-target-modules ('all', or the names; required without --lora-paths). Its pool (srt/lora/mem_pool.py) has no
# expert slots and sizes MLP buffers from the config's dense intermediate_size (srt/lora/utils.py get_hidden_dim,
# 0.5.4 :59-93, unless the model class defines its own); its targets have no MLA projections
# (SUPPORTED_LORA_TARGET_MODULES, srt/utils/common.py :3179-3189).
SGLANG_LORA = LoraSupport(
    slots_flag="--max-loras-per-batch",
    host_flag="--max-loaded-loras",
    all_targets="all",
    refused_models={
        "moe": "SGLang 0.5 gives the experts no adapter slots and sizes its MLP buffers from the config's dense "
        "width (srt/lora/utils.py get_hidden_dim); plan LoRA on this model with vLLM",
        "mla": "SGLang 0.5's --lora-target-modules have no MLA projections; plan LoRA on this model with vLLM",
    },
)

SGLANG_SUPPORT = EngineSupport(
    label="SGLang",
    platforms=platform_rows("sglang"),
    model_releases=model_releases("sglang"),
    # server_args.py --kv-cache-dtype choices: auto, fp8_e5m2, fp8_e4m3 (no integer KV cache).
    kv_cache_names={"bf16": "auto", "fp16": "auto", "fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3", "fp8_e5m2": "fp8_e5m2"},
    kv_refusals={
        "int8": "SGLang has no INT8 KV cache; its 8-bit cache is FP8 (--kv-cache-dtype fp8_e4m3)",
        "int4": "SGLang has no 4-bit KV cache; its smallest is FP8 (--kv-cache-dtype fp8_e4m3)",
    },
    weight_refusals={
        **{g: "SGLang does not serve GGUF files; use llama.cpp" for g in GGUF},
        # vLLM's int8 vocabulary matrices (planner.core.vocab_formats): SGLang's loading of them is not read
        **dict.fromkeys(
            ("int4-int8head", "int4-int8vocab"),
            "how SGLang loads an int8 compressed-tensors lm_head or embedding is not read here; plan this checkpoint "
            "with vLLM",
        ),
    },
    online_quantization={"fp8": "--quantization fp8", "fp16": "--dtype float16", "bf16": "--dtype bfloat16"},
    context_flag="--context-length",
    cpu_offload_flag="--cpu-offload-gb",  # server_args.py cpu_offload_gb
    # server_args.py nnodes, node_rank, dist_init_addr (the multi-node deployment docs)
    multi_node="{servers} servers: run this on each with --nnodes {servers} --node-rank <0 to {last}> "
    "--dist-init-addr <the first server>:<a free port>",
    # 0.5.18 srt/managers/data_parallel_controller.py:363-390 (launch_dp_schedulers, without data-parallel attention,
    # :198-208): replica dp_rank starts at base_gpu_id, + tp_size * pp_size * gpu_id_step a rank from 0, local GPU ids:
    # every --dp replica on the server the command runs on (the command's own flag, planner.engines.sglang_launch)
    replicas_flag="--dp",
    lora=SGLANG_LORA,
    # server_args.py speculative_algorithm: EAGLE, EAGLE3, NEXTN (MTP), STANDALONE (a draft model).
    speculative_methods=("draft", "eagle", "eagle3", "mtp"),
    # 0.5.18 mem_cache/kv_cache_configurator.py _profile_available_bytes -> _handle_max_mamba_cache: the states'
    # pool (per running request, times a ratio for the radix cache, speculative scratch) comes out of the budget
    # first, by rules that change from release to release.
    # MXFP4 experts (gpt-oss) run through OpenAI's Triton MoE kernels (triton_kernels matmul_ogs) on every GPU below
    # Blackwell when the run sets no expert parallelism: 0.5.4 srt/server_args.py:951-966 (FlashInfer's MXFP4 MoE if
    # is_blackwell_supported, capability 10.x or 12.x, srt/utils/common.py:195-200; else moe_runner_backend
    # "triton_kernel" with ep_size 1 and triton_kernels importable), the same at 0.5.0rc2 (:2145-2159, Blackwell
    # being 10.x there) and 0.5.9 (:1375-1397). The kernels' time per MoE layer is measured on 9.0 only
    # (planner.advisor.kernels.VLLM_TRITON_MXFP4_MOE_LAYER_S); Ampere and Ada take it too.
    triton_mxfp4_moe=((8, 0), (8, 6), (8, 9), (9, 0)),
    # gpt-oss (MXFP4) under SGLang 0.5.3-0.5.4 on an A100 and an H100: GPUStack's Performance Lab served gpt-oss-20b
    # 1,000 ShareGPT prompts at once at 266 and 2,679 output tokens/s (gpustack/gpustack@47277d79f4a5
    # docs/performance-lab/gpt-oss-20b/a100.md, h100.md), 0.04x and 0.28x what the speed model gives the same bursts
    # drained (planner.advisor.drain), where vLLM on the same pages is within 24-50 % of it: SGLang's gpt-oss path at
    # those releases (median time per output token 2.5 s on the A100). Two runs, one model: stated for Ampere and
    # Hopper only. The path (0.5.4 srt/server_args.py:915-966): below Blackwell the experts run through
    # triton_kernels (vLLM 0.11.0 takes Marlin below capability 9, mxfp4.py:95-99), attention through Triton below
    # Hopper; on the A100 the run spent about 1.3 ms per token in prefill and decode alike
    # (tests/advisor/unseen_2026_12.py, SGLANG_GPTOSS).
    speed_gaps=(
        SpeedGap(
            model_types=("gpt_oss",),
            weights="mxfp4",
            families=("ampere", "hopper"),
            low=0.04,
            high=0.28,
            source="GPUStack Performance Lab's SGLang 0.5.3-0.5.4 gpt-oss-20b bursts on an A100 and an H100",
        ),
        SpeedGap(
            # The blind set's DeepSeek-V3 bursts under SGLang (tests/advisor/benchmarks/unseen-2026-12c.toml), as
            # vLLM's DeepSeek-R1 rows: the step's MoE and MLA kernels, so other families carry it too.
            model_types=("deepseek_v3",),
            weights=None,
            families=("hopper",),
            # 0.36-0.37 before the experts took SGLang's measured fused-MoE time (planner.advisor.paged_moe); 0.38-0.39
            # before TensorRT-LLM's HBM share was its own and the shared constants refitted (2026-12-07); 0.39-0.41
            # before a prompt's routed experts took the measured fused-MoE time (planner.advisor.prompt_moe); 0.43-0.45
            # before the release's steps outside its CUDA graphs took their measured time (planner.advisor.eager_steps,
            # 2026-12-07, fifty-fifth)
            low=0.68,
            high=0.70,
            source="DataCrunch, SGLang 0.4.3, DeepSeek-V3 on 8 x H200: 10,000 prompts of 256 tokens with 32-token "
            "answers sent at once, 1,052-1,090 output tokens/s against 1,554 modelled (prompts and the release's "
            "eager steps included)",
            other_families=True,
        ),
        SpeedGap(
            # sgl-project/sglang PR #31216 (tests/advisor/benchmarks/unseen-2026-12f.toml; issue 21): SGLang 0.5.13 on
            # one MI300X runs further below the model the larger the batch, as vLLM on CDNA 3 does (AMD's tables,
            # planner/engines/vllm/support.py), and below it at one request too: vLLM's rule, the batch past the
            # largest the source puts within issue 21's 20 % target, is batch 1 here (+41.6 % at 1, +60.9 % at 16,
            # +88.1 % at 64); low / high the least and most measured / modelled of its three rows
            # (tests/advisor/test_cdna3_gap.py). One model, one source: every model on CDNA 3 carries it, naming it.
            model_types=None,
            weights=None,
            families=("cdna3",),
            low=0.53,
            high=0.71,
            measured_on="Gemma 4 31B BF16 at TP 1",
            source="sgl-project/sglang PR #31216: SGLang 0.5.13 on one MI300X, 1,000 in / 1,000 out at 1, 16 and 64 "
            "requests, 46 / 492 / 951 output tokens/s against 65 / 791 / 1,789 modelled",
        ),
    ),
    # FP8 on Ampere (platforms/sglang.toml): SGLang's own Marlin FP8 kernel from 0.5.6; before it fp8.py imported
    # vLLM's operators, which the sglang package does not install (0.5.4 fp8.py:14-28).
    format_releases=(
        FormatRelease(
            weights="fp8",
            families=("ampere",),
            since="0.5.6",
            why="its FP8 Marlin kernel is vLLM's ('marlin FP8 requires some operators from vllm. Please install "
            "vllm.', srt/layers/quantization/fp8.py), which SGLang does not install; plan 0.5.6 or later",
        ),
    ),
    # check_server_args (0.5.18 srt/server_args.py:9158-9161; 0.5.4 :3354-3358, which also bars mixed chunked
    # prefill), called at launch (0.5.18 entrypoints/engine.py:1090)
    pipeline_speculation_refusal="SGLang does not start speculative decoding under pipeline parallelism ('Pipeline "
    "parallelism is not compatible with overlap schedule, speculative decoding', server_args.py check_server_args); "
    "plan PP 1 with speculation, or PP without it",
    # DeepSeek sparse attention (V3.2, GLM-5) asserts its cache from 0.5.5 (0.5.5 srt/server_args.py:1087-1092, then
    # "DeepSeek NSA ..."; 0.5.18 arg_groups/overrides.py:1633-1636); 0.5.3-0.5.4 force FP8 e4m3 on SM >= 10 instead
    mla_kv_refusals=(
        MlaKvRefusal(
            kv_dtypes=("fp8_e5m2",),
            families=("ampere", "ada", "hopper", "blackwell", "cdna3", "cdna4"),
            sparse_since="0.5.5",
            reason="SGLang stores DeepSeek sparse attention's cache in BF16 or FP8 e4m3 only ('DeepSeek DSA only "
            "supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype', arg_groups/overrides.py); plan --kv-cache-dtype "
            "fp8_e4m3 or a 16-bit cache",
        ),
    ),
    # A draft model with data-parallel attention: "TODO: support dp attention for standalone speculative decoding"
    # (0.5.2 server_args.py:724-727 an assertion; 0.5.3-0.5.12 a ValueError in _handle_speculative_decoding, 0.5.4
    # :1285-1289; 0.5.13-0.5.23 arg_groups/speculative_hook.py, 0.5.18 :549-555)
    speculation_setting_refusals=(
        SpeculationRefusal(
            method="draft",
            setting="enable_dp_attention",
            reason="SGLang does not start a draft model (--speculative-algorithm STANDALONE) with "
            "--enable-dp-attention ('Currently standalone speculative decoding does not support dp attention.', "
            "server_args.py / arg_groups/speculative_hook.py, every release); plan the draft model without "
            "data-parallel attention, or EAGLE / MTP with it",
        ),
    ),
    state_layers_refusal="SGLang sizes a state pool for the linear-attention / Mamba layers out of the KV budget "
    "(mem_cache/kv_cache_configurator.py _handle_max_mamba_cache), which is not planned here; plan this model with "
    "vLLM, whose state blocks are planned",
)
