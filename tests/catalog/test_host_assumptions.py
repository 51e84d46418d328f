"""Host figures that rest on an assumption say so everywhere a buyer reads them (an outside buyer review, "advice an
expert would sign", finding 1: "host prices assumed; 4-GPU board power assumed"): the catalog entry (its price's
kind and ``unverified_fields``), the catalog's hosts table, and every surface of an option that buys such a host:
the CLI table's notes, the dashboard table and its CSV, the HTML report and ``advise --json`` (``assumed_costs``).

What is sourced since 2026-12-06: the AMD OAM server's own power (a build guide's ~10 kW for eight MI300X in a Dell
XE9680, less the GPUs: 4,000 W, was the Hopper host's 4,600 W borrowed) and its 8U (Supermicro's AS-8125GS-TNMR2);
what stays assumed: the 8-slot PCIe server's, the OAM server's and the HGX Blackwell server's prices (the Hopper
HGX host's bill of materials), the OAM server's power (not a rated maximum), the 4-GPU and Volta board powers."""

from __future__ import annotations

import json

import pytest

from model_catalog import get_model, load_hosts
from model_catalog.docs import _hosts_section
from planner.advisor import Workload, rank
from planner.cli import main
from ui.advisor_report import advisor_report_html
from ui.advisor_rows import ranking_rows
from ui.report import csv_text
from ui.state import Selection

ASSUMED_PRICE = {"pcie-server-8-gpu", "oam-8-gpu-amd", "hgx-8-gpu-blackwell"}
NOTE = "cost rests on figures assumed or known only as a lower bound: host price, host power"


def test_an_assumed_price_is_marked_unverified_and_named_in_the_table() -> None:
    hosts = load_hosts()
    assumed = {h.id for h in hosts.values() if h.price.kind.startswith("assumed")}
    assert assumed == ASSUMED_PRICE
    assert all("price" in hosts[h].unverified_fields for h in assumed)
    oam = hosts["oam-8-gpu-amd"]
    assert (
        oam.power_watts == 4000 and "power_watts" in oam.unverified_fields and "rack_units" not in oam.unverified_fields
    )
    table = {line.split(" | ")[0].lstrip("| "): line for line in _hosts_section() if line.startswith("| ")}
    for host in ASSUMED_PRICE:
        assert "(2023-05, assumed)" in table[host], table[host]
    hopper = table["hgx-8-gpu-hopper"]
    assert "Hopper 4-GPU 2,650 W (assumed)" in hopper and "Hopper 8-GPU 4,600 W |" not in hopper
    assert "Hopper 4-GPU board power" in hopper.split(" | ")[-1]


def test_an_mi300x_purchase_names_its_assumed_host_on_every_surface(capsys: pytest.CaptureFixture[str]) -> None:
    model = "meta-llama/Llama-3.1-70B"
    ranking = rank(get_model(model).spec, Workload.fixed_length(8192, concurrent_conversations=50, gpu_ids=("mi300x",)))
    best = ranking.options[0]
    assert best.gpu_id == "mi300x" and set(best.assumed_costs) >= {"host price", "host power"}
    assert any(w.startswith(NOTE) for w in best.warnings)
    rows = ranking_rows(ranking, Selection(model_id=model), None, limit=3)
    assert NOTE in str(rows[0]["notes"]) and NOTE in csv_text(rows)
    assert NOTE in advisor_report_html(ranking, model, "https://example.test/advisor", {})
    argv = ["advise", "--model", model, "--users", "50", "--context", "8192", "--gpu", "mi300x"]
    assert main([*argv, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["options"][0]
    assert "host price" in listed["assumed_costs"] and any(w.startswith(NOTE) for w in listed["warnings"])
    assert main([*argv, "--limit", "1"]) == 0
    notes = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("#1 notes: "))
    assert NOTE in notes
