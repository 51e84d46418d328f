"""The interpreter's cycle collector in a long-lived server: the heap that never goes away is left out of it.

Everything imported and loaded once per process (Streamlit, plotly's validators, pandas, the catalog, the planner's
caches) is ~135,000 objects that a full collection walks each time: 190-270 ms of the one interpreter lock on this
machine, during which no session's page runs. Streamlit's own collection after every run is off
(``.streamlit/config.toml``, ``runner.postScriptGC``); Python's own still runs a full collection now and then
under load. :func:`freeze_new_imports` moves everything alive into the collector's permanent generation
(``gc.freeze``) at the end of a run that imported modules (the first run of the process, the first visit of a
page), so later full collections walk only what sessions made since. Objects freed by reference counting are freed
as before; only a reference cycle that was already garbage at that moment is never collected (once per import).
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_modules_frozen = 0


def freeze_new_imports() -> bool:
    """Freeze the heap when modules were imported since the last freeze; whether it did."""
    global _modules_frozen
    with _lock:
        loaded = len(sys.modules)
        if loaded <= _modules_frozen:
            return False
        gc.freeze()
        _modules_frozen = loaded
        return True
