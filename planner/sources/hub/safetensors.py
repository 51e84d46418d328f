"""The header of a safetensors file: every tensor's dtype, shape and byte offsets, read without the weights.

The format (huggingface/safetensors, "Format"): 8 bytes little-endian ``N``, then ``N`` bytes of JSON
``{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {…}}``, then the tensor data,
``data_offsets`` counted from the end of the header. A single-file checkpoint's header is read by HTTP
Range, checked against the file size, and summarised into element counts and bytes by dtype.
"""

from __future__ import annotations

import re
import struct
from typing import Any
from urllib.parse import quote

import requests
from pydantic import BaseModel

from planner.sources.hub.checks import MAX_COUNT, quoted
from planner.sources.hub.errors import HubResponseError
from planner.sources.hub.transport import _Client, ascii_int, parse_json, raise_for_status

__all__ = ["DTYPE_BYTES", "SafetensorsSummary", "parse_safetensors_header", "read_safetensors_header"]

# The largest header read. Headers take ~110-130 bytes per tensor (recorded: Qwen3-0.6B, 311 tensors in 36 kB;
# a 7B GPTQ file, 963 tensors in 108 kB), and a single-file checkpoint is small: transformers splits files at
# its 5 GB max_shard_size, and even a fine-grained 4-bit MoE in one file (~17k tensors) stays near 2 MB. 8 MB
# (~65k tensors) leaves a 4x margin and parses in under a second and ~50 MB. The format's own reader allows
# 100 MB, which costs ~10 s and over 1 GB per import: a hostile file is refused here before it is downloaded.
MAX_HEADER_BYTES = 8_000_000
MAX_DIMENSIONS = 8  # a tensor's rank (real checkpoints: 1 to 5)
HEADER_PREFETCH = 65_536  # first Range request: the length prefix and, usually, the whole header

# Bytes per element of each safetensors dtype (safetensors Dtype enum); F4/F6 pack below one byte.
DTYPE_BYTES: dict[str, float] = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "E8M0": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
    "F4": 0.5,
    "F6_E2M3": 0.75,
    "F6_E3M2": 0.75,
}
# Top-level prefixes (after an optional "model.") of a vision tower and its projector in multimodal checkpoints.
VISION_PREFIXES = (
    "vision_tower.",
    "vision_model.",
    "visual.",
    "vision_encoder.",
    "vision.",
    "multi_modal_projector.",
    "mm_projector.",
    "vision_embed_tokens.",
    "embed_vision.",
    "image_newline",
    "vision_projection.",
    "connector.",
    "mlp1.",
)
_LM_HEAD_NAMES = ("lm_head.weight", "language_model.lm_head.weight")


class SafetensorsSummary(BaseModel, frozen=True, extra="forbid"):
    """What a safetensors header says: element counts and bytes by dtype, and the vision tower's share."""

    parameters_by_dtype: dict[str, int]
    bytes_by_dtype: dict[str, int]
    tensor_count: int
    data_bytes: int  # the end of the last tensor's data
    vision_parameters: int = 0
    lm_head_parameters: int = 0  # lm_head.weight, when stored (a tied model may store a copy)

    @property
    def parameters(self) -> int:
        return sum(self.parameters_by_dtype.values())

    @property
    def stored_bytes(self) -> int:
        return sum(self.bytes_by_dtype.values())


def _is_vision_tensor(name: str) -> bool:
    bare = name.removeprefix("model.")
    return bare.startswith(VISION_PREFIXES)


def _ints(value: Any, count: int | None, limit: int) -> list[int] | None:
    """``value`` as a list of ints in ``[0, MAX_COUNT]`` (``count`` of them, or up to ``limit``), else None."""
    if not isinstance(value, list) or len(value) > limit or (count is not None and len(value) != count):
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_COUNT for v in value):
        return None
    return value


def _tensor(name: str, entry: Any, what: str) -> tuple[str, int, int, int]:
    """One header entry as ``(dtype, elements, bytes, data end)``, checked for shape and size consistency."""
    if not isinstance(entry, dict):
        raise HubResponseError(f"{what}: tensor {quoted(name)} is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    dims, span = _ints(shape, None, MAX_DIMENSIONS), _ints(offsets, 2, 2)
    if not isinstance(dtype, str) or not 0 < len(dtype) <= 16 or not dtype.isprintable() or dims is None:
        raise HubResponseError(f"{what}: tensor {quoted(name)} has a malformed dtype, shape or data_offsets")
    numel = 1
    for dim in dims:
        numel *= dim
        if numel > MAX_COUNT:
            raise HubResponseError(
                f"{what}: tensor {quoted(name)}: shape {dims} has more than {MAX_COUNT:,} elements, more than any "
                "real checkpoint holds"
            )
    if span is None or span[0] > span[1]:
        raise HubResponseError(f"{what}: tensor {quoted(name)} has a malformed dtype, shape or data_offsets")
    size = span[1] - span[0]
    per = DTYPE_BYTES.get(dtype)
    if per is not None and size != int(numel * per + 0.999):
        raise HubResponseError(
            f"{what}: tensor {quoted(name)} claims {size:,} bytes for {numel:,} {dtype} values; the header is "
            "inconsistent"
        )
    return dtype, numel, size, span[1]


def parse_safetensors_header(header: Any, what: str = "safetensors header") -> SafetensorsSummary:
    """Summarise a parsed safetensors header (``{name: {dtype, shape, data_offsets}}``, plus ``__metadata__``)."""
    if not isinstance(header, dict):
        raise HubResponseError(f"{what}: expected a JSON object")
    params: dict[str, int] = {}
    nbytes: dict[str, int] = {}
    vision = lm_head = end_max = count = 0
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype, numel, size, end = _tensor(name, entry, what)
        params[dtype] = params.get(dtype, 0) + numel
        nbytes[dtype] = nbytes.get(dtype, 0) + size
        end_max = max(end_max, end)
        count += 1
        if _is_vision_tensor(name):
            vision += numel
        if name.removeprefix("model.") in _LM_HEAD_NAMES or name == "lm_head.weight":
            lm_head += numel
    if sum(params.values()) > MAX_COUNT:
        raise HubResponseError(
            f"{what}: the tensors hold more than {MAX_COUNT:,} values, more than any real checkpoint"
        )
    return SafetensorsSummary(
        parameters_by_dtype=params,
        bytes_by_dtype=nbytes,
        tensor_count=count,
        data_bytes=end_max,
        vision_parameters=vision,
        lm_head_parameters=lm_head,
    )


def _content_range_total(response: requests.Response) -> int | None:
    value = response.headers.get("Content-Range", "")
    match = re.fullmatch(r"bytes\s+[0-9]+-[0-9]+/([0-9]{1,20})", value.strip())
    if match:
        return int(match.group(1))
    return ascii_int(response.headers.get("Content-Length")) if response.status_code == 200 else None


def _header_length(first: bytes, filename: str, file_size: int | None) -> int:
    """The header length ``N`` from the 8-byte prefix, checked against the cap and the file size."""
    if len(first) < 8:
        raise HubResponseError(f"{filename} is {len(first)} bytes: too short to be a safetensors file")
    (length,) = struct.unpack("<Q", first[:8])
    if length > MAX_HEADER_BYTES:
        raise HubResponseError(
            f"{filename} claims a {length:,}-byte header, over the {MAX_HEADER_BYTES:,}-byte limit: not a "
            "valid safetensors file"
        )
    if file_size is not None and 8 + length > file_size:
        raise HubResponseError(
            f"{filename} claims a {length:,}-byte header but the file is only {file_size:,} bytes: the header "
            "length is wrong (corrupt or not a safetensors file)"
        )
    return int(length)


def _header_rest(client: _Client, path: str, what: str, length: int, repo_id: str, requested: str | None) -> bytes:
    """The header bytes past the prefetch, by a second Range request (a server may ignore Range: then 200)."""
    response = client.get(
        path,
        what=what,
        file_download=True,
        extra={"Range": f"bytes=8-{8 + length - 1}", "Accept-Encoding": "identity"},
    )
    raise_for_status(response, client=client, repo_id=repo_id, revision=requested, what=what)
    if response.status_code == 200:  # Range ignored: the body starts at byte 0
        return client.read(response, what=what, limit=8 + length, exact=8 + length)[8:]
    return client.read(response, what=what, limit=length, exact=length)


def read_safetensors_header(
    client: _Client, repo_id: str, revision: str, filename: str, requested: str | None
) -> SafetensorsSummary | None:
    """The header of a single-file checkpoint by HTTP Range; None when the file does not exist."""
    path = f"/{repo_id}/resolve/{quote(revision, safe='')}/{quote(filename)}"
    what = f"{filename} header"
    response = client.get(
        path,
        what=what,
        file_download=True,
        extra={"Range": f"bytes=0-{HEADER_PREFETCH - 1}", "Accept-Encoding": "identity"},
    )
    if response.status_code == 404:
        response.close()
        return None
    if response.status_code == 416:
        response.close()
        raise HubResponseError(f"{filename} is empty or shorter than a safetensors header")
    raise_for_status(response, client=client, repo_id=repo_id, revision=requested, what=what)
    file_size = _content_range_total(response)
    first = client.read(response, what=what, limit=HEADER_PREFETCH, exact=HEADER_PREFETCH)
    length = _header_length(first, filename, file_size)
    raw = (
        first[8 : 8 + length]
        if 8 + length <= len(first)
        else _header_rest(client, path, what, length, repo_id, requested)
    )
    if len(raw) < length:
        raise HubResponseError(
            f"{filename} claims a {length:,}-byte header but the server sent only {len(raw):,} bytes: the "
            "header length is wrong (corrupt or truncated file)"
        )
    summary = parse_safetensors_header(parse_json(raw, what, MAX_HEADER_BYTES), what)
    if file_size is not None and 8 + length + summary.data_bytes > file_size:
        raise HubResponseError(
            f"{filename}: the header lists {summary.data_bytes:,} bytes of tensor data but the file holds only "
            f"{file_size - 8 - length:,}: the header is wrong"
        )
    return summary
