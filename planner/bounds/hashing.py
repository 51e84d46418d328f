"""A frozen model that hashes its fields once: the specs the planner keys its memos by (a model, a GPU, an engine
profile) are hashed again at every look-up, and pydantic's frozen hash walks every field, nested models included,
each time (a model spec: ~70 fields).

:class:`HashedOnce` keeps the hash pydantic would compute from the fields (:func:`field_values`, the same values in
the same order) in a slot of the instance, after the first time it is asked. A frozen model's fields never change,
so neither does its hash; a copy (``model_copy``, ``copy``, a pickle) starts without the slot and hashes its own
fields. Equality is pydantic's, unchanged. A field that cannot be hashed (a dict) raises ``TypeError`` each time,
as before, and nothing is kept.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

_GETTERS: dict[type[BaseModel], Callable[[dict[str, Any]], Any]] = {}  # one per model class (a few dozen)


def field_values(model: BaseModel) -> Any:
    """The values pydantic's frozen hash reads: the model's fields, in their declared order (one field: its value;
    none: 0)."""
    cls = type(model)
    getter = _GETTERS.get(cls)
    if getter is None:
        names = tuple(cls.__pydantic_fields__)
        getter = operator.itemgetter(*names) if names else (lambda _: 0)
        _GETTERS[cls] = getter
    return getter(model.__dict__)


class HashedOnce(BaseModel, frozen=True):
    """A frozen model whose hash is computed once (the module docstring)."""

    __slots__ = ("_hash_kept",)
    if TYPE_CHECKING:  # the slot, not a field nor a private attribute: pydantic does not see it
        _hash_kept: int

    def __hash__(self) -> int:
        try:
            kept: int = self._hash_kept
        except AttributeError:
            kept = hash(field_values(self))
            object.__setattr__(self, "_hash_kept", kept)
        return kept
