"""AMD's own vLLM latency tables on eight MI300X scored by the speed model, a diagnosis of the MI300X misses (issue 21,
unseen-2026-12d; ``python -m bench.mi300x_tables``), with the decode step each latency implies. Found while reading
that set's misses; since 2026-12-07 (issue 21) the same tables, with their 2,048-token prompts and each image's own
release and KV dtype, are a scored set (tests/advisor/benchmarks/unseen-2026-12f.toml).

The source is ROCm/vllm ``docs/dev-docker/README.md`` ("Latency Measurements", ``benchmark_latency``, TP 8, 128 tokens
in, 2,048 out, amd/Llama-3.1-70B-Instruct-FP8-KV and amd/Llama-3.1-405B-Instruct-FP8-KV, FP8 weights and KV cache):
at 040de12d45c1 for the image with vLLM 0.10.0 and ROCm 6.4.1, whose 70B batch-1 / 2 latencies (17.236 / 18.057 s)
are those of AMD's "Performance Results" page for its vLLM 0.9.1 image (the package row and the unseen-2026-12d row),
and an earlier revision for the vLLM 0.6.6 image (ROCm 6.3.1, its notes' last entry 2025-01-24; search-index file id
3135362003, in milliseconds there; its 405B rows name the 70B checkpoint, a slip: their latencies are 2.7x the
70B's). Each batch is scored as a row of the package would be (vLLM 0.9.1's rules) and
the decode step the latency implies (the modelled prompt taken off) is printed beside the modelled one.
"""

from __future__ import annotations

import argparse

from planner.advisor.benchmarks import BenchmarkRow
from planner.advisor.engine_speed import prefill_alone, prefill_in_serving, step
from planner.advisor.validation import case, predict

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128)
SOURCE = "ROCm/vllm docs/dev-docker/README.md, Latency Measurements (bench.mi300x_tables)"
# Seconds per batch of BATCHES: (image, model id) -> latencies.
LATENCY_S: dict[tuple[str, str], tuple[float, ...]] = {
    ("0.10.0", "meta-llama/Llama-3.1-70B"): (17.236, 18.057, 18.450, 19.677, 22.072, 24.932, 33.287, 46.484),
    ("0.10.0", "meta-llama/Llama-3.1-405B"): (48.453, 49.268, 51.136, 54.226, 57.274, 68.901, 88.631, 117.027),
    ("0.6.6", "meta-llama/Llama-3.1-70B"): (
        19.08859, 19.61046, 19.91130, 21.85880, 23.53759, 25.34294, 32.54819, 45.21637,
    ),
    ("0.6.6", "meta-llama/Llama-3.1-405B"): (
        51.73970, 52.76915, 54.55707, 56.90186, 60.43212, 67.35301, 81.08533, 116.13851,
    ),
}  # fmt: skip


def row(model_id: str, batch: int, latency_s: float) -> BenchmarkRow:
    """One batch of a table as a benchmark row (output tokens per second, the prompt's prefill included)."""
    return BenchmarkRow(
        id=f"amd-dev-docker-{model_id.split('/')[-1].lower()}-bs{batch}",
        regime="single_stream" if batch == 1 else "batched",
        engine="vLLM 0.9.1",
        engine_version="0.9.1",
        family="paged",
        model_id=model_id,
        gpu_id="mi300x",
        gpu_count=8,
        gpus_per_replica=8,
        weights="fp8",
        kv_dtype="fp8",
        concurrency=batch,
        input_tokens=128,
        output_tokens=2048,
        metric="output_total",
        value=round(batch * 2048 / latency_s, 2),
        source=SOURCE,
        source_date="2025-07-16",
        excerpt=f"{model_id} FP8 8 {batch} 128 2048 {latency_s}",
        note="a diagnosis, not a scored row",
        role="held-out",
    )


def implied_step_ms(r: BenchmarkRow, latency_s: float) -> tuple[float, float]:
    """The decode step ``latency_s`` implies (its modelled prompts taken off) and the modelled step, in ms."""
    c = case(r)
    assert c.decode is not None and c.prefill is not None
    if c.batch == 1:
        prompts = prefill_alone(c.setup, c.prefill) or 0.0
    else:
        prompts = (prefill_in_serving(c.setup, c.prefill, batch=c.batch) or 0.0) * c.batch
    return (latency_s - prompts) / r.output_tokens * 1e3, step(c.setup, c.decode).seconds * 1e3


def lines() -> list[str]:
    """Per image and model, each batch's measured and modelled tokens/s, the error and the two decode steps."""
    out = []
    for (image, model_id), latencies in LATENCY_S.items():
        out.append(f"{model_id} on 8 x MI300X, AMD's vLLM {image} image, 128 in / 2,048 out")
        for batch, latency in zip(BATCHES, latencies, strict=True):
            r = row(model_id, batch, latency)
            modelled = predict(r) or 0.0
            measured_ms, modelled_ms = implied_step_ms(r, latency)
            out.append(
                f"  batch {batch:4d}: {r.value:8.1f} tokens/s, modelled {modelled:8.1f}"
                f" ({modelled / r.value - 1:+.1%}); step {measured_ms:6.2f} ms, modelled {modelled_ms:6.2f} ms"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mi300x_tables", description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    print("\n".join(lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
