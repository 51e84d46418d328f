"""The twentieth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12s.json, found 2026-12-07), with the
term read from each log's own figures against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. One known group: the sampler's warm-up under WSL2 on an RTX 4090 at
util 0.92 (the sixteenth and seventeenth sets' wrong verdicts)."""

from __future__ import annotations

# Three Qwen2.5-7B-Instruct boots on one RTX 4090 under WSL2 (vLLM 0.27.1, util 0.92, 8,192 tokens)
WSL2_SAMPLER = (
    "0.27.1 warms the sampler after the KV pool and the graph capture (compile_or_warm_up_model) in the 1 - 0.92 "
    "of the card outside the budget. On the 23.99 GiB card the plan holds the worker's CUDA context (0.51 GiB), "
    "the Windows desktop's 1.13 GiB (planner.deploy.host.WINDOWS_DESKTOP_BYTES, the median of three public WSL2 "
    "/ Docker Desktop start-ups less the context), the weights, the pool, the capture (0.66) and a non-torch "
    "figure of 1.58 GiB that carries the 1.18 GiB desktop share fitted on compiled GeForce start-ups, leaving "
    "-0.08 GiB for a 0.09 GiB sampler peak; without the desktop's 1.13 GiB 1.02 GiB would be free and all three "
    "start. The document reads 22,951 / 23,859 / 23,792 MiB in use on the 24,564 MiB card while serving, the "
    "desktop included, 0.69-1.57 GiB free, so this machine's desktop held less than the share or the capture came "
    "in under the plan. The same card at the same util is the sixteenth and seventeenth sets' wrong verdicts "
    "(bench.fidelity_unmatched_o, _p): which term the share stands for is the open question of docs/fidelity.md, "
    "'Windows hosts'. A boot's 'Free memory on device' line (the desktop's memory at the worker's snapshot) would "
    "settle it"
)

TWENTIETH: dict[str, str] = {
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-bf16-8k-util092": (
        "verdict (planned 'sampler-oom', it started), KV +0.49 GiB from the printed 102,544 tokens (5.97 planned, "
        "5.48), tokens +9.0 % (twentieth blind set, 2026-12-07; as found): Qwen2.5-7B-Instruct BF16, the script's "
        "first model. " + WSL2_SAMPLER + ". The KV errors of the three (+0.49, -0.45, -0.26) share every planned "
        "term but the weights (14.22 / 5.22 / 8.14 GiB planned, none printed in the lines kept): a 'Model loading "
        "took' line would place them"
    ),
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-gptq-int4-8k-util092": (
        "verdict (planned 'sampler-oom', it started), KV -0.45 GiB from the printed 288,656 tokens (14.97 planned, "
        "15.42), tokens -2.9 % (twentieth blind set, 2026-12-07; as found): Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4. "
        + WSL2_SAMPLER
    ),
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-fp8-dynamic-8k-util092": (
        "verdict (planned 'sampler-oom', it started), KV -0.26 GiB from the printed 230,352 tokens (12.05 planned, "
        "12.30), tokens -2.1 % (twentieth blind set, 2026-12-07; as found): RedHatAI/Qwen2.5-7B-Instruct-FP8-dynamic. "
        + WSL2_SAMPLER
    ),
}
