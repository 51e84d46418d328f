"""The catalog: models and GPUs as TOML data files, validated by pydantic schemas at load.

``model_catalog/models/*.toml`` hold one model each (a :class:`CatalogModel`), ``model_catalog/gpus/*.toml``
one GPU each (a :class:`planner.core.gpu.GpuSpec`). A file that does not validate raises
:class:`CatalogError` naming the file and the field, so a broken entry is fixed where it is.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from model_catalog.schema import CatalogModel, ModelAlias, ParameterReference
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.host import HostSpec, RunningCosts

__all__ = [
    "CatalogError",
    "CatalogModel",
    "ModelAlias",
    "ParameterReference",
    "alias_note",
    "get_gpu",
    "get_host",
    "get_model",
    "load_gpus",
    "load_hosts",
    "load_models",
    "model_aliases",
    "model_label",
    "resolve_model_id",
    "running_costs",
]

CATALOG_DIR = Path(__file__).parent
T = TypeVar("T", bound=BaseModel)


class CatalogError(PlannerError):
    """A catalog data file is malformed or an id is unknown; the message names the file and the field."""


def _load_dir(directory: Path, schema: type[T]) -> list[tuple[Path, T]]:
    entries = []
    for path in sorted(directory.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            entries.append((path, schema.model_validate(data)))
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{path.name}: not valid TOML: {exc}") from None
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(entry)'}: {err['msg']}" for err in exc.errors()
            )
            raise CatalogError(f"{path.name}: {problems}") from None
    return entries


def _index(entries: list[tuple[Path, T]], key: str) -> dict[str, T]:
    index: dict[str, T] = {}
    for path, entry in entries:
        entry_id = getattr(entry, key)
        if entry_id in index:
            raise CatalogError(f"{path.name}: duplicate id {entry_id!r}")
        index[entry_id] = entry
    return index


@cache
def load_models(directory: Path = CATALOG_DIR / "models") -> dict[str, CatalogModel]:
    """Every catalog model by its Hugging Face repo id, validated."""
    return _index(_load_dir(directory, CatalogModel), "id")


@cache
def load_gpus(directory: Path = CATALOG_DIR / "gpus") -> dict[str, GpuSpec]:
    """Every catalog GPU by its slug (``h100-sxm-80gb``), validated."""
    return _index(_load_dir(directory, GpuSpec), "id")


@cache
def load_hosts(directory: Path = CATALOG_DIR / "hosts") -> dict[str, HostSpec]:
    """Every catalog host (what holds the GPUs a buyer orders) by its slug, validated."""
    return _index(_load_dir(directory, HostSpec), "id")


@cache
def running_costs(path: Path = CATALOG_DIR / "running_costs.toml") -> RunningCosts:
    """The running-cost assumptions (electricity, PUE, life), validated."""
    try:
        return RunningCosts.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path.name}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(entry)'}: {err['msg']}" for err in exc.errors()
        )
        raise CatalogError(f"{path.name}: {problems}") from None


def _lookup(index: dict[str, T], wanted: str, what: str) -> T:
    if wanted in index:
        return index[wanted]
    lowered = {k.lower(): v for k, v in index.items()}
    if wanted.lower() in lowered:
        return lowered[wanted.lower()]
    raise CatalogError(f"{what}: unknown id {wanted!r}{_hint(index, wanted, what)}")


def _hint(index: dict[str, T], wanted: str, what: str) -> str:
    """What to try instead of an unknown id: the entries whose name holds it, else the entry the wanted name extends
    (a fine-tune is catalogued as its base: ``Llama-3.1-70B-Instruct`` names ``meta-llama/Llama-3.1-70B``), else the
    listing.

    >>> _hint({"meta-llama/Llama-3.1-70B": 1, "meta-llama/Llama-3.1-8B": 2}, "x/llama-3.1-70b-instruct", "model")
    '; did you mean meta-llama/Llama-3.1-70B (the base model: a fine-tune that keeps its config plans as it)?'
    """
    tail = wanted.lower().split("/")[-1]
    close = [k for k in index if tail in k.lower()][:5]
    if close:
        return f"; did you mean {', '.join(close)}?"
    # the name as typed, and without a leading word ("Meta-Llama-3.1-8B-Instruct", as Meta's older repos spell it)
    names = {tail, tail.split("-", 1)[-1]}
    bases = [k for k in index if any(n.startswith(k.lower().split("/")[-1] + "-") for n in names)]
    if bases:
        base = max(bases, key=len)
        return f"; did you mean {base} (the base model: a fine-tune that keeps its config plans as it)?"
    return f"; see `python -m planner {what}s`"


@cache
def model_aliases() -> dict[str, str]:
    """Every catalog alias (lower case) -> the id of the entry it is planned as (:class:`ModelAlias`). An alias that
    repeats another or names a catalog entry raises :class:`CatalogError`."""
    models = load_models()
    entries = {k.lower() for k in models}
    aliases: dict[str, str] = {}
    for entry in models.values():
        for alias in entry.aliases:
            key = alias.id.lower()
            if key in entries or key in aliases:
                raise CatalogError(f"{entry.id}: alias {alias.id!r} is already a catalog id or another alias")
            aliases[key] = entry.id
    return aliases


def resolve_model_id(model_id: str) -> str:
    """The catalog id a model id names: the entry itself or the entry an alias is planned as (case-insensitive).
    The one place ids are resolved: the CLI, ``calibrate``, the dashboard's model box and link all call it.

    >>> resolve_model_id("meta-llama/llama-3.1-70b-instruct")
    'meta-llama/Llama-3.1-70B'
    """
    target = model_aliases().get(model_id.strip().lower())
    return target if target is not None else _lookup(load_models(), model_id.strip(), "model").id


def alias_note(model_id: str) -> str | None:
    """What to tell the reader when ``model_id`` is an alias (None for a catalog id): the entry planned instead.

    >>> print(alias_note("meta-llama/Llama-3.1-70B-Instruct"))
    Llama-3.1-70B-Instruct: planned as the catalog's Llama 3.1 70B (meta-llama/Llama-3.1-70B), same shapes
    """
    wanted = model_id.strip().lower()
    target = model_aliases().get(wanted)
    if target is None:
        return None
    entry = load_models()[target]
    (alias,) = [a.id for a in entry.aliases if a.id.lower() == wanted]  # the catalog's spelling, not the input's
    return f"{alias.split('/')[-1]}: planned as the catalog's {entry.spec.name} ({entry.id}), same shapes"


def model_label(model_id: str) -> str:
    """A catalog id as the dashboard's model box offers it: with its aliases' names, so typing one finds it.

    >>> model_label("meta-llama/Llama-3.1-405B")
    'meta-llama/Llama-3.1-405B (also Llama-3.1-405B-Instruct)'
    """
    names = [a.id.split("/")[-1] for a in load_models()[model_id].aliases]
    return f"{model_id} (also {', '.join(names)})" if names else model_id


def get_model(model_id: str) -> CatalogModel:
    """The catalog model with this Hugging Face id or alias (case-insensitive; :func:`resolve_model_id`)."""
    return load_models()[resolve_model_id(model_id)]


def get_gpu(gpu_id: str) -> GpuSpec:
    """The catalog GPU with this slug (case-insensitive)."""
    return _lookup(load_gpus(), gpu_id, "gpu")


def get_host(host_id: str) -> HostSpec:
    """The catalog host with this slug (case-insensitive)."""
    return _lookup(load_hosts(), host_id, "host")
