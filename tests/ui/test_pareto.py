"""The advisor's Pareto chart: every priced option one row with its ranking index, the front and the
recommendation the ranking's own (one answer); the spec's layers, axis and click selection."""

from __future__ import annotations

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
        assert points["encoding"]["shape"]["condition"][0]["value"] == "diamond"
