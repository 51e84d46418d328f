"""``model.safetensors.index.json`` read as a stream, for its ``metadata.total_size`` alone.

An index is ``{"metadata": {"total_size": N, …}, "weight_map": {tensor: shard, …}}``: the weight map grows with
the tensor count (DeepSeek-V3's 91k tensors: ~9 MB) and nothing here reads it. transformers writes the keys sorted
(``save_pretrained``: ``json.dumps(index, indent=2, sort_keys=True)``), so ``metadata`` comes first and the read
stops after the first chunk. Another writer may put it last: then the document is scanned, not parsed (brackets
and strings, by one possessive regex per run of the weight map), holding one chunk, one unfinished string and the
metadata's own bytes, never the map, up to :data:`MAX_INDEX_BYTES`. Parsing the whole document (``json.loads``)
took ~5x its size in memory: a hostile 49 MB index cost 240 MB per import (issue 25).
"""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import Any

from planner.bounds.errors import PlannerError
from planner.bounds.safe_json import load_json
from planner.sources.hub.errors import HubResponseError
from planner.sources.hub.replies import INDEX_FILE, index_total_size
from planner.sources.hub.transport import _Client

__all__ = ["MAX_INDEX_BYTES", "IndexScan", "read_index_total_size"]

# The most of an index scanned for its metadata. The largest real indexes hold ~200k tensors (a trillion-parameter
# MoE stored as INT4 with packed weight, scale and shape per expert projection: 61 layers x 384 experts x 3 x 3) at
# ~100 bytes a line: ~20 MB, and they put the metadata first (sorted keys), so they are not scanned to the end.
MAX_INDEX_BYTES = 32_000_000
MAX_TOKEN_BYTES = 65_536  # one string (a tensor name, a shard name: under 200 bytes in real indexes)
MAX_METADATA_BYTES = 65_536  # the metadata object (real ones: total_size, sometimes total_parameters)
_WHAT = INDEX_FILE

# Everything up to the next bracket outside a string, strings whole; stops before an unfinished string.
_RUN = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+', re.DOTALL)
# A token of the top level between brackets: a string, ':' or ',', or a bare word (a number, true, null).
_TOKEN = re.compile(rb'\s*+(?:("(?:[^"\\]++|\\.)*+")|([:,])|([^\s:,"]++))', re.DOTALL)
_METADATA = b'"metadata"'


def _refuse(problem: str) -> HubResponseError:
    return HubResponseError(f"{_WHAT}: {problem}; not a safetensors index")


class IndexScan:
    """Fed the index in chunks; :attr:`done` once the metadata is read (or the document ended without one), and
    :attr:`metadata` is then the metadata's value (``None`` when there is none)."""

    def __init__(self) -> None:
        self.depth = 0
        self.done = False
        self.metadata: Any = None
        self._pending = b""  # the unfinished string at the end of the last chunk
        self._top = bytearray()  # the top level's text since the last bracket (keys and plain values)
        self._capture: bytearray | None = None  # the metadata object or array being read

    def feed(self, chunk: bytes) -> None:
        data, pos = self._pending + chunk, 0
        while not self.done and pos < len(data):
            if self.depth == 0:
                pos = self._open(data, pos)
                continue
            run = _RUN.match(data, pos)  # always a match (possibly empty)
            end = run.end() if run else pos
            self._keep(data[pos:end])
            if end == len(data):
                pos = end
                break
            if data[end] == ord('"'):  # a string the next chunk finishes
                if len(data) - end > MAX_TOKEN_BYTES:
                    raise _refuse(f"a string longer than {MAX_TOKEN_BYTES:,} bytes")
                pos = end
                break
            self._bracket(data[end])
            pos = end + 1
        self._pending = b"" if self.done else data[pos:]

    def finish(self) -> None:
        """The body ended: the document must have too."""
        if not self.done:
            raise _refuse("it ends before its JSON does (truncated)")

    # -- steps
    def _open(self, data: bytes, pos: int) -> int:
        """Before the top-level object: whitespace (and a byte-order mark), then ``{``."""
        rest = data[pos:].lstrip(b" \t\r\n\xef\xbb\xbf")
        if not rest:
            return len(data)
        if rest[0] != ord("{"):
            raise HubResponseError(f"{_WHAT}: expected a JSON object at the top level")
        self.depth = 1
        return len(data) - len(rest) + 1

    def _keep(self, text: bytes) -> None:
        if self._capture is not None:
            self._capture += text
            if len(self._capture) > MAX_METADATA_BYTES:
                raise _refuse(f"its metadata is over {MAX_METADATA_BYTES:,} bytes")
        elif self.depth == 1:
            self._top += text
            if len(self._top) > MAX_TOKEN_BYTES:
                raise _refuse(f"its top level holds over {MAX_TOKEN_BYTES:,} bytes outside its objects")

    def _bracket(self, byte: int) -> None:
        opening = byte in b"{["
        if self.depth == 1 and self._capture is None:
            self._top_level(opening)
            if self.done:
                return
        self.depth += 1 if opening else -1
        if self._capture is not None:
            self._capture.append(byte)
            if self.depth == 1:
                self._found(bytes(self._capture))
        elif self.depth == 0:
            self.done = True  # the document ended without metadata

    def _top_level(self, opening: bool) -> None:
        """Read the top level's members before a bracket: a plain metadata value ends the scan; ``"metadata":``
        just before an opening bracket starts reading its object (or array, which the check then refuses)."""
        tokens = [m.group(0).strip() for m in _TOKEN.finditer(bytes(self._top))]
        self._top.clear()
        for index, token in enumerate(tokens):
            is_key = token == _METADATA and (index == 0 or tokens[index - 1] == b",")
            if not (is_key and tokens[index + 1 : index + 2] == [b":"]):
                continue
            if index + 2 < len(tokens):  # a plain value: a string, a number, true, false or null
                self._found(tokens[index + 2])
            elif opening:
                self._capture = bytearray()
            return

    def _found(self, raw: bytes) -> None:
        try:
            self.metadata = load_json(raw, what=f"{_WHAT} metadata", max_bytes=MAX_METADATA_BYTES)
        except PlannerError as exc:
            raise HubResponseError(str(exc)) from None
        self.done = True


def read_index_total_size(client: _Client, path: str, repo_id: str, revision: str | None) -> tuple[bool, int | None]:
    """Whether the index at ``path`` exists, and its ``metadata.total_size`` (None when it gives none)."""
    response = client.get_file(path, what=_WHAT, repo_id=repo_id, revision=revision)
    if response is None:
        return False, None
    scan = IndexScan()
    chunks: Generator[bytes] = client.stream(response, what=_WHAT, limit=MAX_INDEX_BYTES, may_stop=True)
    try:
        for chunk in chunks:
            scan.feed(chunk)
            if scan.done:
                break
    finally:
        chunks.close()  # closes the connection: the rest of the weight map is never downloaded
    scan.finish()
    return True, index_total_size({"metadata": scan.metadata})
