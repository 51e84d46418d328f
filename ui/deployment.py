"""The Memory page's Deployment section: partial offload, the KV offload tier, LoRA slots, speculative decoding,
shared GPUs (memory in use, MIG, another engine) and mixed GPUs. Every widget is a declared setting
(:data:`ui.settings.DEPLOYMENT_SETTINGS`), so the address bar and the share link carry the deployment; the figures
are :func:`planner.assessment.summary.deployment_data` of the page's one assessment.

:func:`options_from` (pure) turns the settings into :class:`planner.deploy.options.DeploymentOptions` for the
selection's engine: a setting another engine owns is left out and said so.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import streamlit as st
from pydantic import ValidationError

from model_catalog import get_gpu, get_model
from planner.assessment.assess import Assessment
from planner.assessment.search import (
    best_layer_split,
    deployment_answers,
    footprint_bytes,
    offload_cures,
    side_by_side,
)
from planner.assessment.summary import deployment_data
from planner.assessment.words import refusal
from planner.bounds.errors import PlannerError, describe_validation_error
from planner.core.units import GB, GiB, format_bytes
from planner.deploy.host import HOSTS
from planner.deploy.mixed import stage_gpu
from planner.deploy.options import DeploymentOptions, KvOffloadOptions, LoraOptions, SpeculativeOptions
from planner.deploy.sharing import mig_profiles, parse_nvidia_smi, used_memory_bytes
from planner.engines import lora_flags
from planner.engines.registry import default_engine, engine_names, get_engine, overhead_profile
from planner.planning.plan import plan_basis
from ui import binding, links, settings
from ui.guard import as_text
from ui.state import Selection, gpu_options, model_options

OPEN_KEY = "deployment_open"  # whether the section is open: a view state, not a setting (the link opens it when set)
SMI_KEY = "nvidia_smi_paste"  # a pasted nvidia-smi: not a setting (the memory in use it gives travels as used_mem)
S = settings
DEFAULTS: dict[str, Any] = {
    S.GPU_LAYERS.url: "all", S.CPU_MOE.url: 0, S.CPU_OFFLOAD.url: 0.0, S.HOST_BANDWIDTH.url: 89.6,
    S.KV_OFFLOAD.url: 0.0, S.PREFIX_TOKENS.url: 0, S.HIT_RATE.url: 1.0, S.MAX_LORAS.url: 0, S.LORA_RANK.url: 16,
    S.SPEC_METHOD.url: S.NONE, S.DRAFT_MODEL.url: S.NONE, S.SPEC_TOKENS.url: 1, S.USED_MEMORY.url: 0.0,
    S.HOST.url: "linux", S.GPU_SHARE.url: 0.0, S.MIG.url: S.NONE, S.COLOCATE.url: S.NONE, S.COLOCATE_UTIL.url: 0.3,
    S.STAGE_GPUS.url: [],
}  # fmt: skip
LORA_RANKS = lora_flags.LORA_RANKS  # the ranks engines take, from the registry


def changed(page: dict[str, str | list[str]]) -> dict[str, str | list[str]]:
    """The section's settings in ``page`` (URL parameters) that differ from the defaults: what a report or a
    CSV row names (a plain set-up names none)."""
    defaults = links.page_params(S.MEMORY, DEFAULTS)
    return {key: value for key, value in page.items() if defaults.get(key) != value}


class Built(NamedTuple):
    options: DeploymentOptions | None
    notes: list[str]  # settings left out, and why


def _engine_kind(sel: Selection) -> str:
    return sel.engine if sel.engine in engine_names() and sel.calibration is None else "generic"


def _colocated_bytes(sel: Selection, values: dict[str, Any]) -> int:
    """What the other vLLM engine holds on each GPU once started (:func:`planner.assessment.search.footprint_bytes`)."""
    other_id = values[S.COLOCATE.url]
    if other_id == S.NONE:
        return 0
    mine = sel.request()
    overhead = overhead_profile(default_engine(), fraction=float(values[S.COLOCATE_UTIL.url]))
    update = {"model": get_model(other_id).spec, "weights": None, "kv_dtype": None, "overhead": overhead}
    return footprint_bytes(side_by_side([mine.model_copy(update=update)])[0])


def _speculative(values: dict[str, Any]) -> SpeculativeOptions | None:
    method = values[S.SPEC_METHOD.url]
    if method == S.NONE:
        return None
    draft = values[S.DRAFT_MODEL.url]
    if method == "draft" and draft == S.NONE:
        raise PlannerError("speculative decoding: choose the draft model")
    spec = get_model(draft).spec if method == "draft" else None
    return SpeculativeOptions(method=method, draft_model=spec, num_speculative_tokens=int(values[S.SPEC_TOKENS.url]))


def options_from(sel: Selection, values: dict[str, Any]) -> Built:
    """The :class:`DeploymentOptions` of the section's ``values`` (by URL name) for ``sel``'s engine; settings
    another engine owns are left out with a note. Raises :class:`PlannerError` on a combination no engine runs,
    and on one the options refuse: each setting is within its option's range (:mod:`ui.settings.deployment`), but
    two may add up past it (the memory in use plus another engine's)."""
    try:
        return _options_from(sel, values)
    except ValidationError as exc:
        raise PlannerError(f"deployment: {describe_validation_error(exc)}") from None


def _options_from(sel: Selection, values: dict[str, Any]) -> Built:
    engine, notes = _engine_kind(sel), []
    support = get_engine(engine).support if engine in engine_names() else None  # a generic profile takes all
    v = {**DEFAULTS, **values}

    def owned(url: str, takes: bool, label: str) -> bool:
        if v[url] == DEFAULTS[url] or support is None or takes:
            return True
        notes.append(f"{label} is left out: {support.label} has no such option.")
        return False

    layer = owned(S.GPU_LAYERS.url, bool(support and support.layer_offload_flags), "-ngl") and owned(
        S.CPU_MOE.url, bool(support and support.layer_offload_flags), "--n-cpu-moe"
    )
    offload = owned(S.CPU_OFFLOAD.url, bool(support and support.cpu_offload_flag), "--cpu-offload-gb")
    lora = v[S.MAX_LORAS.url] and owned(S.MAX_LORAS.url, bool(support and support.lora), "LoRA slots")
    takes_tier = bool(support and support.kv_offload_backends)
    tier = owned(S.KV_OFFLOAD.url, takes_tier, "The KV offload tier") and owned(
        S.PREFIX_TOKENS.url, takes_tier, "The prefix working set"
    )
    kv = None
    if tier and (v[S.KV_OFFLOAD.url] or v[S.PREFIX_TOKENS.url]):
        kv = KvOffloadOptions(
            size_bytes=round(float(v[S.KV_OFFLOAD.url]) * GiB), prefix_tokens=int(v[S.PREFIX_TOKENS.url]),
            users=sel.users if v[S.PREFIX_TOKENS.url] else 0, hit_rate=float(v[S.HIT_RATE.url]),
        )  # fmt: skip
    stages = [sel.gpu_id, *v[S.STAGE_GPUS.url]] if v[S.STAGE_GPUS.url] else []
    options = DeploymentOptions(
        gpu_layers=None if not layer or v[S.GPU_LAYERS.url] == "all" else int(v[S.GPU_LAYERS.url]),
        cpu_moe_layers=int(v[S.CPU_MOE.url]) if layer else 0,
        cpu_offload_bytes=round(float(v[S.CPU_OFFLOAD.url]) * GiB) if offload else 0,
        host_bandwidth_bytes_per_s=round(float(v[S.HOST_BANDWIDTH.url]) * GB),
        kv_offload=kv,
        lora=LoraOptions(max_loras=int(v[S.MAX_LORAS.url]), max_lora_rank=int(v[S.LORA_RANK.url])) if lora else None,
        speculative=_speculative(v),
        used_memory_bytes=round(float(v[S.USED_MEMORY.url]) * GiB) + _colocated_bytes(sel, v),
        host=v[S.HOST.url],
        unified_share=(float(v[S.GPU_SHARE.url]) or None) if sel.gpu.unified_memory is not None else None,
        mig_profile=None if v[S.MIG.url] == S.NONE else v[S.MIG.url],
        stage_gpus=tuple(stage_gpu(get_gpu(g), sel.is_engine, v[S.HOST.url]) for g in stages),
    )
    if not options.active:
        return Built(None, notes)
    if options.stage_gpus and len(options.stage_gpus) > 1:
        options = options.model_copy(update={"layer_split": best_layer_split(sel.request(deployment=options)).split})
    plan_basis(sel.request(deployment=options))  # refuses what no engine runs (PlannerError)
    return Built(options, notes)


def not_taken(sel: Selection) -> dict[str, str]:
    """The section's settings the selection's engine (or GPU: a GPU share needs a unified-memory machine) has no
    option for (URL name -> the reason): they are drawn disabled at their defaults. A generic profile takes the
    engine's all."""
    engine = _engine_kind(sel)
    off = {} if sel.gpu.unified_memory else {S.GPU_SHARE.url: f"{sel.gpu.name} has memory of its own, not a share"}
    if engine not in engine_names():
        return off
    support = get_engine(engine).support
    label = support.label
    if not support.layer_offload_flags:
        for s in (S.GPU_LAYERS, S.CPU_MOE, S.HOST_BANDWIDTH):
            off[s.url] = f"{label} does not keep layers in system RAM (-ngl / --n-cpu-moe)"
    if not support.cpu_offload_flag:
        off[S.CPU_OFFLOAD.url] = f"{label} has no --cpu-offload-gb" + (
            f"; it keeps layers in system RAM with {support.layer_offload_flags[0]}"
            if support.layer_offload_flags
            else ""
        )
    if not support.kv_offload_backends:
        for s in (S.KV_OFFLOAD, S.PREFIX_TOKENS, S.HIT_RATE):
            off[s.url] = f"{label} has no KV offload tier planned here"
    if support.lora is None:
        off[S.MAX_LORAS.url] = off[S.LORA_RANK.url] = f"{label}'s LoRA adapter slots are not planned here"
    if not support.speculative_methods:
        for s in (S.SPEC_METHOD, S.DRAFT_MODEL, S.SPEC_TOKENS):
            off[s.url] = f"{label} runs no speculative decoding here"
    elif "draft" not in support.speculative_methods:
        off[S.DRAFT_MODEL.url] = f"{label} takes no draft model"
    if not support.stage_split:
        off[S.STAGE_GPUS.url] = f"{label} does not split layers unevenly over mixed GPUs"
    return off


def _draw(where: Any, setting: settings.Setting, off: dict[str, str], draw: Any, *args: Any, **kwargs: Any) -> Any:
    """A section widget: disabled at its default when the engine does not take it (a link's value is noted)."""
    if setting.url in off:
        default = DEFAULTS[setting.url]
        binding.ensure(setting, lambda v: v == default, default, as_text(off[setting.url]))
        kwargs["disabled"] = True
    return draw(where, setting, *args, **kwargs)


def _offload_widgets(box: Any, sel: Selection, off: dict[str, str]) -> dict[str, Any]:
    n = sel.spec.num_hidden_layers
    c1, c2, c3, c4 = box.columns(4)
    ngl = _draw(c1, S.GPU_LAYERS, off, binding.choose, ["all", *map(str, range(n + 2))], "all")
    moe = _draw(c2, S.CPU_MOE, off, binding.number, 0, n, 0, step=1)
    gib = _draw(c3, S.CPU_OFFLOAD, off, binding.number, *S.CPU_OFFLOAD.range, 0.0, step=1.0, format="%.1f")
    bw = _draw(c4, S.HOST_BANDWIDTH, off, binding.number, *S.HOST_BANDWIDTH.range, 89.6, step=10.0, format="%.3g")
    return {S.GPU_LAYERS.url: ngl, S.CPU_MOE.url: moe, S.CPU_OFFLOAD.url: gib, S.HOST_BANDWIDTH.url: bw}


def _tier_and_lora_widgets(box: Any, off: dict[str, str]) -> dict[str, Any]:
    c1, c2, c3, c4, c5 = box.columns(5)
    return {
        S.KV_OFFLOAD.url: _draw(
            c1, S.KV_OFFLOAD, off, binding.number, *S.KV_OFFLOAD.range, 0.0, step=8.0, format="%.1f"
        ),
        S.PREFIX_TOKENS.url: _draw(c2, S.PREFIX_TOKENS, off, binding.number, *S.PREFIX_TOKENS.range, 0, step=256),
        S.HIT_RATE.url: _draw(c3, S.HIT_RATE, off, binding.number, *S.HIT_RATE.range, 1.0, step=0.05, format="%.2f"),
        S.MAX_LORAS.url: _draw(c4, S.MAX_LORAS, off, binding.number, *S.MAX_LORAS.range, 0, step=1),
        S.LORA_RANK.url: _draw(c5, S.LORA_RANK, off, binding.choose, list(LORA_RANKS), 16),
    }


def _sharing_widgets(box: Any, sel: Selection, off: dict[str, str]) -> dict[str, Any]:
    c1, c2, c3, c4, c5, c6 = box.columns(6)
    engine = _engine_kind(sel)
    every = ["draft", "eagle", "eagle3", "medusa", "mtp"]
    taken = get_engine(engine).support.speculative_methods if engine in engine_names() else every
    methods = [S.NONE, *(m for m in every if m in taken)]  # what the engine runs (llama.cpp: a draft model)
    values = {
        S.SPEC_METHOD.url: _draw(c1, S.SPEC_METHOD, off, binding.choose, methods, S.NONE),
        S.DRAFT_MODEL.url: _draw(c2, S.DRAFT_MODEL, off, binding.choose, [S.NONE, *model_options()], S.NONE),
        S.SPEC_TOKENS.url: _draw(c3, S.SPEC_TOKENS, off, binding.number, *S.SPEC_TOKENS.range, 1, step=1),
        S.USED_MEMORY.url: binding.number(c4, S.USED_MEMORY, *S.USED_MEMORY.range, 0.0, step=1.0, format="%.2f"),
        S.MIG.url: binding.choose(c5, S.MIG, [S.NONE, *mig_profiles(sel.gpu_id)], S.NONE),
        S.COLOCATE.url: binding.choose(c6, S.COLOCATE, [S.NONE, *model_options()], S.NONE),
    }
    c1, c2, c3, c4 = box.columns([1, 1.5, 1, 3])
    values[S.COLOCATE_UTIL.url] = binding.number(
        c1, S.COLOCATE_UTIL, *S.COLOCATE_UTIL.range, 0.3, step=0.05, format="%.2f"
    )
    values[S.HOST.url] = binding.choose(c2, S.HOST, list(HOSTS), "linux")
    values[S.GPU_SHARE.url] = _draw(c3, S.GPU_SHARE, off, binding.number, 0.0, 1.0, 0.0, step=0.01, format="%.2f")
    others = [g for g in gpu_options() if g != sel.gpu_id]
    values[S.STAGE_GPUS.url] = _draw(c4, S.STAGE_GPUS, off, binding.choose_many, others, [], max_selections=7)
    return values


def _smi(box: Any, sel: Selection) -> None:
    text = box.text_area("Paste nvidia-smi (optional)", key=SMI_KEY, height=80, max_chars=50_000)
    if not text.strip():
        return
    try:
        used = used_memory_bytes(parse_nvidia_smi(text), sel.gpu_count)
    except PlannerError as exc:
        box.error(as_text(str(exc)), icon=":material/error:")
        return
    box.caption(f"nvidia-smi: {format_bytes(used, 'GiB')} in use on the fullest of the first {sel.gpu_count} GPU(s).")
    if box.button("Use it as the memory already in use", icon=":material/check:"):
        binding.set_value(S.USED_MEMORY, round(used / GiB, 2))
        st.rerun()


def section(
    sel: Selection, closed_drawn: bool = True
) -> tuple[Any, DeploymentOptions | None, dict[str, str | list[str]]]:
    """Draw the section's settings; (the expander, the options, the section's link parameters). ``closed_drawn``
    false (a cold link's first paint, :mod:`ui.first_paint`): a section at its defaults is not drawn at all (None
    for the expander), its closed box coming with the rest of the page."""
    active = any(st.session_state.get(s.url, DEFAULTS[s.url]) != DEFAULTS[s.url] for s in S.DEPLOYMENT_SETTINGS)
    if not (active or closed_drawn):
        return None, None, links.page_params(S.MEMORY, DEFAULTS)
    # Streamlit's lazy expander (``on_change="rerun"``, ``.open``): while it is closed and every setting is at its
    # default, its ~20 widgets are not drawn, so a cold link's first paint does not render them (make bench).
    box = st.expander("Deployment: offload, KV tier, LoRA, speculation, shared and mixed GPUs", expanded=active,
                      icon=":material/hub:", on_change="rerun", key=OPEN_KEY)  # fmt: skip
    if not (active or box.open):
        return box, None, links.page_params(S.MEMORY, DEFAULTS)
    off = not_taken(sel)
    box.caption("Partial offload (llama.cpp -ngl / --n-cpu-moe; vLLM, SGLang --cpu-offload-gb) · KV offload tier")
    values = _offload_widgets(box, sel, off)
    values.update(_tier_and_lora_widgets(box, off))
    box.caption("Speculative decoding · memory already in use, MIG slice, another engine · mixed GPUs")
    values.update(_sharing_widgets(box, sel, off))
    if off:
        reasons = "; ".join(dict.fromkeys(off.values()))
        box.caption(as_text(f"Greyed out: {reasons}."))
    _smi(box, sel)
    page = links.page_params(S.MEMORY, values)
    try:
        built = options_from(sel, values)
    except PlannerError as exc:
        box.error(as_text(f"{exc}. The deployment is left out of the plan."), icon=":material/error:")
        return box, None, page
    for note in built.notes:
        box.caption(as_text(note))
    if built.options is not None and built.options.stage_gpus:
        box.caption("Mixed GPUs: one pipeline stage per GPU (TP 1); the sidebar's GPU count, TP and PP are not used.")
    return box, built.options, page


def results(box: Any, a: Assessment) -> None:
    """What the deployment puts on each GPU and in host RAM, and what it answers."""
    data = deployment_data(a)
    details = data["deployment"]
    if details is None:
        return
    unit = "GiB"
    c1, c2, c3, c4 = box.columns(4)
    c1.metric(
        "On each GPU: LoRA + proposer", format_bytes(data["lora_bytes_per_gpu"] + data["draft_bytes_per_gpu"], unit)
    )
    c2.metric("Already in use per GPU", format_bytes(data["other_bytes_per_gpu"], unit))
    host = data["host_weights_bytes"] + data["kv_offload_host_bytes"] + data["lora_host_bytes"]
    c3.metric(
        "Host RAM", format_bytes(host, unit), help=f"/dev/shm: {format_bytes(data['kv_offload_shm_bytes'], unit)}"
    )
    decode = details["decode"]
    c4.metric("Decode bound", f"{decode['tokens_per_s']:.1f} tok/s" if decode else "—",
              help="One sequence, every weight byte read once per token (all on the GPU: "
              + (f"{decode['tokens_per_s_all_on_gpu']:.1f})" if decode else "n/a)"))  # fmt: skip
    tier = details["kv_offload"]
    if tier:
        box.markdown(f"KV tier: **{tier['tokens']:,} tokens**, {tier['conversations']:,} conversations parked in host "
                     f"RAM besides the {a.conversations:,} the GPUs hold at once.")  # fmt: skip
    _answers(box, a)
    if details["launch_settings"]:
        box.code(" ".join(details["launch_settings"]), language="bash", wrap_lines=True)


def _answers(box: Any, a: Assessment) -> None:
    """The section's answers (:func:`planner.assessment.search.deployment_answers`, the CLI's): layers that fit,
    the offload needed — or, when memory in use stops the engine, that offloading does not cure it and the memory
    fraction that does."""
    options = a.request.deployment
    if a.report is None:
        return
    asked_layers = options is not None and options.gpu_layers is not None
    asked_offload = options is not None and bool(options.cpu_offload_bytes)
    found = deployment_answers(a, None, asked_layers, asked_offload)
    if "gpu_layers_that_fit" in found:
        fit = found["gpu_layers_that_fit"]
        box.markdown(f"Layers that fit on the GPU: **{'none' if fit is None else f'-ngl {fit}'}**.")
    if "cpu_offload_gib_needed" in found:
        needed = found["cpu_offload_gib_needed"]
        needs = found.get("cpu_offload_needs")
        if needed is not None and needs:
            box.markdown(f"Offload needed: **{needed} GiB per GPU**, with `{needs}`: without it this release ignores "
                         "--cpu-offload-gb for this model (the engine note says why).")  # fmt: skip
        elif needed is not None:
            box.markdown(f"Offload needed: **{needed} GiB per GPU**.")
        elif offload_cures(a):
            box.markdown("Offload needed: **more than the weights** (offloading them all does not start it).")
    if not offload_cures(a):
        label = a.engine_label
        why = refusal(a.report, a.request.gpu)
        box.markdown(f"Offloading weights does not cure this: {label} would refuse to start, {why}")
    if found.get("memory_fraction_that_starts") is not None:
        fraction = found["memory_fraction_that_starts"]
        flag = get_engine(a.report.engine).fraction_flag or "its memory fraction"
        box.markdown(f"A memory fraction of **{fraction:.2f}** ({flag}) starts it (see the nearest set-ups).")
