"""A frozen model made from values the planner has already validated, without validating them again: the advisor
makes ~700 options a ranking (:func:`planner.advisor.build.build_option`) from fields each read off validated models
or computed from them, and pydantic's ``model_validate`` checked all ~70 of each again (16 us an option, ~10 ms of a
re-ranking at a new user count; ``model_construct``, pure Python, takes 30 us).

:func:`assembled` sets what ``model_validate`` would (pydantic 2.14 ``BaseModel.model_construct``, which does the
same without validation): the instance's ``__dict__`` in the fields' declared order, the fields set (every field:
all must be given) and no extra or private values. It refuses a class whose construction does more (a post-init
hook, private attributes, extra values allowed), and a mapping that lacks a field or has one the class does not
declare. The values' types are the caller's to keep: the tests compare every option of several rankings with its
validated copy, field by field, type and serialization included (tests/advisor/test_trusted_options.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)
_TEMPLATES: dict[type[BaseModel], dict[str, Any]] = {}  # one per class: its fields in order, each None


def _template(cls: type[BaseModel]) -> dict[str, Any]:
    """The class's fields in their declared order (each None), checked and made once a class."""
    found = _TEMPLATES.get(cls)
    if found is None:
        if cls.__pydantic_post_init__ or cls.__private_attributes__ or cls.model_config.get("extra") == "allow":
            raise TypeError(f"{cls.__name__}: its construction does more than set its fields; validate it")
        found = _TEMPLATES[cls] = dict.fromkeys(cls.__pydantic_fields__)
    return found


def assembled(cls: type[M], fields: Mapping[str, Any]) -> M:
    """An instance of ``cls`` holding ``fields`` (every field, each already of its declared type), unvalidated.

    >>> from pydantic import BaseModel
    >>> class Point(BaseModel, frozen=True):
    ...     x: int
    ...     y: int
    >>> p = assembled(Point, {"y": 2, "x": 1})
    >>> p, p == Point(x=1, y=2), p.model_dump_json()
    (Point(x=1, y=2), True, '{"x":1,"y":2}')
    >>> assembled(Point, {"x": 1})
    Traceback (most recent call last):
    ...
    ValueError: Point: fields missing ['y'], unknown []
    """
    template = _template(cls)
    values = template.copy()
    values.update(fields)  # in the declared order: an update keeps the keys' places
    if len(values) != len(template) or len(fields) != len(template):  # an unknown field, or one missing
        missing, unknown = sorted(template.keys() - fields.keys()), sorted(fields.keys() - template.keys())
        raise ValueError(f"{cls.__name__}: fields missing {missing}, unknown {unknown}")
    made = cls.__new__(cls)
    object.__setattr__(made, "__dict__", values)
    object.__setattr__(made, "__pydantic_fields_set__", set(template))
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", None)
    return made
