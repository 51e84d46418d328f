"""The sixteenth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12o.json, an outside review of
2026-12-06), with the reason and what would settle each: merged into :data:`bench.fidelity_unmatched.UNMATCHED`."""

from __future__ import annotations

HEADLESS_GEFORCE = (
    "the plan adds the 1.18 GiB of non-torch memory fitted on compiled GeForce / RTX workstation start-ups "
    "(whose desktops allocated while vLLM profiled); this card is rented and headless, where vLLM counts only its "
    "own process's non-torch growth since its baseline snapshot (0.27.1 utils/mem_utils.py:286-311, "
    "non_torch_increase = after_profile - before_create); a headless GeForce boot's 'Actual usage ... consumed "
    "memory (weights + non-torch)' line settles it (the syv-ai RTX 3090 of this set prints 14.73 - 14.26 = 0.47 GiB)"
)
STRIX_HALO = (
    "Qwen3.8-27B BF16 on a Ryzen AI Max+ 395 (Radeon 8060S, gfx1151, ROCm) with an 80.0 GiB GPU pool, a vLLM "
    "source build whose log lines are 0.28.0's, 262,144 tokens, util 0.92 (sixteenth blind set, 2026-12-06; as "
    "found): the planner takes vLLM's defaults for a device over 70 GiB (1,024 sequences, 8,192 batched tokens: a "
    "3.60 GiB sampler warm-up in the profile, FULL graphs to 512), but vLLM 0.28.0 chooses them from "
    "current_platform.get_device_total_memory() (engine/arg_utils.py:2571-2611), which on ROCm is amdsmi's VRAM "
    "total (platforms/rocm.py:847-863), on this APU the BIOS carve-out, not the GTT pool that mem_get_info "
    "reports; so the under-70-GiB branch ran: 2,048 batched tokens (the MTP boot's 'max_num_scheduled_tokens is "
    "set to 2048' and its compile_ranges_endpoints [2048]) and 256 sequences. Planned with 256 and 2,048 the two "
    "boots come to +0.50 and -0.13 GiB with the verdicts right (planned so since 2026-12-06). `amd-smi static "
    "--vram` on such a box, or a DEBUG start-up printing max_num_seqs, would settle which total vLLM reads"
)

SIXTEENTH: dict[str, str] = {
    "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-llmclass-util092": (
        "KV -1.26 GiB, tokens -6.2 %; the verdict (planned 'sampler-oom' when found, it started) is right since "
        "2026-12-07, fifty-first session: the capture's base off Hopper is fitted on the other devices' capture "
        "lines (planner.engines.vllm.profile_graphs.hopper_capture_bytes), 0.35 GiB planned where 0.62 was. As "
        "found (sixteenth blind set, 2026-12-06): Qwen2.5-0.5B in the offline LLM class on an RTX 4090 under WSL2, "
        "vLLM 0.27.1, util 0.92. "
        "Two terms (read again 2026-12-06, forty-eighth session). (1) The log prints its split: 1.23 GiB consumed "
        "for 0.93 of weights (0.30 of non-torch), 0.31 of peak activation. The planner's non-torch is 1.58: the "
        "era's 0.25, Model Runner V2's 0.15 of persistent buffers and the 1.18 fitted on compiled desktop-card "
        "start-ups (graphics_extra), which this boot, like the same machine's serve boot (0.32 printed), does not "
        "hold, where other WSL2 boots need it (docs/fidelity.md, 'Windows hosts'). The desktop's own memory is not "
        "in the planned budget: vLLM 0.22-0.31 count only what grows after the worker's snapshot (0.22.0 "
        "utils/mem_utils.py:266-275, 0.27.1 :317-326), and the planner holds the desktop's 1.13 GiB only at the "
        "start-up check and after the pool. (2) The verdict: after the pool the card held the desktop's 1.54 GiB "
        "and util x total less the freed peak, 0.70 GiB free, and the log prints 0.00 GiB of graph capture; the "
        "planner leaves -0.20 because it captures 0.79 GiB (its fitted graph_capture_base, 0.51 GiB a model, and "
        "the per-graph-layer term) where the same model's serve boot printed 0.28. The WDDM sysmem-fallback reading "
        "first given here is not taken: public WSL2 reports run out of memory rather than page (microsoft/WSL#11050, "
        "syv-ai/qwen38-27b-rtx3090#1, microsoft/WSL#41176), and this boot did not overflow. Capture lines of small "
        "models under Model Runner V2 would settle the capture term. Read again 2026-12-07: the LLM class's "
        "defaults under 70 GiB are 8,192 batched tokens and 256 sequences, as vllm serve's sequences (0.27.1 "
        "engine/arg_utils.py:2544-2563, util 0.92 entrypoints/llm.py:196), as planned: the sampler warms 256 dummy "
        "requests (0.086 GiB) and both boots capture the same graphs (35 FULL up to 256, 51 PIECEWISE up to 512). "
        "The capture is the drop in free memory around capture_model (v1/worker/gpu/model_runner.py:754-790), 0.00 "
        "GiB in both LLM-class boots (Lab 3 and Lab 5), 0.28 in the serve boot. With the planner's 0.62 GiB "
        "capture the sampler finds -0.03 GiB; the serve boot's 0.28 would leave 0.31 and start it. Nothing in the "
        "release's capture path reads the usage context. Read by the WSL2 helper the same day: the fitted share is not "
        "in the sampler's headroom (the pool takes it; tests/engines/test_vllm_sampler_share.py), and on Model Runner "
        "V2 0.27.1 warms up through warmup_kernels, not the V1 sampler run whose message the plan gives "
        "(bench.fidelity_unmatched_s)"
    ),
    "vllm-0.24-rtx5090-vast-qwen25-7b-bf16-8k-util090": (
        "KV -0.50 GiB (11.42 planned, 11.92 printed), tokens -4.2 % (sixteenth blind set, 2026-12-06; as found): a "
        "Qwen2.5-7B fine-tune in BF16 on a rented RTX 5090 (Vast.ai), vLLM 0.24.0, util 0.9, 8,192 tokens (card "
        "and model inferred from the printed estimate and shapes); the printed split leaves 28.22 - 14.37 - 11.92 "
        "- 0.63 = 1.30 GiB of activation and non-torch where the planner has 1.98 (peak 0.55 with 256 sampler "
        "rows, non-torch 1.43): " + HEADLESS_GEFORCE + "; the weights are 0.15 under (14.22 planned, 14.37 "
        "printed). The batch default is read from the source (2,048 tokens on a card under 70 GiB), not the log"
    ),
}
