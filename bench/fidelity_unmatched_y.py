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
}
