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
        "KV -0.62 GiB, tokens -13.7 % (-0.31 before: 1.49 GiB planned for its 21.18 GiB of weights where 1.18 "
        "was): it holds 0.87 GiB beyond the era's base and its encoder's amount, 4 % of its weights, while its MTP 2 "
        "and MTP 3 siblings of the same README hold 1.98-1.99 (+0.43 / +0.44 planned); " + _SHARE
    ),
    "vllm-0.27-2x5090-qwen38-27b-nvfp4-mtp3-fp8kv-262k-util090-club3090-1026": (
        "KV +0.50 GiB, tokens +3.2 % (+0.53 / +3.3 % until FlashInfer's workspace was placed in FULL's first capture "
        "and make calibrate refit the encoder amount to 46,417 bytes; +0.45 / +2.8 % until make calibrate refitted "
        "the vision encoder's non-torch amount per item token without club-3090 #851's under-counted INT4 weights, "
        "51,796 -> 42,337 bytes, 2026-12-07): RadixArk's Qwen3.8-27B NVFP4 at TP 2 (club-3090 issue #1026, "
        "twenty-third blind set) now "
        "plans 0.08 GiB less encoder memory a rank than its log leaves; the issue prints no 'Model loading took' "
        "or non-torch line that would split the rest"
    ),
}
