"""``python -m planner.advisor.validation FILE ...`` with a file a user names: whatever the file is, a named message
on stderr and exit status 2, never a traceback (README: "To score cases the fit never saw, put them in a TOML file
of the same schema ... and run ...")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.advisor.benchmarks import MAX_BENCHMARK_FILE_BYTES
from planner.advisor.validation import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.err


def test_a_missing_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, err = _run(capsys, str(tmp_path / "nothere.toml"))
    assert status == 2
    assert err.startswith("error: cannot read") and "nothere.toml" in err and "No such file" in err


def test_a_directory_is_not_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, err = _run(capsys, str(tmp_path))
    assert (status, err.startswith("error: ")) == (2, True)
    assert "not a regular file" in err


def test_a_fifo_is_refused_without_waiting(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    status, err = _run(capsys, str(fifo))
    assert status == 2 and "not a regular file" in err


def test_invalid_toml_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("x = [\n", encoding="utf-8")
    status, err = _run(capsys, str(path))
    assert status == 2 and err.startswith("error: bad.toml: not valid TOML")


def test_deep_nesting_is_named_not_a_recursion_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 100_000, encoding="utf-8")  # tomllib recurses once a bracket
    status, err = _run(capsys, str(path))
    assert status == 2 and err.startswith("error: deep.toml: not valid TOML") and "nested" in err


def test_a_file_over_the_bound_is_refused_before_parsing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_bytes(b"#" * (MAX_BENCHMARK_FILE_BYTES + 1))
    status, err = _run(capsys, str(path))
    assert status == 2 and f"larger than a benchmark file can be ({MAX_BENCHMARK_FILE_BYTES:,} bytes)" in err


def test_the_bound_admits_the_largest_file_in_the_repository() -> None:
    files = [*Path("planner/advisor/benchmarks").glob("*.toml"), *Path("tests/advisor/benchmarks").glob("*.toml")]
    assert files and max(f.stat().st_size for f in files) < MAX_BENCHMARK_FILE_BYTES


def test_a_wrong_schema_names_the_field(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "rows.toml"
    path.write_text('[[row]]\nid = "x"\n', encoding="utf-8")
    status, err = _run(capsys, str(path))
    assert status == 2 and err.startswith("error: rows.toml: row.0.")


def test_help_prints_usage_not_a_file_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "FILE" in capsys.readouterr().out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=2_000))
def test_any_bytes_end_in_a_table_or_a_named_error(
    content: bytes, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "fuzz.toml"
    path.write_bytes(content)
    status, err = _run(capsys, str(path))
    assert status in (0, 2)
    assert status == 0 or (err.startswith("error: ") and "Traceback" not in err)


@pytest.mark.parametrize("field", ["value", "weights_bits", "other_bits"])
@pytest.mark.parametrize("number", ["inf", "nan", "+inf"])
def test_a_non_finite_number_is_named(
    field: str, number: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A measurement (or a bit width) of infinity was scored as a 100 % miss; it is refused by name."""
    source = (Path(__file__).resolve().parents[2] / "planner/advisor/benchmarks/vllm.toml").read_text(encoding="utf-8")
    first = source[source.index("[[row]]") : source.index("[[row]]", source.index("[[row]]") + 1)]
    lines = [line for line in first.splitlines() if not line.startswith(f"{field} =")]
    path = tmp_path / "rows.toml"
    path.write_text("\n".join([*lines, f"{field} = {number}"]) + "\n", encoding="utf-8")
    status, err = _run(capsys, str(path))
    assert status == 2 and err.startswith(f"error: rows.toml: row.0.{field}: ") and "finite" in err


def _first_row_with(tmp_path: Path, **fields: str) -> Path:
    """The package's first vLLM row with ``fields`` replaced (TOML values as written)."""
    source = (Path(__file__).resolve().parents[2] / "planner/advisor/benchmarks/vllm.toml").read_text(encoding="utf-8")
    first = source[source.index("[[row]]") : source.index("[[row]]", source.index("[[row]]") + 1)]
    lines = [line for line in first.splitlines() if line.split(" =")[0] not in fields]
    path = tmp_path / "rows.toml"
    path.write_text("\n".join([*lines, *(f"{k} = {v}" for k, v in fields.items())]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"input_tokens": "1000000000"}, "at most 16,777,216"),
        ({"depth_tokens": "16777000", "input_tokens": "1000"}, "at most 16,777,216"),
        ({"weights": '"q9"'}, "unknown precision 'q9'"),
        ({"kv_dtype": '"zz"'}, "unknown KV cache dtype 'zz'"),
    ],
)
def test_lengths_and_formats_the_planner_cannot_take_are_named(
    fields: dict[str, str], named: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A row whose context the planner bounds (planner.bounds.limits.MAX_CONTEXT) or whose weight or KV format it
    does not know ended in a pydantic traceback while it was scored; it is refused by name when the file is read."""
    status, err = _run(capsys, str(_first_row_with(tmp_path, **fields)))
    assert status == 2 and err.startswith("error: rows.toml: ") and named in err and "Traceback" not in err
