"""The objects a short-lived process keeps to its end, out of the cyclic garbage collector's reach.

A cold ranking allocates tens of thousands of small objects (none in a reference cycle: ``gc.collect()`` after one
finds nothing), so the collector runs ~50 times during it, and once in a while a full collection walks every object
alive, the modules and the catalogs included (~58,000 after ``planner advise`` has loaded them): 37-94 ms of a
first ranking of Llama-3.1-70B or Qwen3-30B-A3B on the two-core machine of docs/benchmarks.md, none after
:func:`freeze_long_lived` (the collector's time in that ranking 51-81 → 12-28 ms).

:func:`freeze_long_lived` moves every object then tracked into the permanent generation (:func:`gc.freeze`): the
collector never examines them again, and never frees them, so it acts only in a process that does one piece of
work and exits, once its long-lived objects (modules, catalogs, the model) are loaded: ``python -m planner`` says
so (:func:`short_lived`) before its command runs. Elsewhere it does nothing: the tests call the CLI in their own
process, and the dashboard's long-running server freezes its heap itself after each run that imported modules
(``ui/heap.py``).
"""

from __future__ import annotations

import gc

_SHORT_LIVED = [False]


def short_lived() -> None:
    """Mark this process as one that does one command and exits (``python -m planner``)."""
    _SHORT_LIVED[0] = True


def freeze_long_lived() -> bool:
    """In a :func:`short_lived` process, every object now tracked by the collector into its permanent generation
    (the module docstring); whether it did."""
    if not _SHORT_LIVED[0]:
        return False
    gc.freeze()
    return True
