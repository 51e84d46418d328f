"""A hostile Hub's replies: a huge safetensors header, deep nesting, huge integers, NaN/Infinity, huge shapes,
type confusion and unbounded text. Each must end in a named HubResponseError, fast, with a bounded message.

From the adversarial review of the Hub client ("hostile input" issue): each case escaped the promise that a
failure is a :class:`HubError` (a :class:`PlannerError`), or cost far more time or memory than needed.
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Callable

import pytest

from planner.sources.hub import HubResponseError, fetch_model, parse_safetensors_header
from planner.sources.hub.errors import MAX_MESSAGE_CHARS
from planner.sources.hub.safetensors import MAX_HEADER_BYTES
from tests.sources.hub.conftest import HostileRepo, HubServer, fails, timed

DEEP = b"[" * 40_000 + b"]" * 40_000  # 80 kB: under every size cap, 40x deeper than recursion allows
HUGE_INT = b"1" * 5_000  # over Python's 4,300-digit int() limit


# -- 2. a huge safetensors header ----------------------------------------------------------------------
def test_a_96_mb_header_is_refused_before_it_is_downloaded(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/huge-header")
    length = 96_000_000
    repo.safetensors(struct.pack("<Q", length) + b'{"a":', total=8 + length + 1_000)
    timed(HubResponseError, "-byte limit", lambda: fetch_model(repo.name), 1.0)
    reads = [r for r in hub.requests if r.path.endswith("/model.safetensors")]
    assert len(reads) == 1, "only the 64 kB prefetch was requested"


def test_the_header_cap_fits_real_single_file_checkpoints() -> None:
    # The largest recorded single-file header (a 7B GPTQ checkpoint, 963 tensors) is ~108 kB; a fine-grained
    # 4-bit MoE in one file (~17k tensors x ~115 B) ~2 MB. The cap leaves a margin over that, far below 100 MB.
    assert 4_000_000 <= MAX_HEADER_BYTES <= 16_000_000


# -- 3. deep nesting, huge integers, NaN/Infinity, huge shapes, type confusion --------------------------
def _deep_quantize_config(repo: HostileRepo) -> None:
    api = repo.api_json()
    api["siblings"] = [*api["siblings"], {"rfilename": "quantize_config.json"}]
    repo.api(api)
    repo.file("quantize_config.json", DEEP)


@pytest.mark.parametrize(
    "where",
    ["api", "config.json", "model.safetensors.index.json", "safetensors header", "quantize_config.json"],
)
def test_deep_nesting_is_a_named_error(hub: HubServer, where: str) -> None:
    repo = HostileRepo(hub, "hostile/deep", base="mistralai/Mistral-7B-v0.1" if "index" in where else "Qwen/Qwen3-0.6B")
    if where == "api":
        repo.api(DEEP)
    elif where == "safetensors header":
        repo.safetensors(struct.pack("<Q", len(DEEP)) + DEEP)
    elif where == "quantize_config.json":
        _deep_quantize_config(repo)
    elif "index" in where:  # only the metadata is parsed (the weight map is scanned, never recursed into)
        repo.file(where, b'{"metadata": ' + DEEP[:20_000] + DEEP[-20_000:] + b"}")
    else:
        repo.file(where, DEEP)
    timed(HubResponseError, "nested deeper than", lambda: fetch_model(repo.name), 2.0)


@pytest.mark.parametrize("where", ["api", "config.json", "safetensors header"])
def test_integers_over_4300_digits_are_a_named_error(hub: HubServer, where: str) -> None:
    repo = HostileRepo(hub, "hostile/huge-int")
    if where == "api":
        repo.api(json.dumps(repo.api_json())[:-1].encode() + b', "downloads": ' + HUGE_INT + b"}")
    elif where == "config.json":
        repo.file(where, b'{"model_type": "llama", "num_hidden_layers": ' + HUGE_INT + b"}")
    else:
        header = b'{"w": {"dtype": "BF16", "shape": [' + HUGE_INT + b'], "data_offsets": [0, 2]}}'
        repo.safetensors(struct.pack("<Q", len(header)) + header)
    fails(HubResponseError, "digits", lambda: fetch_model(repo.name))


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_nan_and_infinity_are_a_named_error(hub: HubServer, constant: str) -> None:
    repo = HostileRepo(hub, "hostile/infinite", base="mistralai/Mistral-7B-v0.1")
    repo.file("model.safetensors.index.json", b'{"metadata": {"total_size": ' + constant.encode() + b"}}")
    fails(HubResponseError, "model.safetensors.index.json", lambda: fetch_model(repo.name))


def test_infinite_api_count_is_a_named_error(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/infinite-api")
    api = repo.api_json()
    api["safetensors"] = {"parameters": {"BF16": float("inf")}, "total": float("nan")}
    repo.api(api)
    fails(HubResponseError, "the Hub API entry of hostile/infinite-api", lambda: fetch_model(repo.name))


def test_huge_shapes_are_a_named_error(hub: HubServer) -> None:
    side = 2**40
    numel = side**3
    header = {"w": {"dtype": "BF16", "shape": [side, side, side], "data_offsets": [0, 2 * numel]}}
    with pytest.raises(HubResponseError, match="'w': shape"):
        parse_safetensors_header(header)
    repo = HostileRepo(hub, "hostile/huge-shape")
    raw = json.dumps(header).encode()
    repo.safetensors(struct.pack("<Q", len(raw)) + raw, total_label="*")  # no file size to check against
    fails(HubResponseError, "shape", lambda: fetch_model(repo.name))


def _api_with(**changes: object) -> Callable[[HostileRepo], None]:
    def change(repo: HostileRepo) -> None:
        repo.api({**repo.api_json(), **changes})

    return change


def _config_with(**changes: object) -> Callable[[HostileRepo], None]:
    def change(repo: HostileRepo) -> None:
        repo.file("config.json", {**repo.file_json("config.json"), **changes})

    return change


def _index(body: object) -> Callable[[HostileRepo], None]:
    return lambda repo: repo.file("model.safetensors.index.json", body)


COMPRESSED = {"quant_method": "compressed-tensors", "config_groups": [{"weights": {"num_bits": 8}}]}
TYPE_CONFUSION: dict[str, tuple[str, Callable[[HostileRepo], None], str]] = {
    "config_groups as a list": ("Qwen/Qwen3-0.6B", _config_with(quantization_config=COMPRESSED), "config_groups"),
    "quant_method as an object": (
        "Qwen/Qwen3-0.6B",
        _config_with(quantization_config={"quant_method": {"x": 1}}),
        "quant_method",
    ),
    "quantization_config as a string": ("Qwen/Qwen3-0.6B", _config_with(quantization_config="gptq"), "quantization"),
    "architectures as a number": ("Qwen/Qwen3-0.6B", _config_with(architectures=5), "architectures"),
    "model_type as a list": ("Qwen/Qwen3-0.6B", _config_with(model_type=["llama"]), "model_type"),
    "siblings as an object": ("Qwen/Qwen3-0.6B", _api_with(siblings={"rfilename": "x"}), "siblings"),
    "safetensors.parameters as a list": (
        "Qwen/Qwen3-0.6B",
        _api_with(safetensors={"parameters": [1, 2], "total": 3}),
        "safetensors.parameters",
    ),
    "safetensors.total as a string": ("Qwen/Qwen3-0.6B", _api_with(safetensors={"total": "600M"}), "safetensors"),
    "negative count": ("Qwen/Qwen3-0.6B", _api_with(safetensors={"parameters": {"BF16": -5}}), "safetensors"),
    "private as a string": ("Qwen/Qwen3-0.6B", _api_with(private="no"), "private"),
    "index metadata as a list": ("mistralai/Mistral-7B-v0.1", _index({"metadata": [1]}), "metadata"),
    "index as a list": ("mistralai/Mistral-7B-v0.1", _index([1, 2]), "model.safetensors.index.json"),
    "total_size as a string": (
        "mistralai/Mistral-7B-v0.1",
        _index({"metadata": {"total_size": "14 GB"}}),
        "total_size",
    ),
}


@pytest.mark.parametrize("case", sorted(TYPE_CONFUSION))
def test_type_confusion_is_a_named_error(hub: HubServer, case: str) -> None:
    base, change, field = TYPE_CONFUSION[case]
    repo = HostileRepo(hub, "hostile/confused", base=base)
    change(repo)
    error = fails(HubResponseError, field, lambda: fetch_model(repo.name))
    assert "hostile/confused" in str(error) or "config.json" in str(error) or "index" in str(error)


# -- bounded messages ----------------------------------------------------------------------------------
def test_messages_from_replies_are_bounded(hub: HubServer) -> None:
    name = "x" * 2_000_000
    header = json.dumps({name: {"dtype": "BF16", "shape": "not a list", "data_offsets": [0, 2]}}).encode()
    repo = HostileRepo(hub, "hostile/long-name")
    repo.safetensors(struct.pack("<Q", len(header)) + header)
    error = fails(HubResponseError, "malformed", lambda: fetch_model(repo.name))
    assert "xxxx" in str(error)


def test_notes_from_a_config_are_bounded(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/long-note")
    config = repo.file_json("config.json")
    config["layer_types"] = ["y" * 30_000] * config["num_hidden_layers"]  # under the 1 MB config cap
    repo.file("config.json", config)
    model = fetch_model(repo.name)
    assert model.spec is None and model.notes
    assert all(len(n) <= MAX_MESSAGE_CHARS for n in model.notes)
    assert all(len(m.reason) <= MAX_MESSAGE_CHARS for m in model.missing)


@pytest.mark.parametrize(("field", "value"), [("hidden_size", 10**30), ("max_position_embeddings", 10**39)])
def test_numbers_beyond_any_model_are_a_named_error(hub: HubServer, field: str, value: int) -> None:
    repo = HostileRepo(hub, "hostile/giant")
    repo.file("config.json", {**repo.file_json("config.json"), field: value})
    fails(HubResponseError, field, lambda: fetch_model(repo.name))


def test_a_layer_count_beyond_any_model_is_not_planned(hub: HubServer) -> None:
    repo = HostileRepo(hub, "hostile/endless")
    repo.file("config.json", {**repo.file_json("config.json"), "num_hidden_layers": 10**7})
    start = time.monotonic()
    fails(HubResponseError, "num_hidden_layers", lambda: fetch_model(repo.name))
    assert time.monotonic() - start < 2.0
