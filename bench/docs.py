"""``make docs``: every generated file and section of the documentation, rewritten from the code that computes it
(``python -m bench.docs``; ``--check`` lists what is stale and exits 1). One list, :data:`GENERATED`, names each;
``tests/test_docs.py`` fails when any is stale, naming ``make docs`` as the fix.

Generated: the catalog (``docs/catalog.md``), the JSON Schemas of the ``--json`` outputs (``docs/schema/``), the
container and Kubernetes layout of ``make serve`` (``deploy/*.yaml``, ``deploy/nginx.compose.conf``), the engine
fidelity tables (``docs/fidelity.md``) and their headline in the README, the accuracy groups the planner quotes
(``planner/engines/accuracy.toml``), the advisor's worked workloads and its
speed errors (``docs/advisor.md``), and the README's example sentences.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Whole:
    """A whole file, written by ``text``."""

    path: str
    text: Callable[[], str]

    def render(self, current: str) -> str:
        return self.text()


@dataclass(frozen=True)
class Section:
    """The text between ``<!-- marker:start -->`` and ``<!-- marker:end -->`` of a file."""

    path: str
    marker: str
    text: Callable[[], str]

    def render(self, current: str) -> str:
        start, end = f"<!-- {self.marker}:start -->", f"<!-- {self.marker}:end -->"
        if start not in current or end not in current:
            raise SystemExit(f"{self.path}: the {self.marker} markers are missing")
        pattern = re.compile(re.escape(start) + r"\n(?:.*?\n)?" + re.escape(end), re.S)
        return pattern.sub(lambda _: f"{start}\n{self.text().strip()}\n{end}", current, count=1)


@dataclass(frozen=True)
class Rewrite:
    """A file rewritten in place by ``text(current)`` (the README's example sentences)."""

    path: str
    text: Callable[[str], str]

    def render(self, current: str) -> str:
        return self.text(current)


Generated = Whole | Section | Rewrite


@cache
def _fidelity() -> tuple[str, str]:
    """The fidelity tables and their headline (one run of every case)."""
    from bench.fidelity import run_all
    from bench.fidelity_tables import headline, markdown

    results = run_all()
    return markdown(results), "\n".join(headline(results))


def _catalog() -> str:
    from model_catalog.docs import render

    return render()


def _schema(command: str) -> Callable[[], str]:
    def text() -> str:
        from planner.cli.schema import schema_text

        return schema_text(command)

    return text


def _manifest(name: str) -> Callable[[], str]:
    def text() -> str:
        from deploy.manifests import FILES

        return FILES[name]()

    return text


def _examples() -> str:
    from planner.advisor.examples import examples_text

    return examples_text()


def _errors() -> str:
    from planner.advisor.examples import errors_text

    return errors_text()


def _speed_headline() -> str:
    """The speed model's overall error, fit and held-out rows (the last lines of the advisor's error table)."""
    from planner.advisor.examples import errors_text

    return "\n".join(line for line in errors_text().splitlines() if line.startswith("- "))


def _accuracy() -> str:
    from bench.accuracy import accuracy_toml

    return accuracy_toml()


def _readme_examples(current: str) -> str:
    from planner.cli.examples import rewrite

    return rewrite(current)


GENERATED: tuple[Generated, ...] = (
    Whole("docs/catalog.md", _catalog),
    *(Whole(f"docs/schema/{c}.json", _schema(c)) for c in ("advise", "calibrate", "fit", "inspect")),
    *(Whole(f"deploy/{n}", _manifest(n)) for n in ("compose.yaml", "kubernetes.yaml", "nginx.compose.conf")),
    Whole("planner/engines/accuracy.toml", _accuracy),
    Section("docs/fidelity.md", "fidelity", lambda: _fidelity()[0]),
    Section("README.md", "fidelity-headline", lambda: _fidelity()[1]),
    Section("README.md", "speed-headline", _speed_headline),
    Section("docs/advisor.md", "examples", _examples),
    Section("docs/advisor.md", "errors", _errors),
    Rewrite("README.md", _readme_examples),
)


def stale(root: Path = ROOT) -> list[str]:
    """The generated files and sections that differ from what the code computes now."""
    found = []
    for item in GENERATED:
        path = root / item.path
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if item.render(current) != current:
            found.append(item.path + (f" ({item.marker})" if isinstance(item, Section) else ""))
    return found


def write(root: Path = ROOT) -> list[str]:
    """Rewrite every generated file and section; the ones that changed."""
    changed = []
    for item in GENERATED:
        path = root / item.path
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        new = item.render(current)
        if new != current:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(new, encoding="utf-8")
            changed.append(item.path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.docs", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list what is stale, change nothing (exit 1 if any)")
    args = parser.parse_args(argv)
    if args.check:
        found = stale()
        for name in found:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if found else 0
    for name in write():
        print(f"rewritten: {name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
