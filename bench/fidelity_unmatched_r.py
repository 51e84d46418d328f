"""The nineteenth blind set's misses (tests/fidelity/cases/vllm-blind-2026-12r.json, found 2026-12-07), with the
term read from each log's own split against the planner's and what would settle it: merged into
:data:`bench.fidelity_unmatched.UNMATCHED`. (Its two Qwen3-4B-Instruct-2507 boots at 131,072 tokens, refused when
found for the catalog Qwen3-4B's 40,960 positions, start since the 2507 checkpoint has its own catalog entry.)"""

from __future__ import annotations

# The two lab servers of one Korean ThunderAgent reproduction (Qwen3-8B BF16, 32,768 tokens, util 0.92)
LAB_SERVER = (
    "Qwen3-8B BF16 runs Model Runner V2 in 0.24.0 (Qwen3ForCausalLM is listed, config/vllm.py:68-77, :550-562), "
    "whose graph estimate is a stub, so the budget is util x total less the weights, the profile's activation and "
    "the non-torch memory vLLM counts since its own baseline snapshot (0.24.0 utils/mem_utils.py:289-306, "
    "non_torch_increase = after_profile - before_create; v1/worker/gpu_worker.py:459-492). The plan's non-torch is "
    "1.43 GiB: the era's 0.25 and the 1.18 GiB fitted on compiled GeForce / RTX workstation start-ups whose desktops "
    "allocated while vLLM profiled. These cards are a lab's servers (the RTX 4090 one of four in mango1; the RTX "
    "5090s 'idle, no process' by nvidia-smi before the boot), where nothing beside vLLM allocates during its "
    "profile; without that share both boots are within 0.12 GiB. The same fitted share holds the nineteenth set's "
    "RTX 5090 VM boots of Qwen3-4B (within 0.11) and the fourteenth check's TP 2 RTX 3090 boots, so it is not wrong "
    "everywhere: whether a machine runs a desktop decides it, and the case does not say. The boot's DEBUG 'Memory "
    "profiling takes ... non-torch forward increase memory' line (gpu_worker.py:507, mem_utils.py:215-225) would "
    "settle it"
)

# Empty since the mechanistic non-torch model (2026-12-07, fifty-third session): its start-ups meet their targets
NINETEENTH: dict[str, str] = {}
