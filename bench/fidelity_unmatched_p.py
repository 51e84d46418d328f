"""The seventeenth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12p.json, found 2026-12-06), with the
reason read from vLLM's source at the release and what would settle each: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`."""

from __future__ import annotations

SEVENTEENTH: dict[str, str] = {
    "vllm-0.27-rtx4090-wsl2-qwen3-8b-fp8-2k-util090": (
        "KV -1.40 GiB (10.97 planned, 12.37 from the printed 90,080 tokens), tokens -11.3 %, verdict (planned "
        "'sampler-oom', it started; seventeenth blind set, 2026-12-06; as found): Qwen/Qwen3-8B-FP8 on an RTX "
        "4090 under WSL2, vLLM 0.27.1, util 0.90, 2,048 tokens. Non-torch is planned at 1.58 GiB: the era's 0.25, "
        "Model Runner V2's 0.15 and the 1.18 GiB fitted on compiled desktop GeForce start-ups (held under Windows "
        "hosts too since 2026-12-06). vLLM 0.27.1 counts what any process allocated "
        "during its own start-up, not what was held before it: its budget is util x total (v1/worker/utils.py:409 "
        "request_memory) less total_consumed = before_create.free - after_profile.free (utils/mem_utils.py:318, "
        ":326 non_kv_cache_memory; v1/worker/gpu_worker.py:544-547). So the fitted share is right when the desktop "
        "grows during the start-up and not otherwise: the same machine's Qwen3-14B-FP8 boots at 8,192 tokens (this "
        "set, plain and with LMCache) are within 0.01 GiB with it, this boot is 1.40 under (-0.22 without it); "
        "one constant cannot hold both (the same counting from the snapshot in every release 0.22.0-0.31.0: "
        "docs/fidelity.md, 'Windows hosts'). The verdict: what the planner leaves after the KV sizing is (1 - util) x "
        "total less the desktop's median 1.13 GiB (the Windows host rule), the CUDA context and the 0.93 GiB graph "
        "capture it fits, 0.077 GiB, just under the 0.088 GiB sampler peak, a margin the boot's real desktop holding "
        "and capture (0.28 printed by a 0.5B model's boot on another WSL2 RTX 4090) decide; no sysmem fallback is "
        "planned (public WSL2 reports run out of memory: docs/fidelity.md); with the desktop holding nothing "
        "(--used-memory-gib) the verdict is right and the KV unchanged. Each boot's 'Free memory on device (F/T "
        "GiB)' line (gpu_worker.py:762-775, printed once started) would settle how much the desktop held and when. "
        "Since 2026-12-07 the capture term is fitted without FlashAttention 3's split accumulators, which the H100 "
        "lines it is fitted on hold and this card's FlashAttention 2 does not (planner/engines/vllm/split_accum.py): "
        "a 0.75 GiB capture leaves 0.25 GiB and the verdict is right; the KV miss stays"
    ),
}
