"""The first release of an engine that loads each model type, read from the engine's own model registry release by
release (``model_releases/<engine>.toml``, one row per ``config.json`` ``model_type`` with its source). A planned
release before a model's first is refused in the engine's terms; a model type no row names is not checked (a Hub
model of a type not read, or one the engine has no class for in any release read: no claim either way).

>>> row = ModelRelease(model_type="gpt_oss", architecture="GptOssForCausalLM", since="0.10.1", source="s")
>>> row.refusal("vLLM", "0.8.5")
'vLLM 0.8.5 does not load gpt_oss models: GptOssForCausalLM came with 0.10.1; plan 0.10.1 or later'
>>> row.refusal("vLLM", "0.10.1") is None
True
>>> bracket = row.model_copy(update={"since": "b6122", "absent_in": "b5640"})
>>> bracket.refusal("llama.cpp", "b5640")
'llama.cpp b5640 does not load gpt_oss models: GptOssForCausalLM came after b5640 (it is in b6122); plan b6122 or later'
>>> bracket.refusal("llama.cpp", "b6000") is None  # not read: not refused
True
>>> release_order("b6000") < release_order("b6123"), release_order("1.0.0") > release_order("0.21.0")
(True, True)
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, ValidationError

from planner.bounds.errors import PlannerError
from planner.core.overhead import parse_version
from planner.deploy.offload import llamacpp_build

MODEL_RELEASES = Path(__file__).with_name("model_releases")


def release_order(version: str) -> tuple[int, int, int]:
    """A release as a comparable triple: llama.cpp's build tags (``b6000``) by their number
    (:func:`planner.deploy.offload.llamacpp_build`), others by :func:`parse_version`."""
    build = llamacpp_build(version)
    return (build, 0, 0) if build else parse_version(version)


class ModelRelease(BaseModel, frozen=True, extra="forbid"):
    """A model type's first release on an engine: the architecture class its checkpoints name, the release whose
    registry first loads it, and where that was read."""

    model_type: Annotated[str, Field(min_length=1)]
    architecture: Annotated[str, Field(min_length=1)]
    since: Annotated[str, Field(min_length=1)]
    # the newest release read without it, where releases between it and ``since`` were not read (a bracket: only
    # releases up to it are refused); None: ``since`` is exact (the release before it was read)
    absent_in: str | None = None
    source: Annotated[str, Field(min_length=1)]
    note: str = ""

    def refusal(self, label: str, version: str) -> str | None:
        """Why ``label`` at ``version`` does not load this model type (``None``: it does)."""
        if self.absent_in is not None:
            if release_order(version) > release_order(self.absent_in):
                return None  # at or after since, or unread between the two: not refused
            came = f"came after {self.absent_in} (it is in {self.since})"
        elif release_order(version) >= release_order(self.since):
            return None
        else:
            came = f"came with {self.since}"
        fix = f"plan {self.since} or later"
        return f"{label} {version} does not load {self.model_type} models: {self.architecture} {came}; {fix}"


class _ReleaseFile(BaseModel, frozen=True, extra="forbid"):
    row: tuple[ModelRelease, ...]


@cache
def model_releases(name: str, folder: Path = MODEL_RELEASES) -> dict[str, ModelRelease]:
    """The rows of ``model_releases/<name>.toml`` by model type (none when the engine has no file); a bad row
    raises :class:`PlannerError` naming it."""
    path = folder / f"{name}.toml"
    if not path.exists():
        return {}
    try:
        rows = _ReleaseFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8"))).row
    except tomllib.TOMLDecodeError as exc:
        raise PlannerError(f"{path.name}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise PlannerError(f"{path.name}: {problems}") from None
    by_type = {r.model_type: r for r in rows}
    if len(by_type) != len(rows):
        raise PlannerError(f"{path.name}: a model type has two rows")
    return by_type
