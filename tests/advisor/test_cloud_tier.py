"""The cloud tier a rental is priced in, one setting on every surface (an outside buyer review, "advice an expert
would sign", finding 3): the planner's :class:`Workload` (``cloud_tier``, on-demand by default), ``advise
--cloud-tier`` on the command line and the advisor page's declared setting (``ui.settings.CLOUD_TIER``, carried in
its links) rank the same rentals at the same prices. Before, the CLI and the page could only price on-demand
offers, though the catalog dates community and reserved ones too (``CloudPrice.tier``)."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.cli import main
from planner.core.sale import CloudTier
from ui import settings

MODEL = "meta-llama/Llama-3.1-8B"
GPU = "h100-sxm-80gb"  # Lambda on-demand $2.99/GPU-hour; RunPod community $1.99 (model_catalog/gpus)


def _workload(**fields: object) -> Workload:
    return Workload.fixed_length(8192, concurrent_conversations=4, pricing="cloud", gpu_ids=(GPU,), **fields)


def test_the_workload_prices_rentals_in_its_tier() -> None:
    spec = get_model(MODEL).spec
    on_demand = rank(spec, _workload()).options[0]
    community = rank(spec, _workload(cloud_tier="community")).options[0]
    assert _workload().cloud_tier == "on-demand"
    assert on_demand.usd_per_hour == pytest.approx(2.99) and "Lambda (on-demand)" in on_demand.price_basis
    assert community.usd_per_hour == pytest.approx(1.99) and "RunPod (community)" in community.price_basis
    assert "cheapest dated community cloud offer" in rank(spec, _workload(cloud_tier="community")).assumptions["prices"]


def test_the_cli_takes_the_tier_and_gives_the_planner_s_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["advise", "--model", MODEL, "--users", "4", "--context", "8192", "--gpu", GPU, "--pricing", "cloud"]
    assert main([*argv, "--cloud-tier", "community", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = rank(get_model(MODEL).spec, _workload(cloud_tier="community"))
    assert data["workload"]["cloud_tier"] == "community"
    assert [o["usd_per_hour"] for o in data["options"]] == [o.usd_per_hour for o in expected.options]
    assert main([*argv, "--json"]) == 0  # on-demand by default, as the page
    assert json.loads(capsys.readouterr().out)["options"][0]["usd_per_hour"] == pytest.approx(2.99)


def test_the_cli_names_a_bad_tier(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["advise", "--model", MODEL, "--pricing", "cloud", "--cloud-tier", "cheap"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --cloud-tier: invalid choice: 'cheap'" in err and "'community'" in err


def test_the_page_declares_the_tier_once_and_carries_it_in_links() -> None:
    tier = settings.BY_URL["cloud_tier"]
    assert tier is settings.CLOUD_TIER and tier in settings.page_settings("advisor")
    assert [tier.parse_values([t]) for t in get_args(CloudTier)] == list(get_args(CloudTier))
    with pytest.raises(ValueError):
        tier.parse_values(["cheap"])
    assert settings.params_of([tier], {"cloud_tier": "reserved"}) == {"cloud_tier": "reserved"}
