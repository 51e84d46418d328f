"""Same-run A/B of the advisor's ranking: this tree against another checkout (``python -m bench.advisor_ab
/path/to/other/tree [--rounds 7]``), the two alternating, each round in a fresh process of each tree, so that the
load of a shared machine weighs on both alike. Never asserted in tests.

Per model (Llama-3.1-70B, gpt-oss-120b, Qwen3-30B-A3B; 32,768 tokens, 50 users), each process times:

- **first**: the first ranking in the process, after the imports and the catalogs are loaded (``planner advise``);
- **cold**: the ranking again with what is kept across rankings forgotten (:func:`planner.advisor.reuse.clear`),
  the median of 3 (``bench.advisor``'s cold);
- **re-rank**: the ranking at a new context after one at another (the dashboard's context slider: the snaps from
  1,024 to 131,072 tokens in turn), the median of 7;

and, in another fresh process, **cli**: the whole ``python -m planner advise --model M --context 32768 --users 50
--json`` (start-up, imports and the catalogs included), timed from outside.

Printed: each tree's median over the rounds (milliseconds) and the ratio other / this.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

MODELS = ("meta-llama/Llama-3.1-70B", "openai/gpt-oss-120b", "Qwen/Qwen3-30B-A3B")
ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, statistics, sys, time
from model_catalog import get_model, load_gpus, load_hosts
from planner.advisor import Workload, rank
from planner.advisor.reuse import clear
spec = get_model(sys.argv[1]).spec
load_gpus(); load_hosts()
workload = Workload.fixed_length(32768, concurrent_conversations=50)
def timed(work):
    start = time.perf_counter(); work(); return (time.perf_counter() - start) * 1e3
first = timed(lambda: rank(spec, workload))
cold = []
for _ in range(3):
    clear(); cold.append(timed(lambda: rank(spec, workload)))
snaps = [2**n for n in range(10, 18) if 2**n <= spec.max_position_embeddings]
def at(context):
    return timed(lambda: rank(spec, Workload.fixed_length(context, concurrent_conversations=50)))
rerank = [at(c) for c in (snaps * 2)[1:8]]
print(json.dumps({"first": first, "cold": statistics.median(cold), "rerank": statistics.median(rerank)}))
"""


def _child(tree: Path, model: str) -> dict[str, float]:
    python = tree / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), "-c", CHILD, model], cwd=tree, check=True, capture_output=True, text=True, env=_env(tree)
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _cli(tree: Path, model: str) -> float:
    python = tree / ".venv" / "bin" / "python"
    command = [str(python), "-m", "planner", "advise", "--model", model, "--context", "32768", "--users", "50"]
    start = time.perf_counter()
    subprocess.run([*command, "--json"], cwd=tree, check=False, capture_output=True, env=_env(tree))
    return (time.perf_counter() - start) * 1e3


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout (its .venv/bin/python runs it)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    trees = {"other": args.other.resolve(), "this": ROOT}
    for model in MODELS:
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for index in range(args.rounds):
            order = list(trees) if index % 2 == 0 else list(reversed(trees))
            for name in order:
                runs[name].append({**_child(trees[name], model), "cli": _cli(trees[name], model)})
        for figure in ("first", "cold", "rerank", "cli"):
            medians = {name: statistics.median(r[figure] for r in runs[name]) for name in trees}
            ranges = {name: (min(r[figure] for r in runs[name]), max(r[figure] for r in runs[name])) for name in trees}
            print(
                f"{model:28s} {figure:7s} other {medians['other']:6.0f} ms ({ranges['other'][0]:.0f}-"
                f"{ranges['other'][1]:.0f})  this {medians['this']:6.0f} ms ({ranges['this'][0]:.0f}-"
                f"{ranges['this'][1]:.0f})  other/this {medians['other'] / medians['this']:.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
