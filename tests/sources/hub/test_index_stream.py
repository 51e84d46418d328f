"""``model.safetensors.index.json`` read as a stream for its metadata (issue 25 finding 3): a hostile index of tens
of megabytes cost ~240 MB per import when parsed whole; the scan holds a chunk, and stops at the metadata."""

from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.sources.hub import HubResponseError, fetch_model
from planner.sources.hub.index import MAX_INDEX_BYTES, IndexScan
from planner.sources.hub.replies import index_total_size
from tests.fuzz.conftest import FUZZ
from tests.sources.hub.conftest import HostileRepo, HubServer

pytestmark = pytest.mark.fuzz
SHARD = "model-00001-of-00163.safetensors"


def _weight_map_bytes(size: int) -> bytes:
    """A weight map of about ``size`` bytes, one line per tensor as transformers writes it."""
    line = b'    "model.layers.0.mlp.experts.0.down_proj.weight_packed": "' + SHARD.encode() + b'",\n'
    return b'  "weight_map": {\n' + line * (size // len(line)) + b'    "lm_head.weight": "x"\n  }'


def _peak_mib(call: Any) -> tuple[float, Any]:
    tracemalloc.start()
    try:
        try:
            result: Any = call()
        except PlannerError as exc:
            result = exc
        return tracemalloc.get_traced_memory()[1] / 2**20, result
    finally:
        tracemalloc.stop()


def test_a_huge_index_is_read_up_to_its_metadata_only(hub: HubServer) -> None:
    """metadata first (transformers sorts the keys): 45 MB of weight map after it are never downloaded or held."""
    repo = HostileRepo(hub, "hostile/big-index", base="mistralai/Mistral-7B-v0.1")
    body = b'{\n  "metadata": {"total_size": 14483464192},\n' + _weight_map_bytes(45_000_000) + b"\n}"
    repo.file("model.safetensors.index.json", body)
    peak, model = _peak_mib(lambda: fetch_model(repo.name))
    assert not isinstance(model, Exception), model
    assert model.stored_bytes is not None and model.stored_bytes.value == 14_483_464_192
    assert peak < 16, f"{peak:.0f} MiB"


def test_a_huge_index_that_fails_validation_costs_no_more_than_a_chunk(hub: HubServer) -> None:
    """The issue's attack: a 30 MB index whose metadata (last) fails validation was parsed whole, ~5x its size."""
    repo = HostileRepo(hub, "hostile/bad-index", base="mistralai/Mistral-7B-v0.1")
    body = b"{\n" + _weight_map_bytes(30_000_000) + b',\n  "metadata": {"total_size": "14 GB"}\n}'
    repo.file("model.safetensors.index.json", body)
    start = time.perf_counter()
    peak, error = _peak_mib(lambda: fetch_model(repo.name))
    assert isinstance(error, HubResponseError) and "metadata.total_size" in str(error), error
    assert peak < 16, f"{peak:.0f} MiB"
    assert time.perf_counter() - start < 5


def test_an_index_over_the_bound_is_refused_by_name(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/huge-index", base="mistralai/Mistral-7B-v0.1")
    body = b"{\n" + _weight_map_bytes(MAX_INDEX_BYTES + 1_000_000) + b',\n  "metadata": {"total_size": 1}\n}'
    repo.file("model.safetensors.index.json", body)
    peak, error = _peak_mib(lambda: fetch_model(repo.name))
    assert isinstance(error, HubResponseError) and "limit" in str(error), error
    assert MAX_INDEX_BYTES < 50_000_000 and peak < 16


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b'{"weight_map": {"' + b"a" * 100_000, "a string longer than"),
        (b'{"metadata": {"total_size": 1', "truncated"),
        (b'[{"metadata": {"total_size": 1}}]', "expected a JSON object"),
        (b'{"metadata": {"total_size": 1, "pad": [' + b"1," * 40_000 + b"1]}}", "metadata is over"),
        (b'{"a": 1' + b", 1" * 30_000 + b"}", "top level holds over"),
        (b'{"metadata": {"total_size": NaN}}', "NaN"),
        (b'{"metadata": 7}', "metadata must be an object"),
        (b'{"metadata": [1]}', "metadata must be an object"),
    ],
)
def test_a_malformed_index_is_refused_by_name(body: bytes, fragment: str) -> None:
    with pytest.raises(HubResponseError, match=fragment):
        _scan(body, 4_096)


def _scan(body: bytes, chunk: int) -> int | None:
    scan = IndexScan()
    for start in range(0, len(body), chunk):
        scan.feed(body[start : start + chunk])
        if scan.done:
            break
    scan.finish()
    return index_total_size({"metadata": scan.metadata})


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.text(alphabet='ab"\\{}[]:,\n é', max_size=8)
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(alphabet='km"\\{[', max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
METADATA = st.one_of(  # the value of "metadata" (None: null); the test's own None leaves the key out
    st.none(),
    st.builds(lambda n: {"total_size": n}, st.integers(0, 10**15)),
    st.builds(
        lambda n, extra: {"total_parameters": 3, "total_size": n, **extra},
        st.integers(1, 10**15),
        st.dictionaries(st.text(max_size=4), SCALARS, max_size=2),
    ),
    st.just({"total_size": "14 GB"}),
    st.just([1]),
    st.just(7),
    st.just("metadata"),
)


@FUZZ
@given(
    st.dictionaries(st.sampled_from(["weight_map", "format", "x", "metadat", "Metadata"]), VALUES, max_size=3),
    st.one_of(st.none(), METADATA),
    st.integers(0, 4),
    st.sampled_from([None, 0, 2]),
    st.integers(1, 64),
)
def test_the_scan_answers_what_parsing_the_whole_index_answers(
    others: dict[str, Any], metadata: Any, position: int, indent: int | None, chunk: int
) -> None:
    """Any key order, nesting, escapes and chunk boundaries: the scan's total_size (or its refusal) is the one
    ``json.loads`` of the whole document gives."""
    items = list(others.items())
    if metadata is not None:
        items.insert(min(position, len(items)), ("metadata", metadata))
    body = json.dumps(dict(items), indent=indent).encode()
    try:
        expected: Any = index_total_size(json.loads(body))
    except HubResponseError:
        expected = HubResponseError
    try:
        got: Any = _scan(body, chunk)
    except HubResponseError:
        got = HubResponseError
    assert got == expected, body[:300]
