"""The command-line flags each engine release defines, read from its wheel on PyPI into
``tests/fixtures/reference/engine-flags.json`` (what ``tests/engines/test_launch_flags_defined.py`` holds every
launch command to).

    pip download --no-deps --only-binary=:all: vllm==0.19.1 sglang==0.5.4
    python -m bench.engine_flags vllm-0.19.1-*.whl sglang-0.5.4-*.whl

vLLM: ``engine/arg_utils.py`` (``EngineArgs.add_cli_args``), ``entrypoints/openai/cli_args.py`` and
``entrypoints/cli/serve.py``; a flag takes its ``--no-`` form where its ``add_argument`` says
``BooleanOptionalAction``, or where it is made from a config field typed ``bool`` by ``get_kwargs`` in a release
whose ``get_kwargs`` gives bools that action (0.8 on). SGLang: ``srt/server_args.py`` (``ServerArgs.add_cli_args``).
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "reference" / "engine-flags.json"
VLLM_FILES = ("engine/arg_utils.py", "entrypoints/openai/cli_args.py", "entrypoints/cli/serve.py")
FLAG = re.compile(r"""add_argument\(\s*((?:['"]--?[A-Za-z0-9][A-Za-z0-9_-]*['"]\s*,\s*)+)""")
NAME = re.compile(r"""['"](--[A-Za-z0-9][A-Za-z0-9_-]*)['"]""")
KWARGS = re.compile(r"""\*\*\w+\[['"](\w+)['"]\]""")
BOOL_FIELD = re.compile(r"^\s+(\w+): (?:bool|Optional\[bool\]|bool \| None)\s*=", re.MULTILINE)
GET_KWARGS_BOOLS = 'kwargs[name]["action"] = argparse.BooleanOptionalAction'


def _calls(source: str) -> list[tuple[list[str], str]]:
    """Each ``add_argument`` call's long flags (a name and its aliases, ``--tensor-parallel-size``, ``--tp-size``)
    and the text of its call (to its closing parenthesis)."""
    found = []
    for match in FLAG.finditer(source):
        depth, end = 0, match.start()
        for end in range(source.index("(", match.start()), len(source)):
            depth += {"(": 1, ")": -1}.get(source[end], 0)
            if depth == 0:
                break
        found.append((NAME.findall(match.group(1)), source[match.start() : end + 1]))
    return found


def flags_of(sources: list[str], bool_fields: set[str], kwargs_bools: bool) -> dict[str, list[str]]:
    """The flags the sources add, and those of them that also take a ``--no-`` form."""
    flags: set[str] = set()
    negatable: set[str] = set()
    for source in sources:
        for names, call in _calls(source):
            flags.update(names)
            field = KWARGS.search(call)
            if "BooleanOptionalAction" in call or (kwargs_bools and field and field.group(1) in bool_fields):
                negatable.update(names)
    return {"flags": sorted(flags), "negatable": sorted(negatable)}


def _read(wheel: zipfile.ZipFile, name: str) -> str:
    try:
        return wheel.read(name).decode()
    except KeyError:
        return ""


def vllm_flags(path: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(path) as wheel:
        sources = [_read(wheel, f"vllm/{name}") for name in VLLM_FILES]
        configs = [_read(wheel, n) for n in wheel.namelist() if re.fullmatch(r"vllm/config(/\w+)?\.py", n)]
    kwargs_bools = GET_KWARGS_BOOLS in sources[0] or any(GET_KWARGS_BOOLS in c for c in configs)
    bools = {m.group(1) for c in configs for m in BOOL_FIELD.finditer(c)}
    return flags_of(sources, bools, kwargs_bools)


def sglang_flags(path: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(path) as wheel:
        return flags_of([_read(wheel, "sglang/srt/server_args.py")], set(), False)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def encoded(releases: dict[str, dict[str, Any]]) -> list[dict[str, object]]:
    """Oldest first, each release as what it adds to and drops from the one before (the first in full)."""
    out: list[dict[str, object]] = []
    before = {"flags": set[str](), "negatable": set[str]()}
    for version in sorted(releases, key=_key):
        entry: dict[str, object] = {"version": version, "source": releases[version]["source"]}
        for kind in ("flags", "negatable"):
            now = set(releases[version][kind])
            entry[f"{kind}_added"], entry[f"{kind}_dropped"] = sorted(now - before[kind]), sorted(before[kind] - now)
            before[kind] = now
        out.append(entry)
    return out


def main(paths: list[str]) -> int:
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for name in paths:
        path = Path(name)
        engine, version = path.name.split("-")[:2]
        read = vllm_flags if engine == "vllm" else sglang_flags
        entry = read(path)
        found.setdefault(engine, {})[version] = {**entry, "source": f"{path.name} (PyPI), bench/engine_flags.py"}
        print(engine, version, len(entry["flags"]), "flags,", len(entry["negatable"]), "negatable")
    data = {engine: encoded(releases) for engine, releases in found.items()}
    OUT.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
