"""``make bench``: medians of repeated runs, printed as a table (never asserted in tests).

- planner: one breakdown, one 64-point concurrency curve, and the sweep catalog x {1, 2, 4, 8} GPUs x 6 weight
  precisions (targets on this 2-core machine: under 1 ms, 10 ms and 500 ms);
- dashboard: server-side rerun time of each page (AppTest; target under 150 ms);
- browser: the cold link of the Memory page (verdict shown, chart drawn) against a one-chart Streamlit + Plotly
  page served the same way (:mod:`bench.coldlink`; target: the ratio of the medians at most 1.15, the verdict
  no later than the floor's chart), the page weight of a cold link (served directly, and compressed by the nginx
  of ``make serve REPLICAS=N``), and slider change to updated chart on every page with a chart (:mod:`bench.slider`;
  target under 300 ms), in Debian's Chromium (skipped with a note when it is not installed);
- advisor: the full ranking over the catalog, when the advisor module is present (target under 300 ms);
- load (:mod:`bench.load`), 25 concurrent sessions for 60 s each: normal and hostile links on one process (errors,
  p50 / p95 page run, the server's peak memory); one shared link (target: p95 under 2 s); normal and hostile links
  behind nginx with 1 and 2 replicas, alternating (target: p95 with 2 at most 0.6 x with 1). ``--no-load`` skips
  them, ``--quick`` runs 10 s each.
- attack: a plain visitor's Memory page beside sessions looping heavy advisor links and a failing Hub import, and
  the same visits without them (:mod:`bench.attack`; target: at most 2x plus 1 s; ``--no-load`` skips it too).

``python -m bench --quick`` does fewer repetitions.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Iterator

from bench.coldlink import RATIO
from bench.timing import median_ms
from model_catalog import get_gpu, get_model, load_models
from planner.assessment.curve import concurrency_curve
from planner.core.overhead import SimpleFraction
from planner.core.parallel import default_parallelism
from planner.planning.plan import PlanRequest, plan
from ui import links, state
from ui.state import Selection

SWEEP_PRECISIONS = ("bf16", "fp8", "int8", "int4-awq", "q4_k_m", "nvfp4")
# The browser benchmarks' link: Llama-3.1-70B in FP8 on 2 x H100 under vLLM (the landing page's engine lines).
BROWSER_VIEW = Selection(
    model_id="meta-llama/Llama-3.1-70B",
    gpu_count=2,
    tensor_parallel=2,
    weights="fp8",
    kv_dtype="fp8",
    context_tokens=8192,
)


def planner_benchmarks(repeat: int) -> dict[str, float]:
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes,
        gpu_count=2,
        context_tokens=32768,
    )
    contexts = state.log_contexts(512, 131072, 64)
    models = load_models()

    def sweep() -> int:
        count = 0
        for entry in models.values():
            for gpus in (1, 2, 4, 8):
                tp, pp = default_parallelism(entry.spec, gpus)
                for precision in SWEEP_PRECISIONS:
                    plan(
                        PlanRequest(
                            model=entry.spec,
                            gpu_memory_bytes=gpu.memory_bytes,
                            gpu_count=gpus,
                            tensor_parallel=tp,
                            pipeline_parallel=pp,
                            weights=precision,
                            overhead=SimpleFraction(),
                        )
                    )
                    count += 1
        return count

    plans = sweep()
    return {
        "planner: one breakdown (Llama-3.1-70B, 2 x H100)": median_ms(lambda: plan(request), repeat * 20),
        "planner: 64-point concurrency curve": median_ms(lambda: concurrency_curve(request, contexts), repeat * 5),
        f"planner: sweep of {plans} plans (catalog x 4 counts x 6 precisions)": median_ms(sweep, max(3, repeat // 2)),
    }


def page_benchmarks(repeat: int) -> dict[str, float]:
    from tests.app.conftest import run_page

    results = {}
    for page in ("memory", "what_if", "compare", "advisor", "catalog", "custom"):
        at = run_page(page, {"model": "meta-llama/Llama-3.1-70B", "gpus": "2", "context": "32768"})
        results[f"page rerun (AppTest): {page}"] = median_ms(at.run, repeat, warmup=1)
    return results


def browser_benchmarks(repeat: int) -> dict[str, float]:
    from bench import slider
    from bench.coldlink import FLOOR_SCRIPT, FLOOR_VEGA_SCRIPT, WEIGHT, compare, page_weight
    from tests.browser.server import CHROMIUM_ARGS, chromium_path, running_app

    path = chromium_path()
    if path is None:
        print("browser: skipped (Debian's chromium is not installed)", file=sys.stderr)
        return {}
    from playwright.sync_api import sync_playwright

    query = links.query_string(BROWSER_VIEW)
    # Both served as make serve serves them (the Makefile's SERVE_FLAGS and .streamlit/config.toml).
    with (
        running_app(production=True) as base,
        running_app(script=FLOOR_VEGA_SCRIPT, production=True) as floor,
        running_app(script=FLOOR_SCRIPT, production=True) as plotly_floor,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        rows = compare(browser, f"{base}/{query}", f"{floor}/", f"{plotly_floor}/", max(repeat, 7))
        rows[WEIGHT.format("Memory page")] = page_weight(browser, f"{base}/{query}")
        rows[WEIGHT.format("floor page (one Vega-Lite chart)")] = page_weight(browser, f"{floor}/")
        rows[WEIGHT.format("floor page (one Plotly chart)")] = page_weight(browser, f"{plotly_floor}/")
        with proxied() as team:
            rows[WEIGHT.format("Memory page through nginx")] = page_weight(browser, f"{team}/{query}")
        rows.update(slider.run(browser, base, BROWSER_VIEW, repeat))
        browser.close()
    return rows


@contextlib.contextmanager
def proxied(replicas: int = 1) -> Iterator[str]:
    """The dashboard behind nginx as ``make serve REPLICAS=n`` serves it; its base URL."""
    from deploy.config import serve_flags
    from tests.browser.server import free_port, running_server

    port = free_port()
    command = [sys.executable, "-m", "deploy.serve", "--replicas", str(replicas), "--address", "127.0.0.1",
               "--port", str(port), "--", *serve_flags()]  # fmt: skip
    with running_server(command=command, port=port) as server:
        yield server.base


def advisor_benchmarks() -> dict[str, float]:
    try:
        module = importlib.import_module("bench.advisor")
    except ModuleNotFoundError:
        return {}
    return {f"advisor: {k}": float(v) for k, v in module.run().items()}


def load_benchmarks(seconds: float) -> int:
    """The load tests (bench/load.py): 25 sessions on normal and hostile links (one process, as before); 25 on one
    shared link; 25 on normal and hostile links behind nginx with 1 and with 2 replicas, alternating. Non-zero
    when any visitor saw an error or the server logged a traceback."""
    from bench import load

    runs = {
        "normal and hostile links, one process": load.run(sessions=25, seconds=seconds),
        "one shared link, one process (make serve)": load.same_link(sessions=25, seconds=seconds),
        **{
            f"normal and hostile links behind nginx, {n} replica{'s' if n > 1 else ''}": figures
            for n, figures in load.replicas_compared((1, 2), sessions=25, seconds=seconds).items()
        },
    }
    failed = False
    for name, figures in runs.items():
        print()
        print(f"load test, {name} (bench/load.py): " + ", ".join(f"{k} {v}" for k, v in figures.items()))
        failed |= bool(figures["errors"] or figures["server_tracebacks_logged"])
    one, two = (runs[k]["page_run_p95_ms"] for k in list(runs)[2:])
    print(f"\nload test: p95 page run with 2 replicas / with 1: {two / one:.2f} (target at most 0.6)")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--no-load", action="store_true", help="skip the load test")
    parser.add_argument("--browser-only", action="store_true", help="only the browser benchmarks")
    args = parser.parse_args(argv)
    repeat = 5 if args.quick else 15
    rows: dict[str, float] = {}
    if not args.browser_only:
        rows.update(planner_benchmarks(repeat))
        rows.update(advisor_benchmarks())
        rows.update(page_benchmarks(repeat))
    if not args.no_browser:
        rows.update(browser_benchmarks(3 if args.quick else 5))
    width = max(len(k) for k in rows)
    print(f"{'benchmark (median)'.ljust(width)}  milliseconds")
    for name, value in rows.items():
        ratio = name.startswith(RATIO)
        shown = f"{value:11.2f}x" if ratio else f"{value:10.2f}MB" if "(MB" in name else f"{value:12.2f}"
        print(f"{name.ljust(width)}  {shown}")
    if not (args.no_load or args.browser_only):
        status = load_benchmarks(10 if args.quick else 60)
        from bench import attack

        attacked = attack.run(visits=4 if args.quick else 8)
        print("attacker mix (bench/attack.py): " + ", ".join(f"{name} {value}" for name, value in attacked.items()))
        return status or (0 if attacked["within_bound"] else 1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
