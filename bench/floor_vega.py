"""The floor of a cold link for a Vega-Lite page: the smallest Streamlit page that draws one Vega-Lite chart.

The Memory page draws its chart in Vega-Lite (:mod:`ui.memory_chart`), so its cold link is compared with this page
(the same chart library, served the same way); :mod:`bench.floor_page` (one Plotly chart) is timed beside it.
"""

import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
encoding = {"x": {"field": "x", "type": "nominal"}, "y": {"field": "y", "type": "quantitative"}}
spec = {"mark": "bar", "encoding": encoding}
st.vega_lite_chart([{"x": "a", "y": 3}, {"x": "b", "y": 1}, {"x": "c", "y": 2}], spec, width="stretch")
