"""The floor of a cold link: the smallest Streamlit page that draws one Plotly chart.

``make bench`` serves it the same way as the dashboard (``tests.browser.server.running_app``) and times a cold
link to each, alternating, so the ratio of the two medians is Headroom's own cost of a first paint.
"""

import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 1, 2])), width="stretch")
