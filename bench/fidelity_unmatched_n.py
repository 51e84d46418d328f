"""The fifteenth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12n.json, an outside review of
2026-12-06), with the reason and what would settle each: merged into :data:`bench.fidelity_unmatched.UNMATCHED`."""

from __future__ import annotations

COMPILE_CACHE = (
    "Llama-3.1-8B AWQ on a headless six-card RTX 3090 server, vLLM 0.28.0 (fifteenth blind set, 2026-12-06; as "
    "found -0.56 cold, -1.36 warm): the same source measured the torch.compile cache's effect, 119,408 tokens on a "
    "cold cache and 125,952 on a warm one (0.80 GiB). Since 2026-12-07 each boot is planned in its own cache state "
    "(planner.engines.vllm.compile_copy: a cold compile's random copy of the 0.98 GiB embedding table replaces the "
    "0.26 GiB forward as the transient), which gives the pair's difference (0.72 planned); both boots then sit "
    "~1.3 GiB under, the desktop cards' fitted 1.18 GiB non-torch amount this headless server does not hold, as "
    "the RunPod RTX 4090 and RTX 3090 Ti do not. util 0.9 is read from the project's capacity arithmetic and the "
    "length is not stated (8,192 assumed); an 'Actual usage' line would split it"
)

FIFTEENTH: dict[str, str] = {
    "vllm-0.27-h100-qwen38-27b-fp8-8k-util090-mamba-refusal": (
        "KV +4.24 GiB from the printed blocks (its refusal right; fifteenth blind set, 2026-12-06): the same "
        "machine, checkpoint and command as the 256-sequence start-up (+0.29) but vLLM's default 1,024 sequences: "
        "the printed pool falls 6.46 GiB (829 -> 694 blocks) where the planner's falls 2.51 (the sampler warm-up "
        "0.96 -> 3.60, the graph estimate 1.20 -> 1.42). Read in the 0.27.1 wheel, the warm-up is not short: it "
        "holds the bf16 logits of 1,024 x 248,320 (0.47 GiB) with three fp32 copies (0.95 GiB each: the cast, "
        "FlashInfer's masked logits and probabilities, then the native pass's cast, probabilities and noise; "
        "gpu_model_runner.py:6255-6302, sampler.py:96, topk_topp_sampler.py:149, :460, :508; Triton's 132-row "
        "buffer, topk_topp_triton.py:906-917), 3.4-3.5 GiB with the batch's hidden states against 3.60 planned, "
        "code unchanged from 0.26.0, whose B300 Gemma 4 start-up at 1,024 rows is matched (-0.23); the profile's "
        "dummy batch builds no attention metadata (:6015), so the GDN core only warms its chunk kernels at 64 "
        "tokens (qwen_gdn_linear_attn.py:1197-1200, :1027; :1141-1144 is the ROCm path), and the per-request "
        "buffers hold KiB to MiB or are built after the budget. What else grows with the sequences is the graph "
        "estimator's sampling (profile_cudagraph_memory, :6645-6812): its throwaway KV cache (min(max_num_seqs, "
        "512) blocks, :6518-6521: 256 -> 512 of 49 MiB, allocated before the samples' first reading and freed "
        "after, gpu_worker.py:500-517, so not charged), 35 -> 51 FULL graphs, and its first FULL sample, the "
        "largest decode size run with profile_seq_lens = max_num_batched_tokens // size (:6735-6742): 256 "
        "requests x 32 tokens of context -> 512 x 16, after the PIECEWISE samples at 512 tokens (PIECEWISE first, "
        "v1/cudagraph_dispatcher.py:326-350; one empty_cache before all samples, :6724). That is the sample vllm "
        "issue #50780 (open) finds charging a transient as graph memory on GDN hybrids since 0.26.0, ~128 KiB a "
        "token of batched context, which is 8,192 tokens in both start-ups, so it cannot differ between them; "
        "its GDN layers only decode there (query length 1: split_decodes_and_prefills, "
        "v1/attention/backends/gdn_attn.py:211-213; the recurrent update writes the state in place, "
        "qwen_gdn_linear_attn.py:1460-1478, :1564-1617), and fix PR #50848 (open) moves the long warm-up out of "
        "the sample and sizes the profile run's GDN warm-up to the batch's tokens (its test "
        "test_gdn_profile_warmup.py), neither a per-sequence amount. No mechanism found in the source for the "
        "3.95 GiB; the same 256 -> 1,024 step on the RTX PRO 6000 (recipes831, MTP 3, the same graphs at both) is "
        "short by 0.78 GiB, of which the rejection warm-up's inv_q row accounts for 0.71 (see that case). The box "
        "is shared (a neighbour's allocation during the profile is charged too: total_consumed is mem_get_info's, "
        "utils/mem_utils.py:317-319) and the README quotes no 'Estimated CUDA graph memory' line, which would "
        "settle it. Read 2026-12-07 (fifty-first session): the same shapes on the same card at 1,024 sequences and "
        "8,192 batched tokens on 0.22 (recipes PR #551, util 0.95) print 856 blocks against 865 planned (+0.45), "
        "so the planner's 1,024-sequence terms hold there; the CUDA sampler warm-up is the same in 0.22.0 and "
        "0.27.1 but for the off-by-default use_fp64_gumbel"
    ),
    "vllm-0.28-rtxpro6000-qwen36-35b-a3b-bf16-32k-mamba-refusal": (
        "KV +0.76 GiB from the printed blocks (its refusal right, weights exact: 65.52 planned, 65.53 printed; "
        "fifteenth blind set, 2026-12-06): 722 blocks printed against 760 planned at the release's default util "
        "0.92, which the source does not state (0.90 would give -1.14): its util would settle it"
    ),
}
