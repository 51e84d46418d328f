"""The start-ups the Windows term as a share of the weights loaded (2026-12-07, fifty-fourth session, issue 20:
``VllmConstants.windows_weights_share``, 7.05 %, in place of 1.18 GiB a process; planner.engines.vllm.windows_share)
takes beyond a target, each with its figure before it."""

from __future__ import annotations

_SHARE = (
    "what Windows holds for the process beyond Linux's figure is planned as a share of the weights loaded, fitted on "
    "the 18 public WSL2 / Docker Desktop start-ups (their own shares run from none to twice the median); the boot "
    "prints no 'Free memory on device ... Actual usage' line that would split it out"
)

FIFTY_FOURTH: dict[str, str] = {
    "vllm-0.27-rtx4090-wsl2-qwen25-7b-instruct-bf16-8k-util092": (
        "KV +0.61 GiB, tokens +11.1 % (+0.44 before: 1.00 GiB planned for its 14.27 GiB of weights where 1.18 was): "
        "it holds 1.62 GiB beyond the era's base, 11 % of its weights, " + _SHARE
    ),
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8": (
        "KV -0.47 GiB, tokens -10.5 % since the MTP drafter's buffers and make calibrate's encoder refit to 41,312 B "
        "(2026-12-07, fifty-fifth session; -0.54 / -12.6 % before, and -0.62 / -13.7 % on the fifty-fourth session's "
        "tree; -0.31 before that: 1.49 GiB planned for its 21.18 GiB of weights where 1.18 "
        "was): it holds 0.87 GiB beyond the era's base and its encoder's amount, 4 % of its weights, while its MTP 2 "
        "and MTP 3 siblings of the same README hold 1.98-1.99 (+0.43 / +0.44 planned); " + _SHARE
    ),
}
