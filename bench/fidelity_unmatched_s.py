"""The twentieth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12s.json, found 2026-12-07), with the
term read from each log's own figures against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. One known group when found: the sampler's warm-up under WSL2 on an RTX
4090 at util 0.92 (the sixteenth and seventeenth sets' wrong verdicts), right since 2026-12-07 (fifty-first session:
the capture's base off Hopper); none misses a target since."""

from __future__ import annotations

# Three Qwen2.5-7B-Instruct boots on one RTX 4090 under WSL2 (vLLM 0.27.1, util 0.92, 8,192 tokens), as read when
# their verdicts were wrong (fiftieth session)
WSL2_SAMPLER = (
    "0.27.1 runs these boots on Model Runner V2 (a dense model: rule model_runner 'v2-dense'), whose "
    "compile_or_warm_up_model warms up after the KV pool and the capture through warmup_kernels (0.27.1 "
    "v1/worker/gpu_worker.py:800-802, v1/worker/gpu/warmup.py:155-330: a prefill of 256 two-token requests, then "
    "sample_tokens over them), not V1's _dummy_sampler_run, whose 'warming up sampler' message "
    "(v1/worker/gpu_model_runner.py:6306) a V2 boot cannot print: a refusal there would be a bare out-of-memory. "
    "The headroom it runs in (read again 2026-12-07, fiftieth session) is the 23.99 GiB card less what was held "
    "at the worker's snapshot (its CUDA context 0.51 GiB, the Windows desktop's 1.13, "
    "planner.deploy.host.WINDOWS_DESKTOP_BYTES), less util x total (22.07), plus the transient peak freed before "
    "the pool (0.30 planned), less the capture (0.66 planned): -0.08 GiB for a 0.09 GiB peak. The fitted desktop "
    "share (graphics_extra, 1.18 GiB) is not in it: the pool is requested_memory - non_kv_cache_memory "
    "(gpu_worker.py:544-548), so the share comes out of the pool; planned without it the pool grows 1.18 GiB and "
    "the headroom stays -0.08 (tests/engines/test_vllm_sampler_share.py). The source's nvidia-smi reads 22,951 / "
    "23,859 / 23,792 MiB in use while serving (22.41 / 23.30 / 23.23 GiB, the desktop included), 1.66 / 0.77 / "
    "0.84 GiB under the 24.07 GiB the plan holds after the capture (more than the card), so the desktop, the "
    "context, the capture or the freed peak is over-planned on this machine. Read, none settled: (1) the capture: "
    "every capture line of 0.27-0.28 on a graphics die that the planner captures after the budget printed less "
    "(RTX 4090 WSL2 0.28 and 0.00 against 0.62, RunPod RTX 4090 0.56 / 0.75, RTX 5090 0.81 / 1.06 twice and 0.52 "
    "/ 0.79, Vast.ai RTX 3090 0.14 / 0.37, L4 0.78 / 0.82); 0.17 GiB less would start all three, a refit rather "
    "than a mechanism. (2) A cold compile: each model was the script's first serve of it (38-49 s from its banner "
    "to the KV line); the embedding table's benchmark copy (152,064 x 3,584 bf16, 1.02 GiB; docs/fidelity.md, 'A "
    "cold compile's copy') is freed before the pool, and planned cold all three start (0.63 GiB free) with KV "
    "-0.22 / -1.16 / -0.96 GiB with the share, +0.96 / +0.02 / +0.21 without; the document states no cache state, "
    "so they stay warm. (3) NVIDIA's CUDA Sysmem Fallback Policy (driver 536.40 and later): in microsoft/WSL#11050 "
    "('WSL2 CUDA does not respect' it; RTX 4090, driver 546.33) a 30 GiB tensor on a 15.99 GiB card is allocated "
    "under WSL2 once and refused the second time, so a WSL2 allocation can go past the card, bounded; later WSL2 "
    "reports of vLLM 0.27.1 run out of memory or fail residency (dxgkio_make_resident ENOMEM) with the card's "
    "memory free (syv-ai/qwen38-27b-rtx3090#1, #2, #26; microsoft/WSL#41176), so no rule that a WSL2 warm-up "
    "spills rather than fails. No WSL2 / Docker Desktop case of tests/fidelity/cases refuses with a CUDA "
    "out-of-memory (their refusals are vLLM's own checks: free-memory three times, kv-cache-too-small, "
    "no-kv-memory), so the cases neither confirm nor contradict it. The same card at the same util is the "
    "sixteenth and seventeenth sets' group (bench.fidelity_unmatched_o, _p). A boot's 'Free memory on device ... "
    "Actual usage' line (the desktop at the snapshot, the split and the capture) would settle it"
)

# Since 2026-12-07 (fifty-first session) the three verdicts, planned 'sampler-oom' when found, are right: the capture's
# base off Hopper is fitted on the other devices' capture lines (planner.engines.vllm.profile_graphs
# .hopper_capture_bytes: a 0.38 GiB capture where 0.66 was planned). WSL2_SAMPLER keeps the reading of the sampler's
# headroom as it was when they were wrong. The BF16 boot's KV misses since the desktop share's refit beside
# FlashInfer's decode workspace (1.18 -> 1.05 GiB: +0.49 -> +0.63 GiB).
# Empty since the mechanistic non-torch model (2026-12-07, fifty-third session): its start-ups meet their targets
TWENTIETH: dict[str, str] = {}
