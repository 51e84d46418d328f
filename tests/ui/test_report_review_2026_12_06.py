"""A manager's review of links and reports on a phone (2026-12-06): what the headline figures and the nearest
set-ups said beside the verdict, each a test that fails before its fix."""

from __future__ import annotations

from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState
from ui import exports
from ui.state import Selection


def test_a_set_up_short_of_its_target_does_not_read_fits_yes() -> None:
    """A big 'Fits: yes' sat under '14 short of the target' on the Memory page and in its report."""
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_id="h100-sxm-80gb", gpu_count=2, weights="fp8",
                    kv_dtype="fp8", context_tokens=32768, users=40)  # fmt: skip
    a = sel.assessment()
    assert a.state is VerdictState.MISSES_TARGET and a.fits and a.target_users == 40
    fits = dict(exports.headline_figures(a, "GiB"))["Fits"]
    assert fits == f"in memory; {40 - a.conversations:,} short of the target", fits


def test_the_fraction_that_starts_a_spark_says_how_many_public_sparks_it_would_start() -> None:
    """The nearest set-up of a DGX Spark refused at vLLM's 0.92 was 'memory fraction 0.91' and a green verdict,
    which starts only on a host holding at most 10.95 GiB of the pool: 18 of the 37 public Sparks held more."""
    sel = Selection(model_id="Qwen/Qwen3-8B", gpu_id="dgx-spark-gb10", engine="vllm", context_tokens=32768, users=8)
    a = sel.assessment()
    assert a.report is not None and a.report.failure_kind == "free-memory"
    changes = [alt.change for alt in nearest_fitting(a.request, a.target_users or 1)]
    fraction = next(c for c in changes if c.startswith("memory fraction 0.91"))
    assert "starts if the host holds at most 10.95 GiB of the pool; 18 of 37 public DGX Sparks held more" in fraction


def test_the_memory_report_draws_its_chart_without_a_megabyte_script() -> None:
    """The Memory page's HTML report was 4.8 MB on a phone (Plotly's library inlined for one bar chart): the chart
    is now SVG markup of the same bars, the report tens of kilobytes, and every bar's figure is in it."""
    from ui.memory_svg import memory_svg

    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_id="h100-sxm-80gb", gpu_count=2, weights="fp8")
    a = sel.assessment()
    svg = memory_svg(a.allocated, "GiB", title="Memory per GPU")
    html = exports.report_html(sel, "t", a.sentence(), [svg], {}, {}, "http://127.0.0.2:8501/", assessment=a)
    assert len(html.encode()) < 100_000 and "plotly" not in html.lower() and "<svg" in html
    weights = a.allocated.stages[0].weights_bytes / 2**30
    assert f"GPU 0, Weights: {weights:,.2f} GiB" in html and f"GPU 1, Weights: {weights:,.2f} GiB" in html
    capacity = a.allocated.per_gpu.gpu_memory_bytes / 2**30
    assert f"Capacity: {capacity:,.1f} GiB per GPU (dashed)" in html


def test_the_memory_report_carries_the_nearest_set_ups_the_page_shows() -> None:
    """The Memory page's report dropped the nearest set-ups (for a DGX Spark refused at vLLM's default fraction: the
    fraction that starts it, and on how many public Sparks)."""
    from ui import answers

    sel = Selection(model_id="Qwen/Qwen3-8B", gpu_id="dgx-spark-gb10", engine="vllm", context_tokens=32768, users=8)
    answer = answers.memory(sel, None)
    sections = dict(answers.report_sections(answer, "GiB"))
    nearest = sections["Nearest set-ups"]
    assert nearest == [f"{alt.change}: {alt.assessment.sentence('GiB')}" for alt in answer.nearest] and nearest
    assert any("18 of 37 public DGX Sparks held more" in line for line in nearest)
    a = answer.assessment
    html = exports.report_html(
        sel, "t", a.sentence(), [], {}, {}, "http://127.0.0.2:8501/", sections=list(sections.items())
    )
    assert "<h2>Nearest set-ups</h2>" in html


def test_the_report_chart_draws_what_the_page_chart_draws_at_the_edges() -> None:
    """A later review: the SVG's ticks raised past 8,000 GiB (a hand-described model within the planner's limits
    puts 14,269 GiB on one H100), a set-up that overflows names its shortfall, and mixed GPUs mark each GPU's own
    capacity as the page's chart does."""
    from planner.core.units import GiB
    from planner.planning.results import StageMemory
    from ui.memory_svg import memory_svg

    a = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_id="h100-sxm-80gb").assessment()  # BF16 on one H100
    svg = memory_svg(a.allocated).markup
    short = -a.allocated.per_gpu.headroom_bytes / GiB
    assert a.allocated.per_gpu.headroom_bytes < 0 and f">short by {short:,.1f} GiB</text>" in svg
    huge = a.allocated.model_copy(
        update={"stages": tuple(s.model_copy(update={"weights_bytes": 14_269 * GiB}) for s in a.allocated.stages)}
    )
    assert ">15000</text>" in memory_svg(huge).markup
    two = Selection(model_id="meta-llama/Llama-3.1-8B", gpu_id="h100-sxm-80gb", gpu_count=2, tensor_parallel=2)
    result = two.assessment().allocated
    stages: tuple[StageMemory, ...] = result.stages
    small = stages[0].model_copy(update={"gpu_memory_bytes": stages[0].gpu_memory_bytes // 2})
    mixed_result = result.model_copy(
        update={"pipeline_parallel": 2, "tensor_parallel": 1, "stages": (stages[0], small)}
    )
    assert mixed_result.stages[1].gpu_memory_bytes != mixed_result.stages[0].gpu_memory_bytes
    assert memory_svg(mixed_result).markup.count("stroke-dasharray='2 2'") == 2
