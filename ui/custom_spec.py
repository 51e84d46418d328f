"""A hand-described (or uploaded) model travels in the link as one compact URL parameter (pure).

Decoding trusts nothing: the token's length is checked before anything else, the decompressed size is bounded
while decompressing (a few kB of link can inflate to gigabytes), the JSON goes through the bounded loader
(:func:`planner.bounds.safe_json.load_json`: nesting, digits, finite numbers) and the model through
:class:`~planner.core.model.ModelSpec`'s bounds (:mod:`planner.bounds.limits`) and the parameter-count check
(:func:`planner.core.params.check_parameter_count`). Every refusal is a :class:`PlannerError`.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib

from pydantic import ValidationError

from planner.bounds.errors import PlannerError, describe_validation_error
from planner.bounds.limits import MAX_JSON_DEPTH
from planner.bounds.safe_json import load_json
from planner.core.model import ModelSpec
from planner.core.params import check_parameter_count

MAX_TOKEN_CHARS = 6000
MAX_SPEC_JSON_BYTES = 200_000  # the largest catalog model's description is ~3 kB of JSON


def pack_token(raw: bytes) -> str:
    """``raw`` (a model description's JSON) as a link token: ``'m1.<base64url(zlib(raw))>'``, padding dropped.

    >>> pack_token(b"[]")
    'm1.eNqLjgUAARUAuQ'
    """
    return "m1." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def encode_spec(spec: ModelSpec) -> str:
    """``ModelSpec -> 'm1.<base64url(zlib(json))>'``: only fields that differ from their defaults."""
    data = spec.model_dump(mode="json", exclude_defaults=True)
    return pack_token(json.dumps(data, separators=(",", ":"), sort_keys=True).encode())


def _inflate(body: str) -> bytes:
    """The token's body decompressed, at most :data:`MAX_SPEC_JSON_BYTES` of it (decompression stops there)."""
    damaged = PlannerError("spec: the model description in the link is damaged")
    if not body.isascii():
        raise damaged
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_SPEC_JSON_BYTES + 1)
    except (binascii.Error, zlib.error, ValueError):
        raise damaged from None
    if len(raw) > MAX_SPEC_JSON_BYTES or inflater.unconsumed_tail:
        raise PlannerError(
            f"spec: the model description is larger than any model needs ({MAX_SPEC_JSON_BYTES:,} bytes); refused"
        )
    if not inflater.eof:
        raise damaged
    return raw


def decode_spec(token: str) -> ModelSpec:
    """Inverse of :func:`encode_spec`; anything malformed raises :class:`PlannerError` naming the problem."""
    if len(token) > MAX_TOKEN_CHARS or not token.startswith("m1."):
        raise PlannerError("spec: not a model description made by Headroom")
    raw = _inflate(token[3:])
    try:
        data = load_json(raw, what="spec", max_bytes=MAX_SPEC_JSON_BYTES, max_depth=MAX_JSON_DEPTH)
    except PlannerError as exc:
        if "not UTF-8" in str(exc) or "not valid JSON" in str(exc):
            raise PlannerError("spec: the model description in the link is damaged") from None
        raise
    if not isinstance(data, dict):
        raise PlannerError("spec: not a model description (a JSON object was expected)")
    try:
        spec = ModelSpec.model_validate(data)
    except ValidationError as exc:
        raise PlannerError(f"spec: {describe_validation_error(exc)}") from None
    try:
        check_parameter_count(spec)
    except PlannerError as exc:
        raise PlannerError(f"spec: {exc}") from None
    return spec
