"""Which page a session's first run asks for (ui.first_paint._memory_requested): the last segment of the address's
path (``st.context.url``, Streamlit 1.67 ``runtime/context.py:402-430``, the browser's URL less its query), as
Streamlit resolves it: the page whose URL path it names, else the default page, the Memory page (a name no page has is
"page not found" and the default page runs, ``commands/navigation.py:543-563``). A cold link carrying settings to the
Memory page, under any base path, collapses the sidebar; one to another page, or a client that sends no URL, does
not."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP
from ui import first_paint

LINK = {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "weights": "fp8", "kv": "fp8", "users": "20"}


@pytest.mark.parametrize(
    ("url", "state"),
    [
        ("http://localhost:8501", "collapsed"),
        ("http://localhost:8501/", "collapsed"),
        ("https://team.example/headroom/", "collapsed"),  # behind a base URL path (make serve)
        ("http://localhost:8501/memory", "collapsed"),  # no page has this path: the default page, Memory, runs
        ("http://localhost:8501/what_if", "auto"),
        ("https://team.example/headroom/advisor", "auto"),
        (None, "auto"),  # no URL sent
    ],
)
def test_the_address_names_the_page(url: str | None, state: str) -> None:
    at = AppTest.from_file(APP, default_timeout=60)  # a cold link to the Memory page: only the address differs
    for key, value in LINK.items():
        at.query_params[key] = value
    at.context = {"url": url} if url is not None else {}
    at.run()
    assert at.session_state[first_paint.SIDEBAR_KEY] == state
