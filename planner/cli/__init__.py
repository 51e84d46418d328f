"""``python -m planner``: the catalog, a model's shape, capacity checks and GPU advice, for scripts and CI pipelines.

One module per group of commands (:mod:`~planner.cli.catalog`: ``models``, ``gpus``, ``inspect``;
:mod:`~planner.cli.fit`; :mod:`~planner.cli.advise`; :mod:`~planner.cli.calibrate`), one table printer
(:mod:`~planner.cli.table`), one set of bounded argument types (:mod:`~planner.cli.args`).
Errors are one clear line on stderr and exit status 2; ``--json`` output is stable for scripts.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from pydantic import ValidationError

from model_catalog import CatalogError, alias_note
from planner.bounds.errors import PlannerError, describe_validation_error
from planner.bounds.walltime import budget
from planner.cli.advise import add_advise_parser, cmd_advise
from planner.cli.calibrate import add_calibrate_parser, cmd_calibrate
from planner.cli.catalog import add_catalog_parsers, cmd_gpus, cmd_inspect, cmd_models
from planner.cli.fit import add_fit_parser, cmd_fit
from planner.cli.schema import DOCUMENTS, schema_text, write_schemas

__all__ = ["COMMANDS", "build_parser", "main"]


# A value argparse quotes back in its error ("invalid choice: '...'"), longer than this, is shortened with an ellipsis
QUOTED_MAX_CHARS = 80
_QUOTED = re.compile(rf"'([^'\n]{{{QUOTED_MAX_CHARS}}})[^'\n]+'")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2, a long value it quotes back shortened."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {shortened(message)}\n")


def shortened(message: str) -> str:
    """``message`` with every quoted value longer than :data:`QUOTED_MAX_CHARS` cut there, with an ellipsis.

    >>> text = shortened("invalid choice: '" + "x" * 100_000 + "' (choose from 'lazy', 'prefetch')")
    >>> len(text), text.endswith("x…' (choose from 'lazy', 'prefetch')")
    (132, True)
    """
    return _QUOTED.sub(r"'\1…'", message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m planner", description="Headroom: LLM serving-memory planner")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    add_catalog_parsers(sub)
    add_fit_parser(sub)
    add_advise_parser(sub)
    add_calibrate_parser(sub)
    schema = sub.add_parser("schema", help="the JSON Schema of a command's --json output (draft 2020-12)")
    schema.add_argument("document", nargs="?", choices=list(DOCUMENTS), help="fit, advise, inspect or calibrate")
    schema.add_argument("--write", action="store_true", help="write docs/schema/COMMAND.json for every command")
    return parser


def cmd_schema(args: argparse.Namespace) -> int:
    """Print one command's output schema, or write them all (``--write``)."""
    if args.write:
        for path in write_schemas():
            print(path)
        return 0
    if args.document is None:
        raise PlannerError(f"schema: name a command ({', '.join(DOCUMENTS)}) or give --write")
    print(schema_text(args.document), end="")
    return 0


# Every command runs under a wall-clock budget: anything that can grow stops with a named error (the Hub import
# has its own deadline across the transfer, within this one).
COMMAND_BUDGET_SECONDS = 60.0

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "models": cmd_models,
    "gpus": cmd_gpus,
    "inspect": cmd_inspect,
    "fit": cmd_fit,
    "advise": cmd_advise,
    "calibrate": cmd_calibrate,
    "schema": cmd_schema,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        _say_aliases(args)
        with budget(COMMAND_BUDGET_SECONDS, f"the {args.command} command"):
            return COMMANDS[args.command](args)
    except (PlannerError, CatalogError) as exc:
        return _refused(args, str(exc))
    except ValidationError as exc:
        return _refused(args, describe_validation_error(exc))


def _say_aliases(args: argparse.Namespace) -> None:
    """A model named by a catalog alias is planned as its entry (:func:`model_catalog.resolve_model_id`): say so on
    stderr, so ``--json`` output stays the same document."""
    for flag in ("model", "draft_model"):
        value = getattr(args, flag, None)
        note = alias_note(value) if isinstance(value, str) else None
        if note is not None:
            print(f"note: {note}", file=sys.stderr)


def _refused(args: argparse.Namespace, message: str) -> int:
    """Invalid input (exit 2): one line on stderr, and under ``--json`` the same as a JSON object on stdout (a
    script reading stdout got nothing where an engine does not run a format)."""
    print(f"error: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "exit_code": 2}))
    return 2
