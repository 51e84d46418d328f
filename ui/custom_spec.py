"""A hand-described (or uploaded) model travels in the link as one compact URL parameter (pure)."""

from __future__ import annotations

import base64
import binascii
import json
import zlib

from pydantic import ValidationError

from planner.errors import PlannerError
from planner.hf_config import describe_validation_error
from planner.model import ModelSpec

MAX_TOKEN_CHARS = 6000


def encode_spec(spec: ModelSpec) -> str:
    """``ModelSpec -> 'm1.<base64url(zlib(json))>'``: only fields that differ from their defaults."""
    data = spec.model_dump(mode="json", exclude_defaults=True)
    packed = zlib.compress(json.dumps(data, separators=(",", ":"), sort_keys=True).encode(), 9)
    return "m1." + base64.urlsafe_b64encode(packed).decode().rstrip("=")


def decode_spec(token: str) -> ModelSpec:
    """Inverse of :func:`encode_spec`; anything malformed raises :class:`PlannerError` naming the problem."""
    if not token.startswith("m1.") or len(token) > MAX_TOKEN_CHARS:
        raise PlannerError("spec: not a model description made by Headroom")
    body = token[3:]
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)), bufsize=65536)
        data = json.loads(raw)
    except (binascii.Error, zlib.error, ValueError):
        raise PlannerError("spec: the model description in the link is damaged") from None
    if len(raw) > 200_000 or not isinstance(data, dict):
        raise PlannerError("spec: the model description in the link is damaged")
    try:
        return ModelSpec.model_validate(data)
    except ValidationError as exc:
        raise PlannerError(f"spec: {describe_validation_error(exc)}") from None
