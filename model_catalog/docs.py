"""Write ``docs/catalog.md`` from the catalog data: every model and GPU with its figures, sources and dates.

``python -m model_catalog.docs`` (and ``make docs``) rewrites the page; ``tests/catalog/test_docs.py`` fails when
the page is stale. Nothing here is typed by hand: a figure the data files lack is shown as unknown.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

from model_catalog import CatalogModel, load_gpus, load_hosts, load_models, running_costs
from planner.core.gpu import ComputeFormat, GpuSpec
from planner.core.host import HostSpec
from planner.core.kv import kv_bytes_per_token
from planner.core.model import ModelSpec
from planner.core.params import parameter_breakdown

DOCS_PATH = Path(__file__).resolve().parents[1] / "docs" / "catalog.md"
NOT_CATALOGUED = Path(__file__).resolve().parent / "not-catalogued.toml"
DATE = re.compile(r"\b(20\d\d-\d\d(?:-\d\d)?)\b")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _billions(count: int) -> str:
    return f"{count / 1e9:,.2f} B"


def _reference(entry: CatalogModel) -> str:
    ref = entry.reference
    if ref.hub_safetensors_total is not None:
        text = f"Hub total {ref.hub_safetensors_total:,}"
        if ref.hub_total_non_parameters:
            text += f" ({ref.hub_total_non_parameters:+,} not parameters)"
        return text
    if ref.published_total is not None:
        return f"published total {ref.published_total:,}"
    assert ref.card_total is not None  # validated: one of the three is given
    return f"card {_billions(ref.card_total)}"


def _model_section(entry: CatalogModel) -> list[str]:
    spec, ref = entry.spec, entry.reference
    b = parameter_breakdown(spec)
    lines = [f"### {spec.id}", ""]
    lines.append(f"- **{spec.display_name}**, `{spec.model_type}`, {spec.num_hidden_layers} layers ({_layers(spec)}).")
    lines.append(
        f"- Parameters computed: {b.total:,} in the checkpoint, {b.served:,} served"
        + (f", {b.attached_not_loaded:,} not loaded" if b.attached_not_loaded else "")
        + f"; reference: {_reference(entry)}, read {ref.read_on.isoformat()}."
    )
    lines.append(f"- Reference source: {ref.source}")
    if ref.note:
        lines.append(f"- Reference note: {ref.note}")
    if ref.checkpoint_bytes is not None:
        lines.append(f"- Published checkpoint size: {ref.checkpoint_bytes:,} bytes ({ref.checkpoint_precision}).")
    lines.append(
        f"- KV cache per token in BF16: {kv_bytes_per_token(spec, 'bf16'):,} bytes; native weights: {spec.native_dtype}"
        + (f"; context advertised: {entry.context_advertised:,} tokens." if entry.context_advertised else ".")
    )
    if spec.yarn is not None:
        lines.append(
            f"- YaRN (card, not in the config; planned above {spec.max_position_embeddings:,} tokens): factor "
            f"{spec.yarn.factor:g} over {spec.yarn.original_max_position_embeddings:,}, up to {spec.yarn.ceiling:,} "
            f"tokens. Source: {entry.yarn_source}"
        )
    for module in spec.attached_modules:
        loaded = "loaded" if module.loaded_for_serving else "not loaded"
        lines.append(f"- Attached: {module.name}, {module.parameters:,} parameters ({loaded}): {module.source}")
    lines.append(f"- Sources, read {entry.read_on.isoformat()}:")
    lines.extend(f"  - {source}" for source in entry.sources)
    if entry.aliases:
        lines.append("- Aliases (same config shapes, planned as this entry):")
        lines.extend(f"  - `{alias.id}`: {alias.source}" for alias in entry.aliases)
    if entry.notes:
        lines.append("- Notes:")
        lines.extend(f"  - {note}" for note in entry.notes)
    lines.append("")
    return lines


def _layers(spec: ModelSpec) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in spec.layer_kind_counts.items() if n)


def _gpu_dates(gpu: GpuSpec) -> list[str]:
    found = {d for source in gpu.sources for d in DATE.findall(source)}
    if gpu.price is not None:
        found.add(gpu.price.date)
    found.update(c.date for c in gpu.cloud_prices)
    return sorted(found)


def _gpu_figures(gpu: GpuSpec) -> list[tuple[str, str]]:
    """Bandwidth, dense compute per format ("none": no such format; "unknown": no sourced figure) and TDP."""
    figures = [
        ("bandwidth", f"{gpu.bandwidth_bytes_per_s / 1e9:,.0f} GB/s" if gpu.bandwidth_bytes_per_s else "unknown")
    ]
    formats: tuple[tuple[ComputeFormat, str], ...] = (("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "FP4"))
    for fmt, label in formats:
        value = gpu.compute.tflops(fmt)
        figures.append((f"{label} dense", f"{value:g} TFLOPS" if value else gpu.compute.status(fmt)))
    int8 = gpu.compute.tflops("int8")
    figures.append(("INT8 dense", f"{int8:g} TOPS" if int8 else gpu.compute.status("int8")))
    figures.append(("TDP", f"{gpu.tdp_watts} W" if gpu.tdp_watts else "unknown"))
    return figures


def _gpu_read(gpu: GpuSpec) -> str:
    """When the entry's sources were read; entries written before ``read_on`` existed say so."""
    return f"read {gpu.read_on.isoformat()}" if gpu.read_on else "date read not recorded"


def _gpu_section(gpu: GpuSpec) -> list[str]:
    lines = [f"### {gpu.id}", ""]
    memory = f"{gpu.memory_marketed_gb:g} GB marketed"
    if gpu.memory_reported_bytes is not None:
        memory += f", {gpu.memory_reported_bytes:,} bytes reported"
    if gpu.engine_visible_bytes is not None:
        memory += f", {gpu.engine_visible_bytes:,} bytes engine-visible"
    lines.append(f"- **{gpu.name}** ({gpu.vendor}{', ' + gpu.form_factor if gpu.form_factor else ''}): {memory}.")
    lines.append("- " + "; ".join(f"{name}: {value}" for name, value in _gpu_figures(gpu)) + ".")
    lines.append(f"- Compute source: {gpu.compute.source}" + (f"; {gpu.compute.note}" if gpu.compute.note else ""))
    unit = gpu.purchase
    lines.append(f"- Sold as: {unit.description} ({unit.kind}, {unit.gpus_per_unit} GPU(s) a unit): {unit.source}")
    if unit.cooling is not None:
        needs = " (only in a server whose fans cool it)" if unit.cooling == "passive" else ""
        lines.append(f"- Cooling: {unit.cooling}{needs}: {unit.cooling_source}")
    if gpu.liquid_cooling:
        lines.append(f"- Liquid cooling: {gpu.liquid_cooling}")
    if unit.max_per_host is not None:
        lines.append(f"- At most {unit.max_per_host} to a host, {unit.max_per_host_why}: {unit.max_per_host_source}")
    if gpu.unified_memory is not None:
        um = gpu.unified_memory
        lines.append(
            f"- Unified memory: the GPU gets {um.default_gpu_share:.0%} by default ({um.source}); "
            f"raise it with {um.raise_command}"
        )
    if gpu.price is not None:
        p = gpu.price
        lines.append(f"- Price: ${p.usd:,.0f} ({p.kind}, {p.date}): {p.source}")
    if gpu.discontinued is not None:
        d = gpu.discontinued
        after = f", replaced by {d.replaced_by}" if d.replaced_by else ""
        lines.append(f"- No longer sold new since {d.since}{after}: {d.source}")
    for cloud in gpu.cloud_prices:
        lines.append(f"- Cloud: {cloud.label}: {cloud.source}")
    if gpu.unverified_fields:
        lines.append(f"- Unverified: {', '.join(gpu.unverified_fields)}.")
    dates = _gpu_dates(gpu)
    lines.append("- Dates the sources state: " + (", ".join(dates) if dates else "none") + ".")
    lines.append(f"- Sources, {_gpu_read(gpu)}:")
    lines.extend(f"  - {source}" for source in gpu.sources)
    if gpu.memory_reported_source:
        lines.append(f"  - reported memory: {gpu.memory_reported_source}")
    if gpu.engine_visible_source:
        lines.append(f"  - engine-visible memory: {gpu.engine_visible_source}")
    if gpu.notes:
        lines.append("- Notes:")
        lines.extend(f"  - {note}" for note in gpu.notes)
    lines.append("")
    return lines


def render() -> str:
    """The whole page, from the catalog files."""
    models, gpus = load_models(), load_gpus()
    lines = [
        "# Catalog",
        "",
        "<!-- Generated by `python -m model_catalog.docs` (make docs) from model_catalog/; do not edit. -->",
        "",
        f"{len(models)} models and {len(gpus)} GPUs. Every figure names its source; *read* is the day the figure was "
        "read (for a Hub total, the day its source says it was taken from the Hub API). Parameter counts are "
        "computed from the architecture and checked against the reference figure (exact published counts within "
        "0.1 %, rounded card figures such as 35B within 2.5 %) by `tests/catalog/test_models.py`.",
        "",
        "## Models",
        "",
        "| model | parameters | reference | read | KV bytes/token (BF16) |",
        "|---|---|---|---|---|",
    ]
    for model_id in sorted(models, key=str.lower):
        entry = models[model_id]
        lines.append(
            f"| [{model_id}](#{_anchor(model_id)}) | {_billions(parameter_breakdown(entry.spec).total)} | "
            f"{_cell(_reference(entry))} | {entry.reference.read_on.isoformat()} | "
            f"{kv_bytes_per_token(entry.spec, 'bf16'):,} |"
        )
    lines += [
        "",
        "## GPUs",
        "",
        "| GPU | memory | bandwidth | BF16 dense TFLOPS | price | sold as | read |",
        "|---|---|---|---|---|---|---|",
    ]
    for gpu_id in sorted(gpus):
        gpu = gpus[gpu_id]
        price = f"${gpu.price.usd:,.0f} ({gpu.price.date})" if gpu.price else "unknown"
        bandwidth = f"{gpu.bandwidth_bytes_per_s / 1e9:,.0f} GB/s" if gpu.bandwidth_bytes_per_s else "unknown"
        tflops = f"{gpu.bf16_dense_tflops:g}" if gpu.bf16_dense_tflops else "unknown"
        unit = f"{gpu.purchase.kind} of {gpu.purchase.gpus_per_unit}" + (
            f"; not sold new since {gpu.discontinued.since}" if gpu.discontinued else ""
        )
        read = gpu.read_on.isoformat() if gpu.read_on else "not recorded"
        lines.append(
            f"| [{gpu_id}](#{_anchor(gpu_id)}) | {gpu.memory_marketed_gb:g} GB | {bandwidth} | {tflops} | {price} "
            f"| {unit} | {read} |"
        )
    lines += ["", "## Model entries", ""]
    for model_id in sorted(models, key=str.lower):
        lines += _model_section(models[model_id])
    lines += ["## GPU entries", ""]
    for gpu_id in sorted(gpus):
        lines += _gpu_section(gpus[gpu_id])
    lines += _hosts_section()
    lines += _not_catalogued(gpus)
    return "\n".join(lines).rstrip() + "\n"


def _hosts_section() -> list[str]:
    """What holds the GPUs (``model_catalog/hosts/``) and the running-cost assumptions, with their sources."""
    lines = [
        "## Hosts and running costs",
        "",
        "What a buyer orders around the GPUs (prices without the GPUs; a Mac, a DGX Spark or a Strix Halo desktop is "
        "its own machine). Unverified figures rest on an assumption stated in the entry. Every host's own power is "
        "at its maximum, as the GPUs' TDP is: a baseboard server's is a DGX system's rated maximum minus its GPUs' "
        "TDP, by GPU generation and board size; a PCIe host's is its parts at full load, plus a share of the cards' "
        "TDP where its fans cool them.",
        "",
        "| host | takes | GPUs | passive cards | price (no GPUs) | own power at its maximum | rack | unverified |",
        "|---|---|---|---|---|---|---|---|",
    ]
    hosts = load_hosts()
    for host in sorted(hosts.values(), key=lambda h: (h.kind, h.gpu_slots, h.price.usd)):
        power = _power_cell(host)
        rack = f"{host.rack_units}U" if host.rack_units else "not rack-mounted"
        lines.append(
            f"| {host.id} | {', '.join(host.takes)} | {host.gpu_slots} | {'yes' if host.cools_passive_cards else 'no'} "
            f"| ${host.price.usd:,.0f} ({host.price.date}{', assumed' if 'price' in host.unverified_fields else ''}) "
            f"| {power} | {rack} | {', '.join(_unverified(host)) or '-'} |"
        )
    lines.append("")
    for host in sorted(hosts.values(), key=lambda h: h.id):
        lines.append(
            f"- **{host.id}**: {_cell(host.description)}. Price: {_cell(host.price.kind)}; {host.price.source}"
        )
        lines.extend(f"  - {_cell(s)}" for s in host.sources)
        lines += _power_lines(host)
        if host.cools_passive_cards:
            lines.append(f"  - Cools passive cards: {_cell(host.cooling_source)}")
        lines.extend(f"  - {_cell(n)}" for n in host.notes)
    costs = running_costs()
    lines += ["", "Running-cost defaults (editable on the advisor page and the CLI):", ""]
    for name, figure in (
        ("electricity (USD/kWh)", costs.usd_per_kwh),
        ("PUE, data centre", costs.pue_datacenter),
        ("PUE, office", costs.pue_office),
        ("life (years)", costs.life_years),
    ):
        lines.append(f"- {name}: {figure.value:g} ({figure.date}): {_cell(figure.source)}")
    lines.append("")
    return lines


def _power_cell(host: HostSpec) -> str:
    """The host's own power in the hosts' table: its figure, each board's, the fans' share of the cards."""
    if host.power_watts is None:
        return "not sourced"
    boards = ", ".join(
        f"{'/'.join(b.architectures)} {b.gpus}-GPU {b.watts:,} W{' (assumed)' if b.assumed else ''}"
        for b in host.board_power
    )
    fans = f" + {host.fan_share:.0%} of the cards' TDP" if host.fan_share else ""
    return (boards or f"{host.power_watts:,} W") + fans


def _unverified(host: HostSpec) -> list[str]:
    """The host's figures that rest on an assumption: its unverified fields and each board whose power is derived
    or borrowed (:attr:`planner.core.host.BoardPower.assumed`), as the options that use them say."""
    boards = [f"{'/'.join(b.architectures)} {b.gpus}-GPU board power" for b in host.board_power if b.assumed]
    return [*host.unverified_fields, *boards]


def _power_lines(host: HostSpec) -> list[str]:
    """The sources and arithmetic of the host's own power, each board's and the fans' share."""
    if host.power_watts is None:
        return []
    derived = f" ({host.power_derivation})" if host.power_derivation else ""
    lines = [f"  - Own power, {host.power_watts:,} W{derived}: {_cell(host.power_source)}"]
    for b in host.board_power:
        assumed = ", assumed" if b.assumed else ""
        arithmetic = f" ({b.derivation}{assumed})" if b.derivation else ""
        board = f"{'/'.join(b.architectures)} {b.gpus}-GPU board"
        lines.append(f"  - {board}, {b.watts:,} W{arithmetic}: {_cell(b.source)}")
    if host.fan_share:
        lines.append(f"  - Fans: {host.fan_share:.0%} of the cards' TDP: {_cell(host.fan_source)}")
    return lines


def _not_catalogued(gpus: dict[str, GpuSpec]) -> list[str]:
    """The models and machines of issue 16 left out (``not-catalogued.toml``), each with the reason."""
    lines = ["## Not catalogued", ""]
    data = tomllib.loads(NOT_CATALOGUED.read_text(encoding="utf-8"))
    left_out = data.get("model", [])
    if left_out:
        lines += ["Models left out, and why:", ""]
        lines.extend(f"- **{item['name']}**: {item['reason']}" for item in left_out)
        lines.append("")
    machines = [item for item in data.get("gpu", []) if item.get("id") not in gpus]
    if machines:
        lines += ["Machines without an entry of their own, and why:", ""]
        lines.extend(f"- **{item['name']}**: {item['reason']}" for item in machines)
        lines.append("")
    return lines


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.lower()).replace(" ", "-")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m model_catalog.docs", description="Write the catalog's page.")
    parser.add_argument(
        "path", nargs="?", type=Path, default=DOCS_PATH, metavar="PATH", help="default: docs/catalog.md"
    )
    path = parser.parse_args(sys.argv[1:] if argv is None else argv).path
    path.write_text(render(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
