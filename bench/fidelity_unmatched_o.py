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
    "vllm-0.24-rtx5090-vast-qwen25-7b-bf16-8k-util090": (
        "KV -0.50 GiB (11.42 planned, 11.92 printed), tokens -4.2 % (sixteenth blind set, 2026-12-06; as found): a "
        "Qwen2.5-7B fine-tune in BF16 on a rented RTX 5090 (Vast.ai), vLLM 0.24.0, util 0.9, 8,192 tokens (card "
        "and model inferred from the printed estimate and shapes); the printed split leaves 28.22 - 14.37 - 11.92 "
        "- 0.63 = 1.30 GiB of activation and non-torch where the planner has 1.98 (peak 0.55 with 256 sampler "
        "rows, non-torch 1.43): " + HEADLESS_GEFORCE + "; the weights are 0.15 under (14.22 planned, 14.37 "
        "printed). The batch default is read from the source (2,048 tokens on a card under 70 GiB), not the log"
    ),
}
