"""The Memory page's Deployment section, without a browser: settings become the planner's options for the
selection's engine, and the stacked bar and the table show each deployment component in its own colour."""

from __future__ import annotations

import pytest

from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.planning.plan import plan
from ui import deployment, figures, settings, tables
from ui.deployment import DEFAULTS, options_from
from ui.state import Selection

S = settings


def _sel(**kw: object) -> Selection:
    return Selection.model_validate({"engine": "vllm", "context_tokens": 8192, **kw})


def test_defaults_are_no_deployment() -> None:
    assert options_from(_sel(), dict(DEFAULTS)).options is None


def test_settings_become_options_for_the_engine() -> None:
    values = {S.MAX_LORAS.url: 4, S.LORA_RANK.url: 32, S.CPU_OFFLOAD.url: 2.0, S.USED_MEMORY.url: 1.5}
    built = options_from(_sel(), values)
    assert built.options is not None and not built.notes
    assert built.options.lora is not None and built.options.lora.max_lora_rank == 32
    assert built.options.cpu_offload_bytes == 2 * GiB and built.options.used_memory_bytes == round(1.5 * GiB)


def test_another_engines_setting_is_left_out_with_a_note() -> None:
    built = options_from(_sel(), {S.GPU_LAYERS.url: "20"})
    assert built.options is None and "-ngl is left out" in built.notes[0]
    llamacpp = options_from(_sel(engine="llamacpp"), {S.GPU_LAYERS.url: "20"})
    assert llamacpp.options is not None and llamacpp.options.gpu_layers == 20


def test_a_combination_no_engine_runs_is_refused() -> None:
    with pytest.raises(PlannerError, match="carries no MTP"):
        options_from(_sel(), {S.SPEC_METHOD.url: "mtp"})
    with pytest.raises(PlannerError, match="draft model"):
        options_from(_sel(), {S.SPEC_METHOD.url: "draft"})


def test_colocated_engine_is_memory_in_use() -> None:
    values = {S.COLOCATE.url: "meta-llama/Llama-3.2-1B", S.COLOCATE_UTIL.url: 0.3}
    built = options_from(_sel(), values)
    assert built.options is not None
    total = _sel().gpu.memory_bytes_for(True)
    assert built.options.used_memory_bytes >= int(0.3 * total)  # its budget, plus graphs outside it


def test_mixed_gpus_get_the_best_split_and_a_mark_per_card() -> None:
    sel = _sel(model_id="Qwen/Qwen3-14B", gpu_id="rtx-4090")
    built = options_from(sel, {S.STAGE_GPUS.url: ["rtx-3090"]})
    assert built.options is not None and built.options.layer_split is not None
    assert sum(built.options.layer_split) == 40
    result = plan(sel.request(deployment=built.options))
    assert result.pipeline_parallel == 2 and result.tensor_parallel == 1


def test_deployment_components_in_the_bar_and_the_table() -> None:
    sel = _sel()
    built = options_from(sel, {S.MAX_LORAS.url: 4, S.SPEC_METHOD.url: "eagle", S.USED_MEMORY.url: 2.0})
    result = plan(sel.request(deployment=built.options))
    bars = {trace.name: trace for trace in figures.memory_figure(result).data}
    assert bars["LoRA adapter slots"].x[0] == pytest.approx(result.per_gpu.lora_bytes / GiB)
    assert bars["LoRA adapter slots"].marker.color == figures.COLOURS["LoRA adapter slots"]
    assert bars["Draft model / MTP / heads"].x[0] == pytest.approx(result.per_gpu.draft_bytes / GiB)
    assert bars["In use by other processes"].x[0] == pytest.approx(2.0)
    row = tables.breakdown_rows(result, "GiB")[0]
    assert row["LoRA adapter slots (GiB)"] == round(result.per_gpu.lora_bytes / GiB, 3)
    plain = figures.memory_figure(plan(sel.request()))
    assert "LoRA adapter slots" not in {t.name for t in plain.data}


def test_gpu_layers_setting_parses_all_and_counts() -> None:
    assert S.GPU_LAYERS.parse_values(["all"]) == "all" and S.GPU_LAYERS.parse_values(["12"]) == "12"
    with pytest.raises(ValueError):
        S.GPU_LAYERS.parse_values(["-1"])


def test_changed_names_only_the_settings_moved_from_their_defaults() -> None:
    from ui import links

    assert deployment.changed(links.page_params(S.MEMORY, DEFAULTS)) == {}
    page = links.page_params(S.MEMORY, {**DEFAULTS, S.MAX_LORAS.url: 4, S.STAGE_GPUS.url: ["a100-sxm-80gb"]})
    assert deployment.changed(page) == {S.MAX_LORAS.url: "4", S.STAGE_GPUS.url: ["a100-sxm-80gb"]}


def test_the_rank_choices_are_the_ranks_engines_take() -> None:
    """The dashboard offers the ranks vLLM's ``--max-lora-rank`` takes (0.11.1 on: ``config/lora.py``
    MaxLoRARanks), from the engine registry, not a list of its own: it used to offer 8-512 without 1 and 320."""
    from planner.engines.lora_flags import LORA_RANKS
    from planner.engines.vllm.versions import vllm_rules

    assert deployment.LORA_RANKS == LORA_RANKS == vllm_rules("0.34.0").lora_ranks
    assert 320 in deployment.LORA_RANKS and 1 in deployment.LORA_RANKS
