"""The twenty-first blind set's misses (tests/fidelity/cases/vllm-blind-2026-12t.json, found 2026-12-07), with the
term read from each log's own figures against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. One set-up: Qwen3-4B with LoRA slots on a RunPod RTX 4090 under vLLM
0.27.1 (a project's serverless probes, each printing its 'Free memory on device ... Actual usage' line)."""

from __future__ import annotations

# The RTX 4090's non-torch memory: the log's 'consumed memory (weights + non-torch)' less its 'Model loading took'
NON_TORCH = (
    "Every probe prints 'consumed memory (weights + non-torch)' 0.29 GiB above its 'Model loading took' (7.92 / "
    "7.63, 9.06 / 8.78, 12.78 / 12.49) and 0.15 GiB of peak activation warm: the planner holds 1.58 GiB of framework "
    "memory, 1.18 of it the share fitted on GeForce / RTX start-ups (graphics_extra), which the planner's own note "
    "says a RunPod RTX 4090 held none of; 1.18 GiB less non-torch would put these boots within 0.1 GiB. Read, not "
    "settled: whether the share belongs to a desktop-driving card only (this card drives no display)"
)
# The capture with LoRA: the log's graph counts against the planner's
CAPTURE = (
    "The log captures 102 PIECEWISE and 70 FULL graphs and prints 'Graph capturing finished ... took 1.28 GiB' at "
    "every slot count, where the planner captures 51 + 35 and holds 0.74 GiB: with LoRA on and "
    "cudagraph_specialize_lora (default True) vLLM captures each size once per LoRA case, [0, max_loras + 1] "
    "without --specialize-active-lora (0.27.1 v1/worker/gpu/lora_utils.py:20-36; the project's record: "
    "--specialize-active-lora asked for 459 / 102 = 4.5 times as many). The capture runs after the KV pool in the "
    "1 - util headroom, so 0.54 GiB of capture the planner does not hold. Since 2026-12-07 (fifty-first session) "
    "the planner captures each size for both LoRA cases (rules lora_graph_cases, lora_graph_cases_v2): 102 + 70 "
    "graphs, 1.15 GiB (-0.13); 0.88 (-0.40) with the capture's base off Hopper (the same session). Since 2026-12-07 "
    "(fifty-second session) the 86 graphs captured with adapters active hold their LoRA kernels, three a wrapped "
    "linear layer (the shrink buffer's zero_, shrink, expand: 0.27.1 lora/punica_wrapper/punica_gpu.py:203-263; "
    "none in the case of no adapter, lora_shrink_op.py:172), 10,614 bytes a kernel measured on the project's "
    "--specialize-active-lora boot (408 such graphs): 1.25 GiB planned (-0.03; planner.engines.vllm.lora_graphs)"
)
# The slot buffers the log's model load holds against the planner's (the 64-slot boot)
SLOTS = (
    "The load grows 4.86 GiB from 1 to 64 slots in the log (7.63 -> 12.49) and 3.88 in the plan (7.56 -> 11.44): "
    "0.98 GiB over 63 slots, 16 MiB a slot the planner's slot list (planner/deploy/lora.py: the attention and MLP "
    "linears) leaves out. A candidate read, not settled: vocabulary-sized LoRA buffers, "
    "LogitsProcessorWithLoRA's lora_b (max_loras, 1, vocab, rank) and VocabParallelEmbeddingWithLoRA's lora_a "
    "(max_loras, vocab, rank) (0.27.1 lora/layers/logits_processor.py:93-112, lora/layers/vocal_parallel_"
    "embedding.py:49-66), 2 x 151,936 x 16 x 2 bytes = 9.3 MiB a slot, if Qwen3's embedding and head are wrapped. "
    "Since 2026-12-07 (fifty-first session) planned as read: three vocabulary-sized wrappers a slot, the tied "
    "lm_head (the embedding module itself) wrapped a second time (0.27.1 lora/model_manager.py:401, :432), 3 x 16 x "
    "(151,936 + 2,560) x 2 bytes = 14.14 MiB (rule lora_vocab_wrappers): the loads' errors -0.07 / -0.29 / -1.05 "
    "-> -0.05 / -0.07 / -0.17 GiB at 1 / 16 / 64 slots, 1.4-2.0 MiB a slot still unread; the KV errors grow "
    "(64 slots -0.11 -> -0.99), the framework share below no longer cancelling them"
)

# The sampler warm-up's failing allocation against the planner's whole sampler peak
SAMPLER = (
    "the failing allocation alone, 150.00 MiB, is one fp32 [256, 151,936] tensor (256 warm-up rows x the "
    "vocabulary x 4 bytes: FlashInfer's top_k_top_p_sampling_from_logits softmax, 0.27.1 "
    "v1/worker/gpu/sample/sampler.py:252 -> flashinfer/sampling.py:1548) where the planner holds 0.08 GiB for the "
    "whole sampler peak; with the printed capture and that tensor the planned 0.86 GiB falls to 0.17 before the "
    "warm-up's other tensors, which the log does not size (not settled). Read at the source the same day (fifty-second "
    "session): after the capture 0.27.1 runs warmup_kernels (v1/worker/gpu_worker.py:795; v1/worker/gpu/warmup.py:"
    "155-376), 256 two-token requests with SamplingParams.for_sampler_warmup (top-k, top-p, min-p, penalties, "
    "logprobs; sampling_params.py:1117-1132), not the profile's greedy dummy batch the planner sizes: the logits, "
    "their fp32 copy (sample/sampler.py:159) and FlashInfer's masked logits and softmax (sampler.py:252), 0.51 GiB "
    "where the log's figures leave 0.52 and torch's 21.16 GiB allocated at the refusal holds them (before the softmax) "
    "within 0.07 GiB; the five V2 boots printing their split that started leave 0.18-2.18 GiB more. Not planned: "
    "four WSL2 RTX 4090 starts are planned with 0.19-0.24 GiB free, under the same warm-up (their capture planned "
    "0.35-0.39 GiB where the machine printed 0.28 and 0.00), so the term would refuse them "
    "(tests/fidelity/test_v2_warmup_pin.py pins both)"
)

# Empty since the mechanistic non-torch model (2026-12-07, fifty-third session): its start-ups meet their targets
TWENTY_FIRST: dict[str, str] = {}
