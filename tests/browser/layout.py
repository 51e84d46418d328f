"""What a chart draws, as boxes on the screen: two of them overlapping is a chart people cannot read (Plotly's charts
and Vega-Lite's)."""

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


# The same parts of a Vega-Lite chart (drawn as SVG; its axes are told apart by their accessible name, "X-axis ...").
# Streamlit's toolbar over a Vega-Lite chart shows only on hover, over the chart's top right corner, outside the SVG.
VEGA_PARTS = """(chart) => {
  const out = [];
  const add = (kind, e, i) => {
    const r = e.getBoundingClientRect();
    const name = `${kind} ${i} "${(e.textContent || '').slice(0, 30)}"`;
    if (r.width > 0 && r.height > 0) out.push({kind, name, x: r.x, y: r.y, w: r.width, h: r.height});
  };
  const axis = (e) => ((e.closest('.role-axis') || {}).getAttribute?.('aria-label') || '').startsWith('X') ? 'x' : 'y';
  chart.querySelectorAll('.role-title-text text, text.role-title-text').forEach((e, i) => add('title', e, i));
  chart.querySelectorAll('.role-legend').forEach((e, i) => add('legend', e, i));
  chart.querySelectorAll('.role-axis-title text').forEach((e, i) => add(axis(e) + 'title', e, i));
  chart.querySelectorAll('.role-axis-label text').forEach((e, i) => add(axis(e) + 'tick', e, i));
  // text marks (the what-if's line labels; not their white halos, drawn under them with a stroke)
  chart.querySelectorAll('.role-mark text:not([stroke])').forEach((e, i) => add('annotation', e, i));
  return out;
}"""
CHARTS = {"plotly": ("[data-testid='stPlotlyChart']", PARTS), "vega": ("[data-testid='stVegaLiteChart']", VEGA_PARTS)}


def chart_parts(page: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every chart of the page (Plotly's, then Vega-Lite's) as its kind and the boxes of its parts."""
    return [
        (kind, page.evaluate(parts, chart))
        for kind, (selector, parts) in CHARTS.items()
        for chart in page.locator(selector).element_handles()
    ]


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
    """Every overlap in every chart of the page (Plotly's and Vega-Lite's)."""
    found = []
    for index, (kind, boxes) in enumerate(chart_parts(page)):
        found += [f"chart {index} ({kind}): {o}" for o in overlaps(boxes)]
    return found
