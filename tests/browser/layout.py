"""What a chart draws, as boxes on the screen: two of them overlapping is a chart people cannot read."""

from __future__ import annotations

from itertools import combinations
from typing import Any

# Each chart's parts people read: the title, the legend, axis titles, tick labels, annotations and Plotly's
# toolbar (in the page even while hidden, so its place is known).
PARTS = """(chart) => {
  const parts = {title: '.gtitle', legend: '.legend', xtitle: '.g-xtitle', ytitle: '.g-ytitle',
                 xtick: '.xtick text', ytick: '.ytick text', annotation: '.annotation', toolbar: '.modebar',
                 colorbar: '.colorbar'};
  const out = [];
  for (const [kind, selector] of Object.entries(parts)) {
    chart.querySelectorAll(selector).forEach((e, i) => {
      const r = e.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && (e.textContent || kind === 'toolbar' || kind === 'legend'))
        out.push({kind, name: `${kind} ${i} "${(e.textContent || '').slice(0, 30)}"`,
                  x: r.x, y: r.y, w: r.width, h: r.height});
    });
  }
  return out;
}"""


def overlaps(boxes: list[dict[str, Any]], slack: float = 1.0) -> list[str]:
    """Pairs of parts that cover each other by more than ``slack`` pixels both ways (tick labels of one axis
    are not compared with each other: Plotly spaces them)."""
    found = []
    for a, b in combinations(boxes, 2):
        if a["kind"] == b["kind"] and a["kind"] in ("xtick", "ytick", "legend", "colorbar"):
            continue
        across = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
        down = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
        if across > slack and down > slack:
            found.append(f"{a['name']} covers {b['name']}")
    return found


def chart_overlaps(page: Any) -> list[str]:
    """Every overlap in every Plotly chart of the page."""
    found = []
    for index, chart in enumerate(page.locator("[data-testid='stPlotlyChart']").element_handles()):
        found += [f"chart {index}: {o}" for o in overlaps(page.evaluate(PARTS, chart))]
    return found
