"""The advisor's Pareto chart: every priced option one row with its ranking index, the front and the
recommendation the ranking's own (one answer); the spec's layers, axis and click selection."""

from __future__ import annotations

import itertools

from model_catalog import get_model
from planner.advisor import ContextDistribution, Workload, rank
from ui.pareto import FRONT, PICK, RECOMMENDED, pareto_chart

LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec


def test_rows_are_the_rankings_options() -> None:
    dist = ContextDistribution(mean_tokens=8192, p95_tokens=8192, max_tokens=8192)
    ranking = rank(LLAMA_8B, Workload(concurrent_conversations=20, context=dist))
    for against, front in (("capacity", ranking.pareto_cost_capacity), ("throughput", ranking.pareto_cost_throughput)):
        rows, spec = pareto_chart(ranking.options, front, against, "cost", chosen=ranking.options[0])
        priced = [i for i, o in enumerate(ranking.options) if o.cost is not None]
        assert sorted(r["i"] for r in rows) == priced
        for r in rows:
            o = ranking.options[r["i"]]
            assert r["cost"] == o.cost and r["label"] == o.label
            assert r["value"] == (o.concurrency if against == "capacity" else (o.decode_tokens_per_s_total or 0.0))
        assert {r["i"] for r in rows if r["front"]} == {ranking.options.index(o) for o in front if o.cost is not None}
        assert rows[-1]["i"] == 0 and rows[-1]["series"] == RECOMMENDED  # drawn last, on top
        assert [r["i"] for r in rows if r["series"] == RECOMMENDED] == [0]
        assert all(r["series"] == FRONT for r in rows if r["front"] and r["i"] != 0)
        line, points = spec["layer"]
        assert points["params"][0]["name"] == PICK and points["params"][0]["select"]["fields"] == ["i"]
        assert line["mark"]["interactive"] is False and line["transform"] == [{"filter": "datum.front"}]
        shape = points["encoding"]["shape"]  # one legend: the shape, size and opacity read the colour's field
        assert shape["field"] == points["encoding"]["color"]["field"] == "series"
        assert dict(zip(shape["scale"]["domain"], shape["scale"]["range"], strict=True))[RECOMMENDED] == "diamond"


def test_cost_axis_is_labelled_inside_the_costs_range() -> None:
    """A log axis labelled only at powers of ten showed one label ("$100k") for set-ups from $92k to $500k. The
    ticks are 1, 1.5, 2, 3, 5 and 7 a decade, fixed in the spec (a spec that changed with the data would be drawn
    anew on every slider move), so this span of 3.8x gets three labels."""
    dist = ContextDistribution(mean_tokens=32768, p95_tokens=32768, max_tokens=32768)
    ranking = rank(get_model("meta-llama/Llama-3.1-70B").spec, Workload(concurrent_conversations=40, context=dist))
    rows, spec = pareto_chart(ranking.options, ranking.pareto_cost_capacity, "capacity", "cost")
    x = spec["layer"][1]["encoding"]["x"]
    assert x["scale"]["nice"] is False  # a log scale niced to whole decades drew $74k-$470k on $10k-$1M
    ticks = x["axis"]["values"]
    assert ticks[:7] == [1, 1.5, 2, 3, 5, 7, 10]
    assert all(b / a <= 5 / 3 for a, b in itertools.pairwise(ticks))
    costs = [r["cost"] for r in rows]
    assert len([t for t in ticks if min(costs) <= t <= max(costs)]) >= 3, (min(costs), max(costs))
    _, again = pareto_chart(ranking.options[:5], ranking.pareto_cost_capacity[:1], "capacity", "cost")
    assert again == spec  # the spec reads no option: only the rows change
