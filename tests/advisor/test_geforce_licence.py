"""GeForce cards priced in a rack server carry NVIDIA's driver licence clause ("not licensed for datacenter
deployment", section 2.1.3): an outside review (2026-12-06) found four RTX 5090s in an 8-slot server recommended
with no word of it. A desktop or open-frame build does not carry it, nor a data-center card in a rack."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.advisor.option_notes import GEFORCE_LICENCE


def _options(gpu: str, users: int):  # type: ignore[no-untyped-def]
    workload = Workload.fixed_length(16384, concurrent_conversations=users, gpu_ids=(gpu,))
    return rank(get_model("Qwen/Qwen3-30B-A3B").spec, workload).options


def test_rtx_5090s_in_a_rack_server_name_the_licence() -> None:
    racked = [o for o in _options("rtx-5090", 64) if o.rack_units is not None]
    assert racked and all(GEFORCE_LICENCE in o.warnings for o in racked)


def test_a_desktop_build_and_a_datacenter_card_do_not() -> None:
    desk = [o for o in _options("rtx-5090", 1) if o.rack_units is None]
    assert desk and not any(GEFORCE_LICENCE in o.warnings for o in desk)
    assert not any(GEFORCE_LICENCE in o.warnings for o in _options("l40s", 64))
