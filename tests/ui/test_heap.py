"""The server leaves the heap of what it imported out of the cycle collector's work (ui.heap): a full collection
then walks only what sessions made since."""

from __future__ import annotations

import gc
import sys
import types

from ui import heap


def test_the_heap_is_frozen_once_per_set_of_imports() -> None:
    heap.freeze_new_imports()
    assert not heap.freeze_new_imports()  # nothing imported since
    frozen = gc.get_freeze_count()
    sys.modules["_headroom_test_module"] = types.ModuleType("_headroom_test_module")
    try:
        assert heap.freeze_new_imports()
        assert gc.get_freeze_count() >= frozen
    finally:
        del sys.modules["_headroom_test_module"]


def test_cycles_made_after_the_freeze_are_still_collected() -> None:
    heap.freeze_new_imports()

    class Node:
        other: object

    first, second = Node(), Node()
    first.other, second.other = second, first
    del first, second
    assert gc.collect() >= 2
