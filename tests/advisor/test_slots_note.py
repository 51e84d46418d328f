"""A fixed-slot engine's conversations are the slots it launches, one a user (llama.cpp -np), not what its memory
holds: a Strix Halo for one user read "1 conversation, +0 % headroom" with 30 GiB free (an outside review,
2026-12-05). The option says both: the slots it launches and the most its memory holds (the engine's own search,
planner.engines.llamacpp.report.llamacpp_slots_that_fit)."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.engines.registry import get_engine


def test_a_llama_cpp_option_says_its_slots_and_its_room() -> None:
    workload = Workload.fixed_length(32_768, concurrent_conversations=1, gpu_ids=("amd-ryzen-ai-max-plus-395",))
    best = rank(get_model("Qwen/Qwen3-30B-A3B").spec, workload).best
    assert best is not None and best.engine == "llamacpp" and best.conversations == 1
    (note,) = [w for w in best.warnings if w.startswith("llama.cpp launches")]
    assert note.startswith("llama.cpp launches 1 slot, one a user; its memory holds up to ")
    room = int(note.rsplit(" ", 1)[1])
    assert room > 1  # the q8_0 weights (~32 GB) leave most of the 64 GB share to the cache: 3 GiB a 32k slot


def test_engines_with_a_pool_have_no_slot_room() -> None:
    assert not get_engine("vllm").fixed_slots
    workload = Workload.fixed_length(8_192, concurrent_conversations=4, gpu_ids=("h100-sxm-80gb",))
    options = rank(get_model("meta-llama/Llama-3.1-8B").spec, workload).options
    pooled = [o for o in options if not get_engine(o.engine).fixed_slots]
    assert pooled and not any("launches" in w for o in pooled for w in o.warnings)
    slotted = [o for o in options if o.engine == "llamacpp"]  # four users suit llama.cpp too: each says its room
    assert slotted and all(any(w.startswith("llama.cpp launches") for w in o.warnings) for o in slotted)
