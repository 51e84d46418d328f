"""The command-line flags each engine release defines, read from its wheel on PyPI into
``tests/fixtures/reference/engine-flags.json`` (what ``tests/engines/test_launch_flags_defined.py`` holds every
launch command to).

    pip download --no-deps --only-binary=:all: vllm==0.19.1 sglang==0.5.4
    python -m bench.engine_flags vllm-0.19.1-*.whl sglang-0.5.4-*.whl

Releases already in the fixture and not given are kept (:func:`decoded`).

vLLM: ``engine/arg_utils.py`` (``EngineArgs.add_cli_args``), ``entrypoints/openai/cli_args.py`` and
``entrypoints/cli/serve.py``; a flag takes its ``--no-`` form where its ``add_argument`` says
``BooleanOptionalAction``, or where it is made from a config field typed ``bool`` by ``get_kwargs`` in a release
whose ``get_kwargs`` gives bools that action (0.8 on). SGLang: ``srt/server_args.py`` (``ServerArgs.add_cli_args``).
"""

from __future__ import annotations

import ast
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


def _annotation_metadata(node: ast.expr) -> ast.expr | None:
    """The metadata of an ``A[T, meta]`` / ``Annotated[T, meta]`` annotation (``None`` for any other)."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple):
        return None
    name = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
    items = node.slice.elts
    return items[1] if name in ("A", "Annotated") and len(items) >= 2 else None


def _arg_flags(field: str, meta: ast.Call) -> tuple[list[str], bool]:
    """The flags of one field declared with ``Arg(...)``: its ``cli_name`` or ``--field-name``, and its aliases
    (none with ``no_cli=True``); and whether they take a ``--no-`` form (``action=BooleanOptionalAction``)."""
    given = {k.arg: k.value for k in meta.keywords}
    no_cli = given.get("no_cli")
    if isinstance(no_cli, ast.Constant) and no_cli.value is True:
        return [], False
    cli = given.get("cli_name")
    flags = [str(cli.value) if isinstance(cli, ast.Constant) else "--" + field.replace("_", "-")]
    aliases = given.get("aliases")
    if isinstance(aliases, ast.List | ast.Tuple):
        flags += [str(e.value) for e in aliases.elts if isinstance(e, ast.Constant)]
    return flags, "BooleanOptionalAction" in ast.unparse(given.get("action", ast.Constant(None)))


def field_flags(source: str) -> dict[str, list[str]]:
    """The flags SGLang (0.5.14 on) makes from its argument records' fields (``arg_groups/arg_utils.py``
    ``add_cli_args_from_dataclass``): a field annotated ``A[T, "help"]`` or ``A[T, Arg(...)]`` is
    ``--field-name`` (or ``Arg(cli_name=...)``) and its ``aliases``; ``Arg(no_cli=True)`` makes none. A boolean is
    ``store_true`` there: only ``Arg(action=argparse.BooleanOptionalAction)`` takes a ``--no-`` form.

    >>> field_flags(
    ...     "class Memory:\\n"
    ...     "    max_total_tokens: A[Optional[int], Arg(help='cap')] = None\\n"
    ...     "    tp_size: A[int, Arg(cli_name='--tensor-parallel-size', aliases=['--tp'])] = 1\\n"
    ...     "    disable_cuda_graph: A[bool, Arg(no_cli=True)] = False\\n"
    ...     "    page_size: A[int, 'tokens a page'] = 1\\n"
    ...     "    plain: int = 0\\n"
    ...     "    mm: A[bool, Arg(action=argparse.BooleanOptionalAction)] = True\\n"
    ... )
    {'flags': ['--max-total-tokens', '--mm', '--page-size', '--tensor-parallel-size', '--tp'], 'negatable': ['--mm']}
    """
    flags: set[str] = set()
    negatable: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        meta = _annotation_metadata(node.annotation)
        if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
            flags.add("--" + node.target.id.replace("_", "-"))
        elif isinstance(meta, ast.Call) and getattr(meta.func, "id", "") == "Arg":
            names, negates = _arg_flags(node.target.id, meta)
            flags.update(names)
            negatable.update(names if negates else ())
    return {"flags": sorted(flags), "negatable": sorted(negatable)}


def sglang_flags(path: Path) -> dict[str, list[str]]:
    """``srt/server_args.py``'s ``add_argument`` calls and, from 0.5.14, the fields of its argument records
    (``srt/server_args.py`` and ``srt/arg_groups/``: :func:`field_flags`)."""
    with zipfile.ZipFile(path) as wheel:
        names = [
            n for n in wheel.namelist() if n == "sglang/srt/server_args.py" or n.startswith("sglang/srt/arg_groups/")
        ]
        sources = [_read(wheel, n) for n in names if n.endswith(".py")]
    found = flags_of(sources, set(), False)
    for fields in map(field_flags, sources):
        for kind in ("flags", "negatable"):
            found[kind] = sorted(set(found[kind]) | set(fields[kind]))
    return found


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


def decoded(data: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """The inverse of :func:`encoded` for every engine: each release's flags in full, so that releases can be added
    to the fixture without reading every wheel again.

    >>> entry = {"version": "1.0", "source": "s", "flags_added": ["--a"], "flags_dropped": [], "negatable_added": [],
    ...          "negatable_dropped": []}
    >>> decoded({"x": encoded(decoded({"x": [entry]})["x"])})["x"]["1.0"]["flags"]
    ['--a']
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for engine, entries in data.items():
        now: dict[str, set[str]] = {"flags": set(), "negatable": set()}
        for entry in entries:
            for kind in ("flags", "negatable"):
                now[kind] = (now[kind] | set(entry[f"{kind}_added"])) - set(entry[f"{kind}_dropped"])
            release = {kind: sorted(values) for kind, values in now.items()}
            out.setdefault(engine, {})[entry["version"]] = {**release, "source": entry["source"]}
    return out


def main(paths: list[str]) -> int:
    """Read each wheel's flags into the fixture: a release already there is read again, the others are kept."""
    found = decoded(json.loads(OUT.read_text())) if OUT.exists() else {}
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
