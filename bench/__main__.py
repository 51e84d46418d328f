"""``make bench``: medians of repeated runs, printed as a table (never asserted in tests).

- planner: one breakdown, one 64-point concurrency curve, and the sweep catalog x {1, 2, 4, 8} GPUs x 6 weight
  precisions (targets on this 2-core machine: under 1 ms, 10 ms and 500 ms);
- dashboard: server-side rerun time of each page (AppTest; target under 150 ms);
- browser: the cold link of the Memory page (verdict shown, chart drawn) against a one-chart Streamlit + Plotly
  page served the same way (:mod:`bench.coldlink`; target: the ratio of the medians at most 1.15, the verdict
  no later than the floor's chart), and slider change to updated chart (under 500 ms), in Debian's Chromium
  (skipped with a note when it is not installed);
- advisor: the full ranking over the catalog, when the advisor module is present (target under 300 ms);
- load: 25 concurrent sessions for 60 s opening normal and hostile links on loopback (:mod:`bench.load`): errors,
  p50 / p95 page run and the server's peak memory (``--no-load`` skips it, ``--quick`` runs 10 s);
- attack: a plain visitor's Memory page beside sessions looping heavy advisor links and a failing Hub import, and
  the same visits without them (:mod:`bench.attack`; target: at most 2x plus 1 s; ``--no-load`` skips it too).

``python -m bench --quick`` does fewer repetitions.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time

from bench.coldlink import RATIO
from bench.timing import median_ms
from model_catalog import get_gpu, get_model, load_models
from planner.assessment.assess import concurrency_curve
from planner.core.overhead import SimpleFraction
from planner.core.parallel import default_parallelism
from planner.planning.plan import PlanRequest, plan
from ui import state

SWEEP_PRECISIONS = ("bf16", "fp8", "int8", "int4-awq", "q4_k_m", "nvfp4")


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
    from bench.coldlink import FLOOR_SCRIPT, compare
    from tests.browser.server import CHROMIUM_ARGS, chromium_path, running_app, wait_for_chart
    from ui import links
    from ui.state import Selection

    path = chromium_path()
    if path is None:
        print("browser: skipped (Debian's chromium is not installed)", file=sys.stderr)
        return {}
    from playwright.sync_api import sync_playwright

    sel = Selection(
        model_id="meta-llama/Llama-3.1-70B",
        gpu_count=2,
        tensor_parallel=2,
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=8192,
    )
    slider: list[float] = []
    with running_app() as base, running_app(script=FLOOR_SCRIPT) as floor, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        rows = compare(browser, f"{base}/{links.query_string(sel)}", f"{floor}/", max(repeat, 7))
        for index in range(repeat):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.goto(f"{base}/{links.query_string(sel)}")
            wait_for_chart(page)
            marker = page.locator("[data-testid='stAlert']").first.inner_text()
            knob = page.get_by_role("slider", name="Context length (tokens)")
            knob.focus()
            start = time.perf_counter()
            page.keyboard.press("End" if index % 2 == 0 else "Home")
            page.wait_for_function(
                "(before) => { const a = document.querySelector(\"[data-testid='stAlert']\");"
                " return a && a.innerText !== before; }",
                arg=marker,
                timeout=30_000,
            )
            wait_for_chart(page)
            slider.append((time.perf_counter() - start) * 1000)
            context.close()
        browser.close()
    return {**rows, "browser: slider change to updated chart": statistics.median(slider)}


def advisor_benchmarks() -> dict[str, float]:
    try:
        module = importlib.import_module("bench.advisor")
    except ModuleNotFoundError:
        return {}
    return {f"advisor: {k}": float(v) for k, v in module.run().items()}


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
        shown = f"{value:11.2f}x" if name == RATIO else f"{value:12.2f}"
        print(f"{name.ljust(width)}  {shown}")
    if not (args.no_load or args.browser_only):
        from bench import load

        figures = load.run(sessions=25, seconds=10 if args.quick else 60)
        print()
        print("load test (bench/load.py): " + ", ".join(f"{name} {value}" for name, value in figures.items()))
        from bench import attack

        attacked = attack.run(visits=4 if args.quick else 8)
        print("attacker mix (bench/attack.py): " + ", ".join(f"{name} {value}" for name, value in attacked.items()))
        if figures["errors"] or figures["server_tracebacks_logged"] or not attacked["within_bound"]:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
